//! wavelift: a code generator from Cranelift IR (CLIF) to GPU machine code (AMD GCN,
//! gfx6–gfx9).
//!
//! A front end builds an [`ir::Function`] with [`cranelift_frontend`] (re-exported here
//! at the version wavelift is built with, as is [`cranelift_codegen`]), or parses `.clif`
//! text with `cranelift-reader`, and calls [`compile`] or [`compile_function`] with a
//! [`Target`]. GPU operations CLIF has no opcode for (work-item ids and the like) are
//! calls to the [`intrinsics`]. Many functions at once compile on all cores with
//! [`compile_many`], a module into one object file with [`compile_module`]. The calling
//! convention says what a function is:
//! `system_v` for a kernel, `fast` for a device function (`docs/ir.md` in the repository
//! documents the CLIF accepted and the ABI; `docs/targets.md` the targets).
//!
//! A kernel storing `out[id] = id * k` for each work-item `id`, compiled for gfx803 and
//! disassembled:
//!
//! ```
//! use wavelift::cranelift_codegen::ir::{self, AbiParam, InstBuilder, MemFlagsData, types};
//! use wavelift::cranelift_codegen::isa::CallConv;
//! use wavelift::cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
//! use wavelift::intrinsics::{self, Intrinsic};
//! use wavelift::{FunctionKind, Target};
//!
//! let target = Target::parse("gfx803")?; // or Target::new("amdgcn-amd-amdhsa", "gfx803")
//!
//! let mut sig = ir::Signature::new(CallConv::SystemV); // a kernel
//! sig.params.push(AbiParam::new(types::I64)); // out: a global address
//! sig.params.push(AbiParam::new(types::I32)); // k
//! let name = ir::UserFuncName::testcase("scale_ids");
//! let mut func = ir::Function::with_name_signature(name, sig);
//! let workitem_id = intrinsics::declare(&mut func, Intrinsic::WorkitemId(0));
//! let mut ctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut func, &mut ctx);
//! let block = b.create_block();
//! b.append_block_params_for_function_params(block);
//! b.switch_to_block(block);
//! let (out, k) = (b.block_params(block)[0], b.block_params(block)[1]);
//! let call = b.ins().call(workitem_id, &[]);
//! let id = b.inst_results(call)[0];
//! let value = b.ins().imul(id, k);
//! let offset = b.ins().uextend(types::I64, id);
//! let offset = b.ins().ishl_imm_u(offset, 2);
//! let address = b.ins().iadd(out, offset);
//! b.ins().store(MemFlagsData::trusted(), value, address, 0);
//! b.ins().return_(&[]);
//! b.seal_all_blocks();
//! b.finalize(target.frontend_config());
//!
//! let code: Vec<u8> = wavelift::compile(&func, &target)?;
//! let compiled = wavelift::compile_function(&func, &target)?; // with its metadata
//! assert_eq!(compiled.code, code);
//! assert_eq!(compiled.kind, FunctionKind::Kernel);
//! let gcn = compiled.gcn().expect("compiled for GCN"); // what a GCN loader needs
//! assert_eq!(gcn.kernarg_size, 12); // out at byte 0, k at byte 8
//! assert!(gcn.inputs.kernarg_segment_ptr);
//! let listing = wavelift::disassemble(&code, &target);
//! assert_eq!(listing.last().unwrap().text, "s_endpgm");
//! for line in &listing {
//!     println!("{:6x}  {}", line.offset, line.text);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Bad input is never a panic: it is a [`CompileError`] naming the function, the
//! instruction and the reason (or a [`TargetError`] for a target).
//!
//! # Features
//!
//! A front end depends on wavelift with `default-features = false`. The default features
//! are for working on wavelift itself: `test-support` (the GCN simulator, the filetest
//! harness and the differential tester, with `cranelift-interpreter`, `cranelift-reader`
//! and `arbitrary`) and `cli` (the `clif-util` tool, with `clap`). Neither is a stable
//! interface.

#![warn(missing_docs)]

extern crate alloc;

pub mod intrinsics;
mod parallel;
mod target;

// The backend's internals are private to a front end. The `test-support` feature makes
// them reachable (hidden from the documentation) for the tests, the simulator and
// clif-util, which check the backend's parts one by one.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod analysis;
#[cfg(not(feature = "test-support"))]
mod analysis;
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod isa;
#[cfg(not(feature = "test-support"))]
mod isa;
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod machinst;
#[cfg(not(feature = "test-support"))]
mod machinst;

// Only with `test-support`: they need cranelift-interpreter, cranelift-reader, arbitrary.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod difftest;
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod sim;

