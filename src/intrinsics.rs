//! GPU intrinsics: operations CLIF has no opcode for, written as calls to external
//! functions with reserved names. This module owns the list: each intrinsic's name, CLIF
//! signature and semantics; the targets lower the calls. `docs/ir.md` documents them.
//!
//! In `.clif` text an intrinsic is declared by its name, for example
//! `fn0 = %wavelift_workitem_id_x() -> i32`, and called with `call fn0()`. Front ends
//! building CLIF in Rust use [`declare`].
//!
//! The cross-lane intrinsics (from [`Intrinsic::WaveSize`] on) combine the values of the
//! *active* lanes of a wave: those that execute the call together. Their exact semantics,
//! which the test harness's reference (`sim::harness::interpret_wave`) implements, are in
//! `docs/ir.md`, "Cross-lane intrinsics"; [`WaveOp::apply`] and [`WaveOp::identity`] are
//! the combining operations, shared by every implementation of the semantics.

use crate::ir::{self, AbiParam, ExternalName, FuncRef, Signature, Type, types};
use cranelift_codegen::isa::CallConv;

/// The combining operation of a wave reduction or scan, with its type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaveOp {
    /// i32 wrapping add.
    Add,
    /// i32 signed minimum.
    SMin,
    /// i32 signed maximum.
    SMax,
    /// i32 unsigned minimum.
    UMin,
    /// i32 unsigned maximum.
    UMax,
    /// i32 bitwise and.
    And,
    /// i32 bitwise or.
    Or,
    /// i32 bitwise xor.
    Xor,
    /// f32 add (IEEE, round to nearest even; the association order is fixed: docs/ir.md).
    FAdd,
    /// f32 minimum and maximum as CLIF's `fmin`/`fmax` (a NaN operand gives NaN; -0 < +0).
    FMin,
    /// See `FMin`.
    FMax,
}

impl WaveOp {
    /// Every operation, in documentation order.
    pub const ALL: [WaveOp; 11] = [
        WaveOp::Add,
        WaveOp::SMin,
        WaveOp::SMax,
        WaveOp::UMin,
        WaveOp::UMax,
        WaveOp::And,
        WaveOp::Or,
        WaveOp::Xor,
        WaveOp::FAdd,
        WaveOp::FMin,
        WaveOp::FMax,
    ];

    /// The name's part: `add_i32`, `min_f32`, ….
    fn suffix(self) -> &'static str {
        match self {
            WaveOp::Add => "add_i32",
            WaveOp::SMin => "smin_i32",
            WaveOp::SMax => "smax_i32",
            WaveOp::UMin => "umin_i32",
            WaveOp::UMax => "umax_i32",
            WaveOp::And => "and_i32",
            WaveOp::Or => "or_i32",
            WaveOp::Xor => "xor_i32",
            WaveOp::FAdd => "add_f32",
            WaveOp::FMin => "min_f32",
            WaveOp::FMax => "max_f32",
        }
    }

    /// Whether the operation is on f32.
    pub fn is_float(self) -> bool {
        matches!(self, WaveOp::FAdd | WaveOp::FMin | WaveOp::FMax)
    }

    /// The value type (`i32` or `f32`).
    pub fn ty(self) -> Type {
        if self.is_float() {
            types::F32
        } else {
            types::I32
        }
    }

    /// The identity, as bits: what an inactive lane contributes. -0.0 for the f32 sum
    /// (x + -0.0 = x for every x, +0.0 included), ±infinity for f32 min and max.
    pub fn identity(self) -> u32 {
        match self {
            WaveOp::Add | WaveOp::UMax | WaveOp::Or | WaveOp::Xor => 0,
            WaveOp::SMin => i32::MAX as u32,
            WaveOp::SMax => i32::MIN as u32,
            WaveOp::UMin | WaveOp::And => u32::MAX,
            WaveOp::FAdd => 0x8000_0000,
            WaveOp::FMin => f32::INFINITY.to_bits(),
            WaveOp::FMax => f32::NEG_INFINITY.to_bits(),
        }
    }

    /// `a op b` on bits. f32 results are IEEE-754's; a NaN result is the canonical quiet
    /// NaN (the test harness takes any NaN for any NaN).
    pub fn apply(self, a: u32, b: u32) -> u32 {
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let float = |x: f32| if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() };
        match self {
            WaveOp::Add => a.wrapping_add(b),
            WaveOp::SMin => (a as i32).min(b as i32) as u32,
            WaveOp::SMax => (a as i32).max(b as i32) as u32,
            WaveOp::UMin => a.min(b),
            WaveOp::UMax => a.max(b),
            WaveOp::And => a & b,
            WaveOp::Or => a | b,
            WaveOp::Xor => a ^ b,
            WaveOp::FAdd => float(fa + fb),
            WaveOp::FMin | WaveOp::FMax if fa.is_nan() || fb.is_nan() => 0x7fc0_0000,
            // -0 < +0: compare the sign when the values are equal.
            WaveOp::FMin if fa == fb => a | b & 0x8000_0000,
            WaveOp::FMax if fa == fb => a & b,
            WaveOp::FMin => float(fa.min(fb)),
            WaveOp::FMax => float(fa.max(fb)),
        }
    }
}

