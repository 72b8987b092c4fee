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
//! - `memory.rs`: [`Memory`], the global address space (allocated regions only);
//! - `valu.rs`: per-lane semantics of every VALU operation;
//! - `program.rs`: the decode cache (each program counter decoded once) and each
//!   instruction's kind and register footprint;
//! - `wave.rs`: the wave state, dispatch, SALU, SMEM, FLAT, branches, the VALU lane loop;
//! - `waitcnt.rs`: outstanding memory operations and `s_waitcnt`;
//! - `hazard.rs`: the table of hazard rules (manually inserted wait states);
//! - `dispatch.rs`: device-function calls and kernel launches over a grid.
//!
//! `docs/simulator.md` describes what is modelled and what is checked.

// The types below are the contract between the simulator's parts and its users (clif-util
// `run`, `test run`, the differential tester).

pub use memory::Memory;

mod dispatch;
pub(crate) mod float;
mod hazard;
mod memory;
mod program;
pub(crate) mod valu;
mod waitcnt;
mod wave;

use crate::CompiledCode;
use crate::isa::gcn::mc::Gen;
use std::fmt;

/// What to check and how long to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Fail when a register is read (or overwritten) while a memory operation that writes
    /// it is outstanding, i.e. before the `s_waitcnt` that guarantees it.
    pub check_waitcnt: bool,
    /// Fail when two instructions are closer than a hazard rule of the generation allows.
    pub check_hazards: bool,
    /// Give up (with [`Violation::StepLimit`]) after this many instructions per wave.
    pub max_steps: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            check_waitcnt: true,
            check_hazards: true,
            max_steps: 1_000_000,
        }
    }
}

/// Why a simulation stopped with an error.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation {
    /// The bytes do not decode.
    Decode(String),
    /// The instruction decodes but the simulator does not implement it (or it is not
    /// available on the generation).
    Unsupported(String),
    /// A memory access outside every allocated region, or misaligned where the hardware
    /// requires alignment.
    Memory {
        lane: Option<u32>,
        address: u64,
        message: String,
    },
    /// A register read or overwritten before the `s_waitcnt` that guarantees the
    /// outstanding memory operation writing it has completed.
    Waitcnt {
        register: String,
        issued_at: u32,
        issued: String,
    },
    /// Two instructions closer than a documented hazard rule allows.
    Hazard {
        rule: String,
        earlier_at: u32,
        earlier: String,
    },
    /// Execution ran off the code or jumped outside it.
    BadPc(String),
    /// More than [`Options::max_steps`] instructions.
    StepLimit,
    /// Anything else (e.g. an invalid operand combination).
    Other(String),
}

/// A simulation error: where (byte offset and disassembly of the instruction) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct SimError {
    pub pc: u32,
    /// The instruction at `pc` in assembler syntax, when it decodes.
    pub inst: Option<String>,
    pub violation: Violation,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {:#x}", self.pc)?;
        if let Some(inst) = &self.inst {
            write!(f, " (`{inst}`)")?;
        }
        write!(f, ": ")?;
        match &self.violation {
            Violation::Decode(m) => write!(f, "cannot decode: {m}"),
            Violation::Unsupported(m) => write!(f, "unsupported: {m}"),
            Violation::Memory {
                lane,
                address,
                message,
            } => {
                write!(f, "memory access at {address:#x}")?;
                if let Some(lane) = lane {
                    write!(f, " in lane {lane}")?;
                }
                write!(f, ": {message}")
            }
            Violation::Waitcnt {
                register,
                issued_at,
                issued,
            } => write!(
                f,
                "{register} is used before `s_waitcnt` for `{issued}` at {issued_at:#x}"
            ),
            Violation::Hazard {
                rule,
                earlier_at,
                earlier,
            } => write!(f, "hazard after `{earlier}` at {earlier_at:#x}: {rule}"),
            Violation::BadPc(m) => write!(f, "bad program counter: {m}"),
            Violation::StepLimit => write!(f, "step limit reached"),
            Violation::Other(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for SimError {}

/// Counts from a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Waves executed.
    pub waves: u64,
    /// Instructions executed, summed over waves.
    pub instructions: u64,
}

/// Calls a device function (`fast`/`tail` calling convention, see
/// `isa::gcn::abi`): lane `i` (for `i < args.len()`, at most 64) gets `args[i]` in
/// v0, v1, … (one dword each, already split into dwords by the caller); the other lanes
/// are inactive (EXEC clear). The return address in `s[0:1]` points past the end of the code;
/// the call ends when the code jumps there. Returns the first `result_dwords` VGPRs of
/// every active lane.
pub fn call_device(
    code: &[u8],
    generation: Gen,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    dispatch::call_device(code, generation, args, result_dwords, memory, options)
}

/// A kernel launch: the grid and the kernel arguments.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Work-items per work-group in x, y, z (the product is at most 1024).
    pub workgroup_size: [u32; 3],
    /// Work-groups in x, y, z.
    pub groups: [u32; 3],
    /// The kernarg segment's bytes (see `Frame::kernel` for the layout).
    pub kernarg: Vec<u8>,
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
