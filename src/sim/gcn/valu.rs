//! Per-lane semantics of the GCN vector-ALU operations: every `Form::Valu` row of the MC
//! opcode table except the three that read or write other lanes, on every generation that
//! has it (the semantics do not differ between gfx6 and gfx9 for these rows; integer clamp
//! exists from gfx8 on).
//!
//! Float semantics (NaN propagation, denormals, the transcendental unit, the division
//! helpers) are in `float.rs`, whose header records the choices made where the manuals are
//! silent. Integer semantics follow the opcode descriptions of the ISA manuals (GCN3 ISA
//! 12.7–12.8; the same text in the Vega ISA): shift amounts use the low 5 bits (6 for
//! 64-bit shifts), v_bfe_* the low 5 bits of offset and width, "find first bit" operations
//! return 0xffffffff when there is none.
//!
//! Modifiers, in this order: SDWA's source selects (the selected part moved to bit 0, zero-
//! or sign-extended), input abs then neg, only on sources that take them (`FSRC*`; on bit 63
//! of 64-bit sources and bit 15 of the f16 source of `v_cvt_f32_f16`), the operation, clamp, then SDWA's destination select. The manuals
//! give SDWA's fields without an order; selecting first makes the selects pick register
//! bits and the float modifiers act on the operand the operation sees, the only order in
//! which `neg` of a selected half keeps its meaning. DPP's lane fetch happens before all of
//! this, in the wave core (`dpp.rs`). Rejected as errors rather than guessed:
//! - any output modifier (omod): LLVM's SIFoldOperands notes the hardware ignores it in
//!   IEEE mode and with output denormals enabled, both of which wavelift's mode sets;
//! - clamp on integer results other than the carry-writing adds and subtracts (which
//!   saturate, unsigned, from gfx8 on, as LLVM uses them for `uaddsat`/`usubsat`).

use super::float;
use crate::isa::gcn::mc::{Enc, FOUT, Form, Gen, McInst, Op};

/// One lane's inputs to a VALU operation, as the wave core reads them.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct LaneInputs {
    /// Source values as raw bits (64-bit operands use all 64 bits, 32-bit ones the low
    /// 32), before input modifiers. Absent sources are 0.
    pub src: [u64; 3],
    /// The destination VGPR(s) before the instruction (`v_mac_f32` accumulates into it).
    pub dst_old: u64,
    /// This lane's bit of the lane-mask operand: the carry-in of `v_addc_u32`/`v_subb*`,
    /// the selector of `v_cndmask_b32` (VCC in VOP2, the SGPR pair in src2 in VOP3), and
    /// VCC for `v_div_fmas_f32`.
    pub mask_in: bool,
    /// The lane's index in the wave (0–63), for `v_mbcnt_*`.
    pub lane: u32,
}

/// One lane's results.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneOutputs {
    /// The VGPR result (low 32 bits for 32-bit results).
    pub dst: u64,
    /// This lane's bit of the scalar result: a compare result, a carry/borrow-out, the VCC
    /// result of `v_div_scale_f32`.
    pub sdst: bool,
}

impl LaneOutputs {
    fn b32(value: u32) -> Self {
        LaneOutputs {
            dst: value as u64,
            sdst: false,
        }
    }
    fn b64(value: u64) -> Self {
        LaneOutputs {
            dst: value,
            sdst: false,
        }
    }
    fn f32(value: f32) -> Self {
        Self::b32(value.to_bits())
    }
    fn f64(value: f64) -> Self {
        Self::b64(value.to_bits())
    }
    fn mask(bit: bool) -> Self {
        LaneOutputs { dst: 0, sdst: bit }
    }
    fn with_carry(value: u32, carry: bool) -> Self {
        LaneOutputs {
            dst: value as u64,
            sdst: carry,
        }
    }
}

/// Executes the lane-local VALU operation `inst` for one lane, applying its input
/// modifiers (SDWA selects, abs, neg), clamp, output modifier and SDWA destination select
/// (`input.dst_old` supplies the bits `dst_unused:UNUSED_PRESERVE` keeps). Operations that
/// read other lanes (`v_readlane_b32`, `v_readfirstlane_b32`, `v_writelane_b32`) belong to
/// the wave core and are an error here.
pub(crate) fn exec(
    inst: &McInst,
    generation: Gen,
    input: &LaneInputs,
) -> Result<LaneOutputs, String> {
    let info = inst.op.info();
    let name = info.mnemonic(generation);
    if info.form != Form::Valu {
        return Err(format!("{name} is not a vector-ALU operation"));
    }
    if !info.available(generation) {
        return Err(format!("{name} does not exist on {generation:?}"));
    }
    let output_modifiers = inst.clamp || inst.omod != 0;
    let modifiers_fit = match inst.enc {
        Enc::Vop3 | Enc::Sdwa => true,
        Enc::Dpp => !output_modifiers,
        _ => inst.abs | inst.neg == 0 && !output_modifiers,
    };
    if !modifiers_fit {
        return Err(format!(
            "{name}: modifiers need the VOP3 encoding (abs/neg also SDWA and DPP, clamp SDWA)"
        ));
    }
    if (inst.abs | inst.neg) & !info.float_srcs() != 0 {
        return Err(format!(
            "{name}: abs/neg on a source that takes no float modifiers"
        ));
    }
    if inst.omod != 0 {
        return Err(format!(
            "{name}: omod is ignored by the hardware in IEEE mode with denormals on; not modelled"
        ));
    }
    let mut src = input.src;
    if let Some(sel) = inst.sdwa {
        for (i, s) in src.iter_mut().enumerate().take(2) {
            if info.src[i] != 0 {
                *s = sel.src_sel[i].extract(*s as u32, sel.sext >> i & 1 != 0) as u64;
            }
        }
    }
    for (i, s) in src.iter_mut().enumerate() {
        // The sign of the operand's float type: bit 15 of `v_cvt_f32_f16`'s f16 source.
        let sign = match (info.src[i], inst.op) {
            (2, _) => 1 << 63,
            (_, Op::VCvtF32F16) => 1 << 15,
            _ => 1 << 31,
        };
        if inst.abs >> i & 1 != 0 {
            *s &= !sign;
        }
        if inst.neg >> i & 1 != 0 {
            *s ^= sign;
        }
    }
    let mut out = lane_op(inst.op, &src, input)
        .ok_or_else(|| format!("{name} reads or writes other lanes; the wave core executes it"))?;
    if inst.clamp {
        clamp(
            inst.op,
            generation,
            info.flags & FOUT != 0,
            info.dst,
            &mut out,
        )
        .map_err(|e| format!("{name}: {e}"))?;
    }
    if let Some(sel) = inst.sdwa
        && info.dst != 0
    {
        out.dst = sel
            .dst_sel
            .insert(out.dst as u32, input.dst_old as u32, sel.dst_unused) as u64;
    }
    Ok(out)
}

/// Applies the clamp bit to a result.
fn clamp(
    op: Op,
    generation: Gen,
    float_result: bool,
    width: u8,
    out: &mut LaneOutputs,
) -> Result<(), String> {
    use Op::*;
    if float_result {
        out.dst = if width == 2 {
            float::clamp(f64::from_bits(out.dst)).to_bits()
        } else {
            float::clamp(f32::from_bits(out.dst as u32)).to_bits() as u64
        };
        return Ok(());
    }
    if generation < Gen::Gfx8 {
        return Err("integer clamp needs gfx8".into());
    }
    // Unsigned saturation: a carry-out means the sum overflowed, a borrow-out that the
    // difference went below zero.
    match op {
        VAddU32 | VAddcU32 if out.sdst => out.dst = u32::MAX as u64,
        VSubU32 | VSubrevU32 | VSubbU32 | VSubbrevU32 if out.sdst => out.dst = 0,
        VAddU32 | VAddcU32 | VSubU32 | VSubrevU32 | VSubbU32 | VSubbrevU32 => {}
        _ => return Err("clamp on this integer operation is not modelled".into()),
    }
    Ok(())
}

