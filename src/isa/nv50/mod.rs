//! The NVIDIA Tesla (NV50: G80, G84–G98, GT200) backend.

pub mod abi;
pub mod container;
pub mod copies;
pub mod cpus;
pub mod emit;
pub mod exit_blocks;
pub mod fold_shared;
pub mod fragment;
pub mod inst;
pub mod link;
pub mod low_words;
pub mod lower;
pub mod place_spills;
// The MC layer (tables, encoder, decoder) serves the simulator's decoder and the tests too:
// some of its interface only they use.
#[cfg_attr(not(feature = "test-support"), allow(dead_code, unused_imports))]
pub mod mc;
pub mod propagate_copies;
pub mod recolor;
pub mod reconverge;
pub mod regs;
pub mod save_registers;
pub mod uniform_values;
pub mod vertex;

use super::{Backend, ObjectFunction};
use crate::analysis::cfg::Cfg;
use crate::analysis::stack_addresses::StackAddresses;
use crate::intrinsics::Stage;
use crate::ir;
use crate::machinst::expand_atomics::Native;
use crate::machinst::lower::lower_function;
use crate::machinst::regalloc::{self, AllocError, Allocated, MemoryMoves};
use crate::machinst::{MachInst, TargetFacts, dce};
use crate::{CompileError, CompiledCode, DisasmLine, FunctionKind, Target, TargetInfo};
use abi::{Frame, PARAM_LIMIT, WORKGROUP_BASE};
use fragment::FragmentInfo;
use inst::Inst;
use lower::{LOCAL_LIMIT, SHARED_LIMIT};
use mc::Variant;
use regs::{FLAG, GPR, GPR_LIMIT};
use vertex::VertexInfo;

/// The NV50 backend of one encoding variant.
pub struct Nv50Backend {
    /// What the chip executes (G80; G84–G98; GT200).
    pub variant: Variant,
}

/// G84–G98's global atomics: every 32-bit operation but `nand`, compare-and-swap of 32
/// bits (`nand` and i8/i16 become loops on it; i64 stays refused).
const G84_ATOMICS: Native = Native {
    rmw: |op, ty, space| space == ir::types::I32 || ty.bytes() == 4 && op != ir::AtomicRmwOp::Nand,
    cas: |ty, space| space == ir::types::I32 || ty.bytes() == 4,
};

/// GT200's: G84's, and of 64 bits add, exchange and compare-and-swap (the other i64
/// operations become loops on the latter); on workgroup memory every 32-bit operation, the
/// lock loop (i8 and i16 become loops on its compare-and-swap; i64 stays refused).
const GT200_ATOMICS: Native = Native {
    rmw: |op, ty, space| match ty.bytes() {
        4 => space == ir::types::I32 || op != ir::AtomicRmwOp::Nand,
        8 => space == ir::types::I32 || matches!(op, ir::AtomicRmwOp::Add | ir::AtomicRmwOp::Xchg),
        _ => false,
    },
    cas: |ty, space| match ty.bytes() {
        4 => true,
        8 => space == ir::types::I64,
        _ => false,
    },
};

impl Backend for Nv50Backend {
    /// Global atomics from G84 (32-bit; GT200 adds 64-bit add, exchange and
    /// compare-and-swap, and workgroup-memory atomics: `docs/nv50.md`, "Atomics"); G80's
    /// and G84–G98's workgroup-memory atomics are refused by the backend, so they are
    /// "native" here and never expanded.
    fn facts(&self) -> TargetFacts {
        TargetFacts {
            types: if self.variant.has_f64() {
                check_type_f64
            } else {
                check_type
            },
            atomics: match self.variant {
                _ if self.variant.has_f64() => GT200_ATOMICS,
                _ if self.variant.has_global_atomics() => G84_ATOMICS,
                _ => Native::ALL,
            },
            workgroup_base: Some(WORKGROUP_BASE as i64),
            stages: &[Stage::Fragment, Stage::Vertex],
            indirect_calls: false,
        }
    }

    fn compile(&self, func: &ir::Function) -> Result<CompiledCode, CompileError> {
        compile(func, self.variant)
    }

    fn disassemble(&self, code: &[u8]) -> Vec<DisasmLine> {
        disassemble(code, self.variant, mc::Program::Compute)
    }

