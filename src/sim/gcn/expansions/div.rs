//! A bit-exact model of the integer division sequences that `isle/gcn/lower.isle` emits
//! for `udiv`, `urem`, `sdiv` and `srem` (section "Rules for `udiv`, `urem`, `sdiv`,
//! `srem`"), checked against Rust's `/` and `%` and the division-by-zero results we define.
//!
//! Each function below follows the rules instruction by instruction; keep them in step.
//! The GCN semantics modelled (GCN3 ISA ch. 6 and 12, VOP1/VOP2/VOP3 opcode descriptions):
//! - `v_cvt_f32_u32`: round to nearest even (Rust's `as f32`).
//! - `v_rcp_iflag_f32`: a reciprocal with at most 1 ulp error, +inf for 0. Modelled as the
//!   correctly rounded `1.0 / x`, optionally moved by ±1 ulp to show the sequence does not
//!   depend on the exact rounding.
//! - `v_mul_f32`: IEEE single multiply, round to nearest even (no denormals arise here).
//! - `v_cvt_u32_f32`: truncation, saturating to 0..=u32::MAX, NaN to 0 (Rust's `as u32`).
//! - `v_mul_lo_u32`, `v_mul_hi_u32`, `v_add_u32`, `v_sub_u32`: wrapping 32-bit arithmetic.

use crate::difftest::SplitMix64;
use smallvec::{SmallVec, smallvec};

/// Which reciprocal `v_rcp_iflag_f32` returns: the manual promises at most 1 ulp of error
/// (GCN3 ISA, V_RCP_IFLAG_F32), so any f32 within 1 ulp of the exact 1/x may come back. The
/// tests run the correctly rounded one and the lowest and highest admissible ones.
#[derive(Copy, Clone, Debug)]
pub(super) enum Rcp {
    Nearest,
    Lowest,
    Highest,
}

impl Rcp {
    pub(super) const ALL: [Rcp; 3] = [Rcp::Nearest, Rcp::Lowest, Rcp::Highest];

    pub(super) fn eval(self, x: f32) -> f32 {
        let admissible = rcp_admissible(x);
        match self {
            Rcp::Nearest => 1.0 / x,
            Rcp::Lowest => admissible[0],
            Rcp::Highest => *admissible.last().expect("the nearest is admissible"),
        }
    }
}

/// Every f32 within 1 ulp (the spacing of f32 values just above the largest f32 not above
/// 1/x) of the exact 1/x, in increasing order; for x = 0 only +inf. For positive finite
/// x, r * x is exact in f64 (two 24-bit mantissas), so the comparisons are exact.
fn rcp_admissible(x: f32) -> SmallVec<[f32; 4]> {
    let nearest = 1.0f32 / x;
    if !nearest.is_finite() {
        return smallvec![nearest];
    }
    let step = |r: f32, n: i32| f32::from_bits((r.to_bits() as i32 + n) as u32);
    let down = if nearest as f64 * x as f64 <= 1.0 {
        nearest
    } else {
        step(nearest, -1)
    };
    let ulp = step(down, 1) as f64 - down as f64;
    (-3..=3)
        .map(|n| step(nearest, n))
        .filter(|&r| (r as f64 * x as f64 - 1.0).abs() <= ulp * x as f64)
        .collect()
}

fn cvt_f32_u32(x: u32) -> f32 {
    x as f32
}

fn cvt_u32_f32(x: f32) -> u32 {
    x as u32
}

fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

