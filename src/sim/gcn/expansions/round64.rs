//! Checks the gfx6 expansion of the f64 roundings (`Inst::RoundF64`): the emitted gfx6 MC
//! instructions run one lane at a time through the simulator's VALU semantics
//! (`sim::gcn::valu::exec`), compared bit for bit with Rust's `trunc`, `floor`, `ceil`
//! and `round_ties_even` (any NaN for a NaN) over edge values and random inputs.

use crate::isa::gcn::emit::lower_to_mc;
use crate::isa::gcn::inst::Inst;
use crate::isa::gcn::mc::{Gen, McInst, Op, Operand};
use crate::machinst::{Reg, RegClass};
use crate::sim::gcn::valu::{LaneInputs, exec};

fn pair(hw: u16) -> Reg {
    Reg::Real {
        file: crate::isa::gcn::regs::VGPR,
        class: RegClass::Float,
        hw,
    }
}

/// Runs `code` in one lane with v[2:3] = x; returns v[0:1].
fn run(code: &[McInst], x: f64) -> f64 {
    let mut v = [0xdead_beefu32; 16];
    let mut vcc = false;
    v[2] = x.to_bits() as u32;
    v[3] = (x.to_bits() >> 32) as u32;
    for inst in code {
        let info = inst.op.info();
        let mut input = LaneInputs {
            mask_in: vcc,
            ..LaneInputs::default()
        };
        for i in 0..3 {
            let Some(o) = inst.src[i] else { continue };
            input.src[i] = match o.0 {
                256..=511 => {
                    let r = o.0 as usize - 256;
                    let lo = v[r] as u64;
                    if info.src[i] == 2 {
                        lo | (v[r + 1] as u64) << 32
                    } else {
                        lo
                    }
                }
                128..=192 => o.0 as u64 - 128,
                193..=208 => (192 - o.0 as i32) as u32 as u64,
                255 => inst.literal.expect("a literal") as u64,
                106 => 0, // VCC as a lane mask: `mask_in`
                _ => panic!("operand {o:?} is not modelled"),
            };
        }
        let out = exec(inst, Gen::Gfx6, &input).unwrap();
        if let Some(d) = inst.dst {
            let r = d.0 as usize - 256;
            v[r] = out.dst as u32;
            if info.dst == 2 {
                v[r + 1] = (out.dst >> 32) as u32;
            }
        }
        if inst.sdst == Some(Operand::VCC) {
            vcc = out.sdst;
        }
    }
    assert_eq!(
        (v[3] as u64) << 32 | v[2] as u64,
        x.to_bits(),
        "source kept"
    );
    f64::from_bits((v[1] as u64) << 32 | v[0] as u64)
}

fn code(op: Op) -> Vec<McInst> {
    let inst = Inst::RoundF64 {
        op,
        dst: pair(0),
        src: pair(2),
        tmp: [pair(4), pair(6)],
    };
    lower_to_mc(&[inst], Gen::Gfx6).unwrap()
}

fn inputs() -> Vec<f64> {
    let mut values: Vec<f64> = vec![
        0.0,
        0.5,
        1.0,
        1.5,
        2.5,
        3.5,
        0.49999999999999994,
        0.5000000000000001,
        1e-310,
        4.9e-324,
        2.2250738585072014e-308,
        4503599627370495.5,
        4503599627370496.0,
        4503599627370497.0,
        2251799813685247.5,
        9007199254740993.0,
        1e300,
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
        123456.789,
        1048575.5,
        1048576.5,
        2147483647.5,
        4294967296.5,
    ];
    let mut state = 0x1234_5678_9abc_def0u64;
    for i in 0..200_000 {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
        // Every third value has an exponent near the fraction boundaries (2^-1 .. 2^53).
        let bits = if i % 3 == 0 {
            bits & 0x800f_ffff_ffff_ffff | (1022 + bits % 56) << 52
        } else {
            bits
        };
        values.push(f64::from_bits(bits));
    }
    let negatives: Vec<f64> = values.iter().map(|x| -x).collect();
    values.extend(negatives);
    values
}

/// An f64 rounding and its reference.
type Case = (Op, fn(f64) -> f64);

#[test]
fn gfx6_roundings_are_exact() {
    let cases: [Case; 4] = [
        (Op::VTruncF64, f64::trunc),
        (Op::VFloorF64, f64::floor),
        (Op::VCeilF64, f64::ceil),
        (Op::VRndneF64, f64::round_ties_even),
    ];
    let values = inputs();
    for (op, reference) in cases {
        let code = code(op);
        for &x in &values {
            let (got, want) = (run(&code, x), reference(x));
            let ok = if want.is_nan() {
                got.is_nan()
            } else {
                got.to_bits() == want.to_bits()
            };
            assert!(ok, "{op:?}({x:e}) = {got:e}, want {want:e}");
        }
    }
}