    fn disassemble_compiled(&self, code: &CompiledCode) -> Vec<DisasmLine> {
        let program = match code.nv50() {
            Some(info) if info.fragment.is_some() => mc::Program::Fragment,
            Some(info) if info.vertex.is_some() => mc::Program::Vertex,
            _ => mc::Program::Compute,
        };
        disassemble(&code.code, self.variant, program)
    }

    fn write_object(
        &self,
        target: &Target,
        functions: &[ObjectFunction],
    ) -> Result<Vec<u8>, CompileError> {
        let crate::Arch::Nv50(chip) = target.arch else {
            return Err(CompileError::in_module("not an NV50 target"));
        };
        container::write(chip, functions)
    }
}

/// The type gate of G80–G98: scalars of up to 64 bits but f64 (the f64 unit is GT200's:
/// `docs/targets.md`). i8 and i16 live in the low bits of a `$r` with the upper bits
/// unspecified, i64 in an even pair, i128 (loads and stores only) in a quad.
pub fn check_type(ty: ir::Type) -> Result<(), String> {
    if ty == ir::types::F64 {
        return Err("f64 needs GT200 (`gt200`): G80–G98 have no double-precision unit".to_string());
    }
    check_type_f64(ty)
}

/// The type gate of GT200: as [`check_type`], with f64.
pub fn check_type_f64(ty: ir::Type) -> Result<(), String> {
    use ir::types::*;
    match ty {
        I8 | I16 | I32 | I64 | I128 | F32 | F64 => Ok(()),
        _ if ty.is_vector() || ty.is_dynamic_vector() => Err(format!(
            "vector type {ty} is not supported by the NV50 backend (NV50 code is scalar per \
             thread)"
        )),
        _ => Err(format!(
            "type {ty} is not supported by the NV50 backend (i8, i16, i32, i64, f32 and, on \
             GT200, f64 are; i128 only in loads and stores)"
        )),
    }
}

/// What an NV50 loader needs of compiled code beyond its bytes, in
/// [`CompiledCode::target_info`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nv50Info {
    /// `$r` per thread: the highest used plus one, at least 4 (nouveau's `max_gpr`, what
    /// `CP_REG_ALLOC_TEMP` takes: `docs/nv50.md`).
    pub gprs: u32,
    /// The byte offsets of the instructions (`bra`, `joinat`, …) whose absolute targets a
    /// loader adds the code's address to; the code is emitted for address 0.
    pub relocations: Vec<u32>,
    /// Kernels: bytes of arguments at `s[0x14]` (at most 252).
    pub param_size: u32,
    /// Bytes of `s[]` the code uses: a kernel's system area and arguments, then, when the
    /// function uses workgroup memory, up to the end of its segment (`SHARED_SIZE` covers
    /// at least this).
    pub shared_size: u32,
    /// Bytes of the workgroup segment (the largest `size` of its `wavelift_workgroup_base`
    /// calls), at `s[0x110]` (`docs/nv50.md`, "Shared memory").
    pub workgroup_size: u32,
    /// Bytes of the cross-lane intrinsics' scratch areas after the segment (0 without
    /// them; `docs/nv50.md`, "Cross-lane intrinsics").
    pub scratch_size: u32,
    /// Bytes of `l[]` per thread: the stack slots, then the spill slots, rounded up to 16
    /// (nouveau's `tls_space`; 0 when the function uses none: `docs/nv50.md`, "Local
    /// memory"). A launch must give every thread at least this.
    pub local_size: u32,
    /// Words of `$r` spilled to `l[]` per thread.
    pub spills: u32,
    /// The calls of device functions, whose targets a linker writes (`link.rs`, for
    /// `compile_module` and `wavelift::link`; `docs/ir.md`, "Calls"). A function compiled
    /// alone reports its own frame, registers and stack; linked, its callees' are included.
    pub calls: Vec<link::CallSite>,
    /// The byte offsets of the instructions that access `l[]`: a linker places the
    /// function's frame by adding its offset to theirs.
    pub frame_accesses: Vec<u32>,
    /// The most entries of the warp's reconvergence stack the function pushes (calls'
    /// included).
    pub stack_depth: u32,
    /// A fragment program's inputs and results, for the driver (`None`: a kernel or
    /// device function).
    pub fragment: Option<FragmentInfo>,
    /// A vertex program's inputs and outputs, for the driver (`None`: not one).
    pub vertex: Option<VertexInfo>,
}

