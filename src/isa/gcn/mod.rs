//! The AMD GCN backend (gfx6–gfx9).

pub mod abi;
pub mod code_object;
pub mod copies;
pub(crate) mod cpus;
pub mod emit;
pub mod end_of_kernel;
pub mod expand_wave_copies;
pub mod fragment;
// The hazard rules and the MC layer (tables, encoder, decoder) serve the simulator's
// checker and decoder too: some of their interface only it and the tests use.
#[cfg_attr(not(feature = "test-support"), allow(dead_code))]
pub mod hazards;
pub mod insert_waitcnt;
pub mod inst;
pub mod lay_out_blocks;
pub mod link;
pub mod lower;
#[cfg_attr(not(feature = "test-support"), allow(dead_code, unused_imports))]
pub mod mc;
pub mod place_calls;
pub mod place_spills;
pub mod recolor;
pub mod regs;
pub mod relax_branches;
pub mod scalar_values;
pub mod sink_copied;
pub mod skip;
pub mod vertex;

use super::{Backend, ObjectFunction};
use crate::analysis::cfg::Cfg;
use crate::analysis::stack_addresses::StackAddresses;
use crate::intrinsics::Stage;
use crate::ir;
use crate::machinst::divergence::{LinearInst, Linearized, Masks, lower_linearized};
use crate::machinst::expand_atomics::Native;
use crate::machinst::lower::lower_function;
use crate::machinst::regalloc::{self, AllocError, Allocated, MemoryMoves, Moves};
use crate::machinst::{MachInst, Reg, TargetFacts, VCode};
use crate::{CompileError, CompiledCode, DisasmLine, FunctionKind, Target, TargetInfo};
use abi::Frame;
use inst::{Callee, Inst};
use mc::Gen;
use regs::{SGPR, VCC, VGPR, VGPR_LIMIT};
use relax_branches::RelaxError;

/// The GCN backend of one generation.
pub struct GcnBackend {
    /// The generation compiled for.
    pub generation: Gen,
}

impl Backend for GcnBackend {
    /// Every read-modify-write but `nand` and compare-and-swap on i32 and i64, in global
    /// and workgroup memory (`lower/atomics.rs`); the workgroup segment at LDS address 0.
    fn facts(&self) -> TargetFacts {
        TargetFacts {
            types: check_type,
            atomics: Native {
                rmw: |op, ty, _| op != ir::AtomicRmwOp::Nand && matches!(ty.bytes(), 4 | 8),
                cas: |ty, _| matches!(ty.bytes(), 4 | 8),
            },
            workgroup_base: Some(0),
            stages: &[Stage::Fragment, Stage::Vertex],
            indirect_calls: true,
        }
    }

    fn compile(&self, func: &ir::Function) -> Result<CompiledCode, CompileError> {
        compile(func, self.generation)
    }

    fn disassemble(&self, code: &[u8]) -> Vec<DisasmLine> {
        disassemble(code, self.generation)
    }

    fn write_object(
        &self,
        target: &Target,
        functions: &[ObjectFunction],
    ) -> Result<Vec<u8>, CompileError> {
        code_object::write(target, functions)
    }
}

/// The type gate of the GCN backend (`machinst::type_gate`): scalars of up to 64 bits.
/// A value lives in one 32-bit register per lane (i8, i16, f16 in its low bits, with the
/// upper bits unspecified) or an aligned pair (i64, f64). i128 passes too: Cranelift's
/// mid-end handles it, and it moves through memory in an aligned quad (`load`/`store` as
/// dwordx4); the lowering rejects every other operation on it.
pub fn check_type(ty: ir::Type) -> Result<(), String> {
    use ir::types::*;
    match ty {
        I8 | I16 | I32 | I64 | I128 | F16 | F32 | F64 => Ok(()),
        _ if ty.is_vector() || ty.is_dynamic_vector() => Err(format!(
            "vector type {ty} is not supported by the GCN backend (GCN code is scalar per lane)"
        )),
        _ => Err(format!(
            "type {ty} is not supported by the GCN backend (i8, i16, i32, i64, f16, f32 and \
             f64 are; i128 only in loads and stores)"
        )),
    }
}

