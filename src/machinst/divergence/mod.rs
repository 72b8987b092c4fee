//! Divergence strategies: how a target runs control flow whose lanes go different ways.
//!
//! The facts are shared and target-neutral: the CFG, its dominators, post-dominators and
//! loops (`analysis::cfg`) and which values and branches are uniform
//! (`analysis::uniformity`). What a target does with a divergent branch is its own
//! strategy, built on the ordinary core (`Lower`, `VCode`, the regalloc2 adapter); the core
//! knows nothing of any strategy, and a target uses at most one per function.
//!
//! - **Mask linearization** ([`linearize`], GCN). The blocks run one after another in the
//!   order of [`linear_layout`], each under a lane mask (EXEC) holding the lanes that
//!   branched to it; branches update masks instead of jumping, block arguments move under
//!   masks, and a loop ends in one backward branch taken while any lane continues. The
//!   target brings [`LinearBackend`] (mask registers and spill slots, EXEC updates, the
//!   lanes of each branch edge, masked moves, loop latches, the exit block) and
//!   [`LinearInst`] for its instructions (the whole-wave move the allocator must insert in
//!   linearized code: pass [`LinearInst::gen_wave_move`] to `regalloc::run`).
//!   [`lower_linearized`] returns the VCode with what it keeps outside the allocator
//!   ([`Linearized`]: how many mask registers and mask spill slots), which the target
//!   places itself. It marks the values a loop leaves behind as stale
//!   ([`Lower::mark_stale`](super::lower::Lower::mark_stale)), so that no ISLE rule folds
//!   them into an instruction after the loop.
//! - **Hardware reconvergence** (NV50, to come). The warp's divergence stack reconverges
//!   the lanes: a divergent branch is a real branch, preceded by a `joinat` naming its
//!   immediate post-dominator, where a `join` waits for the lanes that went the other way
//!   (`breakaddr`/`break` for loop exits). Such a target lowers with the ordinary driver
//!   (`lower::lower_function`) and adds its reconvergence points in a pass of its own (a
//!   `reconverge.rs` module here if another target would share it); it needs no masks, no
//!   whole-wave moves and no stale values.
//!
//! A function with no divergent branch needs no strategy on either target: it lowers with
//! `lower::lower_function`, with real (uniform) branches.

pub mod linear_layout;
pub mod linearize;

pub use linearize::{Lanes, LinearBackend, LinearInst, Linearized, Masks, lower_linearized};