/// Cranelift's IR, the input: [`ir::Function`] and what it is made of.
#[doc(no_inline)]
pub use cranelift_codegen::ir;
pub use target::{Arch, CodeObjectVersion, FeatureSetting, OptLevel, Os, Target, TargetError};

/// The Cranelift code generator wavelift reads its IR from (pinned at the version wavelift
/// is built with): build and inspect [`ir::Function`]s with it without naming the version.
pub use cranelift_codegen;
/// Cranelift's function builder, at the version wavelift is built with.
pub use cranelift_frontend;

/// NVIDIA Tesla (NV50) specifics a front end needs: the chips and what a loader needs of
/// compiled code ([`Nv50Info`](nv50::Nv50Info)).
pub mod nv50 {
    pub use crate::isa::nv50::Nv50Info;
    pub use crate::isa::nv50::cpus::Chip;
}

/// AMD GCN specifics a front end needs: the generations, what a loader needs of compiled
/// code ([`GcnInfo`](gcn::GcnInfo)) and a kernel's hardware inputs.
pub mod gcn {
    pub use crate::isa::gcn::GcnInfo;
    pub use crate::isa::gcn::abi::KernelInputs;
    pub use crate::isa::gcn::mc::Gen;
}

use std::fmt;

/// Why a function could not be compiled. It names the function, the CLIF instruction
/// (when one is to blame) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The function's name as CLIF prints it (`%name` or `u0:1`); empty when the error
    /// concerns a module as a whole ([`compile_module`]).
    pub function: String,
    /// The offending instruction as CLIF text, when the error concerns one.
    pub inst: Option<String>,
    /// Why it cannot be compiled.
    pub reason: String,
}

impl CompileError {
    pub(crate) fn new(func: &ir::Function, reason: impl Into<String>) -> Self {
        CompileError {
            function: func.name.to_string(),
            inst: None,
            reason: reason.into(),
        }
    }

    pub(crate) fn in_module(reason: impl Into<String>) -> Self {
        CompileError {
            function: String::new(),
            inst: None,
            reason: reason.into(),
        }
    }

    pub(crate) fn at_inst(func: &ir::Function, inst: ir::Inst, reason: impl Into<String>) -> Self {
        CompileError {
            function: func.name.to_string(),
            inst: Some(func.dfg.display_inst(inst).to_string()),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.function.is_empty() {
            return write!(f, "module: {}", self.reason);
        }
        write!(f, "function {}", self.function)?;
        if let Some(inst) = &self.inst {
            write!(f, ", instruction `{inst}`")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for CompileError {}

/// What kind of entry point a compiled function is (from its signature: `docs/ir.md`,
/// "Kernels and device functions").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FunctionKind {
    /// A compute kernel launched over a grid (`s_endpgm` at the end).
    Kernel,
    /// A device function called from other GPU code (returns through `s_setpc_b64`).
    Device,
}

impl FunctionKind {
    /// The kind of a function with signature `sig`: a `system_v` function that returns
    /// nothing is a kernel (kernels write their results to memory); every other `system_v`,
    /// `fast` or `tail` function is a device function — so Cranelift's own runtests, whose
    /// functions are `system_v` and return their results, run unchanged. Other calling
    /// conventions are an error (the reason).
    pub fn of(sig: &ir::Signature) -> Result<FunctionKind, String> {
        use cranelift_codegen::isa::CallConv;
        match sig.call_conv {
            CallConv::SystemV if sig.returns.is_empty() => Ok(FunctionKind::Kernel),
            CallConv::SystemV | CallConv::Fast | CallConv::Tail => Ok(FunctionKind::Device),
            other => Err(format!(
                "calling convention `{other}` is not supported: use `system_v` for kernels \
                 (no results) and `fast`, `tail` or `system_v` with results for device \
                 functions"
            )),
        }
    }
}

/// A compiled function: its code and what a loader or a user needs to know about it.
///
/// The code and its kind mean the same on every target; what only one target's loader
/// needs (GCN's register counts and kernel inputs) is in [`target_info`](Self::target_info).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledCode {
    /// The machine code. GCN's branches are PC-relative: it runs wherever it is placed.
    /// NV50's branch targets are absolute, emitted for address 0: a loader relocates the
    /// words [`Nv50Info::relocations`](nv50::Nv50Info::relocations) lists.
    pub code: Vec<u8>,
    /// A kernel or a device function.
    pub kind: FunctionKind,
    /// What the target's loader needs beyond the code.
    pub target_info: TargetInfo,
}

/// The part of a [`CompiledCode`] that belongs to one target.
///
/// More targets may come, so a `match` on it needs a wildcard arm; the accessors
/// ([`CompiledCode::gcn`], [`CompiledCode::nv50`]) answer `None` for another target's code.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TargetInfo {
    /// Code for AMD GCN.
    Gcn(gcn::GcnInfo),
    /// Code for NVIDIA Tesla (NV50).
    Nv50(nv50::Nv50Info),
}

impl CompiledCode {
    /// Compiled code of `kind` with its target's information.
    pub fn new(code: Vec<u8>, kind: FunctionKind, target_info: TargetInfo) -> CompiledCode {
        CompiledCode {
            code,
            kind,
            target_info,
        }
    }

