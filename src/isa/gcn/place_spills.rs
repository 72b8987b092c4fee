//! The allocator's spills to memory placed (`Inst::Spill`, `Inst::Reload`; after `recolor`,
//! which must not move a register that only some lanes of write):
//!
//! - an SGPR slot is a lane of a VGPR kept for them just above every other VGPR the code
//!   uses: `v_writelane_b32` and `v_readlane_b32`, which ignore EXEC, one per dword, as
//!   LLVM spills SGPRs (`SIRegisterInfo::spillSGPR`), 64 slots per VGPR;
//! - a VGPR slot is a dword of each lane's private memory after the stack slots
//!   (`Frame::stack_size`): `buffer_store_dword`/`buffer_load_dword` with the slot's
//!   frame offset in the instruction (`off`), which `insert_waitcnt` waits for like any
//!   vector-memory access. In linearized code they store and load every lane the function
//!   runs for (`expand_wave_copies` sets EXEC around them), since a register holds values
//!   of lanes the block's EXEC leaves out, as the allocator's whole-wave moves do.

use super::abi::Frame;
use super::inst::{Inst, Src};
use super::mc::Op;
use super::regs::{FIRST_CALLEE_SAVED_VGPR, SGPR, VGPR, vgpr};
use crate::machinst::{MachInst, Reg};
use smallvec::smallvec;

/// The largest MUBUF instruction offset: the last dword a spill slot may start at.
const MAX_OFFSET: u32 = 4092;

/// What the placed spills take.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillArea {
    /// SGPR slots (dwords), in lanes of `lane_vgprs` VGPRs.
    pub sgpr_slots: u32,
    pub lane_vgprs: u16,
    /// VGPR slots (dwords per lane) after the stack slots.
    pub vgpr_slots: u32,
}

/// Why the spills could not be placed as the code was allocated.
#[derive(Debug)]
pub enum Unplaced {
    /// VGPRs spill, and the function has no private segment: compile again with one.
    NeedsScratch,
    /// No room above the VGPRs used for this many VGPRs of SGPR slots: allocate again with
    /// that many fewer.
    NeedsLaneVgprs(u16),
    /// The spill slots end past the instruction offset's reach.
    TooFar(u32),
}

/// Replaces the spills and reloads of `blocks` (VGPRs below `vgpr_limit` are the
/// allocator's); `linearized`: spill code stores and loads whole waves. In a function that
/// calls, the lanes of SGPR slots are VGPRs a call keeps (from `FIRST_CALLEE_SAVED_VGPR`).
pub fn run(
    blocks: &mut [Vec<Inst>],
    frame: &Frame,
    linearized: bool,
    vgpr_limit: u16,
) -> Result<SpillArea, Unplaced> {
    let mut area = SpillArea::default();
    let mut used = 0u16;
    for inst in blocks.iter_mut().flatten() {
        if let Inst::Spill { slot, src: reg } | Inst::Reload { dst: reg, slot } = *inst {
            let end = slot + reg.width() as u32;
            match reg.file() {
                SGPR => area.sgpr_slots = area.sgpr_slots.max(end),
                _ => area.vgpr_slots = area.vgpr_slots.max(end),
            }
        }
        inst.visit_operands(&mut |r, _| {
            if let Reg::Real { file: VGPR, hw, .. } = *r
                && hw < vgpr_limit
            {
                used = used.max(hw + r.width());
            }
        });
    }
    if area.sgpr_slots == 0 && area.vgpr_slots == 0 {
        return Ok(area);
    }
    if frame.calls && area.sgpr_slots > 0 {
        used = used.max(FIRST_CALLEE_SAVED_VGPR);
    }
    area.lane_vgprs = area.sgpr_slots.div_ceil(64) as u16;
    if used + area.lane_vgprs > vgpr_limit {
        return Err(Unplaced::NeedsLaneVgprs(area.lane_vgprs));
    }
    let scratch = match (area.vgpr_slots, frame.scratch) {
        (0, scratch) => scratch,
        (_, None) => return Err(Unplaced::NeedsScratch),
        (_, Some(scratch)) => Some(scratch),
    };
    let end = frame.stack_size + 4 * area.vgpr_slots;
    if area.vgpr_slots > 0 && end - 4 > MAX_OFFSET {
        return Err(Unplaced::TooFar(end));
    }
    let lane = |dword: u32| (vgpr(used + (dword / 64) as u16), dword % 64);
    for block in blocks.iter_mut() {
        let mut out = Vec::with_capacity(block.len());
        for inst in block.drain(..) {
            match inst {
                Inst::Spill { slot, src } if src.file() == SGPR => {
                    for k in 0..src.width() {
                        let (v, l) = lane(slot + k as u32);
                        out.push(lane_access(Op::VWritelaneB32, v, word(src, k), l));
                    }
                }
                Inst::Reload { dst, slot } if dst.file() == SGPR => {
                    for k in 0..dst.width() {
                        let (v, l) = lane(slot + k as u32);
                        out.push(lane_access(Op::VReadlaneB32, word(dst, k), v, l));
                    }
                }
                Inst::Spill { slot, src } => {
                    let scratch = scratch.expect("checked above");
                    out.push(Inst::ScratchStore {
                        op: Op::BufferStoreDword,
                        data: src,
                        vaddr: None,
                        offset: (frame.stack_size + 4 * slot) as u16,
                        rsrc: scratch.rsrc,
                        soffset: scratch.frame_offset,
                        whole_wave: linearized,
                    });
                }
                Inst::Reload { dst, slot } => {
                    let scratch = scratch.expect("checked above");
                    out.push(Inst::ScratchLoad {
                        op: Op::BufferLoadDword,
                        dst,
                        vaddr: None,
                        offset: (frame.stack_size + 4 * slot) as u16,
                        rsrc: scratch.rsrc,
                        soffset: scratch.frame_offset,
                        whole_wave: linearized,
                    });
                }
                other => out.push(other),
            }
        }
        *block = out;
    }
    Ok(area)
}

/// Dword `k` of `reg`, a single register.
fn word(reg: Reg, k: u16) -> Reg {
    Reg::Real {
        file: reg.file(),
        class: crate::machinst::RegClass::Int,
        hw: reg.hw() + k,
    }
}

/// `v_writelane_b32 dst, src, lane` or `v_readlane_b32 dst, src, lane`.
pub fn lane_access(op: Op, dst: Reg, src: Reg, lane: u32) -> Inst {
    Inst::Valu {
        op,
        dst: Some(dst),
        sdst: None,
        srcs: smallvec![Src::Reg(src), Src::Imm(lane)],
        neg: 0,
        abs: 0,
        clamp: false,
        mask_in_vcc: false,
        sdwa: None,
    }
}
