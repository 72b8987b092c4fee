//! Checks the f32 division and square-root expansions (`Inst::FDiv32`, `Inst::Sqrt32`)
//! without a GPU: the MC instructions emission produces are run one lane at a time by a
//! small interpreter with the GCN3 semantics of each opcode, and the results are compared
//! bit for bit with Rust's `/` and `f32::sqrt` (which are correctly rounded and keep
//! denormals) over edge values and millions of random inputs.
//!
//! The semantics of each opcode are the simulator's (`sim::gcn::float`), whose models of
//! the division helpers correct the GCN3 manual's pseudo-code in three places (each would
//! make LLVM's own sequence fail; see there): V_DIV_FMAS_F32's scale, V_DIV_SCALE_F32 with
//! both the reciprocal and the quotient denormal, V_DIV_FIXUP_F32 of a NaN quotient.
//!
//! V_RCP_F32 and V_SQRT_F32 are modelled as the correctly rounded result, or one ulp
//! below or above it (the manual promises 1 ulp), with denormal inputs and outputs
//! flushed to zero; every test runs all three variants. One limit of the division
//! algorithm (LLVM's too) shows: for a divisor whose significand is all ones
//! (1 - 2^-24, times a power of two) the exact reciprocal lies 2^-48 above a midpoint,
//! and if v_rcp_f32 is not correctly rounded there the Newton-Raphson steps land on a
//! tie and some quotients (1.0 / 0.99999994, for one) come out one ulp low.
//! `fdiv_all_ones_divisor_needs_rounded_rcp` pins that down; the other tests skip those
//! divisors for the inexact reciprocals.

use crate::difftest::SplitMix64;
use crate::isa::gcn::emit::lower_to_mc;
use crate::isa::gcn::inst::Inst;
use crate::isa::gcn::mc::{Gen, McInst, Op, Operand};
use crate::isa::gcn::regs::vgpr;
use crate::sim::gcn::float::{self, class, div_fixup, div_fmas, div_scale, rcp, sqrt};

/// How far the transcendental unit's results are from the correctly rounded ones, in ulps.
#[derive(Copy, Clone, Debug)]
struct Approx {
    rcp: i32,
    sqrt: i32,
}

/// One lane's registers.
struct Lane {
    v: [u32; 16],
    vcc: bool,
    approx: Approx,
}

impl Lane {
    fn read(&self, inst: &McInst, i: usize) -> u32 {
        let o = inst.src[i].expect("source present");
        let bits = match o.0 {
            256..=511 => self.v[o.0 as usize - 256],
            128..=192 => o.0 as u32 - 128,
            193..=208 => (192 - o.0 as i32) as u32,
            240..=247 => {
                [0.5f32, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0][o.0 as usize - 240].to_bits()
            }
            255 => inst.literal.expect("literal present"),
            _ => panic!("operand {o:?} is not modelled"),
        };
        let mut bits = bits;
        if inst.abs >> i & 1 != 0 {
            bits &= 0x7fff_ffff;
        }
        if inst.neg >> i & 1 != 0 {
            bits ^= 0x8000_0000;
        }
        bits
    }

    fn f(&self, inst: &McInst, i: usize) -> f32 {
        f32::from_bits(self.read(inst, i))
    }

    fn set_mask(&mut self, inst: &McInst, value: bool) {
        assert_eq!(
            inst.sdst,
            Some(Operand::VCC),
            "lane masks go to VCC in these sequences"
        );
        self.vcc = value;
    }

    fn run(&mut self, insts: &[McInst]) {
        for inst in insts {
            let result: Option<f32> = match inst.op {
                Op::VMovB32 => Some(f32::from_bits(self.read(inst, 0))),
                Op::VAddU32 => {
                    let (a, b) = (self.read(inst, 0), self.read(inst, 1));
                    let (sum, carry) = a.overflowing_add(b);
                    self.set_mask(inst, carry);
                    Some(f32::from_bits(sum))
                }
                Op::VMulF32 => Some(float::mul(self.f(inst, 0), self.f(inst, 1))),
                Op::VFmaF32 => Some(float::fma(
                    self.f(inst, 0),
                    self.f(inst, 1),
                    self.f(inst, 2),
                )),
                Op::VRcpF32 => Some(rcp(self.f(inst, 0), self.approx.rcp)),
                Op::VSqrtF32 => Some(sqrt(self.f(inst, 0), self.approx.sqrt)),
                Op::VCndmaskB32 => {
                    assert_eq!(inst.src[2], Some(Operand::VCC));
                    Some(f32::from_bits(
                        self.read(inst, if self.vcc { 1 } else { 0 }),
                    ))
                }
                Op::VCmpGtF32 | Op::VCmpGeF32 | Op::VCmpLtF32 => {
                    let (a, b) = (self.f(inst, 0), self.f(inst, 1));
                    let value = match inst.op {
                        Op::VCmpGtF32 => a > b,
                        Op::VCmpGeF32 => a >= b,
                        _ => a < b,
                    };
                    self.set_mask(inst, value);
                    None
                }
                Op::VCmpClassF32 => {
                    let value = class(self.f(inst, 0), self.read(inst, 1));
                    self.set_mask(inst, value);
                    None
                }
                Op::VDivScaleF32 => {
                    let (d, flag) = div_scale(self.f(inst, 0), self.f(inst, 1), self.f(inst, 2));
                    self.set_mask(inst, flag);
                    Some(d)
                }
                Op::VDivFmasF32 => Some(div_fmas(
                    self.f(inst, 0),
                    self.f(inst, 1),
                    self.f(inst, 2),
                    self.vcc,
                )),
                Op::VDivFixupF32 => {
                    Some(div_fixup(self.f(inst, 0), self.f(inst, 1), self.f(inst, 2)))
                }
                op => panic!("{op:?} is not modelled"),
            };
            if let Some(value) = result {
                let dst = inst.dst.expect("a VGPR result");
                self.v[dst.0 as usize - 256] = value.to_bits();
            }
        }
    }
}

