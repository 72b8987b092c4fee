//! `clif-util test`: runs filetests.
//!
//! A filetest is a `.clif` file with a header and functions:
//!
//! ```text
//! test compile precise-output     ; or `test compile`, `test error`, `test run`
//! target amdgcn gfx803            ; one or more: the file is checked once per target
//!
//! function %add(i32, i32) -> i32 {
//! block0(v0: i32, v1: i32):
//!     v2 = iadd v0, v1
//!     return v2
//! }
//!
//! ; v_add_u32_e32 v0, vcc, v0, v1
//! ; s_setpc_b64 s[0:1]
//! ```
//!
//! The `;` comments after a function's closing brace are its expectations (`;;` comments
//! are remarks, not expectations, as in Cranelift). What they must match depends on the
//! `test` line:
//!
//! - `test compile precise-output`: the disassembly, one instruction per line;
//! - `test compile`: the function has to compile, and its disassembly must pass the
//!   filecheck directives among its comments (`check:`, `nextln:`, … as in Cranelift);
//! - `test error`: each line is `error: TEXT`, and TEXT must occur in the compile error
//!   (the function must fail to compile);
//! - `test run`: the `; run:` lines, executed by [`run_test`] on the simulator (device
//!   functions), and the kernel-launch directives (`; launch:` …, see `launch.rs`);
//! - `test interpret`: the `; run:` lines, executed by `cranelift-interpreter` alone.
//!
//! `target` lines naming one of Cranelift's own ISAs (`x86_64`, `aarch64`, …) are passed
//! over, so Cranelift's runtests run with a wavelift `target` line added; a file with only
//! such targets runs its `test interpret` and is otherwise skipped, with a message. `set`
//! lines are read: `opt_level` (`none` compiles the function as written, without
//! Cranelift's mid-end) and the verifier on; any other setting is an error naming it.
//!
//! `WAVELIFT_BLESS=1` (or `CRANELIFT_TEST_BLESS=1`, or `--bless`) rewrites mismatching
//! expectations in place instead of failing. The environment variables are ignored when
//! `CI` is set, so that CI can never bless by accident.

use crate::clif_file::{ClifFile, ClifFunction, Comment, HeaderKind};
use crate::compile::{compile_guarded, compile_linked, guarded};
use crate::fragment;
use crate::launch;
use crate::vertex;
use cranelift_codegen::data_value::{DataValue, DisplayDataValues};
use cranelift_reader::{Comparison, Invocation, RunCommand};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use wavelift::FunctionKind;
use wavelift::sim::harness::{
    Reference, called_intrinsics, format_values, interpret, interpret_in, interpret_wave,
    run_device, same_values,
};
use wavelift::sim::{Options, simulator};
use wavelift::{Target, ir};

/// Run filetests: check .clif files against the expectations written under each function.
///
/// A filetest starts with `test` lines (`test compile precise-output`, `test compile`, `test
/// error`, `test run`) and `target` lines (`target amdgcn gfx803`; one or more). The `;`
/// lines after each function's closing brace are its expectations: the disassembly for
/// `precise-output`, `; error: TEXT` lines for `test error` (the function must fail to
/// compile with TEXT in the message).
///
/// Prints a report with a diff for each failing function and ends with `N passed, M
/// failed`; the exit code is non-zero when a check failed. Set WAVELIFT_BLESS=1 (or
/// CRANELIFT_TEST_BLESS=1) to rewrite mismatching expectations from the actual output
/// instead; the variables are ignored when CI is set.
#[derive(clap::Args)]
pub struct Args {
    /// .clif files, or directories searched recursively for .clif files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,

    /// Rewrite mismatching expectations in place (like WAVELIFT_BLESS=1, but also with CI
    /// set).
    #[arg(long)]
    bless: bool,

    /// How many files to check at once (default: the number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,
}

