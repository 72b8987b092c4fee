//! Running `llvm-mc-14`, shared by the encoding tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `llvm-mc-14 -arch=amdgcn -mcpu=CPU ARGS` with `input` on stdin. Returns `None`
/// when llvm-mc-14 cannot be run and `WAVELIFT_SKIP_LLVM_MC=1` says to skip; without that
/// variable a missing llvm-mc-14 fails the test.
pub fn llvm_mc(cpu: &str, args: &[&str], input: &str) -> Option<Output> {
    let child = Command::new("llvm-mc-14")
        .args(["-arch=amdgcn", &format!("-mcpu={cpu}")])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if std::env::var("WAVELIFT_SKIP_LLVM_MC").as_deref() == Ok("1") => {
            eprintln!("llvm-mc-14 not run ({e}); skipped because WAVELIFT_SKIP_LLVM_MC=1");
            return None;
        }
        Err(e) => {
            panic!("cannot run llvm-mc-14 ({e}); install llvm-14 or set WAVELIFT_SKIP_LLVM_MC=1")
        }
    };
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("llvm-mc-14 reads its input");
    Some(child.wait_with_output().expect("llvm-mc-14 finishes"))
}

/// The lines of `-show-encoding` output, split into the instruction text and the encoding
/// inside `[…]` (`0x02,0x07,…`).
pub fn encoded_lines(stdout: &str) -> impl Iterator<Item = (String, String)> + '_ {
    stdout.lines().filter_map(|l| {
        let (text, enc) = l.split_once("; encoding: [")?;
        Some((
            text.trim().to_string(),
            enc.trim_end_matches(']').to_string(),
        ))
    })
}
