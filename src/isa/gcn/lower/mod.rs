//! The GCN lowering: the Rust side of `isle/gcn/*.isle`. It implements the constructors
//! the rules call, legalises VALU operands, and lowers entry, calls, memory and returns.

use super::abi::{Frame, device_value_vgprs};
use super::inst::{Inst, Op64, Src, shift64_value_first, without_carry};
use super::mc::smem_offset_encodable;
use super::mc::{Gen, Op, Operand};
use super::regs::{SGPR, VGPR, vgpr};
use crate::analysis::bounds;
use crate::analysis::uniformity::Uniformity;
use crate::intrinsics::Intrinsic;
use crate::ir::condcodes::{FloatCC, IntCC};
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::machinst::lower::{Lower, LowerBackend};
use crate::machinst::{Reg, RegClass};
use crate::{CompileError, FunctionKind};
use generated::Context as _;
use smallvec::{SmallVec, smallvec};
use std::cell::Cell;
use std::collections::HashMap;

pub use crate::machinst::isle::InstOutput;

mod branches;
mod conditions;
pub mod linear;

use conditions::{is_signed, scmp_int, vcmp_float, vcmp_float64, vcmp_int};

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
}

/// The buffer resource (V#) of gfx6's global-memory accesses: base 0 and no stride (dwords
/// 0–1), NUM_RECORDS = 0xffffffff (dword 2), and in dword 3 the identity DST_SEL swizzle
/// with NUM_FORMAT = FLOAT and DATA_FORMAT = 32, which untyped accesses need to be valid
/// (SI ISA 8.1.5 / table "Buffer resource descriptor"; the descriptor Mesa's ACO builds for
/// SI global memory, `ac_build_raw_buffer_descriptor`). With `addr64` the address is
/// base + VADDR + offset.
pub const GLOBAL_BUFFER_RSRC: [u32; 4] = [0, 0, 0xffff_ffff, 0x0002_7fac];

impl GcnLower<'_> {
    /// gfx6 has no FLAT: global memory is MUBUF `addr64` through [`GLOBAL_BUFFER_RSRC`],
    /// defined once at entry for a function that accesses memory.
    fn define_buffer_rsrc(&self, ctx: &mut Lower<'_, Inst>) {
        let func = ctx.func;
        let accesses_memory = func.layout.blocks().any(|b| {
            func.layout.block_insts(b).any(|i| {
                let opcode = func.dfg.insts[i].opcode();
                opcode.can_load() || opcode.can_store()
            })
        });
        if self.generation == Gen::Gfx6 && accesses_memory {
            let dst = ctx.new_vreg(SGPR, RegClass::Vector);
            ctx.emit(Inst::Const128 {
                dst,
                value: GLOBAL_BUFFER_RSRC,
            });
            self.buffer_rsrc.set(Some(dst));
        }
    }
}

