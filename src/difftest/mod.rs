//! Differential testing: random CLIF functions, compiled and run on the GCN simulator with
//! different random inputs in every lane, compared lane by lane with
//! `cranelift-interpreter` (`docs/testing.md`).
//!
//! - `generate.rs`: the random function generator (`generate`, `GenConfig`);
//! - `values.rs`: edge values, random inputs, the dword encoding of arguments;
//! - `specified.rs`: which result bits CLIF specifies (NaN payloads are not);
//! - the reference is `cranelift-interpreter` through `sim::harness::interpret`;
//! - `fuzz.rs`: the no-panic check of the fuzz target and its stable smoke test;
//! - `shapes.rs`: large functions of given control-flow shapes, for scaling measurements;
//! - `run.rs`: one case on the simulator, as a device function and as a kernel
//!   ([`run_case`], [`Mismatch`]);
//! - this file: campaigns of many cases from one seed ([`campaign`], [`Summary`]).

pub mod fuzz;
mod generate;
mod run;
pub mod shapes;
mod specified;
mod values;

pub use crate::sim::harness::{Reference, interpret, interpret_in};
pub use generate::{GenConfig, Profile, VALUE_TYPES, generate, generate_module, supported_opcodes};
pub use run::{
    LaneInputs, Mismatch, MismatchKind, Outcome, RunOptions, Variant, kernel_of, param_block,
    run_case, run_case_with, run_line,
};
pub use specified::{Spec, return_specs};
pub use values::{F32_EDGES, F64_EDGES, SplitMix64, int_edges, random_value};

use crate::Target;
use crate::ir::Function;
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// How a campaign runs.
#[derive(Clone, Debug)]
pub struct CampaignOptions {
    pub generator: GenConfig,
    pub run: RunOptions,
    /// Input sets per function (lanes of the wave, at most 64).
    pub lanes: usize,
    /// Worker threads (cases are independent; the results do not depend on this).
    pub threads: usize,
    /// The index of the first case (with `count`, selects a range of a seed's cases).
    pub start: u64,
    /// Bytes of generator input per function.
    pub bytes_per_function: usize,
    /// Go on after a mismatch, collecting up to this many in [`Summary::mismatches`]
    /// (0: stop at the first, returning it as the error).
    pub keep_going: usize,
}

impl Default for CampaignOptions {
    fn default() -> Self {
        CampaignOptions {
            generator: GenConfig::default(),
            run: RunOptions::default(),
            lanes: 64,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            start: 0,
            bytes_per_function: 1024,
            keep_going: 0,
        }
    }
}

/// Counts from a campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub target: String,
    pub functions: u64,
    pub devices_compiled: u64,
    pub kernels_compiled: u64,
    pub lanes_compared: u64,
    /// Lanes not compared because the interpreter trapped there.
    pub lanes_trapped: u64,
    pub kernel_runs_compared: u64,
    pub kernel_runs_trapped: u64,
    pub sim_instructions: u64,
    /// Compile errors by reason (`device: …`, `kernel: …`): gaps in the backend.
    pub compile_errors: BTreeMap<String, u64>,
    /// The first case index that met each compile error (reproduce with
    /// `clif-util difftest --seed S --start I --count 1 --print`).
    pub first_case_of_error: BTreeMap<String, u64>,
    pub elapsed: Duration,
    /// Mismatches found when the campaign goes on after them
    /// ([`CampaignOptions::keep_going`]).
    pub mismatches: Vec<Box<Mismatch>>,
}

impl Summary {
    fn add(&mut self, index: u64, outcome: &Outcome) {
        self.functions += 1;
        self.devices_compiled += outcome.device_compiled as u64;
        self.kernels_compiled += outcome.kernel_compiled as u64;
        self.lanes_compared += outcome.lanes_compared;
        self.lanes_trapped += outcome.lanes_trapped;
        self.kernel_runs_compared += outcome.kernel_runs_compared;
        self.kernel_runs_trapped += outcome.kernel_runs_trapped;
        self.sim_instructions += outcome.sim_instructions;
        for (variant, error) in &outcome.compile_errors {
            let variant = match variant {
                Variant::Device => "device",
                Variant::Kernel => "kernel",
            };
            let reason = error.reason.lines().next().unwrap_or_default();
            let key = format!("{variant}: {reason}");
            self.first_case_of_error.entry(key.clone()).or_insert(index);
            *self.compile_errors.entry(key).or_default() += 1;
        }
    }

