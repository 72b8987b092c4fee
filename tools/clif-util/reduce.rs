//! `clif-util reduce`: shrinks a function that fails — a compile error, a compiler panic,
//! or a simulated result that differs from `cranelift-interpreter`'s on one of its run
//! lines — to a smaller function that fails the same way (a bugpoint).
//!
//! The reduction is greedy and repeated until nothing changes: each instruction with one
//! scalar result becomes a constant zero of its type, each instruction without results
//! that is not a terminator goes, each conditional branch becomes a jump to one of its
//! destinations; a change is kept when the function still verifies and still fails the
//! same way. Unreachable blocks and results nothing reads go at the end of each round.

use crate::clif_file::ClifFile;
use crate::compile::{choose_target, compile_guarded, guarded};
use crate::test::parse_run_lines;
use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::{InstBuilder, Opcode, types};
use cranelift_codegen::settings;
use cranelift_reader::RunCommand;
use std::path::PathBuf;
use std::process::ExitCode;
use wavelift::sim::harness::{Reference, interpret, run_device, same_values};
use wavelift::sim::{Options, simulator};
use wavelift::{FunctionKind, Target, ir};

/// Shrink a failing function to a smaller one that fails the same way.
///
/// A function fails when it does not compile (the same error, value numbers aside), when
/// the compiler panics, or when the simulator's result differs from cranelift-interpreter's
/// for the arguments of one of its `; run:` lines. The reduced function is printed with the
/// run line that shows the mismatch.
#[derive(clap::Args)]
pub struct Args {
    /// The .clif file holding the function.
    file: PathBuf,

    /// The target (default: the file's first `target` line).
    #[arg(long, short)]
    target: Option<String>,

    /// The function to reduce (default: the first one that fails).
    #[arg(long)]
    function: Option<String>,
}

pub fn run(args: Args) -> ExitCode {
    match reduce_file(&args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// How a function fails.
#[derive(Clone, Debug, PartialEq)]
enum Failure {
    /// A compile error or panic, its message with value and block numbers blanked.
    Error(String),
    /// The simulator and the interpreter differ for these arguments.
    Mismatch(Vec<DataValue>),
}

/// The message of a compile error with what a reduction renumbers blanked: value and block
/// numbers and the quoted instruction.
fn error_shape(message: &str) -> String {
    let without_inst = match (message.find("instruction `"), message.rfind("`: ")) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{}", &message[..start], &message[end + 3..])
        }
        _ => message.to_string(),
    };
    let mut out = String::new();
    let mut chars = without_inst.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if (c == 'v' || c == 'k') && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('N');
        }
    }
    out
}

/// How `func` fails for `target` with the argument lists `lanes`, if it does.
fn failure(func: &ir::Function, target: &Target, lanes: &[Vec<DataValue>]) -> Option<Failure> {
    let compiled = match compile_guarded(func, target) {
        Ok(compiled) => compiled,
        Err(error) => return Some(Failure::Error(error_shape(&error))),
    };
    if compiled.kind != FunctionKind::Device || lanes.is_empty() {
        return None;
    }
    let simulated = guarded("the simulator panicked", || {
        run_device(
            &compiled,
            &func.signature,
            target,
            lanes,
            &mut simulator(target.arch).memory(),
            &Options::default(),
        )
        .map_err(|e| e.to_string())
    });
    let results = match simulated {
        Ok((results, _)) => results,
        Err(error) => return Some(Failure::Error(error_shape(&error))),
    };
    lanes
        .iter()
        .zip(results)
        .find_map(|(args, actual)| match interpret(func, args) {
            Reference::Returned(expected) if !same_values(&expected, &actual) => {
                Some(Failure::Mismatch(args.clone()))
            }
            _ => None,
        })
}

fn reduce_file(args: &Args) -> Result<String, String> {
    let name = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{name}: {e}"))?;
    let file = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
    let target = choose_target(args.target.as_deref(), &file, &name)?;
    for function in &file.functions {
        let func = &function.func;
        if args.function.as_ref().is_some_and(|f| {
            f.trim_start_matches('%') != func.name.to_string().trim_start_matches('%')
        }) {
            continue;
        }
        let (commands, _) = parse_run_lines(&file, function, &name);
        let lanes: Vec<Vec<DataValue>> = commands
            .iter()
            .map(|(_, c)| match c {
                RunCommand::Run(invocation, ..) | RunCommand::Print(invocation) => {
                    invocation.args.clone()
                }
            })
            .collect();
        let Some(original) = failure(func, &target, &lanes) else {
            continue;
        };
        // Only the failing lane matters for a mismatch.
        let lanes = match &original {
            Failure::Mismatch(args) => vec![args.clone()],
            Failure::Error(_) => lanes,
        };
        let reduced = reduce(func.clone(), &target, &lanes, &original);
        let (before, after) = (count(func), count(&reduced));
        let mut out = format!(
            ";; reduced from {name}, function {} ({before} instructions → {after}) for {target}: {}\n",
            func.name,
            match &original {
                Failure::Error(e) => format!("fails with: {e}"),
                Failure::Mismatch(_) => "the simulator differs from cranelift-interpreter".into(),
            }
        );
        let test = match original {
            Failure::Error(_) => "compile",
            Failure::Mismatch(_) => "run",
        };
        out += &format!("test {test}\ntarget {target}\n\n{}", reduced.display());
        if let Failure::Mismatch(args) = &original {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            out += &format!("; print: {}({})\n", reduced.name, args.join(", "));
        }
        return Ok(out);
    }
    Err(format!(
        "{name}: no function fails for {target} (compiles and agrees with \
         cranelift-interpreter on its run lines)"
    ))
}