/// Which lane a shuffle reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shuffle {
    /// Lane `k` (per lane).
    Index,
    /// Lane `lane - k`.
    Up,
    /// Lane `lane + k`.
    Down,
    /// Lane `lane ^ k`.
    Xor,
}

impl Shuffle {
    /// Every shuffle.
    pub const ALL: [Shuffle; 4] = [Shuffle::Index, Shuffle::Up, Shuffle::Down, Shuffle::Xor];

    /// The lane that `lane` reads with operand `k`, before the range check (it may be
    /// negative or past the wave).
    pub fn source(self, lane: i64, k: u32) -> i64 {
        match self {
            Shuffle::Index => k as i64,
            Shuffle::Up => lane - k as i64,
            Shuffle::Down => lane + k as i64,
            Shuffle::Xor => lane ^ k as i64,
        }
    }
}

/// A shader stage: what a function that declares [`Intrinsic::Stage`] is (`docs/ir.md`,
/// "Shader stages").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Runs once per vertex; writes a position and parameters.
    Vertex,
    /// Runs once per covered pixel or sample; reads interpolated parameters, writes
    /// colours and depth, may discard.
    Fragment,
}

impl Stage {
    /// `vertex`, `fragment`: the name's part and the word in messages.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// How an input varies across a primitive: perspective-correct or linear in screen space.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Perspective-correct (WGSL `perspective`, SPIR-V's default).
    Perspective,
    /// Linear in screen space (WGSL `linear`, SPIR-V `NoPerspective`).
    Linear,
}

/// Where in the pixel the barycentrics are evaluated.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SamplePoint {
    /// The pixel's centre.
    Center,
    /// The centroid of the pixel's covered samples.
    Centroid,
    /// The sample the invocation runs for.
    Sample,
}

/// An interpolation mode: which barycentrics an interpolated input uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InterpMode {
    /// Perspective-correct or linear.
    pub interpolation: Interpolation,
    /// Where in the pixel.
    pub at: SamplePoint,
}

impl InterpMode {
    /// Every mode, perspective then linear, each at sample, centre, centroid: the order of
    /// GCN's `SPI_PS_INPUT_ADDR` bits.
    pub const ALL: [InterpMode; 6] = [
        InterpMode::new(Interpolation::Perspective, SamplePoint::Sample),
        InterpMode::new(Interpolation::Perspective, SamplePoint::Center),
        InterpMode::new(Interpolation::Perspective, SamplePoint::Centroid),
        InterpMode::new(Interpolation::Linear, SamplePoint::Sample),
        InterpMode::new(Interpolation::Linear, SamplePoint::Center),
        InterpMode::new(Interpolation::Linear, SamplePoint::Centroid),
    ];

    /// The mode `interpolation` at `at`.
    pub const fn new(interpolation: Interpolation, at: SamplePoint) -> InterpMode {
        InterpMode { interpolation, at }
    }

    /// The name's part: `perspective_center`, `linear_sample`, ….
    pub fn suffix(self) -> String {
        let interpolation = match self.interpolation {
            Interpolation::Perspective => "perspective",
            Interpolation::Linear => "linear",
        };
        let at = match self.at {
            SamplePoint::Center => "center",
            SamplePoint::Centroid => "centroid",
            SamplePoint::Sample => "sample",
        };
        format!("{interpolation}_{at}")
    }
}

/// How uniform an intrinsic's result is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultUniformity {
    /// Per lane (ids, scans, shuffles).
    Divergent,
    /// The same in every lane when the arguments are (work-group ids and sizes).
    WithArguments,
    /// The same in every active lane whatever the arguments (the wave size, lane reads,
    /// votes, reductions).
    Always,
}