/// The operation itself on modified sources; `None` for the lane-crossing operations.
fn lane_op(op: Op, s: &[u64; 3], input: &LaneInputs) -> Option<LaneOutputs> {
    use LaneOutputs as Out;
    use Op::*;
    let u = |i: usize| s[i] as u32;
    let i = |i: usize| s[i] as u32 as i32;
    let h = |i: usize| s[i] as u16;
    let f = |i: usize| f32::from_bits(s[i] as u32);
    let d = |i: usize| f64::from_bits(s[i]);
    let out = match op {
        VReadfirstlaneB32 | VReadlaneB32 | VWritelaneB32 => return None,

        // Moves, bit operations.
        VMovB32 => Out::b32(u(0)),
        VNotB32 => Out::b32(!u(0)),
        VBfrevB32 => Out::b32(u(0).reverse_bits()),
        VFfbhU32 => Out::b32(find_first(u(0), u32::leading_zeros)),
        VFfblB32 => Out::b32(find_first(u(0), u32::trailing_zeros)),
        // The first bit from the MSB that differs from the sign bit.
        VFfbhI32 => Out::b32(find_first(u(0) ^ (i(0) >> 31) as u32, u32::leading_zeros)),
        VAndB32 => Out::b32(u(0) & u(1)),
        VOrB32 => Out::b32(u(0) | u(1)),
        VXorB32 => Out::b32(u(0) ^ u(1)),
        VBfiB32 => Out::b32(u(0) & u(1) | !u(0) & u(2)),
        VAlignbitB32 => Out::b32(((s[0] << 32 | u(1) as u64) >> (u(2) & 31)) as u32),
        VPermB32 => Out::b32(perm(u(0), u(1), u(2))),
        VXadU32 => Out::b32((u(0) ^ u(1)).wrapping_add(u(2))),
        VLshlAddU32 => Out::b32((u(0) << (u(1) & 31)).wrapping_add(u(2))),
        VAddLshlU32 => Out::b32(u(0).wrapping_add(u(1)) << (u(2) & 31)),
        VAdd3U32 => Out::b32(u(0).wrapping_add(u(1)).wrapping_add(u(2))),
        VLshlOrB32 => Out::b32(u(0) << (u(1) & 31) | u(2)),
        VAndOrB32 => Out::b32(u(0) & u(1) | u(2)),
        VOr3B32 => Out::b32(u(0) | u(1) | u(2)),
        VBfeU32 => Out::b32(bfe_u32(u(0), u(1) & 31, u(2) & 31)),
        VBfeI32 => Out::b32(bfe_i32(u(0), u(1) & 31, u(2) & 31) as u32),
        VBcntU32B32 => Out::b32(u(0).count_ones().wrapping_add(u(1))),
        VMbcntLoU32B32 => {
            let below = (1u64 << input.lane.min(63)) - 1;
            Out::b32((u(0) & below as u32).count_ones().wrapping_add(u(1)))
        }
        VMbcntHiU32B32 => {
            let below = (1u64 << input.lane.min(63)) - 1;
            Out::b32(
                (u(0) & (below >> 32) as u32)
                    .count_ones()
                    .wrapping_add(u(1)),
            )
        }
        VCndmaskB32 => Out::b32(if input.mask_in { u(1) } else { u(0) }),

        // Shifts: the amount is src0 ("rev"), masked to the operand width.
        VLshlrevB32 => Out::b32(u(1) << (u(0) & 31)),
        VLshrrevB32 => Out::b32(u(1) >> (u(0) & 31)),
        VAshrrevI32 => Out::b32((i(1) >> (u(0) & 31)) as u32),
        VLshlrevB64 => Out::b64(s[1] << (u(0) & 63)),
        VLshrrevB64 => Out::b64(s[1] >> (u(0) & 63)),
        VAshrrevI64 => Out::b64(((s[1] as i64) >> (u(0) & 63)) as u64),
        // gfx6/gfx7: the value first, the amount second.
        VLshlB64 => Out::b64(s[0] << (u(1) & 63)),
        VLshrB64 => Out::b64(s[0] >> (u(1) & 63)),
        VAshrI64 => Out::b64(((s[0] as i64) >> (u(1) & 63)) as u64),

        // Integer arithmetic.
        VMinI32 => Out::b32(i(0).min(i(1)) as u32),
        VMaxI32 => Out::b32(i(0).max(i(1)) as u32),
        VMinU32 => Out::b32(u(0).min(u(1))),
        VMaxU32 => Out::b32(u(0).max(u(1))),
        VMulI32I24 => {
            let i24 = |x: u32| ((x << 8) as i32) >> 8;
            Out::b32(i24(u(0)).wrapping_mul(i24(u(1))) as u32)
        }
        VMulU32U24 => Out::b32((u(0) & 0xff_ffff).wrapping_mul(u(1) & 0xff_ffff)),
        VMulLoU32 => Out::b32(u(0).wrapping_mul(u(1))),
        VMulHiU32 => Out::b32(((u(0) as u64 * u(1) as u64) >> 32) as u32),
        VMulHiI32 => Out::b32(((i(0) as i64 * i(1) as i64) >> 32) as u32),
        VAddU32 => add_carry(u(0), u(1), false),
        VAddcU32 => add_carry(u(0), u(1), input.mask_in),
        VSubU32 => sub_borrow(u(0), u(1), false),
        VSubbU32 => sub_borrow(u(0), u(1), input.mask_in),
        VSubrevU32 => sub_borrow(u(1), u(0), false),
        VSubbrevU32 => sub_borrow(u(1), u(0), input.mask_in),
        // 16-bit operations (gfx8/gfx9) read the low 16 bits of their sources and zero
        // the high 16 bits of the destination (GCN3 ISA 6.2.2 "16-bit operations"; llc-19
        // returns their result as a zero-extended i16 without a mask on gfx8/gfx9). A
        // shift takes the amount's low 4 bits.
        VAddU16 => Out::b32(h(0).wrapping_add(h(1)) as u32),
        VSubU16 => Out::b32(h(0).wrapping_sub(h(1)) as u32),
        VSubrevU16 => Out::b32(h(1).wrapping_sub(h(0)) as u32),
        VMulLoU16 => Out::b32(h(0).wrapping_mul(h(1)) as u32),
        VLshlrevB16 => Out::b32((h(1) << (h(0) & 15)) as u32),
        VLshrrevB16 => Out::b32((h(1) >> (h(0) & 15)) as u32),
        VAshrrevI16 => Out::b32(((h(1) as i16) >> (h(0) & 15)) as u16 as u32),
        VMaxU16 => Out::b32(h(0).max(h(1)) as u32),
        VMaxI16 => Out::b32((h(0) as i16).max(h(1) as i16) as u16 as u32),
        VMinU16 => Out::b32(h(0).min(h(1)) as u32),
        VMinI16 => Out::b32((h(0) as i16).min(h(1) as i16) as u16 as u32),
        // gfx9's adds without carry-out.
        VAddNcU32 => Out::b32(u(0).wrapping_add(u(1))),
        VSubNcU32 => Out::b32(u(0).wrapping_sub(u(1))),
        VSubrevNcU32 => Out::b32(u(1).wrapping_sub(u(0))),
        // {carry, D} = the 65-bit result (the manuals' `{vcc_out, D.u64}`).
        VMadU64U32 => {
            let r = u(0) as u128 * u(1) as u128 + s[2] as u128;
            Out {
                dst: r as u64,
                sdst: r >> 64 & 1 != 0,
            }
        }
        VMadI64I32 => {
            let r = i(0) as i128 * i(1) as i128 + s[2] as i64 as i128;
            Out {
                dst: r as u64,
                sdst: r >> 64 & 1 != 0,
            }
        }

        // f32 arithmetic.
        VAddF32 => Out::f32(float::add(f(0), f(1))),
        VSubF32 => Out::f32(float::sub(f(0), f(1))),
        VSubrevF32 => Out::f32(float::subrev(f(0), f(1))),
        VMulF32 => Out::f32(float::mul(f(0), f(1))),
        VFmaF32 => Out::f32(float::fma(f(0), f(1), f(2))),
        // K is the literal source of madmk/madak, so both are S0 * S1 + S2 in source order.
        VMadF32 | VMadmkF32 | VMadakF32 => Out::f32(float::mad_ftz(f(0), f(1), f(2))),
        VMacF32 => Out::f32(float::mad_ftz(
            f(0),
            f(1),
            f32::from_bits(input.dst_old as u32),
        )),
        // The DX9 rules LLVM selects them for (`fcmp` + `select` on gfx6/gfx7): S0 when it
        // compares ordered less (greater) than S1, else S1, NaNs included.
        VMinLegacyF32 => Out::f32(if f(0) < f(1) { f(0) } else { f(1) }),
        VMaxLegacyF32 => Out::f32(if f(0) > f(1) { f(0) } else { f(1) }),
        VMinF32 => Out::f32(float::min(f(0), f(1))),
        VMaxF32 => Out::f32(float::max(f(0), f(1))),
        VMed3F32 => Out::f32(float::med3(f(0), f(1), f(2))),
        VLdexpF32 => Out::f32(float::ldexp(f(0), i(1))),
        VFractF32 => Out::f32(float::fract(f(0))),
        VTruncF32 => Out::f32(float::round(f(0), f32::trunc)),
        VCeilF32 => Out::f32(float::round(f(0), f32::ceil)),
        VFloorF32 => Out::f32(float::round(f(0), f32::floor)),
        VRndneF32 => Out::f32(float::round(f(0), f32::round_ties_even)),
        VFrexpMantF32 => Out::f32(float::frexp_mant(f(0))),
        VFrexpExpI32F32 => Out::b32(float::frexp_exp(f(0)) as u32),
        VRcpF32 | VRcpIflagF32 => Out::f32(float::rcp(f(0), 0)),
        VRsqF32 => Out::f32(float::rsq(f(0))),
        VSqrtF32 => Out::f32(float::sqrt(f(0), 0)),
        VDivScaleF32 => {
            let (value, vcc) = float::div_scale(f(0), f(1), f(2));
            Out {
                dst: value.to_bits() as u64,
                sdst: vcc,
            }
        }
        VDivFmasF32 => Out::f32(float::div_fmas(f(0), f(1), f(2), input.mask_in)),
        VDivFixupF32 => Out::f32(float::div_fixup(f(0), f(1), f(2))),

        // Conversions. The float-to-integer ones truncate, saturate and map NaN to 0,
        // exactly Rust's `as`.
        VCvtF32I32 => Out::f32(i(0) as f32),
        VCvtF32U32 => Out::f32(u(0) as f32),
        VCvtF32Ubyte0 => Out::f32((u(0) & 0xff) as f32),
        VCvtF32Ubyte1 => Out::f32((u(0) >> 8 & 0xff) as f32),
        VCvtF32Ubyte2 => Out::f32((u(0) >> 16 & 0xff) as f32),
        VCvtF32Ubyte3 => Out::f32((u(0) >> 24) as f32),
        VCvtI32F32 => Out::b32(f(0) as i32 as u32),
        VCvtU32F32 => Out::b32(f(0) as u32),
        VCvtF64F32 => Out::f64(float::f32_to_f64(f(0))),
        VCvtF32F64 => Out::f32(float::f64_to_f32(d(0))),
        // The f16 source is the low half of the dword; the f16 result is written with the
        // upper half zero (GCN3 ISA 6.2: 16-bit results zero the upper bits).
        VCvtF32F16 => Out::f32(float::f16_to_f32(u(0) as u16)),
        VCvtF16F32 => Out::b32(float::f32_to_f16(f(0)) as u32),
        // S0 in the low half, S1 in the high half.
        VCvtPkrtzF16F32 => Out::b32(
            float::f32_to_f16_rtz(f(0)) as u32 | (float::f32_to_f16_rtz(f(1)) as u32) << 16,
        ),

        // f64 arithmetic.
        VAddF64 => Out::f64(float::add64(d(0), d(1))),
        VMulF64 => Out::f64(float::mul64(d(0), d(1))),
        VFmaF64 => Out::f64(float::fma64(d(0), d(1), d(2))),
        VRcpF64 => Out::f64(float::rcp64(d(0))),
        VMinF64 => Out::f64(float::min(d(0), d(1))),
        VRsqF64 => Out::f64(float::rsq64(d(0), 0)),
        VDivScaleF64 => {
            let (value, vcc) = float::div_scale(d(0), d(1), d(2));
            Out {
                dst: value.to_bits(),
                sdst: vcc,
            }
        }
        VDivFmasF64 => Out::f64(float::div_fmas(d(0), d(1), d(2), input.mask_in)),
        VDivFixupF64 => Out::f64(float::div_fixup(d(0), d(1), d(2))),
        VMaxF64 => Out::f64(float::max(d(0), d(1))),
        VLdexpF64 => Out::f64(float::ldexp64(d(0), i(1))),
        VTruncF64 => Out::f64(float::round64(d(0), f64::trunc)),
        VCeilF64 => Out::f64(float::round64(d(0), f64::ceil)),
        VFloorF64 => Out::f64(float::round64(d(0), f64::floor)),
        VRndneF64 => Out::f64(float::round64(d(0), f64::round_ties_even)),
        // Like the f32 conversions: truncate, saturate, NaN to 0 (Rust's `as`).
        VCvtI32F64 => Out::b32(d(0) as i32 as u32),
        VCvtU32F64 => Out::b32(d(0) as u32),
        VCvtF64I32 => Out::f64(i(0) as f64),
        VCvtF64U32 => Out::f64(u(0) as f64),
        VCmpClassF64 => Out::mask(float::class(d(0), u(1))),
        VCmpFF64 | VCmpLtF64 | VCmpEqF64 | VCmpLeF64 | VCmpGtF64 | VCmpLgF64 | VCmpGeF64
        | VCmpOF64 | VCmpUF64 | VCmpNgeF64 | VCmpNlgF64 | VCmpNgtF64 | VCmpNleF64 | VCmpNeqF64
        | VCmpNltF64 | VCmpTruF64 => Out::mask(compare_order(
            f64_compare_as_f32(op),
            d(0).partial_cmp(&d(1)),
        )),

        // Compares.
        VCmpClassF32 => Out::mask(float::class(f(0), u(1))),
        VCmpFF32 | VCmpLtF32 | VCmpEqF32 | VCmpLeF32 | VCmpGtF32 | VCmpLgF32 | VCmpGeF32
        | VCmpOF32 | VCmpUF32 | VCmpNgeF32 | VCmpNlgF32 | VCmpNgtF32 | VCmpNleF32 | VCmpNeqF32
        | VCmpNltF32 | VCmpTruF32 => Out::mask(compare_f32(op, f(0), f(1))),
        VCmpFI32 | VCmpLtI32 | VCmpEqI32 | VCmpLeI32 | VCmpGtI32 | VCmpNeI32 | VCmpGeI32
        | VCmpTI32 => Out::mask(compare(op, i(0).cmp(&i(1)))),
        VCmpFU32 | VCmpLtU32 | VCmpEqU32 | VCmpLeU32 | VCmpGtU32 | VCmpNeU32 | VCmpGeU32
        | VCmpTU32 => Out::mask(compare(op, u(0).cmp(&u(1)))),
        VCmpFI64 | VCmpLtI64 | VCmpEqI64 | VCmpLeI64 | VCmpGtI64 | VCmpNeI64 | VCmpGeI64
        | VCmpTI64 => Out::mask(compare(op, (s[0] as i64).cmp(&(s[1] as i64)))),
        VCmpFU64 | VCmpLtU64 | VCmpEqU64 | VCmpLeU64 | VCmpGtU64 | VCmpNeU64 | VCmpGeU64
        | VCmpTU64 => Out::mask(compare(op, s[0].cmp(&s[1]))),

        _ => unreachable!("{op:?} is not a vector-ALU operation (checked by the caller)"),
    };
    Some(out)
}

