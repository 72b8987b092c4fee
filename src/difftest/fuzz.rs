//! The no-panic property the fuzz target checks (`fuzz/fuzz_targets/compile.rs`): for any
//! input, `compile_function` returns `Ok` or a `CompileError`, never panics. The same
//! functions serve the stable smoke test (`tests/fuzz_smoke.rs`).

use super::generate::{GenConfig, generate};
use crate::{CompileError, Target, compile_function};
use cranelift_codegen::settings;

/// What one input gave: how many compilations succeeded and the errors of the others.
#[derive(Clone, Debug, Default)]
pub struct FuzzOutcome {
    pub compiled: u32,
    pub errors: Vec<CompileError>,
}

/// Generates a function from `data` in wide mode (unsupported types and opcodes, other
/// calling conventions, calls, memory, branches) and compiles it for every supported
/// target. A panic in the compiler propagates (that is the bug the fuzzer looks for); a
/// generated function that fails the verifier is a generator bug and panics too.
pub fn compile_arbitrary(data: &[u8]) -> FuzzOutcome {
    let mut u = arbitrary::Unstructured::new(data);
    let mut config = GenConfig::wide();
    config.max_insts = 24;
    let Ok(func) = generate(&mut u, &config) else {
        return FuzzOutcome::default();
    };
    let flags = settings::Flags::new(settings::builder());
    if let Err(e) = cranelift_codegen::verify_function(&func, &flags) {
        panic!(
            "the generator made a function the verifier rejects:\n{e}\n{}",
            func.display()
        );
    }
    compile_for_every_target(&func)
}

/// Compiles `func` for one target of every supported generation.
pub fn compile_for_every_target(func: &crate::ir::Function) -> FuzzOutcome {
    let mut outcome = FuzzOutcome::default();
    for target in Target::per_generation() {
        match compile_function(func, &target) {
            Ok(_) => outcome.compiled += 1,
            Err(e) => outcome.errors.push(e),
        }
    }
    outcome
}

/// Parses `text` as CLIF and compiles every function it holds. `None` when the text does
/// not parse (cranelift-reader's errors are not wavelift's concern).
pub fn compile_text(text: &str) -> Option<FuzzOutcome> {
    let funcs = cranelift_reader::parse_functions(text).ok()?;
    let mut outcome = FuzzOutcome::default();
    for func in &funcs {
        let one = compile_for_every_target(func);
        outcome.compiled += one.compiled;
        outcome.errors.extend(one.errors);
    }
    Some(outcome)
}
