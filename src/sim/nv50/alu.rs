//! Per-thread semantics of the arithmetic, logic, conversion and special-function
//! instructions: source values in, the result and its `$c` flags out. Integer results and
//! flags follow envytools' `docs/hw/graph/tesla/cuda/int.rst` as its hardware test
//! `hwtest/g80_int.cc` checks them; floats are `float.rs`, the SFU `sfu.rs`.
//!
//! Flags are a nibble: Z (bit 0), S (bit 1), C (bit 2), O (bit 3) (`isa.rst`, "Registers").

use super::float::{self, Cmp, Mode};
use super::sfu;
use crate::isa::nv50::mc::{Cond, McInst, Mods, Op, Operand, Round, Ty};

pub(crate) const Z: u8 = 1;
pub(crate) const S: u8 = 2;
pub(crate) const C: u8 = 4;
pub(crate) const O: u8 = 8;

/// What an instruction computes in one thread: the value for its destination (the low
/// bits that fit) and its flags.
pub(crate) struct Out {
    pub value: u64,
    pub flags: u8,
}

fn out(value: u64, flags: u8) -> Result<Out, String> {
    Ok(Out { value, flags })
}

/// Z and S of an integer result of `bits` bits.
fn zs(v: u32, bits: u32) -> u8 {
    let v = if bits == 16 { v & 0xffff } else { v };
    if v == 0 {
        Z
    } else if v >> (bits - 1) & 1 == 1 {
        S
    } else {
        0
    }
}

/// Whether `cond` holds on `flags` (`docs/nv50.md`, "Condition codes and predication").
pub(crate) fn cond_holds(cond: Cond, flags: u8) -> bool {
    let z = flags & Z != 0;
    let s = flags & S != 0;
    let c = flags & C != 0;
    let o = flags & O != 0;
    match cond {
        Cond::Never => false,
        Cond::L => (s && !z) ^ o,
        Cond::E => z && !s,
        Cond::Le => s ^ (z || o),
        Cond::G => !z && !(s ^ o),
        Cond::Lg => !z,
        Cond::Ge => !(s ^ o),
        Cond::Lge => !z || !s,
        Cond::U => z && s,
        Cond::Lu => s ^ o,
        Cond::Eu => z,
        Cond::Leu => z || (s ^ o),
        Cond::Gu => !s ^ (z || o),
        Cond::Lgu => !z || s,
        Cond::Geu => (!s || z) ^ o,
        Cond::Always => true,
        Cond::O => o,
        Cond::C => c,
        Cond::A => !z && c,
        Cond::S => s,
        Cond::Ns => !s,
        Cond::Na => z || !c,
        Cond::Nc => !c,
        Cond::No => !o,
    }
}

/// The integer add family on 16 or 32 bits: `sub` is `a + ~b + 1`, `subr` `~a + b + 1`,
/// `addc` adds the carry flag of `carry`. C is the carry out of the top bit, O signed
/// overflow; `sat` clamps a signed overflow.
fn add(b32: bool, op: Op, sat: bool, mut a: u32, mut b: u32, carry: u8) -> (u32, u8) {
    let cin = match op {
        Op::Sub | Op::MadSub => {
            b = !b;
            1
        }
        Op::Subr | Op::MadSubr => {
            a = !a;
            1
        }
        Op::Addc | Op::MadAddc => (carry & C != 0) as u64,
        _ => 0,
    };
    let bits = if b32 { 32 } else { 16 };
    let mask = if b32 { u32::MAX as u64 } else { 0xffff };
    let (a, b) = (a as u64 & mask, b as u64 & mask);
    let sum = a + b + cin;
    let mut flags = 0;
    if sum > mask {
        flags |= C;
    }
    let mut r = (sum & mask) as u32;
    let sign = |v: u64| v >> (bits - 1) & 1;
    if sign(a) == sign(b) && sign(a) != sign(r as u64) {
        flags |= O;
        if sat {
            r = if sign(a) == 1 {
                1 << (bits - 1)
            } else {
                (1 << (bits - 1)) - 1
            };
        }
    }
    (r, flags | zs(r, bits))
}

