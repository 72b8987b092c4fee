//! Uniformity: which values are the same in every lane of a wave.
//!
//! Uniform values live in scalar registers and are computed by scalar instructions;
//! divergent ones live in vector registers. Sources of divergence are work-item ids, lane
//! ids, device-function arguments (their callers may pass different values per lane) and
//! loads that may read different memory per lane. Everything else is uniform when all its
//! operands are, and control dependence adds divergence at joins and loop exits
//! (see [`Uniformity::analyze`]). The analysis runs to a fixpoint.

use super::cfg::{Cfg, destinations};
use crate::intrinsics::Intrinsic;
use crate::ir::{self, Block, InstructionData, Opcode, Value};
use cranelift_codegen::entity::SecondaryMap;

/// Per-value uniformity of one function, and which branches are divergent.
pub struct Uniformity {
    divergent: SecondaryMap<Value, bool>,
    divergent_branches: SecondaryMap<Block, bool>,
}

impl Uniformity {
    /// Analyses `func`; `args_uniform` says whether the entry block's parameters are
    /// uniform (kernel arguments are; device-function arguments are not).
    ///
    /// Control dependence: a branch is divergent when its condition is divergent or it is
    /// reached under divergent control, i.e. its block lies in the influence region of a
    /// divergent branch (reachable from it before its immediate post-dominator). Block
    /// parameters of the blocks in such a region and of its join (the post-dominator) merge
    /// values from lanes that took different paths, so they are divergent; a value defined
    /// in a loop with a divergent branch and used outside the loop is divergent too (lanes
    /// leave the loop in different iterations). When the function has any divergent
    /// branch it is linearized (see `docs/decisions.md`) and every block parameter is
    /// divergent.
    pub fn analyze(func: &ir::Function, cfg: &Cfg, args_uniform: bool) -> Uniformity {
        let mut divergent: SecondaryMap<Value, bool> = SecondaryMap::new();
        let mut divergent_branches: SecondaryMap<Block, bool> = SecondaryMap::new();
        if let Some(entry) = func.layout.entry_block() {
            for &p in func.dfg.block_params(entry) {
                divergent[p] = !args_uniform;
            }
        }
        let mut divergent_control = vec![false; cfg.len()];
        let mut linear = false;
        let mut changed = true;
        while changed {
            changed = false;
            let mark = |v: Value, divergent: &mut SecondaryMap<Value, bool>| {
                if !divergent[v] {
                    divergent[v] = true;
                    true
                } else {
                    false
                }
            };
            for (b, &block) in cfg.order.iter().enumerate() {
                for inst in func.layout.block_insts(block) {
                    let is_divergent = inst_is_divergent(func, inst, &divergent);
                    for &result in func.dfg.inst_results(inst) {
                        if is_divergent {
                            changed |= mark(result, &mut divergent);
                        }
                    }
                    // Block arguments flow into the successors' parameters.
                    for (target, args) in destinations(func, inst) {
                        for (i, arg) in args.iter().enumerate() {
                            let arg_divergent = match *arg {
                                ir::BlockArg::Value(v) => divergent[func.dfg.resolve_aliases(v)],
                                _ => true,
                            };
                            let param = func.dfg.block_params(target)[i];
                            if arg_divergent {
                                changed |= mark(param, &mut divergent);
                            }
                        }
                    }
                }
                // The terminator.
                let Some(term) = func.layout.last_inst(block) else {
                    continue;
                };
                let cond_divergent = func
                    .dfg
                    .inst_args(term)
                    .iter()
                    .any(|&a| divergent[func.dfg.resolve_aliases(a)])
                    && cfg.succs[b].len() > 1;
                if (cond_divergent || divergent_control[b]) && cfg.succs[b].len() > 1 {
                    if !divergent_branches[block] {
                        divergent_branches[block] = true;
                        changed = true;
                    }
                    linear = true;
                    let region = cfg.influence_region(b);
                    let join = cfg.ipdom[b];
                    for &r in region.iter().chain(join.iter()) {
                        if region.contains(&r) && !divergent_control[r] {
                            divergent_control[r] = true;
                            changed = true;
                        }
                        for &p in func.dfg.block_params(cfg.order[r]) {
                            changed |= mark(p, &mut divergent);
                        }
                    }
                    // Temporal divergence: values of the loops this branch leaves early.
                    for &h in &cfg.loops[b] {
                        for (x, &xb) in cfg.order.iter().enumerate() {
                            if !cfg.in_loop(x, h) {
                                continue;
                            }
                            for inst in func.layout.block_insts(xb) {
                                for &v in func.dfg.inst_results(inst) {
                                    if cfg.used_outside_loop(func, v, h) {
                                        changed |= mark(v, &mut divergent);
                                    }
                                }
                            }
                            for &v in func.dfg.block_params(xb) {
                                if cfg.used_outside_loop(func, v, h) {
                                    changed |= mark(v, &mut divergent);
                                }
                            }
                        }
                    }
                }
            }
            if linear {
                for &block in cfg.order.iter().skip(1) {
                    for &p in func.dfg.block_params(block) {
                        changed |= mark(p, &mut divergent);
                    }
                }
            }
        }
        Uniformity {
            divergent,
            divergent_branches,
        }
    }

    pub fn is_uniform(&self, value: Value) -> bool {
        !self.divergent[value]
    }

    /// Whether the branch ending `block` is divergent (lanes may go different ways).
    pub fn is_divergent_branch(&self, block: Block) -> bool {
        self.divergent_branches[block]
    }

    /// Whether any branch is divergent, so that the function is linearized.
    pub fn has_divergent_branches(&self) -> bool {
        self.divergent_branches.values().any(|&d| d)
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
