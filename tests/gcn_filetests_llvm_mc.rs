//! Compiles every function of every GCN precise-output filetest and requires
//! `llvm-mc-14 -disassemble` to read the code bytes as the same instructions our
//! disassembler prints (gfx8, gfx9), or `llvm-mc-14` to assemble our disassembly to the
//! same bytes (gfx6, gfx7, which llvm-mc 14 cannot disassemble), so that the expected
//! output in the filetests is checked against LLVM and not only against us.
//!
//! Like `gcn_llvm_mc.rs`, this fails without `llvm-mc-14` unless `WAVELIFT_SKIP_LLVM_MC=1`.

#[allow(dead_code)]
mod common;
mod filetest_text;

use std::path::{Path, PathBuf};
use std::process::Command;
use wavelift::{Arch, Target, gcn::Gen};

fn clif_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read filetests directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            clif_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "clif") {
            out.push(path);
        }
    }
}

/// LLVM's CPU name for a generation, and whether llvm-mc 14 disassembles it (gfx8 and
/// gfx9 only).
fn llvm_cpu(generation: Gen) -> (&'static str, bool) {
    match generation {
        Gen::Gfx6 => ("tahiti", false),
        Gen::Gfx7 => ("bonaire", false),
        Gen::Gfx8 => ("tonga", true),
        Gen::Gfx9 => ("gfx900", true),
        other => panic!("no llvm-mc CPU for {other:?}"),
    }
}

/// The bytes `llvm-mc-14` assembles `lines` to.
fn llvm_assemble(cpu: &str, lines: &[String]) -> Vec<u8> {
    let output = common::llvm_mc(cpu, &["-show-encoding"], &(lines.join("\n") + "\n"))
        .expect("checked that llvm-mc-14 runs");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-mc-14 -mcpu={cpu} rejects our disassembly: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    common::encoded_lines(&stdout)
        .flat_map(|(_, enc)| {
            enc.split(',')
                .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn llvm_disassemble(cpu: &str, code: &[u8]) -> Vec<String> {
    let hex: Vec<String> = code.iter().map(|b| format!("0x{b:02x}")).collect();
    let output = common::llvm_mc(cpu, &["-disassemble"], &hex.join(" "))
        .expect("checked that llvm-mc-14 runs");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-mc-14 failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.') && !l.starts_with(';'))
        .map(|l| l.split(" ; ").next().unwrap().trim().to_string())
        .collect()
}

/// `compiled`'s code with a value no inline constant has in the two literals of every
/// call site and function address (0 until linking): text cannot tell a literal 0 from
/// the inline constant 0, which llvm-mc-14 assembles `0` to.
fn with_sites_filled(compiled: &wavelift::CompiledCode) -> Vec<u8> {
    let mut code = compiled.code.clone();
    for site in &compiled.gcn().expect("GCN code").calls {
        for literal in [8, 16] {
            let at = site.offset as usize + literal;
            code[at..at + 4].copy_from_slice(&0x1234_5678u32.to_le_bytes());
        }
    }
    code
}

#[test]
fn compiled_filetests_disassemble_the_same_in_llvm_mc() {
    let have_llvm = Command::new("llvm-mc-14").arg("--version").output().is_ok();
    if !have_llvm {
        assert!(
            std::env::var_os("WAVELIFT_SKIP_LLVM_MC").is_some(),
            "llvm-mc-14 is not installed (apt-get install llvm-14), and WAVELIFT_SKIP_LLVM_MC is not set"
        );
        return;
    }
    let mut files = Vec::new();
    clif_files(Path::new("filetests"), &mut files);
    files.sort();
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        if !text
            .lines()
            .any(|l| l.trim() == "test compile precise-output")
        {
            continue;
        }
        let targets: Vec<Target> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("target "))
            .map(|spec| Target::parse(spec).expect("filetest target parses"))
            .collect();
        let clif = filetest_text::clif_of(&text);
        let funcs = cranelift_reader::parse_functions(&clif).expect("filetest parses");
        for target in &targets {
            // NV50 listings are envydis's to check, not llvm-mc's.
            let Arch::Gcn(generation) = target.arch else {
                continue;
            };
            let (cpu, disassembles) = llvm_cpu(generation);
            for func in &funcs {
                let compiled = wavelift::compile_function(func, target)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                let code = with_sites_filled(&compiled);
                let ours: Vec<String> = wavelift::disassemble(&code, target)
                    .into_iter()
                    .map(|l| l.text)
                    .collect();
                if !disassembles {
                    assert!(
                        llvm_assemble(cpu, &ours) == code,
                        "{}: function {} on {cpu}: llvm-mc-14 assembles our disassembly to \
                         other bytes than ours",
                        file.display(),
                        func.name
                    );
                    checked += 1;
                    continue;
                }
                let theirs = llvm_disassemble(cpu, &code);
                assert_eq!(
                    ours,
                    theirs,
                    "{}: function {}: our disassembly (left) differs from llvm-mc-14's (right)",
                    file.display(),
                    func.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no precise-output filetest was checked");
}
