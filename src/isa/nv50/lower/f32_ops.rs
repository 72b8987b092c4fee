//! f32 operations of the NV50 lowering that give CLIF's exact results on every Tesla.
//!
//! Tesla's f32 unit flushes denormal inputs and results and ignores a NaN operand of
//! `min`/`max` (`docs/targets.md`, "What differs between them"), so comparisons, `fmin`,
//! `fmax`, `floor` and `ceil` are computed on the bits with integer instructions, which see
//! denormals and NaNs as they are. Conversions use `cvt`, whose integer side is exact.
//! `fadd`, `fsub`, `fmul` and `sqrt` on G80–G98 use the f32 unit only where flushing cannot change
//! the result, or on normalised operands; `fdiv` and `fma` there work on the significands in
//! integers, and so do the conversions between f32 and i64 (G80–G98 have no 64-bit `cvt`);
//! GT200 computes f32 arithmetic in f64 (`f64_ops.rs`).

use super::IsleContext;
use super::isle::generated::Context;
use crate::ir::condcodes::FloatCC;
use crate::ir::{self, Value};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Mods, Op, Round, Ty};
use crate::machinst::{Reg, RegClass};

/// The quiet NaN CLIF's NaN-producing operations give here (any NaN is allowed).
const NAN: u32 = 0x7fc0_0000;
const INFINITY: u32 = 0x7f80_0000;

impl IsleContext<'_, '_> {
    /// −1 where the f32 `x` is a NaN (its magnitude above infinity's bits), else 0.
    pub(super) fn is_nan(&mut self, x: Reg) -> Reg {
        let m = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        self.set_reg(Cond::G, Ty::U32, Src::Reg(m), Src::Imm(INFINITY))
    }

    /// An integer that orders non-NaN f32 values as numbers, with −0 = +0: the magnitude,
    /// negated for a negative value.
    fn order_key(&mut self, x: Reg) -> Reg {
        let m = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let s = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
        let t = self.op2(Op::Xor, Ty::B32, Src::Reg(m), Src::Reg(s));
        self.op2(Op::Sub, Ty::B32, Src::Reg(t), Src::Reg(s))
    }

    /// A total-order key (−0 below +0) that is its own inverse: a negative value's
    /// magnitude bits flipped.
    fn total_key(&mut self, x: Reg) -> Reg {
        let s = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(s), Src::Imm(1));
        self.op2(Op::Xor, Ty::B32, Src::Reg(x), Src::Reg(t))
    }

    /// `fcmp cc` of f32: the order of the keys, and the unordered case from the NaN tests.
    pub(super) fn fcmp32(&mut self, cc: FloatCC, x: Value, y: Value) -> Reg {
        use FloatCC::*;
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let nx = self.is_nan(x);
        let ny = self.is_nan(y);
        let un = self.op2(Op::Or, Ty::B32, Src::Reg(nx), Src::Reg(ny));
        let (cmp, or_unordered) = match cc {
            Ordered => (None, false),
            Unordered => (None, true),
            Equal => (Some(Cond::E), false),
            OrderedNotEqual => (Some(Cond::Lg), false),
            LessThan => (Some(Cond::L), false),
            LessThanOrEqual => (Some(Cond::Le), false),
            GreaterThan => (Some(Cond::G), false),
            GreaterThanOrEqual => (Some(Cond::Ge), false),
            NotEqual => (Some(Cond::Lg), true),
            UnorderedOrEqual => (Some(Cond::E), true),
            UnorderedOrLessThan => (Some(Cond::L), true),
            UnorderedOrLessThanOrEqual => (Some(Cond::Le), true),
            UnorderedOrGreaterThan => (Some(Cond::G), true),
            UnorderedOrGreaterThanOrEqual => (Some(Cond::Ge), true),
        };
        let r = match cmp {
            None if or_unordered => un,
            None => Context::logic(self, &Op::Xor, Src::Reg(un), Src::Imm(0), true, false),
            Some(cmp) => {
                let kx = self.order_key(x);
                let ky = self.order_key(y);
                let rel = self.set_reg(cmp, Ty::S32, Src::Reg(kx), Src::Reg(ky));
                if or_unordered {
                    self.op2(Op::Or, Ty::B32, Src::Reg(rel), Src::Reg(un))
                } else {
                    Context::logic(self, &Op::And, Src::Reg(rel), Src::Reg(un), false, true)
                }
            }
        };
        self.op2(Op::And, Ty::B32, Src::Reg(r), Src::Imm(1))
    }

    /// `fmin`/`fmax` of f32: the smaller (larger) total-order key, −0 below +0, and a NaN
    /// where either operand is one, as CLIF requires.
    pub(super) fn fminmax32(&mut self, max: bool, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        self.fminmax32_regs(max, x, y)
    }

    /// [`Self::fminmax32`] of two registers.
    pub(super) fn fminmax32_regs(&mut self, max: bool, x: Reg, y: Reg) -> Reg {
        let kx = self.total_key(x);
        let ky = self.total_key(y);
        let op = if max { Op::Max } else { Op::Min };
        let k = self.op2(op, Ty::S32, Src::Reg(kx), Src::Reg(ky));
        let r = self.total_key(k);
        let nx = self.is_nan(x);
        let ny = self.is_nan(y);
        let un = self.op2(Op::Or, Ty::B32, Src::Reg(nx), Src::Reg(ny));
        let r = Context::logic(self, &Op::And, Src::Reg(r), Src::Reg(un), false, true);
        let nan = self.op2(Op::And, Ty::B32, Src::Reg(un), Src::Imm(NAN));
        self.op2(Op::Or, Ty::B32, Src::Reg(r), Src::Reg(nan))
    }

    /// `floor`, `ceil`, `trunc`, `nearest` of f32: `cvt` to an integral value, which reads
    /// a denormal as a zero of its sign. That is the right result of `trunc` and `nearest`
    /// and of `floor` (`ceil`) of a positive (negative) denormal; the other sign gets −1
    /// (+1), patched in from the bits.
    pub(super) fn round32(&mut self, round: Round, x: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let r = self.cvt(Ty::F32, Ty::F32, Some(round), Src::Reg(x), RegClass::Int);
        let (zero, one) = match round {
            Round::Rmi => (0x8000_0000u32, 0xbf80_0000u32),
            Round::Rpi => (0, 0x3f80_0000),
            _ => return r,
        };
        // A denormal of that sign: its bits are above the signed zero's and below the
        // smallest normal's.
        let above = self.set_reg(Cond::G, Ty::U32, Src::Reg(x), Src::Imm(zero));
        let below = self.set_reg(Cond::L, Ty::U32, Src::Reg(x), Src::Imm(zero | 0x0080_0000));
        let denormal = self.op2(Op::And, Ty::B32, Src::Reg(above), Src::Reg(below));
        let one = Context::mov_imm(self, one);
        self.blend(denormal, one, r)
    }

    /// `fcvt_from_uint`/`fcvt_from_sint` of i8–i32 to f32: `cvt rn`, exact but for the
    /// rounding it should do.
    pub(super) fn int_to_f32(&mut self, signed: bool, x: Value) -> Reg {
        let ty = self.lower.dfg().value_type(x);
        let (src, sty) = if signed {
            (Context::sext(self, ty, x), Ty::S32)
        } else {
            (Context::zext(self, ty, x), Ty::U32)
        };
        self.cvt(Ty::F32, sty, Some(Round::Rn), src, RegClass::Int)
    }

    /// `fcvt_to_uint`/`fcvt_to_sint` (and their `_sat` forms: a GPU cannot trap, `docs/ir.md`)
    /// of f32 to i8–i32: `cvt rzi` truncates, saturates to 32 bits and gives 0 for NaN; the
    /// narrow types clamp after.
    pub(super) fn f32_to_int(&mut self, signed: bool, ty: ir::Type, x: Value) -> Reg {
        let dty = if signed { Ty::S32 } else { Ty::U32 };
        let x = Context::put_in_src(self, x);
        let r = self.cvt(dty, Ty::F32, Some(Round::Rzi), x, RegClass::Int);
        self.clamp_narrow(signed, ty, r)
    }

    /// A truncated conversion's 32-bit result clamped to `ty` (i8–i32; i32 as it is).
    pub(super) fn clamp_narrow(&mut self, signed: bool, ty: ir::Type, r: Reg) -> Reg {
        let bits = ty.bits();
        if bits == 32 {
            return r;
        }
        if signed {
            let lo = self.op2(
                Op::Max,
                Ty::S32,
                Src::Reg(r),
                Src::Imm((-1i32 << (bits - 1)) as u32),
            );
            self.op2(
                Op::Min,
                Ty::S32,
                Src::Reg(lo),
                Src::Imm((1 << (bits - 1)) - 1),
            )
        } else {
            self.op2(Op::Min, Ty::U32, Src::Reg(r), Src::Imm((1 << bits) - 1))
        }
    }
}