/// Compiles a verified, optimised function for an NV50 variant.
pub fn compile(func: &ir::Function, variant: Variant) -> Result<CompiledCode, CompileError> {
    let kind = FunctionKind::of(&func.signature).map_err(|e| CompileError::new(func, e))?;
    // `machinst::prepare` checked the stage.
    let stage = crate::intrinsics::check_stage(func).ok().flatten();
    let fragment = match stage {
        Some(Stage::Fragment) => {
            Some(FragmentInfo::of(func).map_err(|e| CompileError::new(func, e))?)
        }
        _ => None,
    };
    let vertex = match stage {
        Some(Stage::Vertex) => Some(VertexInfo::of(func).map_err(|e| CompileError::new(func, e))?),
        _ => None,
    };
    let user_data = fragment
        .as_ref()
        .map(|f| f.user_data)
        .or(vertex.as_ref().map(|v| v.user_data));
    if let Some(stage) = stage
        && crate::isa::calls_functions(func)
    {
        // A graphics program runs alone: nothing links it with the functions it calls.
        return Err(CompileError::new(
            func,
            format!("calls from {} programs are not supported yet", stage.name()),
        ));
    }
    let mut frame = match kind {
        FunctionKind::Kernel if stage.is_some() => Frame::device(),
        FunctionKind::Kernel => Frame::kernel(&func.signature),
        FunctionKind::Device => Frame::device(),
    };
    if let Some(words) = user_data
        && words > USER_DATA_LIMIT
    {
        return Err(CompileError::new(
            func,
            format!(
                "the shader's user data takes {words} words; wavelift places at most \
                 {USER_DATA_LIMIT} in `c0[]`"
            ),
        ));
    }
    if frame.param_size > PARAM_LIMIT {
        return Err(CompileError::new(
            func,
            format!(
                "the kernel's arguments take {} bytes; NV50 kernels take at most {PARAM_LIMIT} \
                 (63 words of `s[]` after the system area)",
                frame.param_size
            ),
        ));
    }
    StackAddresses::find(func)
        .map_err(|(inst, reason)| CompileError::at_inst(func, inst, reason))?;
    if let Some((slots, size)) = crate::isa::stack_frame(func) {
        if size > LOCAL_LIMIT {
            return Err(CompileError::new(
                func,
                format!(
                    "stack slots of {size} bytes: a thread addresses at most {LOCAL_LIMIT:#x} \
                     bytes of `l[]`"
                ),
            ));
        }
        frame.stack_slots = slots;
        frame.stack_size = size;
    }
    let workgroup_size = crate::intrinsics::workgroup_segment_size(func)
        .map_err(|(inst, reason)| CompileError::at_inst(func, inst, reason))?;
    if workgroup_size > SHARED_LIMIT - WORKGROUP_BASE {
        return Err(CompileError::new(
            func,
            format!(
                "a workgroup segment of {workgroup_size} bytes: NV50 has {SHARED_LIMIT} bytes \
                 of `s[]` per block, of which the segment may take those after {WORKGROUP_BASE:#x}"
            ),
        ));
    }
    // The cross-lane scratch areas follow the workgroup segment (`lower/cross_lane.rs`).
    let scratch_base = WORKGROUP_BASE + workgroup_size.next_multiple_of(4);
    let scratch_size = if lower::uses_scratch(func) {
        lower::scratch_size(variant)
    } else {
        0
    };
    if scratch_base + scratch_size > SHARED_LIMIT {
        return Err(CompileError::new(
            func,
            format!(
                "a workgroup segment of {workgroup_size} bytes leaves too little of the \
                 {SHARED_LIMIT} bytes of `s[]` for the {scratch_size} bytes of the cross-lane \
                 intrinsics' scratch areas"
            ),
        ));
    }
    // Divergent loops whose exits lead to several blocks get an exit block first.
    let mut with_exits = func.clone();
    exit_blocks::run(&mut with_exits, kind).map_err(|e| CompileError::new(func, e))?;
    let func = &with_exits;
    // Checked on the function as written (the errors name its instructions); the exit
    // blocks' parameters may carry stack addresses too.
    let stack = StackAddresses::collect(func);
    let cfg = Cfg::new(func).map_err(|e| CompileError::new(func, e))?;
    super::barriers::check_barriers(func, &cfg, kind)?;
    let uniformity = uniform_values::analyze(func, &cfg, kind, &stack);
    let collective = reconverge::collective_blocks(func, &cfg);
    let locks = reconverge::lock_blocks(func, &cfg);
    let plan = reconverge::plan(&cfg, &uniformity, &collective, &locks)
        .map_err(|e| CompileError::new(func, e))?;
    let low_words = low_words::LowWords::analyze(func);
    let backend = lower::Nv50Lower {
        variant,
        kind,
        frame: &frame,
        cfg: &cfg,
        plan: &plan,
        in_flags: &lower::compares_in_flags(func),
        low_words: &low_words,
        scratch_base,
        stack: &stack,
        fragment: fragment.as_ref(),
        vertex: vertex.as_ref(),
    };
    let mut vcode = lower_function(func, &cfg, &backend)?;
    propagate_copies::run(&mut vcode);
    fold_shared::run(&mut vcode, variant);
    dce::run(&mut vcode);
    let calls = vcode.insts.iter().any(|i| matches!(i, Inst::Call { .. }));
    let allocated = allocate(&vcode, calls).map_err(|e| CompileError::new(func, e))?;
    let mut blocks: Vec<Vec<Inst>> = (0..allocated.block_starts.len())
        .map(|b| {
            let start = allocated.block_starts[b];
            let end = allocated
                .block_starts
                .get(b + 1)
                .copied()
                .unwrap_or(allocated.insts.len());
            allocated.insts[start..end].to_vec()
        })
        .collect();
    let succs: Vec<Vec<usize>> = vcode.blocks.iter().map(|b| b.succs.clone()).collect();
    copies::run(&mut blocks, &succs, variant);
    // Values of every width placed again in shared registers; copies that now copy a
    // register to itself go.
    if recolor::run(&mut blocks, &succs) {
        for block in &mut blocks {
            block.retain(|inst| !copies::is_self_copy(inst));
        }
    }
    let spills =
        place_spills::run(&mut blocks, frame.stack_size).map_err(|e| CompileError::new(func, e))?;
    let frame_end = match kind {
        FunctionKind::Device => save_registers::run(&mut blocks, spills.end())
            .map_err(|e| CompileError::new(func, e))?,
        FunctionKind::Kernel => spills.end(),
    };
    // A block after the function's own (an edge block, a `br_table` compare block) belongs
    // to the function block it was made for: its first predecessor's.
    let origin: Vec<usize> = (0..vcode.blocks.len())
        .map(|mut b| {
            while b >= cfg.len() {
                b = vcode.blocks[b].preds.first().copied().unwrap_or(0);
            }
            b
        })
        .collect();
    let assembled = emit::assemble(&blocks, &origin, cfg.len(), &plan, variant)
        .map_err(|e| CompileError::new(func, format!("internal error in emission: {e}")))?;
    if let Some(program) = program_of(stage) {
        check_program_type(&assembled.code, variant, program)
            .map_err(|e| CompileError::new(func, e))?;
    }
    let insts: Vec<Inst> = blocks.concat();
    let gprs = regalloc::registers_used(&insts, GPR, GPR_LIMIT).max(4);
    let info = Nv50Info {
        gprs,
        relocations: assembled.relocations,
        param_size: frame.param_size,
        shared_size: match (workgroup_size + scratch_size, kind) {
            (1.., _) => scratch_base + scratch_size,
            (0, FunctionKind::Kernel) => abi::PARAM_BASE + frame.param_size,
            (0, FunctionKind::Device) => 0,
        },
        workgroup_size,
        scratch_size,
        local_size: frame_end.next_multiple_of(16),
        spills: spills.words,
        calls: assembled.calls,
        frame_accesses: assembled.frame_accesses,
        stack_depth: plan.depth.iter().copied().max().unwrap_or(0) as u32,
        fragment,
        vertex,
    };
    Ok(CompiledCode::new(
        assembled.code,
        kind,
        TargetInfo::Nv50(info),
    ))
}

