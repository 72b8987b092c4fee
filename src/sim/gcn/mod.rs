//! A GCN wavefront simulator (gfx6–gfx9).
//!
//! Decodes machine-code bytes with the MC layer's tables and executes 64-lane wavefronts:
//! SGPRs, VGPRs, EXEC, VCC, SCC, M0, the program counter and branches, LDS, byte-addressed
//! global memory, the kernarg segment. While it runs it checks what the hardware does not:
//! a register read before the `s_waitcnt` that guarantees its load has returned, and
//! instruction pairs closer than the wait states a documented hazard rule requires.
//!
//! Entry points: [`call_device`] runs a device function in the lanes of one wave (one
//! argument list per lane); [`launch`] runs a kernel over a grid.
//!
//! Module layout:
//! - `valu.rs`: per-lane semantics of every VALU operation, SDWA's selects included;
//! - `dpp.rs`: DPP's lane fetch (which lane each lane reads, which lanes write);
//! - `lds.rs`: the lane permutes of the LDS unit (`ds_swizzle_b32`, `ds_bpermute_b32`,
//!   `ds_permute_b32`);
//! - `program.rs`: the decode cache (each program counter decoded once) and each
//!   instruction's kind and register footprint;
//! - `wave.rs`: the wave state, dispatch, SALU, SMEM, FLAT, branches, the VALU lane loop;
//! - `waitcnt.rs`: outstanding memory operations and `s_waitcnt`;
//! - `hazard.rs`: the table of hazard rules (manually inserted wait states);
//! - `dispatch.rs`: device-function calls and kernel launches over a grid.
//!
//! `docs/simulator.md` describes what is modelled and what is checked.

mod atomics;
mod dispatch;
mod dpp;
// Models of the emitted numerical sequences, run on this simulator's semantics.
#[cfg(test)]
mod expansions;
pub(crate) mod float;
mod hazard;
mod lds;
mod program;
mod scratch;
pub(crate) mod valu;
mod waitcnt;
mod wave;

use super::{Launch, Memory, Options, SimError, Simulator, Stats};
use crate::isa::gcn::mc::Gen;
use crate::isa::kernel_param_layout;
use crate::{CompiledCode, ir};

/// Lanes of a wavefront.
const WAVE_LANES: usize = 64;

/// The simulator of one GCN generation, for the target-neutral harness.
pub struct GcnSimulator {
    /// The generation simulated.
    pub generation: Gen,
}

impl Simulator for GcnSimulator {
    fn lanes(&self) -> usize {
        WAVE_LANES
    }

    fn memory(&self) -> Memory {
        Memory::new()
    }

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
        dispatch::call_device(
            &code.code,
            code.gcn(),
            self.generation,
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
        launch(code, self.generation, launch_, memory, options)
    }
}

/// Calls a device function (`fast`/`tail` calling convention, see
/// `isa::gcn::abi`): lane `i` (for `i < args.len()`, at most 64) gets `args[i]` in
/// v0, v1, … (one dword each, already split into dwords by the caller); the other lanes
/// are inactive (EXEC clear). The return address in `s[0:1]` points past the end of the code;
/// the call ends when the code jumps there. Returns the first `result_dwords` VGPRs of
/// every active lane. (A device function with private memory needs the frame its
/// `GcnInfo` describes: call it through `Simulator::call_device`.)
pub fn call_device(
    code: &[u8],
    generation: Gen,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    dispatch::call_device(code, None, generation, args, result_dwords, memory, options)
}

/// Runs a compiled kernel over the grid of `launch`. The simulator places the kernarg
/// segment and the dispatch packet in `memory`, initialises the inputs the kernel
/// enables (`code.inputs`) as the hardware does (AMDGPU ABI, "Initial Kernel Execution
/// State") and runs every wave of every work-group to its `s_endpgm`; waves of one
/// work-group share LDS and meet at `s_barrier`.
pub fn launch(
    code: &CompiledCode,
    generation: Gen,
    launch: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    dispatch::launch(code, generation, launch, memory, options)
}
