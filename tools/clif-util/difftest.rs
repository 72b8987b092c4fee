//! `clif-util difftest`: a differential-testing campaign (see `docs/testing.md`).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;
use wavelift::Target;
use wavelift::difftest::{self, CampaignOptions};

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
    options.generator.max_insts = args.max_insts.max(1);
    options.run.kernel_runs = args.kernel_runs;
    options.run.simulate = !args.no_sim;
    if let Some(jobs) = args.jobs {
        options.threads = jobs.max(1);
    }
    if args.print {
        for index in args.start..args.start + args.count {
            let (func, lanes) = difftest::case(seed, index, &options);
            println!(";; seed {seed}, case {index}");
            print!("{}", func.display());
            for lane in lanes.iter().take(4) {
                if let Ok(difftest::Reference::Returned(results)) =
                    difftest::interpret(&func, &lane.args)
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
            print!("{summary}");
            println!("ok (seed {seed}, {:.1} s)", started.elapsed().as_secs_f64());
            ExitCode::SUCCESS
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