/// Every intrinsic. More will come (memory spaces, barriers), so matches need a wildcard.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Intrinsic {
    /// The work-item's id within its work-group along a dimension (0, 1, 2).
    WorkitemId(u8),
    /// The work-group's id within the grid along a dimension.
    WorkgroupId(u8),
    /// The number of work-items in a work-group along a dimension.
    WorkgroupSize(u8),
    /// The lane's index within its wave (0..64 on GCN).
    LaneId,
    /// Lanes per wave: 64 on GCN, 32 on NV50.
    WaveSize,
    /// `x` of the lowest active lane.
    ReadFirstLane,
    /// `x` of lane `l` (wave-uniform), 0 when that lane is inactive.
    ReadLane,
    /// The mask of the active lanes whose condition is non-zero.
    Ballot,
    /// Whether any active lane's condition is non-zero.
    VoteAny,
    /// Whether every active lane's condition is non-zero.
    VoteAll,
    /// The operation over the active lanes' values.
    Reduce(WaveOp),
    /// The operation over the active lanes up to this one, this one included.
    InclusiveScan(WaveOp),
    /// The operation over the active lanes below this one (the identity in the first).
    ExclusiveScan(WaveOp),
    /// `x` of another lane, 0 when that lane is inactive or outside the wave.
    Shuffle(Shuffle),
    /// `x` of lane `k & 3` of this lane's quad (four aligned lanes).
    QuadBroadcast,
    /// `x` of the lane of this quad whose index differs by the XOR mask (1: x, 2: y,
    /// 3: diagonal).
    QuadSwap(u8),
    /// The i32 address of the first byte of the kernel's workgroup segment (memory shared
    /// by the work-items of a work-group), which holds at least `size` bytes (an `iconst`
    /// argument); the segment is as large as the largest `size` of the function's calls.
    /// Loads and stores with an i32 address access the segment (`docs/ir.md`, "Memory
    /// spaces").
    WorkgroupBase,
    /// Waits until every work-item of the work-group has reached this barrier, with the
    /// workgroup and global memory accesses before it complete and visible to the
    /// work-group after it (`docs/ir.md`, "Barriers").
    Barrier,
    /// Declared (never called), it makes the function a shader of this stage.
    Stage(Stage),
    /// A fragment shader's input `(location, component)` interpolated in this mode.
    Interp(InterpMode),
    /// A fragment shader's input `(location, component)` at the provoking vertex (flat).
    InterpFlat,
    /// A fragment shader's input `(location, component)` at the barycentrics `(i, j)`.
    InterpAt,
    /// The barycentric I (`which` = 0) or J (1) of a mode.
    Barycentric(InterpMode),
    /// The fragment's window position along x, y, z (0–2), or 1/w (3).
    FragCoord(u8),
    /// 1 when the fragment's primitive is front-facing, else 0.
    FrontFacing,
    /// Ends the fragment invocation without outputs.
    Discard,
    /// Writes colour target `target` (r, g, b, a).
    OutputColor,
    /// Writes colour target `target` (r, g, b, a) as four f16 channels, each rounded
    /// toward zero.
    OutputColorF16,
    /// Writes the fragment's depth.
    OutputDepth,
    /// The vertex shader's vertex index.
    VertexId,
    /// The vertex shader's instance index.
    InstanceId,
    /// A component of the vertex's input attribute `location`, as the vertex-fetch
    /// hardware gives it (NV50's `a[]`; GCN has none).
    VertexInput,
    /// Writes the vertex's clip-space position.
    OutputPosition,
    /// Writes vertex parameter `location` (x, y, z, w).
    OutputParam,
    /// Writes the vertex's point size.
    OutputPointSize,
    /// Writes the vertex's clip distance `index` (0–7).
    OutputClipDistance,
}

const DIMS: [char; 3] = ['x', 'y', 'z'];

impl Intrinsic {
    /// All intrinsics, in documentation order.
    pub fn all() -> Vec<Intrinsic> {
        let mut all = Vec::new();
        for d in 0..3 {
            all.push(Intrinsic::WorkitemId(d));
        }
        for d in 0..3 {
            all.push(Intrinsic::WorkgroupId(d));
        }
        for d in 0..3 {
            all.push(Intrinsic::WorkgroupSize(d));
        }
        all.push(Intrinsic::LaneId);
        all.extend([
            Intrinsic::WaveSize,
            Intrinsic::ReadFirstLane,
            Intrinsic::ReadLane,
            Intrinsic::Ballot,
            Intrinsic::VoteAny,
            Intrinsic::VoteAll,
        ]);
        all.extend(WaveOp::ALL.map(Intrinsic::Reduce));
        all.extend(WaveOp::ALL.map(Intrinsic::InclusiveScan));
        all.extend(WaveOp::ALL.map(Intrinsic::ExclusiveScan));
        all.extend(Shuffle::ALL.map(Intrinsic::Shuffle));
        all.push(Intrinsic::QuadBroadcast);
        all.extend([1, 2, 3].map(Intrinsic::QuadSwap));
        all.extend([Intrinsic::WorkgroupBase, Intrinsic::Barrier]);
        all.extend([Stage::Vertex, Stage::Fragment].map(Intrinsic::Stage));
        all.extend(InterpMode::ALL.map(Intrinsic::Interp));
        all.extend([Intrinsic::InterpFlat, Intrinsic::InterpAt]);
        all.extend(InterpMode::ALL.map(Intrinsic::Barycentric));
        all.extend((0..4).map(Intrinsic::FragCoord));
        all.extend([
            Intrinsic::FrontFacing,
            Intrinsic::Discard,
            Intrinsic::OutputColor,
            Intrinsic::OutputColorF16,
            Intrinsic::OutputDepth,
            Intrinsic::VertexId,
            Intrinsic::InstanceId,
            Intrinsic::VertexInput,
            Intrinsic::OutputPosition,
            Intrinsic::OutputParam,
            Intrinsic::OutputPointSize,
            Intrinsic::OutputClipDistance,
        ]);
        all
    }

