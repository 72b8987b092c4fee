//! Integer multiplication from Tesla's multiplies: `mul u16` (16 × 16 → 32, of register
//! halves), its multiply-add, and `mul u24` (the low 32 bits of 24 × 24, a constant as its
//! immediate). A 32-bit product takes four of them (nouveau's `expandIntegerMUL`), a 64-bit
//! one more with the carries; what is known of the factors takes fewer: two below 2^16 or
//! 2^24 multiply in one instruction, a constant of few bits is shifts and an add, a
//! constant's zero halves and the high half of a factor below 2^16 drop their partial
//! products, and an i64 whose high word is zero (below 2^32: the shared bounds, with
//! NV50's 16-bit work-group ids) has no cross products.

use super::IsleContext;
use super::isle::generated::Context;
use crate::analysis::bounds;
use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData, Value};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Op, Ty};
use crate::machinst::{Reg, RegClass};

/// A 32-bit factor: a register whose value is at most `bound`, a constant, or a constant
/// held in a register (whose halves the 16-bit multiplies read).
#[derive(Copy, Clone)]
pub(super) enum Factor {
    Reg { reg: Reg, bound: u64 },
    Const(u32),
    Held { reg: Reg, value: u32 },
}

impl Factor {
    /// A register whose value nothing bounds.
    pub(super) fn reg(reg: Reg) -> Factor {
        Factor::Reg {
            reg,
            bound: u32::MAX as u64,
        }
    }

    fn bound(self) -> u64 {
        match self {
            Factor::Reg { bound, .. } => bound,
            Factor::Const(c) | Factor::Held { value: c, .. } => c as u64,
        }
    }

    /// The low (`false`) or high 16 bits as a `mul u16` source, `None` when known zero.
    /// A constant must be held in a register by then ([`IsleContext::hold`]): the short
    /// and immediate forms, the only ones with an immediate, reach the halves of `$r0`–
    /// `$r31` alone, which the allocator does not promise.
    fn half(self, hi: bool) -> Option<Src> {
        let shift = if hi { 16 } else { 0 };
        match self {
            Factor::Reg { reg, bound } => (bound >> shift != 0).then_some(Src::H16(reg, hi)),
            Factor::Held { reg, value } => {
                (value >> shift & 0xffff != 0).then_some(Src::H16(reg, hi))
            }
            Factor::Const(_) => unreachable!("a constant factor is held in a register first"),
        }
    }

    /// The factor as a source of a 32-bit operation.
    fn src(self) -> Src {
        match self {
            Factor::Reg { reg, .. } | Factor::Held { reg, .. } => Src::Reg(reg),
            Factor::Const(c) => Src::Imm(c),
        }
    }
}

/// What NV50 knows of a value beyond the shared bounds: its work-group ids are read as
/// 16-bit values (`s[0x0c]`…: `docs/nv50.md`, "Shared memory").
fn known_bound(func: &ir::Function, value: Value) -> Option<u64> {
    let dfg = &func.dfg;
    let ir::ValueDef::Result(inst, _) = dfg.value_def(dfg.resolve_aliases(value)) else {
        return None;
    };
    let InstructionData::Call { func_ref, .. } = dfg.insts[inst] else {
        return None;
    };
    match Intrinsic::from_func_ref(func, func_ref)? {
        Intrinsic::WorkgroupId(_) => Some(0xffff),
        _ => None,
    }
}

impl IsleContext<'_, '_> {
    /// The largest value the integer `value` can take, when known.
    pub(super) fn bound_of(&self, value: Value) -> Option<u64> {
        let func = self.lower.func;
        bounds::max_unsigned_with(func, value, &|v| known_bound(func, v))
    }

    /// Whether the high word of the i64 `value` is known to be zero.
    pub(super) fn high_zero(&self, value: Value) -> bool {
        self.bound_of(value).is_some_and(|b| b <= u32::MAX as u64)
    }

    /// The low word of the integer `value` as a factor: its constant, or its register
    /// with what bounds it (an i8 or i16 register's upper bits are unspecified: none).
    pub(super) fn factor(&mut self, value: Value) -> Factor {
        if let Some(c) = self.const64_of(value) {
            return Factor::Const(c as u32);
        }
        let bits = self.lower.dfg().value_type(value).bits();
        let bound = match self.bound_of(value) {
            Some(b) if bits >= 32 && b <= u32::MAX as u64 => b,
            _ => u32::MAX as u64,
        };
        Factor::Reg {
            reg: self.low_in_reg(value),
            bound,
        }
    }

