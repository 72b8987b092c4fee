//! The values NV50 treats as uniform, the counterpart of GCN's `scalar_values.rs`: the
//! uniformity facts (`analysis::uniformity`) with NV50's one policy on top. NV50 keeps every
//! value per thread in `$r`, so uniformity only decides branches: a uniform one is a plain
//! `bra`, a divergent one gets its `joinat` (`reconverge.rs`).
//!
//! - A device function's arguments arrive in `$r` per thread (`abi.rs`): its callers may
//!   pass different values per thread.
//! - Loads need no policy: a load from a uniform address reads the same value in every
//!   thread (there is no scalar cache to be incoherent with stores).

use crate::FunctionKind;
use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::{Analysis, Uniformity};
use crate::ir;

/// The uniformity of `func`'s values as NV50 lowers them.
pub fn analyze(func: &ir::Function, cfg: &Cfg, kind: FunctionKind) -> Uniformity {
    let mut analysis = Analysis::new(func, cfg);
    if kind == FunctionKind::Device
        && let Some(entry) = func.layout.entry_block()
    {
        analysis.assume_divergent(func.dfg.block_params(entry).iter().copied());
    }
    analysis.finish()
}
