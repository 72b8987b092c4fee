//! f64 operations of the NV50 lowering, and the conversions that use GT200's 64-bit `cvt`
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

    /// `fcvt_from_uint`/`fcvt_from_sint` to f64 from i8–i64, and to f32 from i64: one `cvt`
    /// rounding to nearest even (exact to f64 from up to 32 bits). G80–G98 have no 64-bit
    /// `cvt`; only f32 from i64 reaches them (f64 stops at their type gate), in integers.
    pub(super) fn int_to_float(&mut self, signed: bool, dty: ir::Type, x: Value) -> Reg {
        let ty = self.lower.dfg().value_type(x);
        if ty.bits() > 64 {
            self.fail(format!(
                "conversion from {ty} is not supported by the NV50 backend yet"
            ));
        }
        if self.backend.variant < Variant::G200 {
            return self.int64_to_f32_g80(signed, x);
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
        self.cvt(dty, sty, Some(Round::Rn), src, class)
    }

    /// `fcvt_to_uint`/`fcvt_to_sint` (and `_sat`: a GPU cannot trap, `docs/ir.md`) from f64
    /// to i8–i64 and from f32 to i64: `cvt rzi` truncates and saturates to 32 or 64 bits;
    /// its NaN result (the most negative integer) is replaced by 0, and the narrow types
    /// clamp after. G80–G98 (no 64-bit `cvt`) see only f32 to i64 here, in integers.
    pub(super) fn float_to_int(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        let sty = self.lower.dfg().value_type(x);
        let x = Context::put_in_reg(self, x);
        let wide = ty.bits() == 64;
        if ty.bits() > 64 {
            self.fail(format!(
                "conversion to {ty} is not supported by the NV50 backend yet"
            ));
        }
        if self.backend.variant < Variant::G200 {
            return self.f32_to_int64_g80(signed, x);
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

/// The largest f64 below 2.
const BELOW_TWO: f64 = 2.0 - f64::EPSILON;

impl IsleContext<'_, '_> {
    fn fconst(&mut self, c: f64) -> Reg {
        Context::const64(self, c.to_bits())
    }

    /// `mask ? t : f` for pairs and a mask of all ones or zeros.
    fn pick64(&mut self, mask: Reg, t: Reg, f: Reg) -> Reg {
        let (tl, th) = self.halves(t);
        let (fl, fh) = self.halves(f);
        let lo = self.blend(mask, tl, fl);
        let hi = self.blend(mask, th, fh);
        self.combine(lo, hi)
    }

    /// `x` with its sign bit flipped.
    fn flip_sign64(&mut self, x: Reg) -> Reg {
        let (lo, hi) = self.halves(x);
        let hi = self.op2(Op::Xor, Ty::B32, Src::Reg(hi), Src::Imm(0x8000_0000));
        self.combine(lo, hi)
    }

    /// 2^e for an s32 `e` in −1022..=1023.
    fn pow2(&mut self, e: Reg) -> Reg {
        let biased = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Imm(1023));
        let hi = self.op2(Op::Shl, Ty::B32, Src::Reg(biased), Src::Imm(20));
        let lo = Context::mov_imm(self, 0);
        self.combine(lo, hi)
    }

    fn clamp_s32(&mut self, x: Reg, lo: i32, hi: i32) -> Reg {
        let x = self.op2(Op::Max, Ty::S32, Src::Reg(x), Src::Imm(lo as u32));
        self.op2(Op::Min, Ty::S32, Src::Reg(x), Src::Imm(hi as u32))
    }

    /// A finite non-zero f64 as (m, e): m in [1, 2) and |x| = m·2^e, a denormal scaled by
    /// 2^64 first (exactly). Meaningless for zeros, infinities and NaNs, which the callers
    /// blend out.
    fn split64(&mut self, x: Reg) -> (Reg, Reg) {
        let big = self.fconst(2f64.powi(64));
        let scaled = self.f64_alu(Op::Mul, Mods::NONE, &[x, big]);
        let (lo, hi) = self.halves(x);
        let (slo, shi) = self.halves(scaled);
        let field = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x7ff0_0000));
        let denormal = self.set_reg(Cond::E, Ty::U32, Src::Reg(field), Src::Imm(0));
        let hi = self.blend(denormal, shi, hi);
        let lo = self.blend(denormal, slo, lo);
        let e = self.op2(Op::Shr, Ty::U32, Src::Reg(hi), Src::Imm(20));
        let e = self.op2(Op::And, Ty::B32, Src::Reg(e), Src::Imm(0x7ff));
        let scale = self.op2(Op::And, Ty::B32, Src::Reg(denormal), Src::Imm(64));
        let unbias = self.op2(Op::Add, Ty::B32, Src::Reg(scale), Src::Imm(1023));
        let e = self.op2(Op::Sub, Ty::B32, Src::Reg(e), Src::Reg(unbias));
        let m = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x000f_ffff));
        let m = self.op2(Op::Or, Ty::B32, Src::Reg(m), Src::Imm(0x3ff0_0000));
        (self.combine(lo, m), e)
    }

    /// −1 where the f64 `x` is a zero, an infinity or a NaN, else 0.
    fn zero_or_special(&mut self, hi: Reg, lo: Reg) -> (Reg, Reg) {
        let m = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x7fff_ffff));
        let any = Context::logic(self, &Op::Or, Src::Reg(m), Src::Reg(lo), false, false);
        let zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(any), Src::Imm(0));
        let field = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(0x7ff0_0000));
        let top = self.set_reg(Cond::E, Ty::U32, Src::Reg(field), Src::Imm(0x7ff0_0000));
        (zero, top)
    }

    /// `fdiv` of f64, correctly rounded for every input. Finite non-zero operands are split
    /// into significands a in [b, 2b) and b in [1, 2) and an exponent E, so that the result
    /// is (a/b)·2^E with a/b in [1, 2). An SFU `rcp` estimate of 1/b, refined by three
    /// Newton steps with `fma`, gives a quotient within half an ulp and a little of a/b.
    /// Where the result is denormal, s = −1022 − E bits of it are lost: the quotient is
    /// rounded to the grid g = 2^(s−52) (adding and subtracting 2^s), and whatever the grid
    /// the candidate c is corrected exactly: the remainder a − b·c is exact, and comparing
    /// it with ±b·g/2 says whether a/b lies above or below c by more than half a grid step
    /// (c ± g) or exactly half (a tie, c ± g/2, then rounded to even by the scaling
    /// multiply). Scaling by 2^E in two exact steps then rounds at most once, to infinity
    /// on overflow. Zeros, infinities and NaNs take the hardware's product x · (1/y) with
    /// 1/y exact for those (0, ∞ or ±1), and NaN where either operand is one.
    pub(super) fn fdiv64(&mut self, x: Reg, y: Reg) -> Reg {
        let (ma, ea) = self.split64(x);
        let (b, eb) = self.split64(y);
        let below = self.set_f64(Cond::L, ma, b);
        let two = self.fconst(2.0);
        let ma2 = self.f64_alu(Op::Mul, Mods::NONE, &[ma, two]);
        let a = self.pick64(below, ma2, ma);
        let e = self.op2(Op::Sub, Ty::B32, Src::Reg(ea), Src::Reg(eb));
        let e = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Reg(below));

        // 1/b: the SFU estimate and three Newton steps y += y·(1 − b·y).
        let bf = self.cvt(
            Ty::F32,
            Ty::F64,
            Some(Round::Rn),
            Src::Reg(b),
            RegClass::Int,
        );
        let rf = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Rcp,
            Some(Ty::F32),
            Some(rf),
            &[Src::Reg(bf)],
        )));
        let mut r = self.cvt(Ty::F64, Ty::F32, None, Src::Reg(rf), RegClass::Float);
        let one = self.fconst(1.0);
        for _ in 0..3 {
            let t = self.f64_alu(Op::Fma, Mods::NEG0, &[b, r, one]);
            r = self.f64_alu(Op::Fma, Mods::NONE, &[r, t, r]);
        }
        let q = self.f64_alu(Op::Mul, Mods::NONE, &[a, r]);
        let rem = self.f64_alu(Op::Fma, Mods::NEG0, &[b, q, a]);
        let q = self.f64_alu(Op::Fma, Mods::NONE, &[rem, r, q]);
        let q = self.f64_alu(Op::Max, Mods::NONE, &[q, one]);
        let top = self.fconst(BELOW_TWO);
        let q = self.f64_alu(Op::Min, Mods::NONE, &[q, top]);

        // The grid: s bits lost to a denormal result (54 or more round to zero alike).
        let s = self.op2(Op::Subr, Ty::B32, Src::Reg(e), Src::Imm(-1022i32 as u32));
        let s = self.clamp_s32(s, 0, 54);
        let shift = self.pow2(s);
        let zero = self.fconst(0.0);
        let normal = self.set_reg(Cond::E, Ty::U32, Src::Reg(s), Src::Imm(0));
        let shift = self.pick64(normal, zero, shift);
        let c = self.f64_alu(Op::Add, Mods::NONE, &[q, shift]);
        let c = self.f64_alu(Op::Add, Mods::NEG1, &[c, shift]);
        let sg = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Imm(-52i32 as u32));
        let g = self.pow2(sg);
        let sg2 = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Imm(-53i32 as u32));
        let g2 = self.pow2(sg2);

        // The exact correction.
        let rem = self.f64_alu(Op::Fma, Mods::NEG0, &[b, c, a]);
        let h = self.f64_alu(Op::Mul, Mods::NONE, &[b, g2]);
        let nh = self.flip_sign64(h);
        let up = self.set_f64(Cond::G, rem, h);
        let tie_up = self.set_f64(Cond::E, rem, h);
        let down = self.set_f64(Cond::L, rem, nh);
        let tie_down = self.set_f64(Cond::E, rem, nh);
        let ng = self.flip_sign64(g);
        let ng2 = self.flip_sign64(g2);
        let d = self.pick64(tie_down, ng2, zero);
        let d = self.pick64(down, ng, d);
        let d = self.pick64(tie_up, g2, d);
        let d = self.pick64(up, g, d);
        let c = self.f64_alu(Op::Add, Mods::NONE, &[c, d]);

        // c·2^E in two steps: the first exact, the second rounding a denormal (a tie to
        // even) or overflowing.
        let e1 = self.clamp_s32(e, -1022, 1023);
        let rest = self.op2(Op::Sub, Ty::B32, Src::Reg(e), Src::Reg(e1));
        let e2 = self.clamp_s32(rest, -60, 1);
        let p1 = self.pow2(e1);
        let p2 = self.pow2(e2);
        let m = self.f64_alu(Op::Mul, Mods::NONE, &[c, p1]);
        let m = self.f64_alu(Op::Mul, Mods::NONE, &[m, p2]);
        let (ml, mh) = self.halves(m);
        let (xl, xh) = self.halves(x);
        let (yl, yh) = self.halves(y);
        let sign = self.op2(Op::Xor, Ty::B32, Src::Reg(xh), Src::Reg(yh));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Imm(0x8000_0000));
        let mh = self.op2(Op::Or, Ty::B32, Src::Reg(mh), Src::Reg(sign));
        let result = self.combine(ml, mh);

        // Zeros and infinities: x · (1/y).
        let (xz, xtop) = self.zero_or_special(xh, xl);
        let (yz, ytop) = self.zero_or_special(yh, yl);
        let inv = Context::mov_imm(self, 0x3ff0_0000);
        let nothing = Context::mov_imm(self, 0);
        let inv = self.blend(ytop, nothing, inv);
        let inf = Context::mov_imm(self, 0x7ff0_0000);
        let inv = self.blend(yz, inf, inv);
        let ys = self.op2(Op::And, Ty::B32, Src::Reg(yh), Src::Imm(0x8000_0000));
        let inv = self.op2(Op::Or, Ty::B32, Src::Reg(inv), Src::Reg(ys));
        let inv = self.combine(nothing, inv);
        let special = self.f64_alu(Op::Mul, Mods::NONE, &[x, inv]);
        let xs = self.op2(Op::Or, Ty::B32, Src::Reg(xz), Src::Reg(xtop));
        let ys = self.op2(Op::Or, Ty::B32, Src::Reg(yz), Src::Reg(ytop));
        let any = self.op2(Op::Or, Ty::B32, Src::Reg(xs), Src::Reg(ys));
        let result = self.pick64(any, special, result);
        let un = self.set_f64(Cond::U, x, y);
        self.nan_where(un, result)
    }

    /// `sqrt` of f64, correctly rounded for every input. A finite positive x is split into
    /// m in [1, 4) and an even exponent 2E; an SFU `rsqrt` estimate of m refined by three
    /// Newton steps gives s within half an ulp and a little of √m, clamped to [1, 2). The
    /// correction is exact: on the lattice of 2^−104 that m − s² lies on (computed with one
    /// monotone rounding), √m > s + u/2 (u = 2^−52) iff m − s² ≥ s·u + 2^−104, and
    /// √m < s − u/2 iff m − s² ≤ −s·u (no ties: the midpoints' squares are not on the
    /// lattice). The result s·2^E is never denormal. ±0 and +∞ are their own roots; a
    /// negative x and a NaN give a NaN.
    pub(super) fn sqrt64(&mut self, x: Reg) -> Reg {
        let (m, e) = self.split64(x);
        let odd = self.op2(Op::And, Ty::B32, Src::Reg(e), Src::Imm(1));
        let odd = self.op2(Op::Subr, Ty::B32, Src::Reg(odd), Src::Imm(0));
        let half_e = self.op2(Op::Shr, Ty::S32, Src::Reg(e), Src::Imm(1));
        let two = self.fconst(2.0);
        let m2 = self.f64_alu(Op::Mul, Mods::NONE, &[m, two]);
        let m = self.pick64(odd, m2, m);

        // 1/√m: the SFU estimate and three Newton steps y += y/2·(1 − m·y²).
        let mf = self.cvt(
            Ty::F32,
            Ty::F64,
            Some(Round::Rn),
            Src::Reg(m),
            RegClass::Int,
        );
        let rf = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Rsqrt,
            Some(Ty::F32),
            Some(rf),
            &[Src::Reg(mf)],
        )));
        let mut r = self.cvt(Ty::F64, Ty::F32, None, Src::Reg(rf), RegClass::Float);
        let one = self.fconst(1.0);
        let half = self.fconst(0.5);
        for _ in 0..3 {
            let p = self.f64_alu(Op::Mul, Mods::NONE, &[m, r]);
            let t = self.f64_alu(Op::Fma, Mods::NEG0, &[p, r, one]);
            let hr = self.f64_alu(Op::Mul, Mods::NONE, &[r, half]);
            r = self.f64_alu(Op::Fma, Mods::NONE, &[hr, t, r]);
        }
        let s = self.f64_alu(Op::Mul, Mods::NONE, &[m, r]);
        let rem = self.f64_alu(Op::Fma, Mods::NEG0, &[s, s, m]);
        let hr = self.f64_alu(Op::Mul, Mods::NONE, &[r, half]);
        let s = self.f64_alu(Op::Fma, Mods::NONE, &[rem, hr, s]);
        let s = self.f64_alu(Op::Max, Mods::NONE, &[s, one]);
        let top = self.fconst(BELOW_TWO);
        let s = self.f64_alu(Op::Min, Mods::NONE, &[s, top]);

        // The exact correction by one ulp u.
        let rem = self.f64_alu(Op::Fma, Mods::NEG0, &[s, s, m]);
        let u = self.fconst(f64::EPSILON);
        let tiny = self.fconst(2f64.powi(-104));
        let su = self.f64_alu(Op::Mul, Mods::NONE, &[s, u]);
        let above = self.f64_alu(Op::Fma, Mods::NONE, &[s, u, tiny]);
        let nsu = self.flip_sign64(su);
        let up = self.set_f64(Cond::Ge, rem, above);
        let down = self.set_f64(Cond::Le, rem, nsu);
        let zero = self.fconst(0.0);
        let nu = self.flip_sign64(u);
        let d = self.pick64(down, nu, zero);
        let d = self.pick64(up, u, d);
        let s = self.f64_alu(Op::Add, Mods::NONE, &[s, d]);
        let p = self.pow2(half_e);
        let result = self.f64_alu(Op::Mul, Mods::NONE, &[s, p]);

        // ±0, +∞ and NaN are their own roots; below zero a NaN.
        let (xl, xh) = self.halves(x);
        let (xz, xtop) = self.zero_or_special(xh, xl);
        let neg = self.op2(Op::Shr, Ty::S32, Src::Reg(xh), Src::Imm(31));
        let any = self.op2(Op::Or, Ty::B32, Src::Reg(xz), Src::Reg(xtop));
        let any = self.op2(Op::Or, Ty::B32, Src::Reg(any), Src::Reg(neg));
        let result = self.pick64(any, x, result);
        let below = self.set_f64(Cond::L, x, zero);
        self.nan_where(below, result)
    }
}

