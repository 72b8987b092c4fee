//! Running one generated function on the simulator and on the interpreter, and comparing.
//!
//! A function runs twice on the simulator:
//!
//! - as the **device function** it is, with a different input set in every lane of one
//!   wave (`Simulator::call_device`): the arguments live in registers of each lane, so
//!   this exercises the per-lane lowering (GCN's VALU);
//! - as a **kernel** made from the same body ([`kernel_of`]): the arguments come from the
//!   parameter block and are uniform, so this exercises the uniform lowering (GCN's SALU).
//!   Each work-item stores the results at `out + workitem_id_x * stride`.

use super::specified::{Spec, return_specs};
use super::values::bits_of;
use crate::intrinsics::{self, Intrinsic};
use crate::ir::types::I64;
use crate::ir::{self, AbiParam, Function, InstBuilder, MemFlagsData, Opcode, Type};
use crate::sim::harness::{self, Reference, interpret_in};
use crate::sim::harness::{dwords_of, value_from_dwords};
use crate::sim::{self, Launch, SimError, simulator};
use crate::{CompileError, CompiledCode, Target};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::data_value::{DataValue, DisplayDataValues};
use cranelift_codegen::isa::CallConv;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};

/// One lane's inputs: the arguments, and the bits to put above narrow (i8/i16) arguments
/// in their registers or kernarg slots (the ABI leaves them unspecified).
#[derive(Clone, Debug, PartialEq)]
pub struct LaneInputs {
    pub args: Vec<DataValue>,
    pub noise: u32,
}

/// How to run a case.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How many of the input sets also run as kernel launches (uniform arguments).
    pub kernel_runs: usize,
    /// Work-items in each kernel launch (all compute the same uniform values).
    pub kernel_workitems: u32,
    /// Run on the simulator. Without it a case only compiles and interprets (for working
    /// on the generator).
    pub simulate: bool,
    /// Count internal compile errors with the others instead of failing on them (to go
    /// on testing while a known one is being fixed).
    pub tolerate_internal_errors: bool,
    pub sim: sim::Options,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            kernel_runs: 2,
            kernel_workitems: 4,
            simulate: true,
            tolerate_internal_errors: false,
            sim: sim::Options::default(),
        }
    }
}

/// What a case did when nothing mismatched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Compile errors of the device function or the kernel: gaps in the backend, not
    /// failures.
    pub compile_errors: Vec<(Variant, CompileError)>,
    pub device_compiled: bool,
    pub kernel_compiled: bool,
    /// Lanes whose results were compared.
    pub lanes_compared: u64,
    /// Lanes not compared because the interpreter trapped.
    pub lanes_trapped: u64,
    /// Kernel launches whose stored results were compared.
    pub kernel_runs_compared: u64,
    /// Kernel input sets not launched because the interpreter trapped on them.
    pub kernel_runs_trapped: u64,
    /// Instructions the simulator executed.
    pub sim_instructions: u64,
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// The simulator's results differ from the interpreter's.
    Result,
    /// The simulator stopped with an error (a decode failure, a hazard, a memory fault…).
    SimError,
    /// The compiler panicked (it must return `Ok` or a `CompileError`).
    CompilerPanic,
    /// The compiler returned an internal error: a `CompileError` that is a bug (an
    /// illegal instruction reached emission or encoding), not an unsupported feature.
    CompilerInternalError,
    /// The simulator panicked.
    SimulatorPanic,
    /// The generated function failed the verifier, or the interpreter could not run it: a
    /// bug in the generator (or the interpreter).
    Generator,
}

/// Which compiled form of the function mismatched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The device function, lanes with divergent arguments.
    Device,
    /// The kernel made by [`kernel_of`], with uniform arguments.
    Kernel,
}

/// Everything needed to reproduce and diagnose a mismatch. Its `Display` is a report
/// ending in a filetest (`test run`, the function, a `; run:` line with the interpreter's
/// result) ready to paste into `filetests/gcn/regress-*.clif`.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub kind: MismatchKind,
    pub variant: Variant,
    /// What differed, or the error.
    pub message: String,
    pub target: Target,
    /// The function as CLIF text.
    pub function: String,
    pub name: String,
    /// The kernel made from it as CLIF text (kernel mismatches).
    pub kernel: Option<String>,
    /// The lane (device) or input set (kernel) that mismatched.
    pub lane: Option<usize>,
    pub inputs: Option<LaneInputs>,
    pub expected: Option<Vec<DataValue>>,
    pub actual: Option<Vec<DataValue>>,
    /// The campaign seed and case index, when a campaign found it.
    pub case: Option<(u64, u64)>,
}