/// A scalar load of `op` from `base + offset`: the offset in the instruction when it fits
/// (gfx6: 8 bits of dwords; gfx7: a 32-bit literal), else in the SGPR `soffset`, set by an
/// `s_mov_b32` first, as LLVM does on gfx6 (`SelectSMRDOffset`); `new_sgpr` makes it.
fn scalar_load(
    op: Op,
    dst: Reg,
    base: Reg,
    offset: u32,
    generation: Gen,
    new_sgpr: impl FnOnce() -> Reg,
) -> SmallVec<[Inst; 2]> {
    if smem_offset_encodable(offset, generation) {
        return smallvec![Inst::SLoad {
            op,
            dst,
            base,
            offset,
            soffset: None,
        }];
    }
    let soffset = new_sgpr();
    smallvec![
        Inst::Salu {
            op: Op::SMovB32,
            dst: Some(soffset),
            srcs: smallvec![Src::Imm(offset)],
        },
        Inst::SLoad {
            op,
            dst,
            base,
            offset: 0,
            soffset: Some(soffset),
        },
    ]
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
                    ctx.emit(Inst::Combine { dst, lo, hi });
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
        SymbolValue | TlsValue | FuncAddr | GetPinnedReg | SetPinnedReg => {
            "GPU code has no symbols, thread-local storage, function addresses or pinned registers"
        }
        CallIndirect | ReturnCall | ReturnCallIndirect | TryCall | TryCallIndirect => {
            "calls other than to intrinsics are not supported yet"
        }
        AtomicRmw | AtomicCas | AtomicLoad | AtomicStore | Fence => {
            "atomics and fences are not supported yet"
        }
        Splat | Swizzle | X86Pshufb | Insertlane | Extractlane | AvgRound | UaddSat | SaddSat
        | UsubSat | SsubSat | Uload8x8 | Sload8x8 | Uload16x4 | Sload16x4 | Uload32x2
        | Sload32x2 | Vconst | Shuffle | Blendv | VanyTrue | VallTrue | VhighBits
        | SqmulRoundSat | X86Pmulhrsw | ScalarToVector | Snarrow | Unarrow | Uunarrow
        | SwidenLow | SwidenHigh | UwidenLow | UwidenHigh | IaddPairwise | X86Pmaddubsw
        | Fvdemote | FvpromoteLow | X86Cvtt2dq | ExtractVector => {
            "vector operations are not supported (GCN code is scalar per lane)"
        }
        _ => return None,
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

    /// `reg` in the VGPR file, copying it there once if it lives in an SGPR.
    fn vgpr_copy(&mut self, reg: Reg) -> Reg {
        if reg.file() == VGPR {
            return reg;
        }
        if let Some(&copy) = self.vgpr_copies.get(&reg) {
            return copy;
        }
        let dst = self.vreg(VGPR, reg.class());
        self.emit(Inst::Copy { dst, src: reg });
        self.vgpr_copies.insert(reg, dst);
        dst
    }

    /// `reg` (holding a uniform value) in the SGPR file.
    fn sgpr_copy(&mut self, reg: Reg) -> Reg {
        if reg.file() == SGPR {
            return reg;
        }
        let dst = self.vreg(SGPR, reg.class());
        self.emit(Inst::Copy { dst, src: reg });
        dst
    }

    /// The 32-bit constant a value is, when it is one.
    fn const32(&self, value: Value) -> Option<u32> {
        let dfg = self.lower.dfg();
        let ir::ValueDef::Result(inst, _) = dfg.value_def(value) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } if dfg.value_type(value).bits() <= 32 => Some(imm.bits() as u32),
            InstructionData::UnaryIeee32 {
                opcode: Opcode::F32const,
                imm,
            } => Some(imm.bits()),
            InstructionData::UnaryIeee16 {
                opcode: Opcode::F16const,
                imm,
            } => Some(imm.bits() as u32),
            _ => None,
        }
    }

    /// The 64-bit constant a value is, when it is one.
    fn const64_of(&self, value: Value) -> Option<u64> {
        let dfg = self.lower.dfg();
        let ir::ValueDef::Result(inst, _) = dfg.value_def(value) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits() as u64),
            _ => None,
        }
    }

    fn inline(&self, value: u32) -> bool {
        Operand::inline_int(value as i32 as i64).is_some()
            || Operand::inline_f32(value, self.backend.generation).is_some()
    }

    /// `s` as a VGPR or an inline constant: an operand that leaves the one constant-bus
    /// read of a VALU instruction to its SGPR lane mask.
    fn off_bus(&mut self, s: Src) -> Src {
        match s {
            Src::Reg(r) if r.file() == VGPR => s,
            Src::Imm(v) if self.inline(v) => s,
            _ => Src::Reg(self.src_to_vgpr(s)),
        }
    }

    /// Copies a source into a fresh VGPR.
    fn src_to_vgpr(&mut self, src: Src) -> Reg {
        match src {
            Src::Reg(r) => self.vgpr_copy(r),
            Src::Imm(_) => {
                let dst = self.vreg(VGPR, RegClass::Int);
                self.emit(Inst::Valu {
                    op: Op::VMovB32,
                    dst: Some(dst),
                    sdst: None,
                    srcs: smallvec![src],
                    neg: 0,
                    abs: 0,
                    clamp: false,
                });
                dst
            }
        }
    }

    /// Makes VALU sources legal for `op`: second operand in a VGPR when the short
    /// encodings can be used (swapping commutative operands, or taking the reversed
    /// opcode), at most one constant-bus read (SGPRs, literals), and no literal in the
    /// long (VOP3) encoding, which gfx6–gfx9 lack. (`v_cndmask_b32`, whose mask is a bus
    /// read of its own, is legalised by `cndmask`.)
    fn legalize_valu(&mut self, op: Op, srcs: &mut SmallVec<[Src; 3]>) -> Op {
        self.legalize_valu_in(op, srcs, false)
    }

    /// [`Self::legalize_valu`] for an instruction that may need the VOP3 encoding whatever
    /// its sources (`vop3`): a compare whose lane mask the allocator may put in an SGPR
    /// pair other than VCC. VOP3 takes no literal, so literals go to VGPRs first.
    fn legalize_valu_in(&mut self, mut op: Op, srcs: &mut SmallVec<[Src; 3]>, vop3: bool) -> Op {
        if srcs.len() == 2
            && !srcs[1].is_vgpr()
            && srcs[0].is_vgpr()
            && let Some(swapped) = commuted(op)
        {
            srcs.swap(0, 1);
            op = swapped;
        }
        let long_form =
            vop3 || !short_form(op) || (srcs.len() >= 2 && !srcs[1].is_vgpr()) || srcs.len() == 3;
        let mut bus = 0;
        let mut seen_sgprs: SmallVec<[Reg; 3]> = SmallVec::new();
        for i in 0..srcs.len() {
            let needs_bus = match srcs[i] {
                Src::Reg(r) if r.file() == SGPR => !seen_sgprs.contains(&r),
                Src::Reg(_) => false,
                Src::Imm(v) => !self.inline(v),
            };
            if !needs_bus {
                if let Src::Reg(r) = srcs[i]
                    && r.file() == SGPR
                {
                    seen_sgprs.push(r);
                }
                continue;
            }
            let literal_in_long = matches!(srcs[i], Src::Imm(_)) && long_form;
            let literal_not_first = matches!(srcs[i], Src::Imm(_)) && i != 0;
            if bus >= 1 || literal_in_long || literal_not_first {
                let r = self.src_to_vgpr(srcs[i]);
                srcs[i] = Src::Reg(r);
            } else {
                bus += 1;
                if let Src::Reg(r) = srcs[i] {
                    seen_sgprs.push(r);
                }
            }
        }
        op
    }

    /// The result and four temporaries of an fdiv/sqrt expansion, VGPRs of `class`.
    fn expansion_vgprs(&mut self, class: RegClass) -> (Reg, [Reg; 4]) {
        (
            self.vreg(VGPR, class),
            [(); 4].map(|_| self.vreg(VGPR, class)),
        )
    }

    fn valu(&mut self, op: Op, srcs: &[Src], class: RegClass) -> Reg {
        // The result is the only output: an add needs no carry-out where it can go without.
        let op = without_carry(op, self.backend.generation);
        let mut srcs: SmallVec<[Src; 3]> = srcs.iter().copied().collect();
        let op = self.legalize_valu(op, &mut srcs);
        let dst = self.vreg(VGPR, class);
        self.emit(Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
        });
        dst
    }

    fn salu(&mut self, op: Op, srcs: &[Src], class: RegClass) -> Reg {
        let mut srcs: SmallVec<[Src; 2]> = srcs.iter().copied().collect();
        self.one_scalar_literal(&mut srcs);
        let dst = self.vreg(SGPR, class);
        self.emit(Inst::Salu {
            op,
            dst: Some(dst),
            srcs,
        });
        dst
    }

    /// An SALU instruction encodes one literal dword, which every source marked literal
    /// reads: keep the first literal value and move any other into an SGPR.
    fn one_scalar_literal(&mut self, srcs: &mut [Src]) {
        let mut literal = None;
        for s in srcs.iter_mut() {
            let Src::Imm(v) = *s else { continue };
            if self.inline(v) || literal == Some(v) {
                continue;
            }
            if literal.is_some() {
                *s = Src::Reg(self.materialize_s(v));
            } else {
                literal = Some(v);
            }
        }
    }

    /// Two sources of one SALU instruction, with at most one literal value.
    fn scalar_pair(&mut self, a: Src, b: Src) -> [Src; 2] {
        let mut pair = [a, b];
        self.one_scalar_literal(&mut pair);
        pair
    }

    /// An operand of a compare (or a select's condition), extended from a narrow type to
    /// 32 bits as the condition needs, computed in `file` (VALU or SALU). Narrow values
    /// live with unspecified upper bits, so they must be extended before comparing.
    fn cmp_src(&mut self, cc: IntCC, value: Value, file: u8) -> Src {
        let ty = self.lower.dfg().value_type(value);
        let bits = ty.bits();
        let signed = is_signed(cc);
        if let Some(c) = self.const32(value) {
            let c = if bits >= 32 {
                c
            } else if signed {
                ((c << (32 - bits)) as i32 >> (32 - bits)) as u32
            } else {
                c & ((1u32 << bits) - 1)
            };
            return Src::Imm(c);
        }
        let r = self.value_reg(value);
        let (op, srcs): (Op, &[Src]) = match (bits, signed, file) {
            (32, _, VGPR) => return Src::Reg(r),
            (32, _, _) => return Src::Reg(self.sgpr_copy(r)),
            (8 | 16, true, VGPR) => (Op::VBfeI32, &[Src::Imm(0), Src::Imm(bits)]),
            (8 | 16, false, VGPR) => (Op::VBfeU32, &[Src::Imm(0), Src::Imm(bits)]),
            (8, true, _) => (Op::SSextI32I8, &[]),
            (16, true, _) => (Op::SSextI32I16, &[]),
            (8 | 16, false, _) => (Op::SAndB32, &[Src::Imm((1 << bits) - 1)]),
            _ => {
                self.fail(format!("comparison of type {ty} is not supported"));
                return Src::Reg(r);
            }
        };
        let operands: SmallVec<[Src; 3]> = std::iter::once(Src::Reg(r))
            .chain(srcs.iter().copied())
            .collect();
        Src::Reg(if file == VGPR {
            self.valu(op, &operands, RegClass::Int)
        } else {
            let operands: SmallVec<[Src; 2]> = operands
                .iter()
                .map(|&s| match s {
                    Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
                    imm => imm,
                })
                .collect();
            self.salu(op, &operands, RegClass::Int)
        })
    }

    fn materialize_s(&mut self, v: u32) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::Salu {
            op: Op::SMovB32,
            dst: Some(dst),
            srcs: smallvec![Src::Imm(v)],
        });
        dst
    }

    /// A value as a scalar source.
    fn ssrc(&mut self, value: Value) -> Src {
        if let Some(c) = self.const32(value) {
            return Src::Imm(c);
        }
        let r = self.value_reg(value);
        Src::Reg(self.sgpr_copy(r))
    }

    fn pair_of(&mut self, value: Value, file: u8) -> Reg {
        let r = self.value_reg(value);
        if r.class() != RegClass::Float {
            self.fail(format!(
                "internal error: {value} is not held in a register pair"
            ));
        }
        if file == VGPR {
            self.vgpr_copy(r)
        } else {
            self.sgpr_copy(r)
        }
    }

    fn load_op(&mut self, opcode: Opcode, ty: ir::Type) -> Option<(Op, RegClass)> {
        Some(match (opcode, ty.bytes()) {
            (Opcode::Uload8, _) | (Opcode::Load, 1) => (Op::FlatLoadUbyte, RegClass::Int),
            (Opcode::Sload8, _) => (Op::FlatLoadSbyte, RegClass::Int),
            (Opcode::Uload16, _) | (Opcode::Load, 2) => (Op::FlatLoadUshort, RegClass::Int),
            (Opcode::Sload16, _) => (Op::FlatLoadSshort, RegClass::Int),
            (Opcode::Load, 4) | (Opcode::Uload32 | Opcode::Sload32, _) => {
                (Op::FlatLoadDword, RegClass::Int)
            }
            (Opcode::Load, 8) => (Op::FlatLoadDwordx2, RegClass::Float),
            (Opcode::Load, 16) => (Op::FlatLoadDwordx4, RegClass::Vector),
            _ => return None,
        })
    }

    /// The registers and immediate offset that address `addr + offset` for the
    /// global-memory operation `op`: the offset is folded into the instruction when it fits.
    fn address(&mut self, op: Op, addr: Value, offset: i32) -> Option<Address> {
        if self.lower.dfg().value_type(addr) != types::I64 {
            self.fail("memory addresses must be i64 (global memory)");
            return None;
        }
        let fits = offset == 0 || immediate_offsets(op).contains(&offset);
        if let Some((base, index)) = self.sgpr_base(op, addr) {
            let (index, offset) = self.fold_constant(op, index, offset);
            let fits = offset == 0 || immediate_offsets(op).contains(&offset);
            let saddr = self.pair_of(base, SGPR);
            let low = self.low_word(index, LOW_WORD_DEPTH);
            let vaddr = self.src_to_vgpr(low);
            if fits {
                return Some(Address {
                    vaddr,
                    saddr: Some(saddr),
                    offset,
                });
            }
            // A larger offset goes into the base, with scalar adds.
            let saddr = self.salu64(&Op64::Add, saddr, Src::Imm(offset as u32));
            return Some(Address {
                vaddr,
                saddr: Some(saddr),
                offset: 0,
            });
        }
        let vaddr = self.pair_of(addr, VGPR);
        if fits {
            return Some(Address {
                vaddr,
                saddr: None,
                offset,
            });
        }
        Some(Address {
            vaddr: self.valu64_reg(Op64::Add, vaddr, Src::Imm(offset as u32)),
            saddr: None,
            offset: 0,
        })
    }

    /// `addr` as `base + index` for GLOBAL's SGPR-base form (Vega ISA 12.12, SADDR): `base`
    /// uniform (an SGPR pair), `index` divergent and provably below 2^32
    /// ([`bounds::max_unsigned`]), since the hardware zero-extends the 32-bit VGPR offset
    /// it adds to the base. Either operand order of the `iadd`.
    fn sgpr_base(&mut self, op: Op, addr: Value) -> Option<(Value, Value)> {
        if op.info().enc != super::mc::Enc::Global {
            return None;
        }
        let inst = self.def_inst(addr)?;
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = self.lower.dfg().insts[inst]
        else {
            return None;
        };
        [(args[0], args[1]), (args[1], args[0])]
            .into_iter()
            .find(|&(base, index)| {
                self.is_uniform(base)
                    && !self.is_uniform(index)
                    && bounds::max_unsigned(self.lower.func, index)
                        .is_some_and(|b| b <= u32::MAX as u64)
            })
    }

    /// `index + offset` as `x + (offset + c)` when `index` is `iadd(x, c)` for a constant
    /// `c`, the sum is an immediate offset of `op`, and `x` too is provably below 2^32, so
    /// that it can be GLOBAL's VGPR offset instead of `index` (the hardware's 64-bit sum
    /// `base + zext(x) + offset + c` is the same address).
    fn fold_constant(&mut self, op: Op, index: Value, offset: i32) -> (Value, i32) {
        let Some(inst) = self.def_inst(index) else {
            return (index, offset);
        };
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = self.lower.dfg().insts[inst]
        else {
            return (index, offset);
        };
        for (x, c) in [(args[0], args[1]), (args[1], args[0])] {
            let Some(c) = self.const64_of(c) else {
                continue;
            };
            let Some(sum) = i32::try_from(c as i64)
                .ok()
                .and_then(|c| c.checked_add(offset))
            else {
                continue;
            };
            let bounded =
                bounds::max_unsigned(self.lower.func, x).is_some_and(|b| b <= u32::MAX as u64);
            if bounded && immediate_offsets(op).contains(&sum) {
                return (x, sum);
            }
        }
        (index, offset)
    }

    /// The low 32 bits of the integer `value`, in 32-bit operations where it is an
    /// `iconst`, an `uextend` of an i32, an `iadd`, `imul`, `band`, `bor` or `bxor` of such
    /// values, or an `ishl` of one by a constant (the low word of each result depends only
    /// on the low words of the operands;
    /// the 64-bit computation is then left to dead-code elimination); otherwise the low
    /// half of its register. `depth` limits how far definitions are followed.
    fn low_word(&mut self, value: Value, depth: u32) -> Src {
        if let Some(c) = self.const64_of(value) {
            return Src::Imm(c as u32);
        }
        let def = if depth > 0 {
            self.def_inst(value)
        } else {
            None
        };
        if let Some(inst) = def {
            let dfg = self.lower.dfg();
            match dfg.insts[inst] {
                InstructionData::Unary {
                    opcode: Opcode::Uextend,
                    arg,
                } if dfg.value_type(arg) == types::I32 => return Src::Reg(self.value_reg(arg)),
                InstructionData::Binary {
                    opcode: Opcode::Ishl,
                    args,
                } => {
                    if let Some(k) = self.const64_of(args[1]) {
                        let k = k as u32 & (dfg.value_type(value).bits() - 1);
                        if k >= 32 {
                            return Src::Imm(0);
                        }
                        let x = self.low_word(args[0], depth - 1);
                        return Src::Reg(self.valu(
                            Op::VLshlrevB32,
                            &[Src::Imm(k), x],
                            RegClass::Int,
                        ));
                    }
                }
                InstructionData::Binary {
                    opcode:
                        opcode @ (Opcode::Iadd
                        | Opcode::Imul
                        | Opcode::Band
                        | Opcode::Bor
                        | Opcode::Bxor),
                    args,
                } => {
                    let op = match opcode {
                        Opcode::Iadd => Op::VAddU32,
                        Opcode::Imul => Op::VMulLoU32,
                        Opcode::Band => Op::VAndB32,
                        Opcode::Bor => Op::VOrB32,
                        _ => Op::VXorB32,
                    };
                    let a = self.low_word(args[0], depth - 1);
                    let b = self.low_word(args[1], depth - 1);
                    return Src::Reg(self.valu(op, &[a, b], RegClass::Int));
                }
                _ => {}
            }
        }
        let pair = self.pair_of(value, VGPR);
        Src::Reg(self.half(pair, false))
    }

    /// The generation's form of the global-memory operation `flat` (a FLAT opcode), and the
    /// buffer resource it reads if it is MUBUF.
    fn global_memory(&mut self, flat: Op) -> (Op, Option<Reg>) {
        let op = global_memory_op(flat, self.backend.generation);
        if op.info().enc != super::mc::Enc::Mubuf {
            return (op, None);
        }
        let rsrc = self.backend.buffer_rsrc.get();
        if rsrc.is_none() {
            self.fail("internal error: no buffer resource for a gfx6 memory access");
        }
        (op, rsrc)
    }

    fn valu64_reg(&mut self, op: Op64, a: Reg, b: Src) -> Reg {
        let a = self.vgpr_copy(a);
        let b = match b {
            Src::Imm(v) if self.inline(v) && Operand::inline_int(v as i32 as i64).is_some() => b,
            Src::Imm(v) => Src::Reg(self.const64_reg(false, v as i32 as i64 as u64)),
            Src::Reg(r) => Src::Reg(self.vgpr_copy(r)),
        };
        let dst = self.vreg(VGPR, RegClass::Float);
        self.emit(Inst::Alu64 { op, dst, a, b });
        dst
    }

    fn const64_reg(&mut self, uniform: bool, value: u64) -> Reg {
        let file = if uniform { SGPR } else { VGPR };
        let dst = self.vreg(file, RegClass::Float);
        self.emit(Inst::Const64 { dst, value });
        dst
    }

    fn lower_intrinsic(&mut self, intrinsic: Intrinsic) -> Option<Reg> {
        let frame = self.backend.frame;
        match intrinsic {
            Intrinsic::WorkitemId(d) => {
                if self.backend.kind != FunctionKind::Kernel {
                    self.fail("work-item ids are only available in kernels");
                    return None;
                }
                // The entry's `Args` defines v0..v2 first, in order.
                let args = self.lower.vcode.insts.iter().find_map(|i| match i {
                    Inst::Args { defs } => Some(defs.clone()),
                    _ => None,
                })?;
                Some(args[d as usize].0)
            }
            Intrinsic::WorkgroupId(d) => {
                let Some(r) = frame.workgroup_id[d as usize] else {
                    self.fail("work-group ids are only available in kernels");
                    return None;
                };
                // The hardware-initialised SGPR is never allocated: use it in place.
                Some(r)
            }
            Intrinsic::WorkgroupSize(d) => {
                let Some(base) = frame.dispatch_ptr else {
                    self.fail("work-group sizes are only available in kernels");
                    return None;
                };
                // hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z are u16 at byte 4, 6, 8.
                let dword = self.vreg(SGPR, RegClass::Int);
                let offset = 4 + 2 * d as u32;
                self.emit(Inst::SLoad {
                    op: Op::SLoadDword,
                    dst: dword,
                    base,
                    offset: offset & !3,
                    soffset: None,
                });
                let field = (16 << 16) | ((offset & 3) * 8);
                Some(self.salu(
                    Op::SBfeU32,
                    &[Src::Reg(dword), Src::Imm(field)],
                    RegClass::Int,
                ))
            }
            Intrinsic::LaneId => {
                // mbcnt over an all-ones mask counts the lanes below this one.
                let lo = self.valu(
                    Op::VMbcntLoU32B32,
                    &[Src::Imm(u32::MAX), Src::Imm(0)],
                    RegClass::Int,
                );
                Some(self.valu(
                    Op::VMbcntHiU32B32,
                    &[Src::Imm(u32::MAX), Src::Reg(lo)],
                    RegClass::Int,
                ))
            }
        }
    }
}