/// What a GCN loader needs of compiled code beyond its bytes (the kernel descriptor's
/// register counts and enables), in [`CompiledCode::target_info`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcnInfo {
    /// Vector registers used (the highest used index plus one).
    pub vgprs: u32,
    /// Scalar registers used, VCC not included (the highest used index plus one).
    pub sgprs: u32,
    /// Whether the code writes VCC.
    pub uses_vcc: bool,
    /// Bytes of kernel arguments read from the kernarg segment (kernels only).
    pub kernarg_size: u32,
    /// Hardware-initialised registers the kernel needs (kernel descriptor enables).
    pub inputs: abi::KernelInputs,
    /// Bytes of workgroup memory (LDS) each work-group needs: the code object's
    /// `group_segment_fixed_size` (`docs/ir.md`, "Memory spaces").
    pub group_segment_size: u32,
    /// Bytes of private memory each work-item needs (stack slots, then VGPR spill slots):
    /// the code object's `private_segment_fixed_size`. A device function's caller passes
    /// a frame of this size (`abi`).
    pub private_segment_size: u32,
    /// Dwords of SGPRs spilled to memory (VGPR lanes; the metadata's `.sgpr_spill_count`).
    pub sgpr_spills: u32,
    /// Dwords of VGPRs spilled to scratch (the metadata's `.vgpr_spill_count`).
    pub vgpr_spills: u32,
    /// The calls in the code and the function addresses it takes, whose callees' offsets
    /// linking writes in ([`link`](crate::link)): [`compile_module`](crate::compile_module)
    /// links the functions of a module. Until then, `private_segment_size` and the register
    /// counts are the function's own, without its callees'.
    pub calls: Vec<link::CallSite>,
    /// Its calls through addresses (`call_indirect`): which functions each may call.
    pub indirect_calls: Vec<link::IndirectCall>,
}

