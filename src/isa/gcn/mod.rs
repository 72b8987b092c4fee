//! The AMD GCN backend (gfx6–gfx9).

pub mod abi;
pub mod copies;
#[cfg(test)]
mod div64_model;
#[cfg(test)]
mod div_model;
pub mod emit;
#[cfg(test)]
mod fdiv64_model;
#[cfg(test)]
mod fdiv_model;
pub mod hazards;
pub mod insert_waitcnt;
pub mod inst;
pub mod lower;
pub mod mc;
pub mod regs;
#[cfg(test)]
mod round64_model;
pub mod skip;

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Uniformity;
use crate::ir;
use crate::machinst::linearize::lower_linearized;
use crate::machinst::lower::lower_function;
use crate::machinst::regalloc::{self, AllocError, Allocated};
use crate::machinst::{MachInst, Reg, VCode};
use crate::{CompileError, CompiledCode, DisasmLine, FunctionKind};
use abi::Frame;
use cranelift_codegen::isa::CallConv;
use inst::Inst;
use mc::{Gen, Op};
use regs::{SGPR, VCC, VGPR, VGPR_LIMIT};

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
    for param in func.signature.params.iter().chain(&func.signature.returns) {
        let ty = param.value_type;
        if !(ty.is_int() || ty.is_float()) || ty.bits() > 64 || ty.is_vector() {
            return Err(CompileError::new(
                func,
                format!("parameters and results of type {ty} are not supported"),
            ));
        }
    }
    let frame = match kind {
        FunctionKind::Kernel => Frame::kernel(func),
        FunctionKind::Device => Frame::device(),
    };
    let cfg = Cfg::new(func).map_err(|e| CompileError::new(func, e))?;
    let uniformity = Uniformity::analyze(func, &cfg, kind == FunctionKind::Kernel);
    // Lane masks take SGPR pairs before the allocator's registers, leaving it this many at
    // first; when it runs out, fewer masks get pairs (the others live in VGPR lanes).
    // gfx6/gfx7 have v_readlane/v_writelane only in the VOP2 encoding, which the MC layer
    // does not emit yet: there every mask takes a pair.
    let lanes_hold_masks = Op::VWritelaneB32.info().available(generation);
    let mut mask_registers = match lanes_hold_masks {
        true => lower::linear::mask_registers(&frame, generation, 16),
        false => usize::MAX,
    };
    let (vcode, first_sgpr, mut allocated) = loop {
        let backend = lower::GcnLower {
            generation,
            uniformity: &uniformity,
            kind,
            frame: &frame,
            buffer_rsrc: Default::default(),
            mask_registers,
        };
        // Divergent branches: the blocks run one after another under lane masks (see
        // `machinst::linearize`), whose registers come before the allocator's.
        let (vcode, first_sgpr) = if uniformity.has_divergent_branches() {
            let vcode = lower_linearized(func, &cfg, &backend)?;
            let first = lower::linear::first_free_sgpr(&frame, vcode.masks);
            (vcode, first)
        } else {
            (lower_function(func, &cfg, &backend)?, frame.reserved_sgprs)
        };
        let slot_vgprs = lower::linear::mask_slot_vgprs(vcode.mask_slots);
        match allocate(
            func,
            &vcode,
            first_sgpr,
            VGPR_LIMIT - slot_vgprs,
            generation,
        ) {
            Ok(allocated) => break (vcode, first_sgpr, allocated),
            Err(_) if lanes_hold_masks && vcode.masks > 0 => mask_registers = vcode.masks / 2,
            Err(e) => return Err(e),
        }
    };
    lower::linear::place_mask_slots(
        &mut allocated.insts,
        lower::linear::mask_slot_vgprs(vcode.mask_slots),
    );
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
        if vcode.wave_moves {
            insts = lower::linear::expand_wave_copies(insts, &frame);
        }
        *block = insert_waitcnt::run(insts, generation);
    }
    if vcode.wave_moves {
        let cost = |run: &[Inst]| emit::lower_to_mc(run, generation).map_or(0, |mc| mc.len());
        blocks = skip::run(blocks, lower::linear::entry_lanes(&frame), cost);
    }
    let insts: Vec<Inst> = blocks.iter().flatten().cloned().collect();
    let (mc, starts) = emit::lower_blocks(&blocks, generation)
        .map_err(|e| CompileError::new(func, format!("internal error in emission: {e}")))?;
    let (mc, starts) = hazards::run_blocks(mc, &starts, generation);
    let code = emit::assemble(&mc, &starts, generation)
        .map_err(|e| CompileError::new(func, format!("internal error in encoding: {e}")))?;

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
    Ok(CompiledCode {
        code,
        kind,
        vgprs: vgprs.max(1),
        sgprs,
        uses_vcc,
        kernarg_size: frame.kernarg_size,
        inputs: frame.inputs,
    })
}

/// Runs the allocator with each file partitioned among widths from the measured demand,
/// growing a class when the allocator needs more than the estimate.
fn allocate(
    func: &ir::Function,
    vcode: &VCode<Inst>,
    first_sgpr: u16,
    vgpr_limit: u16,
    generation: Gen,
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
    let sgpr_limit = regs::sgpr_limit(generation);
    let fatal = |e: AllocError| {
        CompileError::new(
            func,
            match e {
                AllocError::BadFixedRegister(r) => {
                    format!("internal error: fixed register {r:?} is not allocatable")
                }
                other => format!("internal register-allocation error: {other:?}"),
            },
        )
    };
    // Grow the partition while the allocator wants more registers.
    let mut smallest = None;
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
        match regalloc::allocate(vcode, &envs, false) {
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
                smallest.get_or_insert(envs);
                if capped(*demand) == before {
                    break;
                }
            }
            Err(e) => return Err(fatal(e)),
        }
    }
    // The partition cannot grow: the measured one, with the allocator's spill slots in the
    // registers above it (the smallest partition leaves the most room for them).
    if let Some(envs) = smallest {
        match regalloc::allocate(vcode, &envs, true) {
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
