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
//! - `dispatch.rs`: device-function calls and kernel launches over a grid, and one warp of
//!   a vertex or fragment program ([`Nv50Simulator::run_stage`]);
//! - `graphics.rs`: the `a[]`/`o[]` words and `v[]` planes of those programs;
//! - `fragment.rs`: a fragment program's launch for a scene (its planes, its warps);
//! - `vertex.rs`: a vertex program's launch (its `a[]` words, its `o[]` outputs).
//!
//! `docs/simulator.md` describes what is modelled and what is not.

mod alu;
mod atomic;
pub mod dispatch;
mod float;
mod fragment;
pub mod graphics;
mod program;
mod sfu;
mod vertex;
mod warp;

use super::{Launch, Memory, Options, SimError, Simulator, Stats};
use crate::difftest::Profile;
use crate::ir::Opcode;
use crate::ir::Type;
use crate::ir::types::{F32, F64, I8, I16, I32, I64};
use crate::isa::kernel_param_layout;
use crate::isa::nv50::mc::Variant;
use crate::{CompiledCode, ir};
use std::sync::OnceLock;

/// Where [`Simulator::memory`] places its first buffer: below 4 GiB, because NV50 code
/// addresses global memory through the low 32 bits of a pointer in `g15[]` (`docs/nv50.md`,
/// "Memory windows"), and not at 0, so that a null pointer faults.
pub const MEMORY_BASE: u64 = 0x1000_0000;

/// The simulator of one Tesla variant, for the target-neutral harness.
pub struct Nv50Simulator {
    /// The variant simulated (which instructions decode).
    pub variant: Variant,
}

impl Nv50Simulator {
    /// Runs one warp of a vertex or fragment program (`code`, machine code) whose threads in
    /// `lanes` are live, against `stage`'s `a[]` words or `v[]` planes, writing its `o[]`
    /// words there: the first `result_words` registers of each thread at the end (a
    /// fragment program's results). No compiled shader exists yet on NV50: this runs
    /// hand-built programs, the building block of the graphics launches to come.
    pub fn run_stage(
        &self,
        code: &[u8],
        stage: &mut graphics::Stage,
        lanes: u32,
        result_words: usize,
        options: &Options,
    ) -> Result<dispatch::StageEnd, SimError> {
        dispatch::run_stage(code, self.variant, stage, lanes, result_words, options)
    }
}

/// What the NV50 backend lowers today (`isle/nv50/lower.isle`, `docs/ir.md` "NV50"), for
/// the differential tester's generator: integers of every width, f32 values, and these
/// opcodes with these controlling types; GT200 adds f64 ([`GT200_PROFILE`]). When the
/// backend lowers more, these tables grow.
const INTS: &[Type] = &[I8, I16, I32, I64];
const GENERATOR_PROFILE: Profile = Profile {
    value_types: &[I8, I16, I32, I64, F32],
    ops: Some(&[
        (Opcode::Iadd, INTS),
        (Opcode::Isub, INTS),
        (Opcode::Imul, INTS),
        (Opcode::Umulhi, INTS),
        (Opcode::Smulhi, INTS),
        (Opcode::Udiv, INTS),
        (Opcode::Sdiv, INTS),
        (Opcode::Urem, INTS),
        (Opcode::Srem, INTS),
        (Opcode::Band, INTS),
        (Opcode::Bor, INTS),
        (Opcode::Bxor, INTS),
        (Opcode::Bnot, INTS),
        (Opcode::Ineg, INTS),
        (Opcode::Iabs, INTS),
        (Opcode::Umin, INTS),
        (Opcode::Umax, INTS),
        (Opcode::Smin, INTS),
        (Opcode::Smax, INTS),
        (Opcode::Clz, INTS),
        (Opcode::Ctz, INTS),
        (Opcode::Cls, INTS),
        (Opcode::Popcnt, INTS),
        (Opcode::Bitrev, INTS),
        (Opcode::Bswap, INTS),
        (Opcode::Ishl, INTS),
        (Opcode::Ushr, INTS),
        (Opcode::Sshr, INTS),
        (Opcode::Rotl, INTS),
        (Opcode::Rotr, INTS),
        (Opcode::Bitselect, INTS),
        (Opcode::Bmask, INTS),
        (Opcode::Icmp, INTS),
        (Opcode::Select, &[I8, I16, I32, I64, F32]),
        (Opcode::SelectSpectreGuard, &[I8, I16, I32, I64, F32]),
        (Opcode::UaddOverflow, INTS),
        (Opcode::SaddOverflow, INTS),
        (Opcode::UsubOverflow, INTS),
        (Opcode::SsubOverflow, INTS),
        (Opcode::UmulOverflow, INTS),
        (Opcode::SmulOverflow, INTS),
        (Opcode::UaddOverflowCin, INTS),
        (Opcode::SaddOverflowCin, INTS),
        (Opcode::UsubOverflowBin, INTS),
        (Opcode::SsubOverflowBin, INTS),
        (Opcode::Uextend, INTS),
        (Opcode::Sextend, INTS),
        (Opcode::Ireduce, INTS),
        (Opcode::Bitcast, &[I32, F32]),
        (Opcode::Fcmp, &[F32]),
        (Opcode::Fmin, &[F32]),
        (Opcode::Fmax, &[F32]),
        (Opcode::Fcopysign, &[F32]),
        (Opcode::Fneg, &[F32]),
        (Opcode::Fabs, &[F32]),
        (Opcode::Floor, &[F32]),
        (Opcode::Ceil, &[F32]),
        (Opcode::Trunc, &[F32]),
        (Opcode::Nearest, &[F32]),
        (Opcode::Fadd, &[F32]),
        (Opcode::Fsub, &[F32]),
        (Opcode::Fmul, &[F32]),
        (Opcode::Fdiv, &[F32]),
        (Opcode::Fma, &[F32]),
        (Opcode::Sqrt, &[F32]),
        (Opcode::FcvtToUint, INTS),
        (Opcode::FcvtToSint, INTS),
        (Opcode::FcvtToUintSat, INTS),
        (Opcode::FcvtToSintSat, INTS),
        (Opcode::FcvtFromUint, &[F32]),
        (Opcode::FcvtFromSint, &[F32]),
        (Opcode::StackAddr, &[I32, I64]),
        // Calls of device functions (the generator asks with `i32`).
        (Opcode::Call, &[I32]),
    ]),
    operand_types: INTS,
    conversion_ints: INTS,
    // G80 reads arguments up to `s[0x7c]` (26 words, the output pointer among them).
    max_param_words: 24,
};