/// The opcode that computes `op` with its two sources swapped, if any.
fn commuted(op: Op) -> Option<Op> {
    use Op::*;
    Some(match op {
        VAddU32 | VAddNcU32 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VAndB32 | VOrB32 | VXorB32
        | VMinI32 | VMinU32 | VMaxI32 | VMaxU32 | VAddF32 | VMulF32 | VMinF32 | VMaxF32 => op,
        VSubU32 => VSubrevU32,
        VSubrevU32 => VSubU32,
        VSubNcU32 => VSubrevNcU32,
        VSubrevNcU32 => VSubNcU32,
        VSubF32 => VSubrevF32,
        VSubrevF32 => VSubF32,
        VCmpEqI32 | VCmpNeI32 | VCmpEqU32 | VCmpNeU32 | VCmpEqF32 | VCmpLgF32 | VCmpOF32
        | VCmpUF32 | VCmpNeqF32 | VCmpNlgF32 | VCmpEqI64 | VCmpNeI64 | VCmpEqU64 | VCmpNeU64 => op,
        VCmpLtI32 => VCmpGtI32,
        VCmpGtI32 => VCmpLtI32,
        VCmpLeI32 => VCmpGeI32,
        VCmpGeI32 => VCmpLeI32,
        VCmpLtU32 => VCmpGtU32,
        VCmpGtU32 => VCmpLtU32,
        VCmpLeU32 => VCmpGeU32,
        VCmpGeU32 => VCmpLeU32,
        VCmpLtI64 => VCmpGtI64,
        VCmpGtI64 => VCmpLtI64,
        VCmpLeI64 => VCmpGeI64,
        VCmpGeI64 => VCmpLeI64,
        VCmpLtU64 => VCmpGtU64,
        VCmpGtU64 => VCmpLtU64,
        VCmpLeU64 => VCmpGeU64,
        VCmpGeU64 => VCmpLeU64,
        VCmpLtF32 => VCmpGtF32,
        VCmpGtF32 => VCmpLtF32,
        VCmpLeF32 => VCmpGeF32,
        VCmpGeF32 => VCmpLeF32,
        VCmpNltF32 => VCmpNgtF32,
        VCmpNgtF32 => VCmpNltF32,
        VCmpNleF32 => VCmpNgeF32,
        VCmpNgeF32 => VCmpNleF32,
        _ => return None,
    })
}