fn mul16(a: u32, b: u32, sa: bool, sb: bool) -> u32 {
    let ext = |v: u32, s: bool| {
        if s {
            v as u16 as i16 as i32 as u32
        } else {
            v & 0xffff
        }
    };
    ext(a, sa).wrapping_mul(ext(b, sb))
}

/// The 24-bit multiply: the low 24 bits of each source, the low 32 bits of the 48-bit
/// product, or with `high` bits 16–47.
fn mul24(a: u32, b: u32, signed: bool, high: bool) -> u32 {
    let (a, b) = (a << 8, b << 8);
    let p = if signed {
        (a as i32 as i64 * b as i32 as i64) as u64
    } else {
        a as u64 * b as u64
    };
    (p >> if high { 32 } else { 16 }) as u32
}

/// The integer product of a `mul` or multiply-add.
fn int_product(inst: &McInst, a: u32, b: u32) -> Result<u32, String> {
    let ty = inst.ty.ok_or("no type")?;
    Ok(match ty {
        Ty::U16 | Ty::S16 => {
            // Multiply-adds have one type for both sources; `mul` a second one.
            let sb = inst.src_ty.unwrap_or(ty) == Ty::S16;
            mul16(a, b, ty == Ty::S16, sb)
        }
        Ty::U24 | Ty::S24 => mul24(a, b, ty == Ty::S24, inst.mods.contains(Mods::HIGH)),
        _ => return Err(format!("integer multiply of type {}", ty.name())),
    })
}

fn round(inst: &McInst) -> Mode {
    match inst.round {
        None | Some(Round::Rn | Round::Rni) => Mode::Rn,
        Some(Round::Rm | Round::Rmi) => Mode::Rm,
        Some(Round::Rp | Round::Rpi) => Mode::Rp,
        Some(Round::Rz | Round::Rzi) => Mode::Rz,
    }
}

/// An f32 source with the `abs` and `neg` modifiers of source `i` applied.
fn f32_src(inst: &McInst, v: u64, i: usize) -> u32 {
    let (neg, abs) = [
        (Mods::NEG0, Mods::ABS0),
        (Mods::NEG1, Mods::ABS1),
        (Mods::NEG2, Mods::NONE),
    ][i];
    let mut v = v as u32;
    if abs != Mods::NONE && inst.mods.contains(abs) {
        v &= 0x7fff_ffff;
    }
    if inst.mods.contains(neg) {
        v ^= 0x8000_0000;
    }
    v
}

fn f64_src(inst: &McInst, v: u64, i: usize) -> u64 {
    let (neg, abs) = [
        (Mods::NEG0, Mods::ABS0),
        (Mods::NEG1, Mods::ABS1),
        (Mods::NEG2, Mods::NONE),
    ][i];
    float::f64_operand(
        v,
        abs != Mods::NONE && inst.mods.contains(abs),
        inst.mods.contains(neg),
    )
}

fn f32_out(inst: &McInst, v: u32) -> Result<Out, String> {
    let v = if inst.mods.contains(Mods::SAT) {
        float::f32_sat(v)
    } else {
        v
    };
    out(v as u64, float::f32_cmp(v, 0, true).flags())
}

fn f64_out(v: u64) -> Result<Out, String> {
    out(v, float::f64_cmp(v, 0).flags())
}

/// The result of a comparison under `set`'s condition: bit 0 less, 1 equal, 2 greater,
/// 3 unordered.
fn set_result(cond: Cond, cmp: Cmp, half: bool) -> Result<Out, String> {
    let bit = match cmp {
        Cmp::Lt => 0,
        Cmp::Eq => 1,
        Cmp::Gt => 2,
        Cmp::Un => 3,
    };
    if cond.code() >> bit & 1 == 1 {
        out(if half { 0xffff } else { 0xffff_ffff }, S)
    } else {
        out(0, Z)
    }
}

fn is_half(op: Option<Operand>) -> bool {
    matches!(op, Some(Operand::H { .. }))
}

