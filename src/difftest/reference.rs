//! The reference: `cranelift-interpreter` running the CLIF function itself.

use crate::ir::Function;
use cranelift_codegen::data_value::DataValue;
use cranelift_interpreter::environment::FunctionStore;
use cranelift_interpreter::interpreter::{Interpreter, InterpreterState};
use cranelift_interpreter::step::ControlFlow;

/// What the interpreter made of one call.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// The function returned these values.
    Returned(Vec<DataValue>),
    /// The function trapped (division by zero, signed overflow, a float-to-integer
    /// conversion of NaN or of an out-of-range value). A GPU cannot trap: the backend
    /// gives these operations defined results (docs/ir.md), so such lanes are not compared.
    Trapped(String),
}

/// Interprets `func` on `args`. An `Err` is the interpreter failing (an operation it does
/// not implement, a type mismatch): a bug in the generator or the interpreter, not in the
/// code under test.
pub fn interpret(func: &Function, args: &[DataValue]) -> Result<Reference, String> {
    let mut store = FunctionStore::default();
    store.add(func.name.to_string(), func);
    let state = InterpreterState::default().with_function_store(store);
    // Generated functions are acyclic; the fuel only guards against surprises.
    let mut interpreter = Interpreter::new(state).with_fuel(Some(100_000));
    match interpreter.call_by_name(&func.name.to_string(), args) {
        Ok(ControlFlow::Return(values)) => Ok(Reference::Returned(values.to_vec())),
        Ok(ControlFlow::Trap(trap)) => Ok(Reference::Trapped(trap.to_string())),
        Ok(other) => Err(format!("the interpreter ended with {other:?}")),
        Err(e) => Err(format!("the interpreter failed: {e:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_by_zero_traps_and_addition_returns() {
        let funcs = cranelift_reader::parse_functions(
            "function %f(i32, i32) -> i32 {
             block0(v0: i32, v1: i32):
                 v2 = udiv v0, v1
                 v3 = iadd v2, v0
                 return v3
             }",
        )
        .unwrap();
        let f = &funcs[0];
        assert_eq!(
            interpret(f, &[DataValue::I32(7), DataValue::I32(2)]),
            Ok(Reference::Returned(vec![DataValue::I32(10)]))
        );
        assert!(matches!(
            interpret(f, &[DataValue::I32(7), DataValue::I32(0)]),
            Ok(Reference::Trapped(_))
        ));
    }
}