    /// The stage the intrinsic belongs to: the one a marker declares, or the only one in
    /// which the intrinsic may be called. `None` for the others, which every function
    /// may call.
    pub fn stage(self) -> Option<Stage> {
        match self {
            Intrinsic::Stage(stage) => Some(stage),
            Intrinsic::Interp(_)
            | Intrinsic::InterpFlat
            | Intrinsic::InterpAt
            | Intrinsic::Barycentric(_)
            | Intrinsic::FragCoord(_)
            | Intrinsic::FrontFacing
            | Intrinsic::Discard
            | Intrinsic::OutputColor
            | Intrinsic::OutputColorF16
            | Intrinsic::OutputDepth => Some(Stage::Fragment),
            Intrinsic::VertexId
            | Intrinsic::InstanceId
            | Intrinsic::VertexInput
            | Intrinsic::OutputPosition
            | Intrinsic::OutputParam
            | Intrinsic::OutputPointSize
            | Intrinsic::OutputClipDistance => Some(Stage::Vertex),
            _ => None,
        }
    }

    /// The arguments that must be `iconst`s, with the range each must lie in: the
    /// location and component of an input, a colour target, a parameter's location,
    /// which barycentric.
    pub fn constant_args(self) -> &'static [(&'static str, std::ops::RangeInclusive<u32>)] {
        match self {
            Intrinsic::Interp(_)
            | Intrinsic::InterpFlat
            | Intrinsic::InterpAt
            | Intrinsic::VertexInput => &[("location", 0..=31), ("component", 0..=3)],
            Intrinsic::Barycentric(_) => &[("which", 0..=1)],
            Intrinsic::OutputColor | Intrinsic::OutputColorF16 => &[("target", 0..=7)],
            Intrinsic::OutputParam => &[("location", 0..=31)],
            Intrinsic::OutputClipDistance => &[("index", 0..=7)],
            _ => &[],
        }
    }

    /// The reserved external name (a CLIF test-case name, `%name` in text).
    pub fn name(self) -> String {
        let dim = |d: u8| DIMS[d as usize];
        match self {
            Intrinsic::WorkitemId(d) => format!("wavelift_workitem_id_{}", dim(d)),
            Intrinsic::WorkgroupId(d) => format!("wavelift_workgroup_id_{}", dim(d)),
            Intrinsic::WorkgroupSize(d) => format!("wavelift_workgroup_size_{}", dim(d)),
            Intrinsic::LaneId => "wavelift_lane_id".to_string(),
            Intrinsic::WaveSize => "wavelift_wave_size".to_string(),
            Intrinsic::ReadFirstLane => "wavelift_readfirstlane".to_string(),
            Intrinsic::ReadLane => "wavelift_readlane".to_string(),
            Intrinsic::Ballot => "wavelift_ballot".to_string(),
            Intrinsic::VoteAny => "wavelift_vote_any".to_string(),
            Intrinsic::VoteAll => "wavelift_vote_all".to_string(),
            Intrinsic::Reduce(op) => format!("wavelift_reduce_{}", op.suffix()),
            Intrinsic::InclusiveScan(op) => format!("wavelift_scan_inclusive_{}", op.suffix()),
            Intrinsic::ExclusiveScan(op) => format!("wavelift_scan_exclusive_{}", op.suffix()),
            Intrinsic::Shuffle(Shuffle::Index) => "wavelift_shuffle".to_string(),
            Intrinsic::Shuffle(Shuffle::Up) => "wavelift_shuffle_up".to_string(),
            Intrinsic::Shuffle(Shuffle::Down) => "wavelift_shuffle_down".to_string(),
            Intrinsic::Shuffle(Shuffle::Xor) => "wavelift_shuffle_xor".to_string(),
            Intrinsic::QuadBroadcast => "wavelift_quad_broadcast".to_string(),
            Intrinsic::QuadSwap(mask) => {
                let axis = ["", "x", "y", "diagonal"][mask as usize & 3];
                format!("wavelift_quad_swap_{axis}")
            }
            Intrinsic::WorkgroupBase => "wavelift_workgroup_base".to_string(),
            Intrinsic::Barrier => "wavelift_barrier".to_string(),
            Intrinsic::Stage(stage) => format!("wavelift_stage_{}", stage.name()),
            Intrinsic::Interp(mode) => format!("wavelift_interp_{}", mode.suffix()),
            Intrinsic::InterpFlat => "wavelift_interp_flat".to_string(),
            Intrinsic::InterpAt => "wavelift_interp_at".to_string(),
            Intrinsic::Barycentric(mode) => format!("wavelift_barycentric_{}", mode.suffix()),
            Intrinsic::FragCoord(d) => {
                format!(
                    "wavelift_frag_coord_{}",
                    ['x', 'y', 'z', 'w'][d as usize & 3]
                )
            }
            Intrinsic::FrontFacing => "wavelift_front_facing".to_string(),
            Intrinsic::Discard => "wavelift_discard".to_string(),
            Intrinsic::OutputColor => "wavelift_output_color".to_string(),
            Intrinsic::OutputColorF16 => "wavelift_output_color_f16".to_string(),
            Intrinsic::OutputDepth => "wavelift_output_depth".to_string(),
            Intrinsic::VertexId => "wavelift_vertex_id".to_string(),
            Intrinsic::InstanceId => "wavelift_instance_id".to_string(),
            Intrinsic::VertexInput => "wavelift_vertex_input".to_string(),
            Intrinsic::OutputPosition => "wavelift_output_position".to_string(),
            Intrinsic::OutputParam => "wavelift_output_param".to_string(),
            Intrinsic::OutputPointSize => "wavelift_output_point_size".to_string(),
            Intrinsic::OutputClipDistance => "wavelift_output_clip_distance".to_string(),
        }
    }

    /// The intrinsic with the reserved name `name` (without the `%`), if there is one.
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        Intrinsic::all().into_iter().find(|i| i.name() == name)
    }

    /// The intrinsic a call's callee names, if it is one.
    pub fn from_func_ref(func: &ir::Function, func_ref: FuncRef) -> Option<Intrinsic> {
        match &func.dfg.ext_funcs[func_ref].name {
            ExternalName::TestCase(name) => std::str::from_utf8(name.raw())
                .ok()
                .and_then(Intrinsic::from_name),
            _ => None,
        }
    }

    /// The intrinsic a call to `func_ref` is, `None` for any other function, and an error
    /// (the reason, for a `CompileError`) when it is declared with another signature than
    /// [`Intrinsic::signature`].
    pub fn of_call(func: &ir::Function, func_ref: FuncRef) -> Option<Result<Intrinsic, String>> {
        let intrinsic = Intrinsic::from_func_ref(func, func_ref)?;
        let sig = &func.dfg.signatures[func.dfg.ext_funcs[func_ref].signature];
        let expected = intrinsic.signature();
        Some(
            if sig.params != expected.params || sig.returns != expected.returns {
                Err(format!(
                    "intrinsic `{}` must be declared with signature {expected}",
                    intrinsic.name()
                ))
            } else {
                Ok(intrinsic)
            },
        )
    }

    /// The CLIF signature calls must use.
    pub fn signature(self) -> Signature {
        use types::{F32, I8, I32, I64};
        let no_result = |params: &[Type]| {
            let mut sig = Signature::new(CallConv::Fast);
            sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            sig
        };
        let (params, result): (&[Type], Type) = match self {
            Intrinsic::Stage(_) | Intrinsic::Discard => return no_result(&[]),
            Intrinsic::OutputColor | Intrinsic::OutputColorF16 | Intrinsic::OutputParam => {
                return no_result(&[I32, F32, F32, F32, F32]);
            }
            Intrinsic::OutputPosition => return no_result(&[F32, F32, F32, F32]),
            Intrinsic::OutputDepth | Intrinsic::OutputPointSize => return no_result(&[F32]),
            Intrinsic::OutputClipDistance => return no_result(&[I32, F32]),
            Intrinsic::Interp(_) | Intrinsic::InterpFlat | Intrinsic::VertexInput => {
                (&[I32, I32], F32)
            }
            Intrinsic::InterpAt => (&[I32, I32, F32, F32], F32),
            Intrinsic::Barycentric(_) => (&[I32], F32),
            Intrinsic::FragCoord(_) => (&[], F32),
            Intrinsic::FrontFacing => (&[], I8),
            Intrinsic::VertexId | Intrinsic::InstanceId => (&[], I32),
            Intrinsic::WorkitemId(_)
            | Intrinsic::WorkgroupId(_)
            | Intrinsic::WorkgroupSize(_)
            | Intrinsic::LaneId
            | Intrinsic::WaveSize => (&[], I32),
            Intrinsic::ReadFirstLane | Intrinsic::QuadSwap(_) | Intrinsic::WorkgroupBase => {
                (&[I32], I32)
            }
            Intrinsic::Barrier => return Signature::new(CallConv::Fast),
            Intrinsic::ReadLane | Intrinsic::Shuffle(_) | Intrinsic::QuadBroadcast => {
                (&[I32, I32], I32)
            }
            Intrinsic::Ballot => (&[I8], I64),
            Intrinsic::VoteAny | Intrinsic::VoteAll => (&[I8], I8),
            Intrinsic::Reduce(op) | Intrinsic::InclusiveScan(op) | Intrinsic::ExclusiveScan(op) => {
                return unary(op.ty());
            }
        };
        let mut sig = Signature::new(CallConv::Fast);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.push(AbiParam::new(result));
        sig
    }

    /// How uniform the result is.
    pub fn uniformity(self) -> ResultUniformity {
        // A shader stage's intrinsics give per-pixel and per-vertex values (the others have
        // no result).
        if self.stage().is_some() {
            return ResultUniformity::Divergent;
        }
        match self {
            Intrinsic::WorkgroupId(_) | Intrinsic::WorkgroupSize(_) => {
                ResultUniformity::WithArguments
            }
            Intrinsic::WaveSize
            | Intrinsic::ReadFirstLane
            | Intrinsic::ReadLane
            | Intrinsic::Ballot
            | Intrinsic::VoteAny
            | Intrinsic::VoteAll
            | Intrinsic::Reduce(_)
            | Intrinsic::WorkgroupBase
            | Intrinsic::Barrier => ResultUniformity::Always,
            _ => ResultUniformity::Divergent,
        }
    }

    /// Whether the result depends on other lanes (and so on which lanes are active).
    pub fn is_cross_lane(self) -> bool {
        self.stage().is_none()
            && !matches!(
                self,
                Intrinsic::WorkitemId(_)
                    | Intrinsic::WorkgroupId(_)
                    | Intrinsic::WorkgroupSize(_)
                    | Intrinsic::LaneId
                    | Intrinsic::WaveSize
                    | Intrinsic::WorkgroupBase
                    | Intrinsic::Barrier
            )
    }

    /// Whether it concerns the whole work-group (its shared memory, its barrier), which
    /// the work-items of a work-group only see together.
    pub fn is_workgroup_wide(self) -> bool {
        matches!(self, Intrinsic::WorkgroupBase | Intrinsic::Barrier)
    }
}

