//! Integer expansions of the NV50 lowering: what Tesla has no instruction for, built from
//! its 16×16 multiplies, the add family's carries in `$c`, `set` and `cvt`. Wide multiplies
//! (`umulhi`, `smulhi`, i64 `imul`), i64 compares, division and remainder, and the bit
//! counts.

use super::IsleContext;
use super::isle::generated::Context;
use crate::ir::condcodes::IntCC;
use crate::ir::{self, Value, types};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Op, Round, Ty};
use crate::isa::nv50::regs::FLAG;
use crate::machinst::{Reg, RegClass};

/// `0x4f7ffffe`: 2³² − 512 as an f32, the scale that turns `rcp(y)` into an under-estimate
/// of 2³²/y (LLVM's AMDGPU `expandDivRem32` uses the same constant).
const RCP_SCALE: u32 = 0x4f7f_fffe;

impl IsleContext<'_, '_> {
    /// `op ty a b` into a new register.
    pub(super) fn op2(&mut self, op: Op, ty: Ty, a: Src, b: Src) -> Reg {
        Context::alu2(self, &op, &ty, a, b)
    }

    /// `set ty` into a register: −1 where `cmp` holds, else 0.
    pub(super) fn set_reg(&mut self, cmp: Cond, ty: Ty, a: Src, b: Src) -> Reg {
        let a = Src::Reg(self.in_reg(a));
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(Op::Set, Some(ty), Some(dst), &[a, b]);
        alu.cmp = Some(cmp);
        self.emit_legal(alu);
        dst
    }

    /// `op b32` of the add family writing its carry to a new `$c`; `addc` reads `carry`.
    pub(super) fn add_carry(&mut self, op: Op, a: Src, b: Src, carry: Option<Reg>) -> (Reg, Reg) {
        let a = Src::Reg(self.in_reg(a));
        let dst = self.vreg(RegClass::Int);
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut alu = Alu::new(op, Some(Ty::B32), Some(dst), &[a, b]);
        alu.cdst = Some(c);
        alu.carry = carry;
        self.emit_legal(alu);
        (dst, c)
    }

    /// `a + b + carry` (`addc`).
    pub(super) fn addc(&mut self, a: Src, b: Src, carry: Reg) -> Reg {
        let a = Src::Reg(self.in_reg(a));
        let dst = self.vreg(RegClass::Int);
        let mut alu = Alu::new(Op::Addc, Some(Ty::B32), Some(dst), &[a, b]);
        alu.carry = Some(carry);
        self.emit_legal(alu);
        dst
    }

    /// `cvt dty sty` with a rounding mode.
    pub(super) fn cvt(
        &mut self,
        dty: Ty,
        sty: Ty,
        round: Option<Round>,
        x: Src,
        class: RegClass,
    ) -> Reg {
        let x = Src::Reg(self.in_reg(x));
        let dst = self.vreg(class);
        let mut alu = Alu::new(Op::Cvt, Some(dty), Some(dst), &[x]);
        alu.src_ty = Some(sty);
        alu.round = round;
        self.emit(Inst::Alu(alu));
        dst
    }