impl Mismatch {
    fn new(kind: MismatchKind, variant: Variant, case: &Case, target: &Target) -> Mismatch {
        let func = case.func;
        // The callees first, so that the run line follows the function it runs.
        let mut function: String = case
            .callees
            .iter()
            .map(|c| format!("{}\n", c.display()))
            .collect();
        function += &func.display().to_string();
        Mismatch {
            kind,
            variant,
            message: String::new(),
            target: target.clone(),
            function,
            name: func.name.to_string().trim_start_matches('%').to_string(),
            kernel: None,
            lane: None,
            inputs: None,
            expected: None,
            actual: None,
            case: None,
        }
    }

    fn message(mut self, message: impl Into<String>) -> Box<Mismatch> {
        self.message = message.into();
        Box::new(self)
    }

    /// The `; run:` line of the lane: the arguments and the interpreter's results.
    pub fn run_line(&self) -> Option<String> {
        let inputs = self.inputs.as_ref()?;
        let expected = self.expected.as_ref()?;
        Some(run_line(&self.name, &inputs.args, expected))
    }
}

/// A `; run:` line (cranelift-reader's syntax): `; run: %name(args) == results`.
pub fn run_line(name: &str, args: &[DataValue], results: &[DataValue]) -> String {
    format!(
        "; run: %{name}({}) == {}",
        display_args(args),
        display_results(results)
    )
}

/// Results as a run line writes them: one value bare, several in brackets.
fn display_results(values: &[DataValue]) -> String {
    DisplayDataValues(values).to_string()
}

/// Arguments as a run line writes them: separated by commas.
fn display_args(values: &[DataValue]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            MismatchKind::Result => "wrong result",
            MismatchKind::SimError => "simulator error",
            MismatchKind::CompilerPanic => "compiler panic",
            MismatchKind::CompilerInternalError => "internal compiler error",
            MismatchKind::SimulatorPanic => "simulator panic",
            MismatchKind::Generator => "generator or interpreter failure",
        };
        let variant = match self.variant {
            Variant::Device => "device function, divergent arguments",
            Variant::Kernel => "kernel, uniform arguments",
        };
        writeln!(
            f,
            ";; difftest mismatch on {}: {kind} ({variant})",
            self.target.cpu
        )?;
        for line in self.message.lines() {
            writeln!(f, ";;   {line}")?;
        }
        if let Some((seed, index)) = self.case {
            writeln!(
                f,
                ";; reproduce: clif-util difftest --target {} --seed {seed} --start {index} \
                 --count 1",
                self.target.cpu
            )?;
        }
        if let (Some(lane), Some(inputs)) = (self.lane, &self.inputs) {
            let what = match self.variant {
                Variant::Device => "lane",
                Variant::Kernel => "input set",
            };
            writeln!(
                f,
                ";; {what} {lane}: arguments ({}), noise above narrow arguments {:#010x}",
                display_args(&inputs.args),
                inputs.noise
            )?;
        }
        if let Some(expected) = &self.expected {
            writeln!(f, ";; interpreter: {}", display_results(expected))?;
        }
        if let Some(actual) = &self.actual {
            writeln!(f, ";; simulator:   {}", display_results(actual))?;
        }
        if let Some(kernel) = &self.kernel {
            writeln!(
                f,
                ";; the kernel that ran (arguments in the parameter block, then `out`):"
            )?;
            for line in kernel.lines() {
                writeln!(f, ";;   {line}")?;
            }
        }
        writeln!(f)?;
        writeln!(f, "test run")?;
        writeln!(f, "target {}", self.target)?;
        writeln!(f)?;
        write!(f, "{}", self.function)?;
        if let Some(run) = self.run_line() {
            writeln!(f, "{run}")?;
        }
        Ok(())
    }
}

