//! Checks the NV50 MC layer against envydis, the disassembler of envytools.
//!
//! `tests/data/nv50_envydis.txt` holds one line per instruction form: the envydis variant
//! (`-V`, with `/fp` or `/vp` for a form that exists only in fragment or vertex programs),
//! the words, and the text envydis printed for them. The table was produced and verified
//! with envydis built from envytools commit f102b82381f3f11cee113d16374c87091db039d9
//! (`envydis -n -m g80 -V <variant> -O <cp|fp|vp> -w`): every line's text is envydis's, and
//! equals our printer's.
//!
//! Without envydis (CI) the tests check, for every line, that our decoder reads the words,
//! our printer gives envydis's text and our encoder gives the words back; and that every
//! instruction of `mc::samples()` (each table row with each modifier, type, rounding mode,
//! comparison and operand kind) is in the table, so no form escapes verification.
//!
//! With `WAVELIFT_ENVYDIS=<path to envydis>` they also run envydis on every sample and on
//! random words our decoder accepts, and compare. `WAVELIFT_ENVYDIS_BLESS=1` then rewrites
//! the table from envydis's output (after checking it equals ours).

mod filetest_text;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use wavelift::isa::nv50::mc::*;

const TABLE: &str = include_str!("data/nv50_envydis.txt");

struct Line {
    variant: Variant,
    program: Program,
    words: Vec<u32>,
    text: String,
}

/// A table line's first column: the variant, and the program type when not compute.
fn variant(column: &str) -> (Variant, Program) {
    let (name, program) = column.split_once('/').unwrap_or((column, "cp"));
    let v = Variant::ALL
        .into_iter()
        .find(|v| v.envydis_name() == name)
        .unwrap_or_else(|| panic!("unknown variant {name}"));
    let p = Program::ALL
        .into_iter()
        .find(|p| p.envydis_name() == program)
        .unwrap_or_else(|| panic!("unknown program type {program}"));
    (v, p)
}

fn column(v: Variant, p: Program) -> String {
    match p {
        Program::Compute => v.envydis_name().to_string(),
        p => format!("{}/{}", v.envydis_name(), p.envydis_name()),
    }
}

/// The program type a sample is checked in: compute unless the form exists only elsewhere.
fn program_of(inst: &McInst) -> Program {
    Program::ALL
        .into_iter()
        .find(|p| p.allows(inst))
        .unwrap_or_else(|| panic!("{} exists in no program type", print(inst)))
}

fn table() -> Vec<Line> {
    TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (v, words, text) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            let (variant, program) = variant(v);
            Line {
                variant,
                program,
                words: words
                    .split(' ')
                    .map(|w| u32::from_str_radix(w, 16).unwrap())
                    .collect(),
                text: text.to_string(),
            }
        })
        .collect()
}