/// Computes `inst` (an arithmetic, logic, conversion or SFU operation) on its source
/// values `s` (registers and memory operands already read; a `$c` source as its flags).
pub(crate) fn exec(inst: &McInst, s: &[u64; 4]) -> Result<Out, String> {
    let ty = inst.ty;
    let half = is_half(inst.dst);
    let (a, b) = (s[0] as u32, s[1] as u32);
    match inst.op {
        Op::Mov => out(s[0], zs(a, if half { 16 } else { 32 })),
        Op::Add | Op::Sub | Op::Subr | Op::Addc if ty == Some(Ty::F32) => {
            let r = float::f32_add(f32_src(inst, s[0], 0), f32_src(inst, s[1], 1), round(inst));
            f32_out(inst, r)
        }
        Op::Add if ty == Some(Ty::F64) => f64_out(float::f64_add(
            f64_src(inst, s[0], 0),
            f64_src(inst, s[1], 1),
            round(inst),
        )),
        Op::Add if matches!(inst.dst, Some(Operand::A(_))) => out((a.wrapping_add(b)) as u64, 0),
        Op::Add | Op::Sub | Op::Subr | Op::Addc => {
            let (r, f) = add(
                ty != Some(Ty::B16),
                inst.op,
                inst.mods.contains(Mods::SAT),
                a,
                b,
                s[2] as u8,
            );
            out(r as u64, f)
        }
        Op::Mul if ty == Some(Ty::F32) => {
            let r = float::f32_mul(f32_src(inst, s[0], 0), f32_src(inst, s[1], 1), round(inst));
            f32_out(inst, r)
        }
        Op::Mul if ty == Some(Ty::F64) => f64_out(float::f64_mul(
            f64_src(inst, s[0], 0),
            f64_src(inst, s[1], 1),
            round(inst),
        )),
        Op::Mul => {
            let r = int_product(inst, a, b)?;
            out(r as u64, zs(r, 32))
        }
        Op::Mad if ty == Some(Ty::F32) => {
            let r = float::f32_mad(f32_src(inst, s[0], 0), b, f32_src(inst, s[2], 2));
            f32_out(inst, r)
        }
        Op::Mad | Op::MadSub | Op::MadSubr | Op::MadAddc => {
            let p = int_product(inst, a, b)?;
            let (r, f) = add(
                true,
                inst.op,
                inst.mods.contains(Mods::SAT),
                p,
                s[2] as u32,
                s[3] as u8,
            );
            out(r as u64, f)
        }
        Op::Fma => f64_out(float::f64_fma(
            f64_src(inst, s[0], 0),
            float::f64_operand(s[1], false, false),
            f64_src(inst, s[2], 2),
            round(inst),
        )),
        Op::Sad => {
            let ty = ty.ok_or("no type")?;
            let (mut x, mut y) = (a, b);
            let narrow = ty.bytes() == 2;
            if narrow {
                x <<= 16;
                y <<= 16;
            }
            if ty.is_signed() {
                x ^= 1 << 31;
                y ^= 1 << 31;
            }
            let mut d = x.abs_diff(y);
            if narrow {
                d >>= 16;
            }
            let (r, f) = add(true, Op::Add, false, d, s[2] as u32, 0);
            out(r as u64, f)
        }
        Op::Min | Op::Max if ty == Some(Ty::F32) => {
            let r = float::f32_minmax(
                f32_src(inst, s[0], 0),
                f32_src(inst, s[1], 1),
                inst.op == Op::Min,
            );
            out(r as u64, float::f32_cmp(r, 0, true).flags())
        }
        Op::Min | Op::Max if ty == Some(Ty::F64) => f64_out(float::f64_minmax(
            f64_src(inst, s[0], 0),
            f64_src(inst, s[1], 1),
            inst.op == Op::Min,
        )),
        Op::Min | Op::Max => {
            let ty = ty.ok_or("no type")?;
            let (mut x, mut y) = (a, b);
            if half {
                x <<= 16;
                y <<= 16;
            }
            if ty.is_signed() {
                x ^= 1 << 31;
                y ^= 1 << 31;
            }
            let mut r = if (x > y) ^ (inst.op == Op::Min) { x } else { y };
            if ty.is_signed() {
                r ^= 1 << 31;
            }
            let f = zs(r, 32);
            out(if half { r >> 16 } else { r } as u64, f)
        }
        Op::Set => {
            let cond = inst.cmp.ok_or("no comparison")?;
            let cmp = match ty.ok_or("no type")? {
                Ty::F32 => float::f32_cmp(f32_src(inst, s[0], 0), f32_src(inst, s[1], 1), true),
                Ty::F64 => float::f64_cmp(f64_src(inst, s[0], 0), f64_src(inst, s[1], 1)),
                ty => {
                    let (mut x, mut y) = (a, b);
                    if half {
                        x <<= 16;
                        y <<= 16;
                    }
                    if ty.is_signed() {
                        x ^= 1 << 31;
                        y ^= 1 << 31;
                    }
                    match x.cmp(&y) {
                        std::cmp::Ordering::Less => Cmp::Lt,
                        std::cmp::Ordering::Equal => Cmp::Eq,
                        std::cmp::Ordering::Greater => Cmp::Gt,
                    }
                }
            };
            set_result(cond, cmp, half)
        }
        Op::Shl if matches!(inst.dst, Some(Operand::A(_))) => out((a << (b & 15)) as u64, 0),
        Op::Shl | Op::Shr => {
            let bits = if half { 16 } else { 32 };
            let (x, n) = if half {
                (a & 0xffff, b & 0xffff)
            } else {
                (a, b)
            };
            let (r, mut f) = if inst.op == Op::Shl {
                let r = if n >= 32 { 0 } else { x << n };
                let c = n != 0 && n < bits && x >> (bits - n) & 1 == 1;
                (r, if c { C } else { 0 })
            } else {
                let negative = ty.is_some_and(|t| t.is_signed()) && x >> (bits - 1) == 1;
                let r = match (negative, n >= 32) {
                    (true, true) => u32::MAX,
                    (true, false) if half => ((x as u16 as i16 as i32) >> n) as u32,
                    (true, false) => ((x as i32) >> n) as u32,
                    (false, true) => 0,
                    (false, false) => x >> n,
                };
                let c = n != 0 && n < bits && x >> (n - 1) & 1 == 1;
                (r, if c { C } else { 0 })
            };
            let r = if half { r & 0xffff } else { r };
            f |= zs(r, bits);
            if n == 1 && r >> (bits - 1) != x >> (bits - 1) {
                f |= O;
            }
            out(r as u64, f)
        }
        Op::And | Op::Or | Op::Xor | Op::Mov2 => {
            let x = if inst.mods.contains(Mods::NOT0) {
                !a
            } else {
                a
            };
            let y = if inst.mods.contains(Mods::NOT1) {
                !b
            } else {
                b
            };
            let r = match inst.op {
                Op::And => x & y,
                Op::Or => x | y,
                Op::Xor => x ^ y,
                _ => y,
            };
            out(r as u64, zs(r, if half { 16 } else { 32 }))
        }
        Op::Cvt => cvt(inst, s[0]),
        Op::Slct => {
            let cmp = float::f32_cmp(f32_src(inst, s[2], 2), 0, true);
            let r = if matches!(cmp, Cmp::Gt | Cmp::Eq) {
                a
            } else {
                b
            };
            let f = if r & 0x7fff_ffff == 0 {
                Z
            } else if r >> 31 == 1 {
                S
            } else {
                0
            };
            out(r as u64, f)
        }
        Op::Rcp => f32_out(inst, sfu::rcp(f32_src(inst, s[0], 0))),
        Op::Rsqrt => f32_out(inst, sfu::rsqrt(f32_src(inst, s[0], 0))),
        Op::Lg2 => f32_out(inst, sfu::lg2(f32_src(inst, s[0], 0))),
        Op::Ex2 => f32_out(inst, sfu::ex2(a)),
        Op::Sin => f32_out(inst, sfu::sincos(a, false)),
        Op::Cos => f32_out(inst, sfu::sincos(a, true)),
        Op::Preex2 => out(sfu::preex2(f32_src(inst, s[0], 0)) as u64, 0),
        Op::Presin => out(sfu::presin(f32_src(inst, s[0], 0)) as u64, 0),
        op => Err(format!("{op:?} is not an arithmetic operation")),
    }
}