/// A "find first bit" count, or 0xffffffff when `x` has no set bit.
fn find_first(x: u32, count: fn(u32) -> u32) -> u32 {
    if x == 0 { u32::MAX } else { count(x) }
}

/// `v_perm_b32` (GCN3 ISA 12.7, Vega ISA 12.8): each result byte from a selector byte of
/// `sel` over the eight bytes of {s0 (high), s1 (low)}: 0–7 a byte, 8–11 the sign of
/// byte 1, 3, 5 or 7 replicated, 12 zero, 13 and above 0xff.
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = (s0 as u64) << 32 | s1 as u64;
    let byte = |k: u32| -> u32 {
        match k {
            0..=7 => (data >> (8 * k)) as u32 & 0xff,
            8..=11 => {
                let bit = 16 * (k - 8) + 15;
                if data >> bit & 1 != 0 { 0xff } else { 0 }
            }
            12 => 0,
            _ => 0xff,
        }
    };
    (0..4).fold(0, |d, i| d | byte(sel >> (8 * i) & 0xff) << (8 * i))
}

fn bfe_u32(x: u32, offset: u32, width: u32) -> u32 {
    if width == 0 {
        0
    } else {
        (x >> offset) & ((1 << width) - 1)
    }
}

/// The field sign-extended from its top bit; a field reaching past bit 31 takes bit 31 as
/// its sign (LLVM's constant folding of `AMDGPUISD::BFE_I32`).
fn bfe_i32(x: u32, offset: u32, width: u32) -> i32 {
    if width == 0 {
        0
    } else if offset + width < 32 {
        ((x << (32 - offset - width)) as i32) >> (32 - width)
    } else {
        (x as i32) >> offset
    }
}

fn add_carry(a: u32, b: u32, carry_in: bool) -> LaneOutputs {
    let sum = a as u64 + b as u64 + carry_in as u64;
    LaneOutputs::with_carry(sum as u32, sum >> 32 != 0)
}

/// `a - b - borrow_in` and its borrow-out (b + borrow_in > a).
fn sub_borrow(a: u32, b: u32, borrow_in: bool) -> LaneOutputs {
    let subtrahend = b as u64 + borrow_in as u64;
    LaneOutputs::with_carry(
        (a as u64).wrapping_sub(subtrahend) as u32,
        subtrahend > a as u64,
    )
}

/// An integer compare, from the ordering of its operands.
fn compare(op: Op, ord: std::cmp::Ordering) -> bool {
    use Op::*;
    use std::cmp::Ordering::*;
    match op {
        VCmpFI32 | VCmpFU32 | VCmpFI64 | VCmpFU64 => false,
        VCmpLtI32 | VCmpLtU32 | VCmpLtI64 | VCmpLtU64 => ord == Less,
        VCmpEqI32 | VCmpEqU32 | VCmpEqI64 | VCmpEqU64 => ord == Equal,
        VCmpLeI32 | VCmpLeU32 | VCmpLeI64 | VCmpLeU64 => ord != Greater,
        VCmpGtI32 | VCmpGtU32 | VCmpGtI64 | VCmpGtU64 => ord == Greater,
        VCmpNeI32 | VCmpNeU32 | VCmpNeI64 | VCmpNeU64 => ord != Equal,
        VCmpGeI32 | VCmpGeU32 | VCmpGeI64 | VCmpGeU64 => ord != Less,
        VCmpTI32 | VCmpTU32 | VCmpTI64 | VCmpTU64 => true,
        _ => unreachable!("{op:?} is not an integer compare"),
    }
}

/// An f32 compare (GCN3 ISA 12.8, VOPC): the ordered predicates are false for unordered
/// operands, the `n…` ones are their negations; −0 equals +0.
fn compare_f32(op: Op, a: f32, b: f32) -> bool {
    compare_order(op, a.partial_cmp(&b))
}

/// The f32 compare with the predicate of an f64 one.
fn f64_compare_as_f32(op: Op) -> Op {
    use Op::*;
    match op {
        VCmpFF64 => VCmpFF32,
        VCmpLtF64 => VCmpLtF32,
        VCmpEqF64 => VCmpEqF32,
        VCmpLeF64 => VCmpLeF32,
        VCmpGtF64 => VCmpGtF32,
        VCmpLgF64 => VCmpLgF32,
        VCmpGeF64 => VCmpGeF32,
        VCmpOF64 => VCmpOF32,
        VCmpUF64 => VCmpUF32,
        VCmpNgeF64 => VCmpNgeF32,
        VCmpNlgF64 => VCmpNlgF32,
        VCmpNgtF64 => VCmpNgtF32,
        VCmpNleF64 => VCmpNleF32,
        VCmpNeqF64 => VCmpNeqF32,
        VCmpNltF64 => VCmpNltF32,
        VCmpTruF64 => VCmpTruF32,
        _ => unreachable!("{op:?} is not an f64 compare"),
    }
}