/// 2^−100 as f32 bits: from this magnitude on, the f32 unit's `add` is exact (below).
const ADD_EXACT_FROM: u32 = 27 << 23;
/// 64 in the exponent field: the scaling of small operands.
const SCALE_64: u32 = 64 << 23;
/// 2^−85 and 2^85 as f32 bits.
const POW2_M85: u32 = (127 - 85) << 23;
const POW2_85: u32 = (127 + 85) << 23;

impl IsleContext<'_, '_> {
    /// `add`/`mul f32` rounding to nearest even.
    fn f32_alu(&mut self, op: Op, a: Src, b: Src) -> Reg {
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(op, Some(Ty::F32), Some(dst), &[a, b]);
        alu.round = Some(Round::Rn);
        self.emit_legal(alu);
        dst
    }

    /// x·2^64 for a finite f32 x below 2^−100 in magnitude, exactly, as a normal value (or
    /// a zero): the exponent field raised by 64, or for a magnitude below 2^−125 (whose
    /// bits are its integer multiple of 2^−149) that integer converted and scaled by 2^−85.
    fn scale_up_64(&mut self, x: Reg) -> Reg {
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x8000_0000));
        let n = self.cvt(
            Ty::F32,
            Ty::U32,
            Some(Round::Rn),
            Src::Reg(mag),
            RegClass::Int,
        );
        let tiny = self.f32_alu(Op::Mul, Src::Reg(n), Src::Imm(POW2_M85));
        let tiny = self.op2(Op::Or, Ty::B32, Src::Reg(tiny), Src::Reg(sign));
        let raised = self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Imm(SCALE_64));
        let low = self.set_reg(Cond::L, Ty::U32, Src::Reg(mag), Src::Imm(0x0100_0000));
        self.blend(low, tiny, raised)
    }

    /// r·2^−64 for an f32 r whose scaled value is exactly representable (a denormal
    /// included): the exponent field lowered by 64, or for a denormal result its integer
    /// multiple of 2^−149, from r·2^85 (exact) by `cvt`.
    fn scale_down_64(&mut self, r: Reg) -> Reg {
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(r), Src::Imm(0x7fff_ffff));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(r), Src::Imm(0x8000_0000));
        let t = self.f32_alu(Op::Mul, Src::Reg(mag), Src::Imm(POW2_85));
        let n = self.cvt(
            Ty::U32,
            Ty::F32,
            Some(Round::Rzi),
            Src::Reg(t),
            RegClass::Int,
        );
        let tiny = self.op2(Op::Or, Ty::B32, Src::Reg(n), Src::Reg(sign));
        let lowered = self.op2(Op::Sub, Ty::B32, Src::Reg(r), Src::Imm(SCALE_64));
        let normal = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(mag), Src::Imm(65 << 23));
        self.blend(normal, lowered, tiny)
    }

    /// `fadd`/`fsub` of f32 on G80–G98, exact. The f32 unit is IEEE-exact where it sees no
    /// denormal input and gives no denormal result. With an operand of magnitude 2^−100 or
    /// more that holds: a denormal other operand is below half an ulp of it, so reading it
    /// as zero changes nothing, and a cancelling sum is a non-zero multiple of 2^−124 or
    /// zero. Below that both operands are scaled by 2^64 (exactly, denormals too), added,
    /// and scaled back: the sum of values that small is either normal, and then its
    /// rounding is the same at either scale, or an exact denormal.
    pub(super) fn fadd32_g80(&mut self, sub: bool, x: Reg, y: Reg) -> Reg {
        let y = if sub {
            self.op2(Op::Xor, Ty::B32, Src::Reg(y), Src::Imm(0x8000_0000))
        } else {
            y
        };
        let fast = self.f32_alu(Op::Add, Src::Reg(x), Src::Reg(y));
        let mx = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let my = self.op2(Op::And, Ty::B32, Src::Reg(y), Src::Imm(0x7fff_ffff));
        let m = self.op2(Op::Max, Ty::U32, Src::Reg(mx), Src::Reg(my));
        let large = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(m), Src::Imm(ADD_EXACT_FROM));
        let xs = self.scale_up_64(x);
        let ys = self.scale_up_64(y);
        let s = self.f32_alu(Op::Add, Src::Reg(xs), Src::Reg(ys));
        let slow = self.scale_down_64(s);
        self.blend(large, fast, slow)
    }
}

/// 4097 = 2^12 + 1 as f32 bits: Veltkamp's factor splitting a 24-bit significand in halves.
const VELTKAMP: u32 = 0x4580_1000;

