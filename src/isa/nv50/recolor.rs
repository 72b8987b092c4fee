//! NV50's use of the shared recoloring pass (`machinst::recolor`) on the `$r` file.
//!
//! Threads diverge in hardware here, so every write is a whole write for the thread that
//! makes it (no kept lanes). Emission may expand an instruction into several (selects,
//! copies of pairs, the wide forms), so no result shares a register with a source unless
//! it is that source exactly. The 16-bit halves `$rNl`/`$rNh` exist for `$r0`–`$r63` only:
//! an instruction that reads one keeps its registers.

use super::inst::{Inst, Src};
use super::regs::{GPR, GPR_LIMIT};
use crate::machinst::recolor::{self, Copied, Rules, Space};
use smallvec::smallvec;

/// Places the allocator's `$r` values again. Returns whether the code changed.
pub fn run(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>]) -> bool {
    let rules = Rules {
        keeps_old: &|_, _, _| false,
        single: &|_| false,
        pinned: &reads_a_half,
        copies: &copies,
    };
    let space = Space {
        file: GPR,
        first: 0,
        limit: GPR_LIMIT,
        alignment: [1, 2, 4],
        single_limit: 64,
    };
    recolor::run(blocks, succs, &space, &rules)
}

fn reads_a_half(inst: &Inst) -> bool {
    matches!(inst, Inst::Alu(alu) if alu.srcs.iter().any(|s| matches!(s, Src::H16(..))))
}

/// What a copy or a combination copies: its destination and sources.
fn copies(inst: &Inst) -> Option<Copied> {
    match inst {
        Inst::Copy { dst, src } => Some((*dst, smallvec![*src])),
        Inst::Combine { dst, lo, hi } => Some((*dst, smallvec![*lo, *hi])),
        _ => None,
    }
}
