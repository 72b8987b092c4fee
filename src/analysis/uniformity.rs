//! Uniformity: which values are the same in every lane of a wave, and which branches send
//! the lanes different ways.
//!
//! Facts only: what a target does with them is its own policy (GCN keeps uniform values in
//! SGPRs and linearizes functions with divergent branches: `isa::gcn::scalar_values`).
//! Sources of divergence are work-item and lane ids (intrinsics that are not uniform), calls
//! of functions other than intrinsics, and the values a target names
//! ([`Analysis::assume_divergent`]: device-function arguments its callers may pass per lane,
//! values it keeps per lane anyway). The cross-lane intrinsics whose result is one value for
//! the wave (lane reads, votes, reductions) are uniform whatever their operands. Everything
//! else is uniform when all its operands are,
//! and control dependence adds divergence at joins and loop exits (see [`Analysis::new`]).
//! The analysis runs to a fixpoint, which the values a target names extend.

use super::cfg::{Cfg, destinations};
use crate::intrinsics::{Intrinsic, ResultUniformity};
use crate::ir::{self, Block, InstructionData, Value};
use cranelift_codegen::entity::SecondaryMap;

/// Per-value uniformity of one function, and which branches are divergent.
pub struct Uniformity {
    divergent: SecondaryMap<Value, bool>,
    divergent_branches: SecondaryMap<Block, bool>,
    divergent_control: SecondaryMap<Block, bool>,
}

impl Uniformity {
    pub fn is_uniform(&self, value: Value) -> bool {
        !self.divergent[value]
    }

    /// Whether any branch is divergent.
    pub fn has_divergent_branches(&self) -> bool {
        self.divergent_branches.values().any(|&d| d)
    }

    /// Whether the branch ending `block` is divergent.
    pub fn is_divergent_branch(&self, block: Block) -> bool {
        self.divergent_branches[block]
    }

    /// Whether `block` lies in the influence region of a divergent branch: some lanes of a
    /// wave may run it while others do not.
    pub fn is_under_divergent_control(&self, block: Block) -> bool {
        self.divergent_control[block]
    }
}

/// The uniformity analysis of one function under way: its facts so far, which a target
/// extends with the values it takes as divergent before taking the result.
pub struct Analysis<'a> {
    state: State<'a>,
    /// The uses of each value: instruction arguments, and block arguments flowing into
    /// parameters, sorted by the value used.
    uses: Vec<(Value, Use)>,
}