pub fn run(args: Args) -> ExitCode {
    let bless = args.bless || bless_from_env();
    let mut files = Vec::new();
    let mut summary = Summary::default();
    for path in &args.paths {
        if let Err(message) = collect_clif_files(path, &mut files) {
            summary.fail(message);
        }
    }
    if files.is_empty() && summary.failed == 0 {
        summary.fail(format!(
            "no .clif files found in {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .clamp(1, files.len().max(1));
    for report in check_files_in_parallel(&files, bless, jobs) {
        summary.add(report);
    }

    print!("{}", summary.output);
    println!("{} passed, {} failed", summary.passed, summary.failed);
    if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn bless_from_env() -> bool {
    let set = |name| std::env::var(name).is_ok_and(|v| v == "1");
    let requested = set("WAVELIFT_BLESS") || set("CRANELIFT_TEST_BLESS");
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    if requested && in_ci {
        eprintln!("warning: not blessing: CI is set (use --bless to bless anyway)");
        return false;
    }
    requested
}

/// Adds `path` if it is a file, or the `.clif` files under it (sorted) if it is a directory.
pub fn collect_clif_files(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let metadata = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !metadata.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries = std::fs::read_dir(path)
        .and_then(|dir| {
            dir.map(|entry| entry.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_clif_files(&entry, files)?;
        } else if entry.extension().is_some_and(|ext| ext == "clif") {
            files.push(entry);
        }
    }
    Ok(())
}

/// Checks the files on `jobs` threads and returns their reports in the files' order.
fn check_files_in_parallel(files: &[PathBuf], bless: bool, jobs: usize) -> Vec<FileReport> {
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<Option<FileReport>>> = Mutex::new(files.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let worker = || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(index) else { break };
                    let report = check_file(path, bless);
                    if let Ok(mut reports) = reports.lock() {
                        reports[index] = Some(report);
                    }
                }
            };
            // Cranelift's parser and verifier recurse; give them room.
            let spawned = std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, worker);
            if spawned.is_err() {
                break;
            }
        }
    });
    let reports = reports
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    reports
        .into_iter()
        .zip(files)
        .map(|(report, path)| {
            // A missing report means every worker failed to start or this one died.
            report.unwrap_or_else(|| {
                let mut report = FileReport::default();
                report.fail(format!(
                    "{}: was not checked (worker thread failed)",
                    path.display()
                ));
                report
            })
        })
        .collect()
}

/// What checking one file found.
#[derive(Default)]
struct FileReport {
    passed: usize,
    failed: usize,
    /// Failure reports and notes, ready to print.
    output: String,
}

impl FileReport {
    fn fail(&mut self, message: String) {
        self.failed += 1;
        let _ = writeln!(self.output, "FAIL {message}");
    }

    fn note(&mut self, message: String) {
        let _ = writeln!(self.output, "{message}");
    }
}

#[derive(Default)]
struct Summary {
    passed: usize,
    failed: usize,
    output: String,
}

impl Summary {
    fn fail(&mut self, message: String) {
        self.failed += 1;
        let _ = writeln!(self.output, "FAIL {message}");
    }

    fn add(&mut self, report: FileReport) {
        self.passed += report.passed;
        self.failed += report.failed;
        self.output += &report.output;
    }
}

/// The kinds of `test` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TestKind {
    /// `test compile`: every function must compile.
    Compile,
    /// `test compile precise-output`: the disassembly must match the expectations.
    PreciseOutput,
    /// `test error`: every function must fail to compile with the expected message.
    Error,
    /// `test run`: the run lines must pass on the simulator.
    Run,
    /// `test interpret`: the run lines must pass in `cranelift-interpreter` (no target).
    Interpret,
}

impl TestKind {
    fn parse(args: &str) -> Result<TestKind, String> {
        let words: Vec<&str> = args.split_whitespace().collect();
        match words.as_slice() {
            ["compile"] => Ok(TestKind::Compile),
            ["compile", "precise-output"] => Ok(TestKind::PreciseOutput),
            ["error"] => Ok(TestKind::Error),
            ["run"] => Ok(TestKind::Run),
            ["interpret"] => Ok(TestKind::Interpret),
            _ => Err(format!(
                "unknown test `{args}` (known: `compile`, `compile precise-output`, `error`, \
                 `run`, `interpret`)"
            )),
        }
    }

    /// Whether the test reads the expectation lines (and so can bless them).
    fn uses_expectations(self) -> bool {
        matches!(self, TestKind::PreciseOutput | TestKind::Error)
    }
}

fn check_file(path: &Path, bless: bool) -> FileReport {
    let mut report = FileReport::default();
    let name = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            report.fail(format!("{name}: {e}"));
            return report;
        }
    };
    let file = match ClifFile::parse(&text) {
        Ok(file) => file,
        Err(e) => {
            report.fail(e.display_in(&name).to_string());
            return report;
        }
    };
    let (tests, targets) = match read_header(&file, &name) {
        Ok(Header::Tests(tests, targets)) => (tests, targets),
        Ok(Header::Skipped(why)) => {
            report.note(format!("{name}: skipped: {why}"));
            return report;
        }
        Err(message) => {
            report.fail(message);
            return report;
        }
    };

    let mut updates = Vec::new();
    for test in tests {
        for (index, function) in file.functions.iter().enumerate() {
            let context = FunctionContext {
                file: &file,
                name: &name,
                function,
                targets: &targets,
            };
            match test {
                TestKind::Compile => check_compiles(&context, &mut report),
                TestKind::PreciseOutput | TestKind::Error => {
                    if let Some(new) = check_expectations(&context, test, bless, &mut report) {
                        updates.push((index, new));
                    }
                }
                TestKind::Run => check_run_lines(&context, &mut report),
                TestKind::Interpret => check_interpreted(&context, &mut report),
            }
        }
    }

    if !updates.is_empty() {
        match std::fs::write(path, file.with_expectations(&updates)) {
            Ok(()) => report.note(format!(
                "blessed {name}: updated the expectations of {} function{}",
                updates.len(),
                if updates.len() == 1 { "" } else { "s" }
            )),
            Err(e) => report.fail(format!("{name}: cannot write the blessed file: {e}")),
        }
    }
    report
}

