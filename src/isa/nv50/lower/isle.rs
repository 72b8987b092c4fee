//! The ISLE context: the constructors and extractors `isle/nv50/*.isle` call, and the
//! generated rules.

use super::{InstOutput, IsleContext, class_of};
use crate::FunctionKind;
use crate::intrinsics::{Intrinsic, Stage};
use crate::ir::condcodes::{CondCode, FloatCC, IntCC};
use crate::ir::{self, InstructionData, Value, types};
use crate::isa::nv50::abi::WORKGROUP_BASE;
use crate::isa::nv50::emit::encodable;
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Mods, Op, Round, SReg, Ty};
use crate::isa::nv50::regs::{FLAG, gpr};
use crate::machinst::{Reg, RegClass};

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
    pub use crate::isa::nv50::inst::Src;
    pub use crate::isa::nv50::lower::IsleContext;
    pub use crate::isa::nv50::mc::{Op, Round, Ty};
    pub use crate::machinst::Reg;
    pub use crate::machinst::isle::InstOutput;
    pub use crate::machinst::isle::{BlockArray2, ValueArray2, ValueArray3, ValueSlice};
    pub type Unit = ();
    pub type MemFlagsData = crate::ir::MemFlagsData;

    include!(concat!(env!("OUT_DIR"), "/isle_nv50.rs"));
}

/// The `set` comparison and the signedness of an integer condition code.
pub(super) fn int_cond(cc: IntCC) -> (Cond, bool) {
    match cc {
        IntCC::Equal => (Cond::E, false),
        IntCC::NotEqual => (Cond::Lg, false),
        IntCC::SignedLessThan => (Cond::L, true),
        IntCC::SignedLessThanOrEqual => (Cond::Le, true),
        IntCC::SignedGreaterThan => (Cond::G, true),
        IntCC::SignedGreaterThanOrEqual => (Cond::Ge, true),
        IntCC::UnsignedLessThan => (Cond::L, false),
        IntCC::UnsignedLessThanOrEqual => (Cond::Le, false),
        IntCC::UnsignedGreaterThan => (Cond::G, false),
        IntCC::UnsignedGreaterThanOrEqual => (Cond::Ge, false),
    }
}

impl generated::Context for IsleContext<'_, '_> {
    crate::isle_prelude_methods!();

    fn put_in_src(&mut self, value: Value) -> Src {
        match self.const32(value) {
            Some(c) => Src::Imm(c),
            None => Src::Reg(self.value_reg(value)),
        }
    }

    fn put_in_reg(&mut self, value: Value) -> Reg {
        let ty = self.lower.dfg().value_type(value);
        if ty.bits() == 64
            && let Some(c) = self.const64_of(value)
        {
            return self.const64(c);
        }
        match self.const32(value) {
            Some(c) => self.mov_imm(c),
            None => self.value_reg(value),
        }
    }

    fn imm(&mut self, c: u32) -> Src {
        Src::Imm(c)
    }

    fn u64_to_u32(&mut self, c: u64) -> u32 {
        c as u32
    }

    fn zext(&mut self, ty: ir::Type, value: Value) -> Src {
        let bits = ty.bits();
        let src = self.put_in_src(value);
        if bits >= 32 {
            return src;
        }
        let mask = (1u32 << bits) - 1;
        match src {
            Src::Imm(c) => Src::Imm(c & mask),
            _ => Src::Reg(self.alu2(&Op::And, &Ty::B32, src, Src::Imm(mask))),
        }
    }

    fn sext(&mut self, ty: ir::Type, value: Value) -> Src {
        let bits = ty.bits();
        let src = self.put_in_src(value);
        if bits >= 32 {
            return src;
        }
        match src {
            Src::Imm(c) => Src::Imm((((c << (32 - bits)) as i32) >> (32 - bits)) as u32),
            _ => {
                let src_ty = if bits == 8 { Ty::S8 } else { Ty::S16 };
                let dst = self.vreg(RegClass::Int);
                let src = self.in_reg(src);
                // `cvt` reads an s16 from a register half (`tabcvtiisrc`), an s8 from either.
                let src = if bits == 8 {
                    Src::Reg(src)
                } else {
                    Src::H16(src, false)
                };
                let mut alu = Alu::new(Op::Cvt, Some(Ty::S32), Some(dst), &[src]);
                alu.src_ty = Some(src_ty);
                self.emit(Inst::Alu(alu));
                Src::Reg(dst)
            }
        }
    }

    fn alu2(&mut self, op: &Op, ty: &Ty, a: Src, b: Src) -> Reg {
        let (op, ty) = (*op, *ty);
        let commutative = matches!(op, Op::Add | Op::Min | Op::Max | Op::And | Op::Or | Op::Xor);
        let (op, a, b) = match (a, b) {
            (Src::Imm(_), b) if !matches!(b, Src::Imm(_)) && commutative => (op, b, a),
            (Src::Imm(_), b) if !matches!(b, Src::Imm(_)) && op == Op::Sub => (Op::Subr, b, a),
            (Src::Imm(_), b) if !matches!(b, Src::Imm(_)) && op == Op::Subr => (Op::Sub, b, a),
            _ => (op, a, b),
        };
        let dst = self.vreg(RegClass::Int);
        let alu = Alu::new(op, Some(ty), Some(dst), &[a, b]);
        self.emit_legal(alu);
        dst
    }

