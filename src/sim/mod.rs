//! Simulators that execute the machine code wavelift emits, for tests and for users
//! without the hardware. They decode code *bytes* with the same tables as the
//! disassembler, never compiler data structures. [`harness`] runs CLIF functions on them
//! and checks results against `cranelift-interpreter`.
//!
//! What the harness and the differential tester ask of a target's simulator is
//! [`Simulator`]; [`simulator`] gives each target's. The memory model, the options, the
//! counts and the errors here are every target's.

pub mod gcn;
pub mod harness;
mod memory;
pub mod nv50;
mod races;

pub use memory::Memory;

use crate::intrinsics::InterpMode;
use crate::{Arch, CompiledCode, ir};
use std::fmt;

/// A target's simulator: what the target-neutral harness needs to run compiled code.
pub trait Simulator {
    /// Lanes of one wave (GCN: 64) or warp: the lanes one device call runs at once, and
    /// what the lane-id intrinsic counts modulo.
    fn lanes(&self) -> usize;

    /// A fresh global memory with the target's addresses.
    fn memory(&self) -> Memory;

    /// What the differential tester's generator may make for this target: what its backend
    /// lowers (by default, everything the generator makes).
    fn generator_profile(&self) -> crate::difftest::Profile {
        crate::difftest::Profile::ALL
    }

    /// Where each parameter of a kernel of `signature` goes in the parameter block of a
    /// [`Launch`] (byte offsets, in the order of the CLIF parameters), and the block's size.
    fn param_layout(&self, signature: &ir::Signature) -> (Vec<u32>, u32);

    /// Calls the device function `code`: lane `i` (for `i < args.len()`, at most
    /// [`lanes`](Self::lanes)) gets `args[i]`, its arguments' 32-bit register words in
    /// order (see `harness::push_dwords`); the other lanes are inactive. Returns the first
    /// `result_dwords` result words of every active lane.
    fn call_device(
        &self,
        code: &CompiledCode,
        args: &[Vec<u32>],
        result_dwords: usize,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<Vec<u32>>, Stats), SimError>;

    /// Runs the kernel `code` over the grid of `launch`, its parameters and the buffers
    /// they point to in `memory`.
    fn launch(
        &self,
        code: &CompiledCode,
        launch: &Launch,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<Stats, SimError>;

    /// Runs the fragment shader `code` for one wave of pixels of `scene`; returns each
    /// lane's outputs (`None` for a lane not covered or discarded). A target that compiles
    /// no fragment shader says so.
    fn launch_fragment(
        &self,
        code: &CompiledCode,
        scene: &Scene,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<Option<FragmentOutputs>>, Stats), SimError> {
        let _ = (code, scene, memory, options);
        Err(SimError {
            pc: 0,
            inst: None,
            violation: Violation::Other("this simulator runs no fragment shader".into()),
        })
    }

    /// Runs the vertex shader `code` for the vertices of `launch`, in waves of
    /// [`lanes`](Self::lanes); returns each vertex's outputs, in the order of
    /// [`VertexLaunch::vertex_ids`]. A target that compiles no vertex shader says so.
    fn launch_vertex(
        &self,
        code: &CompiledCode,
        launch: &VertexLaunch,
        memory: &mut Memory,
        options: &Options,
    ) -> Result<(Vec<VertexOutputs>, Stats), SimError> {
        let _ = (code, launch, memory, options);
        Err(SimError {
            pc: 0,
            inst: None,
            violation: Violation::Other("this simulator runs no vertex shader".into()),
        })
    }
}

/// The vertices of a vertex-shader launch (`docs/filetests.md`, "Vertex launches"): what
/// the input assembler gives the shader. On GCN there is no vertex-input hardware: the
/// shader loads its attributes from the buffers whose addresses are in its user data; on
/// NV50 the vertex fetch puts them in `a[]` (`attributes`).
#[derive(Clone, Debug, Default)]
pub struct VertexLaunch {
    /// The shader's parameters (its user data), one word each (an i64 two, low first).
    pub user_data: Vec<u32>,
    /// Each vertex's id, 64 to a wave in this order (the last wave partial).
    pub vertex_ids: Vec<u32>,
    /// Each vertex's instance id (empty: all 0).
    pub instance_ids: Vec<u32>,
    /// The input attributes the vertex fetch gives (NV50's `a[]`, read by
    /// `wavelift_vertex_input`): each location's four channels per vertex, in the order of
    /// `vertex_ids`; attributes not given are 0.
    pub attributes: Vec<(u8, Vec<[f32; 4]>)>,
}

impl VertexLaunch {
    /// Channel `chan` of input attribute `location` of the launch's vertex `k`.
    pub fn input(&self, location: u8, chan: u8, k: usize) -> f32 {
        self.attributes
            .iter()
            .find(|(l, _)| *l == location)
            .and_then(|(_, v)| v.get(k))
            .map_or(0.0, |v| v[chan as usize])
    }
}

/// What a vertex shader wrote for one vertex, as 32-bit words: its position, its
/// parameters by location, its point size and its clip distances by index (`None`: not
/// written).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexOutputs {
    pub position: Option<[u32; 4]>,
    pub params: [Option<[u32; 4]>; 32],
    pub point_size: Option<u32>,
    pub clip_distances: [Option<u32>; 8],
}