    pub fn functions_per_second(&self) -> f64 {
        self.functions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} functions in {:.1} s ({:.0} functions/s)",
            self.target,
            self.functions,
            self.elapsed.as_secs_f64(),
            self.functions_per_second()
        )?;
        writeln!(
            f,
            "  compiled: {} device functions, {} kernels",
            self.devices_compiled, self.kernels_compiled
        )?;
        writeln!(
            f,
            "  compared: {} lanes ({} skipped: the interpreter trapped), {} kernel launches \
             ({} skipped)",
            self.lanes_compared,
            self.lanes_trapped,
            self.kernel_runs_compared,
            self.kernel_runs_trapped
        )?;
        writeln!(f, "  simulated: {} instructions", self.sim_instructions)?;
        if !self.mismatches.is_empty() {
            writeln!(f, "  MISMATCHES: {}", self.mismatches.len())?;
        }
        if self.compile_errors.is_empty() {
            writeln!(f, "  compile errors: none")?;
        } else {
            let total: u64 = self.compile_errors.values().sum();
            writeln!(f, "  compile errors (backend gaps): {total}")?;
            for (reason, n) in &self.compile_errors {
                let first = self.first_case_of_error[reason];
                writeln!(f, "    {n:>7}  {reason} (first: case {first})")?;
            }
        }
        Ok(())
    }
}

/// A case's index and what it gave.
type CaseResult = (u64, Result<Outcome, Box<Mismatch>>);

/// The seed of case `index` of a campaign with `seed`.
fn case_seed(seed: u64, index: u64) -> u64 {
    SplitMix64::new(seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03)).next_u64()
}

/// Case `index` of a campaign with `seed`: the function, the device functions it calls,
/// and its lanes' inputs.
pub fn case(
    seed: u64,
    index: u64,
    options: &CampaignOptions,
) -> (Function, Vec<Function>, Vec<LaneInputs>) {
    let mut rng = SplitMix64::new(case_seed(seed, index));
    let mut bytes = vec![0; options.bytes_per_function];
    rng.fill(&mut bytes);
    let mut u = arbitrary::Unstructured::new(&bytes);
    let (func, callees) = generate_module(&mut u, &options.generator)
        .expect("the generator makes a function from any input, even an exhausted one");
    let params: Vec<_> = func.signature.params.iter().map(|p| p.value_type).collect();
    let lanes = (0..options.lanes.clamp(1, 64))
        .map(|_| LaneInputs {
            args: params
                .iter()
                .map(|&ty| random_value(&mut rng, ty))
                .collect(),
            noise: rng.next_u32(),
        })
        .collect();
    (func, callees, lanes)
}

/// Runs cases `options.start .. options.start + count` of `seed` on `target`, calling
/// `progress` after every chunk of cases. Stops at the first mismatch (the one of the
/// lowest case index, whatever the number of threads).
pub fn campaign(
    target: &Target,
    seed: u64,
    count: u64,
    options: &CampaignOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Result<Summary, Box<Mismatch>> {
    let started = Instant::now();
    let mut summary = Summary {
        target: target.cpu.clone(),
        ..Summary::default()
    };
    let threads = options.threads.max(1) as u64;
    let chunk = 32 * threads;
    let end = options.start + count;
    let mut next = options.start;
    while next < end {
        let chunk_end = (next + chunk).min(end);
        let results: Vec<Vec<CaseResult>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        (next + t..chunk_end)
                            .step_by(threads as usize)
                            .map(|index| {
                                let (func, callees, lanes) = case(seed, index, options);
                                (
                                    index,
                                    run_case_with(&func, &callees, target, &lanes, &options.run),
                                )
                            })
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("worker threads catch panics"))
                .collect()
        });
        let mut results: Vec<_> = results.into_iter().flatten().collect();
        results.sort_by_key(|(index, _)| *index);
        for (index, result) in results {
            match result {
                Ok(outcome) => summary.add(index, &outcome),
                Err(mut mismatch) => {
                    mismatch.case = Some((seed, index));
                    if options.keep_going == 0 {
                        return Err(mismatch);
                    }
                    summary.functions += 1;
                    summary.mismatches.push(mismatch);
                }
            }
        }
        if options.keep_going > 0 && summary.mismatches.len() >= options.keep_going {
            break;
        }
        summary.elapsed = started.elapsed();
        progress(&summary);
        next = chunk_end;
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}