    /// A 16×16 → 32 multiply of the halves (or 16-bit immediates) `a` and `b` (`mul
    /// u16`/`mul s16`), plus `c` when given (the multiply-add, one type for both sources).
    pub(super) fn mul16(&mut self, ty: Ty, a: Src, b: Src, c: Option<Reg>) -> Reg {
        let dst = self.vreg(RegClass::Int);
        let alu = match c {
            None => {
                let mut alu = Alu::new(Op::Mul, Some(ty), Some(dst), &[a, b]);
                alu.src_ty = Some(ty);
                alu
            }
            Some(c) => Alu::new(Op::Mad, Some(ty), Some(dst), &[a, b, Src::Reg(c)]),
        };
        self.emit(Inst::Alu(alu));
        dst
    }

    /// The low 32 bits of `x · y` of two registers.
    pub(super) fn mul_lo(&mut self, x: Reg, y: Reg) -> Reg {
        self.mul_low32(Factor::reg(x), Factor::reg(y))
    }

    /// A constant factor in a register, for the 16-bit multiplies to read its halves.
    fn hold(&mut self, f: Factor) -> Factor {
        match f {
            Factor::Const(value) => Factor::Held {
                reg: Context::mov_imm(self, value),
                value,
            },
            _ => f,
        }
    }

    /// The low 32 bits of `a · b`: xl·yl + ((xl·yh + xh·yl) << 16), without the partial
    /// products of zero halves; one `mul u16` or `mul u24` when both factors fit (`mul
    /// u24` takes a constant as its immediate).
    pub(super) fn mul_low32(&mut self, a: Factor, b: Factor) -> Reg {
        // A constant goes second, where the immediate form takes it.
        let (a, b) = match (a, b) {
            (Factor::Const(x), Factor::Const(y)) => {
                return Context::mov_imm(self, x.wrapping_mul(y));
            }
            (Factor::Const(_), _) => (b, a),
            _ => (a, b),
        };
        if b.bound() == 0 || a.bound() == 0 {
            return Context::mov_imm(self, 0);
        }
        let fits = |bits: u32| a.bound() >> bits == 0 && b.bound() >> bits == 0;
        if fits(16)
            && !matches!(b, Factor::Const(_))
            && let (Some(x), Some(y)) = (a.half(false), b.half(false))
        {
            return self.mul16(Ty::U16, x, y, None);
        }
        if fits(24) {
            let dst = self.vreg(RegClass::Int);
            let alu = Alu::new(Op::Mul, Some(Ty::U24), Some(dst), &[a.src(), b.src()]);
            self.emit_legal(alu);
            return dst;
        }
        if let (Factor::Reg { reg, .. }, Factor::Const(c)) = (a, b)
            && let Some(r) = self.mul_by_shifts(reg, c)
        {
            return r;
        }
        let b = self.hold(b);
        let (al, ah, bl, bh) = (a.half(false), a.half(true), b.half(false), b.half(true));
        let mut middle: Option<Reg> = None;
        for (x, y) in [(al, bh), (ah, bl)] {
            if let (Some(x), Some(y)) = (x, y) {
                middle = Some(self.mul16(Ty::U16, x, y, middle));
            }
        }
        let shifted = middle.map(|m| self.op2(Op::Shl, Ty::B32, Src::Reg(m), Src::Imm(16)));
        match ((al, bl), shifted) {
            ((Some(x), Some(y)), s) => self.mul16(Ty::U16, x, y, s),
            (_, Some(s)) => s,
            (_, None) => Context::mov_imm(self, 0),
        }
    }

    /// The low 32 bits of `x · c` in shifts and an add or subtract, for a constant with
    /// one or two bits set (2^i, 2^i + 2^j), its negation −2^i, or a run of bits 2^i − 2^j:
    /// at most three instructions, where the 16-bit multiplies take four or five.
    fn mul_by_shifts(&mut self, x: Reg, c: u32) -> Option<Reg> {
        let shifted = |ctx: &mut Self, k: u32| match k {
            0 => x,
            _ => ctx.op2(Op::Shl, Ty::B32, Src::Reg(x), Src::Imm(k)),
        };
        let (i, j) = (31 - c.leading_zeros().min(31), c.trailing_zeros().min(31));
        if c.count_ones() == 1 {
            return Some(shifted(self, j));
        }
        if c.count_ones() == 2 {
            let (a, b) = (shifted(self, i), shifted(self, j));
            return Some(self.op2(Op::Add, Ty::B32, Src::Reg(a), Src::Reg(b)));
        }
        if c.wrapping_neg().count_ones() == 1 {
            let a = shifted(self, c.wrapping_neg().trailing_zeros());
            return Some(self.op2(Op::Subr, Ty::B32, Src::Reg(a), Src::Imm(0)));
        }
        let run = (c >> j).wrapping_add(1);
        if c != 0 && run.count_ones() == 1 && i < 31 {
            let (a, b) = (shifted(self, i + 1), shifted(self, j));
            return Some(self.op2(Op::Sub, Ty::B32, Src::Reg(a), Src::Reg(b)));
        }
        None
    }

