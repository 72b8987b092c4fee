//! The lowering driver: walks the CLIF function and asks the backend (its ISLE `lower`
//! term) for machine instructions, building VCode over virtual registers.

use super::{MachInst, Reg, RegClass, RegFile, VBlock, VCode, dce};
use crate::CompileError;
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
}

/// The lowering state of one function.
pub struct Lower<'f, I: MachInst> {
    pub func: &'f ir::Function,
    pub vcode: VCode<I>,
    value_regs: SecondaryMap<Value, Option<Reg>>,
    use_counts: SecondaryMap<Value, u32>,
    /// The CLIF instruction being lowered, for error messages.
    pub cur_inst: Option<ir::Inst>,
}

impl<'f, I: MachInst> Lower<'f, I> {
    fn new(func: &'f ir::Function) -> Self {
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
            cur_inst: None,
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

/// Lowers `func` with `backend`. Straight-line code only for now: a function of several
/// blocks is rejected at its first branch.
pub fn lower_function<B: LowerBackend>(
    func: &ir::Function,
    backend: &B,
) -> Result<VCode<B::MInst>, CompileError> {
    let mut ctx = Lower::new(func);
    let blocks: Vec<ir::Block> = func.layout.blocks().collect();
    let Some(&entry) = blocks.first() else {
        return Err(CompileError::new(func, "the function has no blocks"));
    };
    let start = ctx.vcode.insts.len();
    backend.lower_entry(&mut ctx)?;
    for inst in func.layout.block_insts(entry) {
        ctx.cur_inst = Some(inst);
        let opcode = func.dfg.insts[inst].opcode();
        if opcode.is_branch() {
            return Err(ctx.error(
                "control flow (branches between blocks) is not supported yet; \
                 only single-block functions compile",
            ));
        }
        let results = func.dfg.inst_results(inst);
        let needed = results.is_empty()
            || results.iter().any(|&v| ctx.is_used(v))
            || opcode.is_terminator()
            || opcode.can_store()
            || opcode.other_side_effects();
        if !needed {
            continue;
        }
        let regs = backend.lower_inst(&mut ctx, inst)?;
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
    }
    ctx.cur_inst = None;
    let end = ctx.vcode.insts.len();
    match ctx.vcode.insts.last() {
        Some(last) if last.is_return() => {}
        _ => return Err(ctx.error("the entry block does not end in a return")),
    }
    ctx.vcode.blocks.push(VBlock {
        insts: start..end,
        ..VBlock::default()
    });
    let mut vcode = ctx.vcode;
    dce::run(&mut vcode);
    Ok(vcode)
}
