//! The lowering driver: walks the CLIF function block by block and asks the backend (its
//! ISLE `lower` term, its branch lowering) for machine instructions, building VCode over
//! virtual registers.

use super::{MachInst, Reg, RegClass, RegFile, VBlock, VCode, dce};
use crate::CompileError;
use crate::analysis::cfg::{Cfg, destinations};
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{self, Value};

/// What a target supplies to the driver.
pub trait LowerBackend {
    type MInst: MachInst;

    /// Emits the function's entry code (argument registers, kernel inputs).
    fn lower_entry(&self, ctx: &mut Lower<'_, Self::MInst>) -> Result<(), CompileError>;

    /// Lowers one CLIF instruction and returns the registers holding its results.
    fn lower_inst(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        inst: ir::Inst,
    ) -> Result<Vec<Reg>, CompileError>;

    /// The register of a (non-entry) block parameter.
    fn block_param_reg(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        param: Value,
    ) -> Result<Reg, CompileError>;

    /// The register passing `value` to a block parameter held in `param` (a copy when the
    /// value lives in another register file).
    fn branch_arg(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        value: Value,
        param: Reg,
    ) -> Result<Reg, CompileError>;

    /// Lowers a branch; `targets[i]` is the VCode block of its destination `i` (in the
    /// order of `destinations`). It may add deferred blocks (compare chains), and returns
    /// the blocks its last instruction branches to.
    fn lower_branch(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        inst: ir::Inst,
        targets: &[usize],
    ) -> Result<Vec<usize>, CompileError>;
}

/// The lowering state of one function.
pub struct Lower<'f, I: MachInst> {
    pub func: &'f ir::Function,
    pub vcode: VCode<I>,
    value_regs: SecondaryMap<Value, Option<Reg>>,
    use_counts: SecondaryMap<Value, u32>,
    /// Values a divergence strategy has marked unreadable ([`Lower::mark_stale`]).
    stale: SecondaryMap<Value, bool>,
    /// The CLIF instruction being lowered, for error messages.
    pub cur_inst: Option<ir::Inst>,
    /// The number of CLIF blocks; deferred blocks are numbered after them.
    pub(super) num_blocks: usize,
    pub(super) deferred: Vec<DeferredBlock<I>>,
}

impl<'f, I: MachInst> Lower<'f, I> {
    pub(super) fn new(func: &'f ir::Function) -> Self {
        let mut use_counts = SecondaryMap::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                for arg in func.dfg.inst_values(inst) {
                    use_counts[func.dfg.resolve_aliases(arg)] += 1;
                }
            }
        }
        Lower {
            func,
            vcode: VCode::new(),
            value_regs: SecondaryMap::new(),
            use_counts,
            stale: SecondaryMap::new(),
            cur_inst: None,
            num_blocks: 0,
            deferred: Vec::new(),
        }
    }

    pub fn dfg(&self) -> &'f ir::DataFlowGraph {
        &self.func.dfg
    }

    pub fn emit(&mut self, inst: I) {
        self.vcode.insts.push(inst);
    }

    pub fn new_vreg(&mut self, file: RegFile, class: RegClass) -> Reg {
        self.vcode.new_vreg(file, class)
    }

    /// The register holding an already-lowered value.
    pub fn value_reg(&self, value: Value) -> Result<Reg, CompileError> {
        let value = self.func.dfg.resolve_aliases(value);
        self.value_regs[value]
            .ok_or_else(|| self.error(format!("{value} is used before it is defined")))
    }

    pub fn set_value_reg(&mut self, value: Value, reg: Reg) {
        self.value_regs[value] = Some(reg);
    }

    pub fn is_used(&self, value: Value) -> bool {
        self.use_counts[value] > 0
    }

    /// A `CompileError` about the instruction being lowered.
    pub fn error(&self, reason: impl Into<String>) -> CompileError {
        match self.cur_inst {
            Some(inst) => CompileError::at_inst(self.func, inst, reason),
            None => CompileError::new(self.func, reason),
        }
    }
}

/// Stale values: the one hook of the driver for divergence strategies. The ordinary driver
/// ([`lower_function`]) never marks a value, so every value stays readable and
/// [`Lower::can_refold`] only answers the ISLE glue's `def_inst`; a strategy whose code
/// leaves registers without some lanes' values marks those values (mask linearization,
/// `divergence::linearize`: a loop's values after the loop).
impl<I: MachInst> Lower<'_, I> {
    /// Marks `value` as no longer readable from its register: the code lowered so far has
    /// left the region defining it in a way that may have lost some lanes' values
    /// (linearized code after a loop: lanes that left in earlier iterations, whose values
    /// the allocator's whole-wave moves do not preserve once dead). No CLIF instruction
    /// after that point uses it, but a rule folding its user's operand would read it again.
    pub fn mark_stale(&mut self, value: Value) {
        self.stale[value] = true;
    }

    /// Whether the operands of `inst` can be read here, so that a rule may fold `inst`
    /// into the instruction being lowered (computing it again): none of them is stale.
    pub fn can_refold(&self, inst: ir::Inst) -> bool {
        self.func
            .dfg
            .inst_values(inst)
            .all(|v| !self.stale[self.func.dfg.resolve_aliases(v)])
    }
}

