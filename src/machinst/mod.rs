//! The machine-independent core shared by every backend: virtual registers, VCode, the
//! lowering driver and the regalloc2 adapter, and the divergence strategies built on them
//! ([`divergence`]).

pub mod dce;
pub mod demanded_bits;
pub mod divergence;
pub mod expand_atomics;
pub mod indirect_calls;
pub mod isle;
pub mod lower;
pub mod recolor;
pub mod regalloc;
pub mod type_gate;
pub mod vcode;

pub use regalloc2::RegClass;
pub use vcode::{VBlock, VCode};

use crate::CompileError;
use cranelift_codegen::ir;
use cranelift_codegen::settings::{self, Configurable};
use std::fmt;

/// A register file of a target (GCN: SGPR, VGPR). The allocator runs once per file.
pub type RegFile = u8;

/// A register: virtual before allocation, real (a hardware register number) after.
///
/// The class says the width: on every target `Int` is one 32-bit register, `Float` an
/// aligned pair and `Vector` an aligned quad (see `docs/decisions.md`).
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub enum Reg {
    Virtual {
        file: RegFile,
        vreg: regalloc2::VReg,
    },
    Real {
        file: RegFile,
        class: RegClass,
        /// The hardware number of the first register.
        hw: u16,
    },
}

impl Reg {
    pub fn file(self) -> RegFile {
        match self {
            Reg::Virtual { file, .. } | Reg::Real { file, .. } => file,
        }
    }
    pub fn class(self) -> RegClass {
        match self {
            Reg::Virtual { vreg, .. } => vreg.class(),
            Reg::Real { class, .. } => class,
        }
    }
    /// The hardware register number; only meaningful after allocation.
    pub fn hw(self) -> u16 {
        match self {
            Reg::Real { hw, .. } => hw,
            Reg::Virtual { vreg, .. } => {
                panic!("virtual register v{} after allocation", vreg.vreg())
            }
        }
    }
    pub fn is_virtual(self) -> bool {
        matches!(self, Reg::Virtual { .. })
    }
    /// How many 32-bit registers the class spans.
    pub fn width(self) -> u16 {
        class_width(self.class())
    }
}

/// Registers per value of a class: 1, 2 or 4.
pub fn class_width(class: RegClass) -> u16 {
    match class {
        RegClass::Int => 1,
        RegClass::Float => 2,
        RegClass::Vector => 4,
    }
}

impl fmt::Debug for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reg::Virtual { file, vreg } => write!(f, "%{}f{}w{}", vreg.vreg(), file, self.width()),
            Reg::Real { file, hw, .. } => write!(f, "r{hw}f{file}w{}", self.width()),
        }
    }
}

/// How an instruction uses a register operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OperandKind {
    Use,
    /// Read after the instruction has written its defs and clobbers (multi-instruction
    /// sequences): must not share a register with any of them.
    LateUse,
    /// Written after all uses are read: may share a register with a use.
    Def,
    /// Written before the uses are all read (multi-instruction sequences): must not
    /// share a register with any use.
    EarlyDef,
    /// Must be in this real register.
    UseFixed(Reg),
    DefFixed(Reg),
    /// Written into the register of use operand number `n` (two-address forms).
    DefReuse(usize),
    /// Read (written) in a register or a spill slot, as the allocator likes: operands the
    /// instruction moves itself (a target's ABI registers beyond what one class holds).
    UseAny,
    DefAny,
}

/// What a backend's machine instruction provides to the shared core.
pub trait MachInst: Clone + fmt::Debug {
    /// Visits every register operand in a fixed order (uses and defs), with its kind.
    fn visit_operands(&mut self, visit: &mut dyn FnMut(&mut Reg, OperandKind));
    /// Real registers the instruction overwrites besides its defs.
    fn clobbers(&self) -> &[Reg] {
        &[]
    }
    /// Whether the instruction must stay even if nothing reads its defs.
    fn has_side_effects(&self) -> bool;
    fn is_return(&self) -> bool;
    fn is_branch(&self) -> bool;
    /// A register-to-register copy of one register class.
    fn gen_move(dst: Reg, src: Reg) -> Self;
    /// An unconditional branch to VCode block `target`.
    fn gen_jump(target: usize) -> Self;
}

