//! The module layering of docs/architecture.md, checked on the sources: a `crate::` path
//! (or a `super::super` climb out of a module) that a rule forbids fails this test, naming
//! the file, the line and the rule.

use std::fs;
use std::path::{Path, PathBuf};

/// Which modules the files under a folder of `src/` may not name.
struct Rule {
    /// Files under this path (relative to `src/`); `*` stands for any one target folder.
    under: &'static str,
    /// Files under these paths are not bound by the rule.
    except: &'static [&'static str],
    /// `crate::` paths the files may not use (`""`: none at all).
    forbidden: &'static [&'static str],
    /// Words the code may not contain (the shared core names no target and no divergence
    /// strategy).
    words: &'static [&'static str],
    why: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        under: "machinst/",
        except: &[],
        forbidden: &["isa", "sim", "difftest"],
        words: &["gcn", "nv50"],
        why: "the shared core (machinst) never imports a target, the simulator or the tester",
    },
    Rule {
        under: "machinst/",
        except: &["machinst/divergence/"],
        forbidden: &[],
        words: &["divergence"],
        why: "the core knows no divergence strategy: the strategies build on it",
    },
    Rule {
        under: "analysis/",
        except: &[],
        forbidden: &["machinst", "isa", "sim", "difftest"],
        words: &["gcn", "nv50"],
        why: "the analyses import neither the core nor a target",
    },
    Rule {
        under: "isa/*/mc/",
        except: &[],
        forbidden: &[""],
        words: &[],
        why: "a target's mc/ (encodings) is a leaf",
    },
    Rule {
        under: "isa/",
        except: &[],
        forbidden: &["sim", "difftest"],
        words: &[],
        why: "the backend never imports the simulator or the differential tester",
    },
    Rule {
        under: "sim/",
        except: &["sim/*/", "sim/mod.rs"],
        forbidden: &[],
        words: &["gcn", "nv50"],
        why: "the shared simulator parts and the harness reach a target's simulator only \
              through sim::Simulator (sim::simulator in sim/mod.rs is the dispatch point)",
    },
    Rule {
        under: "difftest/",
        except: &[],
        forbidden: &["isa"],
        words: &["gcn", "nv50"],
        why: "the differential tester reaches the targets only through wavelift::compile and \
              sim::Simulator",
    },
    Rule {
        under: "intrinsics.rs",
        except: &[],
        forbidden: &["sim", "difftest", "machinst", "isa"],
        words: &[],
        why: "the intrinsics list is target-neutral and below the core",
    },
    Rule {
        under: "target.rs",
        except: &[],
        forbidden: &["sim", "difftest", "machinst"],
        words: &[],
        why: "target parsing never imports the simulator, the tester or the core",
    },
    Rule {
        under: "parallel.rs",
        except: &[],
        forbidden: &[""],
        words: &[],
        why: "running work on several threads knows nothing of what the work is",
    },
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `rel` (a path under `src/`, `/`-separated) is under `pattern`.
fn is_under(rel: &str, pattern: &str) -> bool {
    let mut rel_parts = rel.split('/');
    let pattern_parts: Vec<&str> = pattern.trim_end_matches('/').split('/').collect();
    pattern_parts
        .iter()
        .all(|p| rel_parts.next().is_some_and(|r| *p == "*" || *p == r))
        && if pattern.ends_with('/') {
            // A folder holds what is below it: `sim/*/` is not `sim/harness.rs`.
            rel_parts.next().is_some()
        } else {
            rel == pattern
        }
}

/// The code of a line: without its `//` comment (string literals holding `//` are rare
/// enough in this crate not to matter).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// The first segments of the `crate::` paths in `text` (`crate::{a, b::c}` gives `a`, `b`).
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            out.extend(
                group[..end]
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap_or("").to_string())
                    .filter(|s| !s.is_empty()),
            );
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(rest[..end].to_string());
        }
    }
    out
}

fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = fs::read_to_string(&file).unwrap();
        let applies =
            |r: &&Rule| is_under(&rel, r.under) && !r.except.iter().any(|e| is_under(&rel, e));
        for rule in RULES.iter().filter(applies) {
            // Grouped imports can span lines: look at the code of the whole file, and find
            // the line afterwards.
            let code_lines: Vec<&str> = text.lines().map(code).collect();
            let joined = code_lines.join("\n");
            for path in crate_paths(&joined) {
                if rule.forbidden.iter().any(|f| f.is_empty() || *f == path) {
                    let line = code_lines
                        .iter()
                        .position(|l| {
                            l.contains(&format!("crate::{path}")) || l.contains("crate::{")
                        })
                        .map_or(0, |i| i + 1);
                    found.push(format!("src/{rel}:{line}: crate::{path}: {}", rule.why));
                }
            }
            for (i, line) in code_lines.iter().enumerate() {
                // Declaring a module is not importing it.
                let declaration = line
                    .trim_start()
                    .trim_start_matches("pub ")
                    .starts_with("mod ");
                if line.contains("super::super") && rule.under != "isa/" {
                    found.push(format!("src/{rel}:{}: super::super: {}", i + 1, rule.why));
                }
                let lower = line.to_ascii_lowercase();
                for word in rule.words {
                    let named = lower
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == *word || w.starts_with(&format!("{word}_")));
                    if named && !declaration {
                        found.push(format!("src/{rel}:{}: names `{word}`: {}", i + 1, rule.why));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn the_layering_holds() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

#[test]
fn a_forbidden_import_is_found() {
    let dir = std::env::temp_dir().join(format!("wavelift-layering-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for (file, text) in [
        ("machinst/a.rs", "use crate::isa::gcn::Inst;\n"),
        (
            "machinst/b.rs",
            "use crate::{CompileError,\n    sim::harness};\n",
        ),
        (
            "analysis/c.rs",
            "// crate::machinst in a comment is fine\nuse crate::ir;\n",
        ),
        ("isa/gcn/mc/d.rs", "use crate::ir::Type;\n"),
        (
            "isa/gcn/e.rs",
            "use crate::machinst::VCode;\nuse crate::difftest::run;\n",
        ),
        ("machinst/f.rs", "fn gcn_only() {}\n"),
        (
            "machinst/g.rs",
            "use crate::machinst::{VCode,\n    divergence::Linearized};\n",
        ),
        ("machinst/h.rs", "use super::divergence::Lanes;\n"),
        (
            "machinst/divergence/i.rs",
            "use crate::machinst::lower::Lower;\nuse super::linearize::Lanes;\n",
        ),
        ("machinst/mod.rs", "pub mod divergence;\n"),
        ("sim/harness.rs", "use super::gcn::call_device;\n"),
        ("sim/gcn/wave.rs", "use crate::isa::gcn::mc::Gen;\n"),
        ("difftest/run.rs", "use crate::isa::gcn::mc::Gen;\n"),
    ] {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let found = violations(&dir);
    fs::remove_dir_all(&dir).unwrap();
    let has = |needle: &str| found.iter().any(|f| f.contains(needle));
    assert!(has("machinst/a.rs:1: crate::isa"), "{found:?}");
    assert!(has("machinst/b.rs:1: crate::sim"), "{found:?}");
    assert!(!has("analysis/c.rs"), "{found:?}");
    assert!(has("mc/d.rs:1: crate::ir"), "{found:?}");
    assert!(has("isa/gcn/e.rs:2: crate::difftest"), "{found:?}");
    assert!(!has("isa/gcn/e.rs:1"), "{found:?}");
    assert!(has("machinst/f.rs:1: names `gcn`"), "{found:?}");
    assert!(has("machinst/g.rs:2: names `divergence`"), "{found:?}");
    assert!(has("machinst/h.rs:1: names `divergence`"), "{found:?}");
    assert!(!has("machinst/divergence/i.rs"), "{found:?}");
    assert!(!has("machinst/mod.rs"), "{found:?}");
    assert!(has("sim/harness.rs:1: names `gcn`"), "{found:?}");
    assert!(!has("sim/gcn/wave.rs"), "{found:?}");
    assert!(has("difftest/run.rs:1: crate::isa"), "{found:?}");
}