/// How many definitions [`IsleContext::low_word`] follows.
const LOW_WORD_DEPTH: u32 = 4;

/// Where a global-memory access goes: `vaddr + offset`, or with gfx9 GLOBAL's SGPR base
/// `saddr + zext(vaddr) + offset`.
struct Address {
    /// A VGPR pair holding the address, or with `saddr` one VGPR holding an unsigned
    /// 32-bit offset from it.
    vaddr: Reg,
    saddr: Option<Reg>,
    offset: i32,
}

/// Each FLAT global-memory operation with its GLOBAL (gfx9) and MUBUF `addr64` (gfx6)
/// counterparts.
const GLOBAL_MEMORY_OPS: &[[Op; 3]] = {
    use Op::*;
    &[
        [FlatLoadUbyte, GlobalLoadUbyte, BufferLoadUbyte],
        [FlatLoadSbyte, GlobalLoadSbyte, BufferLoadSbyte],
        [FlatLoadUshort, GlobalLoadUshort, BufferLoadUshort],
        [FlatLoadSshort, GlobalLoadSshort, BufferLoadSshort],
        [FlatLoadDword, GlobalLoadDword, BufferLoadDword],
        [FlatLoadDwordx2, GlobalLoadDwordx2, BufferLoadDwordx2],
        [FlatLoadDwordx4, GlobalLoadDwordx4, BufferLoadDwordx4],
        [FlatStoreByte, GlobalStoreByte, BufferStoreByte],
        [FlatStoreShort, GlobalStoreShort, BufferStoreShort],
        [FlatStoreDword, GlobalStoreDword, BufferStoreDword],
        [FlatStoreDwordx2, GlobalStoreDwordx2, BufferStoreDwordx2],
        [FlatStoreDwordx4, GlobalStoreDwordx4, BufferStoreDwordx4],
    ]
};

