//! Floating-point semantics of the VALU operations, one lane at a time, in the mode wavelift
//! kernels run in (docs/ir.md): round to nearest even, f32 and f64 denormals kept, IEEE mode
//! on, DX10 clamp on. The exceptions the hardware makes whatever the mode are modelled here
//! too. `expansions::fdiv` (the backend's proof of its division sequence) uses the same functions.
//!
//! NaNs (IEEE mode; AMDGPUUsage, "IEEE mode": signalling NaN inputs are quieted and
//! propagated):
//! - an operation with a NaN operand returns the first NaN operand in source order, quieted
//!   (bit 22 set, payload and sign kept); LLVM's AMDGPU backend documents the hardware
//!   quieting by setting bit 22 only;
//! - an invalid operation on non-NaN operands (∞ − ∞, 0 · ∞, √−1) returns [`DEFAULT_NAN`],
//!   0x7fc00000. No manual states this pattern; v_div_fixup_f32 is the exception, whose
//!   pseudo-code in the manuals returns 0xffc00000 for 0/0 and ∞/∞.
//!
//! Denormals: kept everywhere except where the manuals or LLVM say the unit cannot handle
//! them: v_mad_f32/v_mac_f32 flush inputs, the rounded product and the result on every
//! generation (LLVM selects them for `llvm.amdgcn.fmad.ftz` even with f32 denormals
//! enabled), and the transcendental unit (v_rcp, v_rsq, v_sqrt, v_rcp_iflag, v_rcp_f64)
//! flushes denormal inputs and outputs.
//!
//! The transcendental unit is modelled as correctly rounded: the manuals promise 1 ulp, and
//! `rcp`/`sqrt` take a perturbation in ulps so that `expansions::fdiv` can prove the backend's
//! sequences for every result the hardware may give. v_rcp_f64 is an approximation too in
//! hardware; it is modelled as correctly rounded.

/// The quiet NaN produced by an invalid operation on non-NaN operands.
pub(crate) const DEFAULT_NAN: u32 = 0x7fc0_0000;
/// The f64 counterpart of [`DEFAULT_NAN`].
pub(crate) const DEFAULT_NAN_F64: u64 = 0x7ff8_0000_0000_0000;
/// The NaN v_div_fixup_f32 returns for 0/0 and ∞/∞ (its pseudo-code in the manuals).
const DIV_FIXUP_NAN: u32 = 0xffc0_0000;