/// The most bytes of workgroup memory a kernel may ask for (the LDS a GCN work-group can
/// allocate on gfx7–gfx9; gfx6's limit, 32 KiB, is the target's to check).
pub const MAX_WORKGROUP_SEGMENT: u32 = 64 * 1024;

/// Gives every use of a [`Intrinsic::WorkgroupBase`] call's result the constant `base`
/// (a target whose segment always starts at one address: GCN's LDS address 0), so that
/// the mid-end folds it into the address arithmetic (`base + x` is `x` on GCN). The call
/// stays, its result unused, declaring the segment's size ([`workgroup_segment_size`]).
pub fn fold_workgroup_base(func: &mut ir::Function, base: i64) {
    use cranelift_codegen::cursor::{Cursor, FuncCursor};
    use ir::InstBuilder;
    let mut calls = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst]
                && Intrinsic::from_func_ref(func, func_ref) == Some(Intrinsic::WorkgroupBase)
            {
                calls.push(inst);
            }
        }
    }
    for call in calls {
        let Some(&result) = func.dfg.inst_results(call).first() else {
            continue;
        };
        let ty = func.dfg.value_type(result);
        // The call gets a fresh result; the old one becomes an alias of the constant.
        func.dfg.replace_result(result, ty);
        let mut pos = FuncCursor::new(func).after_inst(call);
        let constant = pos.ins().iconst(ty, base);
        pos.func.dfg.change_to_alias(result, constant);
    }
}

