//! wavelift: a code generator from Cranelift IR (CLIF) to GPU machine code.
//!
//! Front ends build an [`ir::Function`] (with `cranelift-frontend` or by parsing `.clif`
//! text with `cranelift-reader`) and call [`compile`] with a [`Target`]. GPU operations
//! CLIF has no opcode for are calls to the intrinsics listed in [`intrinsics`].

extern crate alloc;

pub mod analysis;
pub mod difftest;
pub mod intrinsics;
pub mod isa;
pub mod machinst;
pub mod sim;
mod target;

pub use cranelift_codegen::ir;
pub use target::{Arch, Target, TargetError};

use std::fmt;

/// Why a function could not be compiled. It names the function, the CLIF instruction
/// (when one is to blame) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The function's name as CLIF prints it (`%name` or `u0:1`).
    pub function: String,
    /// The offending instruction as CLIF text, when the error concerns one.
    pub inst: Option<String>,
    pub reason: String,
}

impl CompileError {
    pub fn new(func: &ir::Function, reason: impl Into<String>) -> Self {
        CompileError {
            function: func.name.to_string(),
            inst: None,
            reason: reason.into(),
        }
    }

    pub fn at_inst(func: &ir::Function, inst: ir::Inst, reason: impl Into<String>) -> Self {
        CompileError {
            function: func.name.to_string(),
            inst: Some(func.dfg.display_inst(inst).to_string()),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function {}", self.function)?;
        if let Some(inst) = &self.inst {
            write!(f, ", instruction `{inst}`")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for CompileError {}

/// What kind of entry point a compiled function is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// A compute kernel launched over a grid (`s_endpgm` at the end).
    Kernel,
    /// A device function called from other GPU code (returns through `s_setpc_b64`).
    Device,
}

/// A compiled function: its code and what a loader or a user needs to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledCode {
    pub code: Vec<u8>,
    pub kind: FunctionKind,
    /// Vector registers used (the highest used index plus one).
    pub vgprs: u32,
    /// Scalar registers used, VCC not included (the highest used index plus one).
    pub sgprs: u32,
    /// Whether the code writes VCC.
    pub uses_vcc: bool,
    /// Bytes of kernel arguments read from the kernarg segment (kernels only).
    pub kernarg_size: u32,
    /// Hardware-initialised registers the kernel needs (kernel descriptor enables).
    pub inputs: isa::gcn::abi::KernelInputs,
}

/// Compiles `func` for `target` and returns its code bytes.
pub fn compile(func: &ir::Function, target: &Target) -> Result<Vec<u8>, CompileError> {
    compile_function(func, target).map(|compiled| compiled.code)
}

/// Compiles `func` for `target` and returns its code with its metadata.
pub fn compile_function(
    func: &ir::Function,
    target: &Target,
) -> Result<CompiledCode, CompileError> {
    let check = match target.arch {
        Arch::Gcn(_) => isa::gcn::check_type,
    };
    let func = machinst::prepare(func, check)?;
    match target.arch {
        Arch::Gcn(generation) => isa::gcn::compile(&func, generation),
    }
}

/// One disassembled instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisasmLine {
    pub offset: usize,
    pub bytes: Vec<u8>,
    /// The instruction in the vendor assembler's syntax (LLVM's for GCN).
    pub text: String,
}

/// Disassembles code bytes for `target`. Undecodable bytes end the listing with a line
/// that says so.
pub fn disassemble(code: &[u8], target: &Target) -> Vec<DisasmLine> {
    match target.arch {
        Arch::Gcn(generation) => isa::gcn::disassemble(code, generation),
    }
}