    /// `hi − (x < 0 ? y : 0) − (y < 0 ? x : 0)`: the signed high word from the unsigned one.
    fn signed_high(&mut self, hi: Reg, x: Reg, y: Reg) -> Reg {
        let mut hi = hi;
        for (a, b) in [(x, y), (y, x)] {
            let sign = self.op2(Op::Shr, Ty::S32, Src::Reg(a), Src::Imm(31));
            let t = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Reg(b));
            hi = self.op2(Op::Sub, Ty::B32, Src::Reg(hi), Src::Reg(t));
        }
        hi
    }

    /// `umulhi`/`smulhi` of i8–i32.
    pub(super) fn mulhi32(&mut self, ty: ir::Type, signed: bool, x: Value, y: Value) -> Reg {
        let bits = ty.bits();
        if bits <= 16 {
            // One 16×16 multiply of the (extended) values; the high half of the product.
            let (a, b) = if signed {
                (Context::sext(self, ty, x), Context::sext(self, ty, y))
            } else {
                (Context::zext(self, ty, x), Context::zext(self, ty, y))
            };
            let (a, b) = (self.in_reg(a), self.in_reg(b));
            let mty = if signed { Ty::S16 } else { Ty::U16 };
            let p = self.mul16(mty, Src::H16(a, false), Src::H16(b, false), None);
            let sty = if signed { Ty::S32 } else { Ty::U32 };
            return self.op2(Op::Shr, sty, Src::Reg(p), Src::Imm(bits));
        }
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let (_, hi) = self.mul_wide(x, y);
        if signed {
            self.signed_high(hi, x, y)
        } else {
            hi
        }
    }

    /// The two words of a pair in registers of their own.
    pub(super) fn halves(&mut self, pair: Reg) -> (Reg, Reg) {
        (self.half(pair, false), self.half(pair, true))
    }

    /// i64 `umulhi`/`smulhi`: the high 64 bits of the 128-bit product of the words.
    pub(super) fn mulhi64(&mut self, signed: bool, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let (xl, xh) = self.halves(x);
        let (yl, yh) = self.halves(y);
        let (_, p0h) = self.mul_wide(xl, yl);
        let (p1l, p1h) = self.mul_wide(xh, yl);
        let (p2l, p2h) = self.mul_wide(xl, yh);
        let (p3l, p3h) = self.mul_wide(xh, yh);
        // Word 1 = p0h + p1l + p2l: only its carries reach the result.
        let (w1, c1) = self.add_carry(Op::Add, Src::Reg(p0h), Src::Reg(p1l), None);
        let (_, c2) = self.add_carry(Op::Add, Src::Reg(w1), Src::Reg(p2l), None);
        // Words 2 and 3 = p3 + p1h + p2h + c1 + c2.
        let (w2, c) = self.add_carry(Op::Add, Src::Reg(p3l), Src::Reg(p1h), None);
        let w3 = self.addc(Src::Reg(p3h), Src::Imm(0), c);
        let (w2, c) = self.add_carry(Op::Add, Src::Reg(w2), Src::Reg(p2h), None);
        let w3 = self.addc(Src::Reg(w3), Src::Imm(0), c);
        let (w2, c) = self.add_carry(Op::Addc, Src::Reg(w2), Src::Imm(0), Some(c1));
        let w3 = self.addc(Src::Reg(w3), Src::Imm(0), c);
        let (w2, c) = self.add_carry(Op::Addc, Src::Reg(w2), Src::Imm(0), Some(c2));
        let w3 = self.addc(Src::Reg(w3), Src::Imm(0), c);
        if !signed {
            return self.combine(w2, w3);
        }
        // Minus (x < 0 ? y : 0) and (y < 0 ? x : 0), as 64-bit subtractions.
        let (mut w2, mut w3) = (w2, w3);
        for (ah, (bl, bh)) in [(xh, (yl, yh)), (yh, (xl, xh))] {
            let sign = self.op2(Op::Shr, Ty::S32, Src::Reg(ah), Src::Imm(31));
            let tl = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Reg(bl));
            let th = self.op2(Op::And, Ty::B32, Src::Reg(sign), Src::Reg(bh));
            let (l, c) = self.add_carry(Op::Sub, Src::Reg(w2), Src::Reg(tl), None);
            let nth = Context::logic(self, &Op::Xor, Src::Reg(th), Src::Imm(0), true, false);
            w3 = self.addc(Src::Reg(w3), Src::Reg(nth), c);
            w2 = l;
        }
        self.combine(w2, w3)
    }

    /// i64 `icmp`: the high words decide unless equal, then the low words (unsigned).
    pub(super) fn icmp64(&mut self, cc: IntCC, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        let (xl, xh) = (Src::Half(x, false), Src::Half(x, true));
        let (yl, yh) = (Src::Half(y, false), Src::Half(y, true));
        let r = match cc {
            IntCC::Equal | IntCC::NotEqual => {
                let cmp = if cc == IntCC::Equal {
                    Cond::E
                } else {
                    Cond::Lg
                };
                let l = self.set_reg(cmp, Ty::U32, xl, yl);
                let h = self.set_reg(cmp, Ty::U32, xh, yh);
                let op = if cc == IntCC::Equal { Op::And } else { Op::Or };
                self.op2(op, Ty::B32, Src::Reg(l), Src::Reg(h))
            }
            _ => {
                let (cmp, signed) = super::isle::int_cond(cc);
                let strict = match cmp {
                    Cond::L | Cond::Le => Cond::L,
                    _ => Cond::G,
                };
                let hty = if signed { Ty::S32 } else { Ty::U32 };
                let h = self.set_reg(strict, hty, xh, yh);
                let e = self.set_reg(Cond::E, Ty::U32, xh, yh);
                let l = self.set_reg(cmp, Ty::U32, xl, yl);
                let el = self.op2(Op::And, Ty::B32, Src::Reg(e), Src::Reg(l));
                self.op2(Op::Or, Ty::B32, Src::Reg(h), Src::Reg(el))
            }
        };
        self.op2(Op::And, Ty::B32, Src::Reg(r), Src::Imm(1))
    }

    /// i64 `smin`/`smax`/`umin`/`umax`: x where `x cc y` holds (the compare of `icmp64`),
    /// else y, by a `select` (a predicated `mov` of each half).
    pub(super) fn minmax64(&mut self, cc: IntCC, x: Value, y: Value) -> Reg {
        let holds = self.icmp64(cc, x, y);
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut test = Alu::new(
            Op::And,
            Some(Ty::B32),
            None,
            &[Src::Reg(holds), Src::Reg(holds)],
        );
        test.cdst = Some(c);
        self.emit(Inst::Alu(test));
        let t = Context::put_in_reg(self, x);
        let f = Context::put_in_reg(self, y);
        let dst = self.vreg(t.class());
        self.emit(Inst::Select {
            dst,
            cond: Cond::Lg,
            c,
            t,
            f,
        });
        dst
    }

    /// Unsigned 32-bit division: (quotient, remainder), exact for y ≠ 0; for y = 0 the
    /// remainder is x and the quotient unspecified. LLVM's AMDGPU expansion: `rcp` of y
    /// scaled to an under-estimate z of 2³²/y, one Newton–Raphson step in integers
    /// (z += umulhi(z, −y·z)), q = umulhi(x, z), then two corrections of q and the
    /// remainder. The corrections make the result exact for any `rcp` within a few ulps,
    /// so the SFU's approximation never shows.
    fn udivrem32(&mut self, x: Reg, y: Reg) -> (Reg, Reg) {
        let fy = self.cvt(
            Ty::F32,
            Ty::U32,
            Some(Round::Rn),
            Src::Reg(y),
            RegClass::Int,
        );
        let r = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Rcp,
            Some(Ty::F32),
            Some(r),
            &[Src::Reg(fy)],
        )));
        let scaled = self.op2(Op::Mul, Ty::F32, Src::Reg(r), Src::Imm(RCP_SCALE));
        let z = self.cvt(
            Ty::U32,
            Ty::F32,
            Some(Round::Rzi),
            Src::Reg(scaled),
            RegClass::Int,
        );
        let neg_y = self.op2(Op::Subr, Ty::B32, Src::Reg(y), Src::Imm(0));
        let nyz = self.mul_lo(neg_y, z);
        let (_, e) = self.mul_wide(z, nyz);
        let z = self.op2(Op::Add, Ty::B32, Src::Reg(z), Src::Reg(e));
        let (_, mut q) = self.mul_wide(x, z);
        let qy = self.mul_lo(q, y);
        let mut rem = self.op2(Op::Sub, Ty::B32, Src::Reg(x), Src::Reg(qy));
        for _ in 0..2 {
            // −1 where rem ≥ y: q + 1, rem − y.
            let ge = self.set_reg(Cond::Ge, Ty::U32, Src::Reg(rem), Src::Reg(y));
            q = self.op2(Op::Sub, Ty::B32, Src::Reg(q), Src::Reg(ge));
            let t = self.op2(Op::And, Ty::B32, Src::Reg(ge), Src::Reg(y));
            rem = self.op2(Op::Sub, Ty::B32, Src::Reg(rem), Src::Reg(t));
        }
        (q, rem)
    }

    /// `udiv`/`urem`/`sdiv`/`srem` of i8–i32, with the results of `docs/ir.md` ("No
    /// traps") for division by zero and `MIN / −1`.
    pub(super) fn divrem32(
        &mut self,
        ty: ir::Type,
        signed: bool,
        rem: bool,
        x: Value,
        y: Value,
    ) -> Reg {
        let (x, y) = if signed {
            (Context::sext(self, ty, x), Context::sext(self, ty, y))
        } else {
            (Context::zext(self, ty, x), Context::zext(self, ty, y))
        };
        let (x, y) = (self.in_reg(x), self.in_reg(y));
        // y = 0: −1 (all ones), ORed into the quotient (udiv x, 0 = all ones, sdiv x, 0 =
        // −1); the remainder is x already.
        let if_zero = |ctx: &mut Self, q: Reg| {
            let z = ctx.set_reg(Cond::E, Ty::U32, Src::Reg(y), Src::Imm(0));
            ctx.op2(Op::Or, Ty::B32, Src::Reg(q), Src::Reg(z))
        };
        if !signed {
            let (q, r) = self.udivrem32(x, y);
            return if rem { r } else { if_zero(self, q) };
        }
        // On the magnitudes (|MIN| is 2^31 unsigned), then the signs back: the quotient's
        // is the signs' xor, the remainder's the dividend's. MIN / −1 gives 2^31 = MIN.
        let sx = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
        let sy = self.op2(Op::Shr, Ty::S32, Src::Reg(y), Src::Imm(31));
        let abs = |ctx: &mut Self, v: Reg, s: Reg| {
            let t = ctx.op2(Op::Xor, Ty::B32, Src::Reg(v), Src::Reg(s));
            ctx.op2(Op::Sub, Ty::B32, Src::Reg(t), Src::Reg(s))
        };
        let ax = abs(self, x, sx);
        let ay = abs(self, y, sy);
        let (q, r) = self.udivrem32(ax, ay);
        if rem {
            abs(self, r, sx)
        } else {
            let s = self.op2(Op::Xor, Ty::B32, Src::Reg(sx), Src::Reg(sy));
            let q = abs(self, q, s);
            if_zero(self, q)
        }
    }

    /// `clz` of a 32-bit value: `cvt rm f32 u32` is exact in its exponent (rounding down
    /// never reaches the next power of two), so clz = 158 − (bits >> 23); zero gives 158,
    /// clamped to 32.
    pub(super) fn clz32(&mut self, x: Reg) -> Reg {
        let f = self.cvt(
            Ty::F32,
            Ty::U32,
            Some(Round::Rm),
            Src::Reg(x),
            RegClass::Int,
        );
        let e = self.op2(Op::Shr, Ty::U32, Src::Reg(f), Src::Imm(23));
        let n = self.op2(Op::Subr, Ty::B32, Src::Reg(e), Src::Imm(158));
        self.op2(Op::Min, Ty::U32, Src::Reg(n), Src::Imm(32))
    }

    /// `ctz` of a 32-bit value: the exponent of its lowest set bit (x & −x, exact as an
    /// f32) minus 127; zero gives −127, clamped (as unsigned) to 32.
    fn ctz32(&mut self, x: Reg) -> Reg {
        let neg = self.op2(Op::Subr, Ty::B32, Src::Reg(x), Src::Imm(0));
        let low = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Reg(neg));
        let f = self.cvt(
            Ty::F32,
            Ty::U32,
            Some(Round::Rn),
            Src::Reg(low),
            RegClass::Int,
        );
        let e = self.op2(Op::Shr, Ty::U32, Src::Reg(f), Src::Imm(23));
        let n = self.op2(Op::Add, Ty::B32, Src::Reg(e), Src::Imm(-127i32 as u32));
        self.op2(Op::Min, Ty::U32, Src::Reg(n), Src::Imm(32))
    }

    /// `popcnt` of a 32-bit value: the bit-parallel sums of pairs, nibbles, bytes, halves.
    fn popcnt32(&mut self, x: Reg) -> Reg {
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(1));
        let t = self.op2(Op::And, Ty::B32, Src::Reg(t), Src::Imm(0x5555_5555));
        let x = self.op2(Op::Sub, Ty::B32, Src::Reg(x), Src::Reg(t));
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(2));
        let t = self.op2(Op::And, Ty::B32, Src::Reg(t), Src::Imm(0x3333_3333));
        let x = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x3333_3333));
        let x = self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Reg(t));
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(4));
        let x = self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Reg(t));
        let x = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x0f0f_0f0f));
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(8));
        let x = self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Reg(t));
        let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(16));
        let x = self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Reg(t));
        self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(0x3f))
    }

    /// `bitrev` of a 32-bit value: swaps of adjacent bits, pairs, nibbles, bytes, halves.
    fn bitrev32(&mut self, x: Reg) -> Reg {
        let mut x = x;
        for (k, mask) in [
            (1, 0x5555_5555u32),
            (2, 0x3333_3333),
            (4, 0x0f0f_0f0f),
            (8, 0x00ff_00ff),
        ] {
            let a = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(k));
            let a = self.op2(Op::And, Ty::B32, Src::Reg(a), Src::Imm(mask));
            let b = self.op2(Op::And, Ty::B32, Src::Reg(x), Src::Imm(mask));
            let b = self.op2(Op::Shl, Ty::B32, Src::Reg(b), Src::Imm(k));
            x = self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b));
        }
        let a = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(16));
        let b = self.op2(Op::Shl, Ty::B32, Src::Reg(x), Src::Imm(16));
        self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b))
    }

    /// An i64 count from the counts of its words: `first` unless it is 32 (its word is
    /// zero), then 32 + `second`.
    fn count64(&mut self, first: Reg, second: Reg) -> Reg {
        let full = self.set_reg(Cond::E, Ty::U32, Src::Reg(first), Src::Imm(32));
        let t = self.op2(Op::And, Ty::B32, Src::Reg(full), Src::Reg(second));
        let lo = self.op2(Op::Add, Ty::B32, Src::Reg(first), Src::Reg(t));
        let hi = Context::mov_imm(self, 0);
        self.combine(lo, hi)
    }

    /// `clz`, `ctz`, `cls`, `popcnt` and `bitrev` of i8–i64 (`op` names the CLIF opcode).
    pub(super) fn bit_count(&mut self, op: ir::Opcode, ty: ir::Type, x: Value) -> Reg {
        use ir::Opcode::*;
        let bits = ty.bits();
        if ty == types::I64 {
            let x = Context::put_in_reg(self, x);
            let (lo, hi) = self.halves(x);
            return match op {
                Clz => {
                    let (a, b) = (self.clz32(hi), self.clz32(lo));
                    self.count64(a, b)
                }
                Ctz => {
                    let (a, b) = (self.ctz32(lo), self.ctz32(hi));
                    self.count64(a, b)
                }
                Cls => {
                    // clz(x ^ (x >> 63)) − 1.
                    let s = self.op2(Op::Shr, Ty::S32, Src::Reg(hi), Src::Imm(31));
                    let l = self.op2(Op::Xor, Ty::B32, Src::Reg(lo), Src::Reg(s));
                    let h = self.op2(Op::Xor, Ty::B32, Src::Reg(hi), Src::Reg(s));
                    let (a, b) = (self.clz32(h), self.clz32(l));
                    let n = self.count64(a, b);
                    let n = self.half(n, false);
                    let lo = self.op2(Op::Add, Ty::B32, Src::Reg(n), Src::Imm(-1i32 as u32));
                    let hi = Context::mov_imm(self, 0);
                    self.combine(lo, hi)
                }
                Popcnt => {
                    let (a, b) = (self.popcnt32(lo), self.popcnt32(hi));
                    let lo = self.op2(Op::Add, Ty::B32, Src::Reg(a), Src::Reg(b));
                    let hi = Context::mov_imm(self, 0);
                    self.combine(lo, hi)
                }
                _ => {
                    let (a, b) = (self.bitrev32(hi), self.bitrev32(lo));
                    self.combine(a, b)
                }
            };
        }
        let narrow = 32 - bits;
        match op {
            Clz => {
                let x = Context::zext(self, ty, x);
                let x = self.in_reg(x);
                let n = self.clz32(x);
                self.sub_imm(n, narrow)
            }
            Ctz => {
                // A bit above the value's makes zero count `bits`.
                let x = Context::put_in_src(self, x);
                let x = if bits < 32 {
                    let x = Src::Reg(self.in_reg(x));
                    Src::Reg(self.op2(Op::Or, Ty::B32, x, Src::Imm(1 << bits)))
                } else {
                    x
                };
                let x = self.in_reg(x);
                self.ctz32(x)
            }
            Cls => {
                let x = Context::sext(self, ty, x);
                let x = self.in_reg(x);
                let s = self.op2(Op::Shr, Ty::S32, Src::Reg(x), Src::Imm(31));
                let t = self.op2(Op::Xor, Ty::B32, Src::Reg(x), Src::Reg(s));
                let n = self.clz32(t);
                self.sub_imm(n, narrow + 1)
            }
            Popcnt => {
                let x = Context::zext(self, ty, x);
                let x = self.in_reg(x);
                self.popcnt32(x)
            }
            _ => {
                let x = Context::put_in_reg(self, x);
                let r = self.bitrev32(x);
                if narrow == 0 {
                    r
                } else {
                    self.op2(Op::Shr, Ty::U32, Src::Reg(r), Src::Imm(narrow))
                }
            }
        }
    }

    fn sub_imm(&mut self, x: Reg, c: u32) -> Reg {
        if c == 0 {
            return x;
        }
        self.op2(Op::Add, Ty::B32, Src::Reg(x), Src::Imm(c.wrapping_neg()))
    }

    /// `0 − x` of an i64 (also `iabs` with a sign mask `s`: (x ^ s) − s).
    fn neg64(&mut self, lo: Reg, hi: Reg, s: Option<Reg>) -> Reg {
        let (lo, hi, s) = match s {
            None => (lo, hi, Src::Imm(0)),
            Some(s) => {
                let l = self.op2(Op::Xor, Ty::B32, Src::Reg(lo), Src::Reg(s));
                let h = self.op2(Op::Xor, Ty::B32, Src::Reg(hi), Src::Reg(s));
                (l, h, Src::Reg(s))
            }
        };
        // (s or 0) − x with the borrow: s + ~x + 1 word by word, or x − s for `iabs`.
        let (a, b) = match s {
            Src::Imm(_) => (s, Src::Reg(lo)),
            _ => (Src::Reg(lo), s),
        };
        let (l, c) = self.add_carry(Op::Sub, a, b, None);
        let (ah, bh) = match s {
            Src::Imm(_) => (Src::Reg(hi), Src::Imm(0)),
            _ => (Src::Reg(hi), s),
        };
        // The high word: a − b − borrow = a + ~b + C.
        let (ah, bh) = if matches!(s, Src::Imm(_)) {
            // 0 − hi − borrow = ~hi + C.
            let nh = Context::logic(self, &Op::Xor, ah, Src::Imm(0), true, false);
            (Src::Reg(nh), bh)
        } else {
            let nb = Context::logic(self, &Op::Xor, bh, Src::Imm(0), true, false);
            (ah, Src::Reg(nb))
        };
        let h = self.addc(ah, bh, c);
        self.combine(l, h)
    }

    /// `ineg` of an i64.
    pub(super) fn ineg64(&mut self, x: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let (lo, hi) = self.halves(x);
        self.neg64(lo, hi, None)
    }

    /// `iabs` of i8–i64: `max(x, −x)` (MIN stays MIN), i64 as (x ^ s) − s with s the sign.
    pub(super) fn iabs(&mut self, ty: ir::Type, x: Value) -> Reg {
        if ty == types::I64 {
            let x = Context::put_in_reg(self, x);
            let (lo, hi) = self.halves(x);
            let s = self.op2(Op::Shr, Ty::S32, Src::Reg(hi), Src::Imm(31));
            return self.neg64(lo, hi, Some(s));
        }
        let x = Context::sext(self, ty, x);
        let x = self.in_reg(x);
        let n = self.op2(Op::Subr, Ty::B32, Src::Reg(x), Src::Imm(0));
        self.op2(Op::Max, Ty::S32, Src::Reg(x), Src::Reg(n))
    }

    /// `rotl`/`rotr` of i8, i16 and i64 (i32 has its own rule): `x << a | x >> (w − a)`
    /// with a = k mod w, on the zero-extended value; i64 shifts right by (−a) mod 64 so
    /// that a = 0 needs no special case.
    pub(super) fn rotate_narrow_or_wide(
        &mut self,
        left: bool,
        ty: ir::Type,
        x: Value,
        k: Value,
    ) -> Reg {
        let bits = ty.bits();
        let count = match self.const_count(k) {
            Some(c) => Src::Imm(c),
            None => self.count_src(k),
        };
        if ty == types::I64 {
            let x = Context::put_in_reg(self, x);
            let (a, b) = match count {
                Src::Imm(c) => (Src::Imm(c & 63), Src::Imm(c.wrapping_neg() & 63)),
                _ => {
                    let n = self.op2(Op::Subr, Ty::B32, count, Src::Imm(0));
                    (count, Src::Reg(n))
                }
            };
            let (l, r) = if left { (a, b) } else { (b, a) };
            let hi = self.shift64_reg(Op::Shl, Ty::B32, x, l);
            let lo = self.shift64_reg(Op::Shr, Ty::U32, x, r);
            let (hl, hh) = (Src::Half(hi, false), Src::Half(hi, true));
            let (ll, lh) = (Src::Half(lo, false), Src::Half(lo, true));
            let wl = Context::logic(self, &Op::Or, hl, ll, false, false);
            let wh = Context::logic(self, &Op::Or, hh, lh, false, false);
            return self.combine(wl, wh);
        }
        let x = Context::zext(self, ty, x);
        let x = Src::Reg(self.in_reg(x));
        let (a, b) = match count {
            Src::Imm(c) => {
                let c = c & (bits - 1);
                (Src::Imm(c), Src::Imm(bits - c))
            }
            _ => {
                let a = self.op2(Op::And, Ty::B32, count, Src::Imm(bits - 1));
                let b = self.op2(Op::Subr, Ty::B32, Src::Reg(a), Src::Imm(bits));
                (Src::Reg(a), Src::Reg(b))
            }
        };
        let (l, r) = if left { (a, b) } else { (b, a) };
        let hi = self.op2(Op::Shl, Ty::B32, x, l);
        let lo = self.op2(Op::Shr, Ty::U32, x, r);
        self.op2(Op::Or, Ty::B32, Src::Reg(hi), Src::Reg(lo))
    }

    /// `bswap` of a 32-bit value.
    fn bswap32(&mut self, x: Reg) -> Reg {
        let x = Src::Reg(x);
        let b0 = self.op2(Op::Shl, Ty::B32, x, Src::Imm(24));
        let t = self.op2(Op::And, Ty::B32, x, Src::Imm(0xff00));
        let b1 = self.op2(Op::Shl, Ty::B32, Src::Reg(t), Src::Imm(8));
        let t = self.op2(Op::Shr, Ty::U32, x, Src::Imm(8));
        let b2 = self.op2(Op::And, Ty::B32, Src::Reg(t), Src::Imm(0xff00));
        let b3 = self.op2(Op::Shr, Ty::U32, x, Src::Imm(24));
        let a = self.op2(Op::Or, Ty::B32, Src::Reg(b0), Src::Reg(b1));
        let b = self.op2(Op::Or, Ty::B32, Src::Reg(b2), Src::Reg(b3));
        self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b))
    }

    /// `bswap` of i16, i32 and i64.
    pub(super) fn bswap(&mut self, ty: ir::Type, x: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        match ty.bits() {
            16 => {
                let lo = self.op2(Op::Shl, Ty::B32, Src::Reg(x), Src::Imm(8));
                let t = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(8));
                let hi = self.op2(Op::And, Ty::B32, Src::Reg(t), Src::Imm(0xff));
                self.op2(Op::Or, Ty::B32, Src::Reg(lo), Src::Reg(hi))
            }
            32 => self.bswap32(x),
            _ => {
                let (lo, hi) = self.halves(x);
                let (a, b) = (self.bswap32(hi), self.bswap32(lo));
                self.combine(a, b)
            }
        }
    }

    /// `bitselect c, x, y` = (x & c) | (y & ~c), word by word.
    pub(super) fn bitselect(&mut self, c: Value, x: Value, y: Value) -> Reg {
        let wide = self.lower.dfg().value_type(x).bits() == 64;
        let (c, x, y) = (
            Context::put_in_reg(self, c),
            Context::put_in_reg(self, x),
            Context::put_in_reg(self, y),
        );
        let word = |ctx: &mut Self, c: Src, x: Src, y: Src| {
            let a = Context::logic(ctx, &Op::And, x, c, false, false);
            let b = Context::logic(ctx, &Op::And, y, c, false, true);
            ctx.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b))
        };
        if !wide {
            return word(self, Src::Reg(c), Src::Reg(x), Src::Reg(y));
        }
        let lo = word(
            self,
            Src::Half(c, false),
            Src::Half(x, false),
            Src::Half(y, false),
        );
        let hi = word(
            self,
            Src::Half(c, true),
            Src::Half(x, true),
            Src::Half(y, true),
        );
        self.combine(lo, hi)
    }

    /// `isplit` of i16–i64 into its halves.
    pub(super) fn isplit(&mut self, ty: ir::Type, x: Value) -> (Reg, Reg) {
        let x = Context::put_in_reg(self, x);
        if ty == types::I64 {
            return self.halves(x);
        }
        let half = ty.bits() / 2;
        let hi = self.op2(Op::Shr, Ty::U32, Src::Reg(x), Src::Imm(half));
        (x, hi)
    }

    /// `iconcat` into i16–i64.
    pub(super) fn iconcat(&mut self, ty: ir::Type, lo: Value, hi: Value) -> Reg {
        let lo = Context::put_in_reg(self, lo);
        let hi = Context::put_in_reg(self, hi);
        if ty == types::I64 {
            return self.combine(lo, hi);
        }
        let half = ty.bits() / 2;
        let l = self.op2(Op::And, Ty::B32, Src::Reg(lo), Src::Imm((1 << half) - 1));
        let h = self.op2(Op::Shl, Ty::B32, Src::Reg(hi), Src::Imm(half));
        self.op2(Op::Or, Ty::B32, Src::Reg(l), Src::Reg(h))
    }

    /// `bmask` from or to i64: all ones where the input is non-zero.
    pub(super) fn bmask64(&mut self, out: ir::Type, x: Value) -> Reg {
        let ty = self.lower.dfg().value_type(x);
        let v = if ty == types::I64 {
            let x = Context::put_in_reg(self, x);
            Context::logic(
                self,
                &Op::Or,
                Src::Half(x, false),
                Src::Half(x, true),
                false,
                false,
            )
        } else {
            let x = Context::zext(self, ty, x);
            self.in_reg(x)
        };
        let m = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(v), Src::Imm(0));
        if out == types::I64 {
            self.combine(m, m)
        } else {
            m
        }
    }

    /// A value of `ty` sign-extended from its low `bits` (its register's upper bits are
    /// the sign's).
    fn sext_bits(&mut self, x: Reg, bits: u32) -> Reg {
        let t = self.op2(Op::Shl, Ty::B32, Src::Reg(x), Src::Imm(32 - bits));
        self.op2(Op::Shr, Ty::S32, Src::Reg(t), Src::Imm(32 - bits))
    }

    /// A flag (0 or 1) from a `set` result (0 or −1).
    fn flag01(&mut self, set: Reg) -> Reg {
        self.op2(Op::And, Ty::B32, Src::Reg(set), Src::Imm(1))
    }

    /// The carry of `$c` as 0 or 1.
    fn carry01(&mut self, c: Reg) -> Reg {
        let zero = Context::mov_imm(self, 0);
        self.addc(Src::Reg(zero), Src::Reg(zero), c)
    }

    /// The overflow-flag opcodes (`uadd_overflow` … `smul_overflow`, and the carry-in and
    /// borrow-in forms with `c`): the wrapped result and the flag (an i8 0 or 1). Narrow
    /// types compute exactly in 32 bits on extended values and test the range; i32 and i64
    /// chain the add family's carries, and signed overflow is the sign rule of `docs/ir.md`
    /// ("Carry in and signed overflow") on the top words.
    pub(super) fn overflow(
        &mut self,
        op: ir::Opcode,
        ty: ir::Type,
        x: Value,
        y: Value,
        c: Option<Value>,
    ) -> (Reg, Reg) {
        use ir::Opcode::*;
        let bits = ty.bits();
        let signed = matches!(
            op,
            SaddOverflow | SsubOverflow | SmulOverflow | SaddOverflowCin | SsubOverflowBin
        );
        if matches!(op, UmulOverflow | SmulOverflow) {
            return self.mul_overflow(signed, ty, x, y);
        }
        let sub = matches!(
            op,
            UsubOverflow | SsubOverflow | UsubOverflowBin | SsubOverflowBin
        );
        // A carry or borrow in: 1 where non-zero.
        let cin = c.map(|c| {
            let cty = self.lower.dfg().value_type(c);
            let v = Context::zext(self, cty, c);
            let v = self.in_reg(v);
            let ne = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(v), Src::Imm(0));
            self.flag01(ne)
        });
        let aop = if sub { Op::Sub } else { Op::Add };
        if bits < 32 {
            let (a, b) = if signed {
                (Context::sext(self, ty, x), Context::sext(self, ty, y))
            } else {
                (Context::zext(self, ty, x), Context::zext(self, ty, y))
            };
            let mut r = self.op2(aop, Ty::B32, a, b);
            if let Some(ci) = cin {
                r = self.op2(aop, Ty::B32, Src::Reg(r), Src::Reg(ci));
            }
            let flag = if signed {
                let e = self.sext_bits(r, bits);
                let ne = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(e), Src::Reg(r));
                self.flag01(ne)
            } else {
                // The exact sum has a bit above the type; a difference below zero has all.
                let t = self.op2(Op::Shr, Ty::U32, Src::Reg(r), Src::Imm(bits));
                self.flag01(t)
            };
            return (r, flag);
        }
        let (xr, yr) = (Context::put_in_reg(self, x), Context::put_in_reg(self, y));
        let words = |r: Reg| -> Vec<Src> {
            if bits == 64 {
                vec![Src::Half(r, false), Src::Half(r, true)]
            } else {
                vec![Src::Reg(r)]
            }
        };
        let (xw, yw) = (words(xr), words(yr));
        // x + y (x + ~y + 1 for a difference: C is then "no borrow"), word by word.
        let (mut out, mut carry) = self.add_carry(aop, xw[0], yw[0], None);
        let mut result = vec![out];
        for k in 1..xw.len() {
            let b = if sub {
                Src::Reg(Context::logic(
                    self,
                    &Op::Xor,
                    yw[k],
                    Src::Imm(0),
                    true,
                    false,
                ))
            } else {
                yw[k]
            };
            (out, carry) = self.add_carry(Op::Addc, xw[k], b, Some(carry));
            result.push(out);
        }
        let mut flag = self.carry01(carry);
        if let Some(ci) = cin {
            // Then the carry (borrow) in, through every word; the two carries (borrows)
            // cannot both happen.
            let (l, mut c2) = self.add_carry(aop, Src::Reg(result[0]), Src::Reg(ci), None);
            result[0] = l;
            for word in result.iter_mut().skip(1) {
                let fill = Src::Imm(if sub { u32::MAX } else { 0 });
                (*word, c2) = self.add_carry(Op::Addc, Src::Reg(*word), fill, Some(c2));
            }
            let f2 = self.carry01(c2);
            let combine = if sub { Op::And } else { Op::Or };
            flag = self.op2(combine, Ty::B32, Src::Reg(flag), Src::Reg(f2));
        }
        if sub {
            // "No borrow" to "borrow".
            flag = self.op2(Op::Xor, Ty::B32, Src::Reg(flag), Src::Imm(1));
        }
        let top = *result.last().expect("one word at least");
        if signed {
            let (xt, yt) = (*xw.last().expect("a word"), *yw.last().expect("a word"));
            // Sum: the result's sign differs from both operands'; difference: the operands'
            // signs differ and the result's differs from x's.
            let a = Context::logic(self, &Op::Xor, xt, Src::Reg(top), false, false);
            let b = if sub {
                Context::logic(self, &Op::Xor, xt, yt, false, false)
            } else {
                Context::logic(self, &Op::Xor, yt, Src::Reg(top), false, false)
            };
            let t = self.op2(Op::And, Ty::B32, Src::Reg(a), Src::Reg(b));
            flag = self.op2(Op::Shr, Ty::U32, Src::Reg(t), Src::Imm(31));
        }
        let value = if bits == 64 {
            self.combine(result[0], result[1])
        } else {
            result[0]
        };
        (value, flag)
    }

    /// `umul_overflow`/`smul_overflow`: the wrapped product and whether the exact one is
    /// out of range.
    fn mul_overflow(&mut self, signed: bool, ty: ir::Type, x: Value, y: Value) -> (Reg, Reg) {
        let bits = ty.bits();
        if bits < 32 {
            let (a, b) = if signed {
                (Context::sext(self, ty, x), Context::sext(self, ty, y))
            } else {
                (Context::zext(self, ty, x), Context::zext(self, ty, y))
            };
            let (a, b) = (self.in_reg(a), self.in_reg(b));
            let mty = if signed { Ty::S16 } else { Ty::U16 };
            let p = self.mul16(mty, Src::H16(a, false), Src::H16(b, false), None);
            let fits = if signed {
                self.sext_bits(p, bits)
            } else {
                self.op2(Op::And, Ty::B32, Src::Reg(p), Src::Imm((1 << bits) - 1))
            };
            let ne = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(fits), Src::Reg(p));
            return (p, self.flag01(ne));
        }
        if bits == 32 {
            let (a, b) = (Context::put_in_reg(self, x), Context::put_in_reg(self, y));
            let (lo, hi) = self.mul_wide(a, b);
            let (hi, expect) = if signed {
                let hi = self.signed_high(hi, a, b);
                let s = self.op2(Op::Shr, Ty::S32, Src::Reg(lo), Src::Imm(31));
                (hi, Src::Reg(s))
            } else {
                (hi, Src::Imm(0))
            };
            let ne = self.set_reg(Cond::Lg, Ty::U32, Src::Reg(hi), expect);
            return (lo, self.flag01(ne));
        }
        let lo = self.imul64(x, y);
        let hi = self.mulhi64(signed, x, y);
        let s = if signed {
            Src::Reg(self.op2(Op::Shr, Ty::S32, Src::Half(lo, true), Src::Imm(31)))
        } else {
            Src::Imm(0)
        };
        let l = self.set_reg(Cond::Lg, Ty::U32, Src::Half(hi, false), s);
        let h = self.set_reg(Cond::Lg, Ty::U32, Src::Half(hi, true), s);
        let ne = self.op2(Op::Or, Ty::B32, Src::Reg(l), Src::Reg(h));
        (lo, self.flag01(ne))
    }

    /// `cond($c) ? t : f` in a new register (a predicated `mov`).
    pub(super) fn select_on(&mut self, c: Reg, cond: Cond, t: Reg, f: Reg) -> Reg {
        let dst = self.vreg(t.class());
        self.emit(Inst::Select { dst, cond, c, t, f });
        dst
    }

    /// `mask ? t : f` word by word for a mask of all ones or zeros.
    pub(super) fn blend(&mut self, mask: Reg, t: Reg, f: Reg) -> Reg {
        let a = Context::logic(self, &Op::And, Src::Reg(t), Src::Reg(mask), false, false);
        let b = Context::logic(self, &Op::And, Src::Reg(f), Src::Reg(mask), false, true);
        self.op2(Op::Or, Ty::B32, Src::Reg(a), Src::Reg(b))
    }

    /// Unsigned 64-bit division: (quotient, remainder) as pairs, exact for every input;
    /// y = 0 gives all ones and x, as `docs/ir.md` ("No traps") requires. Restoring
    /// division, unrolled: per bit, the remainder takes the dividend's next bit, y is
    /// subtracted where that does not borrow, and the carry (no borrow) is the quotient
    /// bit, shifted in with `addc`. The remainder stays below 2^63 while y is; a y of
    /// 2^63 or more (quotient 0 or 1) is computed apart and blended in.
    fn udivrem64(&mut self, x: Reg, y: Reg) -> (Reg, Reg) {
        let (xl, xh) = self.halves(x);
        let (yl, yh) = self.halves(y);
        let nyh = Context::logic(self, &Op::Xor, Src::Reg(yh), Src::Imm(0), true, false);
        let (mut ql, mut qh) = (xl, xh);
        let (mut rl, mut rh) = (Context::mov_imm(self, 0), Context::mov_imm(self, 0));
        for _ in 0..64 {
            let top = self.op2(Op::Shr, Ty::U32, Src::Reg(qh), Src::Imm(31));
            let (l, c) = self.add_carry(Op::Add, Src::Reg(rl), Src::Reg(rl), None);
            let h = self.addc(Src::Reg(rh), Src::Reg(rh), c);
            let l = self.op2(Op::Or, Ty::B32, Src::Reg(l), Src::Reg(top));
            let (tl, c) = self.add_carry(Op::Sub, Src::Reg(l), Src::Reg(yl), None);
            let (th, bit) = self.add_carry(Op::Addc, Src::Reg(h), Src::Reg(nyh), Some(c));
            rl = self.select_on(bit, Cond::C, tl, l);
            rh = self.select_on(bit, Cond::C, th, h);
            let (l, c) = self.add_carry(Op::Addc, Src::Reg(ql), Src::Reg(ql), Some(bit));
            qh = self.addc(Src::Reg(qh), Src::Reg(qh), c);
            ql = l;
        }
        // y ≥ 2^63: q = (x ≥ y), r = x − q·y.
        let (dl, c) = self.add_carry(Op::Sub, Src::Reg(xl), Src::Reg(yl), None);
        let (dh, ge) = self.add_carry(Op::Addc, Src::Reg(xh), Src::Reg(nyh), Some(c));
        let bq = self.carry01(ge);
        let brl = self.select_on(ge, Cond::C, dl, xl);
        let brh = self.select_on(ge, Cond::C, dh, xh);
        let big = self.op2(Op::Shr, Ty::S32, Src::Reg(yh), Src::Imm(31));
        let ql = self.blend(big, bq, ql);
        let zero = Context::mov_imm(self, 0);
        let qh = self.blend(big, zero, qh);
        let rl = self.blend(big, brl, rl);
        let rh = self.blend(big, brh, rh);
        (self.combine(ql, qh), self.combine(rl, rh))
    }

    /// `udiv`/`urem`/`sdiv`/`srem` of i64 (`docs/ir.md`, "No traps", for y = 0 and
    /// MIN / −1): signed on the magnitudes, the signs put back after.
    pub(super) fn divrem64(&mut self, signed: bool, rem: bool, x: Value, y: Value) -> Reg {
        let x = Context::put_in_reg(self, x);
        let y = Context::put_in_reg(self, y);
        if !signed {
            let (q, r) = self.udivrem64(x, y);
            return if rem { r } else { q };
        }
        let (xl, xh) = self.halves(x);
        let (yl, yh) = self.halves(y);
        let sx = self.op2(Op::Shr, Ty::S32, Src::Reg(xh), Src::Imm(31));
        let sy = self.op2(Op::Shr, Ty::S32, Src::Reg(yh), Src::Imm(31));
        let ax = self.neg64(xl, xh, Some(sx));
        let ay = self.neg64(yl, yh, Some(sy));
        let (q, r) = self.udivrem64(ax, ay);
        if rem {
            let (rl, rh) = self.halves(r);
            return self.neg64(rl, rh, Some(sx));
        }
        let s = self.op2(Op::Xor, Ty::B32, Src::Reg(sx), Src::Reg(sy));
        let (ql, qh) = self.halves(q);
        let q = self.neg64(ql, qh, Some(s));
        // y = 0: −1.
        let y0 = Context::logic(self, &Op::Or, Src::Reg(yl), Src::Reg(yh), false, false);
        let z = self.set_reg(Cond::E, Ty::U32, Src::Reg(y0), Src::Imm(0));
        let (ql, qh) = (Src::Half(q, false), Src::Half(q, true));
        let ql = Context::logic(self, &Op::Or, ql, Src::Reg(z), false, false);
        let qh = Context::logic(self, &Op::Or, qh, Src::Reg(z), false, false);
        self.combine(ql, qh)
    }
}