/// What [`prepare`] needs to know of the target.
#[derive(Copy, Clone)]
pub struct TargetFacts {
    /// Which CLIF types the target compiles ([`type_gate`]).
    pub types: type_gate::TypeCheck,
    /// Which atomics it has instructions for ([`expand_atomics`]).
    pub atomics: expand_atomics::Native,
    /// The address `wavelift_workgroup_base` gives, when it is a constant of the target.
    pub workgroup_base: Option<i64>,
    /// The shader stages it compiles (`docs/ir.md`, "Shader stages"); a shader of another
    /// stage is refused before the mid-end.
    pub stages: &'static [crate::intrinsics::Stage],
    /// Whether it calls through addresses in scalar registers: its indirect calls are
    /// rewritten for that ([`indirect_calls`]).
    pub indirect_calls: bool,
}

/// Verifies `func`, checks its types ([`type_gate`]), expands the atomics the target lacks
/// ([`expand_atomics`]), gives a constant workgroup base to the mid-end as a constant,
/// runs Cranelift's mid-end (the egraph pass at opt level `speed`), and rewrites indirect
/// calls where the target wants ([`indirect_calls`]).
pub fn prepare(
    func: &ir::Function,
    target: TargetFacts,
    mid_end: bool,
) -> Result<ir::Function, CompileError> {
    let mut builder = settings::builder();
    builder
        .set("opt_level", "speed")
        .expect("opt_level is a Cranelift setting");
    let flags = settings::Flags::new(builder);
    let mut ctx = cranelift_codegen::Context::for_function(func.clone());
    if let Err(errors) = ctx.verify(&flags) {
        return Err(CompileError::new(
            func,
            format!("the CLIF verifier rejects the function:\n{errors}"),
        ));
    }
    type_gate::run(func, target.types)?;
    // The shader stages are specified for every target (`docs/ir.md`, "Shader stages");
    // a target compiles the ones it lists.
    let stage = crate::intrinsics::check_stage(func).map_err(|(inst, reason)| match inst {
        Some(inst) => CompileError::at_inst(func, inst, reason),
        None => CompileError::new(func, reason),
    })?;
    if let Some(stage) = stage
        && !target.stages.contains(&stage)
    {
        return Err(CompileError::new(
            func,
            format!("{} shaders are not supported yet", stage.name()),
        ));
    }
    expand_atomics::run(&mut ctx.func, target.atomics);
    if let Some(base) = target.workgroup_base {
        crate::intrinsics::fold_workgroup_base(&mut ctx.func, base);
    }
    ctx.compute_cfg();
    ctx.compute_domtree();
    // The egraph pass elaborates the reachable blocks only and leaves the values that
    // unreachable ones use undefined, which its own verification then rejects: they go
    // first, as in `Context::optimize`.
    ctx.eliminate_unreachable_code(&flags)
        .map_err(|e| CompileError::new(func, format!("mid-end failed: {e}")))?;
    // The egraph pass assumes no value aliases (frontends and the text format make them),
    // as in `Context::optimize`.
    ctx.func.dfg.resolve_all_aliases();
    // `opt_level=none` keeps the reachable code as written.
    if mid_end {
        let mut ctrl_plane = cranelift_control::ControlPlane::default();
        ctx.egraph_pass(&flags, &mut ctrl_plane)
            .map_err(|e| CompileError::new(func, format!("mid-end failed: {e}")))?;
        demanded_bits::run(&mut ctx.func);
    }
    // After the mid-end, which may prove a callee uniform.
    if target.indirect_calls {
        indirect_calls::run(&mut ctx.func);
    }
    Ok(ctx.func)
}
