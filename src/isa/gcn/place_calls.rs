//! The calling convention's code, placed after allocation (`docs/ir.md`, "Calls"), when
//! the registers a function uses and the size of its frame are known:
//!
//! - each call ([`Inst::Call`]) saves the SGPRs the function's inputs and lane masks live
//!   in (below the allocator's, which the call clobbers) into lanes of a VGPR from v32 on
//!   (which it keeps), passes the callee the scratch resource in `s[4:7]` and its stack
//!   pointer in s2 (the caller's, plus 64 × the caller's frame), jumps
//!   ([`Inst::Swappc`]) and restores the SGPRs;
//! - a device function that writes VGPRs from v32 on (but its own arguments' and results')
//!   saves them on entry into its frame after the spill slots and reloads them before
//!   returning, whole waves (EXEC all ones: the caller's inactive lanes keep theirs too,
//!   as LLVM saves them).

use super::abi::{DEVICE_FRAME_OFFSET, DEVICE_SCRATCH_RSRC, Frame};
use super::inst::{Callee, Inst, Src};
use super::mc::Op;
use super::place_spills::{SpillArea, lane_access};
use super::regs::{EXEC, FIRST_CALLEE_SAVED_VGPR, SGPR, VGPR, sgpr, sgpr_pair, vgpr};
use crate::FunctionKind;
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use smallvec::smallvec;

/// The largest MUBUF instruction offset: the last dword a saved register may start at.
const MAX_OFFSET: u32 = 4092;

/// What the placed calling-convention code takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// Bytes of private memory per lane the function's frame takes: its stack slots, spill
    /// slots and saved registers, rounded to 16 where it calls (its callees' frames start
    /// there).
    pub frame_size: u32,
}

/// Why the code could not be placed as the function was allocated.
#[derive(Debug)]
pub enum Unplaced {
    /// VGPRs must be saved, and the function has no private segment: compile it again
    /// with one.
    NeedsScratch,
    /// No VGPR is free for the lanes that keep the SGPRs across calls.
    NoLaneVgpr,
    /// The saved registers end past the instruction offset's reach (the frame's end).
    TooFar(u32),
}

