//! Bad input to `clif-util` gives a clear `error: ...` on stderr and exit code 1, never a
//! panic. The compile-error inputs live in `filetests/errors/` as `test error` filetests, so
//! `clif-util test filetests` checks their messages too; inputs that no filetest can hold
//! (malformed text, unknown targets) are written here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn clif_util(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clif-util"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("WAVELIFT_BLESS")
        .env_remove("CRANELIFT_TEST_BLESS")
        .output()
        .expect("cannot run clif-util")
}

/// Writes `text` to a file of its own under Cargo's scratch directory for tests.
fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_errors");
    std::fs::create_dir_all(&dir).expect("cannot create the scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("cannot write a scratch file");
    path
}

/// Runs `clif-util ARGS`, requires exit code 1 and no panic, and returns stderr.
fn expect_error(args: &[&str]) -> String {
    let output = clif_util(args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "`clif-util {}` should fail with exit code 1\nstdout:\n{stdout}\nstderr:\n{stderr}",
        args.join(" ")
    );
    assert!(
        !stderr.contains("panicked"),
        "clif-util panicked:\n{stderr}"
    );
    assert!(
        stderr.starts_with("error: "),
        "no `error: ` on stderr:\n{stderr}"
    );
    stderr
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("scratch paths are UTF-8")
}

#[test]
fn malformed_clif_names_file_and_line() {
    let path = scratch_file(
        "malformed.clif",
        "target amdgcn gfx803\n\nfunction %f(i32) -> i32 {\nblock0(v0: i32):\n    v1 = \
         no_such_opcode v0\n    return v1\n}\n",
    );
    let stderr = expect_error(&["compile", path_str(&path)]);
    let location = format!("error: {}:5: ", path.display());
    assert!(
        stderr.starts_with(&location),
        "expected `{location}...`, got:\n{stderr}"
    );
}

#[test]
fn unterminated_function_is_an_error() {
    let path = scratch_file(
        "unterminated.clif",
        "function %f() {\nblock0:\n    return\n",
    );
    let stderr = expect_error(&["compile", "--target", "gfx803", path_str(&path)]);
    assert!(stderr.contains("unterminated.clif"), "{stderr}");
}

#[test]
fn unknown_target_on_the_command_line() {
    let path = scratch_file(
        "no_target.clif",
        "function %f() {\nblock0:\n    return\n}\n",
    );
    let stderr = expect_error(&["compile", "--target", "gfx9999", path_str(&path)]);
    assert!(stderr.contains("gfx9999"), "{stderr}");
}

#[test]
fn unknown_target_in_the_file() {
    let path = scratch_file(
        "bad_target.clif",
        "target amdgcn gfx9999\n\nfunction %f() {\nblock0:\n    return\n}\n",
    );
    let stderr = expect_error(&["compile", path_str(&path)]);
    let location = format!("error: {}:1: ", path.display());
    assert!(stderr.starts_with(&location), "{stderr}");
    assert!(stderr.contains("gfx9999"), "{stderr}");
}

#[test]
fn missing_target_says_how_to_give_one() {
    let path = scratch_file(
        "targetless.clif",
        "function %f() {\nblock0:\n    return\n}\n",
    );
    let stderr = expect_error(&["compile", path_str(&path)]);
    assert!(stderr.contains("--target"), "{stderr}");
}

#[test]
fn missing_file() {
    let stderr = expect_error(&[
        "compile",
        "--target",
        "gfx803",
        "filetests/no/such/file.clif",
    ]);
    assert!(stderr.contains("filetests/no/such/file.clif"), "{stderr}");
}

#[test]
fn unsupported_opcodes_name_function_and_instruction() {
    let stderr = expect_error(&["compile", "filetests/errors/unsupported.clif"]);
    for expected in ["function %bitselect_i32x4", "bitselect"] {
        assert!(stderr.contains(expected), "no `{expected}` in:\n{stderr}");
    }
}

