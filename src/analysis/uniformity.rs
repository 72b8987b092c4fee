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
        let mut state = State {
            func,
            cfg,
            divergent: SecondaryMap::new(),
            divergent_branches: SecondaryMap::new(),
            divergent_control: vec![false; cfg.len()],
            loop_done: vec![false; cfg.len()],
            linear: false,
            values: Vec::new(),
            branches: Vec::new(),
        };
        if let Some(entry) = func.layout.entry_block() {
            for &p in func.dfg.block_params(entry) {
                if !args_uniform {
                    state.mark(p);
                }
            }
        }
        // One scan for the uses: instruction arguments, and block arguments flowing into
        // parameters, sorted by the value used.
        let mut uses: Vec<(Value, Use)> = Vec::new();
        for (b, &block) in cfg.order.iter().enumerate() {
            for inst in func.layout.block_insts(block) {
                for &a in func.dfg.inst_args(inst) {
                    uses.push((func.dfg.resolve_aliases(a), Use::Inst(inst, b)));
                }
                for (target, args) in destinations(func, inst) {
                    for (i, arg) in args.iter().enumerate() {
                        let param = func.dfg.block_params(target)[i];
                        match *arg {
                            ir::BlockArg::Value(v) => {
                                uses.push((func.dfg.resolve_aliases(v), Use::Param(param)))
                            }
                            _ => state.mark(param),
                        }
                    }
                }
            }
        }
        uses.sort_unstable_by_key(|&(v, _)| v);
        for (b, &block) in cfg.order.iter().enumerate() {
            for inst in func.layout.block_insts(block) {
                state.visit_inst(inst, b);
            }
        }
        // Each value and branch turns divergent once; then its users are visited again.
        loop {
            if let Some(v) = state.values.pop() {
                let first = uses.partition_point(|&(u, _)| u < v);
                for &(_, use_) in uses[first..].iter().take_while(|&&(u, _)| u == v) {
                    match use_ {
                        Use::Inst(inst, b) => state.visit_inst(inst, b),
                        Use::Param(p) => state.mark(p),
                    }
                }
            } else if let Some(b) = state.branches.pop() {
                state.divergent_branch(b);
            } else {
                break;
            }
        }
        Uniformity {
            divergent: state.divergent,
            divergent_branches: state.divergent_branches,
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

/// A use of a value: as an argument of an instruction (in the block of that
/// reverse-postorder index), or as a block argument flowing into a parameter.
#[derive(Copy, Clone)]
enum Use {
    Inst(ir::Inst, usize),
    Param(Value),
}

/// The analysis under way: what is divergent so far, and what turned divergent and has
/// yet to be propagated.
struct State<'a> {
    func: &'a ir::Function,
    cfg: &'a Cfg,
    divergent: SecondaryMap<Value, bool>,
    divergent_branches: SecondaryMap<Block, bool>,
    /// Blocks in the influence region of a divergent branch.
    divergent_control: Vec<bool>,
    /// Loop headers whose values used outside the loop are divergent.
    loop_done: Vec<bool>,
    /// Whether the function has a divergent branch (and will be linearized).
    linear: bool,
    values: Vec<Value>,
    branches: Vec<usize>,
}

impl State<'_> {
    fn mark(&mut self, v: Value) {
        if !self.divergent[v] {
            self.divergent[v] = true;
            self.values.push(v);
        }
    }

    /// Instruction `inst` of block `b`: its results, and the branch when it ends `b`.
    fn visit_inst(&mut self, inst: ir::Inst, b: usize) {
        let func = self.func;
        if inst_is_divergent(func, inst, &self.divergent) {
            for &result in func.dfg.inst_results(inst) {
                self.mark(result);
            }
        }
        if func.layout.last_inst(self.cfg.order[b]) == Some(inst)
            && self.cfg.succs[b].len() > 1
            && func
                .dfg
                .inst_args(inst)
                .iter()
                .any(|&a| self.divergent[func.dfg.resolve_aliases(a)])
        {
            self.branches.push(b);
        }
    }

    /// The branch ending block `b` is divergent.
    fn divergent_branch(&mut self, b: usize) {
        let (func, cfg) = (self.func, self.cfg);
        let block = cfg.order[b];
        if self.divergent_branches[block] {
            return;
        }
        self.divergent_branches[block] = true;
        if !self.linear {
            self.linear = true;
            for &block in cfg.order.iter().skip(1) {
                for &p in func.dfg.block_params(block) {
                    self.mark(p);
                }
            }
        }
        let region = cfg.influence_region(b);
        let join = cfg.ipdom[b];
        for &r in region.iter().chain(join.iter()) {
            for &p in func.dfg.block_params(cfg.order[r]) {
                self.mark(p);
            }
        }
        for r in region {
            if !self.divergent_control[r] {
                self.divergent_control[r] = true;
                if cfg.succs[r].len() > 1 {
                    self.branches.push(r);
                }
            }
        }
        // Temporal divergence: values of the loops this branch leaves early.
        for &h in &cfg.loops[b] {
            if !self.loop_done[h] {
                self.loop_done[h] = true;
                for &v in cfg.escaping(h) {
                    self.mark(v);
                }
            }
        }
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
