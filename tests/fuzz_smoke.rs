//! The fuzz target's property on stable Rust, for CI: for thousands of pseudo-random byte
//! strings, the wide-mode generator's function (unsupported types and opcodes, other
//! calling conventions, calls, memory, branches) compiles to `Ok` or a `CompileError` for
//! every target, never a panic. Also mangled CLIF text through cranelift-reader. The real
//! fuzzer is `cargo +nightly fuzz run compile` in `fuzz/` (docs/testing.md).

use std::panic::{self, AssertUnwindSafe};
use wavelift::difftest::fuzz::{compile_arbitrary, compile_text};
use wavelift::difftest::{CampaignOptions, GenConfig, SplitMix64, case};

const INPUTS: u64 = 5_000;
const TEXTS: u64 = 2_000;

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn arbitrary_functions_compile_or_fail_cleanly() {
    let mut rng = SplitMix64::new(0xf022_0001);
    let (mut compiled, mut errors) = (0u64, 0u64);
    for index in 0..INPUTS {
        let len = rng.below(2048) as usize;
        let mut data = vec![0; len];
        rng.fill(&mut data);
        match panic::catch_unwind(AssertUnwindSafe(|| compile_arbitrary(&data))) {
            Ok(outcome) => {
                compiled += outcome.compiled as u64;
                errors += outcome.errors.len() as u64;
            }
            Err(payload) => panic!(
                "input {index} panicked: {}\nthe input (hex, for fuzz/artifacts or \
                 `compile_arbitrary`): {}",
                panic_text(payload),
                hex(&data)
            ),
        }
    }
    println!("{INPUTS} inputs: {compiled} compiled, {errors} compile errors");
    assert!(compiled > 0 && errors > 0, "both paths should be exercised");
}

/// Mangles the text of a function: deletes, duplicates or swaps lines, truncates, or
/// replaces a word with another from the text or a type name.
fn mangle(text: &str, rng: &mut SplitMix64) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len().max(1) as u64;
    for _ in 0..=rng.below(3) {
        let i = rng.below(n) as usize % lines.len().max(1);
        match rng.below(6) {
            0 if lines.len() > 1 => {
                lines.remove(i);
            }
            1 => {
                let line = lines[i].clone();
                lines.insert(i, line);
            }
            2 => {
                let j = rng.below(lines.len() as u64) as usize;
                lines.swap(i, j);
            }
            3 => {
                let cut = rng.below(lines[i].len() as u64 + 1) as usize;
                let cut = (0..=cut)
                    .rev()
                    .find(|&c| lines[i].is_char_boundary(c))
                    .unwrap();
                lines[i].truncate(cut);
            }
            _ => {
                let words: Vec<&str> = text.split_whitespace().collect();
                let replacement = match rng.below(3) {
                    0 => ["i8", "i16", "i32", "i64", "i128", "f32", "f64", "i32x4"]
                        [rng.below(8) as usize]
                        .to_string(),
                    _ => words[rng.below(words.len() as u64) as usize].to_string(),
                };
                let mut line_words: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
                let k = rng.below(line_words.len() as u64) as usize;
                line_words[k] = replacement;
                lines[i] = line_words.join(" ");
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mangled_clif_text_compiles_or_fails_cleanly() {
    let mut rng = SplitMix64::new(0xf022_0002);
    let options = CampaignOptions {
        generator: GenConfig::wide(),
        ..CampaignOptions::default()
    };
    let (mut parsed, mut compiled) = (0u64, 0u64);
    for index in 0..TEXTS {
        let (func, _, _) = case(0xf022_0003, index, &options);
        let text = mangle(&func.display().to_string(), &mut rng);
        // cranelift-reader's own panics (if any) are not ours: only the compiler's count.
        let funcs = match panic::catch_unwind(|| cranelift_reader::parse_functions(&text)) {
            Ok(Ok(funcs)) => funcs,
            _ => continue,
        };
        parsed += 1;
        for func in &funcs {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                wavelift::difftest::fuzz::compile_for_every_target(func)
            }));
            match outcome {
                Ok(outcome) => compiled += outcome.compiled as u64,
                Err(payload) => panic!(
                    "compiling mangled text {index} panicked: {}\n{text}",
                    panic_text(payload)
                ),
            }
        }
    }
    println!("{TEXTS} texts: {parsed} parsed, {compiled} compiled");
    assert!(parsed > 0);
    // And garbage that is not CLIF at all.
    for garbage in [
        "",
        "function",
        "function %f() {",
        "block0:\n return",
        "\u{0}\u{ff}",
    ] {
        assert!(compile_text(garbage).is_none_or(|o| o.compiled == 0));
    }
}