impl IsleContext<'_, '_> {
    /// `a − b` in f32, rounded to nearest even.
    fn f32_sub(&mut self, a: Reg, b: Reg) -> Reg {
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(
            Op::Add,
            Some(Ty::F32),
            Some(dst),
            &[Src::Reg(a), Src::Reg(b)],
        );
        alu.round = Some(Round::Rn);
        alu.mods = Mods::NEG1;
        self.emit(Inst::Alu(alu));
        dst
    }

    /// A finite non-zero f32 as (m, e): m in [1, 2) and |x| = m·2^e, a denormal through
    /// `cvt` of its integer multiple of 2^−149 (exact below 2^24).
    fn split32(&mut self, x: Reg) -> (Reg, Reg) {
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let n = self.cvt(
            Ty::F32,
            Ty::U32,
            Some(Round::Rn),
            Src::Reg(mag),
            RegClass::Int,
        );
        let den = self.set_reg(Cond::L, Ty::U32, Src::Reg(mag), Src::Imm(0x0080_0000));
        let v = self.blend(den, n, mag);
        let field = self.op2(Op::Shr, Ty::U32, Src::Reg(v), Src::Imm(23));
        let bias = self.op2(Op::And, Ty::B32, Src::Reg(den), Src::Imm(149));
        let bias = self.op2(Op::Add, Ty::B32, Src::Reg(bias), Src::Imm(127));
        let e = self.op2(Op::Sub, Ty::B32, Src::Reg(field), Src::Reg(bias));
        let m = self.op2(Op::And, Ty::B32, Src::Reg(v), Src::Imm(0x007f_ffff));
        let m = self.op2(Op::Or, Ty::B32, Src::Reg(m), Src::Imm(0x3f80_0000));
        (m, e)
    }

    /// Veltkamp's split of an f32 in [1, 2) into 12-bit halves (hi, lo), hi + lo exact.
    fn veltkamp(&mut self, v: Reg) -> (Reg, Reg) {
        let t = self.f32_alu(Op::Mul, Src::Reg(v), Src::Imm(VELTKAMP));
        let d = self.f32_sub(t, v);
        let hi = self.f32_sub(t, d);
        (hi, self.f32_sub(v, hi))
    }

    /// `fmul` of f32 on G80–G98, exact. Finite non-zero operands are split into
    /// significands in [1, 2) and exponents; the f32 unit's product p of the significands
    /// is CLIF's where the result is normal (the exponents added in the bits) and gives
    /// infinity above. For a denormal result p's 24-bit significand is shifted right by the
    /// bits lost and rounded to nearest even in integers, a tie broken by the sign of the
    /// exact error x·y − p (Dekker's product on Veltkamp halves: every term exact). Zeros,
    /// infinities and NaN take the unit's product with a denormal operand read as ±1
    /// (the unit would read it as zero, and ∞ · denormal is ∞).
    pub(super) fn fmul32_g80(&mut self, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let (mx, ex) = self.split32(x);
        let (my, ey) = self.split32(y);
        let p = self.f32_alu(Op::Mul, Src::Reg(mx), Src::Reg(my));
        let (xh, xl) = self.veltkamp(mx);
        let (yh, yl) = self.veltkamp(my);
        let hh = self.f32_alu(Op::Mul, Src::Reg(xh), Src::Reg(yh));
        let mut err = self.f32_sub(hh, p);
        for (a, b) in [(xh, yl), (xl, yh), (xl, yl)] {
            let t = self.f32_alu(Op::Mul, Src::Reg(a), Src::Reg(b));
            err = self.f32_alu(Op::Add, Src::Reg(err), Src::Reg(t));
        }

        // The result's exponent F: p's (0 or 1) plus the operands'.
        let e = self.op2(Op::Add, Ty::B32, Src::Reg(ex), Src::Reg(ey));
        let pf = self.op2(Op::Shr, Ty::U32, Src::Reg(p), Src::Imm(23));
        let f = self.op2(Op::Add, Ty::B32, Src::Reg(pf), Src::Reg(e));
        let f = self.op2(Op::Add, Ty::B32, Src::Reg(f), Src::Imm(-127i32 as u32));
        let shifted = self.op2(Op::Shl, Ty::B32, Src::Reg(e), Src::Imm(23));
        let normal = self.op2(Op::Add, Ty::B32, Src::Reg(p), Src::Reg(shifted));
        let inf = Context::mov_imm(self, INFINITY);
        let over = self.set_reg(Cond::Ge, Ty::S32, Src::Reg(f), Src::Imm(128));
        let normal = self.blend(over, inf, normal);

        // A denormal result: s bits of P lost, rounded to nearest even.
        let s = self.op2(Op::Subr, Ty::B32, Src::Reg(f), Src::Imm(-126i32 as u32));
        let s = self.op2(Op::Max, Ty::S32, Src::Reg(s), Src::Imm(1));
        let s = self.op2(Op::Min, Ty::S32, Src::Reg(s), Src::Imm(30));
        let big_p = self.op2(Op::And, Ty::B32, Src::Reg(p), Src::Imm(0x007f_ffff));
        let big_p = self.op2(Op::Or, Ty::B32, Src::Reg(big_p), Src::Imm(0x0080_0000));
        let q = self.op2(Op::Shr, Ty::U32, Src::Reg(big_p), Src::Reg(s));
        let back = self.op2(Op::Shl, Ty::B32, Src::Reg(q), Src::Reg(s));
        let rem = self.op2(Op::Sub, Ty::B32, Src::Reg(big_p), Src::Reg(back));
        let s1 = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Imm(-1i32 as u32));
        let one = Context::mov_imm(self, 1);
        let half = self.op2(Op::Shl, Ty::B32, Src::Reg(one), Src::Reg(s1));
        let above = self.set_reg(Cond::G, Ty::U32, Src::Reg(rem), Src::Reg(half));
        let tie = self.set_reg(Cond::E, Ty::U32, Src::Reg(rem), Src::Reg(half));
        // A tie of p is one of x·y only where the error is zero: then to even, else
        // toward the error.
        let err_mag = self.op2(Op::And, Ty::B32, Src::Reg(err), Src::Imm(0x7fff_ffff));
        let inexact = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(err_mag), Src::Imm(0));
        let err_up = self.set_reg(Cond::L, Ty::S32, Src::Reg(err), Src::Imm(0));
        let err_up = Context::logic(self, &Op::Xor, Src::Reg(err_up), Src::Imm(0), true, false);
        let odd = self.op2(Op::And, Ty::B32, Src::Reg(q), Src::Imm(1));
        let odd = self.op2(Op::Subr, Ty::B32, Src::Reg(odd), Src::Imm(0));
        let tie_up = self.blend(inexact, err_up, odd);
        let tie_up = self.op2(Op::And, Ty::B32, Src::Reg(tie), Src::Reg(tie_up));
        let up = self.op2(Op::Or, Ty::B32, Src::Reg(above), Src::Reg(tie_up));
        let tiny = self.op2(Op::Sub, Ty::B32, Src::Reg(q), Src::Reg(up));
        let is_tiny = self.set_reg(Cond::L, Ty::S32, Src::Reg(f), Src::Imm(-126i32 as u32));
        let mag = self.blend(is_tiny, tiny, normal);
        let sign = self.op2(Op::Xor, Ty::B32, Src::Reg(x), Src::Reg(y));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Imm(0x8000_0000));
        let result = self.op2(Op::Or, Ty::B32, Src::Reg(mag), Src::Reg(sign));

        // Zeros, infinities, NaN.
        let mut any_special = None;
        let mut operands = [x, y];
        for v in operands.iter_mut() {
            let mag = self.op2(Op::And, Ty::B32, Src::Reg(*v), Src::Imm(0x7fff_ffff));
            let zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(mag), Src::Imm(0));
            let top = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(mag), Src::Imm(INFINITY));
            let special = self.op2(Op::Or, Ty::B32, Src::Reg(zero), Src::Reg(top));
            any_special = Some(match any_special {
                None => special,
                Some(a) => self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(special)),
            });
            let den = self.set_reg(Cond::L, Ty::U32, Src::Reg(mag), Src::Imm(0x0080_0000));
            let den = Context::logic(self, &Op::And, Src::Reg(den), Src::Reg(zero), false, true);
            let vs = self.op2(Op::And, Ty::B32, Src::Reg(*v), Src::Imm(0x8000_0000));
            let unit = self.op2(Op::Or, Ty::B32, Src::Reg(vs), Src::Imm(0x3f80_0000));
            *v = self.blend(den, unit, *v);
        }
        let special = self.f32_alu(Op::Mul, Src::Reg(operands[0]), Src::Reg(operands[1]));
        let any_special = any_special.expect("two operands");
        self.blend(any_special, special, result)
    }
}