/// The best global-memory form of the FLAT operation `flat` on `generation`: GLOBAL on
/// gfx9 (no LGKM_CNT, a signed immediate offset), FLAT on gfx7/gfx8, MUBUF `addr64` on gfx6,
/// which has no FLAT.
fn global_memory_op(flat: Op, generation: Gen) -> Op {
    let row = GLOBAL_MEMORY_OPS
        .iter()
        .find(|row| row[0] == flat)
        .expect("a FLAT global-memory operation");
    match generation {
        Gen::Gfx6 => row[2],
        Gen::Gfx7 | Gen::Gfx8 => row[0],
        Gen::Gfx9 => row[1],
    }
}

/// The immediate offsets a global-memory operation encodes: GLOBAL a signed 13-bit one
/// (Vega ISA 12.12), MUBUF an unsigned 12-bit one (SI ISA 12.5), FLAT none before gfx9
/// (and gfx9's FLAT is not used for global memory).
fn immediate_offsets(op: Op) -> std::ops::RangeInclusive<i32> {
    match op.info().enc {
        super::mc::Enc::Global => -4096..=4095,
        super::mc::Enc::Mubuf => 0..=4095,
        _ => 0..=0,
    }
}

/// Whether `op` has a 32-bit (VOP1/VOP2/VOPC) encoding on gfx8.
fn short_form(op: Op) -> bool {
    use super::mc::Enc;
    matches!(op.info().enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
}

#[allow(
    unused_variables,
    non_snake_case,
    clippy::all,
    dead_code,
    unreachable_patterns,
    unused_imports
)]
pub(crate) mod generated {
    pub use super::super::inst::{Op64, Src};
    pub use super::super::mc::Op;
    pub use super::Carry;
    pub use super::InstOutput;
    pub use super::IsleContext;
    pub use crate::ir::condcodes::{FloatCC, IntCC};
    pub use crate::ir::immediates::*;
    pub use crate::ir::types::*;
    pub use crate::ir::{
        AtomicRmwOp, Block, BlockCall, Constant, DynamicStackSlot, ExceptionTable, FuncRef,
        GlobalValue, Immediate, Inst, InstructionData, JumpTable, MemFlags, Opcode, SigRef,
        StackSlot, TrapCode, Type, Value, ValueList,
    };
    pub use crate::machinst::Reg;
    pub use crate::machinst::isle::{BlockArray2, ValueArray2, ValueArray3, ValueSlice};
    pub type Unit = ();
    pub type MemFlagsData = crate::ir::MemFlagsData;

    include!(concat!(env!("OUT_DIR"), "/isle_gcn.rs"));
}

impl generated::Context for IsleContext<'_, '_> {
    crate::isle_prelude_methods!();

    fn uniform_inst(&mut self, inst: ir::Inst) -> Option<()> {
        let results = self.lower.dfg().inst_results(inst);
        (!results.is_empty() && results.iter().all(|&v| self.is_uniform(v))).then_some(())
    }

    fn divergent_inst(&mut self, inst: ir::Inst) -> Option<()> {
        match self.uniform_inst(inst) {
            Some(()) => None,
            None => Some(()),
        }
    }

    fn has_op(&mut self, op: &Op) -> Option<Op> {
        op.info().available(self.backend.generation).then_some(*op)
    }

    fn put_in_reg(&mut self, value: Value) -> Reg {
        self.value_reg(value)
    }

    fn put_in_src(&mut self, value: Value) -> Src {
        match self.const32(value) {
            Some(c) => Src::Imm(c),
            None => Src::Reg(self.value_reg(value)),
        }
    }

    fn put_in_src64(&mut self, value: Value) -> Src {
        match self.const64_of(value) {
            Some(c) if Operand::inline_int(c as i64).is_some() => Src::Imm(c as u32),
            _ => Src::Reg(self.value_reg(value)),
        }
    }

    fn put_in_vgpr(&mut self, value: Value) -> Reg {
        let r = self.value_reg(value);
        self.vgpr_copy(r)
    }

    fn put_in_ssrc(&mut self, value: Value) -> Src {
        self.ssrc(value)
    }

    fn put_in_sgpr(&mut self, value: Value) -> Reg {
        let r = self.value_reg(value);
        self.sgpr_copy(r)
    }