/// Places the calls and the saving of callee-saved VGPRs in `blocks` (allocated, spills
/// placed: `area`); `first_sgpr` is the allocator's first SGPR, `abi_vgprs` the VGPRs the
/// function's own arguments or results take (`abi::device_abi_vgprs`); the VGPRs from `vgpr_limit` on hold lane
/// masks.
pub fn run(
    blocks: &mut [Vec<Inst>],
    frame: &Frame,
    kind: FunctionKind,
    area: &SpillArea,
    first_sgpr: u16,
    abi_vgprs: u16,
    vgpr_limit: u16,
) -> Result<Placed, Unplaced> {
    let spill_end = frame.stack_size + 4 * area.vgpr_slots;
    let used = used_vgprs(blocks, vgpr_limit);
    // The SGPRs below the allocator's, which live across calls in lanes of VGPRs from
    // `lanes` on (64 a VGPR).
    let kept: Vec<u16> = (0..first_sgpr)
        // s3 is no device function's (abi).
        .filter(|&s| kind == FunctionKind::Kernel || s != 3)
        .collect();
    let lane_vgprs = kept.len().div_ceil(64) as u16;
    let lanes = if frame.calls {
        let lanes = used.max(FIRST_CALLEE_SAVED_VGPR);
        if lanes + lane_vgprs > vgpr_limit {
            return Err(Unplaced::NoLaneVgpr);
        }
        Some(vgpr(lanes))
    } else {
        None
    };
    let mut saved: Vec<u16> = Vec::new();
    // A function whose arguments or results take more than 32 VGPRs cannot be called
    // (a call passes at most 32): it keeps nothing, as before calls existed.
    if kind == FunctionKind::Device && abi_vgprs <= FIRST_CALLEE_SAVED_VGPR {
        for inst in blocks.iter().flatten() {
            inst.clone().visit_operands(&mut |r, k| {
                if matches!(
                    k,
                    OperandKind::Def | OperandKind::EarlyDef | OperandKind::DefFixed(_)
                ) && let Reg::Real { file: VGPR, hw, .. } = *r
                {
                    for h in hw..hw + r.width() {
                        if h >= FIRST_CALLEE_SAVED_VGPR && !saved.contains(&h) {
                            saved.push(h);
                        }
                    }
                }
            });
        }
        if let Some(l) = lanes {
            saved.extend(l.hw()..l.hw() + lane_vgprs);
        }
        saved.sort_unstable();
        saved.dedup();
    }
    let own = spill_end + 4 * saved.len() as u32;
    if !saved.is_empty() && own - 4 > MAX_OFFSET {
        return Err(Unplaced::TooFar(own));
    }
    let frame_size = if frame.calls {
        own.next_multiple_of(16)
    } else {
        own
    };
    if (frame.calls || !saved.is_empty()) && frame.scratch.is_none() {
        return Err(Unplaced::NeedsScratch);
    }
    if let Some(lanes) = lanes {
        // Lanes for the SGPRs some call gives back only.
        let restored: Vec<u16> = blocks
            .iter()
            .flat_map(|b| live_after_calls(b, &kept, kind, !saved.is_empty()))
            .flatten()
            .collect();
        for block in blocks.iter_mut() {
            let mut out = Vec::with_capacity(block.len());
            // The kept SGPRs whose lanes hold their value: after a call of the block, until
            // something writes them (the lanes are not trusted across blocks).
            let mut in_lanes: Vec<u16> = Vec::new();
            let mut live_after = live_after_calls(block, &kept, kind, !saved.is_empty());
            for inst in block.drain(..) {
                match inst {
                    Inst::Call { callee, .. } => {
                        let save: Vec<u16> = kept
                            .iter()
                            .copied()
                            .filter(|s| !in_lanes.contains(s) && restored.contains(s))
                            .collect();
                        let restore = live_after.remove(0);
                        let sgprs = Kept {
                            all: &kept,
                            save: &save,
                            restore: &restore,
                        };
                        call(&mut out, callee, kind, &sgprs, lanes, frame_size);
                        in_lanes = kept.clone();
                    }
                    mut other => {
                        other.visit_operands(&mut |r, k| {
                            if !matches!(
                                k,
                                OperandKind::Use | OperandKind::LateUse | OperandKind::UseFixed(_)
                            ) && r.file() == SGPR
                            {
                                let (lo, hi) = (r.hw(), r.hw() + r.width());
                                in_lanes.retain(|s| !(lo..hi).contains(s));
                            }
                        });
                        out.push(other);
                    }
                }
            }
            *block = out;
        }
    }
    if saved.is_empty() {
        return Ok(Placed { frame_size });
    }
    let scratch = frame.scratch.expect("checked above");
    let exec_copy = sgpr_pair(frame.reserved_sgprs.next_multiple_of(2));
    let access = |op: Op, reg: u16, k: usize| {
        let offset = (spill_end + 4 * k as u32) as u16;
        match op {
            Op::BufferStoreDword => Inst::ScratchStore {
                op,
                data: vgpr(reg),
                vaddr: None,
                offset,
                rsrc: scratch.rsrc,
                soffset: scratch.frame_offset,
                whole_wave: false,
            },
            _ => Inst::ScratchLoad {
                op,
                dst: vgpr(reg),
                vaddr: None,
                offset,
                rsrc: scratch.rsrc,
                soffset: scratch.frame_offset,
                whole_wave: false,
            },
        }
    };
    let whole_wave = |accesses: Vec<Inst>| {
        let mut out = vec![Inst::Salu {
            op: Op::SOrSaveexecB64,
            dst: Some(exec_copy),
            srcs: smallvec![Src::Imm(u32::MAX)],
        }];
        out.extend(accesses);
        out.push(Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(exec_copy)],
        });
        out
    };
    let stores = saved
        .iter()
        .enumerate()
        .map(|(k, &r)| access(Op::BufferStoreDword, r, k))
        .collect();
    blocks[0].splice(0..0, whole_wave(stores));
    for block in blocks.iter_mut() {
        let Some(at) = block.iter().position(|i| matches!(i, Inst::Ret { .. })) else {
            continue;
        };
        // Its results are in v0–v31 (at most 32 VGPRs of them where it saves any).
        debug_assert!(matches!(&block[at], Inst::Ret { results, .. }
            if results.iter().all(|&(r, _)| r.hw() + r.width() <= FIRST_CALLEE_SAVED_VGPR)));
        let loads = saved
            .iter()
            .enumerate()
            .map(|(k, &r)| access(Op::BufferLoadDword, r, k))
            .collect();
        block.splice(at..at, whole_wave(loads));
    }
    Ok(Placed { frame_size })
}

/// One past the highest VGPR below `limit` that `blocks` name.
fn used_vgprs(blocks: &[Vec<Inst>], limit: u16) -> u16 {
    let mut used = 0;
    for inst in blocks.iter().flatten() {
        inst.clone().visit_operands(&mut |r, _| {
            if let Reg::Real { file: VGPR, hw, .. } = *r
                && hw < limit
            {
                used = used.max(hw + r.width());
            }
        });
    }
    used
}

