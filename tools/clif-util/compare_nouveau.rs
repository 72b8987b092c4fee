//! `clif-util bench --compare-nouveau PATH`: wavelift's NV50 code beside Mesa's nv50_ir
//! (nouveau's compiler for Tesla) for the same kernels.
//!
//! Each `.clif` file of the benchmark suite (`bench/kernels`) may have a `.tgsi` file of the
//! same name: the kernel as a TGSI compute shader, which Mesa's standalone
//! `nouveau_compiler` (built beside the project: `docs/perf.md`) compiles with
//! `-a <chipset>`. Per chip, each kernel is compiled by wavelift (in process) and by
//! `nouveau_compiler`, and the instructions, code bytes, `$r` count and compile times are
//! printed side by side with totals and ratios (wavelift / nouveau). A kernel without a
//! `.tgsi` file (one TGSI cannot express) is listed with wavelift's numbers and left out of
//! both totals.
//!
//! nouveau_compiler prints the code as hexadecimal words; they are decoded with wavelift's
//! own NV50 decoder, which counts the instructions and the registers by the rule wavelift's
//! [`Nv50Info::gprs`](wavelift::nv50::Nv50Info::gprs) follows, and nouveau's `max_gpr` too:
//! the highest `$r` the code defines plus one, at least 4 (which covers `$r0`, the thread
//! ids at entry). A register the code only reads is one nouveau reads as zero (`$r63`,
//! above the count), so it is not counted. nouveau_compiler's time is its fastest run minus
//! its fastest run on an empty kernel (its start-up).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use wavelift::isa::nv50::mc::{self, McInst, Operand, Variant};
use wavelift::{Arch, Target};

/// One compiler's numbers for one kernel.
#[derive(Clone, Copy, Default)]
struct Stats {
    insts: usize,
    bytes: usize,
    gprs: u32,
    time: Duration,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.insts += other.insts;
        self.bytes += other.bytes;
        self.gprs += other.gprs;
        self.time += other.time;
    }
}

/// A TGSI compute shader with nothing in it: what nouveau_compiler's start-up is timed on.
const EMPTY_KERNEL: &str = "COMP\nEND\n";

/// Compares wavelift with the `nouveau_compiler` at `nouveau` over the kernels under
/// `roots` for each of `chips`.
pub fn compare(
    roots: &[PathBuf],
    chips: &[String],
    repeat: usize,
    nouveau: &Path,
) -> Result<(), String> {
    let mut files = Vec::new();
    for root in roots {
        super::bench::clif_files(root, &mut files)?;
    }
    if files.is_empty() {
        return Err("no .clif files".into());
    }
    // Run without arguments it complains about the missing chipset; what matters is that
    // it runs at all.
    let found = Command::new(nouveau).output().is_ok();
    if !found {
        println!(
            "nouveau_compiler not found at {}: wavelift's numbers only (docs/perf.md says how \
             to build it)",
            nouveau.display()
        );
    }
    let empty =
        std::env::temp_dir().join(format!("wavelift-bench-empty-{}.tgsi", std::process::id()));
    std::fs::write(&empty, EMPTY_KERNEL).map_err(|e| format!("{}: {e}", empty.display()))?;
    let result = chips.iter().try_for_each(|chip| {
        compare_chip(
            &files,
            chip,
            repeat,
            found.then_some((nouveau, empty.as_path())),
        )
    });
    let _ = std::fs::remove_file(&empty);
    result
}

