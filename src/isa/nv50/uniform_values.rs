//! The values NV50 treats as uniform, the counterpart of GCN's `scalar_values.rs`: the
//! uniformity facts (`analysis::uniformity`) with NV50's one policy on top. NV50 keeps every
//! value per thread in `$r`, so uniformity only decides branches: a uniform one is a plain
//! `bra`, a divergent one gets its `joinat` (`reconverge.rs`).
//!
//! - A device function's arguments arrive in `$r` per thread (`abi.rs`): its callers may
//!   pass different values per thread.
//! - A load from a uniform address of global or workgroup memory reads the same value in
//!   every thread (there is no scalar cache to be incoherent with stores); a load of
//!   private memory (a stack address) reads each thread's own `l[]`, whatever the address.

use crate::FunctionKind;
use crate::analysis::cfg::Cfg;
use crate::analysis::stack_addresses::StackAddresses;
use crate::analysis::uniformity::{Analysis, Uniformity};
use crate::ir::{self, InstructionData};

/// The uniformity of `func`'s values as NV50 lowers them.
pub fn analyze(
    func: &ir::Function,
    cfg: &Cfg,
    kind: FunctionKind,
    stack: &StackAddresses,
) -> Uniformity {
    let mut analysis = Analysis::new(func, cfg);
    if kind == FunctionKind::Device
        && let Some(entry) = func.layout.entry_block()
    {
        analysis.assume_divergent(func.dfg.block_params(entry).iter().copied());
    }
    let dfg = &func.dfg;
    let private_loads = cfg.order.iter().flat_map(|&block| {
        func.layout
            .block_insts(block)
            .filter_map(|inst| match dfg.insts[inst] {
                InstructionData::Load { arg, .. } if stack.contains(dfg.resolve_aliases(arg)) => {
                    Some(dfg.first_result(inst))
                }
                _ => None,
            })
    });
    analysis.assume_divergent(private_loads.collect::<Vec<_>>());
    analysis.finish()
}