/// The size of `func`'s workgroup segment: the largest `size` of its
/// [`Intrinsic::WorkgroupBase`] calls (0 without one). Err: a call whose size is not an
/// `iconst` or is above [`MAX_WORKGROUP_SEGMENT`], with the reason.
pub fn workgroup_segment_size(func: &ir::Function) -> Result<u32, (ir::Inst, String)> {
    let mut size = 0u32;
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            if Intrinsic::from_func_ref(func, func_ref) != Some(Intrinsic::WorkgroupBase) {
                continue;
            }
            let Some(&arg) = func.dfg.inst_args(inst).first() else {
                continue;
            };
            let arg = func.dfg.resolve_aliases(arg);
            let constant =
                func.dfg
                    .value_def(arg)
                    .inst()
                    .and_then(|def| match func.dfg.insts[def] {
                        ir::InstructionData::UnaryImm {
                            opcode: ir::Opcode::Iconst,
                            imm,
                        } => Some(imm.bits() as u32),
                        _ => None,
                    });
            let Some(bytes) = constant else {
                return Err((
                    inst,
                    "the size of `wavelift_workgroup_base` must be an `iconst`".into(),
                ));
            };
            if bytes > MAX_WORKGROUP_SEGMENT {
                return Err((
                    inst,
                    format!(
                        "a workgroup segment of {bytes} bytes: at most \
                         {MAX_WORKGROUP_SEGMENT} bytes"
                    ),
                ));
            }
            size = size.max(bytes);
        }
    }
    Ok(size)
}

