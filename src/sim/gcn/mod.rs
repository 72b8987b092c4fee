//! A GCN wavefront simulator (gfx6–gfx9).
//!
//! Decodes machine-code bytes with the MC layer's tables and executes 64-lane wavefronts:
//! SGPRs, VGPRs, EXEC, VCC, SCC, M0, the program counter and branches, LDS, byte-addressed
//! global memory, the kernarg segment. While it runs it checks what the hardware does not:
//! a register read before the `s_waitcnt` that guarantees its load has returned, and
//! instruction pairs closer than the wait states a documented hazard rule requires.
//!
//! Entry points: [`call_device`] runs a device function in the lanes of one wave (one
//! argument list per lane); [`launch`] runs a compiled kernel over a grid;
//! [`launch_object`] runs a kernel of an AMDGPU HSA code object (wavelift's or another
//! compiler's); both go through the one dispatcher, [`dispatch`](fn@dispatch).
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
//! - `dispatch.rs`: device-function calls, and the dispatcher: a kernel's initial state
//!   from its descriptor, the dispatch packet, scratch, partial work-groups;
//! - `fragment.rs`: a fragment shader's wave from a scene (parameters in LDS, M0's
//!   primitive mask, the enabled inputs), and its exports per lane;
//! - `vertex.rs`: a vertex shader's waves from vertex and instance ids, and their
//!   position and parameter exports per vertex.
//!
//! `docs/simulator.md` describes what is modelled and what is checked.

mod atomics;
mod dispatch;
mod dpp;
// Models of the emitted numerical sequences, run on this simulator's semantics.
#[cfg(test)]
mod expansions;
pub(crate) mod float;
mod fragment;
mod hazard;
mod interp;
mod lds;
mod program;
mod scratch;
pub(crate) mod valu;
mod vertex;
mod waitcnt;
mod wave;

pub use dispatch::{Dispatch, Kernel};

use super::{
    FragmentOutputs, Launch, Memory, Options, Scene, SimError, Simulator, Stats, VertexLaunch,
    VertexOutputs, Violation,
};
use crate::isa::gcn::code_object::read::CodeObject;
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

    fn launch_fragment(
        &self,
        code: &CompiledCode,
        scene: &Scene,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<Option<FragmentOutputs>>, Stats), SimError> {
        fragment::launch(code, self.generation, scene, memory, options)
    }

    fn launch_vertex(
        &self,
        code: &CompiledCode,
        launch: &VertexLaunch,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<VertexOutputs>, Stats), SimError> {
        vertex::launch(code, self.generation, launch, memory, options)
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

/// Runs a compiled kernel over the grid of `launch` through [`dispatch`](fn@dispatch), with
/// the kernel descriptor wavelift's code object holds for it: the inputs the kernel
/// enables (`GcnInfo::inputs`) initialised as the hardware does (AMDGPUUsage, "Initial
/// Kernel Execution State"), every wave of every work-group run to its `s_endpgm`; waves
/// of one work-group share LDS and meet at `s_barrier`.
pub fn launch(
    code: &CompiledCode,
    generation: Gen,
    launch: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    dispatch::launch(code, generation, launch, memory, options)
}

/// Runs `kernel` over the grid of `dispatch_`: the dispatcher places the dispatch packet,
/// the kernarg segment, a queue and the private segment in `memory` and starts every wave
/// with the registers, inputs and MODE the kernel's descriptor enables, as the hardware's
/// dispatcher does (`docs/simulator.md`, "The dispatcher").
pub fn dispatch(
    kernel: &Kernel,
    generation: Gen,
    dispatch_: &Dispatch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    dispatch::dispatch(kernel, generation, dispatch_, memory, options)
}

/// Runs the kernel `name` of the code object `object` (read by
/// [`code_object::read::read`](crate::isa::gcn::code_object::read::read)) on the
/// generation its processor belongs to, through [`dispatch`](fn@dispatch). The kernarg
/// segment is `dispatch_.kernarg` (the explicit arguments) grown to the descriptor's
/// `kernarg_size`, with the hidden arguments the object's metadata lists filled in as the
/// ROCm runtime fills them (`docs/objects.md`).
pub fn launch_object(
    object: &CodeObject,
    name: &str,
    dispatch_: &Dispatch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    let other = |m: String| SimError {
        pc: 0,
        inst: None,
        violation: Violation::Other(m),
    };
    let kernel = object.kernel(name).ok_or_else(|| {
        let names: Vec<&str> = object.kernels.iter().map(|k| k.name.as_str()).collect();
        other(format!(
            "no kernel `{name}` in the code object (kernels: {})",
            names.join(", ")
        ))
    })?;
    let generation = match crate::Target::parse(object.processor).map(|t| t.arch) {
        Ok(crate::Arch::Gcn(generation)) => generation,
        _ => {
            return Err(other(format!(
                "{} is not a GCN processor",
                object.processor
            )));
        }
    };
    let descriptor = kernel.fields();
    let mut with_hidden = dispatch_.clone();
    dispatch::write_hidden_arguments(&kernel.args, descriptor.kernarg_size, &mut with_hidden)
        .map_err(other)?;
    let kernel = Kernel {
        code: &object.text,
        entry: kernel.entry,
        descriptor,
    };
    dispatch::dispatch(&kernel, generation, &with_hidden, memory, options)
}
