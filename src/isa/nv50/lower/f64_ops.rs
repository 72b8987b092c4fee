//! f64 operations of the NV50 lowering, and the conversions that need GT200's 64-bit `cvt`
//! forms. The type gate admits f64 on GT200 only (`docs/targets.md`); there the f64 unit is
//! IEEE-754 with denormals and every rounding mode, so `add`, `mul`, `fma`, the compares and
//! the roundings to an integral value give CLIF's results as they are. What differs is
//! patched: `min`/`max` ignore a NaN operand and the float-to-integer `cvt` turns a NaN into
//! the most negative integer, while CLIF wants a NaN and 0 (`docs/ir.md`).

use super::IsleContext;
use super::isle::generated::Context;
use crate::ir::condcodes::FloatCC;
use crate::ir::{self, Opcode, Value, types};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Mods, Op, Round, Ty, Variant};
use crate::machinst::{Reg, RegClass};

/// The high word of the quiet NaN the NaN-producing expansions give (any NaN is allowed).
const NAN_HI: u32 = 0x7ff8_0000;

/// The `set f64` condition of a CLIF float condition: the hardware's conditions are the
/// masks of less, equal, greater and unordered, so every CLIF condition is one of them.
fn f64_cond(cc: FloatCC) -> Cond {
    use FloatCC::*;
    match cc {
        Ordered => Cond::Lge,
        Unordered => Cond::U,
        Equal => Cond::E,
        OrderedNotEqual => Cond::Lg,
        LessThan => Cond::L,
        LessThanOrEqual => Cond::Le,
        GreaterThan => Cond::G,
        GreaterThanOrEqual => Cond::Ge,
        NotEqual => Cond::Lgu,
        UnorderedOrEqual => Cond::Eu,
        UnorderedOrLessThan => Cond::Lu,
        UnorderedOrLessThanOrEqual => Cond::Leu,
        UnorderedOrGreaterThan => Cond::Gu,
        UnorderedOrGreaterThanOrEqual => Cond::Geu,
    }
}

impl IsleContext<'_, '_> {
    /// An f64 operation (`add`, `mul`, `fma`, `min`, `max`) into a new pair.
    pub(super) fn f64_alu(&mut self, op: Op, mods: Mods, srcs: &[Reg]) -> Reg {
        let dst = self.vreg(RegClass::Float);
        let srcs: Vec<Src> = srcs.iter().map(|&r| Src::Reg(r)).collect();
        let mut alu = Alu::new(op, Some(Ty::F64), Some(dst), &srcs);
        alu.mods = mods;
        if matches!(op, Op::Add | Op::Mul | Op::Fma) {
            alu.round = Some(Round::Rn);
        }
        self.emit(Inst::Alu(alu));
        dst
    }

    /// `set cmp f64` into a register: −1 where `cmp` holds, else 0.
    pub(super) fn set_f64(&mut self, cmp: Cond, x: Reg, y: Reg) -> Reg {
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(
            Op::Set,
            Some(Ty::F64),
            Some(dst),
            &[Src::Reg(x), Src::Reg(y)],
        );
        alu.cmp = Some(cmp);
        self.emit(Inst::Alu(alu));
        dst
    }

    /// `fadd`, `fsub` (the second source negated), `fmul` of f64.
    pub(super) fn farith64(&mut self, opcode: Opcode, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        match opcode {
            Opcode::Fadd => self.f64_alu(Op::Add, Mods::NONE, &[x, y]),
            Opcode::Fsub => self.f64_alu(Op::Add, Mods::NEG1, &[x, y]),
            _ => self.f64_alu(Op::Mul, Mods::NONE, &[x, y]),
        }
    }

    /// `fma` of f64: the hardware's, fused.
    pub(super) fn fma64(&mut self, x: Value, y: Value, z: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let z = Context::put_in_reg(self, z);
        self.f64_alu(Op::Fma, Mods::NONE, &[x, y, z])
    }

    /// `fcmp cc` of f64: one `set`, whose conditions include the unordered ones.
    pub(super) fn fcmp64(&mut self, cc: FloatCC, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let r = self.set_f64(f64_cond(cc), x, y);
        self.op2(Op::And, Ty::B32, Src::Reg(r), Src::Imm(1))
    }

    /// `mask ? NaN : x` for a mask of all ones or zeros.
    fn nan_where(&mut self, mask: Reg, x: Reg) -> Reg {
        let (lo, hi) = self.halves(x);
        let lo = Context::logic(self, &Op::And, Src::Reg(lo), Src::Reg(mask), false, true);
        let nan = Context::mov_imm(self, NAN_HI);
        let hi = self.blend(mask, nan, hi);
        self.combine(lo, hi)
    }

    /// `fmin`/`fmax` of f64: the hardware's (which orders −0 below +0), and a NaN where
    /// either operand is one (the hardware would return the other operand).
    pub(super) fn fminmax64(&mut self, max: bool, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let op = if max { Op::Max } else { Op::Min };
        let r = self.f64_alu(op, Mods::NONE, &[x, y]);
        let un = self.set_f64(Cond::U, x, y);
        self.nan_where(un, r)
    }