    /// The 64-bit product of two unsigned 32-bit values as (low, high): the four 16×16
    /// partial products, the middle ones added in halves with the carries.
    pub(super) fn mul_wide(&mut self, x: Reg, y: Reg) -> (Reg, Reg) {
        self.mul_wide_of(Factor::reg(x), Factor::reg(y))
    }

    /// [`IsleContext::mul_wide`] of two factors, without the partial products of zero
    /// halves; the low word alone (and a zero high word) when the product is below 2^32.
    pub(super) fn mul_wide_of(&mut self, a: Factor, b: Factor) -> (Reg, Reg) {
        let (a, b) = match a {
            Factor::Const(_) => (b, a),
            _ => (a, b),
        };
        if (a.bound() as u128) * (b.bound() as u128) <= u32::MAX as u128 {
            let lo = self.mul_low32(a, b);
            return (lo, Context::mov_imm(self, 0));
        }
        let (a, b) = (self.hold(a), self.hold(b));
        let (al, ah, bl, bh) = (a.half(false), a.half(true), b.half(false), b.half(true));
        let mut product = |x: Option<Src>, y: Option<Src>| match (x, y) {
            (Some(x), Some(y)) => self.mul16(Ty::U16, x, y, None),
            _ => Context::mov_imm(self, 0),
        };
        let mut lo = product(al, bl);
        let mut hi = product(ah, bh);
        for (x, y) in [(ah, bl), (al, bh)] {
            let (Some(x), Some(y)) = (x, y) else {
                continue;
            };
            let m = self.mul16(Ty::U16, x, y, None);
            let m_lo = self.op2(Op::Shl, Ty::B32, Src::Reg(m), Src::Imm(16));
            let m_hi = self.op2(Op::Shr, Ty::U32, Src::Reg(m), Src::Imm(16));
            let (l, c) = self.add_carry(Op::Add, Src::Reg(lo), Src::Reg(m_lo), None);
            lo = l;
            hi = self.addc(Src::Reg(hi), Src::Reg(m_hi), c);
        }
        (lo, hi)
    }

    /// `imul` of i8–i32: only the low `bits` of the factors reach the low `bits` of the
    /// product, so an i8 or i16 product is one `mul u16`.
    pub(super) fn imul32(&mut self, ty: ir::Type, x: Value, y: Value) -> Reg {
        let (a, b) = (self.factor(x), self.factor(y));
        if ty.bits() > 16 {
            return self.mul_low32(a, b);
        }
        let narrow = |f: Factor| match f {
            Factor::Reg { reg, .. } => Factor::Reg { reg, bound: 0xffff },
            Factor::Const(c) | Factor::Held { value: c, .. } => Factor::Const(c & 0xffff),
        };
        self.mul_low32(narrow(a), narrow(b))
    }

    /// The words of the i64 `value` as factors: the low one, and the high one unless it is
    /// known to be zero.
    fn factor_words(&mut self, value: Value) -> (Factor, Option<Factor>) {
        if let Some(c) = self.const64_of(value) {
            let hi = (c >> 32) as u32;
            return (
                Factor::Const(c as u32),
                (hi != 0).then_some(Factor::Const(hi)),
            );
        }
        if self.high_zero(value) {
            return (self.factor(value), None);
        }
        let pair = Context::put_in_reg(self, value);
        let (lo, hi) = self.halves(pair);
        (Factor::reg(lo), Some(Factor::reg(hi)))
    }

    /// i64 `imul`: the full product of the low words, plus the low words of the cross
    /// products (of the high words not known to be zero) in the high word.
    pub(super) fn imul64(&mut self, x: Value, y: Value) -> Reg {
        let (xl, xh) = self.factor_words(x);
        let (yl, yh) = self.factor_words(y);
        // A constant word read by two products is moved into a register once.
        let (xl, yl) = match (xh, yh) {
            (None, None) => (xl, yl),
            (Some(_), None) => (xl, self.hold(yl)),
            (None, Some(_)) => (self.hold(xl), yl),
            (Some(_), Some(_)) => (self.hold(xl), self.hold(yl)),
        };
        let (lo, mut hi) = self.mul_wide_of(xl, yl);
        for (a, b) in [(Some(xl), yh), (xh, Some(yl))] {
            if let (Some(a), Some(b)) = (a, b) {
                let t = self.mul_low32(a, b);
                hi = self.op2(Op::Add, Ty::B32, Src::Reg(hi), Src::Reg(t));
            }
        }
        self.combine(lo, hi)
    }

    /// The low word of the i64 `x · y`: the low 32 bits of the product of the low words.
    pub(super) fn imul_low(&mut self, x: Value, y: Value) -> Reg {
        let (a, b) = (self.factor(x), self.factor(y));
        self.mul_low32(a, b)
    }

    /// An i64 whose high word is known zero: its low word and a zero high word.
    pub(super) fn zero_high(&mut self, lo: Reg) -> Reg {
        let hi = Context::mov_imm(self, 0);
        self.combine(lo, hi)
    }
}
