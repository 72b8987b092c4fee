//! `clif-util difftest`: a differential-testing campaign (see `docs/testing.md`).

use crate::clif_file::{ClifFile, HeaderKind};
use cranelift_reader::RunCommand;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::Instant;
use wavelift::Target;
use wavelift::difftest::{self, CampaignOptions, LaneInputs, SplitMix64};
use wavelift::ir::{self, Opcode};

/// Run random CLIF functions on the simulator and compare with cranelift-interpreter.
///
/// Each function is generated from the seed and its index, compiled once as a device
/// function (run with different random inputs in each lane of a wave) and once as a
/// kernel with uniform arguments, and every lane's results are compared with the
/// interpreter's. Prints progress, then a summary with the compile errors by reason (gaps
/// in the backend). On a mismatch, prints a reproduction ending in a filetest ready to
/// paste into filetests/gcn/regress-NAME.clif, and exits with code 1.
#[derive(clap::Args)]
pub struct Args {
    /// The target: a CPU name (`gfx803`) or a triple and a CPU name.
    #[arg(long, short, default_value = "gfx803")]
    target: String,

    /// How many functions.
    #[arg(long, short, default_value_t = 10_000)]
    count: u64,

    /// The campaign's seed (default: from the clock, printed).
    #[arg(long, short)]
    seed: Option<u64>,

    /// The index of the first function (with `--count 1`, reruns one case of a seed).
    #[arg(long, default_value_t = 0)]
    start: u64,

    /// Input sets (lanes) per function, 1 to 64.
    #[arg(long, default_value_t = 64)]
    lanes: usize,

    /// Kernel launches (uniform arguments) per function.
    #[arg(long, default_value_t = 2)]
    kernel_runs: usize,

    /// At most this many instructions per function (besides constants).
    #[arg(long, default_value_t = 16)]
    max_insts: usize,

    /// Worker threads (default: the number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,

    /// Print each generated function instead of running the campaign.
    #[arg(long)]
    print: bool,

    /// Only compile and interpret, without the simulator.
    #[arg(long)]
    no_sim: bool,

    /// Go on after a mismatch, up to this many, and print them all at the end.
    #[arg(long, default_value_t = 0)]
    keep_going: usize,

    /// Opcodes not to generate, comma-separated (`--exclude popcnt,fmin`): to go on
    /// testing the rest while a known bug is being fixed.
    #[arg(long, value_delimiter = ',')]
    exclude: Vec<String>,

    /// Count internal compile errors with the compile errors instead of failing on them.
    #[arg(long)]
    tolerate_internal_errors: bool,

