//! The GCN side of mask linearization (`crate::machinst::linearize`): EXEC updates, lane
//! masks of branch edges, masked moves, loop latches and the exit block.

use super::super::abi::{Frame, device_value_vgprs};
use super::super::inst::{Inst, Src};
use super::super::mc::Op;
use super::super::regs::{SGPR, VGPR, sgpr_pair, vgpr};
use super::generated::{Context as _, constructor_cond_mask};
use super::{GcnLower, IsleContext};
use crate::ir::{self, InstructionData, condcodes::IntCC};
use crate::machinst::linearize::{Lanes, LinearBackend};
use crate::machinst::lower::Lower;
use crate::machinst::{Reg, RegClass, RegFile};
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

fn mov64(dst: Reg, src: Src) -> Inst {
    Inst::Salu {
        op: Op::SMovB64,
        dst: Some(dst),
        srcs: smallvec![src],
    }
}

/// `dst = exec & c` (`s_and_b64`) or `exec & ~c` (`s_andn2_b64`).
fn and64(op: Op, dst: Reg, c: Reg) -> Inst {
    Inst::Salu {
        op,
        dst: Some(dst),
        srcs: smallvec![Src::Reg(EXEC), Src::Reg(c)],
    }
}

/// Replaces the allocator's whole-wave moves by copies with EXEC set to the function's
/// lanes (saved and restored around each run of them, unless EXEC holds them already:
/// after the entry saves them or the exit restores them).
pub fn expand_wave_copies(insts: Vec<Inst>, frame: &Frame) -> Vec<Inst> {
    let lanes = entry_lanes(frame);
    let mut out = Vec::with_capacity(insts.len());
    let mut open = false;
    let mut all_lanes = false;
    for inst in insts {
        if let Inst::WaveCopy { dst, src } = inst {
            if !open && !all_lanes {
                out.push(mov64(saved_exec(frame), Src::Reg(EXEC)));
                out.push(mov64(EXEC, Src::Reg(lanes)));
                open = true;
            }
            out.push(Inst::Copy { dst, src });
            continue;
        }
        if open {
            out.push(mov64(EXEC, Src::Reg(saved_exec(frame))));
            open = false;
        }
        if let Inst::Salu {
            dst: Some(dst),
            srcs,
            ..
        } = &inst
        {
            if *dst == EXEC {
                all_lanes = srcs[..] == [Src::Reg(lanes)];
            } else if *dst == lanes {
                all_lanes = srcs[..] == [Src::Reg(EXEC)];
            }
        }
        out.push(inst);
    }
    if open {
        out.push(mov64(EXEC, Src::Reg(saved_exec(frame))));
    }
    out
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

impl LinearBackend for GcnLower<'_> {
    fn is_uniform(&self, value: ir::Value) -> bool {
        self.uniformity.is_uniform(value)
    }

    fn vector_file(&self) -> RegFile {
        VGPR
    }

    fn mask(&self, k: usize) -> Reg {
        lane_mask(self.frame, k)
    }

    fn save_entry_lanes(&self, ctx: &mut Lower<'_, Inst>) {
        ctx.emit(mov64(entry_lanes(self.frame), Src::Reg(EXEC)));
    }

    fn enter_block(&self, ctx: &mut Lower<'_, Inst>, mask: Reg) {
        ctx.emit(mov64(EXEC, Src::Reg(mask)));
    }

    fn clear_mask(&self, ctx: &mut Lower<'_, Inst>, mask: Reg) {
        ctx.emit(mov64(mask, Src::Imm(0)));
    }

    fn active_lanes(&self) -> Reg {
        EXEC
    }

    fn edge_lanes(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
    ) -> Result<Vec<Lanes>, CompileError> {
        let data = ctx.dfg().insts[inst];
        self.with_isle(ctx, |isle| match data {
            InstructionData::Brif { arg, .. } => {
                let on = constructor_cond_mask(isle, arg);
                vec![Lanes::Where(on), Lanes::WhereNot(on)]
            }
            InstructionData::BranchTable { arg, table, .. } => {
                let entries = isle.lower.dfg().jump_tables[table].as_slice().len();
                let index = isle.cmp_src(IntCC::Equal, arg, VGPR);
                let index = Src::Reg(isle.src_to_vgpr(index));
                let mut any: Option<Reg> = None;
                let mut lanes = Vec::new();
                for k in 0..entries {
                    let hit = isle.vcmp(&Op::VCmpEqU32, Src::Imm(k as u32), index);
                    lanes.push(Lanes::Where(hit));
                    any = Some(match any {
                        None => hit,
                        Some(a) => {
                            isle.salu(Op::SOrB64, &[Src::Reg(a), Src::Reg(hit)], RegClass::Float)
                        }
                    });
                }
                let default = any.map_or(Lanes::All, Lanes::WhereNot);
                std::iter::once(default).chain(lanes).collect()
            }
            _ => vec![Lanes::All],
        })
    }

    fn set_lanes(&self, ctx: &mut Lower<'_, Inst>, mask: Reg, lanes: Lanes) -> Reg {
        match lanes {
            Lanes::All => {
                ctx.emit(mov64(mask, Src::Reg(EXEC)));
                return EXEC;
            }
            Lanes::Where(c) => ctx.emit(and64(Op::SAndB64, mask, c)),
            Lanes::WhereNot(c) => ctx.emit(and64(Op::SAndn2B64, mask, c)),
        }
        mask
    }

    fn add_lanes(&self, ctx: &mut Lower<'_, Inst>, mask: Reg, lanes: Lanes) -> Reg {
        let (op, c) = match lanes {
            Lanes::All => (None, EXEC),
            Lanes::Where(c) => (Some(Op::SAndB64), c),
            Lanes::WhereNot(c) => (Some(Op::SAndn2B64), c),
        };
        let lanes = match op {
            None => EXEC,
            Some(op) => {
                let dst = ctx.new_vreg(SGPR, RegClass::Float);
                ctx.emit(and64(op, dst, c));
                dst
            }
        };
        ctx.emit(Inst::Salu {
            op: Op::SOrB64,
            dst: Some(mask),
            srcs: smallvec![Src::Reg(mask), Src::Reg(lanes)],
        });
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

    fn latch(&self, mask: Option<Reg>, back: usize, out: usize) -> Vec<Inst> {
        let branch = Inst::BrExecnz {
            taken: back,
            not_taken: out,
        };
        match mask {
            Some(mask) => vec![mov64(EXEC, Src::Reg(mask)), branch],
            None => vec![branch],
        }
    }

    fn exit(
        &self,
        ctx: &mut Lower<'_, Inst>,
        values: &[(Reg, ir::Type)],
    ) -> Result<(), CompileError> {
        match self.kind {
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
