//! Tesla's floating-point arithmetic, bit-exact to the model envytools checks the hardware
//! against (`nvhw/fp.c`, `include/nvhw/fp.h`; tested on G80–GT200 by `hwtest/g80_fp.cc`
//! and `g80_fp64.cc`). The facts that differ from IEEE 754 (`docs/targets.md`, f32):
//!
//! - f32 `add`, `mul`, `mad`, `min`/`max`, `set`, `slct` and `cvt f32 f32` read denormals as
//!   zero and flush denormal results to zero, rounding first as if the exponent were
//!   unbounded (so a result that rounds up to the smallest normal survives);
//! - the f32 multiply-add cuts the product to 24 bits toward zero when the addend is
//!   non-zero, then rounds the sum to nearest;
//! - every f32 NaN result is `0x7fffffff`; `min`/`max` return the other operand when one
//!   is NaN; an exact zero sum is `+0` unless both addends were `-0`;
//! - f64 (GT200) keeps denormals, propagates the first NaN operand (quieted by the
//!   caller), gives `0xfff8000000000000` for invalid operations and `-0` for an exact zero
//!   sum only when rounding toward minus infinity.
//!
//! Values are taken apart into sign, biased exponent and significand with the implicit
//! one, aligned with a sticky bit (round to odd), added as integers, normalised and
//! rounded once.

/// A rounding mode, as the instructions' fields number the first four.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// To nearest, ties to even.
    Rn,
    /// Towards minus infinity.
    Rm,
    /// Towards plus infinity.
    Rp,
    /// Towards zero.
    Rz,
    /// Keep a sticky bit (round to odd): alignment before a second rounding.
    Odd,
}

impl Mode {
    /// The mode to round a magnitude with, for a value of sign `negative`.
    fn for_sign(self, negative: bool) -> Mode {
        match (self, negative) {
            (Mode::Rm, true) => Mode::Rp,
            (Mode::Rp, true) => Mode::Rm,
            (rm, _) => rm,
        }
    }
}

/// A comparison result (the float `$c` flags: greater 0, equal Z, less S, unordered Z|S).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Gt,
    Eq,
    Lt,
    Un,
}

impl Cmp {
    /// The `$c` flags a float result sets: its comparison with zero.
    pub fn flags(self) -> u8 {
        match self {
            Cmp::Gt => 0,
            Cmp::Eq => 1,
            Cmp::Lt => 2,
            Cmp::Un => 3,
        }
    }
}

/// `x >> shift` rounded per `rm` as a magnitude (`rm`/`rz` truncate); a negative shift
/// shifts left.
fn shr(x: u128, shift: i32, rm: Mode) -> u128 {
    if shift <= 0 {
        return x << -shift;
    }
    let (q, rest, cmp_half) = if shift >= 128 {
        (0, x, std::cmp::Ordering::Less)
    } else {
        let rest = x & ((1u128 << shift) - 1);
        (x >> shift, rest, rest.cmp(&(1u128 << (shift - 1))))
    };
    match rm {
        Mode::Rp if rest != 0 => q + 1,
        Mode::Rn if cmp_half.is_gt() || (cmp_half.is_eq() && q & 1 == 1) => q + 1,
        Mode::Odd if rest != 0 => q | 1,
        _ => q,
    }
}

/// Shifts `x` left until bit `bit` is its highest set bit, lowering `e` as many times.
fn norm(x: u128, e: &mut i32, bit: u32) -> u128 {
    if x == 0 {
        return 0;
    }
    let top = 127 - x.leading_zeros();
    debug_assert!(top <= bit);
    *e -= (bit - top) as i32;
    x << (bit - top)
}

// ---- f32 ----

pub(crate) const F32_NAN: u32 = 0x7fff_ffff;
const F32_ONE_BIT: u32 = 1 << 23;

