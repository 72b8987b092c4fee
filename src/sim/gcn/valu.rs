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
//! Modifiers, in this order: input abs then neg, only on sources that take them (`FSRC*`;
//! on bit 63 of 64-bit sources), the operation, then clamp. Rejected as errors rather than
//! guessed:
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

/// Executes the lane-local VALU operation `inst` for one lane, applying its VOP3 input
/// modifiers (abs, neg), clamp and output modifier. Operations that read other lanes
/// (`v_readlane_b32`, `v_readfirstlane_b32`, `v_writelane_b32`) belong to the wave core and
/// are an error here.
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
    let has_modifiers = inst.abs | inst.neg != 0 || inst.clamp || inst.omod != 0;
    if has_modifiers && inst.enc != Enc::Vop3 {
        return Err(format!("{name}: modifiers need the VOP3 encoding"));
    }
    let float_srcs = info.flags & 7;
    if (inst.abs | inst.neg) & !float_srcs != 0 {
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
    for (i, s) in src.iter_mut().enumerate() {
        let sign = if info.src[i] == 2 { 1 << 63 } else { 1 << 31 };
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
            float::clamp64(f64::from_bits(out.dst)).to_bits()
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

        // Integer arithmetic.
        VMinI32 => Out::b32(i(0).min(i(1)) as u32),
        VMaxI32 => Out::b32(i(0).max(i(1)) as u32),
        VMinU32 => Out::b32(u(0).min(u(1))),
        VMaxU32 => Out::b32(u(0).max(u(1))),
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
        VSubF32 => Out::f32(float::add(f(0), -f(1))),
        VSubrevF32 => Out::f32(float::add(f(1), -f(0))),
        VMulF32 => Out::f32(float::mul(f(0), f(1))),
        VFmaF32 => Out::f32(float::fma(f(0), f(1), f(2))),
        VMadF32 => Out::f32(float::mad_ftz(f(0), f(1), f(2))),
        VMacF32 => Out::f32(float::mad_ftz(
            f(0),
            f(1),
            f32::from_bits(input.dst_old as u32),
        )),
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
        VCvtI32F32 => Out::b32(f(0) as i32 as u32),
        VCvtU32F32 => Out::b32(f(0) as u32),
        VCvtF64F32 => Out::f64(float::f32_to_f64(f(0))),
        VCvtF32F64 => Out::f32(float::f64_to_f32(d(0))),

        // f64 arithmetic.
        VAddF64 => Out::f64(float::add64(d(0), d(1))),
        VMulF64 => Out::f64(float::mul64(d(0), d(1))),
        VFmaF64 => Out::f64(float::fma64(d(0), d(1), d(2))),
        VRcpF64 => Out::f64(float::rcp64(d(0))),

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

/// An f32 compare (GCN3 ISA 12.8, VOPC): the `n…` predicates are the negations of the
/// ordered ones, so they hold for unordered operands; −0 equals +0.
fn compare_f32(op: Op, a: f32, b: f32) -> bool {
    use Op::*;
    match op {
        VCmpFF32 => false,
        VCmpLtF32 => a < b,
        VCmpEqF32 => a == b,
        VCmpLeF32 => a <= b,
        VCmpGtF32 => a > b,
        VCmpLgF32 => a < b || a > b,
        VCmpGeF32 => a >= b,
        VCmpOF32 => !a.is_nan() && !b.is_nan(),
        VCmpUF32 => a.is_nan() || b.is_nan(),
        VCmpNgeF32 => !(a >= b),
        VCmpNlgF32 => !(a < b || a > b),
        VCmpNgtF32 => !(a > b),
        VCmpNleF32 => !(a <= b),
        VCmpNeqF32 => a != b,
        VCmpNltF32 => !(a < b),
        VCmpTruF32 => true,
        _ => unreachable!("{op:?} is not an f32 compare"),
    }
}