/// The stage `func` declares (`None`: a kernel or device function), after checking the
/// rules of `docs/ir.md`, "Shader stages": at most one stage, markers declared and never
/// called, a stage only on an entry point (`system_v` without results), each stage
/// intrinsic called only in its stage with its constant arguments `iconst`s in range,
/// and the outputs written in the block of the function's one `return`, each at most
/// once. Err: the instruction to blame, if one is, and the reason.
pub fn check_stage(func: &ir::Function) -> Result<Option<Stage>, (Option<ir::Inst>, String)> {
    let mut stage: Option<Stage> = None;
    for (func_ref, data) in func.dfg.ext_funcs.iter() {
        let Some(Intrinsic::Stage(declared)) = Intrinsic::from_func_ref(func, func_ref) else {
            continue;
        };
        let sig = &func.dfg.signatures[data.signature];
        if !sig.params.is_empty() || !sig.returns.is_empty() {
            return Err((
                None,
                format!(
                    "`wavelift_stage_{}` must be declared with signature ()",
                    declared.name()
                ),
            ));
        }
        match stage {
            Some(other) if other != declared => {
                return Err((
                    None,
                    format!(
                        "the function declares both `wavelift_stage_{}` and `wavelift_stage_{}`",
                        other.name(),
                        declared.name()
                    ),
                ));
            }
            _ => stage = Some(declared),
        }
    }
    let sig = &func.signature;
    let entry = sig.call_conv == CallConv::SystemV && sig.returns.is_empty();
    if let Some(stage) = stage
        && !entry
    {
        return Err((
            None,
            format!(
                "a {} shader is an entry point: `system_v` without results",
                stage.name()
            ),
        ));
    }
    let returns = |block| {
        func.layout
            .last_inst(block)
            .is_some_and(|t| func.dfg.insts[t].opcode() == ir::Opcode::Return)
    };
    let return_blocks = func.layout.blocks().filter(|&b| returns(b)).count();
    let mut outputs: Vec<(Intrinsic, u32)> = Vec::new();
    for block in func.layout.blocks() {
        let returning = returns(block);
        for inst in func.layout.block_insts(block) {
            let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let Some(intrinsic) = Intrinsic::from_func_ref(func, func_ref) else {
                continue;
            };
            let Some(wanted) = intrinsic.stage() else {
                continue;
            };
            if let Some(Err(reason)) = Intrinsic::of_call(func, func_ref) {
                return Err((Some(inst), reason));
            }
            let name = intrinsic.name();
            if let Intrinsic::Stage(_) = intrinsic {
                return Err((
                    Some(inst),
                    format!("`{name}` declares the stage; it is not called"),
                ));
            }
            if stage != Some(wanted) {
                return Err((
                    Some(inst),
                    format!(
                        "`{name}` may only be called in a {0} shader (one that declares \
                         `wavelift_stage_{0}`)",
                        wanted.name()
                    ),
                ));
            }
            let args = func.dfg.inst_args(inst);
            let mut key = 0;
            for (k, (what, range)) in intrinsic.constant_args().iter().enumerate() {
                let value = args.get(k).and_then(|&arg| iconst_value(func, arg));
                let Some(value) = value.filter(|v| range.contains(v)) else {
                    return Err((
                        Some(inst),
                        format!(
                            "the {what} of `{name}` must be an `iconst` in {}–{}",
                            range.start(),
                            range.end()
                        ),
                    ));
                };
                key = key << 8 | value;
            }
            if matches!(
                intrinsic,
                Intrinsic::OutputColor
                    | Intrinsic::OutputColorF16
                    | Intrinsic::OutputDepth
                    | Intrinsic::OutputPosition
                    | Intrinsic::OutputParam
                    | Intrinsic::OutputPointSize
                    | Intrinsic::OutputClipDistance
            ) {
                if return_blocks > 1 {
                    return Err((
                        Some(inst),
                        "a shader that writes outputs must have exactly one `return`".into(),
                    ));
                }
                if !returning {
                    return Err((
                        Some(inst),
                        format!("`{name}` must be in the block that ends with `return`"),
                    ));
                }
                // Both colour forms write the same targets.
                let output = match intrinsic {
                    Intrinsic::OutputColorF16 => Intrinsic::OutputColor,
                    other => other,
                };
                if outputs.contains(&(output, key)) {
                    return Err((
                        Some(inst),
                        format!("the output of `{name}` is written twice"),
                    ));
                }
                outputs.push((output, key));
            }
        }
    }
    if stage == Some(Stage::Vertex) && !outputs.iter().any(|(i, _)| *i == Intrinsic::OutputPosition)
    {
        return Err((
            None,
            "a vertex shader must write its position (`wavelift_output_position`)".into(),
        ));
    }
    Ok(stage)
}