fn compare_chip(
    files: &[PathBuf],
    chip: &str,
    repeat: usize,
    nouveau: Option<(&Path, &Path)>,
) -> Result<(), String> {
    let target = Target::parse(chip).map_err(|e| format!("{chip}: {e}"))?;
    let Arch::Nv50(nv50_chip) = target.arch else {
        return Err(format!("{chip}: not an NV50 chip"));
    };
    let chipset = nv50_chip.chipset();
    let variant = nv50_chip.variant();
    let startup = match nouveau {
        Some((tool, empty)) => Some(nouveau_fastest(tool, empty, chipset, repeat)?),
        None => None,
    };
    println!(
        "\n{chip}: wavelift | nouveau_compiler -a {chipset:#x} (time: fastest of {repeat}{})",
        if startup.is_some() {
            ", nouveau's above its start-up"
        } else {
            ""
        }
    );
    println!(
        "  {:<16} {:>11} {:>11} {:>9} {:>17}",
        "kernel", "insts", "bytes", "$r", "time (µs)"
    );
    let (mut ours_total, mut theirs_total) = (Stats::default(), Stats::default());
    let mut left_out = Vec::new();
    for file in files {
        let (code, time) = crate::compare_llc::compile_bench_kernel(file, &target, repeat)?;
        let info = code.nv50().ok_or("not an NV50 target")?;
        let ours = Stats {
            insts: wavelift::disassemble(&code.code, &target).len(),
            bytes: code.code.len(),
            gprs: info.gprs,
            time,
        };
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let tgsi = file.with_extension("tgsi");
        let theirs = match (startup, nouveau) {
            (Some(startup), Some((tool, _))) if tgsi.exists() => {
                let words = nouveau_code(tool, &tgsi, chipset)?;
                let mut stats = code_stats(&words, variant)
                    .map_err(|e| format!("{}: nouveau's code: {e}", tgsi.display()))?;
                stats.time = nouveau_fastest(tool, &tgsi, chipset, repeat)?.saturating_sub(startup);
                Some(stats)
            }
            _ => None,
        };
        match theirs {
            Some(theirs) => {
                ours_total.add(&ours);
                theirs_total.add(&theirs);
            }
            None if startup.is_some() => left_out.push(stem.to_string()),
            None => ours_total.add(&ours),
        }
        println!("  {}", row(&stem, &ours, theirs.as_ref()));
    }
    let theirs_total = startup.map(|_| theirs_total);
    println!("  {}", row("total", &ours_total, theirs_total.as_ref()));
    if let Some(theirs) = theirs_total {
        let ratio = |a: f64, b: f64| format!("{:.2}×", a / b);
        println!(
            "  {:<16} {:>11} {:>11} {:>9} {:>17}",
            "wavelift/nouveau",
            ratio(ours_total.insts as f64, theirs.insts as f64),
            ratio(ours_total.bytes as f64, theirs.bytes as f64),
            ratio(ours_total.gprs as f64, theirs.gprs as f64),
            ratio(
                ours_total.time.as_secs_f64(),
                theirs.time.as_secs_f64().max(1e-9)
            ),
        );
    }
    if !left_out.is_empty() {
        println!(
            "  without a .tgsi file, left out of the totals: {}",
            left_out.join(", ")
        );
    }
    Ok(())
}

/// One table row: each column `ours | theirs` (or ours alone).
fn row(name: &str, ours: &Stats, theirs: Option<&Stats>) -> String {
    let pair = |a: String, b: Option<String>| match b {
        Some(b) => format!("{a}|{b}"),
        None => a,
    };
    let micros = |t: Duration| format!("{:.0}", t.as_secs_f64() * 1e6);
    format!(
        "{name:<16} {:>11} {:>11} {:>9} {:>17}",
        pair(ours.insts.to_string(), theirs.map(|t| t.insts.to_string())),
        pair(ours.bytes.to_string(), theirs.map(|t| t.bytes.to_string())),
        pair(ours.gprs.to_string(), theirs.map(|t| t.gprs.to_string())),
        pair(micros(ours.time), theirs.map(|t| micros(t.time))),
    )
}

fn nouveau_compiler(tool: &Path, tgsi: &Path, chipset: u32) -> Command {
    let mut command = Command::new(tool);
    command.args(["-a", &format!("{chipset:x}")]).arg(tgsi);
    command
}

/// Runs nouveau_compiler on `tgsi` and returns the code words it prints.
fn nouveau_code(tool: &Path, tgsi: &Path, chipset: u32) -> Result<Vec<u32>, String> {
    let output = nouveau_compiler(tool, tgsi, chipset)
        .output()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "nouveau_compiler -a {chipset:x} {}: {}",
            tgsi.display(),
            stderr.trim()
        ));
    }
    parse_code(&String::from_utf8_lossy(&output.stdout), &stderr)
        .map_err(|e| format!("{}: {e}", tgsi.display()))
}

/// The code words of nouveau_compiler's output: hexadecimal words on stdout, their size
/// in bytes announced on stderr (`program binary (N bytes)`), which the words must match.
fn parse_code(stdout: &str, stderr: &str) -> Result<Vec<u32>, String> {
    let words = stdout
        .split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).map_err(|_| format!("`{w}` is not a code word")))
        .collect::<Result<Vec<u32>, String>>()?;
    let announced = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("program binary ("))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or("nouveau_compiler did not say the size of its code")?;
    if announced != 4 * words.len() {
        return Err(format!(
            "nouveau_compiler announced {announced} bytes and printed {}",
            4 * words.len()
        ));
    }
    Ok(words)
}