    fn logic(&mut self, op: &Op, a: Src, b: Src, not_a: bool, not_b: bool) -> Reg {
        // The immediate form negates only the first source: an immediate goes second.
        let (a, b, not_a, not_b) = match (a, b) {
            (Src::Imm(_), b) if !matches!(b, Src::Imm(_)) => (b, a, not_b, not_a),
            _ => (a, b, not_a, not_b),
        };
        let (b, not_b) = match b {
            Src::Imm(c) if not_b => (Src::Imm(!c), false),
            _ => (b, not_b),
        };
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(*op, Some(Ty::B32), Some(dst), &[a, b]);
        if not_a {
            alu.mods |= Mods::NOT0;
        }
        if not_b {
            alu.mods |= Mods::NOT1;
        }
        self.emit_legal(alu);
        dst
    }

    fn mov_imm(&mut self, c: u32) -> Reg {
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(dst),
            &[Src::Imm(c)],
        )));
        dst
    }

    fn const64(&mut self, c: u64) -> Reg {
        let lo = self.mov_imm(c as u32);
        let hi = self.mov_imm((c >> 32) as u32);
        self.combine(lo, hi)
    }

    fn shift(&mut self, op: &Op, ty: &Ty, clif_ty: ir::Type, x: Src, k: Value) -> Reg {
        let mask = clif_ty.bits() - 1;
        let count = match self.const_count(k) {
            Some(c) => Src::Imm(c & mask),
            None => {
                let k = self.count_src(k);
                Src::Reg(self.alu2(&Op::And, &Ty::B32, k, Src::Imm(mask)))
            }
        };
        let x = Src::Reg(self.in_reg(x));
        let dst = self.vreg(RegClass::Int);
        self.emit_legal(Alu::new(*op, Some(*ty), Some(dst), &[x, count]));
        dst
    }

    fn rotate(&mut self, left: bool, x: Value, k: Value) -> Reg {
        // x rotl a = (x << a) | (x >> (32 - a)), a = k & 31: the hardware shifts by 32 to 0,
        // which is what a = 0 needs.
        let x = self.value_reg(x);
        let (a, b) = match self.const32(k) {
            Some(c) if c & 31 == 0 => return x,
            Some(c) => (Src::Imm(c & 31), Src::Imm(32 - (c & 31))),
            None => {
                let k = self.count_src(k);
                let a = self.alu2(&Op::And, &Ty::B32, k, Src::Imm(31));
                let b = self.alu2(&Op::Subr, &Ty::B32, Src::Reg(a), Src::Imm(32));
                (Src::Reg(a), Src::Reg(b))
            }
        };
        let (l, r) = if left { (a, b) } else { (b, a) };
        let hi = self.vreg(RegClass::Int);
        self.emit_legal(Alu::new(
            Op::Shl,
            Some(Ty::B32),
            Some(hi),
            &[Src::Reg(x), l],
        ));
        let lo = self.vreg(RegClass::Int);
        self.emit_legal(Alu::new(
            Op::Shr,
            Some(Ty::U32),
            Some(lo),
            &[Src::Reg(x), r],
        ));
        self.alu2(&Op::Or, &Ty::B32, Src::Reg(hi), Src::Reg(lo))
    }

    fn imul32(&mut self, ty: ir::Type, x: Value, y: Value) -> Reg {
        IsleContext::imul32(self, ty, x, y)
    }

    fn mulhi32(&mut self, ty: ir::Type, signed: bool, x: Value, y: Value) -> Reg {
        IsleContext::mulhi32(self, ty, signed, x, y)
    }

    fn mulhi64(&mut self, signed: bool, x: Value, y: Value) -> Reg {
        IsleContext::mulhi64(self, signed, x, y)
    }

    fn imul64(&mut self, x: Value, y: Value) -> Reg {
        IsleContext::imul64(self, x, y)
    }

    fn icmp64(&mut self, cc: &IntCC, x: Value, y: Value) -> Reg {
        IsleContext::icmp64(self, *cc, x, y)
    }

    fn minmax64(&mut self, cc: &IntCC, x: Value, y: Value) -> Reg {
        IsleContext::minmax64(self, *cc, x, y)
    }

    fn divrem32(&mut self, ty: ir::Type, signed: bool, rem: bool, x: Value, y: Value) -> Reg {
        IsleContext::divrem32(self, ty, signed, rem, x, y)
    }

    fn divrem64(&mut self, signed: bool, rem: bool, x: Value, y: Value) -> Reg {
        IsleContext::divrem64(self, signed, rem, x, y)
    }

    fn fcmp32(&mut self, cc: &FloatCC, x: Value, y: Value) -> Reg {
        IsleContext::fcmp32(self, *cc, x, y)
    }

    fn fminmax32(&mut self, max: bool, x: Value, y: Value) -> Reg {
        IsleContext::fminmax32(self, max, x, y)
    }

    fn round32(&mut self, round: &Round, x: Value) -> Reg {
        IsleContext::round32(self, *round, x)
    }

    fn int_to_f32(&mut self, signed: bool, x: Value) -> Reg {
        IsleContext::int_to_f32(self, signed, x)
    }

    fn f32_to_int(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        IsleContext::f32_to_int(self, signed, ty, x)
    }

    fn farith64(&mut self, op: &ir::Opcode, x: Value, y: Value) -> Reg {
        IsleContext::farith64(self, *op, x, y)
    }

    fn fma64(&mut self, x: Value, y: Value, z: Value) -> Reg {
        IsleContext::fma64(self, x, y, z)
    }

    fn fdiv64(&mut self, x: Value, y: Value) -> Reg {
        let x = self.put_in_reg(x);
        let y = self.put_in_reg(y);
        IsleContext::fdiv64(self, x, y)
    }

    fn sqrt64(&mut self, x: Value) -> Reg {
        let x = self.put_in_reg(x);
        IsleContext::sqrt64(self, x)
    }

    fn f32_via_f64(&mut self, op: &ir::Opcode, x: Value, y: Value) -> Reg {
        IsleContext::f32_via_f64(self, *op, x, y)
    }

    fn fma32(&mut self, x: Value, y: Value, z: Value) -> Reg {
        IsleContext::fma32(self, x, y, z)
    }

    fn fsign64(&mut self, op: &ir::Opcode, x: Value, y: Value) -> Reg {
        IsleContext::fsign64(self, *op, x, y)
    }

    fn fcmp64(&mut self, cc: &FloatCC, x: Value, y: Value) -> Reg {
        IsleContext::fcmp64(self, *cc, x, y)
    }

    fn fminmax64(&mut self, max: bool, x: Value, y: Value) -> Reg {
        IsleContext::fminmax64(self, max, x, y)
    }

    fn round64(&mut self, round: &Round, x: Value) -> Reg {
        IsleContext::round64(self, *round, x)
    }

    fn fconvert(&mut self, promote: bool, x: Value) -> Reg {
        IsleContext::fconvert(self, promote, x)
    }

    fn int_to_float(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        IsleContext::int_to_float(self, signed, ty, x)
    }

    fn float_to_int(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        IsleContext::float_to_int(self, signed, ty, x)
    }

    fn reg_src(&mut self, r: Reg) -> Src {
        Src::Reg(r)
    }

    fn bit_count(&mut self, op: &ir::Opcode, ty: ir::Type, x: Value) -> Reg {
        IsleContext::bit_count(self, *op, ty, x)
    }

    fn ineg64_reg(&mut self, x: Value) -> Reg {
        IsleContext::ineg64(self, x)
    }

    fn iabs_reg(&mut self, ty: ir::Type, x: Value) -> Reg {
        IsleContext::iabs(self, ty, x)
    }

    fn rotate_other(&mut self, left: bool, ty: ir::Type, x: Value, k: Value) -> Reg {
        self.rotate_narrow_or_wide(left, ty, x, k)
    }

    fn bswap_reg(&mut self, ty: ir::Type, x: Value) -> Reg {
        IsleContext::bswap(self, ty, x)
    }

    fn bitselect_reg(&mut self, c: Value, x: Value, y: Value) -> Reg {
        IsleContext::bitselect(self, c, x, y)
    }

    fn isplit_reg(&mut self, ty: ir::Type, x: Value) -> InstOutput {
        let (lo, hi) = IsleContext::isplit(self, ty, x);
        InstOutput::from_iter([lo, hi])
    }

    fn iconcat_reg(&mut self, ty: ir::Type, lo: Value, hi: Value) -> Reg {
        IsleContext::iconcat(self, ty, lo, hi)
    }

    fn bmask64(&mut self, ty: ir::Type, x: Value) -> Reg {
        IsleContext::bmask64(self, ty, x)
    }

    fn overflow_reg(&mut self, op: &ir::Opcode, ty: ir::Type, x: Value, y: Value) -> InstOutput {
        let (v, f) = IsleContext::overflow(self, *op, ty, x, y, None);
        InstOutput::from_iter([v, f])
    }

    fn overflow_in(
        &mut self,
        op: &ir::Opcode,
        ty: ir::Type,
        x: Value,
        y: Value,
        c: Value,
    ) -> InstOutput {
        let (v, f) = IsleContext::overflow(self, *op, ty, x, y, Some(c));
        InstOutput::from_iter([v, f])
    }

    fn icmp_reg(&mut self, cc: &IntCC, ty: ir::Type, x: Value, y: Value) -> Reg {
        let set = self.set(*cc, ty, x, y, false);
        self.alu2(&Op::And, &Ty::B32, Src::Reg(set), Src::Imm(1))
    }

    fn in_flags(&mut self, inst: ir::Inst) -> Option<ir::Inst> {
        let result = self.lower.dfg().first_result(inst);
        self.backend.in_flags.contains(&result).then_some(inst)
    }

    fn icmp_flags(&mut self, cc: &IntCC, ty: ir::Type, x: Value, y: Value) -> Reg {
        self.set(*cc, ty, x, y, true)
    }

    fn select_reg(&mut self, c: Value, x: Value, y: Value) -> Reg {
        let (flag, cond) = self.condition(c);
        let t = self.put_in_reg(x);
        let f = self.put_in_reg(y);
        if t.class() != f.class() || t.class() == RegClass::Vector {
            self.fail("select of this type is not supported by the NV50 backend yet");
        }
        let dst = self.vreg(t.class());
        self.emit(Inst::Select {
            dst,
            cond,
            c: flag,
            t,
            f,
        });
        dst
    }

    fn bmask_reg(&mut self, x: Value) -> Reg {
        let ty = self.lower.dfg().value_type(x);
        let x = self.zext(ty, x);
        let x = self.in_reg(x);
        let zero = self.mov_imm(0);
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(
            Op::Set,
            Some(Ty::U32),
            Some(dst),
            &[Src::Reg(x), Src::Reg(zero)],
        );
        alu.cmp = Some(Cond::Lg);
        self.emit(Inst::Alu(alu));
        dst
    }

    fn add64(&mut self, x: Value, y: Value, sub: bool) -> Reg {
        let x = self.put_in_reg(x);
        let y = self.put_in_reg(y);
        let carry = self.lower.new_vreg(FLAG, RegClass::Int);
        let lo = self.vreg(RegClass::Int);
        let mut alu = Alu::new(
            if sub { Op::Sub } else { Op::Add },
            Some(Ty::B32),
            Some(lo),
            &[Src::Half(x, false), Src::Half(y, false)],
        );
        alu.cdst = Some(carry);
        self.emit(Inst::Alu(alu));
        // x − y = x + ~y + 1: the high word adds ~y's with the carry (C is "no borrow").
        let yh = if sub {
            Src::Reg(self.logic(&Op::Xor, Src::Half(y, true), Src::Imm(0), true, false))
        } else {
            Src::Half(y, true)
        };
        let hi = self.vreg(RegClass::Int);
        let mut alu = Alu::new(Op::Addc, Some(Ty::B32), Some(hi), &[Src::Half(x, true), yh]);
        alu.carry = Some(carry);
        self.emit(Inst::Alu(alu));
        self.combine(lo, hi)
    }

    fn logic64(&mut self, op: &Op, x: Value, y: Value, not_y: bool) -> Reg {
        let x = self.put_in_reg(x);
        let y = self.put_in_reg(y);
        let lo = self.logic(op, Src::Half(x, false), Src::Half(y, false), false, not_y);
        let hi = self.logic(op, Src::Half(x, true), Src::Half(y, true), false, not_y);
        self.combine(lo, hi)
    }

    fn shift64(&mut self, op: &Op, ty: &Ty, x: Value, k: Value) -> Reg {
        let x = self.put_in_reg(x);
        let count = match self.const_count(k) {
            Some(c) => Src::Imm(c & 63),
            None => self.count_src(k),
        };
        self.shift64_reg(*op, *ty, x, count)
    }

    fn bnot64(&mut self, x: Value) -> Reg {
        let x = self.put_in_reg(x);
        let lo = self.logic(&Op::Xor, Src::Half(x, false), Src::Imm(0), true, false);
        let hi = self.logic(&Op::Xor, Src::Half(x, true), Src::Imm(0), true, false);
        self.combine(lo, hi)
    }

    fn uextend64(&mut self, ty: ir::Type, x: Value) -> Reg {
        let lo = self.zext(ty, x);
        let lo = self.in_reg(lo);
        let hi = self.mov_imm(0);
        self.combine(lo, hi)
    }

    fn sextend64(&mut self, ty: ir::Type, x: Value) -> Reg {
        let lo = self.sext(ty, x);
        let lo = self.in_reg(lo);
        self.widen_loaded(Ty::S32, lo)
    }

    fn low_only(&mut self, inst: ir::Inst) -> Option<ir::Inst> {
        let result = self.lower.dfg().inst_results(inst)[0];
        self.is_low_only(result).then_some(inst)
    }

    fn low(&mut self, x: Value) -> Src {
        self.low_src(x)
    }

    fn low_reg(&mut self, x: Value) -> Reg {
        self.low_in_reg(x)
    }

    fn src_reg(&mut self, src: Src) -> Reg {
        self.in_reg(src)
    }

    fn shift_const(&mut self, k: Value) -> Option<u32> {
        self.const_count(k)
    }

    fn high_zero_result(&mut self, inst: ir::Inst) -> Option<ir::Inst> {
        let result = self.lower.dfg().inst_results(inst)[0];
        self.high_zero(result).then_some(inst)
    }

    fn zero_high(&mut self, lo: Reg) -> Reg {
        IsleContext::zero_high(self, lo)
    }

    fn imul_low(&mut self, x: Value, y: Value) -> Reg {
        IsleContext::imul_low(self, x, y)
    }

    fn shl_low(&mut self, x: Value, k: Value) -> Reg {
        IsleContext::shl_low(self, x, k)
    }

    fn shr_low(&mut self, ty: &Ty, x: Value, k: u32) -> Reg {
        IsleContext::shr_low(self, *ty, x, k)
    }

    fn select_low(&mut self, c: Value, x: Value, y: Value) -> Reg {
        IsleContext::select_low(self, c, x, y)
    }

    fn offset32_to_i32(&mut self, offset: ir::immediates::Offset32) -> i32 {
        offset.into()
    }

    fn lower_load(&mut self, ty: &Ty, clif_ty: ir::Type, addr: Value, offset: i32) -> InstOutput {
        let ty = *ty;
        // A stack address is private memory, another i32 address workgroup memory
        // (docs/ir.md, "Memory spaces").
        if self.is_private(addr) {
            return self.private_load(ty, clif_ty, addr, offset);
        }
        if self.lower.dfg().value_type(addr) == ir::types::I32 {
            return self.workgroup_load(ty, clif_ty, addr, offset);
        }
        let addr = self.address(addr, offset);
        let wide = clif_ty.bits() == 64 && ty.bytes() < 8;
        let class = if wide {
            RegClass::Int
        } else {
            match class_of(clif_ty) {
                Some(class) => class,
                None => {
                    self.fail(format!("loads of type {clif_ty} are not supported"));
                    RegClass::Int
                }
            }
        };
        let dst = self.vreg(class);
        self.emit(Inst::Load { ty, dst, addr });
        if !wide {
            return InstOutput::from_iter([dst]);
        }
        InstOutput::from_iter([self.widen_loaded(ty, dst)])
    }

    fn lower_store(&mut self, ty: &Ty, value: Value, addr: Value, offset: i32) -> InstOutput {
        let ty = *ty;
        if self.is_private(addr) {
            let data = self.put_in_reg(value);
            return self.private_store(ty, data, addr, offset);
        }
        if self.lower.dfg().value_type(addr) == ir::types::I32 {
            let data = self.put_in_reg(value);
            return self.workgroup_store(ty, data, addr, offset);
        }
        let addr = self.address(addr, offset);
        let mut data = self.put_in_reg(value);
        if ty.bytes() < 8 && data.class() == RegClass::Float {
            // `istore8`/`istore16`/`istore32` of an i64: its low word.
            data = self.half(data, false);
        }
        self.emit(Inst::Store { ty, data, addr });
        InstOutput::new()
    }

    fn lower_stack_addr(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        slot: ir::StackSlot,
        offset: i32,
    ) -> InstOutput {
        self.stack_addr(inst, ty, slot, offset)
    }

    fn lower_call(&mut self, inst: ir::Inst) -> InstOutput {
        let func = self.lower.func;
        let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
            unreachable!("the rule matched a call");
        };
        let intrinsic = match Intrinsic::of_call(func, func_ref) {
            Some(Ok(intrinsic)) => intrinsic,
            Some(Err(reason)) => {
                self.fail(reason);
                return InstOutput::new();
            }
            None => {
                let dfg = self.lower.dfg();
                let args = dfg.inst_args(inst).to_vec();
                let results = dfg.inst_results(inst).to_vec();
                let types: Vec<ir::Type> = results.iter().map(|&v| dfg.value_type(v)).collect();
                return self.device_call(func_ref, &args, Some(&results), &types);
            }
        };
        let reg = match intrinsic {
            Intrinsic::WorkitemId(d) => {
                let Some(tid) = self.backend.frame.tid.get() else {
                    self.fail(
                        "work-item ids are only available in kernels on NV50 (they arrive in \
                         `$r0`, which a device function's arguments take)",
                    );
                    return InstOutput::new();
                };
                // `$r0`: x in bits 0–15, y in 16–25, z in 26–31 (`docs/nv50.md`).
                match d {
                    0 => self.alu2(&Op::And, &Ty::B32, Src::Reg(tid), Src::Imm(0xffff)),
                    1 => {
                        let t = self.alu2(&Op::Shr, &Ty::U32, Src::Reg(tid), Src::Imm(16));
                        self.alu2(&Op::And, &Ty::B32, Src::Reg(t), Src::Imm(0x3ff))
                    }
                    _ => self.alu2(&Op::Shr, &Ty::U32, Src::Reg(tid), Src::Imm(26)),
                }
            }
            Intrinsic::WorkgroupId(d) => self.read_u16([0x0c, 0x0e, 0x12][d as usize]),
            Intrinsic::WorkgroupSize(d) => self.read_u16([0x02, 0x04, 0x06][d as usize]),
            Intrinsic::LaneId => {
                let t = self.vreg(RegClass::Int);
                self.emit(Inst::Alu(Alu::new(
                    Op::Mov,
                    Some(Ty::B32),
                    Some(t),
                    &[Src::SReg(SReg::Physid)],
                )));
                self.alu2(&Op::And, &Ty::B32, Src::Reg(t), Src::Imm(0x1f))
            }
            Intrinsic::WaveSize => {
                let dst = self.vreg(RegClass::Int);
                self.emit(Inst::Alu(Alu::new(
                    Op::Mov,
                    Some(Ty::B32),
                    Some(dst),
                    &[Src::Imm(32)],
                )));
                dst
            }
            // The address of the segment: a constant, folded into the offsets of the
            // accesses (`workgroup.rs`).
            Intrinsic::WorkgroupBase => self.mov_imm(WORKGROUP_BASE),
            _ if intrinsic.stage() == Some(Stage::Fragment) => {
                let args = func.dfg.inst_args(inst).to_vec();
                return InstOutput::from_iter(self.lower_fragment_intrinsic(intrinsic, &args));
            }
            _ if intrinsic.stage() == Some(Stage::Vertex) => {
                let args = func.dfg.inst_args(inst).to_vec();
                return InstOutput::from_iter(self.lower_vertex_intrinsic(intrinsic, &args));
            }
            // Where `check_barriers` allowed it.
            Intrinsic::Barrier => {
                self.emit(Inst::Barrier);
                return InstOutput::new();
            }
            _ => {
                let args = func.dfg.inst_args(inst).to_vec();
                return self.cross_lane(intrinsic, &args);
            }
        };
        InstOutput::from_iter([reg])
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
        ty: ir::Type,
        addr: Value,
        expected: Value,
        replacement: Value,
    ) -> InstOutput {
        self.atomic_cas(ty, addr, expected, replacement)
    }

    fn lower_atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        self.atomic_load(ty, addr)
    }

    fn lower_atomic_store(&mut self, value: Value, addr: Value) -> InstOutput {
        self.atomic_store(value, addr)
    }

    fn return_values(&mut self, args: crate::machinst::isle::ValueSlice) -> InstOutput {
        let (list, off) = args;
        let values: Vec<Value> = list.as_slice(&self.lower.dfg().value_lists)[off..].to_vec();
        match self.backend.kind {
            FunctionKind::Kernel => {
                if !values.is_empty() {
                    self.fail("a kernel returns no values");
                }
                let results = match self.backend.fragment {
                    Some(_) => self.fragment_results(),
                    None => Vec::new(),
                };
                if self.backend.vertex.is_some() {
                    self.vertex_outputs();
                }
                self.emit(Inst::Exit { results });
            }
            FunctionKind::Device => {
                let regs: Vec<Reg> = values.iter().map(|&v| self.put_in_reg(v)).collect();
                self.return_regs(&regs);
            }
        }
        InstOutput::new()
    }

    fn lower_return_call(&mut self, inst: ir::Inst) -> InstOutput {
        let InstructionData::Call { func_ref, .. } = self.lower.dfg().insts[inst] else {
            unreachable!("matched a return_call");
        };
        if Intrinsic::from_func_ref(self.lower.func, func_ref).is_some() {
            self.fail("an intrinsic cannot be tail-called: `call` it and `return` its results");
            return InstOutput::new();
        }
        let args = self.lower.dfg().inst_args(inst).to_vec();
        self.device_tail_call(func_ref, &args);
        InstOutput::new()
    }
}