/// The operations on the bits of an IEEE float that the f32 and f64 semantics share.
pub(crate) trait Ieee: Copy + PartialOrd {
    /// The quiet bit and the default NaN, as raw bits of the type.
    const QUIET_BIT: u64;
    const DEFAULT_NAN: u64;
    const ZERO: Self;
    const ONE: Self;
    fn to_raw(self) -> u64;
    fn from_raw(bits: u64) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_subnormal(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn copysign(self, sign: Self) -> Self;
}

macro_rules! ieee {
    ($t:ty, $quiet:expr, $nan:expr) => {
        impl Ieee for $t {
            const QUIET_BIT: u64 = $quiet;
            const DEFAULT_NAN: u64 = $nan;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn to_raw(self) -> u64 {
                self.to_bits() as u64
            }
            fn from_raw(bits: u64) -> Self {
                <$t>::from_bits(bits as _)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            fn is_subnormal(self) -> bool {
                <$t>::is_subnormal(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
        }
    };
}

ieee!(f32, 0x0040_0000, DEFAULT_NAN as u64);
ieee!(f64, 0x0008_0000_0000_0000, DEFAULT_NAN_F64);

pub(crate) fn default_nan<F: Ieee>() -> F {
    F::from_raw(F::DEFAULT_NAN)
}

/// `x` with the quiet bit set (a no-op on quiet NaNs).
pub(crate) fn quiet<F: Ieee>(x: F) -> F {
    F::from_raw(x.to_raw() | F::QUIET_BIT)
}

/// The first NaN among `xs`, quieted: the result of an operation with these operands when
/// any is NaN.
pub(crate) fn nan_operand<F: Ieee>(xs: &[F]) -> Option<F> {
    xs.iter().find(|x| x.is_nan()).map(|&x| quiet(x))
}

/// `op(xs)` with the NaN rules above: a NaN operand propagates, a NaN result of non-NaN
/// operands is the default NaN.
fn arith<F: Ieee>(xs: &[F], op: impl FnOnce() -> F) -> F {
    if let Some(nan) = nan_operand(xs) {
        return nan;
    }
    let r = op();
    if r.is_nan() { default_nan() } else { r }
}

/// The biased exponent field.
pub(crate) fn exponent(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32
}

/// Denormals flushed to zero of the same sign.
pub(crate) fn ftz<F: Ieee>(x: F) -> F {
    if x.is_subnormal() {
        F::ZERO.copysign(x)
    } else {
        x
    }
}

/// `x` moved by `ulps` in magnitude, when finite, non-zero and staying so.
pub(crate) fn perturb(x: f32, ulps: i32) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let bits = (x.to_bits() as i64 + ulps as i64) as u32;
    let moved = f32::from_bits(bits);
    if moved.is_finite() && moved != 0.0 && moved.is_sign_negative() == x.is_sign_negative() {
        moved
    } else {
        x
    }
}

/// 2^e as an f64, for -1022 <= e <= 1023.
fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `x · 2^e` rounded once (V_LDEXP_F32; also the scaling inside the division helpers).
pub(crate) fn ldexp(x: f32, e: i32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    // Past ±400 every finite non-zero f32 overflows or underflows anyway; within it the
    // f64 product is exact, so the conversion is the only rounding.
    (x as f64 * pow2(e.clamp(-400, 400))) as f32
}

pub(crate) fn add(a: f32, b: f32) -> f32 {
    arith(&[a, b], || a + b)
}

pub(crate) fn sub(a: f32, b: f32) -> f32 {
    arith(&[a, b], || a - b)
}

/// V_SUBREV_F32: `b - a`, NaN operands still taken in source order.
pub(crate) fn subrev(a: f32, b: f32) -> f32 {
    arith(&[a, b], || b - a)
}

pub(crate) fn mul(a: f32, b: f32) -> f32 {
    arith(&[a, b], || a * b)
}

/// V_FMA_F32: one rounding.
pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
    arith(&[a, b, c], || a.mul_add(b, c))
}

/// V_MAD_F32 / V_MAC_F32: the product and the sum rounded separately, denormal inputs, the
/// denormal product and a denormal result flushed.
pub(crate) fn mad_ftz(a: f32, b: f32, c: f32) -> f32 {
    arith(&[a, b, c], || ftz(ftz(ftz(a) * ftz(b)) + ftz(c)))
}

pub(crate) fn add64(a: f64, b: f64) -> f64 {
    arith(&[a, b], || a + b)
}

pub(crate) fn mul64(a: f64, b: f64) -> f64 {
    arith(&[a, b], || a * b)
}

pub(crate) fn fma64(a: f64, b: f64, c: f64) -> f64 {
    arith(&[a, b, c], || a.mul_add(b, c))
}

/// V_MIN_F32 in IEEE mode: a signalling NaN operand gives it quieted; otherwise a quiet NaN
/// operand gives the other operand; -0 is less than +0 (LLVM's FMINNUM_IEEE, which the
/// AMDGPU backend selects to v_min_f32, is the IEEE 754-2019 minimumNumber with that
/// ordering: llvm-project PR #85195, "The AMDGPU and PPC instructions respect the signed
/// zero behavior"). The same for V_MIN_F64.
pub(crate) fn min<F: Ieee>(a: F, b: F) -> F {
    min_max(a, b, true)
}

/// V_MAX_F32 and V_MAX_F64 in IEEE mode; see [`min`].
pub(crate) fn max<F: Ieee>(a: F, b: F) -> F {
    min_max(a, b, false)
}

fn is_signalling<F: Ieee>(x: F) -> bool {
    x.is_nan() && x.to_raw() & F::QUIET_BIT == 0
}

fn min_max<F: Ieee>(a: F, b: F, is_min: bool) -> F {
    if is_signalling(a) {
        quiet(a)
    } else if is_signalling(b) {
        quiet(b)
    } else if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == b {
        // Equal, or zeros of either sign: the negative one is the smaller.
        if a.is_sign_negative() == is_min { a } else { b }
    } else if (a < b) == is_min {
        a
    } else {
        b
    }
}

/// V_MED3_F32 (GCN3 ISA 12.7): with a NaN operand, min(min(s0, s1), s2); otherwise the
/// maximum of the two operands other than the first one equal to the maximum of all three.
pub(crate) fn med3(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return min(min(a, b), c);
    }
    let max3 = max(max(a, b), c);
    if max3 == a {
        max(b, c)
    } else if max3 == b {
        max(a, c)
    } else {
        max(a, b)
    }
}

/// V_FRACT_F32: x − floor(x), at most the largest f32 below 1 (what LLVM's constant folding
/// of `llvm.amdgcn.fract` computes; the OpenCL definition the instruction follows). ±∞ gives
/// NaN (∞ − ∞).
pub(crate) fn fract(x: f32) -> f32 {
    const BELOW_ONE: f32 = 1.0 - f32::EPSILON / 2.0;
    if x.is_infinite() {
        return default_nan();
    }
    arith(&[x], || (x - x.floor()).min(BELOW_ONE))
}

/// A rounding to integral value: NaN quieted, zeros and infinities unchanged.
pub(crate) fn round(x: f32, op: fn(f32) -> f32) -> f32 {
    arith(&[x], || op(x))
}

/// V_FREXP_MANT_F32: the significand in [0.5, 1) with the sign of `x`; ±0 and ±∞ unchanged
/// (denormals are normalised: the mode keeps them).
pub(crate) fn frexp_mant(x: f32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // Exact in f64, where every f32 (denormals too) is normal.
    let bits = (x as f64).to_bits();
    f64::from_bits(bits & !(0x7ff << 52) | 1022 << 52) as f32
}

/// V_FREXP_EXP_I32_F32: the exponent e with x = frexp_mant(x) · 2^e; 0 for ±0, ±∞ and NaN.
pub(crate) fn frexp_exp(x: f32) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    (((x as f64).to_bits() >> 52) & 0x7ff) as i32 - 1022
}