/// Compiles a verified, optimised function for a GCN generation.
pub fn compile(func: &ir::Function, generation: Gen) -> Result<CompiledCode, CompileError> {
    let kind = FunctionKind::of(&func.signature).map_err(|e| CompileError::new(func, e))?;
    let stack = StackAddresses::find(func)
        .map_err(|(inst, reason)| CompileError::at_inst(func, inst, reason))?;
    let group_segment_size = group_segment_size(func, generation)?;
    // `machinst::prepare` checked the stage.
    let stage = crate::intrinsics::check_stage(func).ok().flatten();
    let frame_of = |scratch: bool| {
        let mut frame = match (kind, stage) {
            (FunctionKind::Kernel, Some(Stage::Fragment)) if scratch => {
                return Err(CompileError::new(
                    func,
                    "a fragment shader that spills VGPRs to memory is not supported yet",
                ));
            }
            (FunctionKind::Kernel, Some(Stage::Fragment)) if group_segment_size > 0 => {
                return Err(CompileError::new(
                    func,
                    "a fragment shader has no workgroup memory (its LDS holds the \
                     interpolation parameters)",
                ));
            }
            (FunctionKind::Kernel, Some(Stage::Fragment)) => {
                fragment::frame(func).map_err(|e| CompileError::new(func, e))?
            }
            (FunctionKind::Kernel, Some(Stage::Vertex)) if scratch => {
                return Err(CompileError::new(
                    func,
                    "a vertex shader that spills VGPRs to memory is not supported yet",
                ));
            }
            // The hardware VS stage gets no LDS allocation (`SPI_SHADER_PGM_RSRC2_VS` has
            // no LDS_SIZE).
            (FunctionKind::Kernel, Some(Stage::Vertex)) if group_segment_size > 0 => {
                return Err(CompileError::new(
                    func,
                    "a vertex shader has no workgroup memory (the hardware VS stage gets \
                     no LDS)",
                ));
            }
            (FunctionKind::Kernel, Some(Stage::Vertex)) => {
                vertex::frame(func).map_err(|e| CompileError::new(func, e))?
            }
            (FunctionKind::Kernel, _) => Frame::kernel(func, scratch),
            (FunctionKind::Device, _) => Frame::device(func, scratch),
        };
        frame.group_segment_size = group_segment_size;
        Ok(frame)
    };
    // Private memory: the scratch inputs are enabled for stack slots, or once VGPRs spill.
    // A function that calls passes its callees the scratch resource and a stack pointer.
    let mut frame = frame_of(
        (crate::isa::stack_frame(func).is_some() || crate::isa::calls_functions(func))
            && stage.is_none(),
    )?;
    if frame.stack_size > abi::MAX_PRIVATE_SEGMENT {
        return Err(CompileError::new(
            func,
            format!(
                "stack slots of {} bytes: a work-item has at most {} bytes of private memory",
                frame.stack_size,
                abi::MAX_PRIVATE_SEGMENT
            ),
        ));
    }
    let cfg = Cfg::new(func).map_err(|e| CompileError::new(func, e))?;
    super::barriers::check_barriers(func, &cfg, kind)?;
    let uniformity = scalar_values::analyze(func, &cfg, kind, &stack);
    // Lane masks take SGPR pairs before the allocator's registers, leaving it this many at
    // first; when it runs out, fewer masks get pairs (the others live in VGPR lanes).
    let mut mask_registers = lower::linear::mask_registers(&frame, generation, 16);
    // Kernel arguments loaded in fours or twos where they fit (`lower::kernarg_chunks`); a
    // quad or pair takes aligned SGPRs for as long as one of its arguments lives, so a
    // function that runs out of SGPRs tries again with narrower loads first. gfx6 never
    // loads quads (`GcnLower::kernarg_widest`).
    let mut kernarg_widest = if generation == Gen::Gfx6 { 2 } else { 4 };
    // Spills go to spare registers only until every other way has run out of registers;
    // then to memory (`place_spills`).
    let mut to_memory = false;
    loop {
        let backend = lower::GcnLower {
            generation,
            uniformity: &uniformity,
            kind,
            frame: &frame,
            buffer_rsrc: Default::default(),
            mask_registers,
            kernarg_widest,
            scalar_literals: Default::default(),
            base_resources: Default::default(),
            merges: lower::merge::Merges::find(func, &uniformity, &stack),
            stack: &stack,
        };
        // Divergent branches: the blocks run one after another under lane masks (see
        // `machinst::divergence::linearize`), whose registers come before the allocator's.
        let (mut vcode, masks, first_sgpr) = if uniformity.has_divergent_branches() {
            let Linearized { vcode, masks } = lower_linearized(func, &cfg, &backend)?;
            let first = lower::linear::first_free_sgpr(&frame, masks.registers);
            (vcode, Some(masks), first)
        } else {
            let vcode = lower_function(func, &cfg, &backend)?;
            (vcode, None, frame.reserved_sgprs)
        };
        sink_copied::run(&mut vcode);
        let mask_pairs = masks.map_or(0, |m| m.registers);
        let target = Finish {
            frame: &frame,
            kind,
            first_sgpr,
            generation,
            to_memory,
        };
        match compile_vcode(func, &vcode, masks, &target) {
            Err(Failure::Exhausted { .. }) if kernarg_widest > 1 => kernarg_widest /= 2,
            Err(Failure::Exhausted { .. }) if mask_pairs > 0 => mask_registers = mask_pairs / 2,
            Err(Failure::Exhausted { .. }) if !to_memory => to_memory = true,
            Err(Failure::NeedsScratch) if frame.scratch.is_none() => {
                frame = frame_of(true)?;
                mask_registers =
                    mask_registers.min(lower::linear::mask_registers(&frame, generation, 16));
            }
            result => return result.map_err(|e| e.into_compile_error(func)),
        }
    }
}

