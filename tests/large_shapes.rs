//! Large functions of each control-flow shape of `clif-util bench --scaling`
//! (`wavelift::difftest::shapes`) compile, and some run on the simulator with the results
//! of `cranelift-interpreter`. Compile time is measured by the bench, never asserted here;
//! before the analyses were made near-linear, the 3,000-block uniform chain alone took
//! about 30 s to compile.

use cranelift_codegen::data_value::DataValue;
use wavelift::Target;
use wavelift::difftest::shapes::Shape;
use wavelift::difftest::{LaneInputs, run_case};

fn target() -> Target {
    Target::parse("gfx803").unwrap()
}

/// Sizes that compile within the hardware's registers and branch range.
fn size(shape: Shape) -> usize {
    match shape {
        Shape::Straight | Shape::DivergentLoop => 5000,
        Shape::UniformChain | Shape::DivergentChain | Shape::UniformBrTable => 3000,
        // Depth 10 (a counter a level; a divergent level also holds lane masks).
        Shape::DivergentNest | Shape::UniformNest => 1000,
        // Every target holds a lane mask for the whole table (see docs/testing.md).
        Shape::DivergentBrTable => 20,
    }
}

#[test]
fn every_shape_compiles_at_size() {
    for shape in Shape::ALL {
        let func = shape.build(size(shape));
        if let Err(e) = wavelift::compile(&func, &target()) {
            panic!("{} at {}: {e}", shape.name(), size(shape));
        }
    }
}

/// Arguments whose bits pick each way of the branches: `x` decides, `y` is data.
fn lanes() -> Vec<LaneInputs> {
    (0..64u32)
        .map(|lane| LaneInputs {
            args: vec![
                DataValue::I32((lane.wrapping_mul(0x9e37_79b9) >> (lane % 5)) as i32),
                DataValue::I32(lane as i32 * 7 + 1),
            ],
            noise: 0,
        })
        .collect()
}

/// Runs `shape` at `size` as a device function (divergent) and as a kernel (uniform) on
/// the simulator and compares every lane with the interpreter.
fn run(shape: Shape, size: usize, lanes: &[LaneInputs]) {
    let func = shape.build(size);
    let outcome = run_case(&func, &target(), lanes).unwrap_or_else(|m| panic!("{m}"));
    assert!(
        outcome.compile_errors.is_empty(),
        "{}: {:?}",
        shape.name(),
        outcome.compile_errors
    );
    assert_eq!(
        outcome.lanes_compared,
        lanes.len() as u64,
        "{}",
        shape.name()
    );
}

#[test]
fn large_chain_runs() {
    run(Shape::DivergentChain, 2000, &lanes());
}

#[test]
fn large_loop_runs() {
    run(Shape::DivergentLoop, 2000, &lanes());
}

#[test]
fn loop_nest_runs() {
    // Depth 8: each level runs once or twice by a bit of `x`; keep `x` below 16 so that
    // at most the four outer levels repeat.
    let lanes: Vec<LaneInputs> = lanes()
        .into_iter()
        .enumerate()
        .map(|(lane, mut inputs)| {
            inputs.args[0] = DataValue::I32(lane as i32 % 16);
            inputs
        })
        .collect();
    run(Shape::DivergentNest, 800, &lanes);
}