pub(crate) fn f32_is_nan(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}
fn f32_is_inf(x: u32) -> bool {
    x & 0x7fff_ffff == 0x7f80_0000
}
fn f32_inf(negative: bool) -> u32 {
    (negative as u32) << 31 | 0x7f80_0000
}

/// Sign, biased exponent (1 for zeros and denormals) and significand with the implicit
/// one; denormals read as zero when `ftz`.
fn f32_parts(x: u32, ftz: bool) -> (bool, i32, u32) {
    let (s, e, f) = (x >> 31 == 1, ((x >> 23) & 0xff) as i32, x & 0x7f_ffff);
    if e == 0 {
        (s, 1, if ftz { 0 } else { f })
    } else {
        (s, e, F32_ONE_BIT | f)
    }
}

/// Assembles a finite (or overflowing) f32 from a rounded significand; results below the
/// normal range become zero when `ftz`.
fn f32_make(s: bool, mut e: i32, mut f: u32, rm: Mode, ftz: bool) -> u32 {
    if f == 0 {
        e = 1;
    }
    if f == 2 * F32_ONE_BIT {
        f >>= 1;
        e += 1;
    }
    let (e, f) = if e <= 0 || f < F32_ONE_BIT {
        (0, if ftz { 0 } else { f })
    } else if e >= 0xff {
        if rm == Mode::Rz || rm.for_sign(s) == Mode::Rm {
            (0xfe, F32_ONE_BIT - 1)
        } else {
            (0xff, 0)
        }
    } else {
        (e, f - F32_ONE_BIT)
    };
    (s as u32) << 31 | (e as u32) << 23 | f
}

/// `add f32` (and `sub`, with a negated operand).
pub(crate) fn f32_add(a: u32, b: u32, rm: Mode) -> u32 {
    if f32_is_nan(a) || f32_is_nan(b) {
        return F32_NAN;
    }
    if f32_is_inf(a) {
        return if f32_is_inf(b) && a != b { F32_NAN } else { a };
    }
    if f32_is_inf(b) {
        return b;
    }
    let (sa, ea, fa) = f32_parts(a, true);
    let (sb, eb, fb) = f32_parts(b, true);
    let mut er = ea.max(eb) + 1;
    // Three guard bits and a sticky bit: a 28-bit accumulator.
    let fa = shr(fa as u128, er - ea - 4, Mode::Odd) as i64;
    let fb = shr(fb as u128, er - eb - 4, Mode::Odd) as i64;
    let res = if sa { -fa } else { fa } + if sb { -fb } else { fb };
    if res == 0 {
        return f32_make(sa && sb, 0, 0, rm, true);
    }
    let sr = res < 0;
    let m = norm(res.unsigned_abs() as u128, &mut er, 27);
    let m = shr(m, 4, rm.for_sign(sr));
    f32_make(sr, er, m as u32, rm, true)
}

/// `mul f32`.
pub(crate) fn f32_mul(a: u32, b: u32, rm: Mode) -> u32 {
    let (sa, ea, fa) = f32_parts(a, true);
    let (sb, eb, fb) = f32_parts(b, true);
    if f32_is_nan(a) || f32_is_nan(b) {
        return F32_NAN;
    }
    let sr = sa ^ sb;
    if f32_is_inf(a) || f32_is_inf(b) {
        return if fa == 0 || fb == 0 {
            F32_NAN
        } else {
            f32_inf(sr)
        };
    }
    let mut er = ea + eb - 0x7f + 1;
    let product = fa as u128 * fb as u128;
    if product == 0 {
        return f32_make(sr, 0, 0, rm, true);
    }
    let m = norm(product, &mut er, 47);
    let m = shr(m, 24, rm.for_sign(sr));
    f32_make(sr, er, m as u32, rm, true)
}

