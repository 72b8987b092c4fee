//! How much of a value's bit pattern CLIF specifies, so that results are compared only as
//! far as the IR defines them.
//!
//! Float arithmetic that produces a NaN produces *some* NaN: Cranelift leaves its sign and
//! payload unspecified (`fmin`/`fmax`: "NaN with an unspecified sign"; arithmetic follows
//! the WebAssembly rules). `fneg`, `fabs` and `fcopysign` are "pure bitwise operations",
//! and so are `bitcast`, `select` and integer operations: their results are exact
//! functions of their operands' bits. So a value is
//!
//! - [`Spec::Exact`] when it depends only on exactly specified bits: compare bit for bit;
//! - [`Spec::AnyNan`] when it is a float that may be an unspecified NaN: compare bit for
//!   bit unless the reference is NaN, then require any NaN;
//! - [`Spec::Unspecified`] when its bits may depend on an unspecified NaN payload or sign
//!   in a way no comparison can follow (the bits of such a NaN moved into an integer, or
//!   its sign copied onto another value): not compared.

use crate::ir::{self, Function, InstructionData, Opcode, Value};
use cranelift_codegen::entity::SecondaryMap;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Spec {
    #[default]
    Exact,
    AnyNan,
    Unspecified,
}

/// Whether `opcode` is float arithmetic whose NaN results are unspecified NaNs.
pub fn makes_any_nan(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Fadd | Fsub
            | Fmul
            | Fdiv
            | Sqrt
            | Fma
            | Fmin
            | Fmax
            | Floor
            | Ceil
            | Trunc
            | Nearest
            | FcvtFromSint
            | FcvtFromUint
            | Fpromote
            | Fdemote
    )
}

/// The [`Spec`] of the result of an instruction with `opcode` whose operands have the
/// `args` specs (in operand order), producing a value of type `result`.
pub fn result_spec(opcode: Opcode, args: &[Spec], result: ir::Type) -> Spec {
    let worst = args.iter().copied().max().unwrap_or(Spec::Exact);
    // An operand that may be an unspecified NaN is fine where only its NaN-ness or value
    // matters; it poisons exact bits elsewhere.
    let as_value = |s: Spec| if s == Spec::AnyNan { Spec::Exact } else { s };
    match opcode {
        Opcode::Fcmp
        | Opcode::FcvtToSint
        | Opcode::FcvtToUint
        | Opcode::FcvtToSintSat
        | Opcode::FcvtToUintSat => args.iter().copied().map(as_value).max().unwrap_or_default(),
        op if makes_any_nan(op) => worst.max(Spec::AnyNan),
        Opcode::Fneg | Opcode::Fabs => worst,
        Opcode::Fcopysign => match args {
            [x, Spec::Exact] => *x,
            _ => Spec::Unspecified,
        },
        Opcode::Select | Opcode::SelectSpectreGuard => worst,
        // Reinterpreting the bits of an unspecified NaN as an integer exposes them.
        Opcode::Bitcast if worst == Spec::AnyNan && !result.is_float() => Spec::Unspecified,
        _ if worst == Spec::AnyNan && !result.is_float() => Spec::Unspecified,
        _ => worst,
    }
}

/// The spec of every value of `func` (single-pass in layout order; block parameters are
/// `Exact` for the entry block and the worst of their incoming arguments otherwise, which
/// for the generator's acyclic functions is reached in one pass).
pub fn analyze(func: &Function) -> SecondaryMap<Value, Spec> {
    let mut specs: SecondaryMap<Value, Spec> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let data = &func.dfg.insts[inst];
            let args: Vec<Spec> = func
                .dfg
                .inst_args(inst)
                .iter()
                .map(|&v| specs[func.dfg.resolve_aliases(v)])
                .collect();
            let opcode = data.opcode();
            for &result in func.dfg.inst_results(inst) {
                specs[result] = result_spec(opcode, &args, func.dfg.value_type(result));
            }
            if let InstructionData::Call { .. } = data {
                for &result in func.dfg.inst_results(inst) {
                    specs[result] = Spec::Exact;
                }
            }
            for dest in data.branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables) {
                let target = dest.block(&func.dfg.value_lists);
                for (i, arg) in dest.args(&func.dfg.value_lists).enumerate() {
                    let spec = match arg {
                        ir::BlockArg::Value(v) => specs[func.dfg.resolve_aliases(v)],
                        _ => Spec::Unspecified,
                    };
                    let param = func.dfg.block_params(target)[i];
                    specs[param] = specs[param].max(spec);
                }
            }
        }
    }
    specs
}

/// The specs of the values `func`'s (single) `return` returns, in order.
pub fn return_specs(func: &Function) -> Vec<Spec> {
    let specs = analyze(func);
    for block in func.layout.blocks() {
        if let Some(inst) = func.layout.last_inst(block)
            && func.dfg.insts[inst].opcode() == Opcode::Return
        {
            return func
                .dfg
                .inst_args(inst)
                .iter()
                .map(|&v| specs[func.dfg.resolve_aliases(v)])
                .collect();
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types;

    #[test]
    fn nan_payloads_stay_out_of_exact_bits() {
        use Spec::*;
        assert_eq!(
            result_spec(Opcode::Fadd, &[Exact, Exact], types::F32),
            AnyNan
        );
        assert_eq!(result_spec(Opcode::Fneg, &[AnyNan], types::F32), AnyNan);
        assert_eq!(result_spec(Opcode::Fneg, &[Exact], types::F32), Exact);
        assert_eq!(
            result_spec(Opcode::Fcopysign, &[Exact, AnyNan], types::F32),
            Unspecified
        );
        assert_eq!(
            result_spec(Opcode::Bitcast, &[AnyNan], types::I32),
            Unspecified
        );
        assert_eq!(
            result_spec(Opcode::Fcmp, &[AnyNan, Exact], types::I8),
            Exact
        );
        assert_eq!(
            result_spec(Opcode::FcvtToSintSat, &[AnyNan], types::I32),
            Exact
        );
        assert_eq!(
            result_spec(Opcode::Iadd, &[Exact, Exact], types::I32),
            Exact
        );
    }
}
