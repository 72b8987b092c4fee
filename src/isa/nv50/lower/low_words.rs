//! The lowering of i64 values whose high word nothing reads (`isa/nv50/low_words.rs`): one
//! `$r` holding the low word, computed from the operands' low words. Such a value may
//! also be a pair (an instruction without a low-word rule computes both words); whoever
//! reads it takes the low word either way ([`IsleContext::low_src`]).

use super::IsleContext;
use super::isle::generated::Context;
use crate::ir::Value;
use crate::isa::nv50::inst::{Alu, Src};
use crate::isa::nv50::mc::{Op, Ty};
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    /// Whether the i64 `value` is kept as its low word.
    pub(super) fn is_low_only(&self, value: Value) -> bool {
        self.backend.low_words.low_only(self.lower.func, value)
    }

    /// The low word of the integer `value` as a source: a constant's low 32 bits, the
    /// register of a 32-bit value or of a low-word i64, the low half of a pair.
    pub(super) fn low_src(&mut self, value: Value) -> Src {
        if let Some(c) = self.const64_of(value) {
            return Src::Imm(c as u32);
        }
        let r = self.value_reg(value);
        match r.class() {
            RegClass::Int => Src::Reg(r),
            _ => Src::Half(r, false),
        }
    }

    /// [`IsleContext::low_src`] in a single register (a pair's half copied out).
    pub(super) fn low_in_reg(&mut self, value: Value) -> Reg {
        let src = self.low_src(value);
        self.in_reg(src)
    }

    /// The low word of `x << k` (CLIF takes k modulo 64): the low word shifted by k, which
    /// the hardware makes 0 from 32 on (`docs/nv50.md`: counts are not reduced).
    pub(super) fn shl_low(&mut self, x: Value, k: Value) -> Reg {
        let count = match self.const_count(k) {
            Some(c) if c & 63 >= 32 => return Context::mov_imm(self, 0),
            Some(c) => Src::Imm(c & 63),
            None => {
                let k = self.count_src(k);
                Src::Reg(self.op2(Op::And, Ty::B32, k, Src::Imm(63)))
            }
        };
        let x = Src::Reg(self.low_in_reg(x));
        let dst = self.vreg(RegClass::Int);
        self.emit_legal(Alu::new(Op::Shl, Some(Ty::B32), Some(dst), &[x, count]));
        dst
    }

    /// The low word of `x >> k` for a constant k (logical: `Ty::U32`, arithmetic:
    /// `Ty::S32`): from 32 on the high word shifted by k − 32, below 32 the low word's
    /// bits and the high word's lowest ones above them.
    pub(super) fn shr_low(&mut self, ty: Ty, x: Value, k: u32) -> Reg {
        let k = k & 63;
        let x = Context::put_in_reg(self, x);
        let (lo, hi) = (Src::Half(x, false), Src::Half(x, true));
        let shift = |ctx: &mut Self, op: Op, ty: Ty, a: Src, n: u32| {
            let dst = ctx.vreg(RegClass::Int);
            ctx.emit_legal(Alu::new(op, Some(ty), Some(dst), &[a, Src::Imm(n)]));
            dst
        };
        match k {
            0 => self.in_reg(lo),
            1..=31 => {
                let a = shift(self, Op::Shr, Ty::U32, lo, k);
                let b = shift(self, Op::Shl, Ty::B32, hi, 32 - k);
                self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b))
            }
            _ => shift(self, Op::Shr, ty, hi, k - 32),
        }
    }

    /// The low word of `select c, x, y`.
    pub(super) fn select_low(&mut self, c: Value, x: Value, y: Value) -> Reg {
        let (flag, cond) = self.condition(c);
        let t = self.low_in_reg(x);
        let f = self.low_in_reg(y);
        self.select_on(flag, cond, t, f)
    }
}