    /// Whether the code calls functions, which [`link`] resolves.
    pub fn has_calls(&self) -> bool {
        match &self.target_info {
            TargetInfo::Gcn(info) => !info.calls.is_empty(),
            TargetInfo::Nv50(info) => !info.calls.is_empty(),
        }
    }

    /// The size of the code in bytes.
    pub fn code_size(&self) -> usize {
        self.code.len()
    }

    /// The GCN information of code compiled for GCN.
    pub fn gcn(&self) -> Option<&gcn::GcnInfo> {
        match &self.target_info {
            TargetInfo::Gcn(info) => Some(info),
            _ => None,
        }
    }

    /// The NV50 information of code compiled for NV50.
    pub fn nv50(&self) -> Option<&nv50::Nv50Info> {
        match &self.target_info {
            TargetInfo::Nv50(info) => Some(info),
            _ => None,
        }
    }
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
    let backend = isa::backend(target.arch);
    let mid_end = target.opt_level == OptLevel::Speed;
    let func = machinst::prepare(func, backend.facts(), mid_end)?;
    backend.compile(&func)
}

/// Compiles each of `funcs` for `target` on all the cores the system offers
/// ([`std::thread::available_parallelism`]) and returns each function's result, in the
/// order of `funcs`: for a front end with many independent functions at once, a shader
/// cache being warmed, say. Each result is the one [`compile_function`] gives, byte for
/// byte, whichever thread compiled it; one function's error does not stop the others.
///
/// ```
/// use wavelift::Target;
///
/// let funcs = cranelift_reader::parse_functions(
///     "function %add(i32, i32) -> i32 fast {
///      block0(v0: i32, v1: i32):
///          v2 = iadd v0, v1
///          return v2
///      }
///      function %wide(i128) -> i128 fast {
///      block0(v0: i128):
///          return v0
///      }",
/// )?;
/// let target = Target::parse("gfx900")?;
/// let results = wavelift::compile_many(&funcs, &target);
/// assert_eq!(results[0], wavelift::compile_function(&funcs[0], &target));
/// assert_eq!(results[1].as_ref().unwrap_err().function, "%wide");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Everything wavelift takes and returns is [`Send`] and [`Sync`], and compiling shares no
/// state between functions, so a front end with a thread pool of its own may as well call
/// [`compile_function`] from each of its threads.
pub fn compile_many(
    funcs: &[ir::Function],
    target: &Target,
) -> Vec<Result<CompiledCode, CompileError>> {
    compile_many_with_threads(funcs, target, parallel::all_cores())
}

/// [`compile_many`] on at most `threads` threads, the caller's among them: one compiles
/// the functions one after the other on the caller's thread, and so does zero.
pub fn compile_many_with_threads(
    funcs: &[ir::Function],
    target: &Target,
    threads: usize,
) -> Vec<Result<CompiledCode, CompileError>> {
    parallel::map(funcs, threads, |func| compile_function(func, target))
}

/// Compiles every function of a module for `target` and writes them into one object file:
/// for GCN an AMDGPU HSA code object (ELF, code object version 5) with each kernel's code,
/// kernel descriptor (`NAME.kd`) and metadata, the device functions as local symbols
/// (`docs/objects.md` in the repository describes it). Each function's symbol is its CLIF
/// name without the `%`. NV50 has no object format yet: that is an error.
///
/// The functions are compiled on all cores, as by [`compile_many`]; when some cannot be
/// compiled, the error is the first of them in the order of `funcs`.
///
/// ```
/// use wavelift::Target;
///
/// let func = cranelift_reader::parse_functions(
///     "function %fill(i64, i32) system_v {
///      block0(v0: i64, v1: i32):
///          store v1, v0
///          return
///      }",
/// )?
/// .remove(0);
/// let object = wavelift::compile_module(&[func], &Target::parse("gfx803")?)?;
/// assert_eq!(&object[..4], b"\x7fELF");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compile_module(funcs: &[ir::Function], target: &Target) -> Result<Vec<u8>, CompileError> {
    compile_module_with(funcs, target, &[])
}

/// What a kernel argument is, for the metadata a loader reads (`.value_kind` of an AMDGPU
/// code object).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgKind {
    /// A value the kernel reads as it is (`by_value`).
    ByValue,
    /// The address of a buffer in global memory (`global_buffer`, address space `global`).
    GlobalBuffer,
}

