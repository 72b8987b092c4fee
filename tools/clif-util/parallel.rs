//! `clif-util bench --parallel`: how much faster many functions compile on all cores.
//!
//! The workload is every function of the files (by default the benchmark suite,
//! `bench/kernels`), each `--copies` times over, as a shader cache warming hundreds of
//! shaders would hand them to `wavelift::compile_many`. For each target it is compiled
//! once on one thread and once on `--threads`, in turns, `--repeat` rounds; the fastest
//! wall time of each and their ratio, the speed-up, are printed, and the same over all
//! targets.

use crate::bench::{clif_files, read_functions};
use crate::compile::compile_guarded;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use wavelift::{Target, ir};

/// Compares one thread with `threads` on the functions under `roots` for each of `targets`.
pub fn compare(
    roots: &[PathBuf],
    targets: &[String],
    repeat: usize,
    copies: usize,
    threads: usize,
) -> Result<(), String> {
    let mut files = Vec::new();
    for root in roots {
        clif_files(root, &mut files)?;
    }
    let functions = read_functions(&files)?;
    if functions.is_empty() {
        return Err("no functions".into());
    }
    println!(
        "{} functions from {} files, each {copies} times over; wall time, fastest of {repeat} \
         rounds",
        functions.len(),
        files.len()
    );
    println!(
        "  {:<8} {:>9} {:>11} {:>11} {:>9}",
        "target",
        "functions",
        "1 thread",
        if threads == 1 {
            "1 thread".to_string()
        } else {
            format!("{threads} threads")
        },
        "speed-up"
    );
    let (mut one_total, mut many_total) = (Duration::ZERO, Duration::ZERO);
    for name in targets {
        let target = Target::parse(name).map_err(|e| format!("{name}: {e}"))?;
        // Functions that do not compile for this target (error tests) are left out.
        let compiled: Vec<&ir::Function> = functions
            .iter()
            .filter(|(_, func)| compile_guarded(func, &target).is_ok())
            .map(|(_, func)| func)
            .collect();
        let workload: Vec<ir::Function> = (0..copies)
            .flat_map(|_| compiled.iter().map(|&func| func.clone()))
            .collect();
        let (mut one, mut many) = (Duration::MAX, Duration::MAX);
        for _ in 0..repeat {
            one = one.min(time(|| {
                wavelift::compile_many_with_threads(&workload, &target, 1)
            }));
            many = many.min(time(|| {
                wavelift::compile_many_with_threads(&workload, &target, threads)
            }));
        }
        one_total += one;
        many_total += many;
        println!("  {}", row(name, Some(workload.len()), one, many));
    }
    println!("  {}", row("total", None, one_total, many_total));
    Ok(())
}

/// The wall time of `f`, its result dropped after the clock stops.
fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    let result = f();
    let elapsed = start.elapsed();
    drop(std::hint::black_box(result));
    elapsed
}

/// One table row; the total has no function count (targets' functions are not the same).
fn row(name: &str, functions: Option<usize>, one: Duration, many: Duration) -> String {
    let millis = |t: Duration| format!("{:.1} ms", t.as_secs_f64() * 1e3);
    let functions = functions.map(|n| n.to_string()).unwrap_or_default();
    format!(
        "{name:<8} {functions:>9} {:>11} {:>11} {:>8.2}×",
        millis(one),
        millis(many),
        one.as_secs_f64() / many.as_secs_f64()
    )
}