    /// Instead of random functions, run the functions of this .clif file with the
    /// arguments of their `; run:` lines (one lane each, random bits above narrow
    /// arguments), comparing with the interpreter (the results written in the run lines
    /// are not used). For minimising a mismatch by hand.
    #[arg(long)]
    file: Option<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    let target = match Target::parse(&args.target) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut options = CampaignOptions {
        lanes: args.lanes.clamp(1, 64),
        start: args.start,
        ..CampaignOptions::default()
    };
    options.generator.profile = difftest::Profile::of(&target);
    options.generator.max_insts = args.max_insts.max(1);
    options.run.kernel_runs = args.kernel_runs;
    options.run.simulate = !args.no_sim;
    if let Some(jobs) = args.jobs {
        options.threads = jobs.max(1);
    }
    options.keep_going = args.keep_going;
    options.run.tolerate_internal_errors = args.tolerate_internal_errors;
    for name in &args.exclude {
        match Opcode::from_str(name) {
            Ok(opcode) => options.generator.exclude.push(opcode),
            Err(_) => {
                eprintln!("error: `{name}` is not a CLIF opcode");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(file) = &args.file {
        return run_file(file, &target, seed, &options);
    }
    if args.print {
        for index in args.start..args.start + args.count {
            let (func, callees, lanes) = difftest::case(seed, index, &options);
            println!(";; seed {seed}, case {index}");
            for callee in &callees {
                println!("{}", callee.display());
            }
            print!("{}", func.display());
            for lane in lanes.iter().take(4) {
                if let difftest::Reference::Returned(results) =
                    difftest::interpret_in(&func, &callees, &lane.args)
                {
                    println!("{}", difftest::run_line("f", &lane.args, &results));
                }
            }
            println!();
        }
        return ExitCode::SUCCESS;
    }

    println!(
        "difftest: target {}, seed {seed}, functions {}..{}, {} lanes, {} threads",
        target.cpu,
        args.start,
        args.start + args.count,
        options.lanes,
        options.threads
    );
    let started = Instant::now();
    let mut last_report = Instant::now();
    let mut progress = |summary: &difftest::Summary| {
        if last_report.elapsed().as_secs_f64() >= 5.0 {
            last_report = Instant::now();
            println!(
                "  {} / {} functions, {:.0} functions/s, {} lanes compared, {} compile errors",
                summary.functions,
                args.count,
                summary.functions_per_second(),
                summary.lanes_compared,
                summary.compile_errors.values().sum::<u64>()
            );
            let _ = std::io::stdout().flush();
        }
    };
    match difftest::campaign(&target, seed, args.count, &options, &mut progress) {
        Ok(summary) => {
            for mismatch in &summary.mismatches {
                println!("{mismatch}");
            }
            print!("{summary}");
            if summary.mismatches.is_empty() {
                println!("ok (seed {seed}, {:.1} s)", started.elapsed().as_secs_f64());
                ExitCode::SUCCESS
            } else {
                println!("FAILED (seed {seed})");
                ExitCode::FAILURE
            }
        }
        Err(mismatch) => {
            println!();
            print!("{mismatch}");
            println!();
            println!("FAILED (seed {seed})");
            ExitCode::FAILURE
        }
    }
}

/// `--file`: runs each function of a .clif file on its run lines' arguments.
fn run_file(path: &PathBuf, target: &Target, seed: u64, options: &CampaignOptions) -> ExitCode {
    let name = path.display().to_string();
    let file = match std::fs::read_to_string(path)
        .map_err(|e| format!("{name}: {e}"))
        .and_then(|text| ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string()))
    {
        Ok(file) => file,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let target = match file.headers(HeaderKind::Target).next() {
        Some(header) if Target::parse(&header.args).is_ok() => {
            Target::parse(&header.args).expect("checked")
        }
        _ => target.clone(),
    };
    let mut rng = SplitMix64::new(seed);
    let mut failed = false;
    let module: Vec<ir::Function> = file.functions.iter().map(|f| f.func.clone()).collect();
    for function in &file.functions {
        let func = &function.func;
        // A function without run lines is a device function another one calls.
        if file.run_lines(function).is_empty() {
            continue;
        }
        // The functions of the file it calls.
        let called: Vec<String> = func
            .dfg
            .ext_funcs
            .values()
            .map(|ext| ext.name.display(Some(&func.params)).to_string())
            .collect();
        let callees: Vec<ir::Function> = module
            .iter()
            .filter(|f| f.name != func.name && called.contains(&f.name.to_string()))
            .cloned()
            .collect();
        let mut lanes = Vec::new();
        for comment in file.run_lines(function) {
            match cranelift_reader::parse_run_command(&comment.text, &func.signature) {
                Ok(Some(RunCommand::Run(invocation, _, expected))) => {
                    // The run line's own expectation should be what the interpreter says.
                    if let difftest::Reference::Returned(results) =
                        difftest::interpret_in(func, &callees, &invocation.args)
                        && (results.len() != expected.len()
                            || results.iter().zip(&expected).any(|(r, e)| !r.bitwise_eq(e)))
                    {
                        failed = true;
                        println!(
                            "{name}:{}: the interpreter disagrees with the run line: {}",
                            comment.line,
                            difftest::run_line(
                                &func.name.to_string()[1..],
                                &invocation.args,
                                &results
                            )
                        );
                    }
                    lanes.push(LaneInputs {
                        args: invocation.args,
                        noise: rng.next_u32(),
                    })
                }
                Ok(Some(RunCommand::Print(invocation))) => lanes.push(LaneInputs {
                    args: invocation.args,
                    noise: rng.next_u32(),
                }),
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {name}:{}: {}", comment.line, e.message);
                    return ExitCode::FAILURE;
                }
            }
        }
        match difftest::run_case_with(func, &callees, &target, &lanes, &options.run) {
            Ok(outcome) => {
                let errors: Vec<String> = outcome
                    .compile_errors
                    .iter()
                    .map(|(v, e)| format!("{v:?}: {}", e.reason))
                    .collect();
                println!(
                    "{}: ok, {} lanes and {} kernel launches compared, {} trapped{}",
                    func.name,
                    outcome.lanes_compared,
                    outcome.kernel_runs_compared,
                    outcome.lanes_trapped,
                    if errors.is_empty() {
                        String::new()
                    } else {
                        format!("; compile errors: {}", errors.join("; "))
                    }
                );
            }
            Err(mismatch) => {
                failed = true;
                println!("{mismatch}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