/// The most words of user data a graphics program takes from `c0[]`: those an `ld`'s
/// offset field reaches without `$a`.
const USER_DATA_LIMIT: u32 = 64;

/// The words of `c0[]` a graphics program's user data (its parameters) take: each
/// parameter in whole words, in order.
fn user_data_words(signature: &ir::Signature) -> u32 {
    signature
        .params
        .iter()
        .map(|p| p.value_type.bytes().div_ceil(4))
        .sum()
}

/// The program type a shader of `stage` runs as (`None`: a kernel or device function).
fn program_of(stage: Option<Stage>) -> Option<mc::Program> {
    match stage? {
        Stage::Fragment => Some(mc::Program::Fragment),
        Stage::Vertex => Some(mc::Program::Vertex),
    }
}

/// Checks that every instruction of `code` exists in `program`: a graphics program has no
/// `s[]` or `g[]` (`docs/nv50.md`, "The program types"), which workgroup memory, global
/// memory and the cross-lane intrinsics' scratch area need.
fn check_program_type(code: &[u8], variant: Variant, program: mc::Program) -> Result<(), String> {
    let words: Vec<u32> = code
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("whole words")))
        .collect();
    let mut at = 0;
    while at < words.len() {
        match mc::decode_one(&words[at..], variant, program) {
            Ok((_, n)) => at += n,
            Err(_) => {
                let inst = mc::decode_one(&words[at..], variant, mc::Program::Compute)
                    .map(|(inst, _)| mc::print(&inst))
                    .unwrap_or_default();
                return Err(format!(
                    "`{inst}`: NV50 {} programs have no `s[]` or `g[]` (global and workgroup \
                     memory, the cross-lane intrinsics' scratch area)",
                    match program {
                        mc::Program::Vertex => "vertex",
                        _ => "fragment",
                    }
                ));
            }
        }
    }
    Ok(())
}