fn mul_lo_u32(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

fn sel(c: bool, t: u32, f: u32) -> u32 {
    if c { t } else { f }
}

/// `udiv_recip`: z ≈ 2^32 / y from below.
fn udiv_recip(y: u32, rcp: Rcp) -> u32 {
    udiv_recip_from(y, rcp.eval(cvt_f32_u32(y)))
}

/// `udiv_recip` given the result `r` of `v_rcp_iflag_f32`.
fn udiv_recip_from(y: u32, r: f32) -> u32 {
    udiv_recip_scaled(y, r, RECIP_SCALE)
}

/// The scale in `udiv_recip`: 2^32 - 1024 (LLVM uses 2^32 - 512, see
/// `llvm_scale_needs_exact_rcp_of_powers_of_two`).
const RECIP_SCALE: u32 = 0x4f7f_fffc;

fn udiv_recip_scaled(y: u32, r: f32, scale: u32) -> u32 {
    let z0 = cvt_u32_f32(f32::from_bits(scale) * r);
    let e = mul_lo_u32(0u32.wrapping_sub(y), z0);
    z0.wrapping_add(mul_hi_u32(z0, e))
}

/// `udiv32` and `urem32` share the estimate and the two correction steps: (q, r).
fn udivrem32(x: u32, y: u32, rcp: Rcp) -> (u32, u32) {
    let q0 = mul_hi_u32(x, udiv_recip(y, rcp));
    let r0 = x.wrapping_sub(mul_lo_u32(q0, y));
    let c1 = r0 >= y;
    let q1 = sel(c1, q0.wrapping_add(1), q0);
    let r1 = sel(c1, r0.wrapping_sub(y), r0);
    let c2 = r1 >= y;
    (
        sel(c2, q1.wrapping_add(1), q1),
        sel(c2, r1.wrapping_sub(y), r1),
    )
}

fn udiv(x: u32, y: u32, rcp: Rcp) -> u32 {
    sel(y == 0, u32::MAX, udivrem32(x, y, rcp).0)
}

fn urem(x: u32, y: u32, rcp: Rcp) -> u32 {
    udivrem32(x, y, rcp).1
}

/// `sdiv_abs`: (v + s) ^ s with s = v >> 31 (arithmetic).
fn sabs(v: u32) -> (u32, u32) {
    let s = ((v as i32) >> 31) as u32;
    (v.wrapping_add(s) ^ s, s)
}

/// `apply_sign`: (v ^ s) - s.
fn apply_sign(v: u32, s: u32) -> u32 {
    (v ^ s).wrapping_sub(s)
}

fn sdiv(x: u32, y: u32, rcp: Rcp) -> u32 {
    let (ax, sx) = sabs(x);
    let (ay, sy) = sabs(y);
    let q = apply_sign(udivrem32(ax, ay, rcp).0, sx ^ sy);
    sel(y == 0, u32::MAX, q)
}

fn srem(x: u32, y: u32, rcp: Rcp) -> u32 {
    let (ax, sx) = sabs(x);
    let (ay, _) = sabs(y);
    apply_sign(udivrem32(ax, ay, rcp).1, sx)
}

/// The results we define (docs/ir.md; RISC-V's choices), for `bits`-wide operands held in
/// the low bits of a u32 (results compared in those bits only).
fn reference(op: &str, x: u32, y: u32, bits: u32) -> u32 {
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    let (ux, uy) = (x & mask, y & mask);
    let sext = |v: u32| (((v << (32 - bits)) as i32) >> (32 - bits)) as i64;
    let (sx, sy) = (sext(x), sext(y));
    let smin = -(1i64 << (bits - 1));
    let r = match op {
        "udiv" if uy == 0 => mask,
        "udiv" => ux / uy,
        "urem" if uy == 0 => ux,
        "urem" => ux % uy,
        "sdiv" if sy == 0 => mask,
        "sdiv" if sx == smin && sy == -1 => smin as u32,
        "sdiv" => (sx / sy) as u32,
        "srem" if sy == 0 => sx as u32,
        "srem" if sx == smin && sy == -1 => 0,
        "srem" => (sx % sy) as u32,
        _ => unreachable!(),
    };
    r & mask
}

/// The sequence for `op` on `bits`-wide operands: narrow operands are zero- or
/// sign-extended first (`zext32`/`sext32`), as the rules do.
fn model(op: &str, x: u32, y: u32, bits: u32, rcp: Rcp) -> u32 {
    let ext = |v: u32| match (bits, op) {
        (32, _) => v,
        (_, "udiv" | "urem") => v & ((1 << bits) - 1),
        _ => (((v << (32 - bits)) as i32) >> (32 - bits)) as u32,
    };
    let (x, y) = (ext(x), ext(y));
    match op {
        "udiv" => udiv(x, y, rcp),
        "urem" => urem(x, y, rcp),
        "sdiv" => sdiv(x, y, rcp),
        "srem" => srem(x, y, rcp),
        _ => unreachable!(),
    }
}

const OPS: [&str; 4] = ["udiv", "urem", "sdiv", "srem"];

/// The random inputs, reproducible from a seed.
struct Rng(SplitMix64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// Random values biased toward every magnitude (a random width, then random bits).
    fn any_width(&mut self) -> u32 {
        let width = self.next() % 33;
        let v = if width == 32 {
            self.next()
        } else {
            self.next() & ((1u32 << width) - 1)
        };
        if self.next() & 1 == 0 {
            v
        } else {
            v.wrapping_neg()
        }
    }
}

fn edge_values() -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        2,
        3,
        5,
        7,
        10,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        u32::MAX,
    ];
    for k in 0..32 {
        let p = 1u32 << k;
        v.extend([p.wrapping_sub(1), p, p.wrapping_add(1)]);
        v.extend([p.wrapping_sub(1), p, p.wrapping_add(1)].map(u32::wrapping_neg));
    }
    v.extend([
        0xffff_fffe,
        0xaaaa_aaaa,
        0x5555_5555,
        0x1234_5678,
        65535 * 65537,
        641,
        6_700_417,
    ]);
    v.sort_unstable();
    v.dedup();
    v
}

fn check(op: &str, x: u32, y: u32, bits: u32, rcp: Rcp) {
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    let got = model(op, x, y, bits, rcp) & mask;
    let want = reference(op, x, y, bits);
    assert_eq!(got, want, "{op}.i{bits} {x:#x}, {y:#x} with {rcp:?}");
}

#[test]
fn edge_values_exact() {
    let edges = edge_values();
    for rcp in Rcp::ALL {
        for &x in &edges {
            for &y in &edges {
                for op in OPS {
                    check(op, x, y, 32, rcp);
                }
            }
        }
    }
}