fn hex(words: &[u32]) -> String {
    words
        .iter()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The earliest variant that encodes `inst`, with the words.
fn first_encoding(inst: &McInst) -> (Variant, Vec<u32>) {
    Variant::ALL
        .into_iter()
        .find_map(|v| encode(inst, v).ok().map(|w| (v, w)))
        .unwrap_or_else(|| panic!("sample {inst:?} does not encode"))
}

#[test]
fn table_lines_decode_print_and_encode_back() {
    let lines = table();
    assert!(
        lines.len() > 1000,
        "the table is too small: {}",
        lines.len()
    );
    for l in &lines {
        let (inst, n) = decode_one(&l.words, l.variant, l.program)
            .unwrap_or_else(|e| panic!("{}: {e}", hex(&l.words)));
        assert_eq!(n, l.words.len(), "{}", l.text);
        assert_eq!(print(&inst), l.text, "{}", hex(&l.words));
        assert_eq!(encode(&inst, l.variant).unwrap(), l.words, "{}", l.text);
    }
}

#[test]
fn every_sample_is_in_the_table() {
    let lines: HashMap<(Variant, Program, Vec<u32>), String> = table()
        .into_iter()
        .map(|l| ((l.variant, l.program, l.words), l.text))
        .collect();
    let mut missing = Vec::new();
    for inst in samples() {
        let (v, words) = first_encoding(&inst);
        let p = program_of(&inst);
        // A form is in the table under the first variant that has it, and no earlier one
        // encodes it.
        match lines.get(&(v, p, words.clone())) {
            Some(text) => assert_eq!(&print(&inst), text, "{}", hex(&words)),
            None => missing.push(format!(
                "{}\t{}\t{}",
                column(v, p),
                hex(&words),
                print(&inst)
            )),
        }
        let (back, _) =
            decode_one(&words, v, p).unwrap_or_else(|e| panic!("{}: {e}", print(&inst)));
        assert_eq!(back, inst, "{}", print(&inst));
    }
    assert!(
        missing.is_empty(),
        "{} samples are not in the table, e.g.:\n{}",
        missing.len(),
        missing[..missing.len().min(20)].join("\n")
    );
}

/// A small deterministic generator (xorshift64*), for the random-word checks.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

/// Random words, and the samples' words with random bits flipped: decoding never panics,
/// and what decodes encodes back to the same words.
fn random_words(count: usize) -> Vec<Vec<u32>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let encoded: Vec<Vec<u32>> = samples().iter().map(|s| first_encoding(s).1).collect();
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                vec![rng.next(), rng.next()]
            } else {
                let mut w = encoded[rng.next() as usize % encoded.len()].clone();
                let bit = rng.next() as usize % (32 * w.len());
                w[bit / 32] ^= 1 << (bit % 32);
                w
            }
        })
        .collect()
}

#[test]
fn garbage_is_an_error_and_what_decodes_round_trips() {
    for words in [
        vec![0xffff_ffffu32, 0xffff_ffff],
        vec![0x0000_0001, 0x0000_0003],
        vec![0xdead_beef],
        vec![0x1000_0001],
    ] {
        let _ = decode(&words, Variant::G200, Program::Compute);
    }
    assert!(decode(&[0xffff_ffff, 0xffff_ffff], Variant::G200, Program::Compute).is_err());
    assert!(matches!(
        decode(&[0x1000_0001], Variant::G80, Program::Compute),
        Err(DecodeError::Truncated { .. })
    ));
    assert!(matches!(
        decode_bytes(&[1, 2, 3], Variant::G80, Program::Compute),
        Err(DecodeError::PartialWord { .. })
    ));
    // A long instruction at an odd word: after one short `mov`.
    let mov = [0x1000_8404u32, 0x1000_0001, 0x0403_c780];
    assert!(matches!(
        decode(&mov, Variant::G80, Program::Compute),
        Err(DecodeError::Misaligned { offset: 1 })
    ));
    for v in Variant::ALL {
        for p in Program::ALL {
            for words in random_words(20000) {
                if let Ok((inst, n)) = decode_one(&words, v, p) {
                    assert!(p.allows(&inst), "{}", print(&inst));
                    assert_eq!(encode(&inst, v).unwrap(), words[..n], "{}", print(&inst));
                }
            }
        }
    }
    // `interp` is a fragment program's only: the same words are nothing in a compute one.
    let interp = [0x8008_0004u32];
    assert_eq!(
        print(
            &decode_one(&interp, Variant::G80, Program::Fragment)
                .unwrap()
                .0
        ),
        "interp $r1 v[0x20]"
    );
    assert!(decode_one(&interp, Variant::G80, Program::Compute).is_err());
    assert!(decode_one(&interp, Variant::G80, Program::Vertex).is_err());
}

fn envydis() -> Option<PathBuf> {
    std::env::var_os("WAVELIFT_ENVYDIS").map(PathBuf::from)
}