/// The f32 multiply-add `a * b + c`: not fused (the product is truncated to 24 bits when
/// `c` is non-zero), rounded to nearest.
pub(crate) fn f32_mad(a: u32, b: u32, c: u32) -> u32 {
    let (sa, ea, fa) = f32_parts(a, true);
    let (sb, eb, fb) = f32_parts(b, true);
    let (sc, ec, fc) = f32_parts(c, true);
    let ss = sa ^ sb;
    if f32_is_nan(a) || f32_is_nan(b) || f32_is_nan(c) {
        return F32_NAN;
    }
    if f32_is_inf(a) || f32_is_inf(b) {
        return if fa == 0 || fb == 0 || (f32_is_inf(c) && sc != ss) {
            F32_NAN
        } else {
            f32_inf(ss)
        };
    }
    if f32_is_inf(c) {
        return f32_inf(sc);
    }
    if fa == 0 || fb == 0 || fc == 0 {
        return f32_add(f32_mul(a, b, Mode::Rn), c, Mode::Rn);
    }
    let mut es = ea + eb - 0x7f + 1;
    let product = norm(fa as u128 * fb as u128, &mut es, 47);
    let product = shr(product, 24, Mode::Rz);
    let mut er = es.max(ec) + 1;
    let p = shr(product, er - es - 4, Mode::Odd) as i64;
    let q = shr(fc as u128, er - ec - 4, Mode::Odd) as i64;
    let res = if ss { -p } else { p } + if sc { -q } else { q };
    if res == 0 {
        return f32_make(ss && sc, 0, 0, Mode::Rn, true);
    }
    let sr = res < 0;
    let mut m = norm(res.unsigned_abs() as u128, &mut er, 27);
    if er < 1 {
        // Denormal range: the hardware drops the bits below the denormal quantum before
        // rounding (only a result rounding up to the smallest normal survives the flush).
        m >>= 1 - er;
        er = 1;
    }
    let m = shr(m, 4, Mode::Rn);
    f32_make(sr, er, m as u32, Mode::Rn, true)
}

/// Saturation to [0, 1] (`sat`); NaN gives the NaN result.
pub(crate) fn f32_sat(x: u32) -> u32 {
    if f32_is_nan(x) {
        F32_NAN
    } else if x >> 31 == 1 {
        0
    } else {
        x.min(0x3f80_0000)
    }
}

/// Rounds to an integral value (`cvt rni`/`rmi`/`rpi`/`rzi f32 f32`).
pub(crate) fn f32_rint(x: u32, rm: Mode) -> u32 {
    if f32_is_nan(x) {
        return F32_NAN;
    }
    if f32_is_inf(x) {
        return x;
    }
    let (s, mut e, mut f) = f32_parts(x, true);
    if e < 0x7f + 23 {
        let m = shr(f as u128, 0x7f + 23 - e, rm.for_sign(s));
        if m == 0 {
            e = 0;
            f = 0;
        } else {
            e = 0x7f + 23;
            f = norm(m, &mut e, 23) as u32;
        }
    }
    f32_make(s, e, f, rm, true)
}

/// Compares two f32 values, denormals as zero when `ftz`.
pub(crate) fn f32_cmp(a: u32, b: u32, ftz: bool) -> Cmp {
    if f32_is_nan(a) || f32_is_nan(b) {
        return Cmp::Un;
    }
    let (sa, ea, fa) = f32_parts(a, ftz);
    let (sb, eb, fb) = f32_parts(b, ftz);
    if fa == 0 && fb == 0 {
        Cmp::Eq
    } else if sa != sb {
        if sa { Cmp::Lt } else { Cmp::Gt }
    } else if ea == eb && fa == fb {
        Cmp::Eq
    } else if (a < b) ^ sa {
        Cmp::Lt
    } else {
        Cmp::Gt
    }
}