/// Instructions, bytes and registers of NV50 code.
fn code_stats(words: &[u32], variant: Variant) -> Result<Stats, String> {
    let insts = mc::decode(words, variant, mc::Program::Compute)
        .map_err(|e| format!("cannot decode: {e}"))?;
    Ok(Stats {
        insts: insts.len(),
        bytes: 4 * words.len(),
        gprs: registers(insts.iter().map(|(_, inst)| inst)),
        time: Duration::ZERO,
    })
}

/// The `$r` count of code (see the module documentation): one more than the highest
/// register an instruction defines, at least 4 (which covers `$r0`, defined at entry).
fn registers<'a>(insts: impl Iterator<Item = &'a McInst>) -> u32 {
    let end = |op: &Operand| -> Option<u32> {
        match *op {
            Operand::R(r) | Operand::H { reg: r, .. } => Some(u32::from(r) + 1),
            Operand::D(r) => Some(u32::from(r) + 2),
            Operand::Q(r) => Some(u32::from(r) + 4),
            _ => None,
        }
    };
    insts
        .filter_map(|inst| inst.dst.as_ref().and_then(end))
        .max()
        .unwrap_or(0)
        .max(4)
}

/// nouveau_compiler's fastest wall-clock time over `repeat` runs on `tgsi`.
fn nouveau_fastest(
    tool: &Path,
    tgsi: &Path,
    chipset: u32,
    repeat: usize,
) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    for _ in 0..repeat {
        let start = Instant::now();
        let output = nouveau_compiler(tool, tgsi, chipset)
            .output()
            .map_err(|e| format!("{}: {e}", tool.display()))?;
        best = best.min(start.elapsed());
        if !output.status.success() {
            return Err(format!(
                "nouveau_compiler -a {chipset:x} {}: {}",
                tgsi.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clif_file::ClifFile;

    /// nouveau_compiler's output for `vadd` on G80 (Mesa 9178b049cc5, `docs/perf.md`):
    /// sixteen instructions, two of them short (envydis lists the same), defining
    /// `$r0`–`$r3`.
    const VADD: &str = "a0004c05 04200780 a0004209 04200780 d03f0001 00000fff 4005040c \
                        6004060c 3010060d c4100780 60040405 0000c780 20000201 04000780 \
                        30020001 c4100780 \n2000ca05 04200780 2000ce09 04200780 2000d20d \
                        04200780 d0000201 80c00780 d0000405 80c00780 b0000001 00004780 \
                        d0000601 a0c00781 \n";

    #[test]
    fn reads_nouveau_code() {
        let words = parse_code(VADD, "Compiling for NV50\nprogram binary (120 bytes)\n").unwrap();
        let stats = code_stats(&words, Variant::G80).unwrap();
        assert_eq!((stats.insts, stats.bytes, stats.gprs), (16, 120, 4));
        let wrong = parse_code(VADD, "program binary (124 bytes)\n").unwrap_err();
        assert!(wrong.contains("announced 124 bytes"), "{wrong}");
        assert!(parse_code("d0000601 x", "program binary (8 bytes)").is_err());
    }

    /// `$r63` read as zero is not a register the program needs; a pair counts both halves.
    #[test]
    fn counts_defined_registers() {
        use wavelift::isa::nv50::mc::{Form, Op};
        let mut zero = McInst::new(Op::Mov, Form::Short);
        zero.dst = Some(Operand::R(3));
        zero.src[0] = Some(Operand::R(63));
        let mut load = McInst::new(Op::Ld, Form::Long);
        load.dst = Some(Operand::D(6));
        load.src[0] = Some(Operand::Global { space: 15, addr: 2 });
        assert_eq!(registers([&zero, &load].into_iter()), 8);
        assert_eq!(registers([&zero].into_iter()), 4);
    }

    /// The rule gives wavelift's own count on the benchmark kernels, so the two columns
    /// count the same way.
    #[test]
    fn counts_as_wavelift_does() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/kernels");
        let mut files = Vec::new();
        super::super::bench::clif_files(&dir, &mut files).unwrap();
        assert!(!files.is_empty());
        for chip in ["nv50", "gt200"] {
            let target = Target::parse(chip).unwrap();
            let Arch::Nv50(nv50_chip) = target.arch else {
                unreachable!("{chip} is an NV50 chip")
            };
            for file in &files {
                let text = std::fs::read_to_string(file).unwrap();
                let parsed = ClifFile::parse(&text).unwrap();
                let code = wavelift::compile_function(&parsed.functions[0].func, &target).unwrap();
                let words: Vec<u32> = code
                    .code
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                let stats = code_stats(&words, nv50_chip.variant()).unwrap();
                assert_eq!(
                    stats.gprs,
                    code.nv50().unwrap().gprs,
                    "{chip} {}",
                    file.display()
                );
            }
        }
    }
}
