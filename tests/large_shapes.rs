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

/// [`lanes`] with `x` below `limit`: a nest's level `l` repeats when bit `l` of `x` is
/// set, so only the outer levels repeat and the run stays short.
fn lanes_deciding_below(limit: i32) -> Vec<LaneInputs> {
    lanes()
        .into_iter()
        .enumerate()
        .map(|(lane, mut inputs)| {
            inputs.args[0] = DataValue::I32(lane as i32 % limit);
            inputs
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
    run(Shape::DivergentNest, 800, &lanes_deciding_below(16));
}

/// Loop nests one after another reuse the registers of the ones before: what one loop
/// collects (its exit's lane mask, the values leaving it) starts just before that loop,
/// not at the function's entry. Before, every sequential divergent loop kept an SGPR pair
/// and VGPRs for the whole function, and 100 nests of 10 loops ran out of registers.
#[test]
fn sequential_loop_nests_reuse_registers() {
    let registers = |size: usize| {
        let compiled = wavelift::compile_function(&Shape::DivergentNest.build(size), &target())
            .unwrap_or_else(|e| panic!("nests at {size}: {e}"));
        let gcn = compiled.gcn().unwrap();
        (gcn.sgprs, gcn.vgprs)
    };
    // Two nests of 10, then ten: the same registers.
    assert_eq!(registers(2000), registers(10_000));
    // Ten sequential nests, each with its inner loops, run as the interpreter does.
    run(Shape::DivergentNest, 3000, &lanes_deciding_below(8));
}

/// A divergent `br_table` with more targets than there are places for their lane masks
/// is a register-exhaustion error, not a panic (it was an index out of bounds after the
/// mask-slot VGPR numbers wrapped around).
#[test]
fn too_many_lane_masks_is_an_error() {
    let err = wavelift::compile(&Shape::DivergentBrTable.build(10_000), &target()).unwrap_err();
    assert!(err.reason.starts_with("register exhaustion"), "{err}");
}
