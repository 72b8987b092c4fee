//! The ISLE context: the constructors and extractors `isle/gcn/*.isle` call, and the
//! generated rules.

use super::conditions::{scmp_int, vcmp_float, vcmp_float64, vcmp_int};
use super::memory::LOW_WORD_DEPTH;
use super::operands::{Carry, HIGH_ZERO_DEPTH};
use super::{InstOutput, IsleContext};
use crate::FunctionKind;
use crate::intrinsics::Intrinsic;
use crate::ir::condcodes::{FloatCC, IntCC};
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::isa::gcn::inst::{Inst, Op64, Src, shift64_value_first};
use crate::isa::gcn::mc::{Op, Operand};
use crate::isa::gcn::regs::{SGPR, VGPR};
use crate::machinst::{Reg, RegClass};
use smallvec::{SmallVec, smallvec};

#[allow(
    unused_variables,
    non_snake_case,
    clippy::all,
    dead_code,
    unreachable_patterns,
    unused_imports
)]
pub(crate) mod generated {
    pub use crate::ir::condcodes::{FloatCC, IntCC};
    pub use crate::ir::immediates::*;
    pub use crate::ir::types::*;
    pub use crate::ir::{
        AtomicRmwOp, Block, BlockCall, Constant, DynamicStackSlot, ExceptionTable, FuncRef,
        GlobalValue, Immediate, Inst, InstructionData, JumpTable, MemFlags, Opcode, SigRef,
        StackSlot, TrapCode, Type, Value, ValueList,
    };
    pub use crate::isa::gcn::inst::{Op64, Src};
    pub use crate::isa::gcn::lower::IsleContext;
    pub use crate::isa::gcn::lower::operands::Carry;
    pub use crate::isa::gcn::mc::Op;
    pub use crate::machinst::Reg;
    pub use crate::machinst::isle::InstOutput;
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
            Some(c) => Src::Imm(self.narrow_constant(value, c)),
            None => Src::Reg(self.value_reg(value)),
        }
    }

    fn put_in_src16(&mut self, value: Value) -> Src {
        match self.const32(value) {
            Some(c) => Src::Imm(operand16(c)),
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

    fn put_in_vsrc_pair(&mut self, value: Value) -> Reg {
        let r = self.value_reg(value);
        if r.class() != RegClass::Float {
            self.fail(format!(
                "internal error: {value} is not held in a register pair"
            ));
        }
        r
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
        match shift64_value_first(*op, self.backend.generation) {
            Some(op) => self.valu(op, &[Src::Reg(value), amount], RegClass::Float),
            None => self.valu(*op, &[amount, Src::Reg(value)], RegClass::Float),
        }
    }

    fn vcmp(&mut self, op: &Op, a: Src, b: Src) -> Reg {
        self.compare(*op, a, b, true)
    }

    fn vcmp_pair(&mut self, op: &Op, a: Src, b: Src) -> Reg {
        self.compare(*op, a, b, false)
    }

    fn nan_mask32(&mut self, x: Value, y: Value) -> Reg {
        let is_number = |c: Option<u32>| c.is_some_and(|bits| !f32::from_bits(bits).is_nan());
        let (a, b) = if is_number(self.const32(y)) {
            (x, x)
        } else if is_number(self.const32(x)) {
            (y, y)
        } else {
            (x, y)
        };
        let (a, b) = (self.put_in_src(a), self.put_in_src(b));
        self.vcmp(&Op::VCmpUF32, a, b)
    }

    fn fminmax32(&mut self, max: bool, x: Value, y: Value) -> Reg {
        let (core, (a, b)) = self.minmax_core(max, x, y, super::operands::MINMAX_CHAIN_DEPTH);
        if self.never_nan(a, super::operands::MINMAX_CHAIN_DEPTH)
            && self.never_nan(b, super::operands::MINMAX_CHAIN_DEPTH)
        {
            return core;
        }
        let (a, b) = (self.put_in_src(a), self.put_in_src(b));
        let unordered = self.vcmp(&Op::VCmpUF32, a, b);
        self.cndmask(Src::Reg(core), Src::Imm(0x7fc0_0000), unordered)
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
            mask_in_vcc: false,
            sdwa: None,
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
        self.load(inst, ty, addr, offset)
    }

    fn lower_store(
        &mut self,
        inst: ir::Inst,
        value: Value,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        self.store(inst, value, addr, offset)
    }

    fn lower_stack_addr(&mut self, ty: ir::Type, slot: ir::StackSlot, offset: i32) -> InstOutput {
        self.stack_addr(ty, slot, offset)
    }

    fn lower_atomic_rmw(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        op: &ir::AtomicRmwOp,
        addr: Value,
        value: Value,
    ) -> InstOutput {
        self.atomic_rmw(inst, ty, *op, addr, value)
    }

    fn lower_atomic_cas(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        addr: Value,
        expected: Value,
        replacement: Value,
    ) -> InstOutput {
        self.atomic_cas(inst, ty, addr, expected, replacement)
    }

    fn lower_atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        self.atomic_load(ty, addr)
    }

    fn lower_atomic_store(&mut self, value: Value, addr: Value) -> InstOutput {
        self.atomic_store(value, addr)
    }

    fn lower_fence(&mut self) -> InstOutput {
        self.fence()
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
                if self.backend.frame.inputs.pixel.is_some() {
                    self.fragment_exports();
                }
                if self.backend.frame.inputs.vertex.is_some() {
                    self.vertex_exports();
                }
                self.emit(Inst::EndPgm);
            }
            FunctionKind::Device => {
                let types: Vec<ir::Type> = values
                    .iter()
                    .map(|&v| self.lower.dfg().value_type(v))
                    .collect();
                let regs: Vec<Reg> = values.iter().map(|&v| self.value_reg(v)).collect();
                self.return_regs(&types, &regs);
            }
        }
        smallvec![]
    }
    fn lower_call(&mut self, inst: ir::Inst) -> InstOutput {
        let InstructionData::Call { func_ref, .. } = self.lower.dfg().insts[inst] else {
            unreachable!("matched a call");
        };
        let intrinsic = match Intrinsic::of_call(self.lower.func, func_ref) {
            Some(Ok(intrinsic)) => intrinsic,
            Some(Err(reason)) => {
                self.fail(reason);
                return smallvec![];
            }
            None => {
                let dfg = self.lower.dfg();
                let args = dfg.inst_args(inst).to_vec();
                let types: Vec<ir::Type> = dfg
                    .inst_results(inst)
                    .iter()
                    .map(|&v| dfg.value_type(v))
                    .collect();
                return self.lower_device_call(func_ref, &args, &types);
            }
        };
        let args = self.lower.dfg().inst_args(inst).to_vec();
        match self.lower_intrinsic(intrinsic, &args) {
            Some(r) => smallvec![r],
            None => smallvec![],
        }
    }

    fn lower_return_call(&mut self, inst: ir::Inst) -> InstOutput {
        let InstructionData::Call { func_ref, .. } = self.lower.dfg().insts[inst] else {
            unreachable!("matched a return_call");
        };
        if Intrinsic::from_func_ref(self.lower.func, func_ref).is_some() {
            self.fail("an intrinsic cannot be tail-called: `call` it and `return` its results");
            return smallvec![];
        }
        let args = self.lower.dfg().inst_args(inst).to_vec();
        self.lower_device_tail_call(func_ref, &args)
    }

    fn lower_call_indirect(&mut self, inst: ir::Inst) -> InstOutput {
        let dfg = self.lower.dfg();
        let InstructionData::CallIndirect { sig_ref, .. } = dfg.insts[inst] else {
            unreachable!("matched a call_indirect");
        };
        let args = dfg.inst_args(inst).to_vec();
        let types: Vec<ir::Type> = dfg
            .inst_results(inst)
            .iter()
            .map(|&v| dfg.value_type(v))
            .collect();
        self.lower_indirect_call(sig_ref, args[0], &args[1..], &types)
    }

    fn lower_func_addr(&mut self, ty: ir::Type, func_ref: ir::FuncRef) -> InstOutput {
        self.lower_device_func_addr(func_ref, ty)
    }

    fn u64_to_u32(&mut self, v: u64) -> u32 {
        v as u32
    }

    fn vadd_co(&mut self, a: Src, b: Src) -> Carry {
        self.valu_carry(Op::VAddU32, [a, b], None, false)
    }

    fn vaddc_co(&mut self, a: Src, b: Src, carry_in: Reg) -> Carry {
        self.valu_carry(Op::VAddcU32, [a, b], Some(carry_in), false)
    }

    fn vsub_co(&mut self, a: Src, b: Src) -> Carry {
        self.valu_carry(Op::VSubU32, [a, b], None, false)
    }

    fn vsubb_co(&mut self, a: Src, b: Src, borrow_in: Reg) -> Carry {
        self.valu_carry(Op::VSubbU32, [a, b], Some(borrow_in), false)
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

    fn high_zero(&mut self, value: Value) -> Option<Value> {
        self.high_half_zero(value, HIGH_ZERO_DEPTH).then_some(value)
    }

    fn high_amount(&mut self, amount: Value) -> Option<u32> {
        let k = self.const64_of(amount)? & 63;
        (k >= 32).then(|| k as u32 - 32)
    }

    fn high_word_shift(&mut self, op: &Op, k: u32, x: Value) -> Reg {
        let high = self.high_word(x);
        match high {
            Src::Reg(r) if k == 0 => r,
            _ => self.valu(*op, &[Src::Imm(k), high], RegClass::Int),
        }
    }

    fn mul_wide(&mut self, x: Value, y: Value) -> Reg {
        let (a, b) = (
            self.low_word(x, LOW_WORD_DEPTH),
            self.low_word(y, LOW_WORD_DEPTH),
        );
        if Op::VMadU64U32.info().available(self.backend.generation) {
            return self.valu_pair(Op::VMadU64U32, &[a, b, Src::Imm(0)], 0);
        }
        let lo = self.valu(Op::VMulLoU32, &[a, b], RegClass::Int);
        let hi = self.valu(Op::VMulHiU32, &[a, b], RegClass::Int);
        self.combine_regs(lo, hi)
    }

    fn mad_wide(&mut self, x: Value, y: Value, z: Value) -> Reg {
        let (a, b) = (
            self.low_word(x, LOW_WORD_DEPTH),
            self.low_word(y, LOW_WORD_DEPTH),
        );
        let c = self.put_in_src64(z);
        self.valu_pair(Op::VMadU64U32, &[a, b, c], 0)
    }

    fn rotr_amount(&mut self, rotl: i64) -> u32 {
        rotl.wrapping_neg() as u32 & 31
    }

    fn add_zero_high(&mut self, x: Value, y: Value) -> Reg {
        let (x_lo, x_hi) = self.words(x);
        let y_lo = self.low_word(y, LOW_WORD_DEPTH);
        // The carry is read next: VCC, and both instructions in their VOP2 forms.
        let low = self.valu_carry(Op::VAddU32, [x_lo, y_lo], None, true);
        let high = self.valu_carry(Op::VAddcU32, [Src::Imm(0), x_hi], Some(low.mask), true);
        self.combine_regs(low.value, high.value)
    }

    fn and_low(&mut self, x: Value, y: Value) -> Reg {
        if self.is_uniform(x) && self.is_uniform(y) {
            let halves = [x, y].map(|v| match self.const64_of(v) {
                Some(c) => Src::Imm(c as u32),
                None => {
                    let pair = self.put_in_pair(v);
                    Src::Reg(self.half(pair, false))
                }
            });
            let lo = match halves {
                [Src::Reg(r), Src::Imm(u32::MAX)] | [Src::Imm(u32::MAX), Src::Reg(r)] => r,
                [a, b] => self.salu(Op::SAndB32, &[a, b], RegClass::Int),
            };
            let hi = self.salu(Op::SMovB32, &[Src::Imm(0)], RegClass::Int);
            return self.combine_regs(lo, hi);
        }
        let a = self.low_word(x, LOW_WORD_DEPTH);
        let lo = match self.const64_of(y) {
            Some(c) if c as u32 == u32::MAX => self.src_to_vgpr(a),
            _ => {
                let b = self.low_word(y, LOW_WORD_DEPTH);
                self.valu(Op::VAndB32, &[a, b], RegClass::Int)
            }
        };
        let hi = self.src_to_vgpr(Src::Imm(0));
        self.combine_regs(lo, hi)
    }

    fn high_ones(&mut self, value: Value) -> Option<Value> {
        self.const64_of(value)
            .is_some_and(|c| c >> 32 == u32::MAX as u64)
            .then_some(value)
    }

    fn and_keep_high(&mut self, x: Value, c: Value) -> Reg {
        let low = Src::Imm(self.const64_of(c).expect("`high_ones` matched a constant") as u32);
        let pair = self.put_in_pair(x);
        let (lo, hi) = (self.half(pair, false), self.half(pair, true));
        let lo = if self.is_uniform(x) {
            self.salu(Op::SAndB32, &[Src::Reg(lo), low], RegClass::Int)
        } else {
            self.valu(Op::VAndB32, &[low, Src::Reg(lo)], RegClass::Int)
        };
        self.combine_regs(lo, hi)
    }

    fn ubyte(&mut self, value: Value) -> Option<(Value, u8)> {
        let ty = self.lower.dfg().value_type(value);
        if ty == types::I8 {
            if let Some(inst) = self.def_inst(value)
                && let InstructionData::Unary {
                    opcode: Opcode::Ireduce,
                    arg,
                } = self.lower.dfg().insts[inst]
                && self.lower.dfg().value_type(arg) == types::I32
                && let (x, Some(k)) = self.byte_shift(arg)
            {
                return Some((x, k));
            }
            return Some((value, 0));
        }
        if ty != types::I32 {
            return None;
        }
        let inst = self.def_inst(value)?;
        let InstructionData::Binary { opcode, args } = self.lower.dfg().insts[inst] else {
            return None;
        };
        match opcode {
            Opcode::Band => {
                let (x, _) = [(args[0], args[1]), (args[1], args[0])]
                    .into_iter()
                    .find(|&(_, mask)| self.const64_of(mask).is_some_and(|c| c as u32 == 0xff))?;
                match self.byte_shift(x) {
                    (x, Some(k)) => Some((x, k)),
                    (_, None) => Some((value, 0)),
                }
            }
            Opcode::Ushr if self.const64_of(args[1]) == Some(24) => Some((args[0], 3)),
            _ => None,
        }
    }

    fn nan_avoiding_select(&mut self, c: Value, x: Value, y: Value) -> Option<Reg> {
        self.nan_avoiding_minmax(c, x, y)
    }

    fn dpp_select(&mut self, inst: ir::Inst) -> Option<Reg> {
        self.dpp_fold(inst)
    }

    fn sdwa_select(&mut self, inst: ir::Inst) -> Option<Reg> {
        self.sdwa_fold(inst)
    }

    fn bit_field(&mut self, inst: ir::Inst) -> Option<Reg> {
        self.bit_field_of(inst)
    }

    fn ubyte_to_f32_op(&mut self, k: u8) -> Op {
        [
            Op::VCvtF32Ubyte0,
            Op::VCvtF32Ubyte1,
            Op::VCvtF32Ubyte2,
            Op::VCvtF32Ubyte3,
        ][k as usize]
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

type ValueSliceArg = (ir::ValueList, usize);

/// A constant operand of a 16-bit VALU operation, which reads its low 16 bits: an inline
/// integer when their signed value is one (-16 to 64), else the 16 bits as a literal. Never
/// an f32 pattern the encoder would take for a float inline constant (a 16-bit operation
/// reads those as f16 values).
pub(super) fn operand16(c: u32) -> u32 {
    let signed = c as u16 as i16 as i32;
    if (-16..=64).contains(&signed) {
        signed as u32
    } else {
        c & 0xffff
    }
}
