//! The GCN lowering: the backend the shared driver (`machinst::lower`) calls (entry,
//! block parameters, branch arguments, instructions through the ISLE rules) and the
//! context those rules run in. By concern: `isle.rs` (the constructors and extractors
//! `isle/gcn/*.isle` call), `operands.rs` (operand legalisation), `memory.rs` (memory
//! addressing), `merge.rs` (adjacent accesses merged into `dwordx2`/`dwordx4`),
//! `intrinsics.rs`, `branches.rs` (uniform branches), `conditions.rs`
//! (compare opcodes by condition code) and `linear.rs` (lane masks of linearized code).

use super::abi::{Frame, device_value_vgprs};
use super::inst::{Inst, Src};
use super::mc::{Gen, Op};
use super::regs::{SGPR, VGPR, vgpr};
use crate::analysis::uniformity::Uniformity;
use crate::ir::{self, Opcode, Value, types};
use crate::machinst::lower::{Lower, LowerBackend};
use crate::machinst::{Reg, RegClass};
use crate::{CompileError, FunctionKind};
use isle::generated;
use memory::scalar_load;
use smallvec::smallvec;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub use crate::machinst::isle::InstOutput;

mod branches;
mod conditions;
mod intrinsics;
mod isle;
pub mod linear;
mod memory;
pub mod merge;
mod operands;

pub struct GcnLower<'a> {
    pub generation: Gen,
    pub uniformity: &'a Uniformity,
    pub kind: FunctionKind,
    pub frame: &'a Frame,
    /// gfx6: the buffer resource MUBUF `addr64` accesses read, defined at entry.
    pub buffer_rsrc: Cell<Option<Reg>>,
    /// Linearized code: how many lane masks may take SGPR pairs (the rest live in VGPR
    /// lanes, `lower::linear`).
    pub mask_registers: usize,
    /// The SGPR each literal a VALU instruction reads over the constant bus was put in,
    /// per CLIF block: the first use's `s_mov_b32` serves the later uses of the block.
    pub scalar_literals: RefCell<HashMap<(ir::Block, u32), Reg>>,
    /// Adjacent dword accesses merged into one (`merge.rs`).
    pub merges: merge::Merges,
}

impl LowerBackend for GcnLower<'_> {
    type MInst = Inst;

    fn lower_entry(&self, ctx: &mut Lower<'_, Inst>) -> Result<(), CompileError> {
        let func = ctx.func;
        let entry = func.layout.entry_block().expect("checked by the driver");
        let params: Vec<Value> = func.dfg.block_params(entry).to_vec();
        let mut defs = Vec::new();
        match self.kind {
            FunctionKind::Kernel => {
                let base = self.frame.kernarg_ptr;
                for (i, &param) in params.iter().enumerate() {
                    if !ctx.is_used(param) {
                        continue;
                    }
                    let ty = func.dfg.value_type(param);
                    let (op, class) = match ty.bytes() {
                        1..=4 => (Op::SLoadDword, RegClass::Int),
                        8 => (Op::SLoadDwordx2, RegClass::Float),
                        _ => {
                            return Err(
                                ctx.error(format!("kernel argument of type {ty} is not supported"))
                            );
                        }
                    };
                    let offset = self.frame.kernarg_offsets[i];
                    let dst = ctx.new_vreg(SGPR, class);
                    let base = base.expect("kernels with parameters enable the kernarg pointer");
                    let new_sgpr = || ctx.new_vreg(SGPR, RegClass::Int);
                    for inst in scalar_load(op, dst, base, offset, self.generation, new_sgpr) {
                        ctx.emit(inst);
                    }
                    ctx.set_value_reg(param, dst);
                }
                // Work-item ids arrive in v0..v2.
                for d in 0..self.frame.inputs.workitem_id_vgprs {
                    let v = ctx.new_vreg(VGPR, RegClass::Int);
                    defs.push((v, vgpr(d as u16)));
                }
            }
            FunctionKind::Device => {
                let types = params.iter().map(|&p| func.dfg.value_type(p));
                let locations = device_value_vgprs(types);
                let mut combines = Vec::new();
                for (&param, &(first, count)) in params.iter().zip(&locations) {
                    let parts: Vec<Reg> = (0..count)
                        .map(|k| {
                            let v = ctx.new_vreg(VGPR, RegClass::Int);
                            defs.push((v, vgpr(first + k)));
                            v
                        })
                        .collect();
                    match parts.as_slice() {
                        [one] => ctx.set_value_reg(param, *one),
                        [lo, hi] => combines.push((param, *lo, *hi)),
                        _ => {
                            return Err(ctx.error(format!(
                                "device-function parameter of type {} is not supported",
                                func.dfg.value_type(param)
                            )));
                        }
                    }
                }
                ctx.emit(Inst::Args {
                    defs: std::mem::take(&mut defs),
                });
                for (param, lo, hi) in combines {
                    let dst = ctx.new_vreg(VGPR, RegClass::Float);
                    ctx.emit(Inst::Combine {
                        dst,
                        parts: smallvec![lo, hi],
                    });
                    ctx.set_value_reg(param, dst);
                }
                self.define_buffer_rsrc(ctx);
                return Ok(());
            }
        }
        ctx.emit(Inst::Args { defs });
        self.define_buffer_rsrc(ctx);
        Ok(())
    }

    fn block_param_reg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        param: Value,
    ) -> Result<Reg, CompileError> {
        let ty = ctx.dfg().value_type(param);
        let class = match ty.bits() {
            _ if ty.is_vector() => None,
            1..=32 => Some(RegClass::Int),
            64 => Some(RegClass::Float),
            _ => None,
        };
        let Some(class) = class else {
            return Err(ctx.error(format!("block parameters of type {ty} are not supported")));
        };
        let file = if self.uniformity.is_uniform(param) {
            SGPR
        } else {
            VGPR
        };
        Ok(ctx.new_vreg(file, class))
    }

    fn branch_arg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        value: Value,
        param: Reg,
    ) -> Result<Reg, CompileError> {
        let r = ctx.value_reg(value)?;
        if r.class() != param.class() {
            return Err(ctx.error(format!(
                "internal error: block argument {value} in {r:?} for a parameter in {param:?}"
            )));
        }
        if r.is_virtual() && r.file() == param.file() {
            return Ok(r);
        }
        if param.file() == VGPR {
            // A constant is materialized in the VGPR, not copied from its SGPR (which is
            // then dead unless something else uses it).
            let mut isle = IsleContext {
                lower: ctx,
                backend: self,
                error: None,
                vgpr_copies: HashMap::new(),
            };
            let reg = match param.class() {
                RegClass::Int => isle.const32(value).map(|c| isle.src_to_vgpr(Src::Imm(c))),
                _ => isle.const64_of(value).map(|c| isle.const64_reg(false, c)),
            };
            if let Some(reg) = reg {
                return Ok(reg);
            }
        }
        let dst = ctx.new_vreg(param.file(), param.class());
        ctx.emit(Inst::Copy { dst, src: r });
        Ok(dst)
    }

    fn lower_branch(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
        targets: &[usize],
    ) -> Result<Vec<usize>, CompileError> {
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
            vgpr_copies: HashMap::new(),
        };
        let succs = isle.lower_branch(inst, targets);
        match isle.error {
            Some(error) => Err(error),
            None => Ok(succs),
        }
    }

    fn lower_inst(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
    ) -> Result<Vec<Reg>, CompileError> {
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
            vgpr_copies: HashMap::new(),
        };
        let output = generated::constructor_lower(&mut isle, inst);
        if let Some(error) = isle.error {
            return Err(error);
        }
        match output {
            Some(regs) => Ok(regs.into_vec()),
            None => Err(ctx.error(unsupported_reason(ctx.func, inst))),
        }
    }
}