/// GT200's profile: [`GENERATOR_PROFILE`] with f64 values, every f32 operation also on
/// f64 (GT200 lowers all of f64), and the conversions between f32 and f64.
fn gt200_profile() -> Profile {
    const F32_F64: &[Type] = &[F32, F64];
    const WITH_F64: &[Type] = &[I8, I16, I32, I64, F32, F64];
    static OPS: OnceLock<Vec<(Opcode, &'static [Type])>> = OnceLock::new();
    let ops = OPS.get_or_init(|| {
        let mut ops: Vec<(Opcode, &'static [Type])> = GENERATOR_PROFILE
            .ops
            .unwrap_or_default()
            .iter()
            .map(|&(op, types)| match types {
                [F32] => (op, F32_F64),
                [I8, I16, I32, I64, F32] => (op, WITH_F64),
                _ => (op, types),
            })
            .collect();
        ops.extend([
            (Opcode::Fpromote, &[F64][..]),
            (Opcode::Fdemote, &[F32][..]),
        ]);
        ops
    });
    Profile {
        value_types: WITH_F64,
        ops: Some(ops),
        ..GENERATOR_PROFILE
    }
}

impl Simulator for Nv50Simulator {
    fn launch_fragment(
        &self,
        code: &CompiledCode,
        scene: &super::Scene,
        _memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<Option<super::FragmentOutputs>>, Stats), SimError> {
        fragment::launch(code, self.variant, scene, options)
    }

    fn launch_vertex(
        &self,
        code: &CompiledCode,
        launch: &super::VertexLaunch,
        _memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<super::VertexOutputs>, Stats), SimError> {
        vertex::launch(code, self.variant, launch, options)
    }

    fn generator_profile(&self) -> Profile {
        if self.variant.has_f64() {
            gt200_profile()
        } else {
            GENERATOR_PROFILE
        }
    }

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
            code.nv50().map_or(0, |info| info.local_size),
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
/// in `$r0`, `$r1`, … (an i64 as two words, low first) and `local_size` bytes of `l[]`;
/// the other threads do not run. The code starts at 0 as if called: the `ret` that finds
/// no `call` entry on the stack ends its threads. Returns the first `result_dwords`
/// registers (`$r0`…) of every thread.
pub fn call_device(
    code: &[u8],
    variant: Variant,
    local_size: u32,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    dispatch::call_device(
        code,
        variant,
        local_size,
        args,
        result_dwords,
        memory,
        options,
    )
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
mod graphics_tests;
#[cfg(test)]
mod warp_tests;