/// V_RCP_F32 (and V_RCP_IFLAG_F32): the correctly rounded reciprocal moved by `ulps`, with
/// denormal inputs and outputs flushed.
pub(crate) fn rcp(x: f32, ulps: i32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    let x = ftz(x);
    // The reciprocal of a power of two is exact (assumed of the hardware too).
    let ulps = if x.to_bits() & 0x007f_ffff == 0 {
        0
    } else {
        ulps
    };
    // An f64 quotient rounded to f32 is the correctly rounded f32 quotient (53 >= 2·24 + 2).
    ftz(perturb((1.0 / x as f64) as f32, ulps))
}

/// V_SQRT_F32: the correctly rounded root moved by `ulps`, denormals flushed; √−0 = −0.
pub(crate) fn sqrt(x: f32, ulps: i32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    let x = ftz(x);
    if x < 0.0 {
        return default_nan();
    }
    // The f64 root rounded to f32 is the correctly rounded f32 root (53 >= 2·24 + 2).
    ftz(perturb((x as f64).sqrt() as f32, ulps))
}

/// V_RSQ_F32: the correctly rounded 1/√x, denormal inputs flushed; 1/√±0 = ±∞.
pub(crate) fn rsq(x: f32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    let x = ftz(x);
    if x == 0.0 {
        return f32::copysign(f32::INFINITY, x);
    }
    if x < 0.0 {
        return default_nan();
    }
    if x.is_infinite() {
        return 0.0;
    }
    // Two f64 roundings can land on the wrong side of an f32 midpoint, so the estimate is
    // corrected with exact midpoint tests. The result is normal for every normal x.
    let xd = x as f64;
    let mut y = (1.0 / xd.sqrt()) as f32;
    loop {
        let up = f32::from_bits(y.to_bits() + 1);
        let down = f32::from_bits(y.to_bits() - 1);
        if below_rsq(midpoint(y, up), xd) {
            y = up;
        } else if !below_rsq(midpoint(down, y), xd) {
            y = down;
        } else {
            return y;
        }
    }
}

/// The exact midpoint of two adjacent positive f32 values (25 bits: exact in f64).
fn midpoint(a: f32, b: f32) -> f64 {
    (a as f64 + b as f64) / 2.0
}

/// Whether m < 1/√x, i.e. m²·x < 1, decided exactly: m² (50 bits) is exact in f64, and the
/// fused m²·x − 1 has the sign of the exact value.
fn below_rsq(m: f64, x: f64) -> bool {
    (m * m).mul_add(x, -1.0) < 0.0
}

/// V_RCP_F64, modelled as the correctly rounded reciprocal with denormals flushed like the
/// f32 transcendentals (the hardware result is an approximation).
pub(crate) fn rcp64(x: f64) -> f64 {
    if x.is_nan() {
        return quiet(x);
    }
    ftz(1.0 / ftz(x))
}

/// V_CVT_F64_F32: exact; a NaN keeps its sign and payload (shifted into the wider field).
pub(crate) fn f32_to_f64(x: f32) -> f64 {
    if x.is_nan() {
        let bits = x.to_bits() as u64;
        let sign = bits >> 31 << 63;
        return quiet(f64::from_bits(
            sign | 0x7ff << 52 | (bits & 0x007f_ffff) << 29,
        ));
    }
    x as f64
}

/// V_CVT_F32_F64: rounded to nearest even (denormals kept); a NaN keeps its sign and the
/// top of its payload.
pub(crate) fn f64_to_f32(x: f64) -> f32 {
    if x.is_nan() {
        let bits = x.to_bits();
        let sign = (bits >> 63) as u32;
        let payload = ((bits >> 29) & 0x007f_ffff) as u32;
        return quiet(f32::from_bits(sign << 31 | 0xff << 23 | payload));
    }
    x as f32
}

/// V_CVT_F32_F16: exact (f16 denormals are f32 normals); a NaN is quieted, keeping its sign
/// and payload (shifted to the top of the f32 payload, as V_CVT_F64_F32 does).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10 & 0x1f) as i32;
    let mant = (h & 0x3ff) as u32;
    match exp {
        0 => sign * mant as f32 * pow2(-24) as f32,
        0x1f if mant == 0 => sign * f32::INFINITY,
        0x1f => quiet(f32::from_bits(
            (h as u32 & 0x8000) << 16 | 0x7f80_0000 | mant << 13,
        )),
        _ => sign * (0x400 | mant) as f32 * pow2(exp - 25) as f32,
    }
}

/// V_CVT_F16_F32: rounded to nearest even, denormals kept (FP16 denormals on), overflow to
/// ∞; a NaN is quieted, keeping its sign and the top of its payload.
pub(crate) fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 16 & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00 | (bits >> 13 & 0x3ff) as u16;
    }
    let a = x.abs() as f64;
    if a == 0.0 {
        return sign;
    }
    // The f16 quantum at |x|: 2^-24 below 2^-14 (denormals), else 2^(e-10). |x| / quantum
    // is exact in f64 and rounds to the nearest even integer n; the encoding of n quanta
    // is n itself for denormals, and carries into the exponent field when n reaches 2048
    // (up to ∞ from exponent 15).
    let e = (bits >> 23 & 0xff) as i32 - 127;
    if e < -14 {
        let n = (a * pow2(24)).round_ties_even() as u32;
        return sign | n as u16;
    }
    if e > 15 {
        return sign | 0x7c00;
    }
    let n = (a * pow2(10 - e)).round_ties_even() as u32;
    let field = (((e + 15) as u32) << 10) + n - 0x400;
    sign | field.min(0x7c00) as u16
}