/// Allocates `$r` and `$c`: first in registers alone (spare `$r` above the partition
/// included), then, when `$r` runs out, with `$r` spilling into `l[]` as well, so that
/// every function that compiled without memory keeps its code. `$c` spills into the `$r`
/// above all the function's own; when `$r` has none left (its values took every register,
/// spill slots included), `$r` is allocated again below a lower limit, leaving the
/// registers above it to the flags. A function that `calls` may spill from the start, into
/// the registers calls keep or `l[]` (`regs::files`).
fn allocate(vcode: &crate::machinst::VCode<Inst>, calls: bool) -> Result<Allocated<Inst>, String> {
    let moves = regalloc::Moves {
        between: Inst::gen_move,
        memory: Some(MemoryMoves {
            spill: |slot, src| Inst::Spill { slot, src },
            reload: |dst, slot| Inst::Reload { dst, slot },
        }),
    };
    let mut gpr_limit = GPR_LIMIT;
    let mut to_memory = false;
    loop {
        match regalloc::run(vcode, &regs::files(gpr_limit, to_memory, calls), moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { file: GPR }) if !to_memory => to_memory = true,
            Err(AllocError::Exhausted { file: FLAG }) if gpr_limit > GPR_LIMIT / 2 => {
                to_memory = true;
                gpr_limit -= 4;
            }
            Err(AllocError::Exhausted { .. }) => {
                return Err(format!(
                    "register exhaustion: an instruction needs more of its operands in `$r` at \
                     once than the {GPR_LIMIT} `$r` the hardware has, `$c` flags that spill \
                     into `$r` included"
                ));
            }
            Err(other) => return Err(other.to_string()),
        }
    }
}

/// Disassembles NV50 code of a program type in envydis's syntax.
pub fn disassemble(code: &[u8], variant: Variant, program: mc::Program) -> Vec<DisasmLine> {
    let mut lines = Vec::new();
    let words: Vec<u32> = code
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    let mut offset = 0;
    while offset < code.len() {
        match mc::decode_one(&words[offset / 4..], variant, program) {
            Ok((inst, n)) => {
                let len = 4 * n;
                let target = inst.src.iter().find_map(|s| match s {
                    Some(mc::Operand::Target(address)) => Some(*address as usize),
                    _ => None,
                });
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..(offset + len).min(code.len())].to_vec(),
                    text: mc::print(&inst),
                    target,
                });
                offset += len;
            }
            Err(e) => {
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..].to_vec(),
                    text: format!("<undecodable: {e}>"),
                    target: None,
                });
                break;
            }
        }
    }
    lines
}
