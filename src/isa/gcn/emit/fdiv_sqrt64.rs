//! The f64 division and square-root sequences (`Inst::FDiv64`, `Inst::Sqrt64`).

use super::super::mc::{Gen, Op, Operand};
use super::{Emitter, reg_operand};
use crate::machinst::Reg;

/// High words of f64 constants of the f64 division and square-root sequences.
const F64_ONE_HI: u32 = 0x3ff0_0000;
const F64_HALF_HI: u32 = 0x3fe0_0000;
const F64_2_POW_M767_HI: u32 = 0x1000_0000;
/// v_cmp_class_f64 mask bits: -0, +0, +inf.
const CLASS64_ZERO_OR_POS_INF: u32 = 1 << 5 | 1 << 6 | 1 << 9;

impl Emitter<'_> {
    /// The f64 constant whose low word is 0 and high word `hi`, into the pair `dst`.
    fn f64_const(&mut self, dst: Operand, hi: u32) {
        let zero = Operand::inline_int(0).unwrap();
        self.valu(Op::VMovB32, Some(dst), None, &[zero], None);
        let hi_dst = Operand(dst.0 + 1);
        let mut literal = None;
        let src = self.imm(hi, &mut literal);
        self.valu(Op::VMovB32, Some(hi_dst), None, &[src], literal);
    }

    /// `dst = num / den` in f64, correctly rounded with denormals: LLVM's
    /// `SITargetLowering::lowerFDIV64`. As in `fdiv32`, v_div_scale_f64 scales the operands
    /// by 2^±128 where the quotient or the reciprocal would leave the normal range and
    /// says in VCC whether v_div_fmas_f64 must scale back; two Newton-Raphson steps refine
    /// v_rcp_f64, one the quotient. On gfx6 the VCC output of v_div_scale is unusable
    /// (LLVM's `hasUsableDivScaleConditionOutput`): the condition is recomputed as "exactly
    /// one of numerator and denominator was scaled" from their high words. The hazard
    /// pass separates the VCC write from v_div_fmas_f64. `src/sim/gcn/expansions/fdiv64.rs` checks it.
    pub(super) fn fdiv64(&mut self, dst: Reg, num: Reg, den: Reg, tmp: &[Reg; 4]) {
        let (d, n, q) = (
            reg_operand(dst, 0),
            reg_operand(num, 0),
            reg_operand(den, 0),
        );
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let hi = |o: Operand| Operand(o.0 + 1);
        let vcc = Some(Operand::VCC);
        let neg0 = 0b001;
        self.valu(Op::VDivScaleF64, Some(t0), vcc, &[q, q, n], None); // den'
        self.valu(Op::VRcpF64, Some(t1), None, &[t0], None); // r ≈ 1/den'
        self.f64_const(t3, F64_ONE_HI);
        self.valu_neg(Op::VFmaF64, t2, &[t0, t1, t3], neg0); // e = 1 - den'·r
        self.valu(Op::VFmaF64, Some(t1), None, &[t1, t2, t1], None); // r += r·e
        self.valu_neg(Op::VFmaF64, t2, &[t0, t1, t3], neg0); // e = 1 - den'·r
        self.valu(Op::VDivScaleF64, Some(t3), vcc, &[n, q, n], None); // num', VCC: scale back
        self.valu(Op::VFmaF64, Some(t1), None, &[t1, t2, t1], None); // r += r·e
        self.valu(Op::VMulF64, Some(t2), None, &[t3, t1], None); // q = num'·r
        self.valu_neg(Op::VFmaF64, d, &[t0, t2, t3], neg0); // e = num' - den'·q
        if self.generation == Gen::Gfx6 {
            let (zero, one) = (
                Operand::inline_int(0).unwrap(),
                Operand::inline_int(1).unwrap(),
            );
            self.valu(Op::VCmpEqU32, None, vcc, &[hi(q), hi(t0)], None);
            self.valu(
                Op::VCndmaskB32,
                Some(t0),
                None,
                &[zero, one, Operand::VCC],
                None,
            );
            self.valu(Op::VCmpEqU32, None, vcc, &[hi(n), hi(t3)], None);
            self.valu(
                Op::VCndmaskB32,
                Some(hi(t0)),
                None,
                &[zero, one, Operand::VCC],
                None,
            );
            self.valu(Op::VCmpNeU32, None, vcc, &[t0, hi(t0)], None);
        }
        self.valu(Op::VDivFmasF64, Some(d), None, &[d, t1, t2], None); // e·r + q, scaled back
        self.valu(Op::VDivFixupF64, Some(d), None, &[d, q, n], None);
    }

    /// `dst = sqrt(src)` in f64, correctly rounded: LLVM's
    /// `SITargetLowering::lowerFSQRTF64`. Inputs below 2^-767 are scaled by 2^256 (the root
    /// by 2^128 after); from y = v_rsq_f64(x), s = x·y and h = y/2 are refined together by
    /// one Goldschmidt step (r = 1/2 - h·s), then s by two Newton-Raphson steps on the fma
    /// residual x - s². ±0 and +inf pass through. `src/sim/gcn/expansions/fdiv64.rs` checks it.
    pub(super) fn sqrt64(&mut self, dst: Reg, src: Reg, tmp: &[Reg; 4]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let zero = Operand::inline_int(0).unwrap();
        let neg0 = 0b001;
        self.f64_const(t0, F64_2_POW_M767_HI);
        self.valu(Op::VCmpGtF64, None, vcc, &[t0, x], None); // tiny = x < 2^-767
        self.valu(Op::VMovB32, Some(t1), None, &[lit], Some(256));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[zero, t1, Operand::VCC],
            None,
        );
        self.valu(Op::VLdexpF64, Some(t0), None, &[x, t1], None); // x' = tiny ? x·2^256 : x
        self.valu(Op::VRsqF64, Some(t2), None, &[t0], None); // y ≈ 1/√x'
        self.valu(Op::VMulF64, Some(t3), None, &[t0, t2], None); // s = x'·y
        let minus_one = Operand::inline_int(-1).unwrap();
        self.valu(Op::VLdexpF64, Some(t2), None, &[t2, minus_one], None); // h = y/2
        self.f64_const(t1, F64_HALF_HI);
        self.valu_neg(Op::VFmaF64, d, &[t2, t3, t1], neg0); // r = 1/2 - h·s
        self.valu(Op::VFmaF64, Some(t2), None, &[t2, d, t2], None); // h += h·r
        self.valu(Op::VFmaF64, Some(t3), None, &[t3, d, t3], None); // s += s·r
        self.valu_neg(Op::VFmaF64, d, &[t3, t3, t0], neg0); // e = x' - s²
        self.valu(Op::VFmaF64, Some(t3), None, &[d, t2, t3], None); // s += e·h
        self.valu_neg(Op::VFmaF64, d, &[t3, t3, t0], neg0); // e = x' - s²
        self.valu(Op::VFmaF64, Some(t3), None, &[d, t2, t3], None); // s += e·h
        self.valu(Op::VMovB32, Some(t1), None, &[lit], Some(-128i32 as u32));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[zero, t1, Operand::VCC],
            None,
        );
        self.valu(Op::VLdexpF64, Some(t3), None, &[t3, t1], None); // tiny: s·2^-128
        self.valu(
            Op::VMovB32,
            Some(t1),
            None,
            &[lit],
            Some(CLASS64_ZERO_OR_POS_INF),
        );
        // x and x' agree in class for ±0 and +inf, and are then equal.
        self.valu(Op::VCmpClassF64, None, vcc, &[t0, t1], None);
        let hi = |o: Operand| Operand(o.0 + 1);
        self.valu(
            Op::VCndmaskB32,
            Some(d),
            None,
            &[t3, t0, Operand::VCC],
            None,
        );
        self.valu(
            Op::VCndmaskB32,
            Some(hi(d)),
            None,
            &[hi(t3), hi(t0), Operand::VCC],
            None,
        );
    }
}