impl IsleContext<'_, '_> {
    /// An f32 value as an f64 (exact, denormals kept).
    fn promote(&mut self, x: Value) -> Reg {
        let x = Context::put_in_src(self, x);
        self.cvt(Ty::F64, Ty::F32, None, x, RegClass::Float)
    }

    /// `x + y` of f32 registers, exact on every variant: `fadd`'s lowering
    /// ([`Self::f32_via_f64`]) on registers.
    pub(super) fn fadd32(&mut self, x: Reg, y: Reg) -> Reg {
        if self.backend.variant < Variant::G200 {
            return self.fadd32_g80(false, x, y);
        }
        let a = self.cvt(Ty::F64, Ty::F32, None, Src::Reg(x), RegClass::Float);
        let b = self.cvt(Ty::F64, Ty::F32, None, Src::Reg(y), RegClass::Float);
        let r = self.f64_alu(Op::Add, Mods::NONE, &[a, b]);
        self.demote(r)
    }

    fn demote(&mut self, x: Reg) -> Reg {
        self.cvt(
            Ty::F32,
            Ty::F64,
            Some(Round::Rn),
            Src::Reg(x),
            RegClass::Int,
        )
    }

    /// `fadd`, `fsub`, `fmul`, `fdiv`, `sqrt` (`y` unused) of f32 on GT200: the operation
    /// in f64, correctly rounded, then rounded to f32. Exact for every input: the f64 unit
    /// keeps f32 denormals, and rounding twice is innocuous for these operations because
    /// 53 ≥ 2·24 + 2 (Figueroa, "When is double rounding innocuous?", 1995).
    pub(super) fn f32_via_f64(&mut self, opcode: Opcode, x: Value, y: Value) -> Reg {
        if self.backend.variant < Variant::G200 {
            match opcode {
                Opcode::Fadd | Opcode::Fsub => {
                    let x = Context::put_in_reg(self, x);
                    let y = Context::put_in_reg(self, y);
                    return self.fadd32_g80(opcode == Opcode::Fsub, x, y);
                }
                Opcode::Fmul => return self.fmul32_g80(x, y),
                Opcode::Fdiv => return self.fdiv32_g80(x, y),
                Opcode::Sqrt => return self.sqrt32_g80(x),
                _ => {}
            }
        }
        let a = self.promote(x);
        let r = match opcode {
            Opcode::Sqrt => self.sqrt64(a),
            _ => {
                let b = self.promote(y);
                match opcode {
                    Opcode::Fadd => self.f64_alu(Op::Add, Mods::NONE, &[a, b]),
                    Opcode::Fsub => self.f64_alu(Op::Add, Mods::NEG1, &[a, b]),
                    Opcode::Fmul => self.f64_alu(Op::Mul, Mods::NONE, &[a, b]),
                    _ => self.fdiv64(a, b),
                }
            }
        };
        self.demote(r)
    }

