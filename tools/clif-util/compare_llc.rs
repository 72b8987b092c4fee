//! `clif-util bench --compare-llc`: wavelift's code beside LLVM's for the same kernels.
//!
//! Each `.clif` file of the benchmark suite (`bench/kernels`) holds one kernel (with the
//! device functions it calls, `bench/calls`: counted with it on both sides), and the
//! `.ll` file of the same name its LLVM IR (generated from OpenCL C, `bench/kernels/regen.sh`;
//! written by hand in LLVM's own form for the cross-lane kernels, `docs/perf.md`).
//! Per generation, each kernel is compiled by wavelift (in process) and by `llc-19 -O2`, and
//! the instructions, code bytes, VGPRs, SGPRs (VCC not counted, like LLVM's
//! `.amdhsa_next_free_sgpr`) and compile times are printed side by side with totals and
//! ratios (wavelift / LLVM). llc's time is its fastest run minus the fastest run on an empty
//! module (its start-up); wavelift's is the fastest of as many in-process runs.

use crate::clif_file::ClifFile;
use crate::compile::compile_linked;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use wavelift::Target;
use wavelift::ir;

/// The LLVM code generator compared with; the suite's IR is written for LLVM 19.
const LLC: &str = "llc-19";

/// One compiler's numbers for one kernel.
#[derive(Clone, Copy, Default)]
struct Stats {
    insts: usize,
    bytes: usize,
    vgprs: u32,
    sgprs: u32,
    time: Duration,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.insts += other.insts;
        self.bytes += other.bytes;
        self.vgprs += other.vgprs;
        self.sgprs += other.sgprs;
        self.time += other.time;
    }
}

/// Compares wavelift with llc-19 over the kernels under `roots` for each of `generations`.
pub fn compare(roots: &[PathBuf], generations: &[String], repeat: usize) -> Result<(), String> {
    let mut files = Vec::new();
    for root in roots {
        super::bench::clif_files(root, &mut files)?;
    }
    if files.is_empty() {
        return Err("no .clif files".into());
    }
    let llc = Command::new(LLC).arg("--version").output().is_ok();
    if !llc {
        println!("{LLC} not found: wavelift's numbers only");
    }
    let empty =
        std::env::temp_dir().join(format!("wavelift-bench-empty-{}.ll", std::process::id()));
    std::fs::write(&empty, "target triple = \"amdgcn-amd-amdhsa\"\n")
        .map_err(|e| format!("{}: {e}", empty.display()))?;
    let result = generations.iter().try_for_each(|generation| {
        compare_generation(&files, generation, repeat, llc.then_some(empty.as_path()))
    });
    let _ = std::fs::remove_file(&empty);
    result
}

fn compare_generation(
    files: &[PathBuf],
    generation: &str,
    repeat: usize,
    llc_empty: Option<&Path>,
) -> Result<(), String> {
    let target = Target::parse(generation).map_err(|e| format!("{generation}: {e}"))?;
    let startup = match llc_empty {
        Some(empty) => Some(llc_fastest(empty, generation, repeat)?),
        None => None,
    };
    println!(
        "\n{generation}: wavelift | llc-19 -O2 (time: fastest of {repeat}{})",
        if startup.is_some() {
            ", llc's above its start-up"
        } else {
            ""
        }
    );
    println!(
        "  {:<16} {:>11} {:>11} {:>9} {:>9} {:>17}",
        "kernel", "insts", "bytes", "VGPRs", "SGPRs", "time (µs)"
    );
    let (mut ours_total, mut theirs_total) = (Stats::default(), Stats::default());
    for file in files {
        let (code, time) = compile_bench_kernel(file, &target, repeat)?;
        let gcn = code.gcn().ok_or("not a GCN target")?;
        let ours = Stats {
            insts: wavelift::disassemble(&code.code, &target).len(),
            bytes: code.code.len(),
            vgprs: gcn.vgprs,
            sgprs: gcn.sgprs,
            time,
        };
        ours_total.add(&ours);
        let theirs = match startup {
            Some(startup) => {
                let ll = file.with_extension("ll");
                let mut stats = llc_stats(&ll, generation)?;
                stats.time = llc_fastest(&ll, generation, repeat)?.saturating_sub(startup);
                theirs_total.add(&stats);
                Some(stats)
            }
            None => None,
        };
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        println!("  {}", row(&stem, &ours, theirs.as_ref()));
    }
    let theirs_total = startup.map(|_| theirs_total);
    println!("  {}", row("total", &ours_total, theirs_total.as_ref()));
    if let Some(theirs) = theirs_total {
        let ratio = |a: f64, b: f64| format!("{:.2}×", a / b);
        println!(
            "  {:<16} {:>11} {:>11} {:>9} {:>9} {:>17}",
            "wavelift/llc",
            ratio(ours_total.insts as f64, theirs.insts as f64),
            ratio(ours_total.bytes as f64, theirs.bytes as f64),
            ratio(ours_total.vgprs as f64, theirs.vgprs as f64),
            ratio(ours_total.sgprs as f64, theirs.sgprs as f64),
            ratio(
                ours_total.time.as_secs_f64(),
                theirs.time.as_secs_f64().max(1e-9)
            ),
        );
    }
    Ok(())
}

/// One table row: each column `ours | theirs` (or ours alone without llc).
fn row(name: &str, ours: &Stats, theirs: Option<&Stats>) -> String {
    let pair = |a: String, b: Option<String>| match b {
        Some(b) => format!("{a}|{b}"),
        None => a,
    };
    let micros = |t: Duration| format!("{:.0}", t.as_secs_f64() * 1e6);
    format!(
        "{name:<16} {:>11} {:>11} {:>9} {:>9} {:>17}",
        pair(ours.insts.to_string(), theirs.map(|t| t.insts.to_string())),
        pair(ours.bytes.to_string(), theirs.map(|t| t.bytes.to_string())),
        pair(ours.vgprs.to_string(), theirs.map(|t| t.vgprs.to_string())),
        pair(ours.sgprs.to_string(), theirs.map(|t| t.sgprs.to_string())),
        pair(micros(ours.time), theirs.map(|t| micros(t.time))),
    )
}