impl IsleContext<'_, '_> {
    /// `m − s·s` for f32 `m` in [1, 4) and `s` in [1, 2), rounded once: Dekker's product
    /// s·s = p + e on Veltkamp halves (every term exact), m − p exact (Sterbenz), then
    /// one rounding of (m − p) − e.
    fn sqrt_remainder(&mut self, m: Reg, s: Reg) -> Reg {
        let p = self.f32_alu(Op::Mul, Src::Reg(s), Src::Reg(s));
        let (h, l) = self.veltkamp(s);
        let hh = self.f32_alu(Op::Mul, Src::Reg(h), Src::Reg(h));
        let mut err = self.f32_sub(hh, p);
        for (a, b) in [(h, l), (l, h), (l, l)] {
            let t = self.f32_alu(Op::Mul, Src::Reg(a), Src::Reg(b));
            err = self.f32_alu(Op::Add, Src::Reg(err), Src::Reg(t));
        }
        let d = self.f32_sub(m, p);
        self.f32_sub(d, err)
    }

    /// `sqrt` of f32 on G80–G98, correctly rounded. A finite positive x is split into m in
    /// [1, 4) and an even exponent 2E; s = m·rsqrt(m) is refined once by the remainder
    /// (s += (m − s²)·rsqrt(m)/2) to within half an ulp and a little, clamped to [1, 2),
    /// and corrected exactly: m − s² lies on the lattice of 2^−46, so with u = 2^−23,
    /// √m > s + u/2 iff m − s² ≥ s·u + 2^−46 and √m < s − u/2 iff m − s² ≤ −s·u, which a
    /// once-rounded remainder decides as well as the exact one (both bounds are f32
    /// values). The root s·2^E is normal: E is added in the bits. ±0, +∞ and NaN are their
    /// own roots; a negative x gives a NaN.
    pub(super) fn sqrt32_g80(&mut self, x: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let (m, e) = self.split32(x);
        let odd = self.op2(Op::And, Ty::B32, Src::Reg(e), Src::Imm(1));
        let raised = self.op2(Op::Shl, Ty::B32, Src::Reg(odd), Src::Imm(23));
        let m = self.op2(Op::Add, Ty::B32, Src::Reg(m), Src::Reg(raised));
        let half_e = self.op2(Op::Shr, Ty::S32, Src::Reg(e), Src::Imm(1));

        let y = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Rsqrt,
            Some(Ty::F32),
            Some(y),
            &[Src::Reg(m)],
        )));
        let s = self.f32_alu(Op::Mul, Src::Reg(m), Src::Reg(y));
        let r = self.sqrt_remainder(m, s);
        let h = self.f32_alu(Op::Mul, Src::Reg(y), Src::Imm(0x3f00_0000));
        let t = self.f32_alu(Op::Mul, Src::Reg(r), Src::Reg(h));
        let s = self.f32_alu(Op::Add, Src::Reg(s), Src::Reg(t));
        // Clamp to [1, 2) on the bits (positive values order as integers).
        let s = self.op2(Op::Max, Ty::U32, Src::Reg(s), Src::Imm(0x3f80_0000));
        let s = self.op2(Op::Min, Ty::U32, Src::Reg(s), Src::Imm(0x3fff_ffff));

        let r = self.sqrt_remainder(m, s);
        let su = self.op2(
            Op::Add,
            Ty::B32,
            Src::Reg(s),
            Src::Imm((-23i32 << 23) as u32),
        );
        let tiny = Context::mov_imm(self, (127 - 46) << 23);
        let above = self.f32_alu(Op::Add, Src::Reg(su), Src::Reg(tiny));
        let up = self.set_float(Cond::Ge, r, above);
        let nsu = self.op2(Op::Xor, Ty::B32, Src::Reg(su), Src::Imm(0x8000_0000));
        let down = self.set_float(Cond::Le, r, nsu);
        // One step in the bits: +1, −1 or 0.
        let step = self.op2(Op::Sub, Ty::B32, Src::Reg(down), Src::Reg(up));
        let s = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Reg(step));
        let shifted = self.op2(Op::Shl, Ty::B32, Src::Reg(half_e), Src::Imm(23));
        let result = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Reg(shifted));

        // ±0, +∞, NaN: x itself; below zero: NaN.
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(mag), Src::Imm(0));
        let top = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(mag), Src::Imm(INFINITY));
        let special = self.op2(Op::Or, Ty::B32, Src::Reg(zero), Src::Reg(top));
        let result = self.blend(special, x, result);
        let neg = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
        let neg = Context::logic(self, &Op::And, Src::Reg(neg), Src::Reg(zero), false, true);
        let nan = Context::mov_imm(self, NAN);
        self.blend(neg, nan, result)
    }

    /// `set cmp f32` into a register: −1 where `cmp` holds (the operands are normal or
    /// zero here, which the unit compares exactly), else 0.
    fn set_float(&mut self, cmp: Cond, a: Reg, b: Reg) -> Reg {
        self.set_reg(cmp, Ty::F32, Src::Reg(a), Src::Reg(b))
    }
}