/// envydis's text for each instruction (one per entry of `insts`).
fn run_envydis(path: &PathBuf, v: Variant, p: Program, insts: &[Vec<u32>]) -> Vec<String> {
    // One file per call: the tests run in parallel threads of one process.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("wavelift-envydis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let file = dir.join(format!(
        "{}-{}-{call}.txt",
        v.envydis_name(),
        p.envydis_name()
    ));
    let text: String = insts.iter().map(|w| hex(w) + "\n").collect();
    std::fs::write(&file, text).unwrap();
    let out = Command::new(path)
        .args([
            "-n",
            "-m",
            "g80",
            "-V",
            v.envydis_name(),
            "-O",
            p.envydis_name(),
            "-w",
        ])
        .arg(&file)
        .output()
        .expect("envydis runs");
    assert!(
        out.status.success(),
        "envydis failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each line: address, the words padded to two columns, two mark columns, the text.
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.get(32..).unwrap_or("").to_string())
        .collect();
    assert_eq!(
        lines.len(),
        insts.len(),
        "envydis printed a different number of instructions"
    );
    lines
}

/// A sample's words and our text for them.
type Sample = (Vec<u32>, String);

#[test]
fn envydis_agrees_with_every_sample() {
    let Some(path) = envydis() else {
        eprintln!("WAVELIFT_ENVYDIS is not set: the committed table stands in for envydis");
        return;
    };
    let mut by_variant: HashMap<(Variant, Program), Vec<Sample>> = HashMap::new();
    for inst in samples() {
        let (v, words) = first_encoding(&inst);
        for earlier in Variant::ALL.into_iter().filter(|&e| e < v) {
            assert!(encode(&inst, earlier).is_err());
        }
        by_variant
            .entry((v, program_of(&inst)))
            .or_default()
            .push((words, print(&inst)));
    }
    let mut table = String::new();
    let mut wrong = Vec::new();
    for v in Variant::ALL {
        for p in Program::ALL {
            let insts = by_variant.remove(&(v, p)).unwrap_or_default();
            if insts.is_empty() {
                continue;
            }
            let words: Vec<Vec<u32>> = insts.iter().map(|(w, _)| w.clone()).collect();
            let theirs = run_envydis(&path, v, p, &words);
            for ((w, ours), theirs) in insts.iter().zip(theirs) {
                if *ours != theirs {
                    wrong.push(format!(
                        "{} {}:\n  ours    {ours}\n  envydis {theirs}",
                        column(v, p),
                        hex(w)
                    ));
                }
                table += &format!("{}\t{}\t{theirs}\n", column(v, p), hex(w));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differences, e.g.:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(30)].join("\n")
    );
    if std::env::var_os("WAVELIFT_ENVYDIS_BLESS").is_some() {
        let header = "# NV50 encodings verified with envydis (see tests/nv50_envydis.rs): variant, words, envydis text.\n";
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nv50_envydis.txt"),
            header.to_string() + &table,
        )
        .unwrap();
    }
}

/// In compute programs every word we decode; in vertex and fragment programs the forms only
/// they have (`a[]` sources, `interp`): the other rows are verified in compute programs, where `g80.c` decodes some
/// memory operands differently (`docs/isa-notes.md`, "Graphics stages").
#[test]
fn envydis_agrees_on_random_words_we_decode() {
    let Some(path) = envydis() else { return };
    for v in Variant::ALL {
        for (p, min) in [
            (Program::Compute, 3000),
            (Program::Vertex, 100),
            (Program::Fragment, 20),
        ] {
            let accepted: Vec<(Vec<u32>, String)> = random_words(20000)
                .into_iter()
                .filter_map(|w| decode_one(&w, v, p).ok())
                .filter(|(inst, _)| p == Program::Compute || program_of(inst) == p)
                .map(|(inst, n)| (w_of(&inst, v, n), print(&inst)))
                .collect();
            // Most single-bit flips of a sample are another valid form.
            assert!(
                accepted.len() > min,
                "only {} random words decode",
                accepted.len()
            );
            let words: Vec<Vec<u32>> = accepted.iter().map(|(w, _)| w.clone()).collect();
            let theirs = run_envydis(&path, v, p, &words);
            for ((w, ours), theirs) in accepted.iter().zip(theirs) {
                assert_eq!(ours, &theirs, "{} {}", column(v, p), hex(w));
            }
        }
    }
}

