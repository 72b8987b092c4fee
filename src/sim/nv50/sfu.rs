//! The special-function unit: `preex2`/`presin` bit-exact (their fixed-point formats are
//! envytools' `nvhw/sfu.c`, `sfu_pre`), the functions themselves (`rcp`, `rsqrt`, `lg2`,
//! `ex2`, `sin`, `cos`) **not** bit-exact: the hardware interpolates tables
//! (`sfu.c`), the simulator rounds the exact function to the nearest f32. Special values
//! (zeros, infinities, NaN, negative arguments) are as the hardware gives them; denormal
//! inputs read as zero and denormal results are flushed, as in the rest of the f32 unit.
//! The backend never relies on an SFU result without a correction step for an exact
//! CLIF operation (`docs/simulator.md`).

use super::float::{F32_NAN, f32_is_nan};

fn flush_in(x: u32) -> f32 {
    if x & 0x7f80_0000 == 0 {
        f32::from_bits(x & 0x8000_0000)
    } else {
        f32::from_bits(x)
    }
}

/// Rounds `v` to f32 and flushes a denormal result to zero of the same sign.
fn flush_out(v: f64) -> u32 {
    if v.is_nan() {
        return F32_NAN;
    }
    let bits = (v as f32).to_bits();
    if bits & 0x7f80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    }
}

pub(crate) fn rcp(x: u32) -> u32 {
    if f32_is_nan(x) {
        return F32_NAN;
    }
    flush_out(1.0 / flush_in(x) as f64)
}

pub(crate) fn rsqrt(x: u32) -> u32 {
    if f32_is_nan(x) {
        return F32_NAN;
    }
    let v = flush_in(x);
    if v == 0.0 {
        return flush_out(1.0 / v as f64);
    }
    flush_out(1.0 / (v as f64).sqrt())
}

pub(crate) fn lg2(x: u32) -> u32 {
    if f32_is_nan(x) {
        return F32_NAN;
    }
    let v = flush_in(x);
    if v == 0.0 {
        return 0xff80_0000;
    }
    flush_out((v as f64).log2())
}

/// The argument of `ex2` or `sin`/`cos`: a signed fixed-point value with 23 fraction
/// bits, or `None` for the specials (bit 30 set: the input was NaN or infinite, or `preex2`
/// overflowed).
fn fixed(x: u32) -> Option<f64> {
    if x & 0x4000_0000 != 0 {
        return None;
    }
    let v = (x & 0x3fff_ffff) as f64 / (1u64 << 23) as f64;
    Some(if x >> 31 == 1 { -v } else { v })
}

/// `preex2`: the operand as 7.23 fixed point with its sign; 0x40800000 for infinities and
/// overflow (|x| ≥ 128), 0x40000000 for NaN.
pub(crate) fn preex2(x: u32) -> u32 {
    pre(x, false)
}

/// `presin`: the operand times 2/π (quarter turns) as fixed point, 2 integer bits kept
/// (the quadrant), with its sign; the same specials as `preex2`.
pub(crate) fn presin(x: u32) -> u32 {
    pre(x, true)
}

fn pre(x: u32, sin: bool) -> u32 {
    let sign = x & 0x8000_0000;
    let e = ((x >> 23) & 0xff) as i32;
    if f32_is_nan(x) {
        return sign | 0x4000_0000;
    }
    if e == 0xff {
        return sign | 0x4080_0000;
    }
    // Denormals read as zero.
    let mut f: u64 = if e == 0 {
        0
    } else {
        1 << 23 | (x & 0x7f_ffff) as u64
    };
    let mut e = if e == 0 { 1 } else { e } - 0x7f;
    if sin {
        // 0xa2f983 / 2^24 is 2/π to 24 bits.
        f = (f * 0xa2_f983) >> 16;
        e -= 8;
    }
    if !sin && e >= 7 {
        return sign | 0x4080_0000;
    }
    let f = if e >= 0 {
        if e >= 32 {
            0
        } else {
            (f as u32).wrapping_shl(e as u32)
        }
    } else if -e >= 64 {
        0
    } else {
        (f >> -e) as u32
    };
    let f = if sin { f & 0x1ff_ffff } else { f };
    sign | f
}

pub(crate) fn ex2(x: u32) -> u32 {
    match fixed(x) {
        Some(v) => flush_out(v.exp2()),
        None if x & 0x0080_0000 != 0 => {
            if x >> 31 == 1 {
                0
            } else {
                0x7f80_0000
            }
        }
        None => F32_NAN,
    }
}

/// `sin` (`cos` when `cos`) of a `presin` result.
pub(crate) fn sincos(x: u32, cos: bool) -> u32 {
    match fixed(x) {
        Some(v) => {
            let angle = v * std::f64::consts::FRAC_PI_2;
            flush_out(if cos { angle.cos() } else { angle.sin() })
        }
        None => F32_NAN,
    }
}