/// What a file's header asks for.
enum Header {
    /// The `test` kinds and wavelift's targets.
    Tests(Vec<TestKind>, Vec<Target>),
    /// Nothing to do here, and why: the file is for other ISAs only.
    Skipped(String),
}

/// The ISAs of Cranelift's own `target` lines (`target x86_64 has_avx`), which a file may
/// name beside or instead of wavelift's.
const CRANELIFT_ISAS: &[&str] = &[
    "x86_64",
    "aarch64",
    "riscv64",
    "riscv64gc",
    "s390x",
    "pulley32",
    "pulley64",
    "pulley32be",
    "pulley64be",
];

/// The file's `test` kinds and targets, checked for consistency.
fn read_header(file: &ClifFile, name: &str) -> Result<Header, String> {
    let mut tests = Vec::new();
    for header in file.headers(HeaderKind::Test) {
        let test =
            TestKind::parse(&header.args).map_err(|e| format!("{name}:{}: {e}", header.line))?;
        if tests.contains(&test) {
            return Err(format!(
                "{name}:{}: `test {}` appears twice",
                header.line, header.args
            ));
        }
        if test.uses_expectations() && tests.iter().any(|t: &TestKind| t.uses_expectations()) {
            return Err(format!(
                "{name}:{}: a file can have only one of `test compile precise-output` and \
                 `test error`: both read the lines after each function",
                header.line
            ));
        }
        tests.push(test);
    }
    if tests.is_empty() {
        return Err(format!(
            "{name}: no `test` line (e.g. `test compile precise-output`) before the first function"
        ));
    }
    let opt_level = file.opt_level(name)?;

    let mut targets = Vec::new();
    let mut foreign = Vec::new();
    for header in file.headers(HeaderKind::Target) {
        let isa = header.args.split_whitespace().next().unwrap_or("");
        if CRANELIFT_ISAS.contains(&isa) {
            foreign.push(isa);
            continue;
        }
        let mut target =
            Target::parse(&header.args).map_err(|e| format!("{name}:{}: {e}", header.line))?;
        target.opt_level = opt_level;
        targets.push(target);
    }
    // `test interpret` needs no target; the others run once per wavelift target.
    let targeted = tests.iter().any(|&t| t != TestKind::Interpret);
    if targets.is_empty() && targeted {
        if !foreign.is_empty() {
            tests.retain(|&t| t == TestKind::Interpret);
            if tests.is_empty() {
                return Ok(Header::Skipped(format!(
                    "its targets are for other ISAs ({})",
                    foreign.join(", ")
                )));
            }
        } else {
            return Err(format!(
                "{name}: no `target` line (e.g. `target amdgcn gfx803`) before the first function"
            ));
        }
    }
    Ok(Header::Tests(tests, targets))
}

/// `test interpret`: every run line of the function holds in `cranelift-interpreter`.
fn check_interpreted(context: &FunctionContext, report: &mut FileReport) {
    let func = &context.function.func;
    let (commands, errors) = parse_run_lines(context.file, context.function, context.name);
    for error in errors {
        report.fail(error);
    }
    for (line, command) in &commands {
        let reference = interpret(func, &invocation(command).args);
        let outcome = match (command, reference) {
            (RunCommand::Print(_), _) => None,
            (RunCommand::Run(_, comparison, expected), Reference::Returned(values)) => {
                let same = same_values(expected, &values);
                let holds = match comparison {
                    Comparison::Equals => same,
                    Comparison::NotEquals => !same,
                };
                (!holds)
                    .then(|| format!("cranelift-interpreter returns {}", format_values(&values)))
            }
            (_, Reference::Trapped(trap)) => Some(format!("cranelift-interpreter traps: {trap}")),
            (_, Reference::Unavailable(why)) => Some(format!("not interpreted: {why}")),
        };
        match outcome {
            None => report.passed += 1,
            Some(why) => report.fail(format!(
                "{}:{line}: [interpret] `{command}`: {why}",
                context.name
            )),
        }
    }
}

