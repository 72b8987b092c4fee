//! Checks the f64 division and square-root expansions (`Inst::FDiv64`, `Inst::Sqrt64`) as
//! `fdiv.rs` checks the f32 ones: the emitted MC instructions run one lane at a time
//! with the simulator's semantics of each opcode (`sim::gcn::float`), and the results are
//! compared bit for bit with Rust's `/` and `f64::sqrt` (correctly rounded, denormals kept)
//! over edge values and random inputs.
//!
//! V_RCP_F64 and V_RSQ_F64 are modelled as the correctly rounded result, or one ulp below
//! or above it; every test runs the three. The gfx6 division (which recomputes the scale
//! condition because v_div_scale_f64's VCC output is unusable there) runs too, and its
//! recomputed condition is checked against the flag v_div_scale_f64 defines.

use crate::difftest::SplitMix64;
use crate::isa::gcn::emit::lower_to_mc;
use crate::isa::gcn::inst::Inst;
use crate::isa::gcn::mc::{Gen, McInst, Op, Operand};
use crate::machinst::{Reg, RegClass};
use crate::sim::gcn::float::{
    self, class, div_fixup, div_fmas, div_scale, ldexp64, perturb64, rcp64, rsq64,
};

fn pair(hw: u16) -> Reg {
    Reg::Real {
        file: crate::isa::gcn::regs::VGPR,
        class: RegClass::Float,
        hw,
    }
}

/// One lane: VGPRs, VCC, how far v_rcp_f64 and v_rsq_f64 are from correctly rounded, and
/// the flag the last v_div_scale_f64 defined (to check gfx6's recomputation).
struct Lane {
    v: [u32; 32],
    vcc: bool,
    ulps: i64,
    scale_flag: Option<bool>,
    /// Whether to check that v_div_fmas_f64 reads the flag v_div_scale_f64 defined (only
    /// meaningful for finite non-zero operands).
    check_scale: bool,
}

impl Lane {
    fn read32(&self, inst: &McInst, i: usize) -> u32 {
        let o = inst.src[i].expect("source present");
        match o.0 {
            256..=511 => self.v[o.0 as usize - 256],
            128..=192 => o.0 as u32 - 128,
            193..=208 => (192 - o.0 as i32) as u32,
            255 => inst.literal.expect("literal present"),
            _ => panic!("operand {o:?} is not modelled"),
        }
    }

    fn d(&self, inst: &McInst, i: usize) -> f64 {
        let o = inst.src[i].expect("source present");
        assert!(o.is_vgpr(), "64-bit sources are VGPR pairs here");
        let r = o.0 as usize - 256;
        let mut bits = (self.v[r + 1] as u64) << 32 | self.v[r] as u64;
        if inst.abs >> i & 1 != 0 {
            bits &= !(1 << 63);
        }
        if inst.neg >> i & 1 != 0 {
            bits ^= 1 << 63;
        }
        f64::from_bits(bits)
    }

    fn set_mask(&mut self, inst: &McInst, value: bool) {
        assert_eq!(inst.sdst, Some(Operand::VCC), "lane masks go to VCC");
        self.vcc = value;
    }

