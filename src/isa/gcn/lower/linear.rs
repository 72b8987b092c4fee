//! The GCN side of mask linearization (`crate::machinst::divergence::linearize`): EXEC updates, lane
//! masks of branch edges, masked moves, loop latches and the exit block.

use super::super::abi::{Frame, device_value_vgprs};
use super::super::inst::{Inst, Src};
use super::super::mc::Op;
use super::super::regs::{SGPR, VGPR, VGPR_LIMIT, sgpr_limit, sgpr_pair, vgpr};
use super::conditions::complement;
use super::isle::generated::{Context as _, constructor_cond_mask};
use super::{GcnLower, IsleContext};
use crate::ir::{self, InstructionData, condcodes::IntCC};
use crate::machinst::divergence::{Lanes, LinearBackend, LinearInst};
use crate::machinst::lower::Lower;
use crate::machinst::{MachInst, Reg, RegClass, RegFile};
use crate::{CompileError, FunctionKind};
use smallvec::smallvec;
use std::collections::HashMap;

pub use super::super::regs::EXEC;

/// The SGPR pairs linearized code keeps outside the allocator, after the frame's reserved
/// SGPRs: the lanes the function runs for, a place to save EXEC around whole-wave moves,
/// then the blocks' lane masks.
pub fn entry_lanes(frame: &Frame) -> Reg {
    sgpr_pair(frame.reserved_sgprs.next_multiple_of(2))
}
pub fn saved_exec(frame: &Frame) -> Reg {
    sgpr_pair(frame.reserved_sgprs.next_multiple_of(2) + 2)
}
pub fn lane_mask(frame: &Frame, k: usize) -> Reg {
    sgpr_pair(frame.reserved_sgprs.next_multiple_of(2) + 4 + 2 * k as u16)
}
/// The first SGPR after the registers of linearized code with `masks` lane masks.
pub fn first_free_sgpr(frame: &Frame, masks: usize) -> u16 {
    frame.reserved_sgprs.next_multiple_of(2) + 4 + 2 * masks as u16
}

/// The SGPR pairs lane masks may take in `generation`, leaving `for_allocator` SGPRs.
pub fn mask_registers(
    frame: &Frame,
    generation: super::super::mc::Gen,
    for_allocator: u16,
) -> usize {
    let limit = sgpr_limit(generation).saturating_sub(for_allocator);
    (limit.saturating_sub(first_free_sgpr(frame, 0)) / 2) as usize
}

/// Masks that find no SGPR pair live in VGPR lanes, 32 masks (two lanes each) a VGPR:
/// slot `s` is in lanes `2 s mod 64` and the next of VGPR `mask_slot_vgpr(s / 32)`. The
/// VGPRs are counted down from the top of the file while the allocator runs below them,
/// then renumbered to follow the allocator's registers ([`place_mask_slots`]).
const MASKS_PER_VGPR: usize = 32;
/// The most VGPRs that may hold lane masks: half the file, so that the allocator keeps
/// the other half.
const MAX_MASK_SLOT_VGPRS: u16 = VGPR_LIMIT / 2;
pub fn mask_slot_vgprs(slots: usize) -> u16 {
    slots.div_ceil(MASKS_PER_VGPR) as u16
}
fn mask_slot(s: usize) -> (Reg, u32) {
    let v = vgpr(VGPR_LIMIT - 1 - (s / MASKS_PER_VGPR) as u16);
    (v, 2 * (s % MASKS_PER_VGPR) as u32)
}

/// Renumbers the mask-slot VGPRs (the top `count` of the file) to the ones just above every
/// other VGPR the code uses, so that the function's VGPR count stays small.
pub fn place_mask_slots(blocks: &mut [Vec<Inst>], count: u16) {
    if count == 0 {
        return;
    }
    let first_slot = VGPR_LIMIT - count;
    let mut used = 0u16;
    for inst in blocks.iter_mut().flatten() {
        inst.visit_operands(&mut |r, _| {
            if let Reg::Real { file: VGPR, hw, .. } = *r
                && hw < first_slot
            {
                used = used.max(hw + r.width());
            }
        });
    }
    for inst in blocks.iter_mut().flatten() {
        inst.visit_operands(&mut |r, _| {
            if let Reg::Real { file: VGPR, hw, .. } = *r
                && hw >= first_slot
            {
                *r = vgpr(used + (VGPR_LIMIT - 1 - hw));
            }
        });
    }
}

/// Where mask `k` lives.
enum MaskHome {
    Pair(Reg),
    Lanes(Reg, u32),
}

