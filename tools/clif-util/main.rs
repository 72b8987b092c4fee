//! `clif-util`: wavelift's command-line tool. Each subcommand lives in its own file with an
//! `Args` struct (its options, parsed by clap) and a `run(Args) -> ExitCode` function; a new
//! subcommand is a new file, a `mod` line, a `Command` variant and a `match` arm.

mod bench;
mod clif_file;
mod compare_llc;
mod compare_nouveau;
mod compile;
mod difftest;
mod fragment;
mod launch;
mod objdump;
mod parallel;
mod reduce;
mod run;
mod run_object;
mod test;
mod vertex;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: bench::Counting = bench::Counting;

/// Compiles Cranelift IR (`.clif` files) to GPU machine code and runs wavelift's filetests.
#[derive(Parser)]
#[command(name = "clif-util", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Test(test::Args),
    Compile(compile::Args),
    Run(run::Args),
    RunObject(run_object::Args),
    Difftest(difftest::Args),
    Bench(bench::Args),
    Objdump(objdump::Args),
    Reduce(reduce::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Test(args) => test::run(args),
        Command::Compile(args) => compile::run(args),
        Command::Run(args) => run::run(args),
        Command::RunObject(args) => run_object::run(args),
        Command::Difftest(args) => difftest::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Objdump(args) => objdump::run(args),
        Command::Reduce(args) => reduce::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
