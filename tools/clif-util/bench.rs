//! `clif-util bench`: how fast the compiler is and how much memory it takes, over the
//! functions of `.clif` files (by default every filetest for GCN).

use crate::clif_file::ClifFile;
use crate::compile::compile_guarded;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use wavelift::{Target, ir};

/// Measure compile speed and memory over the functions of .clif files.
///
/// Compiles every function of the files (directories are searched for `.clif` files)
/// `--repeat` times and prints, from the fastest round: the time per function and per
/// CLIF instruction, code bytes produced per second, the peak heap a single compilation
/// needs and the allocations it makes, and the slowest functions. Functions that do not
/// compile (error tests) are counted and skipped.
#[derive(clap::Args)]
pub struct Args {
    /// .clif files or directories [default: filetests/gcn, or bench/kernels with
    /// --compare-llc or --compare-nouveau].
    paths: Vec<PathBuf>,

    /// The target CPU name or triple and CPU name.
    #[arg(long, short, default_value = "gfx803")]
    target: String,

    /// Rounds over all functions; the fastest round is reported.
    #[arg(long, default_value_t = 10)]
    repeat: usize,

    /// How many of the slowest functions to list.
    #[arg(long, default_value_t = 5)]
    slowest: usize,

    /// Instead of files: generated functions of each control-flow shape at each of
    /// `--sizes`, with compile time, peak heap and their growth from one size to the next.
    #[arg(long)]
    scaling: bool,

    /// Instead of compile speed alone: the kernels of the benchmark suite (each `.clif`
    /// beside its LLVM IR `.ll`), compiled by wavelift and by `llc-19 -O2` for each of
    /// `--generations`, their instructions, bytes, registers and compile times side by side
    /// (docs/perf.md). The paths default to `bench/kernels`.
    #[arg(long, conflicts_with = "compare_nouveau")]
    compare_llc: bool,

    /// Instead of compile speed alone: the kernels of the benchmark suite (each `.clif`
    /// beside its TGSI `.tgsi`), compiled by wavelift and by Mesa's `nouveau_compiler` (the
    /// program at this path) for each of `--generations` (NV50 chips), their instructions,
    /// bytes, `$r` count and compile times side by side (docs/perf.md). The paths default
    /// to `bench/kernels`.
    #[arg(long, value_name = "NOUVEAU_COMPILER")]
    compare_nouveau: Option<PathBuf>,

    /// Instead of compile speed per function: the functions compiled, `--copies` times
    /// over, once on one thread and once on `--threads` threads (`wavelift::compile_many`),
    /// for each of `--generations`: both wall times and the speed-up (docs/perf.md). The
    /// paths default to `bench/kernels`.
    #[arg(long, conflicts_with_all = ["compare_llc", "compare_nouveau", "scaling"])]
    parallel: bool,

    /// With `--parallel`: how many times each function is in the workload (a shader cache
    /// warms hundreds of shaders, not thirteen).
    #[arg(long, default_value_t = 40)]
    copies: usize,

    /// With `--parallel`: the threads to compile on [default: the cores the system offers].
    #[arg(long)]
    threads: Option<usize>,

    /// The GCN generations for `--compare-llc` [default: gfx600,gfx700,gfx803,gfx900], the
    /// NV50 chips for `--compare-nouveau` [default: nv50,gt200], or the targets for
    /// `--parallel` [default: gfx600,gfx700,gfx803,gfx900,nv50,gt200].
    #[arg(long, value_delimiter = ',')]
    generations: Vec<String>,

    /// Sizes for `--scaling` (instructions or blocks, as the shape says).
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    sizes: Vec<usize>,

    /// Only these shapes for `--scaling` (a part of the name: `straight`, `uniform if`, …).
    #[arg(long)]
    shape: Vec<String>,

    /// With `--scaling`, a shape's next size is skipped when its compile time, predicted
    /// from the growth so far (at least linear), is more than this many seconds.
    #[arg(long, default_value_t = 60.0)]
    time_limit: f64,
}

/// The global allocator of clif-util: the system allocator, counting live bytes, their
/// peak and allocations while [`measure_memory`] runs, so that `bench` can report a
/// compilation's memory.
pub struct Counting;

// Counting is off but while `measure_memory` runs: the counters are shared by every thread,
// and an atomic update of them on each allocation would make threads compiling in parallel
// (`bench --parallel`) wait for each other's cache lines. Off, an allocation only reads
// `COUNTING`, which no thread writes meanwhile.
static COUNTING: AtomicBool = AtomicBool::new(false);
// Live bytes since counting started: frees of older blocks make it negative.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