const APPROXES: [Approx; 5] = [
    Approx { rcp: 0, sqrt: 0 },
    Approx { rcp: -1, sqrt: -1 },
    Approx { rcp: 1, sqrt: 1 },
    Approx { rcp: -1, sqrt: 1 },
    Approx { rcp: 1, sqrt: -1 },
];

/// The emitted division, with v0 = v1 / v2 and temporaries v3–v6.
fn fdiv_code() -> Vec<McInst> {
    let inst = Inst::FDiv32 {
        dst: vgpr(0),
        num: vgpr(1),
        den: vgpr(2),
        tmp: [vgpr(3), vgpr(4), vgpr(5), vgpr(6)],
    };
    lower_to_mc(&[inst], Gen::Gfx8).unwrap()
}

/// The emitted square root, with v0 = sqrt(v1) and temporaries v3–v6.
fn sqrt_code() -> Vec<McInst> {
    let inst = Inst::Sqrt32 {
        dst: vgpr(0),
        src: vgpr(1),
        tmp: [vgpr(3), vgpr(4), vgpr(5), vgpr(6)],
    };
    lower_to_mc(&[inst], Gen::Gfx8).unwrap()
}

fn run_fdiv(code: &[McInst], a: f32, b: f32, approx: Approx) -> f32 {
    let mut lane = Lane {
        v: [0xdead_beef; 16],
        vcc: false,
        approx,
    };
    lane.v[1] = a.to_bits();
    lane.v[2] = b.to_bits();
    lane.run(code);
    assert_eq!(
        lane.v[1..3],
        [a.to_bits(), b.to_bits()],
        "sources preserved"
    );
    f32::from_bits(lane.v[0])
}

fn run_sqrt(code: &[McInst], x: f32, approx: Approx) -> f32 {
    let mut lane = Lane {
        v: [0xdead_beef; 16],
        vcc: false,
        approx,
    };
    lane.v[1] = x.to_bits();
    lane.run(code);
    assert_eq!(lane.v[1], x.to_bits(), "source preserved");
    f32::from_bits(lane.v[0])
}

fn all_ones_significand(x: f32) -> bool {
    x.to_bits() & 0x007f_ffff == 0x007f_ffff
}

fn same(got: f32, want: f32) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

fn edge_values() -> Vec<f32> {
    let mut bits: Vec<u32> = vec![
        0x0000_0000, // +0
        0x0000_0001, // smallest denormal
        0x0000_0002,
        0x0000_0003,
        0x0000_1234,
        0x0040_0000,
        0x007f_fffe,
        0x007f_ffff, // largest denormal
        0x0080_0000, // smallest normal
        0x0080_0001,
        0x00ff_ffff,
        0x0f80_0000, // 2^-96, the square root's scaling threshold
        0x0f7f_ffff,
        0x0f80_0001,
        0x1f80_0000,
        0x2000_0000,
        0x3380_0000,
        0x3f00_0000,
        0x3f7f_ffff,
        0x3f80_0000, // 1
        0x3f80_0001,
        0x3fb5_04f3, // ~sqrt 2
        0x3fff_ffff,
        0x4000_0000,
        0x4040_0000,
        0x40a0_0000,
        0x40e0_0000,
        0x4120_0000,
        0x4b7f_ffff,
        0x5f80_0000,
        0x6f80_0000,
        0x7e80_0000,
        0x7f00_0000, // 2^127
        0x7f7f_fffe,
        0x7f7f_ffff, // largest finite
        0x7f80_0000, // +inf
        0x7fc0_0000, // quiet NaN
        0x7f80_0001, // signalling NaN
        0x7fff_ffff,
    ];
    // Powers of two across the whole range, and their neighbours.
    for e in 1..255u32 {
        bits.push(e << 23);
        if e % 7 == 0 {
            bits.push((e << 23) + 1);
            bits.push((e << 23) - 1);
        }
    }
    let negatives: Vec<u32> = bits.iter().map(|b| b | 0x8000_0000).collect();
    bits.extend(negatives);
    bits.sort_unstable();
    bits.dedup();
    bits.into_iter().map(f32::from_bits).collect()
}