/// `v_readlane_b32` (an SGPR `dst`) or `v_writelane_b32`.
fn lane_op(op: Op, dst: Option<Reg>, sdst: Option<Reg>, srcs: &[Src]) -> Inst {
    Inst::Valu {
        op,
        dst,
        sdst,
        srcs: srcs.iter().copied().collect(),
        neg: 0,
        abs: 0,
        clamp: false,
        mask_in_vcc: false,
        sdwa: None,
    }
}

/// Makes the compare just emitted, which defines `mask`, compare the opposite condition;
/// false (nothing changed) when the last instruction is not such a compare.
fn complement_compare(ctx: &mut Lower<'_, Inst>, mask: Reg) -> bool {
    let Some(Inst::Valu {
        op, sdst: Some(d), ..
    }) = ctx.vcode.insts.last_mut()
    else {
        return false;
    };
    match complement(*op) {
        Some(opposite) if *d == mask => {
            *op = opposite;
            true
        }
        _ => false,
    }
}

/// `s_mov_b64 dst, src`.
pub(in crate::isa::gcn) fn mov64(dst: Reg, src: Src) -> Inst {
    Inst::Salu {
        op: Op::SMovB64,
        dst: Some(dst),
        srcs: smallvec![src],
    }
}

/// `dst = exec & c` (`s_and_b64`) or `exec & ~c` (`s_andn2_b64`); `dst` may be EXEC.
fn and64(op: Op, dst: Reg, c: Reg) -> Inst {
    Inst::Salu {
        op,
        dst: Some(dst),
        srcs: smallvec![Src::Reg(EXEC), Src::Reg(c)],
    }
}

impl GcnLower<'_> {
    fn with_isle<R>(
        &self,
        ctx: &mut Lower<'_, Inst>,
        f: impl FnOnce(&mut IsleContext<'_, '_>) -> R,
    ) -> Result<R, CompileError> {
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
            vgpr_copies: HashMap::new(),
        };
        let r = f(&mut isle);
        match isle.error {
            Some(e) => Err(e),
            None => Ok(r),
        }
    }
}

impl GcnLower<'_> {
    fn mask_home(&self, k: usize) -> MaskHome {
        match k.checked_sub(self.mask_registers) {
            None => MaskHome::Pair(lane_mask(self.frame, k)),
            Some(s) => {
                let (v, lane) = mask_slot(s);
                MaskHome::Lanes(v, lane)
            }
        }
    }

    /// Mask `k` in an SGPR pair: its own, or one read from its VGPR lanes
    /// (`v_readlane_b32` reads a lane whatever EXEC is).
    fn load_mask(&self, ctx: &mut Lower<'_, Inst>, k: usize) -> Reg {
        match self.mask_home(k) {
            MaskHome::Pair(r) => r,
            MaskHome::Lanes(v, lane) => {
                let [lo, hi] = [0, 1].map(|h| {
                    let d = ctx.new_vreg(SGPR, RegClass::Int);
                    let srcs = [Src::Reg(v), Src::Imm(lane + h)];
                    ctx.emit(lane_op(Op::VReadlaneB32, Some(d), None, &srcs));
                    d
                });
                let dst = ctx.new_vreg(SGPR, RegClass::Float);
                ctx.emit(Inst::Combine {
                    dst,
                    parts: smallvec![lo, hi],
                });
                dst
            }
        }
    }

    /// Writes `value` to a spilled mask's lanes (`v_writelane_b32` ignores EXEC too).
    fn store_mask(&self, ctx: &mut Lower<'_, Inst>, home: MaskHome, value: Reg) {
        let MaskHome::Lanes(v, lane) = home else {
            return;
        };
        for h in 0..2 {
            let half = ctx.new_vreg(SGPR, RegClass::Int);
            ctx.emit(Inst::Half {
                dst: half,
                src: value,
                hi: h == 1,
            });
            let srcs = [Src::Reg(half), Src::Imm(lane + h)];
            ctx.emit(lane_op(Op::VWritelaneB32, Some(v), None, &srcs));
        }
    }

    /// `Lanes::Case` as a compare's lane mask.
    fn case_lanes(&self, ctx: &mut Lower<'_, Inst>, lanes: Lanes) -> Lanes {
        let Lanes::Case(index, k) = lanes else {
            return lanes;
        };
        let hit = self
            .with_isle(ctx, |isle| {
                isle.vcmp(&Op::VCmpEqU32, Src::Imm(k), Src::Reg(index))
            })
            .expect("a compare of a VGPR with a constant is always legal");
        Lanes::Where(hit)
    }
}