/// A generated function and the device functions it calls.
pub struct Case<'a> {
    pub func: &'a Function,
    pub callees: &'a [Function],
}

/// Compiles `func` and links it with the callees of `report` (`isa::gcn::link`), turning a
/// panic or an internal error into a mismatch.
fn compile(
    func: &Function,
    target: &Target,
    variant: Variant,
    report: &Case,
    options: &RunOptions,
) -> Result<Result<CompiledCode, CompileError>, Box<Mismatch>> {
    let code = compile_one(func, target, variant, report, options)?;
    let Ok(code) = code else {
        return Ok(code);
    };
    if report.callees.is_empty() {
        return Ok(Ok(code));
    }
    let mut compiled = vec![code];
    for callee in report.callees {
        match compile_one(callee, target, variant, report, options)? {
            Ok(c) => compiled.push(c),
            Err(e) => return Ok(Err(e)),
        }
    }
    let names: Vec<String> = std::iter::once(func)
        .chain(report.callees)
        .map(|f| f.name.to_string().trim_start_matches('%').to_string())
        .collect();
    let functions: Vec<(&str, &CompiledCode)> =
        names.iter().map(String::as_str).zip(&compiled).collect();
    crate::link(&functions, 0).map(Ok).map_err(|e| {
        Mismatch::new(MismatchKind::CompilerInternalError, variant, report, target)
            .message(format!("linking failed: {e}"))
    })
}

/// Compiles one function, turning a panic or an internal error into a mismatch.
fn compile_one(
    func: &Function,
    target: &Target,
    variant: Variant,
    report: &Case,
    options: &RunOptions,
) -> Result<Result<CompiledCode, CompileError>, Box<Mismatch>> {
    let mismatch = |kind, message: String| {
        let mut m = Mismatch::new(kind, variant, report, target);
        if variant == Variant::Kernel {
            m.kernel = Some(func.display().to_string());
        }
        m.message(message)
    };
    match panic::catch_unwind(AssertUnwindSafe(|| crate::compile_function(func, target))) {
        Ok(Err(e)) if is_internal(&e) && !options.tolerate_internal_errors => {
            Err(mismatch(MismatchKind::CompilerInternalError, e.to_string()))
        }
        Ok(result) => Ok(result),
        Err(payload) => Err(mismatch(
            MismatchKind::CompilerPanic,
            panic_message(&*payload),
        )),
    }
}

/// Whether a compile error is a bug rather than an unsupported feature.
pub fn is_internal(error: &CompileError) -> bool {
    error.reason.starts_with("internal error")
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_string())
}

/// Compiles `func` (a device function) once, runs the input sets as the lanes of one wave
/// (at most the lanes of one) and as a few kernel launches, and compares with the interpreter.
pub fn run_case(
    func: &Function,
    target: &Target,
    lanes: &[LaneInputs],
) -> Result<Outcome, Box<Mismatch>> {
    run_case_with(func, &[], target, lanes, &RunOptions::default())
}

/// [`run_case`] with the device functions `func` calls (`callees`) and options.
pub fn run_case_with(
    func: &Function,
    callees: &[Function],
    target: &Target,
    lanes: &[LaneInputs],
    options: &RunOptions,
) -> Result<Outcome, Box<Mismatch>> {
    let lanes = &lanes[..lanes.len().min(simulator(target.arch).lanes())];
    let mut outcome = Outcome::default();
    let mut references = Vec::new();
    let case = Case { func, callees };
    for inputs in lanes {
        let reference = interpret_in(func, callees, &inputs.args);
        if let Reference::Unavailable(e) = reference {
            let mut m = Mismatch::new(MismatchKind::Generator, Variant::Device, &case, target);
            m.inputs = Some(inputs.clone());
            return Err(m.message(format!("the interpreter failed: {e}")));
        }
        references.push(reference);
    }
    let specs = return_specs(func);
    run_device(
        &case,
        target,
        lanes,
        &references,
        &specs,
        options,
        &mut outcome,
    )?;
    run_kernel(
        &case,
        target,
        lanes,
        &references,
        &specs,
        options,
        &mut outcome,
    )?;
    Ok(outcome)
}

