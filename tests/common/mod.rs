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

/// Bytes as llvm-mc's `-show-encoding` lists them (`0x02,0x07,0x02,0x02`).
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Disassembles each row's bytes with one `llvm-mc-14 -disassemble` process; returns one
/// line per row (`None` where llvm-mc printed nothing for it), or `None` if llvm-mc is absent
/// and the skip variable is set.
pub fn llvm_disassemble(cpu: &str, rows: &[Vec<u8>]) -> Option<Vec<Option<String>>> {
    let input: String = rows.iter().map(|b| hex(b) + "\n").collect();
    let out = llvm_mc(cpu, &["-disassemble", "-show-encoding"], &input)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Map llvm-mc's lines back to rows by their encoding, so that an undecodable row cannot
    // shift the others.
    let mut decoded = encoded_lines(&stdout);
    let mut result = Vec::new();
    let mut pending = decoded.next();
    for row in rows {
        match &pending {
            Some((text, enc)) if *enc == hex(row) => {
                result.push(Some(text.clone()));
                pending = decoded.next();
            }
            _ => result.push(None),
        }
    }
    Some(result)
}

/// Assembles each line with one `llvm-mc-14 -show-encoding` process; returns per line the
/// encoding it printed (as [`hex`] writes it), or `None` where llvm-mc rejected the line;
/// `None` overall if llvm-mc is absent and the skip variable is set.
pub fn llvm_assemble(cpu: &str, lines: &[String]) -> Option<Vec<Option<String>>> {
    let input: String = lines.iter().map(|t| t.clone() + "\n").collect();
    let out = llvm_mc(cpu, &["-show-encoding"], &input)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Errors name the input line; the encodings of the other lines follow in order.
    let bad: Vec<usize> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse().ok())
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut encodings = encoded_lines(&stdout).map(|(_, enc)| enc);
    Some(
        (1..=lines.len())
            .map(|line| match bad.contains(&line) {
                true => None,
                false => encodings.next(),
            })
            .collect(),
    )
}