/// A block appended after the function's own blocks: critical-edge splits and the
/// compare chains of `br_table`. Its instructions end in a branch.
pub(super) struct DeferredBlock<I> {
    pub(super) insts: Vec<I>,
    pub(super) succs: Vec<(usize, Vec<Reg>)>,
}

impl<I: MachInst> Lower<'_, I> {
    /// Adds a block after the function's own blocks that runs `insts` (ending in a branch to
    /// the blocks of `succs`, passing them those arguments) and returns its index.
    pub fn deferred_block(&mut self, insts: Vec<I>, succs: Vec<(usize, Vec<Reg>)>) -> usize {
        self.deferred.push(DeferredBlock { insts, succs });
        self.num_blocks + self.deferred.len() - 1
    }

    /// The VCode of `blocks` (the lowered CLIF blocks, in order) followed by the deferred
    /// blocks, with predecessors filled in and dead instructions removed.
    pub(super) fn finish(mut self, mut blocks: Vec<VBlock>) -> VCode<I> {
        for d in std::mem::take(&mut self.deferred) {
            let start = self.vcode.insts.len();
            self.vcode.insts.extend(d.insts);
            let (succs, branch_args) = d.succs.into_iter().unzip();
            blocks.push(VBlock {
                insts: start..self.vcode.insts.len(),
                succs,
                preds: Vec::new(),
                params: Vec::new(),
                branch_args,
            });
        }
        for b in 0..blocks.len() {
            for s in blocks[b].succs.clone() {
                blocks[s].preds.push(b);
            }
        }
        self.vcode.blocks = blocks;
        let mut vcode = self.vcode;
        dce::run(&mut vcode);
        vcode
    }
}

/// Lowers `func` with `backend`: one VCode block per reachable CLIF block, in reverse
/// postorder, followed by the deferred blocks (edge splits, compare chains). Every edge
/// out of a block with several successors goes through a block of its own, so no edge is
/// critical (regalloc2 places its moves there).
pub fn lower_function<B: LowerBackend>(
    func: &ir::Function,
    cfg: &Cfg,
    backend: &B,
) -> Result<VCode<B::MInst>, CompileError> {
    let mut ctx = Lower::new(func);
    ctx.num_blocks = cfg.len();
    if cfg.is_empty() {
        return Err(CompileError::new(func, "the function has no blocks"));
    }
    if !cfg.preds[0].is_empty() {
        return Err(CompileError::new(
            func,
            "the entry block is a branch target; branch to a block of its own instead",
        ));
    }
    // Block parameters are defined on entry to their blocks.
    let mut params = vec![Vec::new(); cfg.len()];
    for (b, &block) in cfg.order.iter().enumerate().skip(1) {
        for &p in func.dfg.block_params(block) {
            let r = backend.block_param_reg(&mut ctx, p)?;
            ctx.set_value_reg(p, r);
            params[b].push(r);
        }
    }
    let mut blocks: Vec<VBlock> = Vec::new();
    for (b, &block) in cfg.order.iter().enumerate() {
        let start = ctx.vcode.insts.len();
        if b == 0 {
            backend.lower_entry(&mut ctx)?;
        }
        let mut succs = Vec::new();
        let mut branch_args = Vec::new();
        for inst in func.layout.block_insts(block) {
            ctx.cur_inst = Some(inst);
            let opcode = func.dfg.insts[inst].opcode();
            if opcode.is_branch() {
                let dests = destinations(func, inst);
                let mut args = Vec::new();
                for (target, values) in &dests {
                    let t = cfg.index[*target].expect("reachable");
                    let mut regs = Vec::new();
                    for (i, arg) in values.iter().enumerate() {
                        let ir::BlockArg::Value(v) = *arg else {
                            return Err(
                                ctx.error("block arguments other than values are not supported")
                            );
                        };
                        regs.push(backend.branch_arg(&mut ctx, v, params[t][i])?);
                    }
                    args.push((t, regs));
                }
                let mut direct_args = None;
                let targets: Vec<usize> = if args.len() == 1 {
                    let (t, regs) = args.pop().expect("one destination");
                    direct_args = Some((t, regs));
                    vec![t]
                } else {
                    args.into_iter()
                        .map(|(t, regs)| {
                            ctx.deferred_block(vec![B::MInst::gen_jump(t)], vec![(t, regs)])
                        })
                        .collect()
                };
                for s in backend.lower_branch(&mut ctx, inst, &targets)? {
                    let args = match &direct_args {
                        Some((t, regs)) if *t == s => regs.clone(),
                        _ => Vec::new(),
                    };
                    succs.push(s);
                    branch_args.push(args);
                }
                continue;
            }
            lower_value_inst(&mut ctx, backend, inst)?;
        }
        ctx.cur_inst = None;
        let end = ctx.vcode.insts.len();
        match ctx.vcode.insts[start..end].last() {
            Some(last) if last.is_return() || last.is_branch() => {}
            _ => {
                return Err(CompileError::new(
                    func,
                    format!("{block} does not end in a branch or a return"),
                ));
            }
        }
        blocks.push(VBlock {
            insts: start..end,
            succs,
            preds: Vec::new(),
            params: params[b].clone(),
            branch_args,
        });
    }
    Ok(ctx.finish(blocks))
}