    fn put_in_pair(&mut self, value: Value) -> Reg {
        let file = if self.is_uniform(value) { SGPR } else { VGPR };
        let r = self.value_reg(value);
        if r.file() == VGPR && file == SGPR {
            return self.pair_of(value, SGPR);
        }
        r
    }

    fn put_in_vpair(&mut self, value: Value) -> Reg {
        self.pair_of(value, VGPR)
    }

    fn put_in_amount(&mut self, value: Value) -> Src {
        if let Some(c) = self.const64_of(value) {
            return Src::Imm(c as u32 & 63);
        }
        let r = self.value_reg(value);
        if r.class() == RegClass::Float {
            return Src::Reg(self.half(r, false));
        }
        Src::Reg(r)
    }

    fn put_in_narrow_amount(&mut self, ty: ir::Type, value: Value) -> Src {
        let mask = ty.bits() - 1;
        match self.put_in_amount(value) {
            Src::Imm(c) => Src::Imm(c & mask),
            amount => Src::Reg(self.valu(Op::VAndB32, &[Src::Imm(mask), amount], RegClass::Int)),
        }
    }

    fn put_in_samount(&mut self, value: Value) -> Src {
        match self.put_in_amount(value) {
            Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
            imm => imm,
        }
    }

    fn put_in_cmp_src(&mut self, cc: &IntCC, value: Value) -> Src {
        self.cmp_src(*cc, value, VGPR)
    }

    fn put_in_scmp_src(&mut self, cc: &IntCC, value: Value) -> Src {
        self.cmp_src(*cc, value, SGPR)
    }

    fn reg_src(&mut self, reg: Reg) -> Src {
        Src::Reg(reg)
    }

    fn imm_src(&mut self, value: u32) -> Src {
        Src::Imm(value)
    }

    fn valu1(&mut self, op: &Op, a: Src) -> Reg {
        self.valu(*op, &[a], RegClass::Int)
    }

    fn valu2(&mut self, op: &Op, a: Src, b: Src) -> Reg {
        self.valu(*op, &[a, b], RegClass::Int)
    }

    fn valu3(&mut self, op: &Op, a: Src, b: Src, c: Src) -> Reg {
        self.valu(*op, &[a, b, c], RegClass::Int)
    }

    fn valu2_64(&mut self, op: &Op, amount: Src, value: Reg) -> Reg {
        let value = self.vgpr_copy(value);
        match shift64_value_first(*op, self.backend.generation) {
            Some(op) => self.valu(op, &[Src::Reg(value), amount], RegClass::Float),
            None => self.valu(*op, &[amount, Src::Reg(value)], RegClass::Float),
        }
    }