impl LinearInst for Inst {
    /// VGPRs: `WaveCopy`, expanded after allocation with EXEC set to every lane the
    /// function runs for (`expand_wave_copies`). An SGPR holds one value for the wave.
    fn gen_wave_move(dst: Reg, src: Reg) -> Self {
        if dst.file() == VGPR {
            Inst::WaveCopy { dst, src }
        } else {
            Inst::Copy { dst, src }
        }
    }
}

impl LinearBackend for GcnLower<'_> {
    fn is_uniform(&self, value: ir::Value) -> bool {
        self.uniformity.is_uniform(value)
    }

    fn vector_file(&self) -> RegFile {
        VGPR
    }

    fn mask_registers(&self) -> usize {
        self.mask_registers
    }

    fn mask_slot_limit(&self) -> usize {
        MAX_MASK_SLOT_VGPRS as usize * MASKS_PER_VGPR
    }

    fn save_entry_lanes(&self, ctx: &mut Lower<'_, Inst>) {
        ctx.emit(mov64(entry_lanes(self.frame), Src::Reg(EXEC)));
    }

    fn enter_block(&self, ctx: &mut Lower<'_, Inst>, mask: usize) {
        let mask = self.load_mask(ctx, mask);
        ctx.emit(mov64(EXEC, Src::Reg(mask)));
    }

    fn narrow_lanes(&self, ctx: &mut Lower<'_, Inst>, lanes: Lanes) {
        match self.case_lanes(ctx, lanes) {
            Lanes::All => {}
            Lanes::Where(c) => ctx.emit(and64(Op::SAndB64, EXEC, c)),
            Lanes::WhereNot(c) => ctx.emit(and64(Op::SAndn2B64, EXEC, c)),
            Lanes::Case(..) => unreachable!("compared by case_lanes"),
        }
    }

    fn clear_mask(&self, ctx: &mut Lower<'_, Inst>, mask: usize) {
        match self.mask_home(mask) {
            MaskHome::Pair(mask) => ctx.emit(mov64(mask, Src::Imm(0))),
            MaskHome::Lanes(v, lane) => {
                for k in 0..2 {
                    let srcs = [Src::Imm(0), Src::Imm(lane + k)];
                    ctx.emit(lane_op(Op::VWritelaneB32, Some(v), None, &srcs));
                }
            }
        }
    }

    fn active_lanes(&self) -> Reg {
        EXEC
    }

    /// Every `Lanes::Where` mask is a compare's own, computed under the current EXEC,
    /// which clears the lanes that are off: `add_lanes` ORs it into a mask as it is.
    fn edge_lanes(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
        added: &[bool],
    ) -> Result<Vec<Lanes>, CompileError> {
        let data = ctx.dfg().insts[inst];
        self.with_isle(ctx, |isle| match data {
            InstructionData::Brif { arg, .. } => {
                let on = constructor_cond_mask(isle, arg);
                // Only the lanes not branching are added: the opposite compare's mask is
                // theirs.
                if added == [false, true] && complement_compare(isle.lower, on) {
                    vec![Lanes::WhereNot(on), Lanes::Where(on)]
                } else {
                    vec![Lanes::Where(on), Lanes::WhereNot(on)]
                }
            }
            InstructionData::BranchTable { arg, table, .. } => {
                // Each entry's lanes are compared where its target's mask takes them
                // (`Lanes::Case`), the default's as index >= entries (unsigned).
                let entries = isle.lower.dfg().jump_tables[table].as_slice().len() as u32;
                let index = isle.cmp_src(IntCC::Equal, arg, VGPR);
                let index = isle.src_to_vgpr(index);
                let default = match entries {
                    0 => Lanes::All,
                    _ => {
                        Lanes::Where(isle.vcmp(&Op::VCmpLeU32, Src::Imm(entries), Src::Reg(index)))
                    }
                };
                std::iter::once(default)
                    .chain((0..entries).map(|k| Lanes::Case(index, k)))
                    .collect()
            }
            _ => vec![Lanes::All],
        })
    }

    fn set_lanes(&self, ctx: &mut Lower<'_, Inst>, mask: usize, lanes: Lanes) -> Reg {
        let lanes = self.case_lanes(ctx, lanes);
        let home = self.mask_home(mask);
        let dst = match home {
            MaskHome::Pair(r) => r,
            MaskHome::Lanes(..) => ctx.new_vreg(SGPR, RegClass::Float),
        };
        let taken = match lanes {
            Lanes::All => {
                ctx.emit(mov64(dst, Src::Reg(EXEC)));
                EXEC
            }
            Lanes::Where(c) => {
                ctx.emit(and64(Op::SAndB64, dst, c));
                dst
            }
            Lanes::WhereNot(c) => {
                ctx.emit(and64(Op::SAndn2B64, dst, c));
                dst
            }
            Lanes::Case(..) => unreachable!("compared by case_lanes"),
        };
        self.store_mask(ctx, home, dst);
        taken
    }

    fn lanes_reg(&self, ctx: &mut Lower<'_, Inst>, lanes: Lanes) -> Reg {
        match self.case_lanes(ctx, lanes) {
            Lanes::All => EXEC,
            Lanes::Where(c) => c,
            Lanes::WhereNot(c) => {
                let dst = ctx.new_vreg(SGPR, RegClass::Float);
                ctx.emit(and64(Op::SAndn2B64, dst, c));
                dst
            }
            Lanes::Case(..) => unreachable!("compared by case_lanes"),
        }
    }

    fn add_lanes(&self, ctx: &mut Lower<'_, Inst>, mask: usize, lanes: Lanes) -> Reg {
        // A compare's mask (see `edge_lanes`) holds no lane that is off. (The skip pass
        // never skips such a compare: its stale mask would be read here.)
        let lanes = self.lanes_reg(ctx, lanes);
        let home = self.mask_home(mask);
        let old = self.load_mask(ctx, mask);
        let new = match home {
            MaskHome::Pair(r) => r,
            MaskHome::Lanes(..) => ctx.new_vreg(SGPR, RegClass::Float),
        };
        ctx.emit(Inst::Salu {
            op: Op::SOrB64,
            dst: Some(new),
            srcs: smallvec![Src::Reg(old), Src::Reg(lanes)],
        });
        self.store_mask(ctx, home, new);
        lanes
    }

    fn undef(&self, ctx: &mut Lower<'_, Inst>, file: RegFile, class: RegClass) -> Reg {
        let dst = ctx.new_vreg(file, class);
        ctx.emit(Inst::Undef { dst });
        dst
    }

    fn masked_move(&self, ctx: &mut Lower<'_, Inst>, old: Reg, src: Reg, lanes: Reg) -> Reg {
        let dst = ctx.new_vreg(old.file(), old.class());
        ctx.emit(Inst::MaskedMove {
            dst,
            old,
            src,
            mask: lanes,
        });
        dst
    }

    fn latch(&self, ctx: &mut Lower<'_, Inst>, mask: Option<usize>, back: usize, out: usize) {
        if let Some(mask) = mask {
            self.enter_block(ctx, mask);
        }
        ctx.emit(Inst::BrExecnz {
            taken: back,
            not_taken: out,
        });
    }

    fn lanes_may_leave(&self) -> bool {
        self.frame.inputs.pixel.is_some_and(|p| p.discards)
    }

    fn exit(
        &self,
        ctx: &mut Lower<'_, Inst>,
        values: &[(Reg, ir::Type)],
    ) -> Result<(), CompileError> {
        match self.kind {
            // A fragment shader exports its outputs first.
            FunctionKind::Kernel if self.frame.inputs.pixel.is_some() => {
                self.with_isle(ctx, |isle| {
                    isle.fragment_exports();
                    isle.emit(Inst::EndPgm);
                })
            }
            FunctionKind::Kernel if self.frame.inputs.vertex.is_some() => {
                self.with_isle(ctx, |isle| {
                    isle.vertex_exports();
                    isle.emit(Inst::EndPgm);
                })
            }
            // The wave ends whatever EXEC is.
            FunctionKind::Kernel => {
                ctx.emit(Inst::EndPgm);
                Ok(())
            }
            FunctionKind::Device => {
                ctx.emit(mov64(EXEC, Src::Reg(entry_lanes(self.frame))));
                let locations = device_value_vgprs(values.iter().map(|&(_, ty)| ty));
                let ret_addr = self.frame.return_address.expect("device frame");
                self.with_isle(ctx, |isle| {
                    let mut results = Vec::new();
                    for (&(r, _), &(first, count)) in values.iter().zip(&locations) {
                        let r = isle.vgpr_copy(r);
                        match count {
                            1 => results.push((r, vgpr(first))),
                            _ => {
                                let lo = isle.half(r, false);
                                let hi = isle.half(r, true);
                                results.push((lo, vgpr(first)));
                                results.push((hi, vgpr(first + 1)));
                            }
                        }
                    }
                    isle.emit(Inst::Ret { results, ret_addr });
                })
            }
        }
    }
}