/// `min`/`max f32`: a NaN operand is ignored, denormals are flushed first.
pub(crate) fn f32_minmax(a: u32, b: u32, min: bool) -> u32 {
    let (a, b) = match (f32_is_nan(a), f32_is_nan(b)) {
        (true, true) => return F32_NAN,
        (true, false) => (b, b),
        (false, true) => (a, a),
        _ => (a, b),
    };
    let flush = |x: u32| {
        let (s, e, f) = f32_parts(x, true);
        f32_make(s, e, f, Mode::Rn, true)
    };
    let (a, b) = (flush(a), flush(b));
    let (sa, sb) = (a >> 31 == 1, b >> 31 == 1);
    let mut pick_b = min;
    if sa != sb {
        if sa {
            pick_b = !pick_b;
        }
    } else {
        if sa {
            pick_b = !pick_b;
        }
        if a < b {
            pick_b = !pick_b;
        }
    }
    if pick_b { b } else { a }
}

/// An unsigned integer to f32 (the caller applies and rounds for the sign).
pub(crate) fn f32_from_u64(x: u64, rm: Mode) -> u32 {
    if x == 0 {
        return 0;
    }
    let mut e = 0x7f + 63;
    let m = norm(x as u128, &mut e, 63);
    f32_make(false, e, shr(m, 40, rm) as u32, rm, true)
}

/// The magnitude of a non-negative f32 as an unsigned integer, rounded per `rm`;
/// saturates to `u64::MAX`, NaN and negative values give 0.
pub(crate) fn f32_to_u64(x: u32, rm: Mode, ftz: bool) -> u64 {
    let (s, e, f) = f32_parts(x, ftz);
    if f32_is_nan(x) || s {
        return 0;
    }
    if f32_is_inf(x) {
        return u64::MAX;
    }
    let e = e - (0x7f + 23);
    if e > 40 {
        return u64::MAX;
    }
    shr(f as u128, -e, rm) as u64
}

// ---- f64 ----

/// The NaN of an invalid f64 operation.
pub(crate) const F64_NAN: u64 = 0xfff8_0000_0000_0000;
const F64_ONE_BIT: u64 = 1 << 52;
const F64_QUIET: u64 = 1 << 51;

pub(crate) fn f64_is_nan(x: u64) -> bool {
    x & !(1 << 63) > 0x7ff0_0000_0000_0000
}
fn f64_is_inf(x: u64) -> bool {
    x & !(1 << 63) == 0x7ff0_0000_0000_0000
}
fn f64_inf(negative: bool) -> u64 {
    (negative as u64) << 63 | 0x7ff0_0000_0000_0000
}

/// An f64 operand with the source modifiers applied: a NaN is quieted and keeps its sign
/// (`hwtest/g80_fp64.cc`), anything else takes `abs`, then `neg`.
pub(crate) fn f64_operand(x: u64, abs: bool, neg: bool) -> u64 {
    if f64_is_nan(x) {
        return x | F64_QUIET;
    }
    let x = if abs { x & !(1 << 63) } else { x };
    if neg { x ^ 1 << 63 } else { x }
}

fn f64_parts(x: u64) -> (bool, i32, u64) {
    let (s, e, f) = (
        x >> 63 == 1,
        ((x >> 52) & 0x7ff) as i32,
        x & (F64_ONE_BIT - 1),
    );
    if e == 0 {
        (s, 1, f)
    } else {
        (s, e, F64_ONE_BIT | f)
    }
}

fn f64_make(s: bool, mut e: i32, mut f: u64, rm: Mode) -> u64 {
    if f == 0 {
        e = 1;
    }
    if f == 2 * F64_ONE_BIT {
        f >>= 1;
        e += 1;
    }
    let (e, f) = if f < F64_ONE_BIT {
        (0, f)
    } else if e >= 0x7ff {
        if rm == Mode::Rz || rm.for_sign(s) == Mode::Rm {
            (0x7fe, F64_ONE_BIT - 1)
        } else {
            (0x7ff, 0)
        }
    } else {
        (e, f - F64_ONE_BIT)
    };
    (s as u64) << 63 | (e as u64) << 52 | f
}