/// Lowers `inst`, an instruction other than a branch, when it has an effect or a result
/// something uses, and records its results' registers. Both lowering drivers (this one
/// and `linearize`) call it.
pub fn lower_value_inst<B: LowerBackend>(
    ctx: &mut Lower<'_, B::MInst>,
    backend: &B,
    inst: ir::Inst,
) -> Result<(), CompileError> {
    let func = ctx.func;
    let opcode = func.dfg.insts[inst].opcode();
    let results = func.dfg.inst_results(inst);
    let needed = results.is_empty()
        || results.iter().any(|&v| ctx.is_used(v))
        || opcode.is_terminator()
        || opcode.can_store()
        || opcode.other_side_effects();
    if !needed {
        return Ok(());
    }
    let regs = backend.lower_inst(ctx, inst)?;
    if regs.len() != results.len() {
        return Err(ctx.error(format!(
            "internal error: lowering produced {} registers for {} results",
            regs.len(),
            results.len()
        )));
    }
    for (&value, reg) in results.iter().zip(regs) {
        ctx.set_value_reg(value, reg);
    }
    Ok(())
}

/// Why every GPU target rejects `opcode` whatever its types (`docs/ir.md`, "Rejected"):
/// the part of each backend's rejection reasons that does not depend on the target.
pub fn rejected_on_every_gpu(opcode: ir::Opcode) -> Option<&'static str> {
    use ir::Opcode::*;
    Some(match opcode {
        SymbolValue | TlsValue | GetPinnedReg | SetPinnedReg => {
            "GPU code has no symbols, thread-local storage or pinned registers"
        }
        ReturnCall | TryCall | TryCallIndirect => {
            "calls other than to intrinsics are not supported yet"
        }
        _ => return None,
    })
}

/// The operands of `inst` when it is an `iadd`: the terms [`AddressTerms::iadd_terms`]
/// gives where the lowering may look into the instruction.
pub fn iadd_operands(dfg: &ir::DataFlowGraph, inst: ir::Inst) -> Option<(Value, Value)> {
    match dfg.insts[inst] {
        ir::InstructionData::Binary {
            opcode: ir::Opcode::Iadd,
            args: [a, b],
        } => Some((a, b)),
        _ => None,
    }
}

/// What [`constant_sum`] asks of a backend's lowering context.
pub trait AddressTerms {
    /// The value of `value`, sign-extended, when it is a constant of at most 32 bits.
    fn constant_term(&mut self, value: Value) -> Option<i64>;
    /// The operands of the `iadd` defining `value`, where the lowering may look into it.
    fn iadd_terms(&mut self, value: Value) -> Option<(Value, Value)>;
}

/// `addr + offset` as `x + c`: the constants added along a chain of `iadd`s gathered into
/// `c`, a workgroup segment's base among them (a constant by lowering:
/// `intrinsics::fold_workgroup_base`); `x` is `None` when nothing but constants remains.
pub fn constant_sum(cx: &mut impl AddressTerms, addr: Value, offset: i64) -> (Option<Value>, i64) {
    let mut value = addr;
    let mut c = offset;
    loop {
        if let Some(k) = cx.constant_term(value) {
            return (None, c + k);
        }
        let Some((a, b)) = cx.iadd_terms(value) else {
            break;
        };
        if let Some(k) = cx.constant_term(b) {
            c += k;
            value = a;
        } else if let Some(k) = cx.constant_term(a) {
            c += k;
            value = b;
        } else {
            break;
        }
    }
    (Some(value), c)
}