fn llc(ll: &Path, generation: &str) -> Command {
    let mut command = Command::new(LLC);
    command.args([
        "-O2",
        "-march=amdgcn",
        &format!("-mcpu={generation}"),
        "-o",
        "-",
    ]);
    command.arg(ll);
    command
}

/// llc's fastest wall-clock time over `repeat` runs on `ll`.
fn llc_fastest(ll: &Path, generation: &str, repeat: usize) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    for _ in 0..repeat {
        let start = Instant::now();
        let output = llc(ll, generation)
            .output()
            .map_err(|e| format!("{LLC}: {e}"))?;
        best = best.min(start.elapsed());
        if !output.status.success() {
            return Err(format!(
                "{LLC} -mcpu={generation} {}: {}",
                ll.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    Ok(best)
}

/// Compiles `ll` once and reads the kernel's numbers from llc's assembly: the instruction
/// lines of the function body, and the `codeLenInByte`, `NumVgprs` and
/// `.amdhsa_next_free_sgpr` (or `NumSgprs`) it reports.
fn llc_stats(ll: &Path, generation: &str) -> Result<Stats, String> {
    let output = llc(ll, generation)
        .output()
        .map_err(|e| format!("{LLC}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{LLC} -mcpu={generation} {}: {}",
            ll.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse_llc_asm(&String::from_utf8_lossy(&output.stdout))
        .ok_or_else(|| format!("{}: cannot read llc's statistics", ll.display()))
}

fn parse_llc_asm(asm: &str) -> Option<Stats> {
    let number = |key: &str| -> Option<u64> {
        asm.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|rest| rest.trim_start_matches([' ', '=', ':']).trim().parse().ok())
    };
    // The bodies of every function (a kernel and the device functions it calls): from a
    // function label to its `.Lfunc_end`, instructions being the indented lines that are
    // not directives or comments.
    let mut in_body = false;
    let mut insts = 0;
    for line in asm.lines() {
        if !in_body {
            in_body = !line.starts_with(['.', '\t', ' ', ';']) && line.contains(':');
            continue;
        }
        if line.starts_with(".Lfunc_end") {
            in_body = false;
            continue;
        }
        let t = line.trim();
        if line.starts_with('\t') && !t.is_empty() && !t.starts_with(['.', ';']) {
            insts += 1;
        }
    }
    // Each function's code bytes, and the VGPRs of the one using most (a kernel's count
    // covers its callees').
    let all = |key: &str| -> Vec<u64> {
        asm.lines()
            .filter_map(|l| l.trim().strip_prefix(key))
            .filter_map(|rest| rest.trim_start_matches([' ', '=', ':']).trim().parse().ok())
            .collect()
    };
    Some(Stats {
        insts,
        bytes: all("; codeLenInByte").iter().sum::<u64>() as usize,
        vgprs: all("; NumVgprs").into_iter().max()? as u32,
        // A kernel's `.amdhsa_next_free_sgpr`; a graphics shader (`amdgpu_ps`) has no
        // kernel descriptor, only `NumSgprs`, which counts VCC and XNACK's pair too.
        sgprs: number(".amdhsa_next_free_sgpr").or_else(|| number("; NumSgprs"))? as u32,
        time: Duration::ZERO,
    })
}

/// A benchmark file's one kernel compiled for `target`, with the fastest of `repeat`
/// compile times: what `--compare-llc` and `--compare-nouveau` put beside their peer.
pub fn compile_bench_kernel(
    file: &Path,
    target: &Target,
    repeat: usize,
) -> Result<(wavelift::CompiledCode, Duration), String> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| format!("{name}: {e}"))?;
    let parsed = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
    let module: Vec<ir::Function> = parsed.functions.iter().map(|f| f.func.clone()).collect();
    let mut kernels = module
        .iter()
        .filter(|f| wavelift::FunctionKind::of(&f.signature) == Ok(wavelift::FunctionKind::Kernel));
    let (Some(func), None) = (kernels.next(), kernels.next()) else {
        return Err(format!(
            "{name}: a benchmark file holds one kernel (and the device functions it calls)"
        ));
    };
    // The kernel linked with the functions it calls: all the code it runs.
    let code = compile_linked(func, &module, target).map_err(|e| format!("{name}: {e}"))?;
    let mut time = Duration::MAX;
    for _ in 0..repeat {
        let start = Instant::now();
        for f in &module {
            std::hint::black_box(wavelift::compile(f, target).ok());
        }
        time = time.min(start.elapsed());
    }
    Ok((code, time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_llc_statistics() {
        let asm = "\t.text\n\t.globl\tk\nk:                                      ; @k\n; %bb.0:\n\
                   \ts_load_dword s0, s[4:5], 0x4\n\ts_waitcnt lgkmcnt(0)\n.LBB0_1:\n\
                   \ts_endpgm\n.Lfunc_end0:\n\t.size\tk, .Lfunc_end0-k\n\
                   ; codeLenInByte = 16\n; NumVgprs: 3\n\t\t.amdhsa_next_free_sgpr 10\n";
        let stats = parse_llc_asm(asm).unwrap();
        assert_eq!(
            (stats.insts, stats.bytes, stats.vgprs, stats.sgprs),
            (3, 16, 3, 10)
        );
    }
}