impl<'a> Analysis<'a> {
    /// Analyses `func`, with every value uniform that its operands and control flow do not
    /// make divergent.
    ///
    /// Control dependence: a branch is divergent when its condition is divergent or it is
    /// reached under divergent control, i.e. its block lies in the influence region of a
    /// divergent branch (reachable from it before its immediate post-dominator). Block
    /// parameters of the blocks in such a region and of its join (the post-dominator) merge
    /// values from lanes that took different paths, so they are divergent; a value defined
    /// in a loop with a divergent branch and used outside the loop is divergent too (lanes
    /// leave the loop in different iterations).
    pub fn new(func: &'a ir::Function, cfg: &'a Cfg) -> Analysis<'a> {
        let mut state = State {
            func,
            cfg,
            divergent: SecondaryMap::new(),
            divergent_branches: SecondaryMap::new(),
            divergent_control: vec![false; cfg.len()],
            loop_done: vec![false; cfg.len()],
            values: Vec::new(),
            branches: Vec::new(),
        };
        // One scan for the uses.
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
        let mut analysis = Analysis { state, uses };
        analysis.propagate();
        analysis
    }

    /// Takes `values` as divergent, with everything that follows from them. The result is
    /// the same whatever the order in which values are named (the analysis is monotone:
    /// it only ever turns values and branches divergent).
    pub fn assume_divergent(&mut self, values: impl IntoIterator<Item = Value>) {
        for v in values {
            self.state.mark(v);
        }
        self.propagate();
    }

    /// Whether any branch is divergent so far.
    pub fn has_divergent_branches(&self) -> bool {
        self.state.divergent_branches.values().any(|&d| d)
    }

    pub fn finish(self) -> Uniformity {
        let mut divergent_control = SecondaryMap::new();
        for (b, &block) in self.state.cfg.order.iter().enumerate() {
            divergent_control[block] = self.state.divergent_control[b];
        }
        Uniformity {
            divergent: self.state.divergent,
            divergent_branches: self.state.divergent_branches,
            divergent_control,
        }
    }

    /// Each value and branch turns divergent once; then its users are visited again.
    fn propagate(&mut self) {
        let state = &mut self.state;
        loop {
            if let Some(v) = state.values.pop() {
                let first = self.uses.partition_point(|&(u, _)| u < v);
                for &(_, use_) in self.uses[first..].iter().take_while(|&&(u, _)| u == v) {
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
            Some(intrinsic) => match intrinsic.uniformity() {
                ResultUniformity::Always => false,
                ResultUniformity::WithArguments => any_arg_divergent(),
                ResultUniformity::Divergent => true,
            },
            None => true,
        },
        _ => any_arg_divergent(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel-shaped function: a load from a uniform address of memory that may be
    /// written, a loop with a uniform counter, then a branch on `v1`.
    const FUNC: &str = "
function %f(i64, i32) -> i32 {
block0(v0: i64, v1: i32):
    v2 = load.i32 v0
    v3 = iconst.i32 0
    v8 = iconst.i32 1
    v9 = iconst.i32 10
    jump block1(v3)

block1(v4: i32):
    v5 = iadd v4, v8
    v6 = icmp ult v5, v9
    brif v6, block1(v5), block2

block2:
    brif v1, block3, block4(v2)

block3:
    jump block4(v5)

block4(v7: i32):
    return v7
}
";

    fn parse(text: &str) -> ir::Function {
        cranelift_reader::parse_functions(text).unwrap().remove(0)
    }

    fn value(func: &ir::Function, n: u32) -> Value {
        let v = Value::from_u32(n);
        assert!(func.dfg.value_is_valid(v));
        v
    }

    #[test]
    fn facts_only_follow_the_sources() {
        let func = parse(FUNC);
        let cfg = Cfg::new(&func).unwrap();
        let uniform = Analysis::new(&func, &cfg).finish();
        assert!(!uniform.has_divergent_branches());
        assert!((0..10).all(|n| uniform.is_uniform(value(&func, n))));

        let mut analysis = Analysis::new(&func, &cfg);
        analysis.assume_divergent([value(&func, 1)]);
        let divergent = analysis.finish();
        assert!(divergent.has_divergent_branches());
        // The join's parameter merges lanes that went different ways.
        assert!(!divergent.is_uniform(value(&func, 7)));
        // A load from a uniform address gives every lane the same value, and a loop
        // counter before the divergent branch is uniform: what a target keeps in vector
        // registers (GCN: writable memory, block parameters of linearized code) is its
        // own policy, not a fact.
        for n in [0, 2, 3, 4, 5, 6, 8, 9] {
            assert!(divergent.is_uniform(value(&func, n)), "v{n}");
        }
    }

    #[test]
    fn named_values_spread_to_their_users_and_branches() {
        let func = parse(FUNC);
        let cfg = Cfg::new(&func).unwrap();
        let mut analysis = Analysis::new(&func, &cfg);
        analysis.assume_divergent([value(&func, 3)]);
        assert!(analysis.has_divergent_branches());
        let u = analysis.finish();
        // The counter, the loop's exit branch on it, and so the join's parameter.
        for n in [3, 4, 5, 6, 7] {
            assert!(!u.is_uniform(value(&func, n)), "v{n}");
        }
        for n in [0, 1, 2, 8, 9] {
            assert!(u.is_uniform(value(&func, n)), "v{n}");
        }
    }
}
