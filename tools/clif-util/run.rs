//! `clif-util run`: runs a .clif file's run lines and kernel launches on the simulator and
//! reports each.

use crate::clif_file::ClifFile;
use crate::compile::{choose_target, compile_guarded, compile_linked, format_listing, guarded};
use crate::fragment;
use crate::launch;
use crate::test::{RunOutcome, parse_run_lines, run_test};
use crate::vertex;
use std::path::PathBuf;
use std::process::ExitCode;

/// Run a .clif file's functions on the simulator: each `; run:`/`; print:` line (device
/// functions, one lane per line) and each `; launch:` directive (kernels over a grid; the
/// buffers are printed after the launch).
#[derive(clap::Args)]
pub struct Args {
    /// The .clif file to run.
    file: PathBuf,

    /// The target: a CPU name (`gfx803`) or an architecture or triple and a CPU name.
    /// Defaults to the file's first `target` line.
    #[arg(long, short)]
    target: Option<String>,

    /// Also print each function's disassembly.
    #[arg(long)]
    disasm: bool,

    /// Print every value of the buffers a launch wrote (by default the first rows and the
    /// last).
    #[arg(long)]
    dump: bool,
}

pub fn run(args: Args) -> ExitCode {
    match run_file(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs everything in the file; `Ok(false)` when a check failed.
fn run_file(args: &Args) -> Result<bool, String> {
    let name = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{name}: {e}"))?;
    let file = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
    let target = choose_target(args.target.as_deref(), &file, &name)?;
    let mut all_passed = true;
    let mut ran = 0;
    let module: Vec<wavelift::ir::Function> =
        file.functions.iter().map(|f| f.func.clone()).collect();
    for function in &file.functions {
        let func = &function.func;
        let (commands, errors) = parse_run_lines(&file, function, &name);
        let launch_lines = file.launch_lines(function);
        let fragment_lines = file.fragment_lines(function);
        let vertex_lines = file.vertex_lines(function);
        if commands.is_empty()
            && launch_lines.is_empty()
            && fragment_lines.is_empty()
            && vertex_lines.is_empty()
            && errors.is_empty()
        {
            continue;
        }
        for error in errors {
            println!("FAIL {error}");
            all_passed = false;
        }
        if args.disasm {
            let compiled = compile_guarded(func, &target).map_err(|e| format!("{name}: {e}"))?;
            println!("{}", format_listing(func, &target, &compiled));
        }
        let compiled =
            compile_linked(func, &module, &target).map_err(|e| format!("{name}: {e}"))?;
        for ((line, command), outcome) in commands
            .iter()
            .zip(run_test(func, &module, &target, &commands))
        {
            ran += 1;
            match outcome {
                RunOutcome::Passed(result) => println!("{name}:{line}: ok   {command}  [{result}]"),
                RunOutcome::Printed(text) => println!("{name}:{line}: {text}"),
                RunOutcome::Failed(why) => {
                    all_passed = false;
                    println!("{name}:{line}: FAIL {command}: {why}");
                }
            }
        }
        let specs = launch::parse(func, &launch_lines)
            .map_err(|(line, why)| format!("{name}:{line}: {why}"))?;
        for spec in &specs {
            ran += 1;
            let outcome = guarded("the simulator panicked", || {
                launch::execute(func, &compiled, &target, spec)
            })
            .map_err(|why| format!("{name}:{}: `{}`: {why}", spec.line, spec.text))?;
            println!(
                "{name}:{}: launch {}, {}: {} waves, {} instructions",
                spec.line,
                spec.call(),
                spec.shape(),
                outcome.stats.waves,
                outcome.stats.instructions
            );
            let (outputs, inputs): (Vec<_>, Vec<_>) = outcome
                .buffers
                .iter()
                .partition(|buffer| launch::written(spec, buffer));
            for buffer in outputs {
                print!("{}", launch::format_buffer(buffer, args.dump));
            }
            if !inputs.is_empty() {
                let names: Vec<&str> = inputs.iter().map(|b| b.name.as_str()).collect();
                println!("{name}:{}: unchanged: {}", spec.line, names.join(", "));
            }
            for failure in &outcome.failures {
                all_passed = false;
                println!("{name}:{}: FAIL {failure}", spec.line);
            }
            match launch::reference(func, &module, &target, spec) {
                Ok(launch::Reference::Buffers(reference)) => {
                    let differences = launch::differences(&outcome.buffers, &reference);
                    if differences.is_empty() {
                        println!(
                            "{name}:{}: ok   cranelift-interpreter leaves the same buffers",
                            spec.line
                        );
                    }
                    for difference in differences {
                        all_passed = false;
                        println!("{name}:{}: FAIL {difference}", spec.line);
                    }
                }
                Ok(launch::Reference::Unavailable(why)) | Err(why) => println!(
                    "{name}:{}: not checked against cranelift-interpreter: {why}",
                    spec.line
                ),
            }
            if outcome.failures.is_empty() && !spec_has_no_expectations(spec) {
                println!(
                    "{name}:{}: ok   the buffers hold the expected values",
                    spec.line
                );
            }
        }
        let specs = fragment::parse(func, &fragment_lines)
            .map_err(|(line, why)| format!("{name}:{line}: {why}"))?;
        for spec in &specs {
            ran += 1;
            let outcome = guarded("the simulator panicked", || {
                fragment::execute(func, &compiled, &target, spec)
            })
            .map_err(|why| format!("{name}:{}: `{}`: {why}", spec.line, spec.text))?;
            println!(
                "{name}:{}: {}: {} instructions",
                spec.line, spec.text, outcome.stats.instructions
            );
            for (lane, out) in outcome.outputs.iter().enumerate() {
                if out.is_some() || spec.covers(lane) {
                    println!("  pixel {lane}: {}", fragment::format_lane(out.as_ref()));
                }
            }
            for failure in &outcome.failures {
                all_passed = false;
                println!("{name}:{}: FAIL {failure}", spec.line);
            }
            if outcome.failures.is_empty() {
                println!(
                    "{name}:{}: ok   cranelift-interpreter gives the same outputs",
                    spec.line
                );
            }
        }
        let specs = vertex::parse(func, &vertex_lines)
            .map_err(|(line, why)| format!("{name}:{line}: {why}"))?;
        for spec in &specs {
            ran += 1;
            let outcome = guarded("the simulator panicked", || {
                vertex::execute(func, &compiled, &target, spec)
            })
            .map_err(|why| format!("{name}:{}: `{}`: {why}", spec.line, spec.text))?;
            println!(
                "{name}:{}: {}: {} instructions in {} waves",
                spec.line, spec.text, outcome.stats.instructions, outcome.stats.waves
            );
            for (k, out) in outcome.outputs.iter().enumerate() {
                println!("  vertex {k}: {}", vertex::format_vertex(out));
            }
            for failure in &outcome.failures {
                all_passed = false;
                println!("{name}:{}: FAIL {failure}", spec.line);
            }
            if outcome.failures.is_empty() {
                println!(
                    "{name}:{}: ok   cranelift-interpreter gives the same outputs",
                    spec.line
                );
            }
        }
    }
    if ran == 0 {
        return Err(format!(
            "{name}: no `; run:` lines, `; launch:`, `; fragment:` or `; vertex:` directives"
        ));
    }
    Ok(all_passed)
}

fn spec_has_no_expectations(spec: &launch::LaunchSpec) -> bool {
    spec.expectation_count() == 0
}