/// The value of `arg` when an `iconst` defines it, as a u32 (`None` for negative values
/// and for anything but an `iconst`).
pub fn iconst_value(func: &ir::Function, arg: ir::Value) -> Option<u32> {
    let arg = func.dfg.resolve_aliases(arg);
    let def = func.dfg.value_def(arg).inst()?;
    match func.dfg.insts[def] {
        ir::InstructionData::UnaryImm {
            opcode: ir::Opcode::Iconst,
            imm,
        } => u32::try_from(imm.bits()).ok(),
        _ => None,
    }
}

fn unary(ty: Type) -> Signature {
    let mut sig = Signature::new(CallConv::Fast);
    sig.params.push(AbiParam::new(ty));
    sig.returns.push(AbiParam::new(ty));
    sig
}

/// Declares `intrinsic` in `func` and returns the reference to call it with.
pub fn declare(func: &mut ir::Function, intrinsic: Intrinsic) -> FuncRef {
    let signature = func.import_signature(intrinsic.signature());
    func.import_function(ir::ExtFuncData {
        name: ExternalName::testcase(intrinsic.name()),
        signature,
        colocated: true,
        patchable: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for i in Intrinsic::all() {
            assert_eq!(Intrinsic::from_name(&i.name()), Some(i));
        }
        assert_eq!(Intrinsic::from_name("wavelift_nothing"), None);
        assert_eq!(
            Intrinsic::from_name("wavelift_scan_exclusive_umax_i32"),
            Some(Intrinsic::ExclusiveScan(WaveOp::UMax))
        );
    }

    #[test]
    fn stage_intrinsics_are_named_as_documented() {
        let mode = InterpMode::new(Interpolation::Linear, SamplePoint::Centroid);
        assert_eq!(
            Intrinsic::from_name("wavelift_interp_linear_centroid"),
            Some(Intrinsic::Interp(mode))
        );
        assert_eq!(
            Intrinsic::from_name("wavelift_barycentric_perspective_sample"),
            Some(Intrinsic::Barycentric(InterpMode::ALL[0]))
        );
        assert_eq!(
            Intrinsic::from_name("wavelift_stage_fragment"),
            Some(Intrinsic::Stage(Stage::Fragment))
        );
        assert_eq!(Intrinsic::FragCoord(3).name(), "wavelift_frag_coord_w");
        for i in Intrinsic::all() {
            // Every stage intrinsic is per lane, and no other intrinsic needs a stage.
            if i.stage().is_some() {
                assert!(!i.is_cross_lane() && !i.is_workgroup_wide(), "{i:?}");
            }
            // The constant arguments are leading i32 parameters.
            let sig = i.signature();
            for k in 0..i.constant_args().len() {
                assert_eq!(sig.params[k].value_type, types::I32, "{i:?}");
            }
        }
    }

    #[test]
    fn declared_intrinsics_are_recognised() {
        let mut func = ir::Function::new();
        let f = declare(&mut func, Intrinsic::WorkgroupId(1));
        assert_eq!(
            Intrinsic::from_func_ref(&func, f),
            Some(Intrinsic::WorkgroupId(1))
        );
    }

    #[test]
    fn identities_are_identities() {
        let samples = [
            0,
            1,
            0x8000_0000,
            0x7fff_ffff,
            u32::MAX,
            0x3f80_0000,
            0xbf80_0000,
        ];
        for op in WaveOp::ALL {
            for x in samples {
                if op.is_float() && f32::from_bits(x).is_nan() {
                    continue;
                }
                assert_eq!(op.apply(x, op.identity()), x, "{op:?} {x:#x}");
                assert_eq!(op.apply(op.identity(), x), x, "{op:?} {x:#x}");
            }
        }
        let (p0, n0) = (0u32, 0x8000_0000);
        assert_eq!(WaveOp::FMin.apply(p0, n0), n0);
        assert_eq!(WaveOp::FMax.apply(n0, p0), p0);
        assert_eq!(WaveOp::FAdd.apply(n0, n0), n0);
    }
}