/// Z and S of an integer result by the width of its destination register (16 or 32 or
/// 64 bits), O when `overflow`.
fn int_flags(v: u64, bits: u32, overflow: bool) -> u8 {
    let v = if bits < 64 { v & ((1 << bits) - 1) } else { v };
    let f = if v == 0 {
        Z
    } else if v >> (bits - 1) & 1 == 1 {
        S
    } else {
        0
    };
    f | if overflow { O } else { 0 }
}

/// `cvt` in all its forms but those with f16 (which the backend never emits).
fn cvt(inst: &McInst, x: u64) -> Result<Out, String> {
    let dty = inst.ty.ok_or("no type")?;
    let sty = inst.src_ty.ok_or("no source type")?;
    if dty == Ty::F16 || sty == Ty::F16 {
        return Err("f16 conversions are not simulated".into());
    }
    let neg_mod = inst.mods.contains(Mods::NEG0);
    let abs_mod = inst.mods.contains(Mods::ABS0);
    let dst_bits = match inst.dst {
        Some(Operand::H { .. }) => 16,
        Some(Operand::D(_)) => 64,
        _ => 32,
    };
    let rm = round(inst);
    let wide = sty.bytes() == 8 || dty.bytes() == 8;
    match (sty.is_float(), dty.is_float()) {
        (false, false) => {
            // Integer from integer (`hwtest/g80_fp.cc`, i2i): magnitude and sign, then
            // saturation to the destination's range.
            let v = x as u32;
            let v = match sty {
                Ty::U8 => v & 0xff,
                Ty::S8 => v as u8 as i8 as i32 as u32,
                Ty::U16 => v & 0xffff,
                Ty::S16 => v as u16 as i16 as i32 as u32,
                _ => v,
            };
            let (mut mag, mut neg) = (v, false);
            if sty.is_signed() && v >> 31 == 1 {
                mag = v.wrapping_neg();
                neg = true;
            }
            if abs_mod {
                neg = false;
            }
            neg ^= neg_mod;
            let r = if dty.is_signed() {
                let limit: u32 = match dty.bytes() {
                    1 => 0x80,
                    2 => 0x8000,
                    _ => 0x8000_0000,
                };
                if neg {
                    mag.min(limit).wrapping_neg()
                } else {
                    mag.min(limit - 1)
                }
            } else if neg {
                0
            } else {
                match dty.bytes() {
                    1 => mag.min(0xff),
                    2 => mag.min(0xffff),
                    _ => mag,
                }
            };
            let r = if dst_bits == 16 { r & 0xffff } else { r };
            out(r as u64, int_flags(r as u64, dst_bits, false))
        }
        (false, true) => {
            // Float from integer.
            let signed = sty.is_signed();
            let v = match sty {
                Ty::U8 => x & 0xff,
                Ty::S8 => x as u8 as i8 as i64 as u64,
                Ty::U16 => x & 0xffff,
                Ty::S16 => x as u16 as i16 as i64 as u64,
                Ty::U32 => x & 0xffff_ffff,
                Ty::S32 => x as u32 as i32 as i64 as u64,
                _ => x,
            };
            let (mut mag, mut neg) = (v, false);
            if signed && v >> 63 == 1 {
                mag = v.wrapping_neg();
                neg = true;
            }
            if abs_mod {
                neg = false;
            }
            neg ^= neg_mod;
            // GT200's 64-bit forms adjust the rounding for the sign only for signed
            // sources (`hwtest/g80_fp64.cc`); the others always (`g80_fp.cc`).
            let rm = if !wide || signed {
                rm_for_sign(rm, neg)
            } else {
                rm
            };
            if dty == Ty::F64 {
                let r = float::f64_from_u64(mag, rm) ^ (neg as u64) << 63;
                f64_out(r)
            } else {
                let r = float::f32_from_u64(mag, rm) ^ (neg as u32) << 31;
                f32_out(inst, r)
            }
        }
        (true, false) => float_to_int(x, sty, dty, dst_bits, rm, neg_mod, abs_mod),
        (true, true) => {
            if sty == Ty::F32 && dty == Ty::F32 {
                let v = f32_src(inst, x, 0);
                let mut r = float::f32_add(v, 0x8000_0000, Mode::Rn);
                if inst.mods.contains(Mods::SAT) {
                    r = float::f32_sat(r);
                }
                if inst.round.is_some() {
                    r = float::f32_rint(r, rm);
                }
                return out(r as u64, float::f32_cmp(r, 0, true).flags());
            }
            let mut v = if sty == Ty::F32 {
                float::f32_to_f64(x as u32)
            } else {
                x
            };
            v = float::f64_operand(v, abs_mod, neg_mod);
            if dty == Ty::F64 {
                if sty == Ty::F64 && inst.round.is_some() {
                    v = float::f64_rint(v, rm);
                }
                f64_out(v)
            } else {
                let r = float::f64_to_f32(v, rm);
                out(r as u64, float::f32_cmp(r, 0, false).flags())
            }
        }
    }
}