/// `add f64` on operands prepared by [`f64_operand`].
pub(crate) fn f64_add(a: u64, b: u64, rm: Mode) -> u64 {
    if f64_is_nan(b) {
        return b;
    }
    if f64_is_nan(a) {
        return a;
    }
    if f64_is_inf(a) {
        return if f64_is_inf(b) && a != b { F64_NAN } else { a };
    }
    if f64_is_inf(b) {
        return b;
    }
    let (sa, ea, fa) = f64_parts(a);
    let (sb, eb, fb) = f64_parts(b);
    let mut er = ea.max(eb) + 1;
    let fa = shr(fa as u128, er - ea - 4, Mode::Odd) as i64;
    let fb = shr(fb as u128, er - eb - 4, Mode::Odd) as i64;
    let res = if sa { -fa } else { fa } + if sb { -fb } else { fb };
    if res == 0 {
        let sr = if sa == sb { sa } else { rm == Mode::Rm };
        return f64_make(sr, 0, 0, rm);
    }
    let sr = res < 0;
    let mut m = norm(res.unsigned_abs() as u128, &mut er, 56);
    if er < 1 {
        m >>= 1 - er;
        er = 1;
    }
    f64_make(sr, er, shr(m, 4, rm.for_sign(sr)) as u64, rm)
}

/// `fma f64`: `a * b + c`, fused, on operands prepared by [`f64_operand`].
pub(crate) fn f64_fma(a: u64, b: u64, c: u64, rm: Mode) -> u64 {
    for x in [b, c, a] {
        if f64_is_nan(x) {
            return x;
        }
    }
    let (sa, ea, fa) = f64_parts(a);
    let (sb, eb, fb) = f64_parts(b);
    let (sc, ec, fc) = f64_parts(c);
    let ss = sa ^ sb;
    if f64_is_inf(a) || f64_is_inf(b) {
        return if fa == 0 || fb == 0 || (f64_is_inf(c) && sc != ss) {
            F64_NAN
        } else {
            f64_inf(ss)
        };
    }
    if f64_is_inf(c) {
        return c;
    }
    // The product with three guard bits, its top bit at 108.
    let mut es = ea + eb - 0x3ff + 1;
    let mut product = norm(fa as u128 * (fb as u128 * 8), &mut es, 108);
    if product == 0 {
        es = ec;
    }
    let mut er = es.max(ec) + 1;
    er = er.max(1);
    product = shr(product, er - 1 - es, Mode::Odd);
    let mut acc = if ss { product.wrapping_neg() } else { product };
    let mut sh = er - 4 - ec - 53;
    let mut fc = fc as u128;
    if sh > 0 {
        fc = shr(fc, sh, Mode::Odd);
        sh = 0;
    }
    let addend = fc << -sh;
    acc = if sc {
        acc.wrapping_sub(addend)
    } else {
        acc.wrapping_add(addend)
    };
    if acc == 0 {
        let sr = if ss == sc { ss } else { rm == Mode::Rm };
        return f64_make(sr, 0, 0, rm);
    }
    let sr = acc >> 127 == 1;
    if sr {
        acc = acc.wrapping_neg();
    }
    let mut m = norm(acc, &mut er, 109);
    if er < 1 {
        m = shr(m, 1 - er, Mode::Rz);
        er = 1;
    }
    f64_make(sr, er, shr(m, 57, rm.for_sign(sr)) as u64, rm)
}

/// `mul f64`: the fused multiply-add with a zero addend of the sign that keeps an exact
/// zero product's sign.
pub(crate) fn f64_mul(a: u64, b: u64, rm: Mode) -> u64 {
    f64_fma(a, b, if rm == Mode::Rm { 0 } else { 1 << 63 }, rm)
}