fn grow(bytes: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let live = LIVE.fetch_add(bytes as isize, Ordering::Relaxed) + bytes as isize;
        PEAK.fetch_max(live, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

fn shrink(bytes: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_sub(bytes as isize, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` with the same arguments; the counters do not
// touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrink(layout.size());
        grow(new_size);
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Peak live heap above what was live at the start, and allocations, while `f` runs (on
/// this thread alone: the counters would mix other threads' allocations in).
fn measure_memory<T>(f: impl FnOnce() -> T) -> (T, usize, u64) {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::SeqCst);
    let result = f();
    COUNTING.store(false, Ordering::SeqCst);
    (
        result,
        PEAK.load(Ordering::Relaxed) as usize,
        ALLOCATIONS.load(Ordering::Relaxed),
    )
}

pub(crate) fn clif_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() || entry.extension().is_some_and(|x| x == "clif") {
                clif_files(&entry, out)?;
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// Every function of `files`, each with its name for reports (`FILE: %name`).
pub(crate) fn read_functions(files: &[PathBuf]) -> Result<Vec<(String, ir::Function)>, String> {
    let mut functions = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| format!("{name}: {e}"))?;
        let parsed = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
        for f in parsed.functions {
            functions.push((format!("{name}: {}", f.func.name), f.func));
        }
    }
    Ok(functions)
}

struct Sample {
    name: String,
    insts: usize,
    best: Duration,
    code_bytes: usize,
    peak: usize,
    allocations: u64,
}

pub fn run(args: Args) -> ExitCode {
    match bench(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn bench(args: &Args) -> Result<(), String> {
    if args.compare_llc || args.compare_nouveau.is_some() || args.parallel {
        let roots = if args.paths.is_empty() {
            vec![PathBuf::from("bench/kernels")]
        } else {
            args.paths.clone()
        };
        let targets = |default: &[&str]| -> Vec<String> {
            if args.generations.is_empty() {
                default.iter().map(|g| g.to_string()).collect()
            } else {
                args.generations.clone()
            }
        };
        let repeat = args.repeat.max(1);
        if args.parallel {
            let threads = args
                .threads
                .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
                .unwrap_or(1);
            return crate::parallel::compare(
                &roots,
                &targets(&["gfx600", "gfx700", "gfx803", "gfx900", "nv50", "gt200"]),
                repeat,
                args.copies.max(1),
                threads,
            );
        }
        return match &args.compare_nouveau {
            Some(nouveau) => crate::compare_nouveau::compare(
                &roots,
                &targets(&["nv50", "gt200"]),
                repeat,
                nouveau,
            ),
            None => crate::compare_llc::compare(
                &roots,
                &targets(&["gfx600", "gfx700", "gfx803", "gfx900"]),
                repeat,
            ),
        };
    }
    let target = Target::parse(&args.target).map_err(|e| format!("--target: {e}"))?;
    if args.scaling {
        return scaling(args, &target);
    }
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from("filetests/gcn")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for root in &roots {
        clif_files(root, &mut files)?;
    }
    let functions = read_functions(&files)?;
    // One untimed round finds the functions that compile and their memory.
    let mut samples = Vec::new();
    let mut skipped = 0;
    for (name, func) in &functions {
        let (result, peak, allocations) = measure_memory(|| compile_guarded(func, &target));
        match result {
            Ok(code) => samples.push(Sample {
                name: name.clone(),
                insts: func.dfg.num_insts(),
                best: Duration::MAX,
                code_bytes: code.code.len(),
                peak,
                allocations,
            }),
            Err(_) => skipped += 1,
        }
    }
    let compiled: Vec<&ir::Function> = functions
        .iter()
        .filter(|(name, _)| samples.iter().any(|s| &s.name == name))
        .map(|(_, f)| f)
        .collect();
    let mut best_round = Duration::MAX;
    for _ in 0..args.repeat.max(1) {
        let round = Instant::now();
        for (sample, func) in samples.iter_mut().zip(&compiled) {
            let start = Instant::now();
            let code = wavelift::compile(func, &target);
            sample.best = sample.best.min(start.elapsed());
            std::hint::black_box(code.ok());
        }
        best_round = best_round.min(round.elapsed());
    }
    if samples.is_empty() {
        return Err("no function compiled".into());
    }
    let insts: usize = samples.iter().map(|s| s.insts).sum();
    let bytes: usize = samples.iter().map(|s| s.code_bytes).sum();
    let secs = best_round.as_secs_f64();
    println!(
        "{} functions from {} files for {} ({} did not compile and are left out)",
        samples.len(),
        files.len(),
        args.target,
        skipped
    );
    println!(
        "fastest of {} rounds: {:.2} ms, {:.1} µs per function, {:.2} µs per CLIF instruction",
        args.repeat.max(1),
        secs * 1e3,
        secs * 1e6 / samples.len() as f64,
        secs * 1e6 / insts as f64
    );
    println!(
        "throughput: {:.0} CLIF instructions/s, {:.0} KB of code/s ({} CLIF instructions, {} \
         code bytes)",
        insts as f64 / secs,
        bytes as f64 / secs / 1e3,
        insts,
        bytes
    );
    let max_peak = samples.iter().map(|s| s.peak).max().unwrap_or(0);
    let mean_peak = samples.iter().map(|s| s.peak).sum::<usize>() / samples.len();
    let mean_allocs = samples.iter().map(|s| s.allocations).sum::<u64>() / samples.len() as u64;
    println!(
        "memory per compilation: peak heap {:.1} KB mean, {:.1} KB max; {} allocations mean",
        mean_peak as f64 / 1e3,
        max_peak as f64 / 1e3,
        mean_allocs
    );
    samples.sort_by_key(|s| std::cmp::Reverse(s.best));
    println!("slowest functions:");
    for s in samples.iter().take(args.slowest) {
        println!(
            "  {:>8.1} µs  {:>5} insts  {:>7.1} KB peak  {}",
            s.best.as_secs_f64() * 1e6,
            s.insts,
            s.peak as f64 / 1e3,
            s.name
        );
    }
    Ok(())
}

/// `--scaling`: each shape of `wavelift::difftest::shapes` at each size, once for memory
/// and time, then again while the repeats take less than a second, keeping the fastest.
fn scaling(args: &Args, target: &Target) -> Result<(), String> {
    use wavelift::difftest::shapes::Shape;
    let shapes: Vec<Shape> = Shape::ALL
        .into_iter()
        .filter(|s| args.shape.is_empty() || args.shape.iter().any(|w| s.name().contains(w)))
        .collect();
    if shapes.is_empty() {
        return Err("--shape matches none of the shapes".into());
    }
    println!(
        "compile time and peak heap by size on {}; growth: the factor from the previous size \
         and its exponent (1: linear; n log n from 1k to 10k is about 1.3)",
        args.target
    );
    for shape in shapes {
        println!("{} (size in {}):", shape.name(), shape.unit());
        println!(
            "  {:>8} {:>8} {:>8} {:>10} {:>16} {:>10} {:>16}",
            "size", "insts", "blocks", "time", "growth", "peak heap", "growth"
        );
        let mut previous: Option<(usize, f64, usize)> = None;
        let mut exponent = 1.0f64;
        for (k, &size) in args.sizes.iter().enumerate() {
            let func = shape.build(size);
            let insts = func.dfg.num_insts();
            let blocks = func.layout.blocks().count();
            let start = Instant::now();
            let (result, peak, _) = measure_memory(|| compile_guarded(&func, target));
            let mut best = start.elapsed();
            if let Err(e) = result {
                let reason = e.lines().next().unwrap_or_default().to_string();
                println!("  {size:>8} {insts:>8} {blocks:>8}  error after {best:.1?}: {reason}");
                break;
            }
            let mut spent = best;
            while spent < Duration::from_secs(1) {
                let start = Instant::now();
                std::hint::black_box(wavelift::compile(&func, target).ok());
                best = best.min(start.elapsed());
                spent += start.elapsed();
            }
            let secs = best.as_secs_f64();
            let growth = |now: f64, before: f64, n_before: usize| {
                let factor = now / before;
                let exponent = factor.ln() / (size as f64 / n_before as f64).ln();
                format!("×{factor:.1} (n^{exponent:.2})")
            };
            let (time_growth, peak_growth) = match previous {
                Some((n, t, p)) => {
                    exponent = exponent.max((secs / t).ln() / (size as f64 / n as f64).ln());
                    (growth(secs, t, n), growth(peak as f64, p as f64, n))
                }
                None => (String::new(), String::new()),
            };
            println!(
                "  {size:>8} {insts:>8} {blocks:>8} {:>8.3} s {time_growth:>16} {:>7.1} MB {peak_growth:>16}",
                secs,
                peak as f64 / 1e6,
            );
            previous = Some((size, secs, peak));
            if let Some(&next) = args.sizes.get(k + 1) {
                let predicted = secs * (next as f64 / size as f64).powf(exponent);
                if predicted > args.time_limit {
                    println!(
                        "  {next:>8} skipped: about {predicted:.0} s predicted, over --time-limit"
                    );
                    break;
                }
            }
        }
    }
    Ok(())
}
