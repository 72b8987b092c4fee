//! The type gate: every value of the function (signature, block parameters, every
//! instruction's arguments, results and controlling type) must have a type the target
//! supports. It runs after the verifier and before Cranelift's mid-end, whose rewrite rules
//! assume a backend that handles every type they may produce (vector types reach rules
//! with no match and panic there), so no unsupported type gets past it into the e-graph
//! pass or the lowering rules.

use crate::CompileError;
use cranelift_codegen::ir::{self, Type};

/// What a target says about a type it does not support: `Err(reason)`.
pub type TypeCheck = fn(Type) -> Result<(), String>;

/// Checks every value of `func` with `check`; the first unsupported one is a
/// `CompileError` naming the instruction (or signature, or block) and the type.
pub fn run(func: &ir::Function, check: TypeCheck) -> Result<(), CompileError> {
    for (i, param) in func.signature.params.iter().enumerate() {
        check(param.value_type).map_err(|reason| {
            CompileError::new(func, format!("parameter {i} of the signature: {reason}"))
        })?;
    }
    for (i, ret) in func.signature.returns.iter().enumerate() {
        check(ret.value_type).map_err(|reason| {
            CompileError::new(func, format!("result {i} of the signature: {reason}"))
        })?;
    }
    let dfg = &func.dfg;
    for block in func.layout.blocks() {
        for &param in dfg.block_params(block) {
            check(dfg.value_type(param)).map_err(|reason| {
                CompileError::new(func, format!("parameter {param} of {block}: {reason}"))
            })?;
        }
        for inst in func.layout.block_insts(block) {
            let ctrl = dfg.ctrl_typevar(inst);
            let types = dfg
                .inst_values(inst)
                .chain(dfg.inst_results(inst).iter().copied())
                .map(|v| dfg.value_type(v))
                .chain((ctrl != ir::types::INVALID).then_some(ctrl));
            for ty in types {
                check(ty).map_err(|reason| CompileError::at_inst(func, inst, reason))?;
            }
        }
    }
    Ok(())
}
