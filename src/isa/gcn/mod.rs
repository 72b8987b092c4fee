//! The AMD GCN backend (gfx6–gfx9).

pub mod abi;
pub mod copies;
pub mod emit;
pub mod expand_wave_copies;
// The hazard rules and the MC layer (tables, encoder, decoder) serve the simulator's
// checker and decoder too: some of their interface only it and the tests use.
#[cfg_attr(not(feature = "test-support"), allow(dead_code))]
pub mod hazards;
pub mod insert_waitcnt;
pub mod inst;
pub mod lay_out_blocks;
pub mod lower;
#[cfg_attr(not(feature = "test-support"), allow(dead_code, unused_imports))]
pub mod mc;
pub mod regs;
pub mod relax_branches;
pub mod scalar_values;
pub mod skip;

use crate::analysis::cfg::Cfg;
use crate::ir;
use crate::machinst::divergence::{LinearInst, Linearized, Masks, lower_linearized};
use crate::machinst::lower::lower_function;
use crate::machinst::regalloc::{self, AllocError, Allocated};
use crate::machinst::{MachInst, Reg, VCode};
use crate::{CompileError, CompiledCode, DisasmLine, FunctionKind};
use abi::Frame;
use cranelift_codegen::isa::CallConv;
use inst::Inst;
use mc::Gen;
use regs::{SGPR, VCC, VGPR, VGPR_LIMIT};
use relax_branches::RelaxError;

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

/// Compiles a verified, optimised function for a GCN generation.
pub fn compile(func: &ir::Function, generation: Gen) -> Result<CompiledCode, CompileError> {
    let kind = match func.signature.call_conv {
        CallConv::SystemV => FunctionKind::Kernel,
        CallConv::Fast | CallConv::Tail => FunctionKind::Device,
        other => {
            return Err(CompileError::new(
                func,
                format!(
                    "calling convention `{other}` is not supported: use `system_v` for kernels \
                     and `fast` or `tail` for device functions"
                ),
            ));
        }
    };
    let frame = match kind {
        FunctionKind::Kernel => Frame::kernel(func),
        FunctionKind::Device => Frame::device(),
    };
    let cfg = Cfg::new(func).map_err(|e| CompileError::new(func, e))?;
    let uniformity = scalar_values::analyze(func, &cfg, kind);
    // Lane masks take SGPR pairs before the allocator's registers, leaving it this many at
    // first; when it runs out, fewer masks get pairs (the others live in VGPR lanes).
    let mut mask_registers = lower::linear::mask_registers(&frame, generation, 16);
    loop {
        let backend = lower::GcnLower {
            generation,
            uniformity: &uniformity,
            kind,
            frame: &frame,
            buffer_rsrc: Default::default(),
            mask_registers,
        };
        // Divergent branches: the blocks run one after another under lane masks (see
        // `machinst::divergence::linearize`), whose registers come before the allocator's.
        let (vcode, masks, first_sgpr) = if uniformity.has_divergent_branches() {
            let Linearized { vcode, masks } = lower_linearized(func, &cfg, &backend)?;
            let first = lower::linear::first_free_sgpr(&frame, masks.registers);
            (vcode, Some(masks), first)
        } else {
            let vcode = lower_function(func, &cfg, &backend)?;
            (vcode, None, frame.reserved_sgprs)
        };
        let mask_pairs = masks.map_or(0, |m| m.registers);
        match compile_vcode(func, &vcode, masks, &frame, kind, first_sgpr, generation) {
            Err(e) if mask_pairs > 0 && e.reason.starts_with("register exhaustion") => {
                mask_registers = mask_pairs / 2
            }
            result => return result,
        }
    }
}

/// Allocates, finishes and encodes lowered code (`masks`: linearized code and its lane
/// masks). A branch too far for its 16-bit offset jumps through an SGPR pair no
/// instruction uses (`relax_branches`). In the rare function that needs one and leaves no
/// pair free, allocation runs again with a pair kept out of the allocator's reach.
fn compile_vcode(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    masks: Option<Masks>,
    frame: &Frame,
    kind: FunctionKind,
    first_sgpr: u16,
    generation: Gen,
) -> Result<CompiledCode, CompileError> {
    let limit = regs::sgpr_limit(generation);
    let compile = |l| finish(func, vcode, masks, frame, kind, first_sgpr, generation, l);
    match compile(limit)? {
        Some(compiled) => Ok(compiled),
        None => compile(limit - 2)
            .map_err(|mut e| {
                if e.reason.starts_with("register exhaustion") {
                    e.reason += "; two SGPRs are kept for the long jumps of branches over \
                                 more than 128 KiB of code";
                }
                e
            })?
            .ok_or_else(|| {
                CompileError::new(func, "internal error: no SGPR pair free for a long branch")
            }),
    }
}