fn run_device(
    case: &Case,
    target: &Target,
    lanes: &[LaneInputs],
    references: &[Reference],
    specs: &[Spec],
    options: &RunOptions,
    outcome: &mut Outcome,
) -> Result<(), Box<Mismatch>> {
    let func = case.func;
    let code = match compile(func, target, Variant::Device, case, options)? {
        Ok(code) => code,
        Err(e) => {
            outcome.compile_errors.push((Variant::Device, e));
            return Ok(());
        }
    };
    outcome.device_compiled = true;
    if !options.simulate {
        return Ok(());
    }
    let args: Vec<Vec<u32>> = lanes.iter().map(|l| dwords(&l.args, l.noise)).collect();
    let result_types: Vec<Type> = func
        .signature
        .returns
        .iter()
        .map(|p| p.value_type)
        .collect();
    let result_dwords = result_types.iter().map(|&t| dwords_of(t)).sum();
    let simulator = simulator(target.arch);
    let mut memory = simulator.memory();
    let failed =
        |kind, message: String| Mismatch::new(kind, Variant::Device, case, target).message(message);
    let (results, stats) = match panic::catch_unwind(AssertUnwindSafe(|| {
        simulator.call_device(&code, &args, result_dwords, &mut memory, &options.sim)
    })) {
        Ok(Ok(run)) => run,
        Ok(Err(e)) => return Err(failed(MismatchKind::SimError, sim_error(&e))),
        Err(payload) => {
            return Err(failed(
                MismatchKind::SimulatorPanic,
                panic_message(&*payload),
            ));
        }
    };
    outcome.sim_instructions += stats.instructions;
    for (lane, reference) in references.iter().enumerate() {
        let Reference::Returned(expected) = reference else {
            outcome.lanes_trapped += 1;
            continue;
        };
        let Some(dwords) = results.get(lane) else {
            return Err(failed(
                MismatchKind::SimError,
                format!("the simulator returned no results for lane {lane}"),
            ));
        };
        let actual = decode_results(&result_types, dwords);
        if let Some(message) = compare(expected, &actual, specs) {
            let mut m = Mismatch::new(MismatchKind::Result, Variant::Device, case, target);
            m.lane = Some(lane);
            m.inputs = Some(lanes[lane].clone());
            m.expected = Some(expected.clone());
            m.actual = Some(actual);
            return Err(m.message(message));
        }
        outcome.lanes_compared += 1;
    }
    Ok(())
}

fn run_kernel(
    case: &Case,
    target: &Target,
    lanes: &[LaneInputs],
    references: &[Reference],
    specs: &[Spec],
    options: &RunOptions,
    outcome: &mut Outcome,
) -> Result<(), Box<Mismatch>> {
    let func = case.func;
    if options.kernel_runs == 0 {
        return Ok(());
    }
    let kernel = kernel_of(func);
    let code = match compile(&kernel, target, Variant::Kernel, case, options)? {
        Ok(code) => code,
        Err(e) => {
            outcome.compile_errors.push((Variant::Kernel, e));
            return Ok(());
        }
    };
    outcome.kernel_compiled = true;
    if !options.simulate {
        return Ok(());
    }
    let result_types: Vec<Type> = func
        .signature
        .returns
        .iter()
        .map(|p| p.value_type)
        .collect();
    let stride = 8 * result_types.len() as u64;
    let workitems = options.kernel_workitems.max(1);
    for (run, (inputs, reference)) in lanes
        .iter()
        .zip(references)
        .take(options.kernel_runs)
        .enumerate()
    {
        let Reference::Returned(expected) = reference else {
            outcome.kernel_runs_trapped += 1;
            continue;
        };
        let mismatch = |kind| {
            let mut m = Mismatch::new(kind, Variant::Kernel, case, target);
            m.kernel = Some(kernel.display().to_string());
            m.lane = Some(run);
            m.inputs = Some(inputs.clone());
            m.expected = Some(expected.clone());
            m
        };
        let simulator = simulator(target.arch);
        let mut memory = simulator.memory();
        // Fill the output with a pattern so that a missing store shows.
        let out = memory.alloc(&vec![0xa5; (stride * workitems as u64) as usize]);
        let launch = Launch {
            workgroup_size: [workitems, 1, 1],
            groups: [1, 1, 1],
            params: param_block(target, &kernel, inputs, out),
        };
        let stats = match panic::catch_unwind(AssertUnwindSafe(|| {
            simulator.launch(&code, &launch, &mut memory, &options.sim)
        })) {
            Ok(Ok(stats)) => stats,
            Ok(Err(e)) => return Err(mismatch(MismatchKind::SimError).message(sim_error(&e))),
            Err(payload) => {
                return Err(
                    mismatch(MismatchKind::SimulatorPanic).message(panic_message(&*payload))
                );
            }
        };
        outcome.sim_instructions += stats.instructions;
        for item in 0..workitems as u64 {
            let mut actual = Vec::new();
            for (k, &ty) in result_types.iter().enumerate() {
                let address = out + item * stride + 8 * k as u64;
                let bytes = memory
                    .read(address, ty.bytes() as usize)
                    .expect("the output region was allocated above");
                let mut raw = [0u8; 8];
                raw[..bytes.len()].copy_from_slice(bytes);
                actual.push(super::values::data_value(ty, u64::from_le_bytes(raw)));
            }
            if let Some(message) = compare(expected, &actual, specs) {
                let mut m = mismatch(MismatchKind::Result);
                m.actual = Some(actual);
                return Err(m.message(format!("work-item {item}: {message}")));
            }
        }
        outcome.kernel_runs_compared += 1;
    }
    Ok(())
}