/// The bytes of LDS `func` needs, at most what a work-group may allocate on `generation`:
/// 64 KiB from gfx7 on, 32 KiB on gfx6 (SI ISA 9.1, "the LDS is 64 kB; a work-group can
/// allocate up to 32 kB").
fn group_segment_size(func: &ir::Function, generation: Gen) -> Result<u32, CompileError> {
    let size = crate::intrinsics::workgroup_segment_size(func)
        .map_err(|(inst, reason)| CompileError::at_inst(func, inst, reason))?;
    let limit = match generation {
        Gen::Gfx6 => 32 * 1024,
        _ => crate::intrinsics::MAX_WORKGROUP_SEGMENT,
    };
    if size > limit {
        return Err(CompileError::new(
            func,
            format!(
                "a workgroup segment of {size} bytes: a {generation:?} work-group has at most {limit}"
            ),
        ));
    }
    Ok(size)
}

/// Why lowered code did not compile: running out of registers stays a value, which the
/// retries in `compile` (fewer lane masks in SGPR pairs, spills to memory) and
/// `compile_vcode` (an SGPR pair kept for long jumps) match on, until `into_compile_error`
/// words it for the user; so does a spill that needs a private segment the frame lacks.
#[derive(Debug)]
enum Failure {
    /// The function needs more registers than the files have, with the allocator's SGPRs
    /// below `sgpr_limit` (two fewer than the hardware's when `long_jump_pair` kept a pair).
    Exhausted {
        sgpr_limit: u16,
        long_jump_pair: bool,
    },
    /// VGPRs spill to memory, and the frame has no private segment.
    NeedsScratch,
    Error(CompileError),
}

impl From<CompileError> for Failure {
    fn from(e: CompileError) -> Self {
        Failure::Error(e)
    }
}

impl Failure {
    fn into_compile_error(self, func: &ir::Function) -> CompileError {
        let (sgpr_limit, long_jump_pair) = match self {
            Failure::Exhausted {
                sgpr_limit,
                long_jump_pair,
            } => (sgpr_limit, long_jump_pair),
            Failure::NeedsScratch => {
                return CompileError::new(
                    func,
                    "internal error: spills to memory without a private segment",
                );
            }
            Failure::Error(e) => return e,
        };
        let mut reason = format!(
            "register exhaustion: the function needs more registers than the hardware has \
             ({VGPR_LIMIT} VGPRs, {sgpr_limit} SGPRs), and an operand of more than 32 VGPRs \
             of a device function's arguments or results cannot wait in memory"
        );
        if long_jump_pair {
            reason += "; two SGPRs are kept for the long jumps of branches over more than \
                       128 KiB of code";
        }
        CompileError::new(func, reason)
    }
}

/// What `finish` compiles lowered code for.
struct Finish<'a> {
    frame: &'a Frame,
    kind: FunctionKind,
    /// The allocator's first SGPR.
    first_sgpr: u16,
    generation: Gen,
    /// Whether the allocator may spill to memory.
    to_memory: bool,
}

/// Allocates, finishes and encodes lowered code (`masks`: linearized code and its lane
/// masks). A branch too far for its 16-bit offset jumps through an SGPR pair no
/// instruction uses (`relax_branches`). In the rare function that needs one and leaves no
/// pair free, allocation runs again with a pair kept out of the allocator's reach.
fn compile_vcode(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    masks: Option<Masks>,
    target: &Finish,
) -> Result<CompiledCode, Failure> {
    let limit = regs::sgpr_limit(target.generation);
    let compile = |l| finish(func, vcode, masks, target, l);
    if let Some(compiled) = compile(limit)? {
        return Ok(compiled);
    }
    match compile(limit - 2) {
        Ok(Some(compiled)) => Ok(compiled),
        Ok(None) => Err(CompileError::new(
            func,
            "internal error: no SGPR pair free for a long branch",
        )
        .into()),
        Err(Failure::Exhausted { sgpr_limit, .. }) => Err(Failure::Exhausted {
            sgpr_limit,
            long_jump_pair: true,
        }),
        Err(e) => Err(e),
    }
}