pub(crate) fn f64_cmp(a: u64, b: u64) -> Cmp {
    if f64_is_nan(a) || f64_is_nan(b) {
        return Cmp::Un;
    }
    let (sa, ea, fa) = f64_parts(a);
    let (sb, eb, fb) = f64_parts(b);
    if fa == 0 && fb == 0 {
        Cmp::Eq
    } else if sa != sb {
        if sa { Cmp::Lt } else { Cmp::Gt }
    } else if ea == eb && fa == fb {
        Cmp::Eq
    } else if (a < b) ^ sa {
        Cmp::Lt
    } else {
        Cmp::Gt
    }
}

/// `min`/`max f64`: a NaN operand is ignored (both NaN: the second).
pub(crate) fn f64_minmax(a: u64, b: u64, min: bool) -> u64 {
    let (a, b) = match (f64_is_nan(a), f64_is_nan(b)) {
        (true, true) => return b,
        (true, false) => (b, b),
        (false, true) => (a, a),
        _ => (a, b),
    };
    let (sa, sb) = (a >> 63 == 1, b >> 63 == 1);
    let mut pick_b = min;
    if sa != sb {
        if sa {
            pick_b = !pick_b;
        }
    } else {
        if sa {
            pick_b = !pick_b;
        }
        if a < b {
            pick_b = !pick_b;
        }
    }
    if pick_b { b } else { a }
}

pub(crate) fn f64_rint(x: u64, rm: Mode) -> u64 {
    if f64_is_nan(x) || f64_is_inf(x) {
        return x;
    }
    let (s, mut e, mut f) = f64_parts(x);
    if e < 0x3ff + 52 {
        let m = shr(f as u128, 0x3ff + 52 - e, rm.for_sign(s));
        if m == 0 {
            e = 0;
            f = 0;
        } else {
            e = 0x3ff + 52;
            f = norm(m, &mut e, 52) as u64;
        }
    }
    f64_make(s, e, f, rm)
}

pub(crate) fn f64_from_u64(x: u64, rm: Mode) -> u64 {
    if x == 0 {
        return 0;
    }
    let mut e = 0x3ff + 63;
    let m = norm(x as u128, &mut e, 63);
    f64_make(false, e, shr(m, 11, rm) as u64, rm)
}

/// As [`f32_to_u64`], for f64.
pub(crate) fn f64_to_u64(x: u64, rm: Mode) -> u64 {
    let (s, e, f) = f64_parts(x);
    if f64_is_nan(x) || s {
        return 0;
    }
    if f64_is_inf(x) {
        return u64::MAX;
    }
    let e = e - (0x3ff + 52);
    if e > 11 {
        return u64::MAX;
    }
    shr(f as u128, -e, rm) as u64
}

/// f32 to f64: exact; denormals are kept, a NaN keeps its payload and is quieted.
pub(crate) fn f32_to_f64(x: u32) -> u64 {
    let (s, e, f) = f32_parts(x, false);
    if f32_is_nan(x) {
        let payload = ((f - F32_ONE_BIT) | 1 << 22) as u64;
        return (s as u64) << 63 | 0x7ff0_0000_0000_0000 | payload << 29;
    }
    if f32_is_inf(x) {
        return f64_inf(s);
    }
    let mut e = e + 0x3ff - 0x7f;
    let m = norm((f as u128) << 29, &mut e, 52);
    f64_make(s, e, m as u64, Mode::Rn)
}

/// f64 to f32, rounded per `rm`; denormal results are kept.
pub(crate) fn f64_to_f32(x: u64, rm: Mode) -> u32 {
    let (s, e, f) = f64_parts(x);
    if f64_is_nan(x) {
        let payload = ((f - F64_ONE_BIT) >> 29) as u32 | 1 << 22;
        return (s as u32) << 31 | 0x7f80_0000 | payload;
    }
    if f64_is_inf(x) {
        return f32_inf(s);
    }
    let mut e = e + 0x7f - 0x3ff;
    let mut shift = 52 - 23;
    if e <= 0 {
        shift -= e - 1;
        e = 1;
    }
    f32_make(
        s,
        e,
        shr(f as u128, shift, rm.for_sign(s)) as u32,
        rm,
        false,
    )
}