/// A primitive's attribute: its location, and the value of its four channels at each of
/// the three vertices, the provoking vertex first.
pub type Attribute = (u8, [[f32; 4]; 3]);

/// One wave of pixels for a fragment shader (`docs/filetests.md`, "Fragment launches"):
/// what the rasterizer and the vertex shader give it.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// The shader's parameters (its user data), one word each (an i64 two, low first).
    pub user_data: Vec<u32>,
    /// Each primitive's attributes.
    pub primitives: Vec<Vec<Attribute>>,
    /// The primitive of each group of four lanes (a quad): 0 for the first, and each quad
    /// the same as the one before or the next primitive.
    pub quads: Vec<u32>,
    /// The covered lanes of the 64-lane wave, which run the shader.
    pub lanes: u64,
    /// Each lane's barycentrics I, J, per interpolation mode the scene gives.
    pub barycentrics: Vec<(InterpMode, Vec<[f32; 2]>)>,
    /// Each lane's window position x, y, z and clip-space w (empty: all 0).
    pub position: Vec<[f32; 4]>,
    /// Whether each primitive faces the viewer (empty: all do).
    pub front_facing: Vec<bool>,
}

impl Scene {
    /// The primitive lane `lane` belongs to.
    pub fn primitive(&self, lane: usize) -> usize {
        self.quads.get(lane / 4).copied().unwrap_or(0) as usize
    }

    /// The values of attribute `location`, channel `chan` at the three vertices of
    /// primitive `prim` (0 for an attribute the scene does not give).
    pub fn vertex_values(&self, prim: usize, location: u8, chan: u8) -> [f32; 3] {
        let found = self.primitives.get(prim).and_then(|attrs| {
            attrs
                .iter()
                .find(|(l, _)| *l == location)
                .map(|(_, v)| v.map(|vertex| vertex[chan as usize]))
        });
        found.unwrap_or([0.0; 3])
    }

    /// Lane `lane`'s barycentrics of `mode`, if the scene gives them.
    pub fn barycentric(&self, mode: InterpMode, lane: usize) -> Option<[f32; 2]> {
        self.barycentrics
            .iter()
            .find(|(m, _)| *m == mode)
            .and_then(|(_, per_lane)| per_lane.get(lane).copied())
    }
}

/// What a fragment shader wrote for one pixel: its colour targets' four channels and its
/// depth, as 32-bit words (`None`: not written).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FragmentOutputs {
    pub color: [Option<Color>; 8],
    pub depth: Option<u32>,
}

/// A colour target's four channels (r, g, b, a), the bits the shader exported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Color {
    /// f32 channels (`wavelift_output_color`).
    F32([u32; 4]),
    /// f16 channels (`wavelift_output_color_f16`).
    F16([u16; 4]),
}

impl Color {
    /// The channels' values (an f16 converts to f32 exactly).
    pub fn values(self) -> [f32; 4] {
        match self {
            Color::F32(bits) => bits.map(f32::from_bits),
            Color::F16(bits) => bits.map(gcn::float::f16_to_f32),
        }
    }
}

/// The simulator of `arch`: the one place that names each target's.
pub fn simulator(arch: Arch) -> Box<dyn Simulator> {
    match arch {
        Arch::Gcn(generation) => Box::new(gcn::GcnSimulator { generation }),
        Arch::Nv50(chip) => Box::new(nv50::Nv50Simulator {
            variant: chip.variant(),
        }),
    }
}

/// What to check and how long to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Fail when a register is read (or overwritten) while a memory operation that writes
    /// it is outstanding, i.e. before the `s_waitcnt` that guarantees it.
    pub check_waitcnt: bool,
    /// Fail when two instructions are closer than a hazard rule of the target allows.
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
    /// available on the target's generation).
    Unsupported(String),
    /// A memory access outside every allocated region, or misaligned where the hardware
    /// requires alignment.
    Memory {
        lane: Option<u32>,
        address: u64,
        message: String,
    },
    /// A register read or overwritten before the wait that guarantees the outstanding
    /// memory operation writing it has completed (GCN's `s_waitcnt`).
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
    /// A register read while it holds bits no manual defines, which an earlier
    /// instruction left there (the carry-out of a DPP lane that does not write).
    Undefined {
        register: String,
        written_at: u32,
        written: String,
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
            Violation::Undefined {
                register,
                written_at,
                written,
            } => write!(
                f,
                "{register} is read, but `{written}` at {written_at:#x} left it undefined"
            ),
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

/// A kernel launch: the grid and the kernel's parameters.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Work-items per work-group in x, y, z, within the target's limits: on GCN at most
    /// 65535 each and 1024 in all, on NV50 at most 512 × 512 × 64 and 512 in all.
    pub workgroup_size: [u32; 3],
    /// Work-groups in x, y, z.
    pub groups: [u32; 3],
    /// The parameter block's bytes, laid out as [`Simulator::param_layout`] says (GCN's
    /// kernarg segment).
    pub params: Vec<u8>,
}