impl IsleContext<'_, '_> {
    /// A device function's return of `regs`: their words in `$r0`, `$r1`, …, then `ret`.
    pub(super) fn return_regs(&mut self, regs: &[Reg]) {
        let mut uses = Vec::new();
        let mut next = 0u16;
        for &r in regs {
            let words = match r.class() {
                RegClass::Int => vec![r],
                RegClass::Float => vec![self.half(r, false), self.half(r, true)],
                RegClass::Vector => {
                    self.fail("i128 results are not supported");
                    return;
                }
            };
            for w in words {
                uses.push((w, gpr(next)));
                next += 1;
            }
        }
        self.emit(Inst::Ret { uses });
    }
}

impl IsleContext<'_, '_> {
    /// An i64 shift (left, logical right, arithmetic right: `Ty::S32`) of the pair `x` by
    /// `count`: an immediate (0–63) or a register whose value is taken modulo 64.
    pub(super) fn shift64_reg(&mut self, op: Op, ty: Ty, x: Reg, count: Src) -> Reg {
        use generated::Context;
        let (xl, xh) = (Src::Half(x, false), Src::Half(x, true));
        let sh = |ctx: &mut Self, op: Op, ty: Ty, a: Src, n: Src| {
            let dst = ctx.vreg(RegClass::Int);
            let a = match a {
                Src::Imm(_) => Src::Reg(ctx.in_reg(a)),
                _ => a,
            };
            ctx.emit_legal(Alu::new(op, Some(ty), Some(dst), &[a, n]));
            dst
        };
        let or =
            |ctx: &mut Self, a: Reg, b: Reg| ctx.alu2(&Op::Or, &Ty::B32, Src::Reg(a), Src::Reg(b));
        let left = op == Op::Shl;
        // The word shifted towards the other, and the one shifted away from it.
        let (from, to) = if left { (xl, xh) } else { (xh, xl) };
        let (into, into_ty) = if left {
            (Op::Shr, Ty::U32)
        } else {
            (Op::Shl, Ty::B32)
        };
        // `to` shifts in zeros whatever the shift's signedness.
        let to_ty = if left { Ty::B32 } else { Ty::U32 };
        let (to_new, from_new) = if let Src::Imm(c) = count {
            let c = c & 63;
            match c {
                0 => return x,
                1..=31 => {
                    let a = sh(self, op, to_ty, to, Src::Imm(c));
                    let b = sh(self, into, into_ty, from, Src::Imm(32 - c));
                    (or(self, a, b), sh(self, op, ty, from, Src::Imm(c)))
                }
                _ => {
                    let rest = if ty == Ty::S32 {
                        sh(self, Op::Shr, Ty::S32, from, Src::Imm(31))
                    } else {
                        self.mov_imm(0)
                    };
                    (sh(self, op, ty, from, Src::Imm(c - 32)), rest)
                }
            }
        } else {
            // With the hardware's counts (32 or more shift everything out, or in signs):
            // to' = to op a | from into (32 − a) | from op (a − 32); from' = from op a. The
            // last term is there only for a ≥ 32: for a < 32 its count wraps to 2^32 − 32
            // + a, which shifts everything out but an arithmetic shift's signs, so a mask
            // keeps it for a ≥ 32 only.
            let a = self.alu2(&Op::And, &Ty::B32, count, Src::Imm(63));
            let b = self.alu2(&Op::Subr, &Ty::B32, Src::Reg(a), Src::Imm(32));
            let c = self.alu2(&Op::Add, &Ty::B32, Src::Reg(a), Src::Imm(-32i32 as u32));
            let t0 = sh(self, op, to_ty, to, Src::Reg(a));
            let t1 = sh(self, into, into_ty, from, Src::Reg(b));
            let mut t2 = sh(self, op, ty, from, Src::Reg(c));
            if ty == Ty::S32 {
                let wide = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(a), Src::Imm(32));
                t2 = self.alu2(&Op::And, &Ty::B32, Src::Reg(t2), Src::Reg(wide));
            }
            let t01 = or(self, t0, t1);
            let to_new = or(self, t01, t2);
            let from_new = sh(self, op, ty, from, Src::Reg(a));
            (to_new, from_new)
        };
        if left {
            self.combine(from_new, to_new)
        } else {
            self.combine(to_new, from_new)
        }
    }

    /// The i64 of the 32-bit word `lo` that an extending load of `ty` (or a `sextend`,
    /// `ty` signed) left: its sign repeated in the high word, or 0.
    pub(super) fn widen_loaded(&mut self, ty: Ty, lo: Reg) -> Reg {
        let hi = if ty.is_signed() {
            let hi = self.vreg(RegClass::Int);
            self.emit_legal(Alu::new(
                Op::Shr,
                Some(Ty::S32),
                Some(hi),
                &[Src::Reg(lo), Src::Imm(31)],
            ));
            hi
        } else {
            generated::Context::mov_imm(self, 0)
        };
        self.combine(lo, hi)
    }

    /// The 32-bit constant `value` holds, if it is an `iconst` of up to 32 bits or an
    /// `f32const`.
    pub(super) fn const32(&mut self, value: Value) -> Option<u32> {
        let inst = generated::Context::def_inst(self, value)?;
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::UnaryImm { imm, .. } if dfg.value_type(value).bits() <= 32 => {
                Some(imm.bits() as u32)
            }
            InstructionData::UnaryIeee32 { imm, .. } => Some(imm.bits()),
            _ => None,
        }
    }

    /// The 64-bit constant `value` holds, if it is an `iconst.i64` or an `f64const`.
    pub(super) fn const64_of(&mut self, value: Value) -> Option<u64> {
        let inst = generated::Context::def_inst(self, value)?;
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::UnaryImm { imm, .. } => Some(imm.bits() as u64),
            InstructionData::UnaryIeee64 { imm, .. } => Some(imm.bits()),
            _ => None,
        }
    }

    /// A shift count's constant value (its low 32 bits: only the low 6 count).
    pub(super) fn const_count(&mut self, k: Value) -> Option<u32> {
        self.const32(k)
            .or_else(|| self.const64_of(k).map(|c| c as u32))
    }

    /// A variable shift count as a source: its register, or an i64's low word.
    pub(super) fn count_src(&mut self, k: Value) -> Src {
        let r = self.value_reg(k);
        match r.class() {
            RegClass::Int => Src::Reg(r),
            _ => Src::Half(r, false),
        }
    }

    /// `src` in a register (an immediate or `s[]` moved into one).
    pub(super) fn in_reg(&mut self, src: Src) -> Reg {
        match src {
            Src::Reg(r) => r,
            Src::Imm(c) => generated::Context::mov_imm(self, c),
            other => {
                let dst = self.vreg(RegClass::Int);
                self.emit(Inst::Alu(Alu::new(
                    Op::Mov,
                    Some(Ty::B32),
                    Some(dst),
                    &[other],
                )));
                dst
            }
        }
    }

    /// Emits `alu`, first moving into registers the immediates no form of it encodes.
    pub(super) fn emit_legal(&mut self, mut alu: Alu) {
        let variant = self.backend.variant;
        for i in 0..alu.srcs.len() {
            if matches!(alu.srcs[i], Src::Imm(_)) && !encodable(&alu, variant) {
                let r = self.in_reg(alu.srcs[i]);
                alu.srcs[i] = Src::Reg(r);
            }
        }
        if !encodable(&alu, variant) {
            self.fail(format!("internal error: no encoding of {alu:?}"));
        }
        self.emit(Inst::Alu(alu));
    }

    pub(super) fn combine(&mut self, lo: Reg, hi: Reg) -> Reg {
        let dst = self.vreg(RegClass::Float);
        self.emit(Inst::Combine { dst, lo, hi });
        dst
    }

    /// One word of a pair in a register of its own.
    pub(super) fn half(&mut self, pair: Reg, hi: bool) -> Reg {
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(dst),
            &[Src::Half(pair, hi)],
        )));
        dst
    }

    /// A zero-extended 16-bit system value of `s[]`.
    fn read_u16(&mut self, offset: u32) -> Reg {
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(dst),
            &[Src::Shared {
                ty: Ty::U16,
                areg: 0,
                offset,
            }],
        )));
        dst
    }

    /// The `g[15]` address of `addr + offset`: the low word of the i64 address, plus the
    /// offset with a 32-bit add (`docs/nv50.md`, "Memory windows").
    pub(super) fn address(&mut self, addr: Value, offset: i32) -> Src {
        let addr = generated::Context::put_in_reg(self, addr);
        let low = if addr.class() == RegClass::Float {
            Src::Half(addr, false)
        } else {
            Src::Reg(addr)
        };
        if offset == 0 {
            return low;
        }
        Src::Reg(generated::Context::alu2(
            self,
            &Op::Add,
            &Ty::B32,
            low,
            Src::Imm(offset as u32),
        ))
    }

    /// `set` of `cc` on `x` and `y` (of `ty`, extended as the comparison needs) into a new
    /// register (0 or −1), or into a new `$c` only (`flags`).
    fn set(&mut self, cc: IntCC, ty: ir::Type, x: Value, y: Value, flags: bool) -> Reg {
        let (cmp, signed) = int_cond(cc);
        let (a, b) = if signed {
            (
                generated::Context::sext(self, ty, x),
                generated::Context::sext(self, ty, y),
            )
        } else {
            (
                generated::Context::zext(self, ty, x),
                generated::Context::zext(self, ty, y),
            )
        };
        let a = self.in_reg(a);
        let b = self.in_reg(b);
        let st = if signed { Ty::S32 } else { Ty::U32 };
        let mut alu = Alu::new(Op::Set, Some(st), None, &[Src::Reg(a), Src::Reg(b)]);
        alu.cmp = Some(cmp);
        let out = if flags {
            let c = self.lower.new_vreg(FLAG, RegClass::Int);
            alu.cdst = Some(c);
            c
        } else {
            let d = self.vreg(RegClass::Int);
            alu.dst = Some(d);
            d
        };
        self.emit(Inst::Alu(alu));
        out
    }

    /// A `$c` and the condition on it that holds where the boolean (or integer) `value` is
    /// non-zero: the compare's own `$c` when it is in one (`compares_in_flags`); else an
    /// `icmp` of up to 32 bits folds into a `set` into a new `$c`, or, against zero, into
    /// the flags of the value itself.
    pub(super) fn condition(&mut self, value: Value) -> (Reg, Cond) {
        if let Ok(c) = self.lower.value_reg(value)
            && c.file() == FLAG
        {
            return (c, Cond::Lg);
        }
        if let Some(inst) = generated::Context::def_inst(self, value)
            && let InstructionData::IntCompare { cond, args, .. } = self.lower.dfg().insts[inst]
        {
            let ty = self.lower.dfg().value_type(args[0]);
            if ty.bits() <= 32 {
                if let Some(found) = self.against_zero(cond, ty, args[0], args[1]) {
                    return found;
                }
                return (self.set(cond, ty, args[0], args[1], true), Cond::Lg);
            }
        }
        let ty = self.lower.dfg().value_type(value);
        let r = if ty == types::I64 {
            let r = generated::Context::put_in_reg(self, value);
            let lo = Src::Half(r, false);
            generated::Context::logic(self, &Op::Or, lo, Src::Half(r, true), false, false)
        } else {
            let src = generated::Context::zext(self, ty, value);
            self.in_reg(src)
        };
        (self.flags_of(r), Cond::Lg)
    }

    /// The flags of `r` in a new `$c` (`and b32 $c # r r`): Z and S of its value, C and O
    /// clear (`docs/nv50.md`, "Condition codes and predication").
    pub(super) fn flags_of(&mut self, r: Reg) -> Reg {
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut alu = Alu::new(Op::And, Some(Ty::B32), None, &[Src::Reg(r), Src::Reg(r)]);
        alu.cdst = Some(c);
        self.emit(Inst::Alu(alu));
        c
    }

    /// `x cc y` of `ty` where one side is the constant 0, as a condition on the flags of the
    /// other (extended as the comparison reads it): with C and O clear, `l`, `le`, `g`, `ge`
    /// are the signed comparisons with 0, and `lg`, `e` the unsigned `>` and `≤`. The
    /// unsigned `<` and `≥` against 0 are constants, left to `set`.
    fn against_zero(&mut self, cc: IntCC, ty: ir::Type, x: Value, y: Value) -> Option<(Reg, Cond)> {
        let (cc, v) = if self.const32(y) == Some(0) {
            (cc, x)
        } else if self.const32(x) == Some(0) {
            (cc.swap_args(), y)
        } else {
            return None;
        };
        let cond = match cc {
            IntCC::Equal | IntCC::UnsignedLessThanOrEqual => Cond::E,
            IntCC::NotEqual | IntCC::UnsignedGreaterThan => Cond::Lg,
            IntCC::SignedLessThan => Cond::L,
            IntCC::SignedLessThanOrEqual => Cond::Le,
            IntCC::SignedGreaterThan => Cond::G,
            IntCC::SignedGreaterThanOrEqual => Cond::Ge,
            IntCC::UnsignedLessThan | IntCC::UnsignedGreaterThanOrEqual => return None,
        };
        let (_, signed) = int_cond(cc);
        let src = if signed {
            generated::Context::sext(self, ty, v)
        } else {
            generated::Context::zext(self, ty, v)
        };
        let r = self.in_reg(src);
        Some((self.flags_of(r), cond))
    }
}