/// Whether `func` verifies and fails as `original` does.
fn still_fails(
    func: &ir::Function,
    target: &Target,
    lanes: &[Vec<DataValue>],
    original: &Failure,
) -> bool {
    let flags = settings::Flags::new(settings::builder());
    cranelift_codegen::verify_function(func, &flags).is_ok()
        && failure(func, target, lanes).as_ref() == Some(original)
}

/// Greedy rounds of reductions of `func` that keep it failing as `original`.
fn reduce(
    mut func: ir::Function,
    target: &Target,
    lanes: &[Vec<DataValue>],
    original: &Failure,
) -> ir::Function {
    loop {
        let mut changed = false;
        let insts: Vec<ir::Inst> = func
            .layout
            .blocks()
            .flat_map(|b| func.layout.block_insts(b).collect::<Vec<_>>())
            .collect();
        for inst in insts {
            for candidate in candidates(&func, inst) {
                if still_fails(&candidate, target, lanes, original) {
                    func = candidate;
                    changed = true;
                    break;
                }
            }
        }
        let cleaned = clean(&func);
        let smaller = cleaned.layout.blocks().count() != func.layout.blocks().count()
            || count(&cleaned) != count(&func);
        if smaller && still_fails(&cleaned, target, lanes, original) {
            func = cleaned;
            changed = true;
        }
        if !changed {
            return func;
        }
    }
}

fn count(func: &ir::Function) -> usize {
    func.layout
        .blocks()
        .map(|b| func.layout.block_insts(b).count())
        .sum()
}

/// The simpler functions one change to `inst` gives.
fn candidates(func: &ir::Function, inst: ir::Inst) -> Vec<ir::Function> {
    if func.layout.inst_block(inst).is_none() {
        return Vec::new();
    }
    let data = func.dfg.insts[inst];
    let results = func.dfg.inst_results(inst);
    let mut out = Vec::new();
    match (data.opcode(), results) {
        (Opcode::Iconst | Opcode::F32const | Opcode::F64const, _) => {}
        (Opcode::Brif, _) => {
            for target in data.branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
            {
                let mut f = func.clone();
                let block = target.block(&f.dfg.value_lists);
                let args: Vec<ir::BlockArg> = target.args(&f.dfg.value_lists).collect();
                f.replace(inst).jump(block, &args);
                out.push(f);
            }
        }
        (op, []) if !op.is_terminator() && !op.is_branch() => {
            let mut f = func.clone();
            f.layout.remove_inst(inst);
            out.push(f);
        }
        (_, &[result]) => {
            let ty = func.dfg.value_type(result);
            let mut f = func.clone();
            let replaced = f.replace(inst);
            match ty {
                types::I8 | types::I16 | types::I32 | types::I64 => {
                    replaced.iconst(ty, 0);
                }
                types::F32 => {
                    replaced.f32const(0.0);
                }
                types::F64 => {
                    replaced.f64const(0.0);
                }
                _ => return out,
            }
            out.push(f);
        }
        _ => {}
    }
    out
}

/// `func` without its unreachable blocks and the pure instructions whose results nothing
/// reads.
fn clean(func: &ir::Function) -> ir::Function {
    let mut ctx = cranelift_codegen::Context::for_function(func.clone());
    let flags = settings::Flags::new(settings::builder());
    ctx.compute_cfg();
    ctx.compute_domtree();
    // An error leaves the function as it was, which `still_fails` then judges.
    let _ = ctx.eliminate_unreachable_code(&flags);
    let mut func = ctx.func;
    loop {
        let mut used = std::collections::HashSet::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                used.extend(func.dfg.inst_values(inst));
            }
        }
        let dead: Vec<ir::Inst> = func
            .layout
            .blocks()
            .flat_map(|b| func.layout.block_insts(b).collect::<Vec<_>>())
            .filter(|&inst| {
                let op = func.dfg.insts[inst].opcode();
                let results = func.dfg.inst_results(inst);
                !results.is_empty()
                    && results.iter().all(|r| !used.contains(r))
                    && !(op.can_store()
                        || op.can_trap()
                        || op.other_side_effects()
                        || op.is_call()
                        || op.is_branch()
                        || op.is_terminator())
            })
            .collect();
        if dead.is_empty() {
            return func;
        }
        for inst in dead {
            func.layout.remove_inst(inst);
        }
    }
}