/// Why no rule matched `inst`.
fn unsupported_reason(func: &ir::Function, inst: ir::Inst) -> String {
    let opcode = func.dfg.insts[inst].opcode();
    let ty = func.dfg.ctrl_typevar(inst);
    if let Some(reason) = rejection_reason(opcode) {
        format!("`{opcode}` is not supported by the GCN backend: {reason}")
    } else if ty == types::I128 {
        format!(
            "`{opcode}` on type i128 is not supported by the GCN backend (i128 values only move \
             through memory: `load` and `store`)"
        )
    } else if ty == types::INVALID {
        format!("`{opcode}` is not supported by the GCN backend")
    } else {
        format!("`{opcode}` on type {ty} is not supported by the GCN backend")
    }
}

/// Why the backend rejects every use of `opcode` (docs/ir.md, "Rejected"), for the
/// opcodes rejected whatever their types.
fn rejection_reason(opcode: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match opcode {
        Trap | Trapz | Trapnz | Debugtrap => "a GPU wave cannot trap",
        StackAddr
        | DynamicStackAddr
        | StackSwitch
        | GetFramePointer
        | GetStackPointer
        | GetReturnAddress
        | GetExceptionHandlerAddress => {
            "GCN functions have no stack frame (scratch memory is not supported)"
        }
        Splat | Swizzle | X86Pshufb | Insertlane | Extractlane | AvgRound | UaddSat | SaddSat
        | UsubSat | SsubSat | Uload8x8 | Sload8x8 | Uload16x4 | Sload16x4 | Uload32x2
        | Sload32x2 | Vconst | Shuffle | Blendv | VanyTrue | VallTrue | VhighBits
        | SqmulRoundSat | X86Pmulhrsw | ScalarToVector | Snarrow | Unarrow | Uunarrow
        | SwidenLow | SwidenHigh | UwidenLow | UwidenHigh | IaddPairwise | X86Pmaddubsw
        | Fvdemote | FvpromoteLow | X86Cvtt2dq | ExtractVector => {
            "vector operations are not supported (GCN code is scalar per lane)"
        }
        _ => return crate::machinst::lower::rejected_on_every_gpu(opcode),
    })
}

pub struct IsleContext<'a, 'f> {
    lower: &'a mut Lower<'f, Inst>,
    backend: &'a GcnLower<'a>,
    /// The first error a constructor met; the rule's result is then discarded.
    error: Option<CompileError>,
    vgpr_copies: HashMap<Reg, Reg>,
}

impl IsleContext<'_, '_> {
    fn fail(&mut self, reason: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(self.lower.error(reason));
        }
    }

    fn value_reg(&mut self, value: Value) -> Reg {
        match self.lower.value_reg(value) {
            Ok(r) => r,
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
                // A placeholder so the rule can finish; the error discards its result.
                self.lower.new_vreg(VGPR, RegClass::Int)
            }
        }
    }

    fn is_uniform(&self, value: Value) -> bool {
        self.backend.uniformity.is_uniform(value)
    }

    fn emit(&mut self, inst: Inst) {
        self.lower.emit(inst);
    }

    fn vreg(&mut self, file: u8, class: RegClass) -> Reg {
        self.lower.new_vreg(file, class)
    }
}