fn sim_error(e: &SimError) -> String {
    format!("the simulator stopped: {e}")
}

fn decode_results(types: &[Type], dwords: &[u32]) -> Vec<DataValue> {
    let mut at = 0;
    types
        .iter()
        .map(|&ty| {
            let n = dwords_of(ty);
            let mut field = [0u32; 2];
            for (slot, &d) in field.iter_mut().zip(dwords.get(at..at + n).unwrap_or(&[])) {
                *slot = d;
            }
            let v = value_from_dwords(ty, &field);
            at += n;
            v
        })
        .collect()
}

/// Compares results as far as CLIF specifies them (see [`Spec`]); `Some` says what differs.
fn compare(expected: &[DataValue], actual: &[DataValue], specs: &[Spec]) -> Option<String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        let spec = specs.get(i).copied().unwrap_or(Spec::Exact);
        let same = match spec {
            Spec::Unspecified => true,
            Spec::AnyNan if is_nan(e) => is_nan(a),
            _ => bits_of(e) == bits_of(a),
        };
        if !same {
            let how = match spec {
                Spec::AnyNan => " (any NaN would do)",
                _ => "",
            };
            return Some(format!(
                "result {i} differs: interpreter {e} ({:#x}), simulator {a} ({:#x}){how}",
                bits_of(e),
                bits_of(a)
            ));
        }
    }
    None
}

fn is_nan(v: &DataValue) -> bool {
    match v {
        DataValue::F32(f) => f.is_nan(),
        DataValue::F64(f) => f.is_nan(),
        _ => false,
    }
}

/// The kernel with `func`'s body: call conv `system_v`, the same parameters (read from
/// the kernarg segment, so uniform) plus an `i64` output pointer last; each `return`
/// becomes stores of the returned values at `out + workitem_id_x * stride + 8 * k`, with
/// `stride = 8 * results`.
pub fn kernel_of(func: &Function) -> Function {
    let mut kernel = func.clone();
    kernel.name =
        ir::UserFuncName::testcase(format!("{}_kernel", func.name).trim_start_matches('%'));
    kernel.signature.call_conv = CallConv::SystemV;
    let stride = 8 * kernel.signature.returns.len() as i64;
    kernel.signature.returns.clear();
    kernel.signature.params.push(AbiParam::new(I64));
    let entry = kernel
        .layout
        .entry_block()
        .expect("generated functions have a block");
    let out = kernel.dfg.append_block_param(entry, I64);
    let workitem_id = intrinsics::declare(&mut kernel, Intrinsic::WorkitemId(0));
    let returns: Vec<ir::Inst> = kernel
        .layout
        .blocks()
        .filter_map(|b| kernel.layout.last_inst(b))
        .filter(|&i| kernel.dfg.insts[i].opcode() == Opcode::Return)
        .collect();
    for ret in returns {
        let values = kernel.dfg.inst_args(ret).to_vec();
        let mut pos = FuncCursor::new(&mut kernel).at_inst(ret);
        let call = pos.ins().call(workitem_id, &[]);
        let id = pos.func.dfg.first_result(call);
        // In 32 bits (work-item ids are small): every target multiplies those.
        let offset = pos.ins().imul_imm_u(id, stride);
        let offset = pos.ins().uextend(I64, offset);
        let base = pos.ins().iadd(out, offset);
        for (k, &v) in values.iter().enumerate() {
            pos.ins()
                .store(MemFlagsData::trusted(), v, base, 8 * k as i32);
        }
        pos.remove_inst();
        pos.ins().return_(&[]);
    }
    kernel
}

