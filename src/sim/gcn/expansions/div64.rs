//! A bit-exact model of the 64-bit integer division sequences that `isle/gcn/lower.isle`
//! emits for `udiv`, `urem`, `sdiv` and `srem` on i64 (section "Rules for `udiv`, `urem`,
//! `sdiv`, `srem` on i64"), checked against Rust's `/` and `%` and the division-by-zero
//! results we define, and a check of the bound the sequence relies on (the estimate is at
//! most 2 below the quotient) for every admissible `v_rcp_f32` result.
//!
//! Each function follows the rules instruction by instruction; keep them in step. The GCN
//! semantics are those of `div.rs`, plus: `v_fma_f32` (one rounding: `mul_add`),
//! `v_trunc_f32`, `v_rcp_f32` (within 1 ulp, as `v_rcp_iflag_f32` there), and 64-bit
//! wrapping adds, subtracts and multiplies built from 32-bit halves (exact by
//! construction: `umulhi64` is checked against `u128` arithmetic below).

use super::div::Rcp;
use crate::difftest::SplitMix64;

const TWO_POW_32: f32 = 4_294_967_296.0; // 0x4f800000
const TWO_POW_M32: f32 = 1.0 / TWO_POW_32; // 0x2f800000
/// 2^64·(1 - 2^-20): keeps the estimate below 2^64/d for any reciprocal within 1 ulp.
const RECIP_SCALE: u32 = 0x5f7f_fff0;

/// `umulhi64`: the high half of the 128-bit product, from 32-bit partial products with
/// their carries (as the rule builds it).
fn umulhi64(a: u64, b: u64) -> u64 {
    let (a0, a1, b0, b1) = (a as u32 as u64, a >> 32, b as u32 as u64, b >> 32);
    let lo = |v: u64| v as u32 as u64;
    let hi = |v: u64| v >> 32;
    let mid = hi(a0 * b0) + lo(a0 * b1) + lo(a1 * b0);
    let carries = mid >> 32;
    let low_word = lo(a1 * b1) + hi(a0 * b1) + hi(a1 * b0) + carries;
    ((hi(a1 * b1) + (low_word >> 32)) << 32) | lo(low_word)
}

/// `recip64`: the initial estimate from f32, then two Newton-Raphson steps.
fn recip64(d: u64, rcp: Rcp) -> u64 {
    let df = ((d >> 32) as u32 as f32).mul_add(TWO_POW_32, d as u32 as f32);
    recip64_from(d, rcp.eval(df))
}

fn recip64_from(d: u64, r: f32) -> u64 {
    let zf = f32::from_bits(RECIP_SCALE) * r;
    let hf = (zf * TWO_POW_M32).trunc();
    let lf = hf.mul_add(-TWO_POW_32, zf);
    let z0 = ((hf as u32 as u64) << 32) | lf as u32 as u64;
    newton64(d, newton64(d, z0))
}

fn newton64(d: u64, z: u64) -> u64 {
    let e = 0u64.wrapping_sub(d).wrapping_mul(z);
    z.wrapping_add(umulhi64(z, e))
}

fn udivrem64(x: u64, d: u64, rcp: Rcp) -> (u64, u64) {
    let q0 = umulhi64(x, recip64(d, rcp));
    let r0 = x.wrapping_sub(q0.wrapping_mul(d));
    let (q1, r1) = if r0 >= d {
        (q0.wrapping_add(1), r0.wrapping_sub(d))
    } else {
        (q0, r0)
    };
    if r1 >= d {
        (q1.wrapping_add(1), r1.wrapping_sub(d))
    } else {
        (q1, r1)
    }
}

fn xor_sub(v: u64, s: u64) -> u64 {
    (v ^ s).wrapping_sub(s)
}

fn sign(v: u64) -> u64 {
    ((v as i64) >> 63) as u64
}

fn model(op: &str, x: u64, d: u64, rcp: Rcp) -> u64 {
    match op {
        "udiv" if d == 0 => u64::MAX,
        "udiv" => udivrem64(x, d, rcp).0,
        "urem" => udivrem64(x, d, rcp).1,
        "sdiv" if d == 0 => u64::MAX,
        "sdiv" => {
            let q = udivrem64(xor_sub(x, sign(x)), xor_sub(d, sign(d)), rcp).0;
            xor_sub(q, sign(x) ^ sign(d))
        }
        "srem" => {
            let r = udivrem64(xor_sub(x, sign(x)), xor_sub(d, sign(d)), rcp).1;
            xor_sub(r, sign(x))
        }
        _ => unreachable!(),
    }
}