impl IsleContext<'_, '_> {
    /// The f32 magnitude bits nearest (ties to even) to (m + δ)·2^(e − 30), where m has its
    /// leading bit at bit 30 (or is zero), δ in [0, 1) is nonzero exactly where m's bit 0
    /// is set (a sticky bit jammed in, below every rounding position used), and e is at
    /// most 276; infinity above the largest f32. The significand keeps 24 bits (s = 7 lost)
    /// for a normal result and fewer for a denormal one (s = −119 − e, at most 31: below
    /// e = −150 the value is under a quarter of the smallest denormal and rounds to 0).
    /// The rounded q carries into the exponent field by itself.
    fn round_to_f32(&mut self, e: Reg, m: Reg) -> Reg {
        let s = self.op2(Op::Subr, Ty::B32, Src::Reg(e), Src::Imm(-119i32 as u32));
        let s = self.op2(Op::Max, Ty::S32, Src::Reg(s), Src::Imm(7));
        let s = self.op2(Op::Min, Ty::S32, Src::Reg(s), Src::Imm(31));
        let gone = self.set_reg(Cond::L, Ty::S32, Src::Reg(e), Src::Imm(-150i32 as u32));
        let m = Context::logic(self, &Op::And, Src::Reg(m), Src::Reg(gone), false, true);
        let q = self.op2(Op::Shr, Ty::U32, Src::Reg(m), Src::Reg(s));
        let back = self.op2(Op::Shl, Ty::B32, Src::Reg(q), Src::Reg(s));
        let rem = self.op2(Op::Sub, Ty::B32, Src::Reg(m), Src::Reg(back));
        let s1 = self.op2(Op::Add, Ty::B32, Src::Reg(s), Src::Imm(-1i32 as u32));
        let one = Context::mov_imm(self, 1);
        let half = self.op2(Op::Shl, Ty::B32, Src::Reg(one), Src::Reg(s1));
        let above = self.set_reg(Cond::G, Ty::U32, Src::Reg(rem), Src::Reg(half));
        let tie = self.set_reg(Cond::E, Ty::U32, Src::Reg(rem), Src::Reg(half));
        let odd = self.op2(Op::And, Ty::B32, Src::Reg(q), Src::Imm(1));
        let odd = self.op2(Op::Subr, Ty::B32, Src::Reg(odd), Src::Imm(0));
        let tie_up = self.op2(Op::And, Ty::B32, Src::Reg(tie), Src::Reg(odd));
        let up = self.op2(Op::Or, Ty::B32, Src::Reg(above), Src::Reg(tie_up));
        // The exponent field below q's leading bit (bit 23 of a normal q): e + 126, or 0
        // for a denormal.
        let field = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Imm(126));
        let field = self.op2(Op::Max, Ty::S32, Src::Reg(field), Src::Imm(0));
        let field = self.op2(Op::Shl, Ty::B32, Src::Reg(field), Src::Imm(23));
        let bits = self.op2(Op::Add, Ty::B32, Src::Reg(field), Src::Reg(q));
        let bits = self.op2(Op::Sub, Ty::B32, Src::Reg(bits), Src::Reg(up));
        self.op2(Op::Min, Ty::U32, Src::Reg(bits), Src::Imm(INFINITY))
    }

    /// −1 where the f32 `x` is ±0, ±∞ or a NaN, else 0; and x's magnitude bits.
    fn zero_or_special32(&mut self, x: Reg) -> (Reg, Reg) {
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let nonzero = self.op2(Op::Add, Ty::B32, Src::Reg(mag), Src::Imm(-1i32 as u32));
        // mag − 1 ≥ ∞ − 1 (unsigned) for 0 (wrapped), ∞ and the NaNs.
        let special = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(nonzero), Src::Imm(INFINITY - 1));
        (special, mag)
    }

    /// `fdiv` of f32 on G80–G98, correctly rounded, in integers. Finite non-zero operands
    /// are split into 24-bit significands A, B and exponents (denormals normalised by
    /// `split32`); A is doubled where A < B so the quotient lies in [1, 2); restoring
    /// division gives its first 25 bits, one per step (the carry of r − B is the bit, and
    /// keeps r − B), and the remainder's being non-zero is the sticky bit, so the rounding
    /// of `round_to_f32` is the exact quotient's, denormal results and ties included.
    /// No SFU: nothing depends on an estimate's accuracy. ±0, ±∞ and NaN operands take
    /// IEEE's rules on the bits: NaN for NaN, 0/0 and ∞/∞, ∞ for ∞/y and x/0, else 0.
    pub(super) fn fdiv32_g80(&mut self, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let (mx, ex) = self.split32(x);
        let (my, ey) = self.split32(y);
        // The significands as integers: [1, 2)'s bits less 1.0's exponent field, plus 2^23.
        let a = self.op2(Op::Add, Ty::B32, Src::Reg(mx), Src::Imm(0xc100_0000));
        let b = self.op2(Op::Add, Ty::B32, Src::Reg(my), Src::Imm(0xc100_0000));
        let lt = self.set_reg(Cond::L, Ty::U32, Src::Reg(a), Src::Reg(b));
        let a_lt = self.op2(Op::And, Ty::B32, Src::Reg(a), Src::Reg(lt));
        let mut r = self.op2(Op::Add, Ty::B32, Src::Reg(a), Src::Reg(a_lt));
        let e = self.op2(Op::Sub, Ty::B32, Src::Reg(ex), Src::Reg(ey));
        let e = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Reg(lt));

        // r in [B, 2B): the first bit is 1.
        r = self.op2(Op::Sub, Ty::B32, Src::Reg(r), Src::Reg(b));
        let mut q = Context::mov_imm(self, 1);
        for _ in 0..24 {
            let r2 = self.op2(Op::Add, Ty::B32, Src::Reg(r), Src::Reg(r));
            let (t, bit) = self.add_carry(Op::Sub, Src::Reg(r2), Src::Reg(b), None);
            r = self.select_on(bit, Cond::C, t, r2);
            q = self.addc(Src::Reg(q), Src::Reg(q), bit);
        }
        let sticky = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(r), Src::Imm(0));
        let sticky = self.op2(Op::And, Ty::B32, Src::Reg(sticky), Src::Imm(1));
        let m = self.op2(Op::Shl, Ty::B32, Src::Reg(q), Src::Imm(6));
        let m = self.op2(Op::Or, Ty::B32, Src::Reg(m), Src::Reg(sticky));
        let mag = self.round_to_f32(e, m);

        // ±0, ±∞, NaN.
        let (sx, ax) = self.zero_or_special32(x);
        let (sy, ay) = self.zero_or_special32(y);
        let special = self.op2(Op::Or, Ty::B32, Src::Reg(sx), Src::Reg(sy));
        let x_inf = self.set_reg(Cond::E, Ty::U32, Src::Reg(ax), Src::Imm(INFINITY));
        let y_zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(ay), Src::Imm(0));
        let inf = self.op2(Op::Or, Ty::B32, Src::Reg(x_inf), Src::Reg(y_zero));
        // NaN: a NaN operand, or both operands zero or both infinite (equal magnitudes,
        // each special).
        let nx = self.is_nan(x);
        let ny = self.is_nan(y);
        let nan = self.op2(Op::Or, Ty::B32, Src::Reg(nx), Src::Reg(ny));
        let both = self.op2(Op::And, Ty::B32, Src::Reg(sx), Src::Reg(sy));
        let same = self.set_reg(Cond::E, Ty::U32, Src::Reg(ax), Src::Reg(ay));
        let both = self.op2(Op::And, Ty::B32, Src::Reg(both), Src::Reg(same));
        let nan = self.op2(Op::Or, Ty::B32, Src::Reg(nan), Src::Reg(both));
        let special_mag = self.op2(Op::And, Ty::B32, Src::Reg(inf), Src::Imm(INFINITY));
        let nan_bits = Context::mov_imm(self, NAN);
        let special_mag = self.blend(nan, nan_bits, special_mag);
        let mag = self.blend(special, special_mag, mag);
        let sign = self.op2(Op::Xor, Ty::B32, Src::Reg(x), Src::Reg(y));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Imm(0x8000_0000));
        self.op2(Op::Or, Ty::B32, Src::Reg(mag), Src::Reg(sign))
    }
}