#[test]
fn verifier_errors_are_reported() {
    let stderr = expect_error(&["compile", "filetests/errors/verifier.clif"]);
    for expected in [
        "function %type_mismatch",
        "has type i64, expected i32",
        "function %wrong_return_count",
        "function %no_terminator",
        "function %use_not_dominated",
    ] {
        assert!(stderr.contains(expected), "no `{expected}` in:\n{stderr}");
    }
}

#[test]
fn output_needs_exactly_one_function() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_errors/never_written.bin");
    let stderr = expect_error(&[
        "compile",
        "filetests/errors/verifier.clif",
        "--output",
        path_str(&out),
    ]);
    assert!(stderr.contains("exactly one function"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn filetest_runner_reports_malformed_files_as_failures() {
    let good = scratch_file(
        "runner_good.clif",
        "test error\ntarget gfx803\n\nfunction %f(i64) {\nblock0(v0: i64):\n    debugtrap\n    \
         return\n}\n\n; error: debugtrap\n",
    );
    let bad = scratch_file(
        "runner_bad.clif",
        "test compile\ntarget gfx803\nfunction %f(\n",
    );
    let unknown = scratch_file(
        "runner_unknown_target.clif",
        "test compile\ntarget amdgcn gfx9999\nfunction %f() {\nblock0:\n    return\n}\n",
    );
    let output = clif_util(&["test", path_str(&good), path_str(&bad), path_str(&unknown)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        stdout.lines().last(),
        Some("1 passed, 2 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("FAIL {}:3: ", bad.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("FAIL {}:2: ", unknown.display())),
        "{stdout}"
    );
}

#[test]
fn blessing_writes_error_expectations() {
    let path = scratch_file(
        "bless_error.clif",
        "test error\ntarget gfx803\n\nfunction %f(i64) {\nblock0(v0: i64):\n    debugtrap\n    \
         return\n}\n",
    );
    // Without blessing, a `test error` function without expectations fails.
    let output = clif_util(&["test", path_str(&path)]);
    assert_eq!(output.status.code(), Some(1));

    let output = Command::new(env!("CARGO_BIN_EXE_clif-util"))
        .args(["test", path_str(&path)])
        .env("WAVELIFT_BLESS", "1")
        .env_remove("CI")
        .output()
        .expect("cannot run clif-util");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let blessed = std::fs::read_to_string(&path).expect("cannot read the blessed file");
    assert!(blessed.contains("}\n\n; error: function %f"), "{blessed}");

    let output = clif_util(&["test", path_str(&path)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("1 passed, 0 failed"),
        "{stdout}"
    );
}

#[test]
fn run_prints_results_and_fails_on_a_wrong_expectation() {
    let output = clif_util(&["run", "--target", "gfx803", "filetests/gcn/saxpy.clif"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("buffer y: f32 x 256"), "{stdout}");
    assert!(stdout.contains("[   0] 1.0 3.0 5.0 7.0"), "{stdout}");

    let wrong = scratch_file(
        "wrong_run_line.clif",
        "test run\ntarget amdgcn gfx803\nfunction %f(i32) -> i32 {\nblock0(v0: i32):\n  \
         v1 = iconst.i32 1\n  v2 = iadd v0, v1\n  return v2\n}\n; run: %f(1) == 2\n\
         ; run: %f(1) == 3\n",
    );
    let output = clif_util(&["run", wrong.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ok   run: %f(1) == 2"), "{stdout}");
    assert!(stdout.contains("FAIL run: %f(1) == 3: got 2"), "{stdout}");

    // `clif-util test` fails on the same line.
    let output = clif_util(&["test", wrong.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));

    let bad = scratch_file(
        "bad_launch.clif",
        "test run\ntarget amdgcn gfx803\nfunction %k(i64) system_v {\n  ; launch: %k(nobuffer) \
         size=64\nblock0(v0: i64):\n  return\n}\n",
    );
    let stderr = expect_error(&["run", bad.to_str().unwrap()]);
    assert!(stderr.contains("not a i64 literal"), "{stderr}");
}

#[test]
fn bench_reports_speed_and_memory() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/filetests/gcn/i64.clif");
    let out = clif_util(&["bench", "--repeat", "1", "--target", "gfx900", file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let functions = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("function "))
        .count();
    assert!(
        stdout.starts_with(&format!("{functions} functions from 1 files for gfx900")),
        "{stdout}"
    );
    for figure in [
        "µs per CLIF instruction",
        "CLIF instructions/s",
        "peak heap",
    ] {
        assert!(stdout.contains(figure), "{figure}: {stdout}");
    }
    let error = expect_error(&["bench", "--target", "gfx1"]);
    assert!(error.contains("--target"), "{error}");
}

/// Without Mesa's nouveau_compiler, `bench --compare-nouveau` says so and prints wavelift's
/// numbers for each NV50 chip (CI has no Mesa); with `--compare-llc` too it is an error.
#[test]
fn bench_compare_nouveau_without_nouveau() {
    let missing = concat!(env!("CARGO_TARGET_TMPDIR"), "/no-such-nouveau_compiler");
    let out = clif_util(&["bench", "--compare-nouveau", missing, "--repeat", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.starts_with(&format!("nouveau_compiler not found at {missing}")),
        "{stdout}"
    );
    for header in ["nv50: wavelift", "gt200: wavelift"] {
        assert!(stdout.contains(header), "{header}: {stdout}");
    }
    let kernels = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/kernels"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "clif")
        })
        .count();
    // Per chip: a header, the column names, a row per kernel and the total.
    assert_eq!(
        stdout.lines().count(),
        1 + 2 * (1 + 1 + 1 + kernels + 1),
        "{stdout}"
    );
    let both = clif_util(&["bench", "--compare-llc", "--compare-nouveau", missing]);
    let error = String::from_utf8_lossy(&both.stderr);
    assert!(
        !both.status.success() && error.contains("cannot be used with"),
        "{error}"
    );
}

/// `difftest --file` on a function cranelift-interpreter cannot run (it panics on f16
/// arithmetic) reports an interpreter failure for that function and carries on.
#[test]
fn difftest_file_survives_the_interpreter() {
    let path = scratch_file(
        "f16-difftest.clif",
        "test run\ntarget amdgcn gfx803\n\nfunction %add(f16, f16) -> f16 {\nblock0(v0: f16, \
         v1: f16):\n    v2 = fadd v0, v1\n    return v2\n}\n; run: %add(0x1.0p0, 0x1.0p0) == \
         0x1.0p1\n\nfunction %id(f16) -> f16 {\nblock0(v0: f16):\n    return v0\n}\n; run: \
         %id(-0x1.0p0) == -0x1.0p0\n",
    );
    let output = clif_util(&["difftest", "--file", path_str(&path)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stdout.contains("interpreter failure"), "{stdout}");
    assert!(stdout.contains("%id: ok"), "{stdout}");
}

/// Cranelift's filetest conventions: `; check:` lines under `test compile` are checked
/// against the disassembly (a failing one fails the test), `test interpret` runs the run
/// lines in cranelift-interpreter, `target` lines of Cranelift's own ISAs are passed over
/// (a file with only those is skipped, not failed), and `set` lines are read, an unknown
/// one being an error that names it.
#[test]
fn filetests_read_cranelifts_conventions() {
    let function = "function %add(i32, i32) -> i32 system_v {\nblock0(v0: i32, v1: i32):\n    \
                    v2 = iadd v0, v1\n    return v2\n}\n";
    let run = |name: &str, text: String| {
        let path = scratch_file(name, &text);
        let output = clif_util(&["test", path_str(&path)]);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("panicked"),
            "{stdout}"
        );
        (output.status.code(), stdout)
    };
    let (code, out) = run(
        "checks_pass.clif",
        format!(
            "test compile\ntarget x86_64\ntarget gfx803\n\n{function}; check: v_add_u32_e32 v0\n; nextln: s_setpc_b64\n"
        ),
    );
    assert_eq!(
        (code, out.lines().last()),
        (Some(0), Some("1 passed, 0 failed")),
        "{out}"
    );
    let (code, out) = run(
        "checks_fail.clif",
        format!("test compile\ntarget gfx803\n\n{function}; check: v_mul_lo_u32\n"),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("the check lines fail"), "{out}");
    let (code, out) = run(
        "interpret.clif",
        format!(
            "test interpret\ntest run\nset opt_level=none\ntarget aarch64\ntarget gfx900\n\n{function}; run: %add(2, 3) == 5\n"
        ),
    );
    assert_eq!(
        (code, out.lines().last()),
        (Some(0), Some("2 passed, 0 failed")),
        "{out}"
    );
    let (code, out) = run(
        "interpret_wrong.clif",
        format!("test interpret\n\n{function}; run: %add(2, 3) == 6\n"),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("[interpret]"), "{out}");
    let (code, out) = run(
        "foreign_only.clif",
        format!(
            "test run\ntarget x86_64 has_avx\ntarget s390x\n\n{function}; run: %add(2, 3) == 6\n"
        ),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("skipped: its targets are for other ISAs (x86_64, s390x)"),
        "{out}"
    );
    let (code, out) = run(
        "unknown_setting.clif",
        format!("test compile\nset enable_llvm_abi_extensions=true\ntarget gfx803\n\n{function}"),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("`set enable_llvm_abi_extensions`"), "{out}");
}

/// `clif-util run` says a launch's shape in words, shows a long buffer's first rows and
/// last (`--dump`: every value), and lists a kernel's dispatcher-initialised registers.
#[test]
fn run_output_is_short_and_says_what_the_hardware_sets() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--disasm",
            "--target",
            "gfx803",
            "filetests/gcn/saxpy.clif",
        ];
        args.extend_from_slice(extra);
        let output = clif_util(&args);
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let short = run(&[]);
    assert!(
        short.contains("launch %saxpy(x, y, 2.0), work-group size 64, 4 work-groups:"),
        "{short}"
    );
    assert!(short.contains("27 rows left out"), "{short}");
    assert!(
        short.contains("initialised by the dispatcher: s[0:1] dispatch packet address, s[2:3] kernarg segment address, s4 work-group id x, v0 work-item id x"),
        "{short}"
    );
    assert!(short.contains("; occupancy: 10 waves per SIMD"), "{short}");
    let all = run(&["--dump"]);
    assert!(!all.contains("left out"), "{all}");
    assert!(all.contains("[ 128] 257.0"), "{all}");
}

/// `clif-util compile` takes several files, directories and `-` (standard input).
#[test]
fn compile_takes_files_directories_and_stdin() {
    let output = clif_util(&[
        "compile",
        "-t",
        "gfx900",
        "filetests/gcn/gfx9",
        "filetests/gcn/saxpy.clif",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let functions = stdout
        .lines()
        .filter(|l| l.starts_with("function %"))
        .count();
    let in_dir: usize = std::fs::read_dir("filetests/gcn/gfx9")
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .map(|text| text.lines().filter(|l| l.starts_with("function ")).count())
        .sum();
    assert_eq!(functions, in_dir + 1, "{stdout}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_clif-util"))
        .args(["compile", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read_to_string("filetests/gcn/saxpy.clif").unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("function %saxpy (kernel, amdgcn-amd-amdhsa gfx803):"),
        "{stdout}"
    );
}

/// `clif-util reduce` shrinks a function that does not compile to a smaller one that fails
/// with the same error, and says when nothing fails.
#[test]
fn reduce_shrinks_a_failing_function() {
    let path = scratch_file(
        "reduce.clif",
        "test compile\ntarget amdgcn gfx803\n\nfunction %f(i32, i64, i64) -> i64 {\nblock0(v0: i32, v1: i64, v2: i64):\n    \
         v12 = iconst.i32 5\n    v3 = iadd v0, v12\n    v4 = imul v3, v3\n    v5 = uextend.i64 v4\n    \
         v6 = iadd v5, v1\n    brif v0, block1, block2(v6)\nblock1:\n    v7 = iconcat v6, v2\n    \
         v8 = ireduce.i64 v7\n    v9 = bxor v8, v6\n    jump block2(v9)\nblock2(v10: i64):\n    \
         v11 = iadd v10, v2\n    return v11\n}\n",
    );
    let output = clif_util(&["reduce", path_str(&path)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("(12 instructions → "), "{stdout}");
    assert!(
        stdout.contains("`iconcat` on type i64 is not supported"),
        "{stdout}"
    );
    let reduced = stdout.split_once("\ntest compile\n").unwrap().1;
    let funcs =
        cranelift_reader::parse_functions(&reduced.replace("target amdgcn-amd-amdhsa gfx803", ""))
            .unwrap();
    let insts: usize = funcs[0]
        .layout
        .blocks()
        .map(|b| funcs[0].layout.block_insts(b).count())
        .sum();
    assert!(insts < 12, "{stdout}");
    let good = scratch_file(
        "reduce_good.clif",
        "test compile\ntarget gfx803\n\nfunction %g(i32) -> i32 {\nblock0(v0: i32):\n    return v0\n}\n",
    );
    let stderr = expect_error(&["reduce", path_str(&good)]);
    assert!(stderr.contains("no function fails"), "{stderr}");
}

/// `clif-util objdump` of a file that is no code object, or a truncated one, is an error.
#[test]
fn objdump_refuses_what_is_no_code_object() {
    let text = scratch_file("not_elf.o", "not an object\n");
    assert!(expect_error(&["objdump", path_str(&text)]).contains("not ELF64"));
    let funcs = cranelift_reader::parse_functions(
        "function %k(i64) system_v {\nblock0(v0: i64):\n    return\n}\n",
    )
    .unwrap();
    let object =
        wavelift::compile_module(&funcs, &wavelift::Target::parse("gfx803").unwrap()).unwrap();
    for cut in [16, 64, object.len() / 2, object.len() - 1] {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_errors/truncated.o");
        std::fs::write(&path, &object[..cut]).unwrap();
        let output = clif_util(&["objdump", path_str(&path)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "cut at {cut}: {stderr}");
    }
}

/// `run-object` launches a kernel of a code object wavelift wrote (grid 100 in work-groups
/// of 64: the second is partial), and refuses a kernel name the object does not have and
/// an argument it cannot read.
#[test]
fn run_object_launches_and_reports_bad_arguments() {
    let object = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_errors/saxpy.o");
    std::fs::create_dir_all(object.parent().unwrap()).unwrap();
    let compile = clif_util(&[
        "compile",
        "--emit",
        "obj",
        "-t",
        "gfx900",
        "-o",
        path_str(&object),
        "filetests/gcn/saxpy.clif",
    ]);
    assert!(compile.status.success(), "{compile:?}");
    let launch = |extra: &[&str]| {
        let mut args = vec![
            "run-object",
            path_str(&object),
            "--size",
            "64",
            "--grid",
            "100",
            "--buffer",
            "x: f32 = iota 104",
            "--buffer",
            "y: f32 = fill 104 1.0",
        ];
        args.extend(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let ok = launch(&[
        "--kernel", "saxpy", "--arg", "x", "--arg", "y", "--arg", "f32 2.0",
    ]);
    let output = clif_util(&ok.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    // y[i] = 2 x[i] + 1 for the 100 work-items; y[100..104] stays 1.0.
    assert!(
        stdout.contains("[  96] 193.0 195.0 197.0 199.0 1.0 1.0 1.0 1.0"),
        "{stdout}"
    );
    let missing = launch(&["--kernel", "nope", "--arg", "x"]);
    let stderr = expect_error(&missing.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        stderr.contains("no kernel `nope` (kernels: saxpy)"),
        "{stderr}"
    );
    let bad = launch(&["--kernel", "saxpy", "--arg", "z"]);
    let stderr = expect_error(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(stderr.contains("--arg `z`"), "{stderr}");
}