/// What a check needs to know about the function it checks.
struct FunctionContext<'a> {
    file: &'a ClifFile,
    name: &'a str,
    function: &'a ClifFunction,
    targets: &'a [Target],
}

impl FunctionContext<'_> {
    /// `FILE:LINE: function %f`, the start of every report about the function.
    fn location(&self) -> String {
        format!(
            "{}:{}: function {}",
            self.name, self.function.line, self.function.func.name
        )
    }
}

/// `test compile`: the function compiles for every target, and its disassembly (one
/// instruction per line, as `precise-output` prints it) passes the function's filecheck
/// directives (`; check:`, `; nextln:`, `; sameln:`, `; not:`, `; unordered:`, `; regex:`,
/// as in Cranelift's filetests), if it has any.
fn check_compiles(context: &FunctionContext, report: &mut FileReport) {
    let mut builder = filecheck::CheckerBuilder::new();
    for comment in context.file.function_comments(context.function) {
        if let Err(e) = builder.directive(&comment.text) {
            report.fail(format!(
                "{}:{}: bad directive: {e}",
                context.name, comment.line
            ));
            return;
        }
    }
    let checker = builder.finish();
    for target in context.targets {
        let compiled = match compile_guarded(&context.function.func, target) {
            Ok(compiled) => compiled,
            Err(error) => {
                report.fail(format!("{} [{target}]: {error}", context.location()));
                continue;
            }
        };
        if checker.is_empty() {
            report.passed += 1;
            continue;
        }
        let text: String = wavelift::disassemble_compiled(&compiled, target)
            .into_iter()
            .map(|line| line.text + "\n")
            .collect();
        match checker.explain(&text, filecheck::NO_VARIABLES) {
            Ok((true, _)) => report.passed += 1,
            Ok((false, explanation)) => report.fail(format!(
                "{} [{target}]: the check lines fail on the disassembly:\n{}\n  disassembly:\n{}",
                context.location(),
                indent(&explanation),
                indent(&text)
            )),
            Err(e) => report.fail(format!("{} [{target}]: {e}", context.location())),
        }
    }
}

/// Checks a `precise-output` or `error` test for every target. Returns the new expectation
/// lines when blessing and they differ from the file's.
fn check_expectations(
    context: &FunctionContext,
    test: TestKind,
    bless: bool,
    report: &mut FileReport,
) -> Option<Vec<String>> {
    let expected = context.file.expectations(context.function);
    let expected_texts: Vec<&str> = expected.iter().map(|c| c.text.as_str()).collect();
    let outcomes: Vec<(&Target, Outcome)> = context
        .targets
        .iter()
        .map(|target| {
            let func = &context.function.func;
            let outcome = match test {
                TestKind::PreciseOutput => precise_output(func, target, &expected_texts),
                _ => expected_error(func, target, &expected),
            };
            (target, outcome)
        })
        .collect();

    // Blessing needs every target to fail in a way it can fix, with the same fix: a target
    // that passes as is, or another fix, would be broken by the rewrite.
    let fixes: Option<Vec<&Vec<String>>> = outcomes
        .iter()
        .map(|(_, outcome)| match outcome {
            Outcome::Fail(_, Some(fix)) => Some(fix),
            _ => None,
        })
        .collect();
    if bless && let Some(fixes) = fixes {
        if fixes.windows(2).all(|pair| pair[0] == pair[1]) {
            report.passed += fixes.len();
            return fixes.first().map(|fix| fix.to_vec());
        }
        report.fail(format!(
            "{}: cannot bless: the targets disagree\n{}",
            context.location(),
            indent(&diff(fixes[0], fixes[fixes.len() - 1]))
        ));
        return None;
    }
    for (target, outcome) in outcomes {
        match outcome {
            Outcome::Pass => report.passed += 1,
            Outcome::Fail(message, _) => {
                report.fail(format!("{} [{target}]: {message}", context.location()))
            }
        }
    }
    None
}

enum Outcome {
    Pass,
    /// What went wrong, and the expectation lines that would make it pass, if any.
    Fail(String, Option<Vec<String>>),
}

fn precise_output(func: &ir::Function, target: &Target, expected: &[&str]) -> Outcome {
    let compiled = match compile_guarded(func, target) {
        Ok(compiled) => compiled,
        Err(error) => return Outcome::Fail(format!("failed to compile: {error}"), None),
    };
    let actual = listing(&wavelift::disassemble_compiled(&compiled, target));
    if actual == expected {
        return Outcome::Pass;
    }
    let message = format!(
        "the disassembly does not match the expectation\n{}\n  (set WAVELIFT_BLESS=1 to \
         accept the actual output)",
        indent(&diff(expected, &actual))
    );
    Outcome::Fail(message, Some(actual))
}