/// Allocates registers (SGPRs below `sgpr_limit`, VGPRs below those holding lane masks),
/// places the spills, runs the post-allocation passes and encodes. `None`: a branch needs a
/// long jump and no SGPR pair is free for it.
fn finish(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    masks: Option<Masks>,
    target: &Finish,
    sgpr_limit: u16,
) -> Result<Option<CompiledCode>, Failure> {
    let &Finish {
        frame,
        kind,
        first_sgpr,
        generation,
        to_memory,
    } = target;
    let linearized = masks.is_some();
    let slot_vgprs = lower::linear::mask_slot_vgprs(masks.map_or(0, |m| m.slots));
    // Linearized code: the allocator's moves copy whole waves.
    let between: fn(Reg, Reg) -> Inst = if linearized {
        Inst::gen_wave_move
    } else {
        Inst::gen_move
    };
    let moves = Moves {
        between,
        memory: Some(MemoryMoves {
            spill: |slot, src| Inst::Spill { slot, src },
            reload: |dst, slot| Inst::Reload { dst, slot },
        }),
    };
    // VGPRs for the lanes of SGPR spill slots come off the allocator's when the ones above
    // its registers are too few (`place_spills`).
    let mut vgpr_limit = VGPR_LIMIT - slot_vgprs;
    let (mut blocks, area) = loop {
        let files = regs::files(first_sgpr, sgpr_limit, vgpr_limit, to_memory, frame.calls);
        let allocated = allocate(func, vcode, &files, moves, sgpr_limit)?;
        let mut blocks = split_blocks(&allocated);
        let succs: Vec<Vec<usize>> = vcode.blocks.iter().map(|b| b.succs.clone()).collect();
        copies::run(&mut blocks, &succs, first_sgpr);
        // Values of every width placed again in shared registers; copies that now copy a
        // register to itself go (running all of `copies` again finds next to nothing more:
        // 84 bytes over the 1,302 functions of the filetests, for an eighth more compile
        // time).
        if recolor::run(&mut blocks, &succs, first_sgpr, sgpr_limit, vgpr_limit) {
            for block in &mut blocks {
                block.retain(|inst| !copies::is_self_copy(inst));
            }
        }
        match place_spills::run(&mut blocks, frame, linearized, vgpr_limit) {
            Ok(area) => break (blocks, area),
            Err(place_spills::Unplaced::NeedsScratch) => return Err(Failure::NeedsScratch),
            Err(place_spills::Unplaced::NeedsLaneVgprs(k)) if vgpr_limit > k => vgpr_limit -= k,
            Err(place_spills::Unplaced::NeedsLaneVgprs(_)) => {
                return Err(Failure::Exhausted {
                    sgpr_limit,
                    long_jump_pair: false,
                });
            }
            Err(place_spills::Unplaced::TooFar(end)) => {
                return Err(CompileError::new(
                    func,
                    format!(
                        "the private frame of stack slots and VGPR spill slots ends at byte \
                         {end}: spill slots must lie within the first 4096 bytes, which a \
                         MUBUF instruction offset reaches"
                    ),
                )
                .into());
            }
        }
    };
    lower::linear::place_mask_slots(&mut blocks, slot_vgprs);
    if linearized {
        for block in &mut blocks {
            *block = expand_wave_copies::run(std::mem::take(block), frame);
        }
    }
    let abi_vgprs = match kind {
        FunctionKind::Kernel => 0,
        FunctionKind::Device => abi::device_abi_vgprs(&func.signature),
    };
    let placed = place_calls::run(
        &mut blocks,
        frame,
        kind,
        &area,
        first_sgpr,
        abi_vgprs,
        vgpr_limit,
    )
    .map_err(|unplaced| match unplaced {
        place_calls::Unplaced::NeedsScratch => Failure::NeedsScratch,
        place_calls::Unplaced::NoLaneVgpr => Failure::Exhausted {
            sgpr_limit,
            long_jump_pair: false,
        },
        place_calls::Unplaced::TooFar(end) => CompileError::new(
            func,
            format!(
                "the private frame of stack slots, VGPR spill slots and saved VGPRs ends at \
                 byte {end}: they must lie within the first 4096 bytes, which a MUBUF \
                 instruction offset reaches"
            ),
        )
        .into(),
    })?;
    // Each block separately: nothing is in flight at a block boundary, except where the
    // code ends (`s_endpgm`), which no access needs to have finished for.
    let ends = end_of_kernel::ending_blocks(&blocks);
    end_of_kernel::remove_overwritten_exec_writes(&mut blocks);
    if kind == FunctionKind::Kernel {
        end_of_kernel::remove_unread_scalar_writes(&mut blocks);
    }
    end_of_kernel::remove_dead_scalar_writes(&mut blocks, &ends);
    for block in &mut blocks {
        *block = insert_waitcnt::run(std::mem::take(block), generation, &ends);
    }
    if linearized {
        let cost = |run: &[Inst]| emit::lower_to_mc(run, generation).map_or(0, |mc| mc.len());
        blocks = skip::run(blocks, lower::linear::entry_lanes(frame), cost);
    }
    let insts: Vec<Inst> = blocks.iter().flatten().cloned().collect();
    let (mc, starts) = lay_out_blocks::run(&blocks, generation)
        .map_err(|e| CompileError::new(func, format!("internal error in emission: {e}")))?;
    let (mc, starts) = hazards::run_blocks(mc, &starts, generation);
    let scratch =
        relax_branches::free_pair(&mc, frame.reserved_sgprs, regs::sgpr_limit(generation));
    let (code, uses_scratch) = match emit::assemble(&mc, &starts, generation, scratch) {
        Ok(assembled) => assembled,
        Err(RelaxError::NoScratchPair) => return Ok(None),
        Err(RelaxError::Internal(e)) => {
            return Err(CompileError::new(func, format!("internal error in encoding: {e}")).into());
        }
    };

    // The special SGPRs (VCC, EXEC) are above the counted ones; the kernel descriptor says
    // whether VCC is used.
    let vgprs = regalloc::registers_used(&insts, VGPR, VGPR_LIMIT);
    let mut sgprs = regalloc::registers_used(&insts, SGPR, regs::sgpr_limit(generation))
        .max(frame.reserved_sgprs as u32);
    let calls = call_sites(&code, &insts, generation);
    let indirect_calls = insts
        .iter()
        .filter_map(|inst| match inst {
            Inst::Swappc {
                callee: Callee::Address(_, callees),
                ..
            } => Some(callees.clone()),
            _ => None,
        })
        .collect();
    let uses_vcc = insts.into_iter().any(|mut inst| {
        let mut uses = !inst.clobbers().is_empty();
        inst.visit_operands(&mut |r, _| {
            uses |= matches!(*r, Reg::Real { file: SGPR, hw, .. }
                if (VCC.hw()..VCC.hw() + 2).contains(&hw));
        });
        uses
    });
    if let (true, Some(pair)) = (uses_scratch, scratch) {
        sgprs = sgprs.max(pair as u32 + 2);
    }
    let private_segment_size = match frame.scratch {
        Some(_) => placed.frame_size,
        None => 0,
    };
    let info = GcnInfo {
        vgprs: vgprs.max(1),
        sgprs,
        uses_vcc,
        kernarg_size: frame.kernarg_size,
        inputs: frame.inputs,
        group_segment_size: frame.group_segment_size,
        private_segment_size,
        sgpr_spills: area.sgpr_slots,
        vgpr_spills: area.vgpr_slots,
        calls,
        indirect_calls,
    };
    Ok(Some(CompiledCode::new(code, kind, TargetInfo::Gcn(info))))
}