    fn run(&mut self, insts: &[McInst]) {
        for inst in insts {
            let dst = inst.dst.map(|o| o.0 as usize - 256);
            let put64 = |lane: &mut Lane, x: f64| {
                let r = dst.expect("a VGPR result");
                lane.v[r] = x.to_bits() as u32;
                lane.v[r + 1] = (x.to_bits() >> 32) as u32;
            };
            match inst.op {
                Op::VMovB32 => self.v[dst.unwrap()] = self.read32(inst, 0),
                Op::VCndmaskB32 => {
                    assert_eq!(inst.src[2], Some(Operand::VCC));
                    self.v[dst.unwrap()] = self.read32(inst, if self.vcc { 1 } else { 0 });
                }
                Op::VCmpEqU32 | Op::VCmpNeU32 => {
                    let eq = self.read32(inst, 0) == self.read32(inst, 1);
                    self.set_mask(inst, eq == (inst.op == Op::VCmpEqU32));
                }
                Op::VCmpGtF64 => {
                    let value = self.d(inst, 0) > self.d(inst, 1);
                    self.set_mask(inst, value);
                }
                Op::VCmpClassF64 => {
                    let value = class(self.d(inst, 0), self.read32(inst, 1));
                    self.set_mask(inst, value);
                }
                Op::VLdexpF64 => {
                    let x = ldexp64(self.d(inst, 0), self.read32(inst, 1) as i32);
                    put64(self, x);
                }
                Op::VRsqF64 => {
                    let x = rsq64(self.d(inst, 0), self.ulps);
                    put64(self, x);
                }
                Op::VRcpF64 => {
                    let x = self.d(inst, 0);
                    // The reciprocal of a power of two is exact (as `fdiv` assumes
                    // of v_rcp_f32).
                    let exact = x.to_bits() & ((1 << 52) - 1) == 0;
                    let x = perturb64(rcp64(x), if exact { 0 } else { self.ulps });
                    put64(self, x);
                }
                Op::VMulF64 => {
                    let x = float::mul64(self.d(inst, 0), self.d(inst, 1));
                    put64(self, x);
                }
                Op::VFmaF64 => {
                    let x = float::fma64(self.d(inst, 0), self.d(inst, 1), self.d(inst, 2));
                    put64(self, x);
                }
                Op::VDivScaleF64 => {
                    let (x, flag) = div_scale(self.d(inst, 0), self.d(inst, 1), self.d(inst, 2));
                    self.set_mask(inst, flag);
                    self.scale_flag = Some(flag);
                    put64(self, x);
                }
                Op::VDivFmasF64 => {
                    let x = div_fmas(self.d(inst, 0), self.d(inst, 1), self.d(inst, 2), self.vcc);
                    put64(self, x);
                }
                Op::VDivFixupF64 => {
                    let x = div_fixup(self.d(inst, 0), self.d(inst, 1), self.d(inst, 2));
                    put64(self, x);
                }
                op => panic!("{op:?} is not modelled"),
            }
            if inst.op == Op::VDivFmasF64 && self.check_scale {
                assert_eq!(
                    Some(self.vcc),
                    self.scale_flag,
                    "the scale condition v_div_fmas_f64 reads is not v_div_scale's flag"
                );
            }
        }
    }
}

/// The emitted division, v[0:1] = v[2:3] / v[4:5], temporaries from v6.
fn fdiv_code(generation: Gen) -> Vec<McInst> {
    let inst = Inst::FDiv64 {
        dst: pair(0),
        num: pair(2),
        den: pair(4),
        tmp: [pair(6), pair(8), pair(10), pair(12)],
    };
    lower_to_mc(&[inst], generation).unwrap()
}

/// The emitted square root, v[0:1] = sqrt(v[2:3]).
fn sqrt_code() -> Vec<McInst> {
    let inst = Inst::Sqrt64 {
        dst: pair(0),
        src: pair(2),
        tmp: [pair(6), pair(8), pair(10), pair(12)],
    };
    lower_to_mc(&[inst], Gen::Gfx8).unwrap()
}

fn lane(ulps: i64) -> Lane {
    Lane {
        v: [0xdead_beef; 32],
        vcc: false,
        ulps,
        scale_flag: None,
        check_scale: false,
    }
}

fn set(lane: &mut Lane, r: usize, x: f64) {
    lane.v[r] = x.to_bits() as u32;
    lane.v[r + 1] = (x.to_bits() >> 32) as u32;
}

fn get(lane: &Lane, r: usize) -> f64 {
    f64::from_bits((lane.v[r + 1] as u64) << 32 | lane.v[r] as u64)
}

fn run_fdiv(code: &[McInst], a: f64, b: f64, ulps: i64) -> f64 {
    let mut l = lane(ulps);
    l.check_scale = a.is_finite() && b.is_finite() && a != 0.0 && b != 0.0;
    set(&mut l, 2, a);
    set(&mut l, 4, b);
    l.run(code);
    assert_eq!(
        (get(&l, 2).to_bits(), get(&l, 4).to_bits()),
        (a.to_bits(), b.to_bits()),
        "sources preserved"
    );
    get(&l, 0)
}

fn run_sqrt(code: &[McInst], x: f64, ulps: i64) -> f64 {
    let mut l = lane(ulps);
    set(&mut l, 2, x);
    l.run(code);
    get(&l, 0)
}

fn all_ones_significand(x: f64) -> bool {
    x.to_bits() & ((1 << 52) - 1) == (1 << 52) - 1
}