/// A 64-bit integer held in two registers (low, high) for the `fma` expansion and the
/// conversions between f32 and i64.
type Words = (Reg, Reg);

impl IsleContext<'_, '_> {
    /// (lo, hi) >> k for k in [0, 63], with the bits shifted out ORed into bit 0 (a sticky
    /// bit). Whole words move first; the in-word shift feeds the high word's bits in
    /// through `(hi << 1) << (31 − k)`, which avoids a shift by 32 for k = 0.
    fn shr64_sticky(&mut self, (lo, hi): Words, k: Reg) -> Words {
        let words = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(k), Src::Imm(32));
        let lo_set = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(lo), Src::Imm(0));
        let lost_word = self.op2(Op::And, Ty::B32, Src::Reg(lo_set), Src::Reg(words));
        let lo = self.blend(words, hi, lo);
        let hi = Context::logic(self, &Op::And, Src::Reg(hi), Src::Reg(words), false, true);
        let k = self.op2(Op::And, Ty::B32, Src::Reg(k), Src::Imm(31));
        let t = self.op2(Op::Subr, Ty::B32, Src::Reg(k), Src::Imm(31));
        let lo2 = self.op2(Op::Shl, Ty::B32, Src::Reg(lo), Src::Imm(1));
        let lost = self.op2(Op::Shl, Ty::B32, Src::Reg(lo2), Src::Reg(t));
        let lost = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(lost), Src::Imm(0));
        let hi2 = self.op2(Op::Shl, Ty::B32, Src::Reg(hi), Src::Imm(1));
        let carried = self.op2(Op::Shl, Ty::B32, Src::Reg(hi2), Src::Reg(t));
        let lo = self.op2(Op::Shr, Ty::U32, Src::Reg(lo), Src::Reg(k));
        let lo = self.op2(Op::Or, Ty::B32, Src::Reg(lo), Src::Reg(carried));
        let hi = self.op2(Op::Shr, Ty::U32, Src::Reg(hi), Src::Reg(k));
        let sticky = self.op2(Op::Or, Ty::B32, Src::Reg(lost), Src::Reg(lost_word));
        let sticky = self.op2(Op::And, Ty::B32, Src::Reg(sticky), Src::Imm(1));
        (
            self.op2(Op::Or, Ty::B32, Src::Reg(lo), Src::Reg(sticky)),
            hi,
        )
    }

    /// (lo, hi) << n for n in [0, 63], whole words first, then in-word as above.
    fn shl64(&mut self, (lo, hi): Words, n: Reg) -> Words {
        let words = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(n), Src::Imm(32));
        let hi = self.blend(words, lo, hi);
        let lo = Context::logic(self, &Op::And, Src::Reg(lo), Src::Reg(words), false, true);
        let n = self.op2(Op::And, Ty::B32, Src::Reg(n), Src::Imm(31));
        let t = self.op2(Op::Subr, Ty::B32, Src::Reg(n), Src::Imm(31));
        let lo1 = self.op2(Op::Shr, Ty::U32, Src::Reg(lo), Src::Imm(1));
        let carried = self.op2(Op::Shr, Ty::U32, Src::Reg(lo1), Src::Reg(t));
        let hi = self.op2(Op::Shl, Ty::B32, Src::Reg(hi), Src::Reg(n));
        let hi = self.op2(Op::Or, Ty::B32, Src::Reg(hi), Src::Reg(carried));
        (self.op2(Op::Shl, Ty::B32, Src::Reg(lo), Src::Reg(n)), hi)
    }

    /// (x ^ s) − s of a 64-bit value: x negated where the mask s is −1.
    fn negate64_where(&mut self, (lo, hi): Words, s: Reg) -> Words {
        let lo = self.op2(Op::Xor, Ty::B32, Src::Reg(lo), Src::Reg(s));
        let hi = self.op2(Op::Xor, Ty::B32, Src::Reg(hi), Src::Reg(s));
        let (lo, c) = self.add_carry(Op::Sub, Src::Reg(lo), Src::Reg(s), None);
        // hi − s − borrow = hi + ~s + carry.
        let ns = Context::logic(self, &Op::Xor, Src::Reg(s), Src::Imm(0), true, false);
        (lo, self.addc(Src::Reg(hi), Src::Reg(ns), c))
    }

    /// The number of leading zeros of a 64-bit value (64 for zero).
    fn clz64(&mut self, (lo, hi): Words) -> Reg {
        let n_hi = self.clz32(hi);
        let n_lo = self.clz32(lo);
        let empty = self.set_reg(Cond::E, Ty::U32, Src::Reg(n_hi), Src::Imm(32));
        let t = self.op2(Op::And, Ty::B32, Src::Reg(empty), Src::Reg(n_lo));
        self.op2(Op::Add, Ty::B32, Src::Reg(n_hi), Src::Reg(t))
    }

    /// The f32 magnitude bits nearest to a non-zero 64-bit magnitude times 2^(e − 63 + n),
    /// n being its leading zeros: normalised to bit 63, its top 31 bits with the rest as a
    /// sticky bit, rounded by `round_to_f32` (whose m has its leading bit at bit 30).
    fn round64_to_f32(&mut self, m: Words, e: Reg) -> Reg {
        let n = self.clz64(m);
        let (lo, hi) = self.shl64(m, n);
        let top = self.op2(Op::Shr, Ty::U32, Src::Reg(hi), Src::Imm(1));
        let low_bit = self.op2(Op::And, Ty::B32, Src::Reg(hi), Src::Imm(1));
        let rest = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(lo), Src::Imm(0));
        let rest = self.op2(Op::And, Ty::B32, Src::Reg(rest), Src::Imm(1));
        let sticky = self.op2(Op::Or, Ty::B32, Src::Reg(low_bit), Src::Reg(rest));
        let top = self.op2(Op::Or, Ty::B32, Src::Reg(top), Src::Reg(sticky));
        let e = self.op2(Op::Sub, Ty::B32, Src::Reg(e), Src::Reg(n));
        self.round_to_f32(e, top)
    }

    /// `fcvt_from_uint`/`fcvt_from_sint` of i64 to f32 on G80–G98 (no 64-bit `cvt`): the
    /// magnitude (two's complement undone where negative; MIN's is 2^63 unsigned) rounded
    /// once by `round64_to_f32`, zero kept as +0, the sign ORed in.
    pub(super) fn int64_to_f32_g80(&mut self, signed: bool, x: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let (lo, hi) = self.halves(x);
        let (m, sign) = if signed {
            let s = self.op2(Op::Shr, Ty::S32, Src::Reg(hi), Src::Imm(31));
            let m = self.negate64_where((lo, hi), s);
            (m, Some(s))
        } else {
            ((lo, hi), None)
        };
        // m·2^0: the leading bit at 63 − n has weight 2^(63 − n).
        let e = Context::mov_imm(self, 63);
        let mag = self.round64_to_f32(m, e);
        let any = self.op2(Op::Or, Ty::B32, Src::Reg(lo), Src::Reg(hi));
        let nonzero = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(any), Src::Imm(0));
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(mag), Src::Reg(nonzero));
        match sign {
            Some(s) => {
                let sign = self.op2(Op::And, Ty::B32, Src::Reg(s), Src::Imm(0x8000_0000));
                self.op2(Op::Or, Ty::B32, Src::Reg(mag), Src::Reg(sign))
            }
            None => mag,
        }
    }

    /// `fcvt_to_uint`/`fcvt_to_sint` (and `_sat`: a GPU cannot trap, `docs/ir.md`) of f32
    /// to i64 on G80–G98 (no 64-bit `cvt`), in integers. |x| = S·2^(f − 150) for the
    /// exponent field f and the 24-bit significand S; its integer part is S >> (150 − f)
    /// (0 from a shift of 24 on: |x| < 1, denormals included), or S << (f − 150), which
    /// fits in 64 bits below the saturation bounds 2^63 (signed) and 2^64 (unsigned), at
    /// and above which (∞ too) the result is the type's limit of x's sign. A negative x
    /// gives 0 unsigned, and NaN gives 0.
    pub(super) fn f32_to_int64_g80(&mut self, signed: bool, x: Reg) -> Reg {
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x7fff_ffff));
        let field = self.op2(Op::Shr, Ty::U32, Src::Reg(mag), Src::Imm(23));
        let frac = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x007f_ffff));
        let sig = self.op2(Op::Or, Ty::B32, Src::Reg(frac), Src::Imm(0x0080_0000));
        let right = self.op2(Op::Subr, Ty::B32, Src::Reg(field), Src::Imm(150));
        let right = self.op2(Op::Max, Ty::S32, Src::Reg(right), Src::Imm(0));
        let right = self.op2(Op::Min, Ty::S32, Src::Reg(right), Src::Imm(31));
        let int = self.op2(Op::Shr, Ty::U32, Src::Reg(sig), Src::Reg(right));
        let left = self.op2(Op::Add, Ty::B32, Src::Reg(field), Src::Imm(-150i32 as u32));
        let left = self.op2(Op::Max, Ty::S32, Src::Reg(left), Src::Imm(0));
        let left = self.op2(Op::Min, Ty::S32, Src::Reg(left), Src::Imm(63));
        let zero = Context::mov_imm(self, 0);
        let (lo, hi) = self.shl64((int, zero), left);
        let s = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
        let nan = self.set_reg(Cond::G, Ty::U32, Src::Reg(mag), Src::Imm(INFINITY));
        let (lo, hi, zeroed) = if signed {
            let (lo, hi) = self.negate64_where((lo, hi), s);
            // |x| ≥ 2^63: MAX (0x7fff…) or MIN (0x8000…0) by the sign.
            let big = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(mag), Src::Imm(190 << 23));
            let sat_lo = Context::logic(self, &Op::Xor, Src::Reg(s), Src::Imm(0), true, false);
            let sat_hi = self.op2(Op::Xor, Ty::B32, Src::Reg(s), Src::Imm(0x7fff_ffff));
            let lo = self.blend(big, sat_lo, lo);
            let hi = self.blend(big, sat_hi, hi);
            (lo, hi, nan)
        } else {
            // |x| ≥ 2^64: all ones; a negative x (−0 included, whose result is 0 anyway): 0.
            let big = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(mag), Src::Imm(191 << 23));
            let lo = self.op2(Op::Or, Ty::B32, Src::Reg(lo), Src::Reg(big));
            let hi = self.op2(Op::Or, Ty::B32, Src::Reg(hi), Src::Reg(big));
            let zeroed = self.op2(Op::Or, Ty::B32, Src::Reg(s), Src::Reg(nan));
            (lo, hi, zeroed)
        };
        let lo = Context::logic(self, &Op::And, Src::Reg(lo), Src::Reg(zeroed), false, true);
        let hi = Context::logic(self, &Op::And, Src::Reg(hi), Src::Reg(zeroed), false, true);
        self.combine(lo, hi)
    }

    /// `fma` of f32 on G80–G98, exact, in integers. Finite non-zero x, y and finite z are
    /// split into 24-bit significands and exponents; the 48-bit product of the
    /// significands (four 16×16 multiplies) and the addend's significand are placed in
    /// 64-bit frames with their leading bits at bit 60 or 61 (the product shifted by 14,
    /// the addend by 37), the one with the smaller exponent is shifted right by the
    /// difference with a sticky bit (clamped to 62: it is all sticky by then), and they are
    /// added in two's complement. Bits are lost to the sticky bit only where the other
    /// operand is at least 2^14 times larger, so the sum keeps its leading bit at 59 or
    /// above and the sticky bit lies far below the rounding position; the sum's magnitude
    /// is rounded once (`round64_to_f32`), an exact zero giving +0. A zero z takes an
    /// exponent below every product's. Zeros, infinities and NaN (of x or y, or an infinite
    /// or NaN z) take the f32 unit's x'·y' + z, x' and y' being x and y where they are
    /// special and ±1 otherwise: IEEE's rules for a product of ±1, ±0, ±∞ or NaN and for
    /// its sum with z, except that a zero product plus a non-zero finite z is z itself
    /// (the unit would flush a denormal z).
    pub(super) fn fma32_g80(&mut self, x: Value, y: Value, z: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let z = Context::put_in_reg(self, z);
        let (mx, ex) = self.split32(x);
        let (my, ey) = self.split32(y);
        let (mz, ez) = self.split32(z);
        let a = self.op2(Op::Add, Ty::B32, Src::Reg(mx), Src::Imm(0xc100_0000));
        let b = self.op2(Op::Add, Ty::B32, Src::Reg(my), Src::Imm(0xc100_0000));
        let c = self.op2(Op::Add, Ty::B32, Src::Reg(mz), Src::Imm(0xc100_0000));
        let (sz, az) = self.zero_or_special32(z);
        let z_zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(az), Src::Imm(0));
        let c = Context::logic(self, &Op::And, Src::Reg(c), Src::Reg(z_zero), false, true);
        let below = Context::mov_imm(self, -512i32 as u32);
        let ez = self.blend(z_zero, below, ez);

        // The frames: x·y = (P << 14)·2^(ex + ey − 60), z = (C << 37)·2^(ez − 60).
        let (pl, ph) = self.mul_wide(a, b);
        let pl14 = self.op2(Op::Shl, Ty::B32, Src::Reg(pl), Src::Imm(14));
        let carried = self.op2(Op::Shr, Ty::U32, Src::Reg(pl), Src::Imm(18));
        let ph = self.op2(Op::Shl, Ty::B32, Src::Reg(ph), Src::Imm(14));
        let ph = self.op2(Op::Or, Ty::B32, Src::Reg(ph), Src::Reg(carried));
        let ch = self.op2(Op::Shl, Ty::B32, Src::Reg(c), Src::Imm(5));
        let ep = self.op2(Op::Add, Ty::B32, Src::Reg(ex), Src::Reg(ey));
        let d = self.op2(Op::Sub, Ty::B32, Src::Reg(ep), Src::Reg(ez));
        let p_big = self.set_reg(Cond::Ge, Ty::S32, Src::Reg(d), Src::Imm(0));
        let big_lo = self.op2(Op::And, Ty::B32, Src::Reg(pl14), Src::Reg(p_big));
        let big_hi = self.blend(p_big, ph, ch);
        let small_lo = Context::logic(self, &Op::And, Src::Reg(pl14), Src::Reg(p_big), false, true);
        let small_hi = self.blend(p_big, ch, ph);
        let nd = self.op2(Op::Subr, Ty::B32, Src::Reg(d), Src::Imm(0));
        let k = self.op2(Op::Max, Ty::S32, Src::Reg(d), Src::Reg(nd));
        let k = self.op2(Op::Min, Ty::U32, Src::Reg(k), Src::Imm(62));
        let e = self.op2(Op::Max, Ty::S32, Src::Reg(ep), Src::Reg(ez));
        let small = self.shr64_sticky((small_lo, small_hi), k);

        // Signed sum.
        let xy = self.op2(Op::Xor, Ty::B32, Src::Reg(x), Src::Reg(y));
        let sp = self.op2(Op::Shr, Ty::S32, Src::Reg(xy), Src::Imm(31));
        let sc = self.op2(Op::Shr, Ty::S32, Src::Reg(z), Src::Imm(31));
        let big_s = self.blend(p_big, sp, sc);
        let small_s = self.blend(p_big, sc, sp);
        let (bl, bh) = self.negate64_where((big_lo, big_hi), big_s);
        let (sl, sh) = self.negate64_where(small, small_s);
        let (rl, carry) = self.add_carry(Op::Add, Src::Reg(bl), Src::Reg(sl), None);
        let rh = self.addc(Src::Reg(bh), Src::Reg(sh), carry);
        let rs = self.op2(Op::Shr, Ty::S32, Src::Reg(rh), Src::Imm(31));
        let m = self.negate64_where((rl, rh), rs);
        // The leading bit at 63 − n has weight 2^(e − 60 + 63 − n).
        let e = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Imm(3));
        let mag = self.round64_to_f32(m, e);
        let any = self.op2(Op::Or, Ty::B32, Src::Reg(m.0), Src::Reg(m.1));
        let nonzero = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(any), Src::Imm(0));
        let mag = self.op2(Op::And, Ty::B32, Src::Reg(mag), Src::Reg(nonzero));
        let sign = self.op2(Op::And, Ty::B32, Src::Reg(rs), Src::Imm(0x8000_0000));
        let result = self.op2(Op::Or, Ty::B32, Src::Reg(mag), Src::Reg(sign));

        // Zeros, infinities, NaN.
        let mut any_special =
            Context::logic(self, &Op::And, Src::Reg(sz), Src::Reg(z_zero), false, true);
        let mut operands = [x, y];
        for v in operands.iter_mut() {
            let (special, _) = self.zero_or_special32(*v);
            any_special = self.op2(Op::Or, Ty::B32, Src::Reg(any_special), Src::Reg(special));
            let vs = self.op2(Op::And, Ty::B32, Src::Reg(*v), Src::Imm(0x8000_0000));
            let unit = self.op2(Op::Or, Ty::B32, Src::Reg(vs), Src::Imm(0x3f80_0000));
            *v = self.blend(special, *v, unit);
        }
        let p = self.f32_alu(Op::Mul, Src::Reg(operands[0]), Src::Reg(operands[1]));
        let s = self.f32_alu(Op::Add, Src::Reg(p), Src::Reg(z));
        let p_mag = self.op2(Op::And, Ty::B32, Src::Reg(p), Src::Imm(0x7fff_ffff));
        let p_zero = self.set_reg(Cond::E, Ty::U32, Src::Reg(p_mag), Src::Imm(0));
        let z_plain = Context::logic(self, &Op::And, Src::Reg(p_zero), Src::Reg(sz), false, true);
        let special = self.blend(z_plain, z, s);
        self.blend(any_special, special, result)
    }
}