/// The words of a decoded instruction (`n` of them): what decoded encodes back to them.
fn w_of(inst: &McInst, v: Variant, n: usize) -> Vec<u32> {
    let words = encode(inst, v).unwrap();
    assert_eq!(words.len(), n);
    words
}

/// Every `.clif` file under `dir`, recursively.
fn clif_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read filetests directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            clif_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "clif") {
            out.push(path);
        }
    }
}

/// The code of every function of `filetests/nv50/` that compiles for `cpu`, in words, with
/// the function's name.
/// Each compiled function of `filetests/nv50` for `cpu`: its name, program type and words.
fn filetest_code(cpu: &str) -> Vec<(String, Program, Vec<u32>)> {
    let target = wavelift::Target::parse(cpu).unwrap();
    let mut files = Vec::new();
    clif_files(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/filetests/nv50")),
        &mut files,
    );
    let mut code = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // The reader knows no NV50 target: parse the functions without the header lines.
        let clif = filetest_text::clif_of(&text);
        let funcs = cranelift_reader::parse_functions(&clif)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for func in &funcs {
            if let Ok(bytes) = wavelift::compile(func, &target) {
                let words = bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                let program = match wavelift::intrinsics::check_stage(func) {
                    Ok(Some(wavelift::intrinsics::Stage::Fragment)) => Program::Fragment,
                    Ok(Some(wavelift::intrinsics::Stage::Vertex)) => Program::Vertex,
                    _ => Program::Compute,
                };
                code.push((format!("{} {}", file.display(), func.name), program, words));
            }
        }
    }
    code
}

/// What the backend emits for the filetests is made of verified forms: every instruction
/// decodes (the decoder reads only the table's rows, each sampled and checked with
/// envydis above) and encodes back to its words. With `WAVELIFT_ENVYDIS` set, envydis also
/// reads every function's code as the instructions our disassembler prints, as
/// `gcn_filetests_llvm_mc.rs` does with llvm-mc for GCN.
#[test]
fn filetest_code_is_made_of_verified_forms() {
    for (cpu, v) in [("nv50", Variant::G80), ("gt200", Variant::G200)] {
        let code = filetest_code(cpu);
        assert!(
            code.len() > 50,
            "{cpu}: only {} functions compiled",
            code.len()
        );
        let mut insts: HashMap<Program, Vec<Vec<u32>>> = HashMap::new();
        let mut ours: HashMap<Program, Vec<String>> = HashMap::new();
        for (name, program, words) in &code {
            let decoded =
                decode(words, v, *program).unwrap_or_else(|e| panic!("{cpu} {name}: {e:?}"));
            for (offset, inst) in decoded {
                let at = offset / 4;
                let size = encode(&inst, v).unwrap_or_else(|e| panic!("{cpu} {name}: {e}"));
                assert_eq!(
                    size,
                    words[at..at + size.len()],
                    "{cpu} {name} at {offset:#x}"
                );
                insts.entry(*program).or_default().push(size);
                ours.entry(*program).or_default().push(print(&inst));
            }
        }
        let Some(path) = envydis() else { continue };
        let mut wrong: Vec<String> = Vec::new();
        for (program, insts) in &insts {
            let theirs = run_envydis(&path, v, *program, insts);
            wrong.extend(
                insts
                    .iter()
                    .zip(ours[program].iter().zip(&theirs))
                    .filter(|(_, (o, t))| o != t)
                    .map(|(w, (o, t))| format!("{cpu} {}:\n  ours    {o}\n  envydis {t}", hex(w))),
            );
        }
        assert!(
            wrong.is_empty(),
            "{}",
            wrong[..wrong.len().min(30)].join("\n")
        );
    }
}