/// A precise-output listing as Cranelift's filetests mark theirs: a `Disassembled:`
/// section, `blockN: ; offset 0x…` at the start and at each offset a branch (or NV50 call
/// or reconvergence point) names, the instructions indented under them.
fn listing(lines: &[wavelift::DisasmLine]) -> Vec<String> {
    let mut starts: Vec<usize> = lines.iter().filter_map(|l| l.target).collect();
    starts.push(0);
    starts.sort_unstable();
    starts.dedup();
    let mut out = vec!["Disassembled:".to_string()];
    for line in lines {
        if let Ok(block) = starts.binary_search(&line.offset) {
            out.push(format!("block{block}: ; offset {:#x}", line.offset));
        }
        out.push(format!("  {}", line.text));
    }
    out
}

fn expected_error(func: &ir::Function, target: &Target, expected: &[Comment]) -> Outcome {
    let error = match compile_guarded(func, target) {
        Ok(_) => {
            return Outcome::Fail(
                "compiled, but `test error` expects a compile error".into(),
                None,
            );
        }
        Err(error) => error,
    };
    // Blessing records the first line: later lines (verifier listings) are too brittle.
    let bless_as = Some(vec![format!(
        "error: {}",
        error.lines().next().unwrap_or("")
    )]);
    if expected.is_empty() {
        return Outcome::Fail(
            format!("no `; error: TEXT` line after the function; the error was: {error}"),
            bless_as,
        );
    }
    for comment in expected {
        let Some(wanted) = comment.text.strip_prefix("error:") else {
            return Outcome::Fail(
                format!(
                    "line {}: expectations of `test error` are `; error: TEXT` lines, found `; {}`",
                    comment.line, comment.text
                ),
                bless_as,
            );
        };
        let wanted = wanted.trim();
        if !error.contains(wanted) {
            return Outcome::Fail(
                format!(
                    "the compile error does not contain `{wanted}` (line {})\n  actual error: {error}",
                    comment.line
                ),
                bless_as,
            );
        }
    }
    Outcome::Pass
}

/// What `test run` found for one run line.
pub enum RunOutcome {
    /// The line held; the text describes the result.
    Passed(String),
    Failed(String),
    /// A `print:` line's result.
    Printed(String),
}

/// Executes `function`'s run lines on `target`'s simulator, all in one wave (one line per
/// lane, so that lanes which interfere show up as failures), and checks each result
/// against the line's expectation and the expectation against `cranelift-interpreter`.
/// Returns one outcome per command, in order.
pub fn run_test(
    function: &ir::Function,
    module: &[ir::Function],
    target: &Target,
    commands: &[(usize, RunCommand)],
) -> Vec<RunOutcome> {
    let fail_all = |why: String| {
        commands
            .iter()
            .map(|_| RunOutcome::Failed(why.clone()))
            .collect()
    };
    let compiled = match compile_linked(function, module, target) {
        Ok(compiled) => compiled,
        Err(error) => return fail_all(format!("does not compile: {error}")),
    };
    if compiled.kind != FunctionKind::Device {
        return fail_all(
            "run lines call device functions (call conv `fast` or `tail`); kernels run with \
             `; launch:` directives"
                .into(),
        );
    }
    let lanes: Vec<Vec<DataValue>> = commands
        .iter()
        .map(|(_, command)| invocation(command).args.clone())
        .collect();
    let simulated = guarded("the simulator panicked", || {
        run_device(
            &compiled,
            &function.signature,
            target,
            &lanes,
            &mut simulator(target.arch).memory(),
            &Options::default(),
        )
        .map_err(|error| format!("the simulation failed: {error}"))
    });
    let results = match simulated {
        Ok((results, _)) => results,
        Err(error) => return fail_all(error),
    };
    // Functions that call intrinsics run as waves in the reference too (one run line per
    // lane, as on the simulator), so that cross-lane intrinsics see the same lanes.
    let references: Vec<Reference> = if called_intrinsics(function).next().is_some() {
        let wave_size = simulator(target.arch).lanes();
        lanes
            .chunks(wave_size)
            .flat_map(|wave| interpret_wave(function, wave, wave_size))
            .collect()
    } else {
        lanes
            .iter()
            .map(|args| interpret_in(function, module, args))
            .collect()
    };
    commands
        .iter()
        .zip(results)
        .zip(references)
        .map(|(((_, command), actual), reference)| check_command(command, &actual, reference))
        .collect()
}

fn invocation(command: &RunCommand) -> &Invocation {
    match command {
        RunCommand::Print(invocation) | RunCommand::Run(invocation, _, _) => invocation,
    }
}

