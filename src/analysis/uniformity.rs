//! Uniformity: which values are the same in every lane of a wave.
//!
//! Uniform values live in scalar registers and are computed by scalar instructions;
//! divergent ones live in vector registers. Sources of divergence are work-item ids, lane
//! ids, device-function arguments (their callers may pass different values per lane) and
//! loads that may read different memory per lane. Everything else is uniform when all its
//! operands are. The analysis runs to a fixpoint over the blocks so that block parameters
//! merging a divergent value are divergent.

use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData, Opcode, Value};
use cranelift_codegen::entity::SecondaryMap;

/// Per-value uniformity of one function.
pub struct Uniformity {
    divergent: SecondaryMap<Value, bool>,
}

impl Uniformity {
    /// Analyses `func`; `args_uniform` says whether the entry block's parameters are
    /// uniform (kernel arguments are; device-function arguments are not).
    pub fn analyze(func: &ir::Function, args_uniform: bool) -> Uniformity {
        let mut divergent: SecondaryMap<Value, bool> = SecondaryMap::new();
        if let Some(entry) = func.layout.entry_block() {
            for &p in func.dfg.block_params(entry) {
                divergent[p] = !args_uniform;
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for block in func.layout.blocks() {
                for inst in func.layout.block_insts(block) {
                    let is_divergent = inst_is_divergent(func, inst, &divergent);
                    for &result in func.dfg.inst_results(inst) {
                        if is_divergent && !divergent[result] {
                            divergent[result] = true;
                            changed = true;
                        }
                    }
                    // Block arguments flow into the successors' parameters.
                    for dest in func.dfg.insts[inst]
                        .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
                    {
                        let target = dest.block(&func.dfg.value_lists);
                        for (i, arg) in dest.args(&func.dfg.value_lists).enumerate() {
                            let arg_divergent = match arg {
                                ir::BlockArg::Value(v) => divergent[func.dfg.resolve_aliases(v)],
                                _ => true,
                            };
                            let param = func.dfg.block_params(target)[i];
                            if arg_divergent && !divergent[param] {
                                divergent[param] = true;
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        Uniformity { divergent }
    }

    pub fn is_uniform(&self, value: Value) -> bool {
        !self.divergent[value]
    }
}

fn inst_is_divergent(
    func: &ir::Function,
    inst: ir::Inst,
    divergent: &SecondaryMap<Value, bool>,
) -> bool {
    let dfg = &func.dfg;
    let any_arg_divergent = || {
        dfg.inst_args(inst)
            .iter()
            .any(|&a| divergent[dfg.resolve_aliases(a)])
    };
    match dfg.insts[inst] {
        InstructionData::Call { func_ref, .. } => match Intrinsic::from_func_ref(func, func_ref) {
            Some(intrinsic) => !intrinsic.is_uniform() || any_arg_divergent(),
            None => true,
        },
        InstructionData::Load { opcode, flags, .. } => {
            // A scalar load is only correct for memory nobody writes while the kernel runs
            // (the scalar cache is not coherent with vector stores), which CLIF's `readonly`
            // flag promises.
            !(opcode == Opcode::Load && dfg.mem_flags[flags].readonly() && !any_arg_divergent())
        }
        _ => any_arg_divergent(),
    }
}