/// The random inputs, reproducible from a seed.
struct Rng(SplitMix64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

/// Random division operands: independent bit patterns, and pairs whose exponents are
/// close or whose quotient lands near the denormal and overflow boundaries (where the
/// scaling matters).
fn random_pairs(count: usize, seed: u64) -> impl Iterator<Item = (f32, f32)> {
    let mut rng = Rng(SplitMix64::new(seed));
    (0..count).map(move |i| {
        let (a, b) = (rng.u32(), rng.u32());
        let (a, b) = match i % 4 {
            0 => (a, b),
            1 => {
                // |a/b| near 2^k for k chosen across the exponent range.
                let ea = (a >> 23) & 0xff;
                let k = (rng.u32() % 300) as i32 - 150;
                let eb = (ea as i32 - k).clamp(0, 254) as u32;
                (a, (b & 0x807f_ffff) | eb << 23)
            }
            2 => (a & 0x807f_ffff | 0x3f80_0000, b & 0x807f_ffff | 0x3f80_0000),
            _ => (a & 0x80ff_ffff, b), // denormal or tiny numerators
        };
        (f32::from_bits(a), f32::from_bits(b))
    })
}

#[test]
fn fdiv_edge_values() {
    let code = fdiv_code();
    let values = edge_values();
    let mut failures = Vec::new();
    for approx in APPROXES {
        for &a in &values {
            for &b in &values {
                if approx.rcp != 0 && all_ones_significand(b) {
                    continue;
                }
                let got = run_fdiv(&code, a, b, approx);
                if !same(got, a / b) {
                    failures.push(format!(
                        "{approx:?}: {a:e} / {b:e} = {got:e}, want {:e}",
                        a / b
                    ));
                }
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn fdiv_random() {
    let code = fdiv_code();
    let mut failures = Vec::new();
    for (k, approx) in APPROXES.into_iter().enumerate() {
        for (a, b) in random_pairs(1_000_000, 0x9e37_79b9_7f4a_7c15 + k as u64) {
            if approx.rcp != 0 && all_ones_significand(b) {
                continue;
            }
            let got = run_fdiv(&code, a, b, approx);
            if !same(got, a / b) {
                failures.push(format!(
                    "{approx:?}: {:#010x} / {:#010x} = {:#010x}, want {:#010x}",
                    a.to_bits(),
                    b.to_bits(),
                    got.to_bits(),
                    (a / b).to_bits()
                ));
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn sqrt_edge_and_random_values() {
    let code = sqrt_code();
    let mut rng = Rng(SplitMix64::new(0x1234_5678_9abc_def1));
    let mut inputs = edge_values();
    // Every denormal with a stride, and random bit patterns.
    inputs.extend((0..0x0080_0000u32).step_by(61).map(f32::from_bits));
    inputs.extend((0..2_000_000).map(|_| f32::from_bits(rng.u32())));
    let mut failures = Vec::new();
    for approx in APPROXES {
        for &x in &inputs {
            let got = run_sqrt(&code, x, approx);
            if !same(got, x.sqrt()) {
                failures.push(format!(
                    "{approx:?}: sqrt {:#010x} = {:#010x}, want {:#010x}",
                    x.to_bits(),
                    got.to_bits(),
                    x.sqrt().to_bits()
                ));
            }
        }
    }
    assert_no_failures(&failures);
}

/// GCN3 ISA 4.5: a VALU write of VCC needs 4 wait states before v_div_fmas_f32 reads it.
#[test]
fn fdiv_vcc_hazard_is_covered() {
    let code = fdiv_code();
    let fmas = code.iter().position(|m| m.op == Op::VDivFmasF32).unwrap();
    let last_vcc_write = code[..fmas]
        .iter()
        .rposition(|m| m.sdst == Some(Operand::VCC))
        .unwrap();
    assert!(
        fmas - last_vcc_write > 4,
        "{} instructions between",
        fmas - last_vcc_write - 1
    );
}

/// See the module comment: with v_rcp_f32 one ulp off on 0.99999994 (= 1 - 2^-24), the
/// quotient 1 / 0.99999994 (exactly 1 + 2^-24 + 2^-48 + …, just above a midpoint) rounds
/// down; with the correctly rounded reciprocal it is right.
#[test]
fn fdiv_all_ones_divisor_needs_rounded_rcp() {
    let code = fdiv_code();
    let (a, b) = (1.0f32, f32::from_bits(0x3f7f_ffff));
    assert_eq!(
        run_fdiv(&code, a, b, APPROXES[0]).to_bits(),
        (a / b).to_bits()
    );
    for approx in &APPROXES[1..] {
        assert_eq!(
            run_fdiv(&code, a, b, *approx).to_bits(),
            (a / b).to_bits() - 1
        );
    }
}

/// Fails with the count and the first ten mismatches.
fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}
