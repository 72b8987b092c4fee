//! The f32 division and square-root sequences (`Inst::FDiv32`, `Inst::Sqrt32`).

use super::super::mc::{Op, Operand};
use super::{Emitter, reg_operand};
use crate::machinst::Reg;

/// f32 constants of the division and square-root sequences.
const F32_ONE: u32 = 0x3f80_0000;
const F32_2_POW_M96: u32 = 0x0f80_0000;
const F32_2_POW_32: u32 = 0x4f80_0000;
const F32_2_POW_M16: u32 = 0x3780_0000;
/// v_cmp_class_f32 mask bits (GCN3 ISA 6.4, V_CMP_CLASS_F32): -0, +0, +inf.
const CLASS_ZERO_OR_POS_INF: u32 = 1 << 5 | 1 << 6 | 1 << 9;

impl Emitter<'_> {
    /// `dst = num / den`, correctly rounded with denormals enabled: the algorithm of LLVM's
    /// `SITargetLowering::LowerFDIV32`. v_div_scale scales the operands by 2^±64 where the
    /// quotient or the reciprocal would leave the normal range (and sets VCC when the
    /// quotient must be scaled back), two Newton-Raphson steps refine v_rcp_f32's
    /// reciprocal and quotient, v_div_fmas does the last fma and undoes the scaling as VCC
    /// says, and v_div_fixup handles zeros, infinities, NaNs and overflow.
    ///
    /// Hazard (GCN3 ISA 4.5, "VALU writes VCC, then V_DIV_FMAS reads VCC: 4 wait states"):
    /// seven VALU instructions separate the second v_div_scale_f32 from v_div_fmas_f32.
    /// `src/sim/gcn/expansions/fdiv.rs` runs this exact expansion against Rust's `/`.
    pub(super) fn fdiv32(&mut self, dst: Reg, num: Reg, den: Reg, tmp: &[Reg; 4]) {
        let (d, n, q) = (
            reg_operand(dst, 0),
            reg_operand(num, 0),
            reg_operand(den, 0),
        );
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let one = Operand::inline_f32(F32_ONE, self.generation).expect("1.0 is inline");
        let neg0 = 0b001;
        // The first flag is not needed; writing it to VCC too saves an SGPR pair.
        self.valu(Op::VDivScaleF32, Some(t0), vcc, &[q, q, n], None); // den'
        self.valu(Op::VDivScaleF32, Some(t1), vcc, &[n, q, n], None); // num', VCC: scale back
        self.valu(Op::VRcpF32, Some(t2), None, &[t0], None); // r ≈ 1/den'
        self.valu_neg(Op::VFmaF32, t3, &[t0, t2, one], neg0); // e = 1 - den'·r
        self.valu(Op::VFmaF32, Some(t2), None, &[t3, t2, t2], None); // r += e·r
        self.valu(Op::VMulF32, Some(t3), None, &[t1, t2], None); // q = num'·r
        self.valu_neg(Op::VFmaF32, d, &[t0, t3, t1], neg0); // e = num' - den'·q
        self.valu(Op::VFmaF32, Some(t3), None, &[d, t2, t3], None); // q += e·r
        self.valu_neg(Op::VFmaF32, t0, &[t0, t3, t1], neg0); // e = num' - den'·q
        self.valu(Op::VDivFmasF32, Some(t0), None, &[t0, t2, t3], None); // e·r + q, scaled back
        self.valu(Op::VDivFixupF32, Some(d), None, &[t0, q, n], None);
    }

    /// `dst = sqrt(src)`, correctly rounded: the algorithm of LLVM's
    /// `SITargetLowering::lowerFSQRTF32` for denormal mode. v_sqrt_f32 is only faithful
    /// (1 ulp), so its neighbours s⁻ and s⁺ are tested: x - s⁻·s ≤ 0 means the root is
    /// below the midpoint of s⁻ and s, x - s⁺·s > 0 that it is above that of s and s⁺
    /// (the fma residuals are exact in sign). Inputs below 2^-96 are scaled by 2^32 first
    /// (the root by 2^16) so that the residuals stay normal; ±0 and +inf pass through.
    /// `src/sim/gcn/expansions/fdiv.rs` runs this exact expansion against `f32::sqrt`.
    pub(super) fn sqrt32(&mut self, dst: Reg, src: Reg, tmp: &[Reg; 4]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let zero = Operand::inline_int(0).unwrap();
        let (one, minus_one) = (
            Operand::inline_int(1).unwrap(),
            Operand::inline_int(-1).unwrap(),
        );
        self.valu(Op::VCmpGtF32, None, vcc, &[lit, x], Some(F32_2_POW_M96)); // tiny = x < 2^-96
        self.valu(Op::VMulF32, Some(t0), None, &[lit, x], Some(F32_2_POW_32));
        self.valu(
            Op::VCndmaskB32,
            Some(t0),
            None,
            &[x, t0, Operand::VCC],
            None,
        ); // x' = tiny ? x·2^32 : x
        self.valu(Op::VSqrtF32, Some(t1), None, &[t0], None); // s
        self.add_u32(t2, minus_one, t1); // s⁻ (bits - 1)
        self.valu_neg(Op::VFmaF32, t3, &[t2, t1, t0], 0b001); // x' - s⁻·s
        self.add_u32(d, one, t1); // s⁺ (bits + 1)
        self.valu_neg(Op::VFmaF32, t0, &[d, t1, t0], 0b001); // x' - s⁺·s
        self.valu(Op::VCmpGeF32, None, vcc, &[zero, t3], None);
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, t2, Operand::VCC],
            None,
        ); // x' - s⁻·s ≤ 0: s⁻
        self.valu(Op::VCmpLtF32, None, vcc, &[zero, t0], None);
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, d, Operand::VCC],
            None,
        ); // x' - s⁺·s > 0: s⁺
        self.valu(Op::VMulF32, Some(t2), None, &[lit, t1], Some(F32_2_POW_M16));
        self.valu(Op::VCmpGtF32, None, vcc, &[lit, x], Some(F32_2_POW_M96));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, t2, Operand::VCC],
            None,
        ); // tiny: s·2^-16
        // x and x' agree in class for ±0 and +inf, and are then equal.
        self.valu(
            Op::VMovB32,
            Some(t2),
            None,
            &[lit],
            Some(CLASS_ZERO_OR_POS_INF),
        );
        self.valu(Op::VCmpClassF32, None, vcc, &[x, t2], None);
        self.valu(Op::VCndmaskB32, Some(d), None, &[t1, x, Operand::VCC], None);
    }
}