fn rm_for_sign(rm: Mode, negative: bool) -> Mode {
    match (rm, negative) {
        (Mode::Rm, true) => Mode::Rp,
        (Mode::Rp, true) => Mode::Rm,
        (rm, _) => rm,
    }
}

/// Integer from float: rounds the magnitude, then saturates to the destination's range.
fn float_to_int(
    x: u64,
    sty: Ty,
    dty: Ty,
    dst_bits: u32,
    rm: Mode,
    neg_mod: bool,
    abs_mod: bool,
) -> Result<Out, String> {
    let sbit = if sty == Ty::F64 { 63 } else { 31 };
    let mut v = x;
    if abs_mod {
        v &= !(1 << sbit);
    }
    if neg_mod {
        v ^= 1 << sbit;
    }
    let neg = v >> sbit & 1 == 1;
    let rm = if neg {
        v ^= 1 << sbit;
        rm_for_sign(rm, true)
    } else {
        rm
    };
    if sty == Ty::F32 && dty.bytes() <= 4 {
        // `hwtest/g80_fp.cc`, f2i: a NaN reads as a zero magnitude.
        let mut r = float::f32_to_u64(v as u32, rm, true).min(u32::MAX as u64) as u32;
        if dty.is_signed() {
            let limit: u32 = if dst_bits == 16 { 0x8000 } else { 0x8000_0000 };
            r = if neg {
                r.min(limit).wrapping_neg()
            } else {
                r.min(limit - 1)
            };
        } else if neg {
            r = 0;
        } else if dst_bits == 16 {
            r = r.min(0xffff);
        }
        let r = if dst_bits == 16 { r & 0xffff } else { r };
        return out(r as u64, int_flags(r as u64, dst_bits, false));
    }
    // GT200's forms (`hwtest/g80_fp64.cc`, f2i): NaN gives the most negative value, and
    // O says the value did not fit.
    let bits = if dty.bytes() == 8 { 64 } else { 32 };
    let is_nan = if sty == Ty::F64 {
        float::f64_is_nan(v)
    } else {
        float::f32_is_nan(v as u32)
    };
    let (mut r, mut ovf) = if is_nan {
        (1u64 << (bits - 1), true)
    } else {
        let r = if sty == Ty::F64 {
            float::f64_to_u64(v, rm)
        } else {
            float::f32_to_u64(v as u32, rm, false)
        };
        (r, r == u32::MAX as u64)
    };
    if !is_nan {
        if dty.is_signed() {
            let limit = 1u64 << (bits - 1);
            if neg {
                if r > limit {
                    r = limit;
                    ovf = true;
                }
                r = r.wrapping_neg();
            } else if r >= limit {
                r = limit - 1;
                ovf = true;
            }
        } else {
            if neg && r != 0 {
                r = 0;
                ovf = true;
            }
            if bits == 32 && r > u32::MAX as u64 {
                r = u32::MAX as u64;
                ovf = true;
            }
        }
    }
    if bits == 32 {
        r &= 0xffff_ffff;
    }
    out(r, int_flags(r, bits, ovf))
}