/// Checks one run line's simulated result. The expectation itself must agree with
/// `cranelift-interpreter` where the interpreter can say (where CLIF traps, the line
/// documents the result the backend defines instead).
fn check_command(command: &RunCommand, actual: &[DataValue], reference: Reference) -> RunOutcome {
    let (comparison, expected) = match command {
        RunCommand::Print(invocation) => {
            return RunOutcome::Printed(format!(
                "{}({}) == {}",
                invocation.func,
                DisplayDataValues(&invocation.args),
                format_values(actual)
            ));
        }
        RunCommand::Run(_, comparison, expected) => (comparison, expected),
    };
    let holds = |values: &[DataValue]| match comparison {
        Comparison::Equals => same_values(expected, values),
        Comparison::NotEquals => !same_values(expected, values),
    };
    if !holds(actual) {
        return RunOutcome::Failed(format!("got {}", format_values(actual)));
    }
    match reference {
        Reference::Returned(reference) if !holds(&reference) => RunOutcome::Failed(format!(
            "the simulator agrees with the line, but cranelift-interpreter returns {}: the \
             expectation is wrong",
            format_values(&reference)
        )),
        Reference::Returned(_) => RunOutcome::Passed(format_values(actual)),
        Reference::Trapped(trap) => RunOutcome::Passed(format!(
            "{} (CLIF traps here: {trap}; this is the result the backend defines)",
            format_values(actual)
        )),
        Reference::Unavailable(why) => RunOutcome::Passed(format!(
            "{} (not checked against the interpreter: {why})",
            format_values(actual)
        )),
    }
}

/// The parsed run lines of a function, or the failures of the ones that do not parse.
pub fn parse_run_lines(
    file: &ClifFile,
    function: &ClifFunction,
    name: &str,
) -> (Vec<(usize, RunCommand)>, Vec<String>) {
    let func = &function.func;
    let mut commands = Vec::new();
    let mut errors = Vec::new();
    for comment in file.run_lines(function) {
        match cranelift_reader::parse_run_command(&comment.text, &func.signature) {
            Ok(Some(command)) => commands.push((comment.line, command)),
            Ok(None) => {}
            Err(e) => errors.push(format!(
                "{name}:{}: bad run line for function {}: {}",
                comment.line, func.name, e.message
            )),
        }
    }
    (commands, errors)
}

fn check_run_lines(context: &FunctionContext, report: &mut FileReport) {
    let func = &context.function.func;
    let (commands, errors) = parse_run_lines(context.file, context.function, context.name);
    for error in errors {
        report.fail(error);
    }
    check_launches(context, report);
    check_fragments(context, report);
    check_vertices(context, report);
    if commands.is_empty() {
        return;
    }
    for target in context.targets {
        let module: Vec<ir::Function> = context
            .file
            .functions
            .iter()
            .map(|f| f.func.clone())
            .collect();
        let outcomes = run_test(func, &module, target, &commands);
        for ((line, command), outcome) in commands.iter().zip(outcomes) {
            match outcome {
                RunOutcome::Passed(_) | RunOutcome::Printed(_) => report.passed += 1,
                RunOutcome::Failed(why) => report.fail(format!(
                    "{}:{line}: [{target}] `{command}`: {why}",
                    context.name
                )),
            }
        }
    }
}

/// Runs the function's kernel launches (`; launch:` directives) and checks their `; expect`
/// lines.
fn check_launches(context: &FunctionContext, report: &mut FileReport) {
    let func = &context.function.func;
    let lines = context.file.launch_lines(context.function);
    if lines.is_empty() {
        return;
    }
    let specs = match launch::parse(func, &lines) {
        Ok(specs) => specs,
        Err((line, why)) => {
            report.fail(format!("{}:{line}: {why}", context.name));
            return;
        }
    };
    let module: Vec<ir::Function> = context
        .file
        .functions
        .iter()
        .map(|f| f.func.clone())
        .collect();
    for target in context.targets {
        // The reference runs with the target's addresses and lanes per wave.
        let references: Vec<launch::Reference> = specs
            .iter()
            .map(|spec| {
                launch::reference(func, &module, target, spec)
                    .unwrap_or_else(launch::Reference::Unavailable)
            })
            .collect();
        let compiled = match compile_linked(func, &module, target) {
            Ok(compiled) => compiled,
            Err(error) => {
                report.fail(format!(
                    "{}: [{target}] does not compile: {error}",
                    context.name
                ));
                continue;
            }
        };
        for (spec, reference) in specs.iter().zip(&references) {
            match guarded("the simulator panicked", || {
                launch::execute(func, &compiled, target, spec)
            }) {
                Ok(mut outcome) => {
                    if let launch::Reference::Buffers(reference) = reference {
                        outcome
                            .failures
                            .extend(launch::differences(&outcome.buffers, reference));
                    }
                    if outcome.failures.is_empty() {
                        report.passed += 1;
                    }
                    for failure in outcome.failures {
                        report.fail(format!(
                            "{}:{}: [{target}] `{}`: {failure}",
                            context.name, spec.line, spec.text
                        ));
                    }
                }
                Err(why) => report.fail(format!(
                    "{}:{}: [{target}] `{}`: {why}",
                    context.name, spec.line, spec.text
                )),
            }
        }
    }
}

