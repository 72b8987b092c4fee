//! The check every target makes of `wavelift_barrier` (`docs/ir.md`, "Barriers and
//! fences"): a barrier must be reached by all work-items of a work-group or by none.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Analysis;
use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData};
use crate::{CompileError, FunctionKind};

/// Refuses a `wavelift_barrier` that some lanes of a wave might reach without the others
/// (`docs/ir.md`, "Barriers and fences"): one in a block under the influence of a
/// divergent branch. Divergence here is the plain analysis (a device function's
/// arguments per lane), not a target's policies on where it keeps uniform values (GCN's
/// VGPRs for the block parameters of linearized code, loads from writable memory), which
/// would make every loop counter of a linearized function divergent.
pub fn check_barriers(
    func: &ir::Function,
    cfg: &Cfg,
    kind: FunctionKind,
) -> Result<(), CompileError> {
    let barriers: Vec<ir::Inst> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| match func.dfg.insts[inst] {
            InstructionData::Call { func_ref, .. } => {
                Intrinsic::from_func_ref(func, func_ref) == Some(Intrinsic::Barrier)
            }
            _ => false,
        })
        .collect();
    if barriers.is_empty() {
        return Ok(());
    }
    let mut analysis = Analysis::new(func, cfg);
    if kind == FunctionKind::Device
        && let Some(entry) = func.layout.entry_block()
    {
        analysis.assume_divergent(func.dfg.block_params(entry).iter().copied());
    }
    let uniformity = analysis.finish();
    for inst in barriers {
        let block = func.layout.inst_block(inst).expect("a placed instruction");
        if uniformity.is_under_divergent_control(block) {
            return Err(CompileError::at_inst(
                func,
                inst,
                "`wavelift_barrier` in divergent control flow: a barrier must be reached by \
                 all work-items of the work-group or by none",
            ));
        }
    }
    Ok(())
}