/// V_CVT_PKRTZ_F16_F32's conversion: rounded toward zero, denormals kept, a finite value
/// beyond the f16 range to the largest finite f16 of its sign (IEEE round-toward-zero, as
/// LLVM folds the instruction: `APFloat::convert` with `rmTowardZero`), ∞ kept; a NaN as
/// in [`f32_to_f16`]. |x| / quantum (exact in f64) is truncated instead of rounded.
pub(crate) fn f32_to_f16_rtz(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 16 & 0x8000) as u16;
    if x.is_nan() {
        return f32_to_f16(x);
    }
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    let a = x.abs() as f64;
    let e = (bits >> 23 & 0xff) as i32 - 127;
    if e < -14 {
        return sign | (a * pow2(24)).trunc() as u16;
    }
    if e > 15 {
        return sign | 0x7bff;
    }
    let n = (a * pow2(10 - e)).trunc() as u32;
    sign | ((((e + 15) as u32) << 10) + n - 0x400) as u16
}

/// The float clamp: the result limited to [0, 1], NaN to +0 (DX10 clamp mode). −0 gives +0:
/// LLVM folds max(x, +0.0) followed by min(…, 1.0) into the clamp bit but not
/// max(x, −0.0) (test/CodeGen/AMDGPU/clamp.ll, `v_clamp_negzero_f32`).
pub(crate) fn clamp<F: Ieee>(x: F) -> F {
    if x.is_nan() || x <= F::ZERO {
        F::ZERO
    } else if x > F::ONE {
        F::ONE
    } else {
        x
    }
}