/// Runs the function's fragment launches (`; fragment:` directives) and checks them lane
/// by lane against the interpreter and their `; pixel` lines.
fn check_fragments(context: &FunctionContext, report: &mut FileReport) {
    let lines = context.file.fragment_lines(context.function);
    let func = &context.function.func;
    check_shader_launches(
        context,
        report,
        &lines,
        fragment::parse,
        |spec| (spec.line, &spec.text),
        |spec, compiled, target| Ok(fragment::execute(func, compiled, target, spec)?.failures),
    );
}

/// Runs the function's vertex launches (`; vertex:` directives) and checks them vertex by
/// vertex against the interpreter and their `; vertex N` lines.
fn check_vertices(context: &FunctionContext, report: &mut FileReport) {
    let lines = context.file.vertex_lines(context.function);
    let func = &context.function.func;
    check_shader_launches(
        context,
        report,
        &lines,
        vertex::parse,
        |spec| (spec.line, &spec.text),
        |spec, compiled, target| Ok(vertex::execute(func, compiled, target, spec)?.failures),
    );
}

/// Parses a shader's launch directives `lines` with `parse` and runs each on every target
/// with `execute`, which gives the launch's failures; `describe` gives a directive's line
/// and text.
fn check_shader_launches<S>(
    context: &FunctionContext,
    report: &mut FileReport,
    lines: &[Comment],
    parse: impl Fn(&ir::Function, &[Comment]) -> Result<Vec<S>, launch::DirectiveError>,
    describe: impl Fn(&S) -> (usize, &String),
    execute: impl Fn(&S, &wavelift::CompiledCode, &Target) -> Result<Vec<String>, String>,
) {
    let func = &context.function.func;
    if lines.is_empty() {
        return;
    }
    let specs = match parse(func, lines) {
        Ok(specs) => specs,
        Err((line, why)) => {
            report.fail(format!("{}:{line}: {why}", context.name));
            return;
        }
    };
    for target in context.targets {
        let compiled = match compile_guarded(func, target) {
            Ok(compiled) => compiled,
            Err(error) => {
                report.fail(format!(
                    "{}: [{target}] does not compile: {error}",
                    context.name
                ));
                continue;
            }
        };
        for spec in &specs {
            let (line, text) = describe(spec);
            match guarded("the simulator panicked", || {
                execute(spec, &compiled, target)
            }) {
                Ok(failures) if failures.is_empty() => report.passed += 1,
                Ok(failures) => {
                    for failure in failures {
                        report.fail(format!(
                            "{}:{line}: [{target}] `{text}`: {failure}",
                            context.name
                        ));
                    }
                }
                Err(why) => report.fail(format!(
                    "{}:{line}: [{target}] `{text}`: {why}",
                    context.name
                )),
            }
        }
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}\n"))
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// A line diff of `expected` and `actual`: ` ` kept, `-` only expected, `+` only actual.
fn diff<A: AsRef<str>, B: AsRef<str>>(expected: &[A], actual: &[B]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut out = String::from("--- expected\n+++ actual\n");
    // Longest common subsequence by dynamic programming; filetest outputs are short, and
    // for very long ones a plain "all removed, all added" diff is still correct.
    if n.saturating_mul(m) > 4_000_000 {
        for line in expected {
            let _ = writeln!(out, "-{}", line.as_ref());
        }
        for line in actual {
            let _ = writeln!(out, "+{}", line.as_ref());
        }
        return out;
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i].as_ref() == actual[j].as_ref() {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i].as_ref() == actual[j].as_ref() {
            let _ = writeln!(out, " {}", expected[i].as_ref());
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "-{}", expected[i].as_ref());
            i += 1;
        } else {
            let _ = writeln!(out, "+{}", actual[j].as_ref());
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lines_are_checked_against_the_interpreter() {
        let func = cranelift_reader::parse_functions(
            "function %f(i32) -> i32 {\nblock0(v0: i32):\n v1 = iconst.i32 1\n \
             v2 = iadd v0, v1\n return v2\n}",
        )
        .unwrap()
        .remove(0);
        let command = |text: &str| {
            cranelift_reader::parse_run_command(text, &func.signature)
                .unwrap()
                .unwrap()
        };
        // A simulated result that agrees with a wrong expectation: the interpreter catches it.
        let wrong = command("run: %f(1) == 3");
        let outcome = check_command(
            &wrong,
            &[DataValue::I32(3)],
            interpret(&func, &[DataValue::I32(1)]),
        );
        assert!(
            matches!(&outcome, RunOutcome::Failed(why) if why.contains("cranelift-interpreter returns 2")),
        );
        let right = command("run: %f(1) == 2");
        assert!(matches!(
            check_command(
                &right,
                &[DataValue::I32(2)],
                interpret(&func, &[DataValue::I32(1)])
            ),
            RunOutcome::Passed(_)
        ));
        assert!(matches!(
            check_command(
                &right,
                &[DataValue::I32(5)],
                interpret(&func, &[DataValue::I32(1)])
            ),
            RunOutcome::Failed(_)
        ));
        let differs = command("run: %f(1) != 3");
        assert!(matches!(
            check_command(
                &differs,
                &[DataValue::I32(2)],
                interpret(&func, &[DataValue::I32(1)])
            ),
            RunOutcome::Passed(_)
        ));
    }

    #[test]
    fn launches_are_checked_against_the_interpreter() {
        // Each work-item stores 1 at out[i], reads out[1 - i] and stores that at out[2 + i].
        // On the GPU both lanes store before either loads: out = [1 1 1 1], which the
        // expectation says. The interpreter runs work-item 0 to the end before work-item 1
        // starts, so it reads 0 into out[2]: the buffers differ (kernels whose work-items
        // read each other's stores are beyond the reference), and the check reports it.
        let text = "test run\ntarget amdgcn gfx803\n\n\
            function %k(i64) system_v {\n\
            ; buffer out: i32 = zero 4\n\
            ; launch: %k(out) size=2\n\
            ; expect out: i32 = [1 1 1 1]\n\
            fn0 = %wavelift_workitem_id_x() -> i32\n\
            block0(v0: i64):\n\
            v1 = call fn0()\n\
            v2 = uextend.i64 v1\n\
            v3 = iconst.i64 2\n\
            v4 = ishl v2, v3\n\
            v5 = iadd v0, v4\n\
            v6 = iconst.i32 1\n\
            store v6, v5\n\
            v7 = iconst.i64 4\n\
            v8 = isub v7, v4\n\
            v9 = iadd v0, v8\n\
            v10 = load.i32 v9\n\
            store v10, v5+8\n\
            return\n\
            }\n";
        let path = std::env::temp_dir().join(format!("wavelift-race-{}.clif", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let report = check_file(&path, false);
        let _ = std::fs::remove_file(&path);
        assert_eq!(report.failed, 1, "{}", report.output);
        assert!(
            report
                .output
                .contains("1 of 4 elements differ from cranelift-interpreter's; first at index 2: interpreter 0, simulator 1"),
            "{}",
            report.output
        );
    }

    #[test]
    fn test_lines_parse() {
        assert_eq!(TestKind::parse("compile"), Ok(TestKind::Compile));
        assert_eq!(
            TestKind::parse("compile  precise-output"),
            Ok(TestKind::PreciseOutput)
        );
        assert_eq!(TestKind::parse("error"), Ok(TestKind::Error));
        assert_eq!(TestKind::parse("run"), Ok(TestKind::Run));
        assert_eq!(TestKind::parse("interpret"), Ok(TestKind::Interpret));
        assert!(TestKind::parse("compile precise").is_err());
        assert!(TestKind::parse("optimize").is_err());
    }

    #[test]
    fn diff_marks_removed_and_added_lines() {
        let d = diff(&["a", "b", "c"], &["a", "x", "c", "d"]);
        assert_eq!(d, "--- expected\n+++ actual\n a\n-b\n+x\n c\n+d\n");
        assert_eq!(diff::<&str, &str>(&[], &[]), "--- expected\n+++ actual\n");
    }

    #[test]
    fn header_errors_name_the_line() {
        let name = "t.clif";
        let file = ClifFile::parse("test compile\ntest bogus\ntarget gfx803\n").unwrap();
        let err = read_header(&file, name).err().unwrap();
        assert!(err.starts_with("t.clif:2: unknown test `bogus`"), "{err}");

        let file = ClifFile::parse("test compile precise-output\ntest error\n").unwrap();
        let err = read_header(&file, name).err().unwrap();
        assert!(
            err.starts_with("t.clif:2: a file can have only one"),
            "{err}"
        );

        let file = ClifFile::parse("test compile\n").unwrap();
        let err = read_header(&file, name).err().unwrap();
        assert!(err.contains("no `target` line"), "{err}");

        let file = ClifFile::parse("target gfx803\n").unwrap();
        let err = read_header(&file, name).err().unwrap();
        assert!(err.contains("no `test` line"), "{err}");
    }
}