#[test]
fn division_by_zero_and_overflow() {
    for x in edge_values() {
        assert_eq!(udiv(x, 0, Rcp::Nearest), u32::MAX);
        assert_eq!(urem(x, 0, Rcp::Nearest), x);
        assert_eq!(sdiv(x, 0, Rcp::Nearest), u32::MAX);
        assert_eq!(srem(x, 0, Rcp::Nearest), x);
    }
    assert_eq!(sdiv(0x8000_0000, u32::MAX, Rcp::Nearest), 0x8000_0000);
    assert_eq!(srem(0x8000_0000, u32::MAX, Rcp::Nearest), 0);
}

#[test]
fn random_pairs_exact() {
    let mut rng = Rng(SplitMix64::new(0x9e37_79b9_7f4a_7c15));
    for i in 0..3_000_000u32 {
        let (x, y) = if i % 2 == 0 {
            (rng.next(), rng.next())
        } else {
            (rng.any_width(), rng.any_width())
        };
        let rcp = Rcp::ALL[i as usize % 3];
        for op in OPS {
            check(op, x, y, 32, rcp);
        }
        // Remainders of y - 1: the quotient estimate is furthest off here.
        let y = y | 1;
        let x = (x / y).wrapping_mul(y).wrapping_add(y - 1);
        check("udiv", x, y, 32, rcp);
        check("urem", x, y, 32, rcp);
    }
}

/// i8 exhaustively, i16 for every divisor with many dividends.
#[test]
fn narrow_types_exact() {
    for x in 0..=0xffu32 {
        for y in 0..=0xffu32 {
            // Upper bits are unspecified: fill them with garbage.
            let (gx, gy) = (x | 0xa5a5_a500, y | 0x5a5a_5a00);
            for op in OPS {
                check(op, gx, gy, 8, Rcp::Nearest);
            }
        }
    }
    let mut rng = Rng(SplitMix64::new(7));
    for y in 0..=0xffffu32 {
        for _ in 0..16 {
            let x = rng.next();
            for op in OPS {
                check(op, x, y | (rng.next() << 16), 16, Rcp::ALL[y as usize % 3]);
            }
        }
    }
}

/// Why the sequence is exact for every dividend, checked per divisor: with the refined
/// reciprocal z, q0 = floor(x * z / 2^32) is at most 2 below floor(x / y) for every x
/// exactly when z * y <= 2^32 (never above) and (2^32 - z * y) * (2^32 - 1) < 2^33 * y
/// (the shortfall x * (2^32 / y - z) / 2^32 stays below 2). The two correction steps then
/// make q and r exact, and r0 = x - q0 * y cannot wrap since q0 * y <= x.
fn estimate_bound_holds(y: u32, r: f32) -> bool {
    let z = udiv_recip_from(y, r) as u128;
    let zy = z * y as u128;
    zy <= 1 << 32 && ((1u128 << 32) - zy) * (u32::MAX as u128) < (1u128 << 33) * y as u128
}

#[test]
fn estimate_bound_small_and_edge_divisors() {
    let mut divisors: Vec<u32> = (1..=1 << 20).collect();
    divisors.extend(edge_values().into_iter().filter(|&y| y != 0));
    let mut rng = Rng(SplitMix64::new(3));
    divisors.extend((0..1_000_000).map(|_| rng.next().max(1)));
    for &y in &divisors {
        for r in rcp_admissible(cvt_f32_u32(y)) {
            assert!(
                estimate_bound_holds(y, r),
                "y = {y:#x} with v_rcp_iflag_f32 = {r:e}"
            );
        }
    }
}

/// Every divisor from 1 to 2^32 - 1 with every admissible reciprocal: a proof of exactness
/// for all 2^64 operand pairs, given the bound above. Takes a minute in release builds:
/// `cargo test --release expansions::div -- --ignored`.
#[test]
#[ignore]
fn estimate_bound_every_divisor() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let chunk = (1u64 << 32).div_ceil(threads);
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let start = (t * chunk).max(1);
                let end = ((t + 1) * chunk).min(1 << 32);
                for y in start..end {
                    let y = y as u32;
                    for r in rcp_admissible(cvt_f32_u32(y)) {
                        assert!(
                            estimate_bound_holds(y, r),
                            "y = {y:#x} with v_rcp_iflag_f32 = {r:e}"
                        );
                    }
                }
            });
        }
    });
}

/// With LLVM's scale 0x4f7ffffe (2^32 - 512) the sequence is exact only if
/// `v_rcp_iflag_f32` is exact for powers of two: y = 2^24 + 1 converts to 2^24, and a
/// reciprocal 1 ulp above 2^-24 (allowed by the manual's 1 ulp bound) makes z * y > 2^32,
/// after which the Newton step wraps. 2^32 - 1024 leaves room for that error.
#[test]
fn llvm_scale_needs_exact_rcp_of_powers_of_two() {
    let y = (1 << 24) + 1;
    let high = *rcp_admissible(cvt_f32_u32(y)).last().unwrap();
    assert!(high > 1.0 / (1 << 24) as f32);
    assert!(udiv_recip_scaled(y, high, 0x4f7f_fffe) as u64 * y as u64 > 1 << 32);
    assert!(estimate_bound_holds(y, high));
}