/// The parameter block of [`kernel_of`]'s kernel on `target`: each argument where the
/// target puts it (GCN: at an offset aligned to its size, at least 4 bytes, `docs/ir.md`),
/// narrow ones with the lane's noise above them, then the output pointer.
pub fn param_block(target: &Target, kernel: &Function, inputs: &LaneInputs, out: u64) -> Vec<u8> {
    let mut args = inputs.args.clone();
    args.push(DataValue::I64(out as i64));
    harness::param_block(target, &kernel.signature, &args, inputs.noise)
        .expect("the generator makes only types the harness encodes")
}

/// The register dwords of `args`, with `noise` in the unused bits of narrow ones.
fn dwords(args: &[DataValue], noise: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for arg in args {
        harness::push_dwords(arg, noise, &mut out)
            .expect("the generator makes only types the harness encodes");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::settings;

    fn parse(text: &str) -> Function {
        cranelift_reader::parse_functions(text).unwrap().remove(0)
    }

    #[test]
    fn kernels_store_the_results_and_verify() {
        let f = parse(
            "function %f(i8, i64, f32) -> i64, f32 {
             block0(v0: i8, v1: i64, v2: f32):
                 v3 = sextend.i64 v0
                 v4 = iadd v3, v1
                 return v4, v2
             }",
        );
        let k = kernel_of(&f);
        let flags = settings::Flags::new(settings::builder());
        cranelift_codegen::verify_function(&k, &flags).unwrap();
        let text = k.display().to_string();
        assert!(text.contains("system_v"), "{text}");
        assert!(text.contains("store notrap aligned v4, v"), "{text}");
        let target = Target::parse("gfx803").unwrap();
        let code = crate::compile_function(&k, &target).unwrap();
        assert_eq!(code.kind, crate::FunctionKind::Kernel);
    }

    #[test]
    fn param_block_follows_the_abi() {
        let inputs = LaneInputs {
            args: vec![DataValue::I8(-1), DataValue::I64(2), DataValue::I32(3)],
            noise: 0x1234_5678,
        };
        let kernel = kernel_of(
            &cranelift_reader::parse_functions(
                "function %f(i8, i64, i32) -> i32 {\nblock0(v0: i8, v1: i64, v2: i32):\n return v2\n}",
            )
            .unwrap()[0],
        );
        let target = Target::parse("gfx803").unwrap();
        let bytes = param_block(&target, &kernel, &inputs, 0x1_0000_0000);
        // i8 at 0 (a 4-byte slot with noise), i64 at 8, i32 at 16, out at 24.
        assert_eq!(bytes.len(), 32);
        assert_eq!(&bytes[0..4], &[0xff, 0x56, 0x34, 0x12]);
        assert_eq!(&bytes[8..16], &2u64.to_le_bytes());
        assert_eq!(&bytes[16..20], &3u32.to_le_bytes());
        assert_eq!(&bytes[24..32], &0x1_0000_0000u64.to_le_bytes());
    }

    #[test]
    fn nan_results_compare_by_spec() {
        let f = |bits| DataValue::F32(ir::immediates::Ieee32::with_bits(bits));
        let (qnan, other_nan, one) = (f(0x7fc0_0000), f(0xffc0_0001), f(0x3f80_0000));
        assert!(compare(&[f(0x7fc0_0000)], &[f(0xffc0_0001)], &[Spec::AnyNan]).is_none());
        assert!(compare(&[f(0x7fc0_0000)], &[other_nan], &[Spec::Exact]).is_some());
        assert!(compare(&[qnan], &[one], &[Spec::AnyNan]).is_some());
    }
}