    fn vcmp(&mut self, op: &Op, a: Src, b: Src) -> Reg {
        // 64-bit compares get register pairs (never constants) from the rules.
        let mut srcs: SmallVec<[Src; 3]> = smallvec![a, b];
        let op = self.legalize_valu_in(*op, &mut srcs, true);
        let mask = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: None,
            sdst: Some(mask),
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
        });
        mask
    }

    fn cndmask(&mut self, f: Src, t: Src, mask: Reg) -> Reg {
        // The mask is a constant-bus read, so both values must be VGPRs or inline constants.
        let mut srcs: SmallVec<[Src; 3]> = smallvec![self.off_bus(f), self.off_bus(t)];
        srcs.push(Src::Reg(mask));
        let dst = self.vreg(VGPR, RegClass::Int);
        self.emit(Inst::Valu {
            op: Op::VCndmaskB32,
            dst: Some(dst),
            sdst: None,
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
        });
        dst
    }

    fn valu64(&mut self, op: &Op64, a: Reg, b: Src) -> Reg {
        self.valu64_reg(*op, a, b)
    }

    fn cndmask64(&mut self, f: Reg, t: Reg, mask: Reg) -> Reg {
        let halves = [false, true].map(|hi| {
            let fh = self.half(f, hi);
            let th = self.half(t, hi);
            self.cndmask(Src::Reg(fh), Src::Reg(th), mask)
        });
        self.combine_regs(halves[0], halves[1])
    }

    fn fdiv32(&mut self, num: Reg, den: Reg) -> Reg {
        let (num, den) = (self.vgpr_copy(num), self.vgpr_copy(den));
        let (dst, tmp) = self.expansion_vgprs(RegClass::Int);
        self.emit(Inst::FDiv32 { dst, num, den, tmp });
        dst
    }

    fn sqrt32(&mut self, src: Reg) -> Reg {
        let src = self.vgpr_copy(src);
        let (dst, tmp) = self.expansion_vgprs(RegClass::Int);
        self.emit(Inst::Sqrt32 { dst, src, tmp });
        dst
    }

    fn salu1(&mut self, op: &Op, a: Src) -> Reg {
        self.salu(*op, &[a], RegClass::Int)
    }

    fn salu2(&mut self, op: &Op, a: Src, b: Src) -> Reg {
        self.salu(*op, &[a, b], RegClass::Int)
    }

    fn salu1_64(&mut self, op: &Op, a: Reg) -> Reg {
        let a = self.sgpr_copy(a);
        self.salu(*op, &[Src::Reg(a)], RegClass::Float)
    }

    fn salu2_64(&mut self, op: &Op, a: Reg, b: Src) -> Reg {
        let a = self.sgpr_copy(a);
        let b = match b {
            Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
            imm => imm,
        };
        self.salu(*op, &[Src::Reg(a), b], RegClass::Float)
    }

    fn scmp_select(&mut self, cmp: &Op, a: Src, b: Src, t: Src, f: Src) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        let [mut a, mut b, mut t, mut f] = [a, b, t, f].map(|s| match s {
            Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
            imm => imm,
        });
        // s_cmp and s_cselect each take one literal.
        [a, b] = self.scalar_pair(a, b);
        [t, f] = self.scalar_pair(t, f);
        self.emit(Inst::SCmpSelect {
            cmp: *cmp,
            a,
            b,
            select: Op::SCselectB32,
            dst,
            t,
            f,
        });
        dst
    }

    fn scmp_select64(&mut self, cmp: &Op, a: Src, b: Src, t: Reg, f: Reg) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Float);
        let t = self.sgpr_copy(t);
        let f = self.sgpr_copy(f);
        let [a, b] = self.scalar_pair(a, b);
        self.emit(Inst::SCmpSelect {
            cmp: *cmp,
            a,
            b,
            select: Op::SCselectB64,
            dst,
            t: Src::Reg(t),
            f: Src::Reg(f),
        });
        dst
    }

    fn salu64(&mut self, op: &Op64, a: Reg, b: Src) -> Reg {
        let a = self.sgpr_copy(a);
        let b = match b {
            Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
            imm => imm,
        };
        let dst = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::Alu64 { op: *op, dst, a, b });
        dst
    }

    fn const64(&mut self, uniform: bool, value: u64) -> Reg {
        self.const64_reg(uniform, value)
    }

    fn combine(&mut self, lo: Reg, hi: Reg) -> Reg {
        self.combine_regs(lo, hi)
    }

    fn lo_half(&mut self, pair: Reg) -> Reg {
        self.half(pair, false)
    }

    fn hi_half(&mut self, pair: Reg) -> Reg {
        self.half(pair, true)
    }

    fn vcmp_int_op(&mut self, cc: &IntCC, ty: ir::Type) -> Op {
        vcmp_int(*cc, ty.bits() == 64)
    }

    fn scmp_int_op(&mut self, cc: &IntCC, ty: ir::Type) -> Option<Op> {
        scmp_int(*cc, ty.bits() == 64, self.backend.generation)
    }

    fn vcmp_float_op(&mut self, cc: &FloatCC) -> Op {
        vcmp_float(*cc)
    }

    fn offset32_to_i32(&mut self, offset: ir::immediates::Offset32) -> i32 {
        offset.into()
    }

    fn lower_load(&mut self, inst: ir::Inst, ty: ir::Type, addr: Value, offset: i32) -> InstOutput {
        let opcode = self.lower.dfg().insts[inst].opcode();
        let result = self.lower.dfg().first_result(inst);
        // In a linearized function (divergent branches) a block may run with no lane
        // active; a scalar load would still execute, perhaps from an address read out of an
        // inactive lane. Only the entry block surely runs with lanes.
        let layout = &self.lower.func.layout;
        let may_run_empty = self.backend.uniformity.has_divergent_branches()
            && layout.inst_block(inst) != layout.entry_block();
        // Uniform loads (readonly memory, uniform address) use the scalar cache.
        if self.is_uniform(result)
            && !may_run_empty
            && opcode == Opcode::Load
            && matches!(ty.bytes(), 4 | 8)
            && offset >= 0
            && (offset % 4 == 0 || smem_offset_encodable(offset as u32, self.backend.generation))
        {
            let base = self.pair_of(addr, SGPR);
            let (op, class) = if ty.bytes() == 4 {
                (Op::SLoadDword, RegClass::Int)
            } else {
                (Op::SLoadDwordx2, RegClass::Float)
            };
            let dst = self.vreg(SGPR, class);
            let generation = self.backend.generation;
            let new_sgpr = || self.vreg(SGPR, RegClass::Int);
            for inst in scalar_load(op, dst, base, offset as u32, generation, new_sgpr) {
                self.emit(inst);
            }
            return smallvec![dst];
        }
        let Some((op, class)) = self.load_op(opcode, ty) else {
            self.fail(format!("`{opcode}` of type {ty} is not supported"));
            return smallvec![];
        };
        let (op, rsrc) = self.global_memory(op);
        let Some(address) = self.address(op, addr, offset) else {
            return smallvec![];
        };
        let dst = self.vreg(VGPR, class);
        self.emit(Inst::Load {
            op,
            dst,
            addr: address.vaddr,
            offset: address.offset,
            sbase: rsrc.or(address.saddr),
        });
        smallvec![dst]
    }

    fn lower_store(
        &mut self,
        inst: ir::Inst,
        value: Value,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let opcode = self.lower.dfg().insts[inst].opcode();
        let ty = self.lower.dfg().value_type(value);
        let op = match (opcode, ty.bytes()) {
            (Opcode::Istore8, _) | (Opcode::Store, 1) => Op::FlatStoreByte,
            (Opcode::Istore16, _) | (Opcode::Store, 2) => Op::FlatStoreShort,
            (Opcode::Store, 4) | (Opcode::Istore32, _) => Op::FlatStoreDword,
            (Opcode::Store, 8) => Op::FlatStoreDwordx2,
            (Opcode::Store, 16) => Op::FlatStoreDwordx4,
            _ => {
                self.fail(format!("`{opcode}` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        let (op, rsrc) = self.global_memory(op);
        let Some(address) = self.address(op, addr, offset) else {
            return smallvec![];
        };
        let data = self.value_reg(value);
        let data = self.vgpr_copy(data);
        self.emit(Inst::Store {
            op,
            addr: address.vaddr,
            offset: address.offset,
            data,
            sbase: rsrc.or(address.saddr),
        });
        smallvec![]
    }

    fn lower_return(&mut self, values: ValueSliceArg) -> InstOutput {
        let values: Vec<Value> = {
            let (list, off) = values;
            list.as_slice(&self.lower.dfg().value_lists)[off..].to_vec()
        };
        match self.backend.kind {
            FunctionKind::Kernel => {
                if !values.is_empty() {
                    self.fail("kernels return no values; write results to memory");
                }
                self.emit(Inst::EndPgm);
            }
            FunctionKind::Device => {
                let types: Vec<ir::Type> = values
                    .iter()
                    .map(|&v| self.lower.dfg().value_type(v))
                    .collect();
                let locations = device_value_vgprs(types.into_iter());
                let mut results = Vec::new();
                for (&value, &(first, count)) in values.iter().zip(&locations) {
                    let r = self.value_reg(value);
                    let r = self.vgpr_copy(r);
                    match count {
                        1 => results.push((r, vgpr(first))),
                        2 => {
                            let lo = self.half(r, false);
                            let hi = self.half(r, true);
                            results.push((lo, vgpr(first)));
                            results.push((hi, vgpr(first + 1)));
                        }
                        _ => self.fail("return values wider than 64 bits are not supported"),
                    }
                }
                let ret_addr = self.backend.frame.return_address.expect("device frame");
                self.emit(Inst::Ret { results, ret_addr });
            }
        }
        smallvec![]
    }

    fn lower_call(&mut self, inst: ir::Inst) -> InstOutput {
        let InstructionData::Call { func_ref, .. } = self.lower.dfg().insts[inst] else {
            unreachable!("matched a call");
        };
        let Some(intrinsic) = Intrinsic::from_func_ref(self.lower.func, func_ref) else {
            self.fail("calls to functions other than wavelift intrinsics are not supported yet");
            return smallvec![];
        };
        let sig =
            &self.lower.func.dfg.signatures[self.lower.func.dfg.ext_funcs[func_ref].signature];
        let expected = intrinsic.signature();
        if sig.params != expected.params || sig.returns != expected.returns {
            self.fail(format!(
                "intrinsic `{}` must be declared with signature {expected}",
                intrinsic.name()
            ));
            return smallvec![];
        }
        match self.lower_intrinsic(intrinsic) {
            Some(r) => smallvec![r],
            None => smallvec![],
        }
    }

    fn u64_to_u32(&mut self, v: u64) -> u32 {
        v as u32
    }

    fn vadd_co(&mut self, a: Src, b: Src) -> Carry {
        self.valu_carry(Op::VAddU32, a, b, None)
    }

    fn vaddc_co(&mut self, a: Src, b: Src, carry_in: Reg) -> Carry {
        self.valu_carry(Op::VAddcU32, a, b, Some(carry_in))
    }

    fn vsub_co(&mut self, a: Src, b: Src) -> Carry {
        self.valu_carry(Op::VSubU32, a, b, None)
    }

    fn vsubb_co(&mut self, a: Src, b: Src, borrow_in: Reg) -> Carry {
        self.valu_carry(Op::VSubbU32, a, b, Some(borrow_in))
    }

    fn carry_value(&mut self, carry: Carry) -> Reg {
        carry.value
    }

    fn carry_mask(&mut self, carry: Carry) -> Reg {
        carry.mask
    }

    fn vop64_1(&mut self, op: &Op, a: Reg) -> Reg {
        let rounding = matches!(
            op,
            Op::VTruncF64 | Op::VFloorF64 | Op::VCeilF64 | Op::VRndneF64
        );
        if rounding && !op.info().available(self.backend.generation) {
            return self.round64_expanded(*op, a);
        }
        self.valu_pair(*op, &[Src::Reg(a)], 0)
    }

    fn vop64(&mut self, op: &Op, a: Reg, b: Reg, neg: u8) -> Reg {
        self.valu_pair(*op, &[Src::Reg(a), Src::Reg(b)], neg)
    }

    fn vop64_3(&mut self, op: &Op, a: Reg, b: Reg, c: Reg) -> Reg {
        self.valu_pair(*op, &[Src::Reg(a), Src::Reg(b), Src::Reg(c)], 0)
    }

    fn vcvt64(&mut self, op: &Op, a: Src) -> Reg {
        self.valu_pair(*op, &[a], 0)
    }

    fn vldexp64(&mut self, a: Reg, e: Src) -> Reg {
        self.valu_pair(Op::VLdexpF64, &[Src::Reg(a), e], 0)
    }

    fn fdiv64(&mut self, num: Reg, den: Reg) -> Reg {
        let (num, den) = (self.vgpr_copy(num), self.vgpr_copy(den));
        let (dst, tmp) = self.expansion_vgprs(RegClass::Float);
        self.emit(Inst::FDiv64 { dst, num, den, tmp });
        dst
    }

    fn sqrt64(&mut self, src: Reg) -> Reg {
        let src = self.vgpr_copy(src);
        let (dst, tmp) = self.expansion_vgprs(RegClass::Float);
        self.emit(Inst::Sqrt64 { dst, src, tmp });
        dst
    }

    fn vcmp_float64_op(&mut self, cc: &FloatCC) -> Op {
        vcmp_float64(*cc)
    }

    fn load_dword(&mut self, inst: ir::Inst, addr: Value, offset: i32) -> Reg {
        let ty = self
            .lower
            .dfg()
            .value_type(self.lower.dfg().first_result(inst));
        match self.lower_load(inst, ty, addr, offset).as_slice() {
            [dword] => *dword,
            // `lower_load` failed and said why; a placeholder finishes the rule.
            _ => self.vreg(VGPR, RegClass::Int),
        }
    }

    fn pair_carry(&mut self, value: Reg, mask: Reg) -> Carry {
        Carry { value, mask }
    }

    fn ty_64(&mut self, ty: ir::Type) -> Option<ir::Type> {
        (ty.bits() == 64 && !ty.is_vector() && !ty.is_dynamic_vector()).then_some(ty)
    }

    fn put_in_neg_narrow_amount(&mut self, ty: ir::Type, value: Value) -> Src {
        let mask = ty.bits() - 1;
        match self.put_in_amount(value) {
            Src::Imm(c) => Src::Imm(c.wrapping_neg() & mask),
            amount => {
                let neg = self.valu(Op::VSubU32, &[Src::Imm(0), amount], RegClass::Int);
                Src::Reg(self.valu(Op::VAndB32, &[Src::Imm(mask), Src::Reg(neg)], RegClass::Int))
            }
        }
    }
}

/// A VALU result with the carry-out (or borrow-out) it produced, as a lane mask.
#[derive(Copy, Clone, Debug)]
pub struct Carry {
    value: Reg,
    mask: Reg,
}

impl IsleContext<'_, '_> {
    /// A VALU operation with a 64-bit (VGPR pair) result, negating the sources in `neg`.
    /// Operations the generation lacks are a CompileError.
    fn valu_pair(&mut self, op: Op, srcs: &[Src], neg: u8) -> Reg {
        let generation = self.backend.generation;
        if !op.info().available(generation) {
            self.fail(format!(
                "{} does not exist on {generation:?} (an expansion is not implemented yet)",
                op.info().mnemonic(generation)
            ));
        }
        let mut srcs: SmallVec<[Src; 3]> = srcs.iter().copied().collect();
        let op = self.legalize_valu_in(op, &mut srcs, neg != 0);
        let dst = self.vreg(VGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs,
            neg,
            abs: 0,
            clamp: false,
        });
        dst
    }

    /// An f64 rounding for a generation without the instruction (gfx6): the expansion
    /// `Inst::RoundF64`.
    fn round64_expanded(&mut self, op: Op, src: Reg) -> Reg {
        let src = self.vgpr_copy(src);
        let dst = self.vreg(VGPR, RegClass::Float);
        let tmp = [(); 2].map(|_| self.vreg(VGPR, RegClass::Float));
        self.emit(Inst::RoundF64 { op, dst, src, tmp });
        dst
    }

    /// A carry-writing add or subtract in its VOP3b form, which writes the carry-out to a
    /// lane mask of our choosing rather than VCC, and reads a carry-in from one. The
    /// carry-in is a constant-bus read, so the other sources are then VGPRs or inline
    /// constants (as for `v_cndmask_b32`).
    fn valu_carry(&mut self, op: Op, a: Src, b: Src, carry_in: Option<Reg>) -> Carry {
        let mut srcs: SmallVec<[Src; 3]> = smallvec![a, b];
        let op = match carry_in {
            None => self.legalize_valu_in(op, &mut srcs, true),
            Some(mask) => {
                for s in srcs.iter_mut() {
                    *s = self.off_bus(*s);
                }
                srcs.push(Src::Reg(mask));
                op
            }
        };
        let value = self.vreg(VGPR, RegClass::Int);
        let mask = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: Some(value),
            sdst: Some(mask),
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
        });
        Carry { value, mask }
    }
}

type ValueSliceArg = (ir::ValueList, usize);

/// Register pairs: their halves and their making.
impl IsleContext<'_, '_> {
    fn half(&mut self, pair: Reg, hi: bool) -> Reg {
        let dst = self.vreg(pair.file(), RegClass::Int);
        self.emit(Inst::Half { dst, src: pair, hi });
        dst
    }

    fn combine_regs(&mut self, lo: Reg, hi: Reg) -> Reg {
        let (lo, hi) = if lo.file() == hi.file() {
            (lo, hi)
        } else {
            (self.vgpr_copy(lo), self.vgpr_copy(hi))
        };
        let dst = self.vreg(lo.file(), RegClass::Float);
        self.emit(Inst::Combine { dst, lo, hi });
        dst
    }
}