    /// `fma` of f32 on GT200: the product is exact in f64; the sum is rounded to odd
    /// (round to nearest, then, where that was inexact and gave an even significand, the
    /// neighbour on the far side of the exact sum, the error coming from Knuth's TwoSum),
    /// which makes the final rounding to f32 correct (Boldo and Melquiond, "Emulation of
    /// FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008).
    pub(super) fn fma32(&mut self, x: Value, y: Value, z: Value) -> Reg {
        if self.backend.variant < Variant::G200 {
            return self.fma32_g80(x, y, z);
        }
        let a = self.promote(x);
        let b = self.promote(y);
        let c = self.promote(z);
        let p = self.f64_alu(Op::Mul, Mods::NONE, &[a, b]);
        let s = self.f64_alu(Op::Add, Mods::NONE, &[p, c]);
        // TwoSum: e = (p + c) − s exactly.
        let c1 = self.f64_alu(Op::Add, Mods::NEG1, &[s, p]);
        let p1 = self.f64_alu(Op::Add, Mods::NEG1, &[s, c1]);
        let dp = self.f64_alu(Op::Add, Mods::NEG1, &[p, p1]);
        let dc = self.f64_alu(Op::Add, Mods::NEG1, &[c, c1]);
        let e = self.f64_alu(Op::Add, Mods::NONE, &[dp, dc]);
        // Inexact (a NaN error, from an infinite sum, is not) and even: one step in the
        // bits, up in magnitude where the error has the sum's sign.
        let zero = self.fconst(0.0);
        let inexact = self.set_f64(Cond::Lg, e, zero);
        let (sl, sh) = self.halves(s);
        let odd = self.op2(Op::And, Ty::B32, Src::Reg(sl), Src::Imm(1));
        let even = self.set_reg(Cond::E, Ty::U32, Src::Reg(odd), Src::Imm(0));
        let step = self.op2(Op::And, Ty::B32, Src::Reg(inexact), Src::Reg(even));
        let eh = self.op2(Op::Xor, Ty::B32, Src::Half(e, true), Src::Reg(sh));
        let down = self.op2(Op::Shr, Ty::S32, Src::Reg(eh), Src::Imm(31));
        // step ? (down ? −1 : +1) : 0, as a 64-bit addend of sign `down`.
        let delta = self.op2(Op::Or, Ty::B32, Src::Reg(down), Src::Imm(1));
        let delta = self.op2(Op::And, Ty::B32, Src::Reg(delta), Src::Reg(step));
        let delta_hi = self.op2(Op::And, Ty::B32, Src::Reg(down), Src::Reg(step));
        let (lo, carry) = self.add_carry(Op::Add, Src::Reg(sl), Src::Reg(delta), None);
        let hi = self.addc(Src::Reg(sh), Src::Reg(delta_hi), carry);
        let odd_sum = self.combine(lo, hi);
        self.demote(odd_sum)
    }
}