/// The SGPRs below the allocator's around one call: all of them (`all[i]` in the lanes'
/// `i`th), those whose lanes are out of date, those read after the call.
struct Kept<'a> {
    all: &'a [u16],
    save: &'a [u16],
    restore: &'a [u16],
}

/// For each call of `block`, the SGPRs of `kept` read after it before anything writes
/// them: the registers its lanes must give back. What the block leaves for its successors
/// counts as read (all of `kept`), but after a return only the return address is (and the
/// scratch registers, for the reloads of `saves`), after `s_endpgm` nothing. A call reads
/// the registers its own sequence does: the stack pointer and resource of a device
/// function, the resource a kernel moves.
fn live_after_calls(
    block: &[Inst],
    kept: &[u16],
    kind: FunctionKind,
    saves: bool,
) -> Vec<Vec<u16>> {
    let mut live: Vec<u16> = match block.last() {
        Some(Inst::EndPgm) => Vec::new(),
        Some(Inst::Ret { .. }) if saves => vec![0, 1, 2, 4, 5, 6, 7],
        Some(Inst::Ret { .. }) => vec![0, 1],
        _ => kept.to_vec(),
    };
    let mut out = Vec::new();
    for inst in block.iter().rev() {
        if let Inst::Call { .. } = inst {
            out.push(kept.iter().copied().filter(|s| live.contains(s)).collect());
            live = match kind {
                FunctionKind::Kernel => vec![0, 1, 2, 3],
                FunctionKind::Device => vec![2, 4, 5, 6, 7],
            };
            continue;
        }
        let (mut uses, mut defs) = (Vec::new(), Vec::new());
        inst.clone().visit_operands(&mut |r, k| {
            if r.file() != SGPR {
                return;
            }
            let units = r.hw()..r.hw() + r.width();
            match k {
                OperandKind::Use | OperandKind::LateUse | OperandKind::UseFixed(_) => {
                    uses.extend(units)
                }
                _ => defs.extend(units),
            }
        });
        live.retain(|s| !defs.contains(s));
        live.extend(uses);
    }
    out.reverse();
    out
}

/// The sequence of a call of `callee` from a function of `kind` whose SGPRs below the
/// allocator's (`kept`) live across it in the lanes of `lanes`, with a frame of
/// `frame_size` bytes per lane.
fn call(
    out: &mut Vec<Inst>,
    callee: Callee,
    kind: FunctionKind,
    kept: &Kept,
    lanes: Reg,
    frame_size: u32,
) {
    // SGPR `kept.all[i]` is in lane `i % 64` of VGPR `lanes + i / 64`.
    let lane = |i: usize| (vgpr(lanes.hw() + (i / 64) as u16), (i % 64) as u32);
    for (i, &s) in kept.all.iter().enumerate() {
        if kept.save.contains(&s) {
            let (v, l) = lane(i);
            out.push(lane_access(Op::VWritelaneB32, v, sgpr(s), l));
        }
    }
    let rsrc = Reg::Real {
        file: SGPR,
        class: RegClass::Vector,
        hw: DEVICE_SCRATCH_RSRC,
    };
    let sp = sgpr(DEVICE_FRAME_OFFSET);
    let salu = |op, dst, srcs| Inst::Salu {
        op,
        dst: Some(dst),
        srcs,
    };
    let stack_pointer = 64 * frame_size;
    match kind {
        // The kernel's resource (s[0:3]) moves to where a device function receives it;
        // its stack starts at 0 in the wave's part.
        FunctionKind::Kernel => {
            out.push(salu(
                Op::SMovB64,
                sgpr_pair(DEVICE_SCRATCH_RSRC),
                smallvec![Src::Reg(sgpr_pair(0))],
            ));
            out.push(salu(
                Op::SMovB64,
                sgpr_pair(DEVICE_SCRATCH_RSRC + 2),
                smallvec![Src::Reg(sgpr_pair(2))],
            ));
            out.push(salu(Op::SMovB32, sp, smallvec![Src::Imm(stack_pointer)]));
        }
        FunctionKind::Device => out.push(salu(
            Op::SAddU32,
            sp,
            smallvec![Src::Reg(sp), Src::Imm(stack_pointer)],
        )),
    }
    let mut uses = vec![sp, rsrc];
    if let Callee::Address(address, _) = callee {
        // Above what the sequence writes (`Frame::reserved_sgprs`).
        debug_assert!(address.hw() >= 8);
        uses.push(address);
    }
    out.push(Inst::Swappc { callee, uses });
    for (i, &s) in kept.all.iter().enumerate() {
        if kept.restore.contains(&s) {
            let (v, l) = lane(i);
            out.push(lane_access(Op::VReadlaneB32, sgpr(s), v, l));
        }
    }
}