/// A float compare's predicate (named by its f32 opcode) on the operands' ordering.
fn compare_order(op: Op, order: Option<std::cmp::Ordering>) -> bool {
    use Op::*;
    use std::cmp::Ordering::*;
    match op {
        VCmpFF32 => false,
        VCmpLtF32 => order == Some(Less),
        VCmpEqF32 => order == Some(Equal),
        VCmpLeF32 => matches!(order, Some(Less | Equal)),
        VCmpGtF32 => order == Some(Greater),
        VCmpLgF32 => matches!(order, Some(Less | Greater)),
        VCmpGeF32 => matches!(order, Some(Greater | Equal)),
        VCmpOF32 => order.is_some(),
        VCmpUF32 => order.is_none(),
        VCmpNgeF32 => !compare_order(VCmpGeF32, order),
        VCmpNlgF32 => !compare_order(VCmpLgF32, order),
        VCmpNgtF32 => !compare_order(VCmpGtF32, order),
        VCmpNleF32 => !compare_order(VCmpLeF32, order),
        VCmpNeqF32 => !compare_order(VCmpEqF32, order),
        VCmpNltF32 => !compare_order(VCmpLtF32, order),
        VCmpTruF32 => true,
        _ => unreachable!("{op:?} is not an f32 compare"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::mc::{DstUnused, SDST_OUT, Sdwa, SdwaSel};

    const GENS: [Gen; 4] = [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9];

    /// `op` on gfx8 (gfx9 for what only gfx9 has) with raw sources, no modifiers.
    fn run(op: Op, src: [u64; 3]) -> LaneOutputs {
        let generation = if op.info().available(Gen::Gfx8) {
            Gen::Gfx8
        } else {
            Gen::Gfx9
        };
        run_in(op, generation, src, |_, _| {}).unwrap()
    }

    /// `op` in VOP3 encoding on `generation`, with `setup` changing the instruction (modifiers)
    /// and the lane inputs.
    fn run_in(
        op: Op,
        generation: Gen,
        src: [u64; 3],
        setup: impl FnOnce(&mut McInst, &mut LaneInputs),
    ) -> Result<LaneOutputs, String> {
        let mut inst = McInst::new(op, Enc::Vop3);
        let mut input = LaneInputs {
            src,
            ..LaneInputs::default()
        };
        setup(&mut inst, &mut input);
        exec(&inst, generation, &input)
    }

    fn bits(x: f32) -> u64 {
        x.to_bits() as u64
    }

    /// An f32 operation on f32 operands.
    fn f(op: Op, xs: &[f32]) -> f32 {
        let mut src = [0; 3];
        for (s, &x) in src.iter_mut().zip(xs) {
            *s = bits(x);
        }
        f32::from_bits(run(op, src).dst as u32)
    }

    fn d(op: Op, xs: &[f64]) -> f64 {
        let mut src = [0; 3];
        for (s, &x) in src.iter_mut().zip(xs) {
            *s = x.to_bits();
        }
        f64::from_bits(run(op, src).dst)
    }

    fn u(op: Op, xs: &[u32]) -> u32 {
        let mut src = [0; 3];
        for (s, &x) in src.iter_mut().zip(xs) {
            *s = x as u64;
        }
        run(op, src).dst as u32
    }

    fn assert_same(got: f32, want: f32) {
        assert_eq!(got.to_bits(), want.to_bits(), "got {got:e}, want {want:e}");
    }

    const SNAN: f32 = f32::from_bits(0x7fa0_0001);
    const QNAN: f32 = f32::from_bits(0xffc0_0123);
    const DENORM: f32 = f32::from_bits(0x0000_0003);
    const MAX_DENORM: f32 = f32::from_bits(0x007f_ffff);
    const INF: f32 = f32::INFINITY;

    #[test]
    fn every_valu_op_is_implemented() {
        let lane_crossing = [Op::VReadlaneB32, Op::VReadfirstlaneB32, Op::VWritelaneB32];
        let mut count = 0;
        for op in Op::all().filter(|op| op.info().form == Form::Valu) {
            for generation in GENS {
                let result = run_in(
                    op,
                    generation,
                    [0x3f80_0000, 0x4000_0000, 0x4040_0000],
                    |_, _| {},
                );
                if !op.info().available(generation) || lane_crossing.contains(&op) {
                    assert!(result.is_err(), "{op:?} on {generation:?}");
                } else {
                    assert!(result.is_ok(), "{op:?} on {generation:?}: {result:?}");
                    count += 1;
                }
            }
        }
        assert!(count > 400, "{count}");
        // Only the lane-crossing operations write SGPRs.
        for op in lane_crossing {
            assert!(op == Op::VWritelaneB32 || op.info().flags & SDST_OUT != 0);
        }
    }

    #[test]
    fn moves_and_bit_operations() {
        assert_eq!(u(Op::VMovB32, &[0x1234_5678]), 0x1234_5678);
        assert_eq!(u(Op::VNotB32, &[0x0f0f_0000]), 0xf0f0_ffff);
        assert_eq!(u(Op::VBfrevB32, &[0x0000_0001]), 0x8000_0000);
        assert_eq!(u(Op::VBfrevB32, &[0x1234_5678]), 0x1e6a_2c48);
        assert_eq!(u(Op::VAndB32, &[0xff00, 0x0ff0]), 0x0f00);
        assert_eq!(u(Op::VOrB32, &[0xff00, 0x0ff0]), 0xfff0);
        assert_eq!(u(Op::VXorB32, &[0xff00, 0x0ff0]), 0xf0f0);
        // v_bfi_b32: bits of src1 where src0 is set, of src2 elsewhere.
        assert_eq!(
            u(Op::VBfiB32, &[0x7fff_ffff, 0x3f80_0000, 0x8000_0000]),
            0xbf80_0000
        );
        assert_eq!(u(Op::VBcntU32B32, &[0xf0f0_0001, 10]), 19);
        // v_perm_b32: bytes of {src0, src1} chosen by the bytes of src2.
        assert_eq!(
            u(Op::VPermB32, &[0x0, 0x1122_3344, 0x0001_0203]),
            0x4433_2211,
            "bswap"
        );
        assert_eq!(
            u(Op::VPermB32, &[0x8899_aabb, 0x1122_3344, 0x0c07_0d08]),
            0x0088_ff00,
            "zero, byte 7, 0xff, sign of byte 1 (0x33: clear)"
        );
        assert_eq!(
            u(Op::VPermB32, &[0x8899_aabb, 0x11a2_3344, 0x0b0a_0904]),
            0xffff_00bb,
            "signs of bytes 7, 5, 3 (0x11 clear), byte 4"
        );
        // gfx9's three-operand integer ops.
        assert_eq!(u(Op::VLshlAddU32, &[3, 4, 0xffff_fff0]), 0x20);
        assert_eq!(u(Op::VLshlAddU32, &[3, 36, 1]), 49, "shift amount mod 32");
        assert_eq!(u(Op::VAddLshlU32, &[0xffff_ffff, 2, 3]), 8);
        assert_eq!(u(Op::VAdd3U32, &[0xffff_ffff, 0xffff_ffff, 3]), 1);
        assert_eq!(u(Op::VLshlOrB32, &[0x0f, 8, 0xf0]), 0x0ff0);
        assert_eq!(u(Op::VAndOrB32, &[0xff00, 0x0ff0, 1]), 0x0f01);
        assert_eq!(u(Op::VOr3B32, &[1, 2, 4]), 7);
        assert_eq!(u(Op::VXadU32, &[0xff, 0x0f, 0xffff_ff10]), 0);
        // {src0, src1} >> src2[4:0].
        assert_eq!(
            u(Op::VAlignbitB32, &[0x1111_2222, 0x3333_4444, 16]),
            0x2222_3333
        );
        assert_eq!(
            u(Op::VAlignbitB32, &[0x1111_2222, 0x3333_4444, 32 + 8]),
            0x2233_3344
        );
        assert_eq!(
            u(Op::VAlignbitB32, &[0x1111_2222, 0x3333_4444, 0]),
            0x3333_4444
        );
    }

    #[test]
    fn find_first_bit() {
        assert_eq!(u(Op::VFfbhU32, &[0]), u32::MAX);
        assert_eq!(u(Op::VFfbhU32, &[1]), 31);
        assert_eq!(u(Op::VFfbhU32, &[0x8000_0000]), 0);
        assert_eq!(u(Op::VFfblB32, &[0]), u32::MAX);
        assert_eq!(u(Op::VFfblB32, &[0x8000_0000]), 31);
        assert_eq!(u(Op::VFfblB32, &[0x0000_0006]), 1);
        assert_eq!(u(Op::VFfbhI32, &[0]), u32::MAX);
        assert_eq!(u(Op::VFfbhI32, &[u32::MAX]), u32::MAX);
        assert_eq!(u(Op::VFfbhI32, &[1]), 31);
        assert_eq!(u(Op::VFfbhI32, &[0x4000_0000]), 1);
        assert_eq!(u(Op::VFfbhI32, &[0xbfff_ffff]), 1);
        assert_eq!(u(Op::VFfbhI32, &[0xffff_fffe]), 31);
    }

    #[test]
    fn bitfield_extract() {
        assert_eq!(u(Op::VBfeU32, &[0xabcd_1234, 8, 8]), 0x12);
        assert_eq!(u(Op::VBfeU32, &[0xabcd_1234, 8, 0]), 0);
        // Offset and width use bits 4:0 only.
        assert_eq!(u(Op::VBfeU32, &[0xabcd_1234, 32 + 8, 32 + 8]), 0x12);
        assert_eq!(u(Op::VBfeU32, &[0xabcd_1234, 28, 8]), 0xa);
        assert_eq!(u(Op::VBfeI32, &[0x0000_00f0, 4, 4]), u32::MAX);
        assert_eq!(u(Op::VBfeI32, &[0x0000_0070, 4, 4]), 7);
        assert_eq!(u(Op::VBfeI32, &[0x0000_00ff, 0, 8]), u32::MAX);
        assert_eq!(u(Op::VBfeI32, &[0x0000_8000, 0, 16]), 0xffff_8000);
        assert_eq!(u(Op::VBfeI32, &[0xffff_ffff, 4, 0]), 0);
        // A field past bit 31 is sign-extended from bit 31.
        assert_eq!(u(Op::VBfeI32, &[0x8000_0000, 28, 8]), 0xffff_fff8);
        assert_eq!(u(Op::VBfeI32, &[0x4000_0000, 28, 8]), 4);
    }

    #[test]
    fn shifts_mask_their_amount() {
        assert_eq!(u(Op::VLshlrevB32, &[33, 1]), 2);
        assert_eq!(u(Op::VLshrrevB32, &[31 + 32, 0x8000_0000]), 1);
        assert_eq!(u(Op::VAshrrevI32, &[4 + 64, 0x8000_0000]), 0xf800_0000);
        assert_eq!(u(Op::VAshrrevI32, &[4, 0x7000_0000]), 0x0700_0000);
        let sh64 = |op, amount: u32, x: u64| run(op, [amount as u64, x, 0]).dst;
        assert_eq!(sh64(Op::VLshlrevB64, 65, 1), 2);
        assert_eq!(sh64(Op::VLshlrevB64, 36, 1), 1 << 36);
        assert_eq!(sh64(Op::VLshrrevB64, 63 + 64, 1 << 63), 1);
        assert_eq!(sh64(Op::VAshrrevI64, 60, 1 << 63), 0xffff_ffff_ffff_fff8);
        assert_eq!(sh64(Op::VAshrrevI64, 60, 1 << 62), 4);
        // 32-bit sources ignore bits above 31.
        assert_eq!(run(Op::VLshlrevB32, [1, 0xffff_ffff_0000_0001, 0]).dst, 2);
    }

    /// The 16-bit operations by hand: low 16 bits of each source, a 4-bit shift amount,
    /// the result zero-extended.
    #[test]
    fn sixteen_bit_operations() {
        assert_eq!(u(Op::VAddU16, &[0xdead_ffff, 0xbeef_0002]), 1);
        assert_eq!(u(Op::VSubU16, &[0x0001_0001, 0x0000_0002]), 0xffff);
        assert_eq!(u(Op::VSubrevU16, &[0x0000_0002, 0x1234_0001]), 0xffff);
        assert_eq!(u(Op::VMulLoU16, &[0xffff_0101, 0x0001_0101]), 0x0201);
        assert_eq!(u(Op::VLshlrevB16, &[17, 0xffff_4001]), 0x8002);
        assert_eq!(u(Op::VLshrrevB16, &[16 + 15, 0x0001_8000]), 1);
        assert_eq!(u(Op::VAshrrevI16, &[4, 0x0000_8000]), 0xf800);
        assert_eq!(u(Op::VAshrrevI16, &[4, 0xffff_7000]), 0x0700);
        assert_eq!(u(Op::VMaxU16, &[0x0001_8000, 0xffff_7fff]), 0x8000);
        assert_eq!(u(Op::VMaxI16, &[0x0001_8000, 0xffff_7fff]), 0x7fff);
        assert_eq!(u(Op::VMinU16, &[0x0001_8000, 0xffff_7fff]), 0x7fff);
        assert_eq!(u(Op::VMinI16, &[0x0001_8000, 0xffff_7fff]), 0x8000);
    }

    #[test]
    fn integer_arithmetic() {
        assert_eq!(u(Op::VMinI32, &[u32::MAX, 1]), u32::MAX);
        assert_eq!(u(Op::VMaxI32, &[u32::MAX, 1]), 1);
        assert_eq!(u(Op::VMinU32, &[u32::MAX, 1]), 1);
        assert_eq!(u(Op::VMaxU32, &[u32::MAX, 1]), u32::MAX);
        // v_mul_u32_u24 ignores bits 31:24 of both operands.
        assert_eq!(
            u(Op::VMulI32I24, &[0x00ff_ffff, 0xff00_0005]),
            (-5i32) as u32
        );
        assert_eq!(u(Op::VMulI32I24, &[0x0080_0000, 2]), 0xff00_0000);
        assert_eq!(u(Op::VMulU32U24, &[0xff00_0003, 0x0100_0005]), 15);
        assert_eq!(u(Op::VMulU32U24, &[0x00ff_ffff, 0x00ff_ffff]), 0xfe00_0001);
        assert_eq!(u(Op::VMulLoU32, &[0x1_0001, 0x1_0001]), 0x0002_0001);
        assert_eq!(u(Op::VMulHiU32, &[u32::MAX, u32::MAX]), 0xffff_fffe);
        assert_eq!(u(Op::VMulHiI32, &[u32::MAX, u32::MAX]), 0);
        assert_eq!(u(Op::VMulHiI32, &[(-2i32) as u32, 0x4000_0000]), u32::MAX);
        assert_eq!(u(Op::VMulHiI32, &[0x8000_0000, 0x8000_0000]), 0x4000_0000);
    }

    #[test]
    fn carries_and_borrows() {
        let carry = |op, a: u32, b: u32, cin: bool| {
            let out = run_in(op, Gen::Gfx8, [a as u64, b as u64, 0], |_, i| {
                i.mask_in = cin
            })
            .unwrap();
            (out.dst as u32, out.sdst)
        };
        assert_eq!(carry(Op::VAddU32, u32::MAX, 1, false), (0, true));
        assert_eq!(carry(Op::VAddU32, 5, 6, true), (11, false), "no carry-in");
        assert_eq!(carry(Op::VAddcU32, u32::MAX, 0, true), (0, true));
        assert_eq!(
            carry(Op::VAddcU32, u32::MAX, u32::MAX, true),
            (u32::MAX, true)
        );
        assert_eq!(carry(Op::VAddcU32, 1, 2, true), (4, false));
        assert_eq!(carry(Op::VSubU32, 1, 2, false), (u32::MAX, true));
        assert_eq!(carry(Op::VSubU32, 2, 2, false), (0, false));
        assert_eq!(carry(Op::VSubrevU32, 1, 2, false), (1, false));
        assert_eq!(carry(Op::VSubrevU32, 2, 1, false), (u32::MAX, true));
        assert_eq!(carry(Op::VSubbU32, 2, 2, true), (u32::MAX, true));
        assert_eq!(carry(Op::VSubbU32, 3, 2, true), (0, false));
        assert_eq!(carry(Op::VSubbU32, 0, u32::MAX, true), (0, true));
        assert_eq!(carry(Op::VSubbrevU32, 2, 3, true), (0, false));
        assert_eq!(carry(Op::VSubbrevU32, 3, 3, true), (u32::MAX, true));
    }

    #[test]
    fn mad_64_32() {
        let mad = |op, a: u32, b: u32, c: u64| {
            let out = run(op, [a as u64, b as u64, c]);
            (out.dst, out.sdst)
        };
        assert_eq!(mad(Op::VMadU64U32, 3, 5, 7), (22, false));
        assert_eq!(
            mad(Op::VMadU64U32, u32::MAX, u32::MAX, u64::MAX),
            (0xffff_fffe_0000_0000, true)
        );
        assert_eq!(mad(Op::VMadU64U32, 0, 0, u64::MAX), (u64::MAX, false));
        assert_eq!(mad(Op::VMadU64U32, 1, 1, u64::MAX), (0, true));
        // Signed: the carry is bit 64 of the exact (65-bit) result, i.e. its sign.
        assert_eq!(
            mad(Op::VMadI64I32, (-3i32) as u32, 5, 7),
            ((-8i64) as u64, true)
        );
        assert_eq!(
            mad(Op::VMadI64I32, (-3i32) as u32, (-5i32) as u32, 7),
            (22, false)
        );
        assert_eq!(
            mad(Op::VMadI64I32, 1, 1, i64::MAX as u64),
            (1 << 63, false),
            "+2^63 does not fit i64, but is a positive 65-bit result"
        );
        assert_eq!(
            mad(Op::VMadI64I32, (-1i32) as u32, 1, 1 << 63),
            (i64::MAX as u64, true)
        );
    }

    #[test]
    fn lane_inputs() {
        let at_lane = |op, lane, src0: u32, src1: u32| {
            run_in(op, Gen::Gfx8, [src0 as u64, src1 as u64, 0], |_, i| {
                i.lane = lane
            })
            .unwrap()
            .dst
        };
        for (lane, lo, hi) in [
            (0, 0, 0),
            (1, 1, 0),
            (31, 31, 0),
            (32, 32, 0),
            (33, 32, 1),
            (63, 32, 31),
        ] {
            let lo_count = at_lane(Op::VMbcntLoU32B32, lane, u32::MAX, 100);
            let hi_count = at_lane(Op::VMbcntHiU32B32, lane, u32::MAX, lo_count as u32);
            assert_eq!(
                (lo_count, hi_count),
                (100 + lo, 100 + lo + hi),
                "lane {lane}"
            );
        }
        let select = |mask| {
            run_in(Op::VCndmaskB32, Gen::Gfx8, [1, 2, 0], |_, i| {
                i.mask_in = mask
            })
            .unwrap()
            .dst
        };
        assert_eq!((select(false), select(true)), (1, 2));
        let mac = run_in(Op::VMacF32, Gen::Gfx8, [bits(3.0), bits(5.0), 0], |_, i| {
            i.dst_old = bits(0.5)
        });
        assert_eq!(mac.unwrap().dst, bits(15.5));
    }

    #[test]
    fn integer_compares() {
        let cmp = |op, a: u64, b: u64| run(op, [a, b, 0]).sdst;
        let minus_one = u32::MAX as u64;
        assert!(cmp(Op::VCmpLtI32, minus_one, 0));
        assert!(!cmp(Op::VCmpLtU32, minus_one, 0));
        assert!(cmp(Op::VCmpGtU32, minus_one, 0));
        assert!(cmp(Op::VCmpLeI32, 5, 5) && cmp(Op::VCmpGeU32, 5, 5) && cmp(Op::VCmpEqI32, 5, 5));
        assert!(!cmp(Op::VCmpNeU32, 5, 5) && cmp(Op::VCmpNeI32, 5, 6));
        assert!(!cmp(Op::VCmpFI32, 1, 1) && cmp(Op::VCmpTU32, 1, 2));
        // 32-bit compares ignore bits above 31.
        assert!(cmp(Op::VCmpEqU32, 0x1_0000_0005, 5));
        assert!(cmp(Op::VCmpLtI64, u64::MAX, 0));
        assert!(!cmp(Op::VCmpLtU64, u64::MAX, 0));
        assert!(cmp(Op::VCmpGtU64, 1 << 32, u32::MAX as u64));
        assert!(cmp(Op::VCmpGeI64, 7, 7) && !cmp(Op::VCmpNeU64, 7, 7) && cmp(Op::VCmpTI64, 0, 1));
        assert!(!cmp(Op::VCmpFU64, 0, 0) && cmp(Op::VCmpLeU64, 0, 0) && cmp(Op::VCmpEqI64, 3, 3));
        assert_eq!(run(Op::VCmpEqU32, [1, 1, 0]).dst, 0);
    }

    /// Every f32 predicate against its definition in terms of the four IEEE relations
    /// (less, equal, greater, unordered): true for the listed ones.
    #[test]
    fn float_compares() {
        const LT: u8 = 1;
        const EQ: u8 = 2;
        const GT: u8 = 4;
        const UN: u8 = 8;
        let table = [
            (Op::VCmpFF32, 0),
            (Op::VCmpLtF32, LT),
            (Op::VCmpEqF32, EQ),
            (Op::VCmpLeF32, LT | EQ),
            (Op::VCmpGtF32, GT),
            (Op::VCmpLgF32, LT | GT),
            (Op::VCmpGeF32, GT | EQ),
            (Op::VCmpOF32, LT | EQ | GT),
            (Op::VCmpUF32, UN),
            (Op::VCmpNgeF32, LT | UN),
            (Op::VCmpNlgF32, EQ | UN),
            (Op::VCmpNgtF32, LT | EQ | UN),
            (Op::VCmpNleF32, GT | UN),
            (Op::VCmpNeqF32, LT | GT | UN),
            (Op::VCmpNltF32, EQ | GT | UN),
            (Op::VCmpTruF32, LT | EQ | GT | UN),
        ];
        let pairs = [
            (1.0, 2.0, LT),
            (2.0, 1.0, GT),
            (1.0, 1.0, EQ),
            (-0.0, 0.0, EQ),
            (DENORM, 0.0, GT),
            (-INF, -f32::MAX, LT),
            (QNAN, 1.0, UN),
            (1.0, SNAN, UN),
            (QNAN, QNAN, UN),
        ];
        for (op, holds_for) in table {
            for (a, b, relation) in pairs {
                let want = holds_for & relation != 0;
                assert_eq!(run(op, [bits(a), bits(b), 0]).sdst, want, "{op:?} {a} {b}");
            }
        }
    }

    #[test]
    fn class_mask_bits() {
        let cases = [
            (SNAN, 0),
            (QNAN, 1),
            (-INF, 2),
            (-1.5, 3),
            (-DENORM, 4),
            (-0.0, 5),
            (0.0, 6),
            (MAX_DENORM, 7),
            (f32::MIN_POSITIVE, 8),
            (INF, 9),
        ];
        for (x, bit) in cases {
            for mask_bit in 0..10 {
                let out = run(Op::VCmpClassF32, [bits(x), 1 << mask_bit, 0]);
                assert_eq!(out.sdst, mask_bit == bit, "{x:e} against bit {mask_bit}");
            }
        }
        // The source modifiers apply to the value (src0), not the mask.
        let neg = run_in(
            Op::VCmpClassF32,
            Gen::Gfx8,
            [bits(1.0), 1 << 3, 0],
            |m, _| m.neg = 1,
        );
        assert!(neg.unwrap().sdst);
    }

    #[test]
    fn f32_arithmetic_is_correctly_rounded() {
        let values = [
            1.0f32, 0.1, -3.7, 1e30, -1e-30, 3.0e38, MAX_DENORM, DENORM, -0.0, 0.0,
        ];
        for a in values {
            for b in values {
                assert_same(f(Op::VAddF32, &[a, b]), a + b);
                assert_same(f(Op::VSubF32, &[a, b]), a - b);
                assert_same(f(Op::VSubrevF32, &[a, b]), b - a);
                assert_same(f(Op::VMulF32, &[a, b]), a * b);
                assert_same(f(Op::VFmaF32, &[a, b, 0.3]), a.mul_add(b, 0.3));
                assert_same(f(Op::VFmaF32, &[a, b, -a * b]), a.mul_add(b, -a * b));
            }
        }
        // Denormal results are kept.
        assert_same(
            f(Op::VAddF32, &[MAX_DENORM, DENORM]),
            f32::from_bits(0x0080_0002),
        );
        assert_same(
            f(Op::VMulF32, &[f32::MIN_POSITIVE, 0.5]),
            f32::from_bits(0x0040_0000),
        );
        assert_same(
            f(Op::VSubF32, &[f32::MIN_POSITIVE, DENORM]),
            f32::from_bits(0x007f_fffd),
        );
    }

    #[test]
    fn mad_flushes_denormals() {
        assert_same(f(Op::VMadF32, &[2.0, 3.0, 0.5]), 6.5);
        // Unfused: the product is rounded first.
        let (a, b) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON);
        assert_same(f(Op::VMadF32, &[a, b, -1.0]), (a * b) - 1.0);
        assert_ne!(f(Op::VMadF32, &[a, b, -1.0]), a.mul_add(b, -1.0));
        // Denormal inputs, product and result flush to zero (keeping the sign).
        assert_same(f(Op::VMadF32, &[MAX_DENORM, 1.0, 0.0]), 0.0);
        assert_same(f(Op::VMadF32, &[1.0, 1.0, -DENORM]), 1.0);
        assert_same(f(Op::VMadF32, &[f32::MIN_POSITIVE, -0.5, 0.0]), 0.0);
        assert_same(f(Op::VMadF32, &[f32::MIN_POSITIVE, -0.5, -0.0]), -0.0);
        assert_same(
            f(Op::VMadF32, &[f32::MIN_POSITIVE, 1.5, -f32::MIN_POSITIVE]),
            0.0,
        );
        // v_fma_f32 keeps them.
        assert_same(f(Op::VFmaF32, &[MAX_DENORM, 1.0, 0.0]), MAX_DENORM);
        for generation in GENS {
            let mac = run_in(
                Op::VMacF32,
                generation,
                [bits(MAX_DENORM), bits(1.0), 0],
                |_, _| {},
            );
            assert_eq!(mac.unwrap().dst, 0, "{generation:?}");
        }
    }

    #[test]
    fn nans_propagate_quieted() {
        let quiet = |x: f32| f32::from_bits(x.to_bits() | 0x0040_0000);
        let ops = [
            Op::VAddF32,
            Op::VSubF32,
            Op::VSubrevF32,
            Op::VMulF32,
            Op::VMadF32,
        ];
        for op in ops {
            assert_same(f(op, &[SNAN, 1.0, 1.0]), quiet(SNAN));
            assert_same(f(op, &[2.0, QNAN, 1.0]), QNAN);
            assert_same(f(op, &[QNAN, SNAN, 1.0]), QNAN);
        }
        assert_same(f(Op::VFmaF32, &[1.0, 2.0, SNAN]), quiet(SNAN));
        assert_same(f(Op::VFmaF32, &[INF, 0.0, QNAN]), QNAN);
        // Invalid operations give the default NaN.
        let default = f32::from_bits(0x7fc0_0000);
        assert_same(f(Op::VAddF32, &[INF, -INF]), default);
        assert_same(f(Op::VMulF32, &[INF, 0.0]), default);
        assert_same(f(Op::VFmaF32, &[INF, 0.0, 1.0]), default);
        assert_same(f(Op::VSqrtF32, &[-1.0]), default);
        assert_same(f(Op::VRsqF32, &[-1.0]), default);
        // Unary operations quiet their NaN.
        for op in [
            Op::VFloorF32,
            Op::VRcpF32,
            Op::VSqrtF32,
            Op::VFrexpMantF32,
            Op::VFractF32,
        ] {
            assert_same(f(op, &[SNAN]), quiet(SNAN));
        }
        assert_same(f(Op::VLdexpF32, &[SNAN, 0.0]), quiet(SNAN));
    }

    /// IEEE-mode min/max (minimumNumber/maximumNumber with sNaN quieting; -0 < +0).
    #[test]
    fn min_max() {
        assert_same(f(Op::VMinF32, &[1.0, 2.0]), 1.0);
        assert_same(f(Op::VMaxF32, &[1.0, 2.0]), 2.0);
        assert_same(f(Op::VMinF32, &[-INF, DENORM]), -INF);
        assert_same(f(Op::VMaxF32, &[-DENORM, -0.0]), -0.0);
        for (a, b) in [(0.0, -0.0), (-0.0, 0.0)] {
            assert_same(f(Op::VMinF32, &[a, b]), -0.0);
            assert_same(f(Op::VMaxF32, &[a, b]), 0.0);
        }
        for op in [Op::VMinF32, Op::VMaxF32] {
            assert_same(f(op, &[QNAN, 3.0]), 3.0);
            assert_same(f(op, &[3.0, QNAN]), 3.0);
            assert_same(f(op, &[SNAN, 3.0]), f32::from_bits(0x7fe0_0001));
            assert_same(f(op, &[3.0, SNAN]), f32::from_bits(0x7fe0_0001));
            assert!(f(op, &[QNAN, QNAN]).is_nan());
        }
    }

    #[test]
    fn med3() {
        let med = |a, b, c| f(Op::VMed3F32, &[a, b, c]);
        for (a, b, c) in [
            (1.0, 2.0, 3.0),
            (3.0, 1.0, 2.0),
            (2.0, 3.0, 1.0),
            (-1.0, -1.0, 5.0),
        ] {
            let mut sorted = [a, b, c];
            sorted.sort_by(f32::total_cmp);
            assert_same(med(a, b, c), sorted[1]);
        }
        // With a NaN operand: min3, so a quiet NaN is ignored.
        assert_same(med(QNAN, 2.0, 1.0), 1.0);
        assert_same(med(5.0, 2.0, QNAN), 2.0);
    }

    #[test]
    fn rounding_to_integers() {
        let cases: [(f32, [f32; 4]); 9] = [
            // x, [trunc, ceil, floor, rndne]
            (2.5, [2.0, 3.0, 2.0, 2.0]),
            (3.5, [3.0, 4.0, 3.0, 4.0]),
            (-2.5, [-2.0, -2.0, -3.0, -2.0]),
            (-0.5, [-0.0, -0.0, -1.0, -0.0]),
            (0.7, [0.0, 1.0, 0.0, 1.0]),
            (-0.0, [-0.0, -0.0, -0.0, -0.0]),
            (DENORM, [0.0, 1.0, 0.0, 0.0]),
            (8388609.0, [8388609.0; 4]),
            (-INF, [-INF; 4]),
        ];
        for (x, want) in cases {
            let ops = [Op::VTruncF32, Op::VCeilF32, Op::VFloorF32, Op::VRndneF32];
            for (op, w) in ops.into_iter().zip(want) {
                assert_same(f(op, &[x]), w);
            }
        }
    }

    #[test]
    fn fract() {
        assert_same(f(Op::VFractF32, &[2.75]), 0.75);
        assert_same(f(Op::VFractF32, &[-2.75]), 0.25);
        assert_same(f(Op::VFractF32, &[-0.0]), 0.0);
        assert_same(f(Op::VFractF32, &[DENORM]), DENORM);
        // x - floor(x) rounds to 1.0 for tiny negatives: the result stays below 1.
        let below_one = f32::from_bits(0x3f7f_ffff);
        assert_same(f(Op::VFractF32, &[-1e-10]), below_one);
        assert_same(f(Op::VFractF32, &[-DENORM]), below_one);
        assert!(f(Op::VFractF32, &[INF]).is_nan());
        assert!(f(Op::VFractF32, &[-INF]).is_nan());
    }

    #[test]
    fn frexp_and_ldexp() {
        let exp = |x: f32| run(Op::VFrexpExpI32F32, [bits(x), 0, 0]).dst as u32 as i32;
        for (x, mant, e) in [
            (8.0f32, 0.5f32, 4),
            (-3.0, -0.75, 2),
            (0.75, 0.75, 0),
            (f32::MAX, 1.0 - f32::EPSILON / 2.0, 128),
            (f32::MIN_POSITIVE, 0.5, -125),
            (DENORM, 0.75, -147),
            (-MAX_DENORM, -(1.0 - f32::EPSILON), -126),
            (0.0, 0.0, 0),
            (-0.0, -0.0, 0),
            (INF, INF, 0),
            (-INF, -INF, 0),
        ] {
            assert_same(f(Op::VFrexpMantF32, &[x]), mant);
            assert_eq!(exp(x), e, "{x:e}");
        }
        assert_eq!(exp(QNAN), 0);
        let ldexp = |x: f32, e: i32| {
            f32::from_bits(run(Op::VLdexpF32, [bits(x), e as u32 as u64, 0]).dst as u32)
        };
        assert_same(ldexp(1.5, 4), 24.0);
        assert_same(ldexp(1.5, -150), DENORM.min(f32::from_bits(1)) * 1.0);
        assert_same(ldexp(1.0, -149), f32::from_bits(1));
        // Rounded once: 3·2^-150 = 1.5 ulp of the smallest denormal, a tie to even (2).
        assert_same(ldexp(3.0, -150), f32::from_bits(2));
        assert_same(ldexp(1.0, 128), INF);
        assert_same(ldexp(-1.0, i32::MAX), -INF);
        assert_same(ldexp(f32::MAX, i32::MIN), 0.0);
        assert_same(ldexp(DENORM, 149), 3.0);
        assert_same(ldexp(-0.0, 5), -0.0);
    }

    #[test]
    fn transcendentals_flush_denormals() {
        assert_same(f(Op::VRcpF32, &[4.0]), 0.25);
        assert_same(f(Op::VRcpF32, &[3.0]), 1.0 / 3.0);
        assert_same(f(Op::VRcpIflagF32, &[3.0]), 1.0 / 3.0);
        assert_same(f(Op::VRcpF32, &[-0.0]), -INF);
        assert_same(f(Op::VRcpF32, &[-DENORM]), -INF);
        assert_same(f(Op::VRcpF32, &[-INF]), -0.0);
        // 1/2^127 is denormal: flushed.
        assert_same(f(Op::VRcpF32, &[f32::from_bits(0x7f00_0000)]), 0.0);
        assert_same(f(Op::VSqrtF32, &[2.0]), 2f32.sqrt());
        assert_same(f(Op::VSqrtF32, &[-0.0]), -0.0);
        assert_same(f(Op::VSqrtF32, &[-DENORM]), -0.0);
        assert_same(f(Op::VSqrtF32, &[MAX_DENORM]), 0.0);
        assert_same(f(Op::VSqrtF32, &[INF]), INF);
        assert_same(f(Op::VRsqF32, &[4.0]), 0.5);
        assert_same(f(Op::VRsqF32, &[2.0]), std::f32::consts::FRAC_1_SQRT_2);
        assert_same(f(Op::VRsqF32, &[0.0]), INF);
        assert_same(f(Op::VRsqF32, &[-0.0]), -INF);
        assert_same(f(Op::VRsqF32, &[DENORM]), INF);
        assert_same(f(Op::VRsqF32, &[INF]), 0.0);
    }

    /// v_rsq_f32 against an exact integer test of the rounding: the result r must lie
    /// within half an ulp of 1/√x, i.e. the midpoints m⁻ < 1/√x < m⁺ around r, i.e.
    /// (m⁺)²·x > 1 > (m⁻)²·x, compared in integers.
    #[test]
    fn rsq_is_correctly_rounded() {
        // x = mx·2^ex, m = (2·mr ± 1)·2^(er − 1) with 24-bit integers mx, mr.
        fn parts(x: f32) -> (u128, i32) {
            let b = x.to_bits();
            (
                (b & 0x7f_ffff | 0x80_0000) as u128,
                ((b >> 23) & 0xff) as i32 - 150,
            )
        }
        // sign((2·mr + k)²·mx·2^(2·er − 2 + ex) − 1) for k = ±1.
        fn above_one(x: f32, r: f32, k: i128) -> bool {
            let ((mx, ex), (mr, er)) = (parts(x), parts(r));
            let m = (2 * mr as i128 + k) as u128;
            let (product, shift) = (m * m * mx, 2 * er - 2 + ex);
            if shift >= 0 {
                true
            } else {
                product > 1u128 << -shift
            }
        }
        let mut x = 0x0080_0000u32;
        while x < 0x7f80_0000 {
            let xf = f32::from_bits(x);
            let r = f(Op::VRsqF32, &[xf]);
            assert!(
                above_one(xf, r, 1) && !above_one(xf, r, -1),
                "rsq {xf:e} = {r:e}"
            );
            x += 0x1357;
        }
    }

    #[test]
    fn conversions() {
        let cvt = |op, x: f32| run(op, [bits(x), 0, 0]).dst as u32;
        let cases: [(f32, i32, u32); 12] = [
            (2.9, 2, 2),
            (-2.9, -2, 0),
            (-0.9, 0, 0),
            (1e10, i32::MAX, u32::MAX),
            (-1e10, i32::MIN, 0),
            (4294967040.0, i32::MAX, 4294967040),
            (2147483520.0, 2147483520, 2147483520),
            (-2147483648.0, i32::MIN, 0),
            (INF, i32::MAX, u32::MAX),
            (-INF, i32::MIN, 0),
            (QNAN, 0, 0),
            (SNAN, 0, 0),
        ];
        for (x, i, u) in cases {
            assert_eq!(cvt(Op::VCvtI32F32, x) as i32, i, "{x:e}");
            assert_eq!(cvt(Op::VCvtU32F32, x), u, "{x:e}");
        }
        let to_f = |op, x: u32| f32::from_bits(run(op, [x as u64, 0, 0]).dst as u32);
        assert_same(to_f(Op::VCvtF32I32, u32::MAX), -1.0);
        assert_same(to_f(Op::VCvtF32U32, u32::MAX), 4294967296.0);
        // 2^24 + 1 and + 3 are ties: to even.
        assert_same(to_f(Op::VCvtF32I32, 16777217), 16777216.0);
        assert_same(to_f(Op::VCvtF32U32, 16777219), 16777220.0);
        assert_same(to_f(Op::VCvtF32Ubyte0, 0x1234_56ff), 255.0);
        assert_same(to_f(Op::VCvtF32Ubyte1, 0x1234_56ff), 86.0);
        assert_same(to_f(Op::VCvtF32Ubyte2, 0x1234_56ff), 52.0);
        assert_same(to_f(Op::VCvtF32Ubyte3, 0xfe34_56ff), 254.0);
        // f32 <-> f64: exact widening, rounded narrowing, NaN payload kept.
        let widen = |x: f32| f64::from_bits(run(Op::VCvtF64F32, [bits(x), 0, 0]).dst);
        assert_eq!(widen(0.1), 0.1f32 as f64);
        assert_eq!(widen(DENORM), 3.0 * 2f64.powi(-149));
        assert_eq!(widen(SNAN).to_bits(), 0x7ffc_0000_2000_0000);
        let narrow = |x: f64| f32::from_bits(run(Op::VCvtF32F64, [x.to_bits(), 0, 0]).dst as u32);
        assert_same(narrow(0.1), 0.1f32);
        assert_same(narrow(1.0 + 2f64.powi(-24)), 1.0);
        assert_same(narrow(1.0 + 3.0 * 2f64.powi(-24)), 1.0 + 2.0 * f32::EPSILON);
        assert_same(narrow(2f64.powi(-149)), f32::from_bits(1));
        assert_same(narrow(2f64.powi(-151)), 0.0);
        assert_same(narrow(1e300), INF);
        assert_eq!(
            narrow(f64::from_bits(0xfff0_0000_2000_0000)).to_bits(),
            0xffc0_0001
        );
    }

    #[test]
    fn f64_arithmetic() {
        let values = [1.0f64, 0.1, -3.7e-300, 1e300, f64::from_bits(1), -0.0];
        for a in values {
            for b in values {
                assert_eq!(d(Op::VAddF64, &[a, b]).to_bits(), (a + b).to_bits());
                assert_eq!(d(Op::VMulF64, &[a, b]).to_bits(), (a * b).to_bits());
                assert_eq!(
                    d(Op::VFmaF64, &[a, b, 0.7]).to_bits(),
                    a.mul_add(b, 0.7).to_bits()
                );
            }
        }
        assert_eq!(d(Op::VRcpF64, &[3.0]), 1.0 / 3.0);
        assert_eq!(d(Op::VRcpF64, &[-0.0]), f64::NEG_INFINITY);
        assert_eq!(d(Op::VRcpF64, &[f64::from_bits(1)]), f64::INFINITY);
        assert_eq!(
            d(Op::VRcpF64, &[2f64.powi(1023)]).to_bits(),
            0,
            "denormal result flushed"
        );
        assert_eq!(
            d(Op::VAddF64, &[f64::INFINITY, f64::NEG_INFINITY]).to_bits(),
            0x7ff8 << 48
        );
        let snan = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(
            d(Op::VMulF64, &[2.0, snan]).to_bits(),
            0x7ff8_0000_0000_0001
        );
    }

    #[test]
    fn input_modifiers() {
        let with = |op, src: [f32; 2], abs: u8, neg: u8| {
            let out = run_in(op, Gen::Gfx8, [bits(src[0]), bits(src[1]), 0], |m, _| {
                (m.abs, m.neg) = (abs, neg)
            });
            f32::from_bits(out.unwrap().dst as u32)
        };
        assert_same(with(Op::VAddF32, [-1.0, 4.0], 1, 0), 5.0);
        assert_same(with(Op::VAddF32, [1.0, 4.0], 0, 2), -3.0);
        // abs, then neg: -|x|.
        assert_same(with(Op::VAddF32, [1.0, 4.0], 2, 2), -3.0);
        assert_same(with(Op::VAddF32, [1.0, -4.0], 2, 2), -3.0);
        assert_same(with(Op::VMulF32, [-0.0, 1.0], 1, 1), -0.0);
        // Modifiers act on NaNs as bit operations.
        assert_same(with(Op::VMaxF32, [QNAN, 1.0], 1, 0), 1.0);
        assert_eq!(
            with(Op::VTruncF32, [QNAN, 0.0], 1, 0).to_bits(),
            0x7fc0_0123
        );
        // On f64 sources the sign is bit 63.
        let out = run_in(
            Op::VAddF64,
            Gen::Gfx8,
            [1f64.to_bits(), 2f64.to_bits(), 0],
            |m, _| m.neg = 1,
        );
        assert_eq!(f64::from_bits(out.unwrap().dst), 1.0);
        let out = run_in(
            Op::VCvtF32F64,
            Gen::Gfx8,
            [(-2f64).to_bits(), 0, 0],
            |m, _| m.abs = 1,
        );
        assert_eq!(out.unwrap().dst, bits(2.0));
        // On v_cvt_f32_f16's f16 source the sign is bit 15.
        let out = run_in(Op::VCvtF32F16, Gen::Gfx8, [0x3c00, 0, 0], |m, _| m.neg = 1);
        assert_eq!(out.unwrap().dst, bits(-1.0));
        let out = run_in(Op::VCvtF32F16, Gen::Gfx8, [0xc000, 0, 0], |m, _| m.abs = 1);
        assert_eq!(out.unwrap().dst, bits(2.0));
        // Only float sources take them; only VOP3 encodes them.
        assert!(run_in(Op::VAddU32, Gen::Gfx8, [1, 2, 0], |m, _| m.neg = 1).is_err());
        assert!(run_in(Op::VLdexpF32, Gen::Gfx8, [1, 2, 0], |m, _| m.neg = 2).is_err());
        assert!(
            run_in(Op::VAddF32, Gen::Gfx8, [1, 2, 0], |m, _| {
                (m.enc, m.neg) = (Enc::Vop2, 1)
            })
            .is_err()
        );
    }

    #[test]
    fn output_modifiers() {
        let clamped = |op, generation, src: [u64; 3]| {
            run_in(op, generation, src, |m, _| m.clamp = true).map(|out| out.dst)
        };
        for (x, want) in [
            (1.5f32, 1.0f32),
            (0.25, 0.25),
            (-0.5, 0.0),
            (-0.0, 0.0),
            (INF, 1.0),
        ] {
            let got = clamped(Op::VAddF32, Gen::Gfx8, [bits(x), 0, 0]).unwrap();
            assert_eq!(got, bits(want), "clamp {x}");
        }
        assert_eq!(
            clamped(Op::VAddF32, Gen::Gfx6, [bits(QNAN), 0, 0]),
            Ok(0),
            "DX10 clamp"
        );
        let clamped64 = clamped(Op::VMulF64, Gen::Gfx9, [3f64.to_bits(), 1f64.to_bits(), 0]);
        assert_eq!(clamped64, Ok(1f64.to_bits()));
        // Integer clamp: unsigned saturation of the carry-writing adds and subtracts.
        assert_eq!(
            clamped(Op::VAddU32, Gen::Gfx8, [u32::MAX as u64, 2, 0]),
            Ok(u32::MAX as u64)
        );
        assert_eq!(clamped(Op::VAddU32, Gen::Gfx9, [5, 2, 0]), Ok(7));
        assert_eq!(clamped(Op::VSubU32, Gen::Gfx9, [1, 2, 0]), Ok(0));
        assert_eq!(clamped(Op::VSubrevU32, Gen::Gfx8, [1, 2, 0]), Ok(1));
        assert!(clamped(Op::VAddU32, Gen::Gfx7, [1, 2, 0]).is_err());
        assert!(clamped(Op::VMulLoU32, Gen::Gfx8, [1, 2, 0]).is_err());
        assert!(clamped(Op::VCvtI32F32, Gen::Gfx8, [1, 2, 0]).is_err());
        assert!(clamped(Op::VCmpLtF32, Gen::Gfx8, [1, 2, 0]).is_err());
        // omod is not modelled.
        assert!(run_in(Op::VMulF32, Gen::Gfx8, [1, 2, 0], |m, _| m.omod = 1).is_err());
    }

    #[test]
    fn division_helpers() {
        let scale = |s: [f32; 3]| {
            let out = run(Op::VDivScaleF32, [bits(s[0]), bits(s[1]), bits(s[2])]);
            (f32::from_bits(out.dst as u32), out.sdst)
        };
        // Ordinary operands are not scaled.
        assert_eq!(scale([3.0, 3.0, 1.0]), (3.0, false));
        assert!(scale([1.0, 0.0, 1.0]).0.is_nan());
        // A denormal denominator: scaled up by 2^64.
        let tiny = 2f32.powi(-100);
        assert_eq!(scale([DENORM, DENORM, tiny]), (3.0 * 2f32.powi(-85), false));
        // ... unless the quotient is near overflow (checked first): then VCC is set.
        assert_eq!(scale([DENORM, DENORM, 1.0]), (3.0 * 2f32.powi(-85), true));
        // A quotient near overflow: the denominator is scaled up, VCC set.
        assert_eq!(scale([1.0, 1.0, 2f32.powi(100)]), (2f32.powi(64), true));
        assert_eq!(
            scale([2f32.powi(100), 1.0, 2f32.powi(100)]),
            (2f32.powi(100), true)
        );
        // A denormal quotient of normal operands: the numerator is scaled up, VCC set.
        assert_eq!(
            scale([2f32.powi(-100), 2f32.powi(40), 2f32.powi(-100)]),
            (2f32.powi(-36), true)
        );
        let fmas = |s: [f32; 3], vcc: bool| {
            let src = [bits(s[0]), bits(s[1]), bits(s[2])];
            let out = run_in(Op::VDivFmasF32, Gen::Gfx8, src, |_, i| i.mask_in = vcc).unwrap();
            f32::from_bits(out.dst as u32)
        };
        assert_same(fmas([2.0, 3.0, 1.0], false), 7.0);
        assert_same(fmas([2.0, 3.0, 1.0], true), 7.0 * 2f32.powi(-64));
        assert_same(fmas([2.0, 3.0, 2f32.powi(127)], true), INF);
        let fixup = |q: f32, den: f32, num: f32| f(Op::VDivFixupF32, &[q, den, num]);
        assert_same(fixup(2.5, 2.0, 5.0), 2.5);
        assert_same(fixup(2.5, -2.0, 5.0), -2.5);
        assert_eq!(fixup(1.0, 0.0, 0.0).to_bits(), 0xffc0_0000);
        assert_eq!(fixup(1.0, INF, -INF).to_bits(), 0xffc0_0000);
        assert_same(fixup(1.0, -0.0, 5.0), -INF);
        assert_same(fixup(1.0, INF, 5.0), 0.0);
        assert_same(fixup(1.0, 2.0, QNAN), QNAN);
    }

    /// `op` in SDWA on gfx8 with selects `sel`, raw sources and the destination's old value.
    fn sdwa(op: Op, sel: Sdwa, src: [u32; 2], dst_old: u32) -> LaneOutputs {
        let mut inst = McInst::new(op, Enc::Sdwa);
        inst.sdwa = Some(sel);
        let input = LaneInputs {
            src: [src[0] as u64, src[1] as u64, 0],
            dst_old: dst_old as u64,
            ..LaneInputs::default()
        };
        exec(&inst, Gen::Gfx8, &input).unwrap()
    }

    fn select(src0: SdwaSel, sext: bool) -> Sdwa {
        Sdwa {
            src_sel: [src0, SdwaSel::Dword],
            sext: sext as u8,
            ..Sdwa::default()
        }
    }

    /// SRC0_SEL/SRC0_SEXT (GCN3 ISA 12.7 "VOP_SDWA"; LLVM: `sext` "sign-extends the value of
    /// a (sub-dword) integer operand to fill all 32 bits"), through `v_mov_b32`.
    #[test]
    fn sdwa_source_selects() {
        use SdwaSel::*;
        let mov = |sel, sext, x| sdwa(Op::VMovB32, select(sel, sext), [x, 0], 0).dst as u32;
        for (sel, zero, sign) in [
            (Byte0, 0xef, 0xffff_ffef),
            (Byte1, 0xcd, 0xffff_ffcd),
            (Byte2, 0xab, 0xffff_ffab),
            (Byte3, 0x89, 0xffff_ff89),
            (Word0, 0xcdef, 0xffff_cdef),
            (Word1, 0x89ab, 0xffff_89ab),
            (Dword, 0x89ab_cdef, 0x89ab_cdef),
        ] {
            assert_eq!(mov(sel, false, 0x89ab_cdef), zero, "{sel:?}");
            assert_eq!(mov(sel, true, 0x89ab_cdef), sign, "{sel:?} sext");
        }
        // A part with a clear top bit extends with zeros either way.
        assert_eq!(mov(Byte2, true, 0x1234_5678), 0x34);
        assert_eq!(mov(Word1, true, 0x1234_5678), 0x1234);
        // Both sources of a VOP2, and the carry-out of the selected values: byte 1 of
        // 0xff00 sign-extended is -1, word 1 of 0x50000 is 5.
        let add = Sdwa {
            src_sel: [Byte1, Word1],
            sext: 1,
            ..Sdwa::default()
        };
        let out = sdwa(Op::VAddU32, add, [0xff00, 0x5_0000], 0);
        assert_eq!((out.dst, out.sdst), (4, true));
        // Integer conversions of a selected byte.
        let cvt =
            |op, sel, sext, x| f32::from_bits(sdwa(op, select(sel, sext), [x, 0], 0).dst as u32);
        assert_eq!(cvt(Op::VCvtF32U32, Byte2, false, 0x00ff_0000), 255.0);
        assert_eq!(cvt(Op::VCvtF32I32, Byte0, true, 0x80), -128.0);
        // A compare of byte 0 with byte 3.
        let cmp = Sdwa {
            src_sel: [Byte0, Byte3],
            ..Sdwa::default()
        };
        assert!(sdwa(Op::VCmpEqU32, cmp, [0x77_0012, 0x1200_0000], 0).sdst);
        // The float modifiers act on the selected part.
        let mut cvt = McInst::new(Op::VCvtF32F16, Enc::Sdwa);
        cvt.sdwa = Some(select(Word1, false));
        cvt.neg = 1;
        let input = LaneInputs {
            src: [0x3c00_0000, 0, 0],
            ..LaneInputs::default()
        };
        // f16 1.0 (0x3c00) in the upper half, negated after the select: -1.0.
        assert_eq!(exec(&cvt, Gen::Gfx8, &input).unwrap().dst, bits(-1.0));
    }

    /// DST_SEL with the three DST_UNUSED values (GCN3 ISA 12.7 "VOP_SDWA"; LLVM:
    /// UNUSED_SEXT "sign-extend upper bits, zero lower bits"), through `v_mov_b32`.
    #[test]
    fn sdwa_destination_selects() {
        use DstUnused::*;
        use SdwaSel::*;
        let old = 0x1122_3344;
        let mov = |dst_sel, dst_unused, x| {
            let sel = Sdwa {
                dst_sel,
                dst_unused,
                ..Sdwa::default()
            };
            sdwa(Op::VMovB32, sel, [x, 0], old).dst as u32
        };
        for (sel, x, pad, sext, preserve) in [
            (Byte0, 0x1f0, 0xf0, 0xffff_fff0, 0x1122_33f0),
            (Byte1, 0x1f0, 0xf000, 0xffff_f000, 0x1122_f044),
            (Byte2, 0x70, 0x70_0000, 0x70_0000, 0x1170_3344),
            (Byte3, 0xf0, 0xf000_0000, 0xf000_0000, 0xf022_3344),
            (Word0, 0x1_8000, 0x8000, 0xffff_8000, 0x1122_8000),
            (Word1, 0x7fff, 0x7fff_0000, 0x7fff_0000, 0x7fff_3344),
            (Dword, 0x8765_4321, 0x8765_4321, 0x8765_4321, 0x8765_4321),
        ] {
            assert_eq!(mov(sel, Pad, x), pad, "{sel:?} pad");
            assert_eq!(mov(sel, Sext, x), sext, "{sel:?} sext");
            assert_eq!(mov(sel, Preserve, x), preserve, "{sel:?} preserve");
        }
        // A 16-bit result placed in the upper half, the lower half kept: the f16 pack.
        let pack = Sdwa {
            dst_sel: Word1,
            dst_unused: Preserve,
            ..Sdwa::default()
        };
        assert_eq!(
            sdwa(Op::VCvtF16F32, pack, [bits(1.0) as u32, 0], 0xbeef).dst,
            0x3c00_beef
        );
        // The destination takes the low part of the result, clamped first: gfx8's unsigned
        // saturation of 0xffffffff + 1 is 0xffffffff, whose low word goes to the upper half.
        let mut clamped = McInst::new(Op::VAddU32, Enc::Sdwa);
        clamped.sdwa = Some(Sdwa {
            dst_sel: Word1,
            dst_unused: Pad,
            ..Sdwa::default()
        });
        clamped.clamp = true;
        let input = LaneInputs {
            src: [0xffff_ffff, 1, 0],
            ..LaneInputs::default()
        };
        assert_eq!(exec(&clamped, Gen::Gfx8, &input).unwrap().dst, 0xffff_0000);
        clamped.clamp = false;
        assert_eq!(exec(&clamped, Gen::Gfx8, &input).unwrap().dst, 0);
    }

    /// The wave core's contract: results of 32-bit operations have clear upper bits.
    #[test]
    fn results_are_zero_extended() {
        for op in [
            Op::VNotB32,
            Op::VCvtI32F32,
            Op::VFrexpExpI32F32,
            Op::VSubF32,
        ] {
            assert_eq!(run(op, [bits(-1.5), bits(2.0), 0]).dst >> 32, 0, "{op:?}");
        }
    }
}