/// Rust's results, with the defined results where CLIF traps (docs/ir.md, "No traps").
fn reference(op: &str, x: u64, d: u64) -> u64 {
    let (sx, sd) = (x as i64, d as i64);
    match op {
        "udiv" => x.checked_div(d).unwrap_or(u64::MAX),
        "urem" => x.checked_rem(d).unwrap_or(x),
        "sdiv" if d == 0 => u64::MAX,
        "sdiv" => sx.wrapping_div(sd) as u64,
        "srem" if d == 0 => x,
        "srem" => sx.wrapping_rem(sd) as u64,
        _ => unreachable!(),
    }
}

const OPS: [&str; 4] = ["udiv", "urem", "sdiv", "srem"];

/// The random inputs, reproducible from a seed.
struct Rng(SplitMix64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A random width, then random bits, sometimes negated.
    fn any_width(&mut self) -> u64 {
        let width = self.next() % 65;
        let v = if width == 64 {
            self.next()
        } else {
            self.next() & ((1u64 << width) - 1)
        };
        if self.next() & 1 == 0 {
            v
        } else {
            v.wrapping_neg()
        }
    }
}

fn edge_values() -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        2,
        3,
        5,
        7,
        10,
        0xffff_ffff,
        0x1_0000_0000,
        0x1_0000_0001,
    ];
    for k in [24, 31, 32, 33, 52, 53, 62, 63] {
        v.extend([(1u64 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v.extend([
        u64::MAX,
        u64::MAX - 1,
        0x8000_0000_0000_0001,
        0x7fff_ffff_ffff_fffe,
    ]);
    let negated: Vec<u64> = v.iter().map(|x| x.wrapping_neg()).collect();
    v.extend(negated);
    v
}

fn check(op: &str, x: u64, d: u64, rcp: Rcp) {
    assert_eq!(
        model(op, x, d, rcp),
        reference(op, x, d),
        "{op} {x:#x}, {d:#x} with {rcp:?} reciprocal"
    );
}

#[test]
fn umulhi64_is_exact() {
    let mut rng = Rng(SplitMix64::new(3));
    for _ in 0..200_000 {
        let (a, b) = (rng.any_width(), rng.any_width());
        assert_eq!(umulhi64(a, b), ((a as u128 * b as u128) >> 64) as u64);
    }
    assert_eq!(umulhi64(u64::MAX, u64::MAX), u64::MAX - 1);
}

#[test]
fn edge_values_exact() {
    let edges = edge_values();
    for &x in &edges {
        for &d in &edges {
            for op in OPS {
                for rcp in Rcp::ALL {
                    check(op, x, d, rcp);
                }
            }
        }
    }
}

#[test]
fn random_pairs_exact() {
    let mut rng = Rng(SplitMix64::new(0x9e37_79b9_7f4a_7c15));
    for _ in 0..300_000 {
        let (x, d) = (rng.any_width(), rng.any_width());
        for op in OPS {
            for rcp in Rcp::ALL {
                check(op, x, d, rcp);
            }
        }
    }
}

/// The estimate q0 = x·z / 2^64 is at most 2 below x / d (the two corrections suffice)
/// and never above it, checked at x = 2^64 - 1 (the largest shortfall for a divisor) for
/// every admissible reciprocal of many divisors of every magnitude.
#[test]
fn estimate_is_at_most_two_short() {
    let mut rng = Rng(SplitMix64::new(77));
    let mut divisors = edge_values();
    divisors.extend((0..200_000).map(|_| rng.any_width()));
    for d in divisors.into_iter().filter(|&d| d != 0) {
        for rcp in Rcp::ALL {
            let z = recip64(d, rcp);
            assert!(
                z as u128 * d as u128 <= 1u128 << 64,
                "z above 2^64/d for {d:#x}"
            );
            for x in [u64::MAX, u64::MAX - d / 2, rng.next()] {
                let q0 = umulhi64(x, z);
                let q = x / d;
                assert!(q0 <= q && q - q0 <= 2, "{x:#x} / {d:#x}: {q0} vs {q}");
            }
        }
    }
}