fn same(got: f64, want: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

fn edge_values() -> Vec<f64> {
    let mut bits: Vec<u64> = vec![
        0,
        1,
        2,
        3,
        0x000f_ffff_ffff_ffff,
        0x0008_0000_0000_0000,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x001f_ffff_ffff_ffff,
        0x0020_0000_0000_0000,
        0x0360_0000_0000_0000, // 2^-969
        0x1000_0000_0000_0000, // 2^-767
        0x0fff_ffff_ffff_ffff,
        0x3fe0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3fff_ffff_ffff_ffff,
        0x4000_0000_0000_0000,
        0x4008_0000_0000_0000,
        0x4014_0000_0000_0000,
        0x401c_0000_0000_0000,
        0x3fb9_9999_9999_999a, // 0.1
        0x7fd0_0000_0000_0000, // 2^1022
        0x7fe0_0000_0000_0000, // 2^1023
        0x7fef_ffff_ffff_ffff, // MAX
        0x7ff0_0000_0000_0000, // inf
        0x7ff8_0000_0000_0000, // NaN
        0x7ff0_0000_0000_0001, // sNaN
    ];
    let negatives: Vec<u64> = bits.iter().map(|b| b | 1 << 63).collect();
    bits.extend(negatives);
    bits.into_iter().map(f64::from_bits).collect()
}

/// The random inputs, reproducible from a seed.
struct Rng(SplitMix64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// Random operands: bit patterns, quotients near 2^k across the whole range (the scaling
/// boundaries), significands near 1, denormal numerators.
fn random_pairs(count: usize, seed: u64) -> impl Iterator<Item = (f64, f64)> {
    let mut rng = Rng(SplitMix64::new(seed));
    (0..count).map(move |i| {
        let (a, b) = (rng.next(), rng.next());
        let frac = (1u64 << 52) - 1;
        let sign_frac = frac | 1 << 63;
        let (a, b) = match i % 4 {
            0 => (a, b),
            1 => {
                let ea = (a >> 52) & 0x7ff;
                let k = (rng.next() % 2300) as i64 - 1150;
                let eb = (ea as i64 - k).clamp(0, 2046) as u64;
                (a, (b & sign_frac) | eb << 52)
            }
            2 => (a & sign_frac | 0x3ff << 52, b & sign_frac | 0x3ff << 52),
            _ => (a & (sign_frac | 0x1 << 52), b),
        };
        (f64::from_bits(a), f64::from_bits(b))
    })
}

fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

fn check_fdiv(pairs: &[(f64, f64)]) {
    let mut failures = Vec::new();
    for generation in [Gen::Gfx8, Gen::Gfx6] {
        let code = fdiv_code(generation);
        for ulps in [0, -1, 1] {
            for &(a, b) in pairs {
                if ulps != 0 && all_ones_significand(b) {
                    continue; // see `fdiv_all_ones_divisor_needs_rounded_rcp`
                }
                let got = run_fdiv(&code, a, b, ulps);
                if !same(got, a / b) {
                    failures.push(format!(
                        "{generation:?}, rcp {ulps:+} ulp: {a:e} / {b:e} = {got:e}, want {:e}",
                        a / b
                    ));
                }
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn fdiv_edge_values() {
    let values = edge_values();
    let pairs: Vec<(f64, f64)> = values
        .iter()
        .flat_map(|&a| values.iter().map(move |&b| (a, b)))
        .collect();
    check_fdiv(&pairs);
}

#[test]
fn fdiv_random() {
    check_fdiv(&random_pairs(1_000_000, 1).collect::<Vec<_>>());
}

#[test]
fn sqrt_edge_and_random_values() {
    let code = sqrt_code();
    let mut rng = Rng(SplitMix64::new(5));
    let mut values = edge_values();
    values.extend((0..1_000_000).map(|i| {
        let bits = rng.next();
        f64::from_bits(match i % 3 {
            0 => bits,
            1 => bits & !(1 << 63),
            _ => bits & ((1 << 53) - 1), // denormals and tiny normals
        })
    }));
    let mut failures = Vec::new();
    for ulps in [0, -1, 1] {
        for &x in &values {
            let got = run_sqrt(&code, x, ulps);
            if !same(got, x.sqrt()) {
                failures.push(format!(
                    "rsq {ulps:+} ulp: sqrt({x:e}) = {got:e}, want {:e}",
                    x.sqrt()
                ));
            }
        }
    }
    assert_no_failures(&failures);
}

/// The limit `fdiv` documents for f32 holds for f64 too: for a divisor whose
/// significand is all ones the exact reciprocal lies just above a midpoint, and a
/// v_rcp_f64 result one ulp low there leaves some quotients one ulp low (LLVM's sequence
/// has the same dependence). With the correctly rounded reciprocal they are exact.
#[test]
fn fdiv_all_ones_divisor_needs_rounded_rcp() {
    let code = fdiv_code(Gen::Gfx8);
    let (a, b) = (
        f64::from_bits(0x0008_0000_0000_0000),
        f64::from_bits(0x001f_ffff_ffff_ffff),
    );
    assert_eq!(run_fdiv(&code, a, b, 0), a / b);
    assert_ne!(run_fdiv(&code, a, b, -1), a / b);
}