/// [`compile_module`] with each kernel's argument kinds as the front end knows them:
/// `arg_kinds[i]`, when given, lists one [`ArgKind`] per parameter of `funcs[i]`. Where it
/// is not (or `arg_kinds` is shorter than `funcs`), they are inferred from the body: an
/// `i64` parameter from which the address of a `load` or `store` is computed (itself, or
/// sums with it) is a global buffer, the others are values (`docs/objects.md`).
///
/// ```
/// use wavelift::{ArgKind, Target};
///
/// let func = cranelift_reader::parse_functions(
///     "function %scale(i64, f32) system_v {
///      block0(v0: i64, v1: f32):
///          store v1, v0
///          return
///      }",
/// )?
/// .remove(0);
/// let kinds = [ArgKind::GlobalBuffer, ArgKind::ByValue];
/// let object = wavelift::compile_module_with(&[func], &Target::parse("gfx900")?, &[Some(&kinds)])?;
/// assert_eq!(&object[..4], b"\x7fELF");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compile_module_with(
    funcs: &[ir::Function],
    target: &Target,
    arg_kinds: &[Option<&[ArgKind]>],
) -> Result<Vec<u8>, CompileError> {
    let backend = isa::backend(target.arch);
    let functions = funcs
        .iter()
        .zip(compile_many(funcs, target))
        .enumerate()
        .map(|(i, (func, compiled))| {
            let name = func.name.to_string();
            let args = match arg_kinds.get(i).copied().flatten() {
                Some(kinds) if kinds.len() != func.signature.params.len() => {
                    return Err(CompileError::new(
                        func,
                        format!(
                            "{} argument kinds given for {} parameters",
                            kinds.len(),
                            func.signature.params.len()
                        ),
                    ));
                }
                Some(kinds) => kinds.to_vec(),
                None => analysis::kernel_args::infer(func),
            };
            Ok(isa::ObjectFunction {
                name: name.strip_prefix('%').unwrap_or(&name).to_string(),
                signature: func.signature.clone(),
                args,
                compiled: compiled?,
            })
        })
        .collect::<Result<Vec<_>, CompileError>>()?;
    backend.write_object(target, &functions)
}

/// Links `functions[entry]` with the functions it calls, directly or not, into one piece
/// of code (the entry at offset 0): what runs a function that calls others without a
/// code object (`docs/ir.md`, "Calls"). Each function is named by its symbol (its CLIF
/// name without `%`); its information then covers its callees' private memory and
/// registers (NV50: its callees' frames placed in `l[]` after its own). Code that calls
/// nothing comes back as it is. A missing callee, recursion, or functions of different
/// targets are an error naming the function.
pub fn link(
    functions: &[(&str, &CompiledCode)],
    entry: usize,
) -> Result<CompiledCode, CompileError> {
    let Some(&(name, code)) = functions.get(entry) else {
        return Err(CompileError::in_module(format!(
            "no function {entry} to link"
        )));
    };
    let error = |reason: String| CompileError {
        function: name.to_string(),
        inst: None,
        reason,
    };
    match &code.target_info {
        TargetInfo::Gcn(info) if info.calls.is_empty() && info.indirect_calls.is_empty() => {
            Ok(code.clone())
        }
        TargetInfo::Gcn(_) => isa::gcn::link::link(functions, entry).map_err(error),
        TargetInfo::Nv50(info) if info.calls.is_empty() => Ok(code.clone()),
        TargetInfo::Nv50(_) => isa::nv50::link::link(functions, entry).map_err(error),
    }
}

/// One disassembled instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisasmLine {
    /// Its byte offset in the code.
    pub offset: usize,
    /// Its encoding (4 or 8 bytes, 4 more for a literal constant).
    pub bytes: Vec<u8>,
    /// The instruction in the vendor assembler's syntax (LLVM's for GCN).
    pub text: String,
    /// The code offset a branch, call or reconvergence point of the instruction names.
    pub target: Option<usize>,
}

/// Disassembles code bytes for `target`. Undecodable bytes end the listing with a line
/// that says so.
pub fn disassemble(code: &[u8], target: &Target) -> Vec<DisasmLine> {
    isa::backend(target.arch).disassemble(code)
}

/// Disassembles compiled code for `target` as the kind of program it is (NV50 decodes a
/// vertex or fragment program's words as that program type: `docs/nv50.md`, "The program
/// types").
pub fn disassemble_compiled(code: &CompiledCode, target: &Target) -> Vec<DisasmLine> {
    isa::backend(target.arch).disassemble_compiled(code)
}

// The README's library example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