/// Allocates registers (SGPRs below `sgpr_limit`, VGPRs below those holding lane masks),
/// runs the post-allocation passes and encodes. `None`: a branch needs a long jump and no
/// SGPR pair is free for it.
#[allow(clippy::too_many_arguments)]
fn finish(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    masks: Option<Masks>,
    frame: &Frame,
    kind: FunctionKind,
    first_sgpr: u16,
    generation: Gen,
    sgpr_limit: u16,
) -> Result<Option<CompiledCode>, CompileError> {
    let linearized = masks.is_some();
    let slot_vgprs = lower::linear::mask_slot_vgprs(masks.map_or(0, |m| m.slots));
    // Linearized code: the allocator's moves copy whole waves.
    let moves: fn(Reg, Reg) -> Inst = if linearized {
        Inst::gen_wave_move
    } else {
        Inst::gen_move
    };
    let vgpr_limit = VGPR_LIMIT - slot_vgprs;
    let mut allocated = allocate(func, vcode, moves, first_sgpr, vgpr_limit, sgpr_limit)?;
    lower::linear::place_mask_slots(&mut allocated.insts, slot_vgprs);
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
    copies::run(&mut blocks, &succs, first_sgpr);
    // Each block separately: nothing is in flight at a block boundary.
    for block in &mut blocks {
        let mut insts = std::mem::take(block);
        if linearized {
            insts = expand_wave_copies::run(insts, frame);
        }
        *block = insert_waitcnt::run(insts, generation);
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
            return Err(CompileError::new(
                func,
                format!("internal error in encoding: {e}"),
            ));
        }
    };

    let (mut vgprs, mut sgprs, mut uses_vcc) = (0u32, frame.reserved_sgprs as u32, false);
    for mut inst in insts {
        let writes_vcc = !inst.clobbers().is_empty();
        uses_vcc |= writes_vcc;
        inst.visit_operands(&mut |r, _| {
            if let Reg::Real { file, hw, .. } = *r {
                let end = (hw + r.width()) as u32;
                match file {
                    VGPR => vgprs = vgprs.max(end),
                    _ if (VCC.hw()..VCC.hw() + 2).contains(&hw) => uses_vcc = true,
                    _ if *r == lower::linear::EXEC => {}
                    _ => sgprs = sgprs.max(end),
                }
            }
        });
    }
    if let (true, Some(pair)) = (uses_scratch, scratch) {
        sgprs = sgprs.max(pair as u32 + 2);
    }
    Ok(Some(CompiledCode {
        code,
        kind,
        vgprs: vgprs.max(1),
        sgprs,
        uses_vcc,
        kernarg_size: frame.kernarg_size,
        inputs: frame.inputs,
    }))
}

/// Runs the allocator (its moves made by `moves`) with each file partitioned among widths
/// from the measured demand, growing a class when the allocator needs more than the
/// estimate.
fn allocate(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    moves: fn(Reg, Reg) -> Inst,
    first_sgpr: u16,
    vgpr_limit: u16,
    sgpr_limit: u16,
) -> Result<Allocated<Inst>, CompileError> {
    let mut vdemand = regalloc::pressure(vcode, VGPR);
    let mut sdemand = regalloc::pressure(vcode, SGPR);
    // Fixed ABI registers (v0, v1, … for arguments, results and work-item ids, below
    // `abi::FIXED_ABI_VGPRS`) are singles.
    let mut min_vsingles = 0usize;
    for inst in &vcode.insts {
        let mut inst = inst.clone();
        inst.visit_operands(&mut |_, kind| {
            if let crate::machinst::OperandKind::DefFixed(r)
            | crate::machinst::OperandKind::UseFixed(r) = kind
                && r.file() == VGPR
            {
                min_vsingles = min_vsingles.max(r.hw() as usize + 1);
            }
        });
    }
    let fatal = |e: AllocError| {
        CompileError::new(
            func,
            match e {
                AllocError::BadFixedRegister(r) => {
                    format!("internal error: fixed register {r:?} is not allocatable")
                }
                AllocError::Internal(reason) => {
                    format!("internal register-allocation error: {reason}")
                }
                other => format!("internal register-allocation error: {other:?}"),
            },
        )
    };
    // Grow the partition while the allocator wants more registers.
    let mut tried = Vec::new();
    let capped = |demand: [usize; 3]| demand.map(|d| d.min(regs::MAX_PER_CLASS));
    for _attempt in 0..16 {
        let venv = regs::partition(VGPR, 0, vgpr_limit, capped(vdemand), min_vsingles, &[]);
        let senv = regs::partition(
            SGPR,
            first_sgpr,
            sgpr_limit,
            capped(sdemand),
            0,
            &[(VCC, true)],
        );
        let (Some(senv), Some(venv)) = (senv, venv) else {
            break;
        };
        let envs = [senv, venv];
        match regalloc::allocate(vcode, &envs, false, moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { file }) => {
                let demand = if file == VGPR {
                    &mut vdemand
                } else {
                    &mut sdemand
                };
                let before = capped(*demand);
                for d in demand.iter_mut() {
                    if *d > 0 {
                        *d += 1 + *d / 4;
                    }
                }
                tried.push(envs);
                if capped(*demand) == before {
                    break;
                }
            }
            Err(e) => return Err(fatal(e)),
        }
    }
    // The partition cannot grow: the measured one, with the allocator's spill slots in the
    // registers above it (the smallest partition leaves the most room for them); if that
    // fails, the grown ones in turn, since the measure can fall short in a class that
    // needs no spill slots (an expansion's early defs live alongside its operands: an f64
    // `fdiv` needs seven pairs at once) while the class that does could not grow.
    for envs in &tried {
        match regalloc::allocate(vcode, envs, true, moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { .. }) => {}
            Err(e) => return Err(fatal(e)),
        }
    }
    Err(CompileError::new(
        func,
        format!(
            "register exhaustion: the function needs more registers than the hardware has \
             ({VGPR_LIMIT} VGPRs, {sgpr_limit} SGPRs) and spilling is not supported yet"
        ),
    ))
}

/// Disassembles GCN code.
pub fn disassemble(code: &[u8], generation: Gen) -> Vec<DisasmLine> {
    let mut lines = Vec::new();
    let mut offset = 0;
    while offset < code.len() {
        match mc::decode(&code[offset..], generation) {
            Ok((inst, len)) => {
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..offset + len].to_vec(),
                    text: mc::print(&inst, generation),
                });
                offset += len;
            }
            Err(e) => {
                lines.push(DisasmLine {
                    offset,
                    bytes: code[offset..].to_vec(),
                    text: format!("<undecodable: {e}>"),
                });
                break;
            }
        }
    }
    lines
}