/// `(a·b + c)·2^scale` rounded once to f32: the f64 sum is rounded to odd, which makes the
/// second rounding (to 24 bits, or fewer for a denormal result) exact.
pub(crate) fn fma_scaled(a: f32, b: f32, c: f32, scale: i32) -> f32 {
    let p = a as f64 * b as f64; // exact: 48 bits
    let c = c as f64;
    let s = p + c;
    if !s.is_finite() {
        return ldexp(s as f32, scale);
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    let mut t = s;
    if err != 0.0 {
        let mut bits = s.to_bits();
        if (err < 0.0) != (s < 0.0) {
            bits -= 1; // the exact sum is nearer zero: truncate toward it
        }
        t = f64::from_bits(bits | 1);
    }
    (t * pow2(scale)) as f32
}

/// What v_div_scale, v_div_fmas and v_div_fixup need of a float type beyond [`Ieee`]: the
/// f32 and f64 instructions follow one definition with these constants (GCN3 ISA 12.7,
/// V_DIV_SCALE/FMAS/FIXUP_F32 and _F64).
pub(crate) trait Divide: Ieee + std::ops::Neg<Output = Self> {
    /// The power of two v_div_scale scales by and v_div_fmas undoes (64, 128).
    const SCALE: i32;
    /// An exponent difference from which the quotient is near overflow (96, 768).
    const HUGE_GAP: i32;
    /// A numerator exponent up to which it is scaled up (23, 53).
    const TINY: i32;
    /// The exponent bias (127, 1023).
    const BIAS: i32;
    /// An exponent difference below which v_div_fixup flushes the quotient (−150, −1075).
    const UNDERFLOW: i32;
    /// The NaN v_div_fixup gives for 0/0 and ∞/∞.
    const FIXUP_NAN: u64;
    const INFINITY: Self;
    /// The biased exponent field.
    fn exponent(self) -> i32;
    fn abs(self) -> Self;
    fn ldexp(self, e: i32) -> Self;
    fn fma(a: Self, b: Self, c: Self) -> Self;
    /// `(a·b + c)·2^scale` rounded once.
    fn fma_scaled(a: Self, b: Self, c: Self, scale: i32) -> Self;
    /// Whether 1/`den` would be denormal.
    fn recip_denormal(den: Self) -> bool;
    /// Whether `num`/`den` would be denormal.
    fn quot_denormal(num: Self, den: Self) -> bool;
}

impl Divide for f32 {
    const SCALE: i32 = 64;
    const HUGE_GAP: i32 = 96;
    const TINY: i32 = 23;
    const BIAS: i32 = 127;
    const UNDERFLOW: i32 = -150;
    const FIXUP_NAN: u64 = DIV_FIXUP_NAN as u64;
    const INFINITY: f32 = f32::INFINITY;
    fn exponent(self) -> i32 {
        exponent(self)
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn ldexp(self, e: i32) -> f32 {
        ldexp(self, e)
    }
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        fma(a, b, c)
    }
    fn fma_scaled(a: f32, b: f32, c: f32, scale: i32) -> f32 {
        fma_scaled(a, b, c, scale)
    }
    fn recip_denormal(den: f32) -> bool {
        (den as f64).abs() > 2f64.powi(126)
    }
    fn quot_denormal(num: f32, den: f32) -> bool {
        let quot = num as f64 / den as f64;
        quot != 0.0 && quot.abs() < f32::MIN_POSITIVE as f64
    }
}

impl Divide for f64 {
    const SCALE: i32 = 128;
    const HUGE_GAP: i32 = 768;
    const TINY: i32 = 53;
    const BIAS: i32 = 1023;
    const UNDERFLOW: i32 = -1075;
    const FIXUP_NAN: u64 = 0xfff8_0000_0000_0000;
    const INFINITY: f64 = f64::INFINITY;
    fn exponent(self) -> i32 {
        ((self.to_bits() >> 52) & 0x7ff) as i32
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn ldexp(self, e: i32) -> f64 {
        ldexp64(self, e)
    }
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        fma64(a, b, c)
    }
    fn fma_scaled(a: f64, b: f64, c: f64, scale: i32) -> f64 {
        fma_scaled64(a, b, c, scale)
    }
    fn recip_denormal(den: f64) -> bool {
        den.abs() > pow2(1022)
    }
    /// Decided exactly: |num|·2^1022 < |den|.
    fn quot_denormal(num: f64, den: f64) -> bool {
        ldexp64(num.abs(), 1022) < den.abs()
    }
}

/// V_DIV_SCALE_F32/F64: `s0` scaled by 2^±SCALE where the division `s2 / s1` would
/// otherwise meet denormals, and whether v_div_fmas must undo a scaling (VCC).
///
/// One correction to the manual's pseudo-code: when both the reciprocal and the quotient
/// would be denormal, a (huge) denominator is scaled by 2^−SCALE, not 2^SCALE, which would
/// overflow it (LLVM's division sequence fails otherwise).
pub(crate) fn div_scale<F: Divide>(s0: F, s1: F, s2: F) -> (F, bool) {
    let (e1, e2) = (s1.exponent(), s2.exponent());
    let recip_denormal = F::recip_denormal(s1);
    let quot_denormal = F::quot_denormal(s2, s1);
    let up = |x: F| x.ldexp(F::SCALE);
    let down = |x: F| x.ldexp(-F::SCALE);
    if s1 == F::ZERO || s2 == F::ZERO {
        (default_nan(), false)
    } else if e2 - e1 >= F::HUGE_GAP {
        // The quotient is near overflow: only the denominator is scaled up.
        (if s0 == s1 { up(s0) } else { s0 }, true)
    } else if s1.is_subnormal() {
        (up(s0), false)
    } else if recip_denormal && quot_denormal {
        (if s0 == s1 { down(s0) } else { s0 }, true)
    } else if recip_denormal {
        (down(s0), false)
    } else if quot_denormal {
        // Only the numerator is scaled up.
        (if s0 == s2 { up(s0) } else { s0 }, true)
    } else if e2 <= F::TINY {
        // The numerator is tiny: both are scaled up.
        (up(s0), false)
    } else {
        (s0, false)
    }
}

/// V_DIV_FMAS_F32/F64: `s0·s1 + s2`, and when `vcc` is set, scaled by 2^SCALE if the
/// quotient it produces is large (exponent of `s2` above the bias) and by 2^−SCALE
/// otherwise, rounded once.
///
/// The manuals' pseudo-code scales by 2^32 (2^64 for f64), which undoes neither scaling of
/// v_div_scale; this is what makes LLVM's (and wavelift's) division sequences exact.
pub(crate) fn div_fmas<F: Divide>(s0: F, s1: F, s2: F, vcc: bool) -> F {
    if !vcc {
        return F::fma(s0, s1, s2);
    }
    let scale = if s2.exponent() > F::BIAS {
        F::SCALE
    } else {
        -F::SCALE
    };
    arith(&[s0, s1, s2], || F::fma_scaled(s0, s1, s2, scale))
}

/// V_DIV_FIXUP_F32/F64 (GCN3 ISA 12.7): the special cases of `s2 / s1` given the quotient
/// `s0`.
///
/// One correction to the manual's pseudo-code: a NaN quotient of finite operands (which
/// the scaled sequence can produce) becomes an infinity.
pub(crate) fn div_fixup<F: Divide>(s0: F, s1: F, s2: F) -> F {
    let sign = |x: F| {
        if s1.is_sign_negative() != s2.is_sign_negative() {
            -x
        } else {
            x
        }
    };
    if s2.is_nan() {
        quiet(s2)
    } else if s1.is_nan() {
        quiet(s1)
    } else if s1 == F::ZERO && s2 == F::ZERO || s1.is_infinite() && s2.is_infinite() {
        F::from_raw(F::FIXUP_NAN)
    } else if s1 == F::ZERO || s2.is_infinite() {
        sign(F::INFINITY)
    } else if s1.is_infinite() || s2 == F::ZERO || s2.exponent() - s1.exponent() < F::UNDERFLOW {
        sign(F::ZERO)
    } else if s0.is_nan() {
        sign(F::INFINITY)
    } else {
        sign(s0.abs())
    }
}

/// An f64 rounding to integral value (V_TRUNC_F64, V_CEIL_F64, V_FLOOR_F64, V_RNDNE_F64).
pub(crate) fn round64(x: f64, op: fn(f64) -> f64) -> f64 {
    arith(&[x], || op(x))
}

/// V_LDEXP_F64: `x · 2^e` rounded once (denormal results included).
pub(crate) fn ldexp64(x: f64, e: i32) -> f64 {
    if x.is_nan() {
        return quiet(x);
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // x = y · 2^ex with 1 <= |y| < 2, exactly.
    let (bits, bias) = if x.is_subnormal() {
        ((x * pow2(64)).to_bits(), 1023 + 64)
    } else {
        (x.to_bits(), 1023)
    };
    let ex = ((bits >> 52) & 0x7ff) as i32 - bias;
    let y = f64::from_bits(bits & !(0x7ff << 52) | 1023 << 52);
    let t = ex.saturating_add(e.clamp(-4000, 4000));
    if t > 1023 {
        f64::copysign(f64::INFINITY, x)
    } else if t >= -1022 {
        y * pow2(t) // exact: the result is normal
    } else {
        // y · 2^-1022 is exact; the second product rounds once (to zero when t is far
        // below the denormals).
        y * pow2(-1022) * pow2((t + 1022).max(-1022))
    }
}

/// `x` moved by `ulps` in magnitude, when finite, non-zero and staying so.
pub(crate) fn perturb64(x: f64, ulps: i64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let moved = f64::from_bits((x.to_bits() as i64 + ulps) as u64);
    if moved.is_finite() && moved != 0.0 && moved.is_sign_negative() == x.is_sign_negative() {
        moved
    } else {
        x
    }
}

/// V_RSQ_F64, modelled as the correctly rounded 1/√x moved by `ulps` (the hardware
/// result is an approximation), denormal inputs flushed; 1/√±0 = ±∞.
pub(crate) fn rsq64(x: f64, ulps: i64) -> f64 {
    if x.is_nan() {
        return quiet(x);
    }
    let x = ftz(x);
    if x == 0.0 {
        return f64::copysign(f64::INFINITY, x);
    }
    if x < 0.0 {
        return default_nan::<f64>();
    }
    if x.is_infinite() {
        return 0.0;
    }
    // The two-rounding estimate is within 2 ulps; exact midpoint tests settle it.
    let mut y = 1.0 / x.sqrt();
    loop {
        let up = f64::from_bits(y.to_bits() + 1);
        let down = f64::from_bits(y.to_bits() - 1);
        if below_rsq64(y, x) {
            y = up;
        } else if !below_rsq64(down, x) {
            y = down;
        } else {
            return perturb64(y, ulps);
        }
    }
}

/// Whether the midpoint m of `y` and the next f64 above it is below 1/√x (m²·x < 1),
/// decided exactly in integers: m = (2·my + 1)·2^(ey-1), x = mx·2^ex.
fn below_rsq64(y: f64, x: f64) -> bool {
    let (my, ey) = int_significand(y);
    let (mx, ex) = int_significand(x);
    let m = 2 * my as u128 + 1;
    // (2my + 1)² · mx < 2^K with K = -(2(ey - 1) + ex).
    let k = -(2 * (ey - 1) + ex);
    let square = m * m; // < 2^108
    let lo = (square & u64::MAX as u128) * mx as u128;
    let hi = (square >> 64) * mx as u128 + (lo >> 64);
    // The product is hi·2^64 + (lo mod 2^64), below 2^161.
    let bits = if hi == 0 {
        64 - (lo as u64).leading_zeros() as i32
    } else {
        192 - hi.leading_zeros() as i32
    };
    if k >= 192 {
        return true;
    }
    if k < 0 {
        return false;
    }
    // product < 2^k ⟺ its bit length is at most k.
    bits <= k
}

/// x = m·2^e with m an integer below 2^53 (finite, non-zero x).
fn int_significand(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    }
}

/// `(a·b + c)·2^scale` rounded once. The fma result r is exact up to an error e (found
/// exactly with Boldo and Muller's ErrFma); scaling r is exact unless the result is
/// denormal, where r + e is rounded to the coarser denormal spacing directly.
pub(crate) fn fma_scaled64(a: f64, b: f64, c: f64, scale: i32) -> f64 {
    let r = a.mul_add(b, c);
    // (The bound is a power of two: the comparison is exact.)
    if !r.is_finite() || r == 0.0 || r.abs() >= ldexp64(f64::MIN_POSITIVE, -scale) {
        return ldexp64(r, scale);
    }
    let err = fma_error_sign(a, b, c, r);
    // Round |r| + err·sign(r) to a multiple of q = 2^(-1074-scale).
    let mag = r.abs();
    let err = if r < 0.0 { -err } else { err };
    let units = ldexp64(mag, 1074 + scale); // below 2^52: exact
    let lo = ldexp64(units.floor(), -1074 - scale);
    let half_q = ldexp64(1.0, -1075 - scale);
    let d = (mag - lo) - half_q; // exact: multiples of ulp(r)
    let up = if d != 0.0 {
        d > 0.0
    } else if err != 0.0 {
        err > 0.0
    } else {
        units.floor() % 2.0 != 0.0 // a tie: to even
    };
    let q = ldexp64(1.0, -1074 - scale);
    let rounded = if up { lo + q } else { lo };
    f64::copysign(ldexp64(rounded, scale), r)
}

/// The sign (-1, 0 or 1, as an f64) of a·b + c - r for r = fma(a, b, c): ErrFma (Boldo and
/// Muller, "Exact and approximated error of the FMA", IEEE TC 2011), exact barring
/// underflow of the partial products.
fn fma_error_sign(a: f64, b: f64, c: f64, r: f64) -> f64 {
    let two_sum = |x: f64, y: f64| {
        let s = x + y;
        let bb = s - x;
        (s, (x - (s - bb)) + (y - bb))
    };
    let u1 = a * b;
    let u2 = a.mul_add(b, -u1);
    let (alpha1, z) = two_sum(c, u2);
    let (beta1, beta2) = two_sum(u1, alpha1);
    let gamma = (beta1 - r) + beta2;
    let (r2, r3) = two_sum(gamma, z);
    let e = if r2 != 0.0 { r2 } else { r3 };
    if e > 0.0 {
        1.0
    } else if e < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// V_CMP_CLASS_F32 (GCN3 ISA 12.8): mask bits 0 sNaN, 1 qNaN, 2 −∞, 3 −normal,
/// 4 −denormal, 5 −0, 6 +0, 7 +denormal, 8 +normal, 9 +∞. The same for V_CMP_CLASS_F64.
pub(crate) fn class<F: Ieee>(x: F, mask: u32) -> bool {
    let neg = x.is_sign_negative();
    let bit = if x.is_nan() {
        if is_signalling(x) { 0 } else { 1 }
    } else if x.is_infinite() {
        if neg { 2 } else { 9 }
    } else if x == F::ZERO {
        if neg { 5 } else { 6 }
    } else if x.is_subnormal() {
        if neg { 4 } else { 7 }
    } else if neg {
        3
    } else {
        8
    };
    mask >> bit & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_to_f16_rtz_agrees_with_the_reference() {
        // This conversion is written from the values, the reference's
        // (`harness::f16_toward_zero`) from the encodings: a stride through the f32
        // encodings, every exponent many times.
        for bits in (0..=u32::MAX).step_by(65_521) {
            let x = f32::from_bits(bits);
            assert_eq!(
                f32_to_f16_rtz(x),
                crate::sim::harness::f16_toward_zero(x),
                "{bits:#x}"
            );
        }
    }

    /// The f16 value of `h` (not NaN), decoded from the format's definition.
    fn f16_value(h: u16) -> f64 {
        let (exp, mant) = ((h >> 10 & 0x1f) as i32, (h & 0x3ff) as f64);
        let magnitude = match exp {
            0 => mant * 2f64.powi(-24),
            0x1f => f64::INFINITY,
            _ => (1024.0 + mant) * 2f64.powi(exp - 25),
        };
        if h & 0x8000 != 0 {
            -magnitude
        } else {
            magnitude
        }
    }

    /// Round to nearest even into f16 by search: the closest finite f16 value, ties to the
    /// even encoding, ∞ from 65520 (MAX + half an ulp, a tie with an odd MAX) on.
    fn f16_nearest(x: f32) -> u16 {
        let a = (x as f64).abs();
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        if a >= 65520.0 {
            return sign | 0x7c00;
        }
        // The magnitudes 0..=∞ are increasing with their encodings.
        let above = (0u16..=0x7c00)
            .collect::<Vec<_>>()
            .partition_point(|&h| f16_value(h) < a) as u16;
        let below = above.saturating_sub(1);
        let (da, db) = (f16_value(above) - a, a - f16_value(below));
        sign | if da < db || da == db && above & 1 == 0 {
            above
        } else {
            below
        }
    }

    #[test]
    fn f16_toward_zero_keeps_the_f16_at_or_below_in_magnitude() {
        for h in 0..0x7c00u16 {
            for sign in [0, 0x8000] {
                let x = f16_to_f32(sign | h);
                assert_eq!(f32_to_f16_rtz(x), sign | h, "{h:#x}");
                // Every f32 between it and the next f16 magnitude truncates to it.
                let next = f16_value(h + 1) as f32;
                let below_next = f32::from_bits(next.to_bits() - 1);
                let probe = if sign == 0 { below_next } else { -below_next };
                assert_eq!(f32_to_f16_rtz(probe), sign | h, "{probe:e}");
            }
        }
        assert_eq!(f32_to_f16_rtz(65520.0), 0x7bff);
        assert_eq!(f32_to_f16_rtz(-f32::MAX), 0xfbff);
        assert_eq!(f32_to_f16_rtz(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f32_to_f16_rtz(f32::from_bits(1)), 0);
    }

    #[test]
    fn f16_conversions_are_exact_and_round_to_nearest_even() {
        for h in 0..=u16::MAX {
            let x = f16_to_f32(h);
            if (h & 0x7fff) > 0x7c00 {
                assert!(
                    x.is_nan() && x.is_sign_negative() == (h & 0x8000 != 0),
                    "{h:#x}"
                );
                assert_eq!(f32_to_f16(x), h | 0x200, "NaN {h:#x} quieted");
                continue;
            }
            assert_eq!(x as f64, f16_value(h), "{h:#x}");
            assert_eq!(f32_to_f16(x), h, "{h:#x} round trip");
            // Around every f16 value: the midpoints to its neighbours and one f32 ulp on
            // each side of them.
            for k in [-1i32, 0, 1] {
                let next = f16_value(h.wrapping_add(1) & 0x7fff | h & 0x8000);
                let mid = ((x as f64 + next) / 2.0) as f32;
                let probe = f32::from_bits((mid.to_bits() as i32 + k) as u32);
                if probe.is_finite() {
                    assert_eq!(
                        f32_to_f16(probe),
                        f16_nearest(probe),
                        "{probe:e} ({:#x})",
                        probe.to_bits()
                    );
                }
            }
        }
        for bits in [
            0x0000_0001u32,
            0x3380_0000,
            0x3300_0000,
            0x3300_0001,
            0x477f_f000,
            0x477f_efff,
            0x7f7f_ffff,
            0x4780_0000,
        ] {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                assert_eq!(f32_to_f16(x), f16_nearest(x), "{x:e}");
            }
        }
    }

    #[test]
    fn ldexp64_rounds_once() {
        assert_eq!(ldexp64(1.5, 1), 3.0);
        assert_eq!(ldexp64(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp64(1.0, -1075), 0.0); // a tie, to even
        assert_eq!(ldexp64(1.5, -1075), f64::from_bits(1));
        assert_eq!(ldexp64(3.0, -1075), f64::from_bits(2)); // 1.5 ulp: a tie, to even
        assert_eq!(ldexp64(f64::from_bits(1), 1074), 1.0);
        assert_eq!(ldexp64(f64::MAX, 1), f64::INFINITY);
        assert_eq!(ldexp64(-f64::MIN_POSITIVE, -1), -f64::MIN_POSITIVE / 2.0);
        assert_eq!(ldexp64(1.0, i32::MIN), 0.0);
        assert_eq!(ldexp64(-1.0, i32::MAX), f64::NEG_INFINITY);
    }

    #[test]
    fn rsq64_is_correctly_rounded() {
        for x in [
            1.0f64,
            2.0,
            4.0,
            0.5,
            3.0,
            1e300,
            1e-300,
            f64::MIN_POSITIVE,
            7.0,
        ] {
            let y = rsq64(x, 0);
            // y is the f64 nearest 1/√x: the midpoints on either side bracket it.
            assert!(below_rsq64(f64::from_bits(y.to_bits() - 1), x), "{x}");
            assert!(!below_rsq64(y, x), "{x}");
        }
        assert_eq!(rsq64(4.0, 0), 0.5);
        assert_eq!(rsq64(0.25, 0), 2.0);
    }

    #[test]
    fn fma_scaled64_rounds_once() {
        // Normal results: the fma itself, scaled exactly.
        assert_eq!(fma_scaled64(3.0, 5.0, 1.0, 4), 256.0);
        // Denormal results: 1.5·2^-1074 is a tie (to even: 2·2^-1074); just above it rounds up.
        let tiny = f64::from_bits(1);
        assert_eq!(fma_scaled64(1.5, 1.0, 0.0, -1074).to_bits(), 2);
        assert_eq!(fma_scaled64(1.0, 0.5, 0.0, -1074).to_bits(), 0);
        assert_eq!(fma_scaled64(1.0, 1.0, 2f64.powi(-60), -1075).to_bits(), 1);
        assert_eq!(
            fma_scaled64(1.0, 1.0, -(2f64.powi(-60)), -1075).to_bits(),
            0
        );
        assert_eq!(fma_scaled64(-1.0, 3.0, 0.0, -1075), -2.0 * tiny);
        // Just below the midpoint of the largest denormal and MIN_POSITIVE: the scaled
        // fma result is that midpoint, and the error decides (down).
        let r = ldexp64(1.0, -894) - ldexp64(1.0, -947);
        assert_eq!(
            fma_scaled64(r, 1.0, -ldexp64(1.0, -1000), -128).to_bits(),
            0x000f_ffff_ffff_ffff
        );
        // The same values through ldexp64 (one rounding of an exact value).
        let mut state = 9u64;
        for _ in 0..100_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = (state >> 11) as f64; // an integer below 2^53: exact
            let k = -(1074 + 53) + (state % 60) as i32;
            assert_eq!(fma_scaled64(m, 1.0, 0.0, k), ldexp64(m, k), "{m} {k}");
        }
    }

    #[test]
    fn min_max64_follow_ieee_mode() {
        let snan = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(min::<f64>(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(max::<f64>(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(min::<f64>(f64::NAN, 2.0), 2.0);
        assert_eq!(min::<f64>(snan, 2.0).to_bits(), 0x7ff8_0000_0000_0001);
        assert!(class(snan, 1) && class(f64::from_bits(1), 1 << 7));
    }

    /// The rounding helper of v_div_fmas_f32 against the correctly rounded fma.
    #[test]
    fn fma_scaled_rounds_once() {
        let mut state = 42u64;
        let mut next = || {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
        };
        for _ in 0..100_000 {
            let [a, b, c] = [0; 3].map(|_| f32::from_bits(next() & 0x3fff_ffff));
            let want = a.mul_add(b, c);
            assert_eq!(
                fma_scaled(a, b, c, 0).to_bits(),
                want.to_bits(),
                "{a:e} {b:e} {c:e}"
            );
        }
    }
}