/// Where the calls of symbols and the function addresses (`Inst::Swappc`,
/// `Inst::FuncAddr`, in `insts` in layout order) are in `code`: each is an `s_getpc_b64`
/// whose two literals are still 0 (a long jump's never are: its target is not the
/// instruction after its `s_getpc_b64`).
fn call_sites(code: &[u8], insts: &[Inst], generation: Gen) -> Vec<link::CallSite> {
    let sites = insts.iter().filter_map(|inst| match inst {
        Inst::Swappc {
            callee: Callee::Symbol(callee),
            ..
        } => Some((callee.clone(), link::SiteKind::Call)),
        Inst::FuncAddr {
            callee, signature, ..
        } => Some((
            callee.clone(),
            link::SiteKind::Address {
                signature: signature.clone(),
            },
        )),
        _ => None,
    });
    let word = |at: usize| code.get(at..at + 4).map(|w| w != [0; 4]);
    let offsets = disassemble(code, generation)
        .into_iter()
        .filter(|line| {
            let at = line.offset;
            line.text.starts_with("s_getpc_b64 ")
                && word(at + link::LITERAL_LO) == Some(false)
                && word(at + link::LITERAL_HI) == Some(false)
        })
        .map(|line| line.offset as u32);
    offsets
        .zip(sites)
        .map(|(offset, (callee, kind))| link::CallSite {
            offset,
            callee,
            kind,
        })
        .collect()
}