    /// `fneg`, `fabs`, `fcopysign` of f64 on the sign bit of the high word: exact for every
    /// value, NaNs included.
    pub(super) fn fsign64(&mut self, opcode: Opcode, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let (lo, hi) = self.halves(x);
        let hi = match opcode {
            Opcode::Fneg => self.op2(Op::Xor, Ty::B32, Src::Reg(hi), Src::Imm(0x8000_0000)),
            Opcode::Fabs => self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x7fff_ffff)),
            _ => {
                let y = Context::put_in_reg(self, y);
                let m = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x7fff_ffff));
                let s = self.op2(Op::And, Ty::B32, Src::Half(y, true), Src::Imm(0x8000_0000));
                self.op2(Op::Or, Ty::B32, Src::Reg(m), Src::Reg(s))
            }
        };
        self.combine(lo, hi)
    }

    /// `floor`, `ceil`, `trunc`, `nearest` of f64: `cvt f64 f64` to an integral value, exact
    /// (denormals are kept on GT200).
    pub(super) fn round64(&mut self, round: Round, x: Value) -> Reg {
        let x = Context::put_in_src(self, x);
        self.cvt(Ty::F64, Ty::F64, Some(round), x, RegClass::Float)
    }

    /// `fpromote` f32 → f64 (exact; `cvt` keeps f32 denormals) and `fdemote` f64 → f32
    /// (rounded to nearest even, denormal results kept).
    pub(super) fn fconvert(&mut self, promote: bool, x: Value) -> Reg {
        let x = Context::put_in_src(self, x);
        if promote {
            self.cvt(Ty::F64, Ty::F32, None, x, RegClass::Float)
        } else {
            self.cvt(Ty::F32, Ty::F64, Some(Round::Rn), x, RegClass::Int)
        }
    }

    /// GT200 only: the 64-bit `cvt` forms. On G80–G98 a `CompileError` (`false`).
    fn needs_gt200(&mut self, what: &str) -> bool {
        if self.backend.variant >= Variant::G200 {
            return true;
        }
        self.fail(format!(
            "{what} needs GT200's 64-bit `cvt` forms; G80–G98 have no expansion for it yet"
        ));
        false
    }

    /// `fcvt_from_uint`/`fcvt_from_sint` to f64 from i8–i64, and to f32 from i64: one `cvt`
    /// rounding to nearest even (exact to f64 from up to 32 bits).
    pub(super) fn int_to_float(&mut self, signed: bool, dty: ir::Type, x: Value) -> Reg {
        let ty = self.lower.dfg().value_type(x);
        if ty.bits() > 64 {
            self.fail(format!(
                "conversion from {ty} is not supported by the NV50 backend yet"
            ));
        }
        let (dty, class) = if dty == types::F64 {
            (Ty::F64, RegClass::Float)
        } else {
            (Ty::F32, RegClass::Int)
        };
        let (src, sty) = match (ty.bits(), signed) {
            (64, false) => (Src::Reg(Context::put_in_reg(self, x)), Ty::U64),
            (64, true) => (Src::Reg(Context::put_in_reg(self, x)), Ty::S64),
            (_, false) => (Context::zext(self, ty, x), Ty::U32),
            (_, true) => (Context::sext(self, ty, x), Ty::S32),
        };
        if !self.needs_gt200(&format!("conversion from {ty}")) {
            return self.vreg(class);
        }
        self.cvt(dty, sty, Some(Round::Rn), src, class)
    }

    /// `fcvt_to_uint`/`fcvt_to_sint` (and `_sat`: a GPU cannot trap, `docs/ir.md`) from f64
    /// to i8–i64 and from f32 to i64: `cvt rzi` truncates and saturates to 32 or 64 bits;
    /// its NaN result (the most negative integer) is replaced by 0, and the narrow types
    /// clamp after.
    pub(super) fn float_to_int(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        let sty = self.lower.dfg().value_type(x);
        let x = Context::put_in_reg(self, x);
        let wide = ty.bits() == 64;
        if ty.bits() > 64 {
            self.fail(format!(
                "conversion to {ty} is not supported by the NV50 backend yet"
            ));
        }
        if !self.needs_gt200(&format!("conversion from {sty} to {ty}")) {
            return self.vreg(if wide { RegClass::Float } else { RegClass::Int });
        }
        let (dty, class) = match (wide, signed) {
            (true, false) => (Ty::U64, RegClass::Float),
            (true, true) => (Ty::S64, RegClass::Float),
            (false, false) => (Ty::U32, RegClass::Int),
            (false, true) => (Ty::S32, RegClass::Int),
        };
        let (src_ty, nan) = if sty == types::F64 {
            (Ty::F64, self.set_f64(Cond::U, x, x))
        } else {
            (Ty::F32, self.is_nan(x))
        };
        let r = self.cvt(dty, src_ty, Some(Round::Rzi), Src::Reg(x), class);
        if wide {
            let (lo, hi) = self.halves(r);
            let lo = Context::logic(self, &Op::And, Src::Reg(lo), Src::Reg(nan), false, true);
            let hi = Context::logic(self, &Op::And, Src::Reg(hi), Src::Reg(nan), false, true);
            return self.combine(lo, hi);
        }
        let r = Context::logic(self, &Op::And, Src::Reg(r), Src::Reg(nan), false, true);
        self.clamp_narrow(signed, ty, r)
    }
}
