//! An NV50 (Tesla) warp simulator: G80, G84–G98, GT200.
//!
//! Decodes machine-code bytes with the MC layer's decoder and executes 32-thread warps:
//! `$r0`–`$r127`, the condition registers `$c0`–`$c3`, the address registers `$a1`–`$a7`,
//! predication, the reconvergence stack (`joinat`/`join`, `breakaddr`/`break`,
//! `call`/`ret`, divergent `bra`), `exit`; global memory through `g15[]` with its atomics,
//! per-block `s[]` with nouveau's system area, the kernel's parameters and GT200's locks,
//! per-thread `l[]`; `vote`.
//!
//! Module layout:
//! - `program.rs`: the decode cache (each program counter decoded once);
//! - `warp.rs`: the warp state, the reconvergence stack, operands and memory;
//! - `alu.rs`: per-thread semantics of the arithmetic, logic and conversion operations;
//! - `atomic.rs`: global atomics and reductions, the `s[]` lock, `vote`;
//! - `float.rs`: the bit-exact f32/f64 model; `sfu.rs`: the special functions;
//! - `dispatch.rs`: device-function calls and kernel launches over a grid.
//!
//! `docs/simulator.md` describes what is modelled and what is not.

mod alu;
mod atomic;
mod dispatch;
mod float;
mod program;
mod sfu;
mod warp;

use super::{Launch, Memory, Options, SimError, Simulator, Stats};
use crate::isa::kernel_param_layout;
use crate::isa::nv50::mc::Variant;
use crate::{CompiledCode, ir};

/// Where [`Simulator::memory`] places its first buffer: below 4 GiB, because NV50 code
/// addresses global memory through the low 32 bits of a pointer in `g15[]` (`docs/nv50.md`,
/// "Memory windows"), and not at 0, so that a null pointer faults.
pub const MEMORY_BASE: u64 = 0x1000_0000;

/// The simulator of one Tesla variant, for the target-neutral harness.
pub struct Nv50Simulator {
    /// The variant simulated (which instructions decode).
    pub variant: Variant,
}

impl Simulator for Nv50Simulator {
    fn lanes(&self) -> usize {
        warp::WARP_THREADS
    }

    fn memory(&self) -> Memory {
        Memory::with_base(MEMORY_BASE)
    }

    /// The bytes of GCN's kernarg segment (`docs/nv50.md`: the same argument bytes serve
    /// both targets); the launch copies them to `s[0x14]`.
    fn param_layout(&self, signature: &ir::Signature) -> (Vec<u32>, u32) {
        kernel_param_layout(signature)
    }

    fn call_device(
        &self,
        code: &CompiledCode,
        args: &[Vec<u32>],
        result_dwords: usize,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
        call_device(
            &code.code,
            self.variant,
            args,
            result_dwords,
            memory,
            options,
        )
    }

    fn launch(
        &self,
        code: &CompiledCode,
        launch_: &Launch,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<Stats, SimError> {
        launch(code, self.variant, launch_, memory, options)
    }
}

/// Calls a device function: thread `i` (for `i < args.len()`, at most 32) gets `args[i]`
/// in `$r0`, `$r1`, … (an i64 as two words, low first); the other threads do not run. The
/// code starts at 0 as if called: the `ret` that finds no `call` entry on the stack ends
/// its threads. Returns the first `result_dwords` registers (`$r0`…) of every thread.
pub fn call_device(
    code: &[u8],
    variant: Variant,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    dispatch::call_device(code, variant, args, result_dwords, memory, options)
}

/// Runs a compiled kernel over the grid of `launch` as nouveau launches it: blocks one
/// after another, each with its `s[]` system area and the parameters at `s[0x14]`, the
/// thread id packed in `$r0`, the warps of a block interleaved at `bar`.
pub fn launch(
    code: &CompiledCode,
    variant: Variant,
    launch: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    dispatch::launch_kernel(code, variant, launch, memory, options)
}

#[cfg(test)]
mod warp_tests;