/// The allocated instructions, block by block.
fn split_blocks(allocated: &Allocated<Inst>) -> Vec<Vec<Inst>> {
    (0..allocated.block_starts.len())
        .map(|b| {
            let start = allocated.block_starts[b];
            let end = allocated
                .block_starts
                .get(b + 1)
                .copied()
                .unwrap_or(allocated.insts.len());
            allocated.insts[start..end].to_vec()
        })
        .collect()
}

/// Allocates the registers of `files` (`regs::files`), the allocator's moves made by
/// `moves`.
fn allocate(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    files: &[regalloc::RegisterFile],
    moves: Moves<Inst>,
    sgpr_limit: u16,
) -> Result<Allocated<Inst>, Failure> {
    regalloc::run(vcode, files, moves).map_err(|e| match e {
        AllocError::Exhausted { .. } => Failure::Exhausted {
            sgpr_limit,
            long_jump_pair: false,
        },
        other => CompileError::new(func, other.to_string()).into(),
    })
}

/// Disassembles GCN code; a word the decoder does not know is one `<undecodable: …>` line.
pub fn disassemble(code: &[u8], generation: Gen) -> Vec<DisasmLine> {
    let mut lines = Vec::new();
    let mut offset = 0;
    while offset < code.len() {
        match mc::decode(&code[offset..], generation) {
            Ok((inst, len)) => {
                // SOPP branches count dwords from the next instruction.
                let target = (inst.op.info().form == mc::Form::SoppBranch)
                    .then(|| (offset as i64 + 4 + 4 * inst.imm as i16 as i64) as usize);
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..offset + len].to_vec(),
                    text: mc::print(&inst, generation),
                    target,
                });
                offset += len;
            }
            // A word the decoder does not know (another compiler's code): listed with its
            // bytes, and decoding goes on with the next word.
            Err(e) => {
                let len = (code.len() - offset).min(4);
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..offset + len].to_vec(),
                    text: format!("<undecodable: {e}>"),
                    target: None,
                });
                offset += len;
            }
        }
    }
    lines
}
