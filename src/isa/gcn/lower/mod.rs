//! The GCN lowering: the backend the shared driver (`machinst::lower`) calls (entry,
//! block parameters, branch arguments, instructions through the ISLE rules) and the
//! context those rules run in. By concern: `isle.rs` (the constructors and extractors
//! `isle/gcn/*.isle` call), `operands.rs` (operand legalisation), `memory.rs` (memory
//! addressing), `atomics.rs` (atomics and fences), `merge.rs` (adjacent accesses merged into `dwordx2`/`dwordx4`),
//! `intrinsics.rs`, `branches.rs` (uniform branches), `conditions.rs`
//! (compare opcodes by condition code), `sub_dword.rs` (byte and word fields: `v_bfe`,
//! SDWA selects), `workgroup.rs` (workgroup memory, barriers, fences) and `linear.rs`
//! (lane masks of linearized code).

use super::abi::{Frame, device_value_vgprs};
use super::inst::{Inst, Src};
use super::mc::{Gen, Op};
use super::regs::{SGPR, VGPR, vgpr};
use crate::analysis::stack_addresses::StackAddresses;
use crate::analysis::uniformity::Uniformity;
use crate::ir::{self, Opcode, Value, types};
use crate::machinst::lower::{Lower, LowerBackend};
use crate::machinst::{Reg, RegClass};
use crate::{CompileError, FunctionKind};
use isle::generated;
use memory::scalar_load;
use smallvec::smallvec;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub use crate::machinst::isle::InstOutput;

mod atomics;
mod branches;
mod calls;
mod conditions;
mod fragment;
mod intrinsics;
mod isle;
pub mod linear;
mod memory;
pub mod merge;
mod nan_avoiding;
mod operands;
mod private;
mod shuffles;
mod sub_dword;
mod vertex;
mod workgroup;

pub struct GcnLower<'a> {
    pub generation: Gen,
    pub uniformity: &'a Uniformity,
    pub kind: FunctionKind,
    pub frame: &'a Frame,
    /// gfx6: the buffer resource MUBUF `addr64` accesses read, defined at entry.
    pub buffer_rsrc: Cell<Option<Reg>>,
    /// Linearized code: how many lane masks may take SGPR pairs (the rest live in VGPR
    /// lanes, `lower::linear`).
    pub mask_registers: usize,
    /// The SGPR each literal a VALU instruction reads over the constant bus was put in,
    /// per CLIF block: the first use's `s_mov_b32` serves the later uses of the block.
    pub scalar_literals: RefCell<HashMap<(ir::Block, u32), Reg>>,
    /// The most words one load of kernel arguments reads (`kernarg_chunks`): 4, 2, or 1
    /// (one load per argument). At most 2 on gfx6, which builds its buffer resource in an
    /// SGPR quad at entry too: the allocator then reuses an argument quad's registers once
    /// its pairs are copied out, and the copies cost more than the load they save
    /// (measured on the bench kernels); less after an allocation ran out of SGPRs.
    pub kernarg_widest: u32,
    /// gfx6: the buffer resource with each uniform base address, per CLIF block
    /// (`memory.rs`, `base_resource`).
    pub base_resources: RefCell<HashMap<(Option<ir::Block>, Value), Reg>>,
    /// Adjacent dword accesses merged into one (`merge.rs`).
    pub merges: merge::Merges,
    /// The values that address private memory (`private.rs`).
    pub stack: &'a StackAddresses,
}

impl GcnLower<'_> {
    /// Loads the used kernel arguments from the kernarg segment with as few scalar loads
    /// as it takes (`kernarg_chunks`), then takes each argument's words from them.
    fn load_kernel_arguments(
        &self,
        ctx: &mut Lower<'_, Inst>,
        params: &[Value],
    ) -> Result<(), CompileError> {
        let func = ctx.func;
        // The first word and the number of words of each used argument.
        let mut args = Vec::new();
        for (i, &param) in params.iter().enumerate() {
            if !ctx.is_used(param) {
                continue;
            }
            let ty = func.dfg.value_type(param);
            let words = match ty.bytes() {
                1..=4 => 1,
                8 => 2,
                _ => {
                    return Err(ctx.error(format!("kernel argument of type {ty} is not supported")));
                }
            };
            args.push((param, self.frame.kernarg_offsets[i] / 4, words));
        }
        let Some(base) = self.frame.kernarg_ptr else {
            return Ok(());
        };
        let segment_words = self.frame.kernarg_size / 4;
        let spans: Vec<(u32, u32)> = args.iter().map(|&(_, w, n)| (w, n)).collect();
        // The register of each loaded word.
        let mut word_regs = HashMap::new();
        for (first, len) in kernarg_chunks(&spans, segment_words, self.kernarg_widest) {
            let (op, class) = match len {
                1 => (Op::SLoadDword, RegClass::Int),
                2 => (Op::SLoadDwordx2, RegClass::Float),
                _ => (Op::SLoadDwordx4, RegClass::Vector),
            };
            let dst = ctx.new_vreg(SGPR, class);
            let new_sgpr = || ctx.new_vreg(SGPR, RegClass::Int);
            for inst in scalar_load(op, dst, base, 4 * first, self.generation, new_sgpr) {
                ctx.emit(inst);
            }
            word_regs.insert((first, len), dst);
        }
        for (param, word, words) in args {
            let reg = self.argument_words(ctx, &word_regs, word, words);
            ctx.set_value_reg(param, reg);
        }
        Ok(())
    }

    /// The `words` (1 or 2) loaded words from `word` on, as one register: a loaded
    /// register itself, a half (of a half) of one, or a pair of two loads' words.
    fn argument_words(
        &self,
        ctx: &mut Lower<'_, Inst>,
        loaded: &HashMap<(u32, u32), Reg>,
        word: u32,
        words: u32,
    ) -> Reg {
        let (&(first, len), &reg) = loaded
            .iter()
            .find(|&(&(f, l), _)| (f..f + l).contains(&word))
            .expect("every used word is loaded");
        if words == len
            || (words == 2 && (word - first).is_multiple_of(2) && first + len >= word + 2)
        {
            if words == len {
                return reg;
            }
            // A pair of a quad.
            return half(ctx, reg, word - first == 2);
        }
        if words == 2 {
            let lo = self.argument_words(ctx, loaded, word, 1);
            let hi = self.argument_words(ctx, loaded, word + 1, 1);
            let dst = ctx.new_vreg(SGPR, RegClass::Float);
            ctx.emit(Inst::Combine {
                dst,
                parts: smallvec![lo, hi],
            });
            return dst;
        }
        // One word of a pair, or of a quad's pair.
        let pair = match len {
            2 => reg,
            _ => half(ctx, reg, word - first >= 2),
        };
        half(ctx, pair, (word - first) % 2 == 1)
    }
}

/// The low or high half of a pair (a single) or of a quad (a pair), in its file.
fn half(ctx: &mut Lower<'_, Inst>, tuple: Reg, hi: bool) -> Reg {
    let class = match tuple.class() {
        RegClass::Vector => RegClass::Float,
        _ => RegClass::Int,
    };
    let dst = ctx.new_vreg(tuple.file(), class);
    ctx.emit(Inst::Half {
        dst,
        src: tuple,
        hi,
    });
    dst
}

/// The scalar loads (first word, 1, 2 or 4 words) that read the kernel arguments at
/// `args` (first word, number of words; by increasing word) from a kernarg segment of
/// `segment_words`: from each argument not yet loaded on, the longest load (up to `widest`
/// words) that stays in the segment, ends at an argument's end and reads a further
/// argument, as LLVM reads two pointer arguments with one `s_load_dwordx4`; else the
/// argument alone.
fn kernarg_chunks(args: &[(u32, u32)], segment_words: u32, widest: u32) -> Vec<(u32, u32)> {
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let first = args[i].0;
        let len = [4, 2]
            .into_iter()
            .filter(|&len| len <= widest)
            .find(|&len| {
                let end = first + len;
                // Whole arguments only, more than the first one.
                let inside: Vec<&(u32, u32)> =
                    args[i..].iter().take_while(|&&(w, _)| w < end).collect();
                end <= segment_words
                    && inside.len() > 1
                    && inside.iter().all(|&&(w, n)| w + n <= end)
                    && (len == 2 || inside.iter().any(|&&(w, n)| w + n > first + 2))
            })
            .unwrap_or(args[i].1);
        chunks.push((first, len));
        while i < args.len() && args[i].0 < first + len {
            i += 1;
        }
    }
    chunks
}

impl LowerBackend for GcnLower<'_> {
    type MInst = Inst;

    fn lower_entry(&self, ctx: &mut Lower<'_, Inst>) -> Result<(), CompileError> {
        let func = ctx.func;
        let entry = func.layout.entry_block().expect("checked by the driver");
        let params: Vec<Value> = func.dfg.block_params(entry).to_vec();
        let mut defs = Vec::new();
        match self.kind {
            FunctionKind::Kernel if self.frame.inputs.pixel.is_some() => {
                return self.fragment_entry(ctx, &params);
            }
            FunctionKind::Kernel if self.frame.inputs.vertex.is_some() => {
                return self.vertex_entry(ctx, &params);
            }
            FunctionKind::Kernel => {
                self.load_kernel_arguments(ctx, &params)?;
                // Work-item ids arrive in v0..v2.
                for d in 0..self.frame.inputs.workitem_id_vgprs {
                    let v = ctx.new_vreg(VGPR, RegClass::Int);
                    defs.push((v, vgpr(d as u16)));
                }
            }
            FunctionKind::Device => {
                let types = params.iter().map(|&p| func.dfg.value_type(p));
                let locations = device_value_vgprs(types);
                let mut combines = Vec::new();
                for (&param, &(first, count)) in params.iter().zip(&locations) {
                    let parts: Vec<Reg> = (0..count)
                        .map(|k| {
                            let v = ctx.new_vreg(VGPR, RegClass::Int);
                            defs.push((v, vgpr(first + k)));
                            v
                        })
                        .collect();
                    match parts.as_slice() {
                        [one] => ctx.set_value_reg(param, *one),
                        [lo, hi] => combines.push((param, *lo, *hi)),
                        _ => {
                            return Err(ctx.error(format!(
                                "device-function parameter of type {} is not supported",
                                func.dfg.value_type(param)
                            )));
                        }
                    }
                }
                ctx.emit(Inst::Args {
                    defs: std::mem::take(&mut defs),
                });
                for (param, lo, hi) in combines {
                    let dst = ctx.new_vreg(VGPR, RegClass::Float);
                    ctx.emit(Inst::Combine {
                        dst,
                        parts: smallvec![lo, hi],
                    });
                    ctx.set_value_reg(param, dst);
                }
                self.define_buffer_rsrc(ctx);
                self.set_lds_bound(ctx);
                return Ok(());
            }
        }
        ctx.emit(Inst::Args { defs });
        self.set_scratch_base(ctx);
        self.define_buffer_rsrc(ctx);
        self.set_lds_bound(ctx);
        Ok(())
    }

    fn block_param_reg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        param: Value,
    ) -> Result<Reg, CompileError> {
        let ty = ctx.dfg().value_type(param);
        let class = match ty.bits() {
            _ if ty.is_vector() => None,
            1..=32 => Some(RegClass::Int),
            64 => Some(RegClass::Float),
            _ => None,
        };
        let Some(class) = class else {
            return Err(ctx.error(format!("block parameters of type {ty} are not supported")));
        };
        let file = if self.uniformity.is_uniform(param) {
            SGPR
        } else {
            VGPR
        };
        Ok(ctx.new_vreg(file, class))
    }

    fn branch_arg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        value: Value,
        param: Reg,
    ) -> Result<Reg, CompileError> {
        let r = ctx.value_reg(value)?;
        if r.class() != param.class() {
            return Err(ctx.error(format!(
                "internal error: block argument {value} in {r:?} for a parameter in {param:?}"
            )));
        }
        if r.is_virtual() && r.file() == param.file() {
            return Ok(r);
        }
        if param.file() == VGPR {
            // A constant is materialized in the VGPR, not copied from its SGPR (which is
            // then dead unless something else uses it).
            let mut isle = IsleContext {
                lower: ctx,
                backend: self,
                error: None,
                vgpr_copies: HashMap::new(),
            };
            let reg = match param.class() {
                RegClass::Int => isle.const32(value).map(|c| isle.src_to_vgpr(Src::Imm(c))),
                _ => isle.const64_of(value).map(|c| isle.const64_reg(false, c)),
            };
            if let Some(reg) = reg {
                return Ok(reg);
            }
        }
        let dst = ctx.new_vreg(param.file(), param.class());
        ctx.emit(Inst::Copy { dst, src: r });
        Ok(dst)
    }

    fn lower_branch(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
        targets: &[usize],
    ) -> Result<Vec<usize>, CompileError> {
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
            vgpr_copies: HashMap::new(),
        };
        let succs = isle.lower_branch(inst, targets);
        match isle.error {
            Some(error) => Err(error),
            None => Ok(succs),
        }
    }

    fn lower_inst(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
    ) -> Result<Vec<Reg>, CompileError> {
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
            vgpr_copies: HashMap::new(),
        };
        let output = generated::constructor_lower(&mut isle, inst);
        if let Some(error) = isle.error {
            return Err(error);
        }
        match output {
            Some(regs) => Ok(regs.into_vec()),
            None => Err(ctx.error(unsupported_reason(ctx.func, inst))),
        }
    }
}

/// Why no rule matched `inst`.
fn unsupported_reason(func: &ir::Function, inst: ir::Inst) -> String {
    let opcode = func.dfg.insts[inst].opcode();
    let ty = func.dfg.ctrl_typevar(inst);
    if let Some(reason) = rejection_reason(opcode) {
        format!("`{opcode}` is not supported by the GCN backend: {reason}")
    } else if ty == types::I128 {
        format!(
            "`{opcode}` on type i128 is not supported by the GCN backend (i128 values only move \
             through memory: `load` and `store`)"
        )
    } else if ty == types::INVALID {
        format!("`{opcode}` is not supported by the GCN backend")
    } else {
        format!("`{opcode}` on type {ty} is not supported by the GCN backend")
    }
}

/// Why the backend rejects every use of `opcode` (docs/ir.md, "Rejected"), for the
/// opcodes rejected whatever their types.
fn rejection_reason(opcode: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match opcode {
        Trap | Trapz | Trapnz | Debugtrap => "a GPU wave cannot trap",
        DynamicStackAddr => {
            "dynamic stack slots are not supported (private memory is laid out at compile time)"
        }
        StackSwitch
        | GetFramePointer
        | GetStackPointer
        | GetReturnAddress
        | GetExceptionHandlerAddress => {
            "GCN stack frames hold stack slots only: there is no stack pointer, frame pointer \
             or return address to read"
        }
        ReturnCallIndirect => "a kernel cannot tail-call: it returns no results to pass on",
        TryCall | TryCallIndirect => {
            "calls with exception handlers are not supported: a GPU \
             wave cannot unwind"
        }
        Splat | Swizzle | X86Pshufb | Insertlane | Extractlane | AvgRound | UaddSat | SaddSat
        | UsubSat | SsubSat | Uload8x8 | Sload8x8 | Uload16x4 | Sload16x4 | Uload32x2
        | Sload32x2 | Vconst | Shuffle | Blendv | VanyTrue | VallTrue | VhighBits
        | SqmulRoundSat | X86Pmulhrsw | ScalarToVector | Snarrow | Unarrow | Uunarrow
        | SwidenLow | SwidenHigh | UwidenLow | UwidenHigh | IaddPairwise | X86Pmaddubsw
        | Fvdemote | FvpromoteLow | X86Cvtt2dq | ExtractVector => {
            "vector operations are not supported (GCN code is scalar per lane)"
        }
        _ => return crate::machinst::lower::rejected_on_every_gpu(opcode),
    })
}

pub struct IsleContext<'a, 'f> {
    lower: &'a mut Lower<'f, Inst>,
    backend: &'a GcnLower<'a>,
    /// The first error a constructor met; the rule's result is then discarded.
    error: Option<CompileError>,
    vgpr_copies: HashMap<Reg, Reg>,
}

impl IsleContext<'_, '_> {
    fn fail(&mut self, reason: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(self.lower.error(reason));
        }
    }

    fn value_reg(&mut self, value: Value) -> Reg {
        match self.lower.value_reg(value) {
            Ok(r) => r,
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
                // A placeholder so the rule can finish; the error discards its result.
                self.lower.new_vreg(VGPR, RegClass::Int)
            }
        }
    }

    fn is_uniform(&self, value: Value) -> bool {
        self.backend.uniformity.is_uniform(value)
    }

    fn emit(&mut self, inst: Inst) {
        self.lower.emit(inst);
    }

    fn vreg(&mut self, file: u8, class: RegClass) -> Reg {
        self.lower.new_vreg(file, class)
    }
}

#[cfg(test)]
mod tests {
    use super::kernarg_chunks;

    #[test]
    fn kernel_arguments_load_in_as_few_loads_as_fit() {
        // Two pointers: one dwordx4 (two dwordx2 where quads are not used).
        assert_eq!(kernarg_chunks(&[(0, 2), (2, 2)], 4, 4), [(0, 4)]);
        assert_eq!(kernarg_chunks(&[(0, 2), (2, 2)], 4, 2), [(0, 2), (2, 2)]);
        // A pointer and two words; a word, a hole and a pointer.
        assert_eq!(kernarg_chunks(&[(0, 2), (2, 1), (3, 1)], 4, 4), [(0, 4)]);
        assert_eq!(kernarg_chunks(&[(0, 1), (2, 2)], 4, 4), [(0, 4)]);
        // Never past the segment: a pointer and a word of a 3-word segment.
        assert_eq!(kernarg_chunks(&[(0, 2), (2, 1)], 3, 4), [(0, 2), (2, 1)]);
        // Never splitting a pointer: a word, then a pointer at word 1 (packed by hand).
        assert_eq!(kernarg_chunks(&[(0, 1), (1, 2)], 3, 4), [(0, 1), (1, 2)]);
        // Two words: a dwordx2, not a dwordx4 that reads nothing more.
        assert_eq!(kernarg_chunks(&[(0, 1), (1, 1)], 8, 4), [(0, 2)]);
        // Five pointers: two quads and a pair.
        let five: Vec<(u32, u32)> = (0..5).map(|i| (2 * i, 2)).collect();
        assert_eq!(kernarg_chunks(&five, 10, 4), [(0, 4), (4, 4), (8, 2)]);
        // A lone word; one load per argument.
        assert_eq!(kernarg_chunks(&[(3, 1)], 4, 4), [(3, 1)]);
        assert_eq!(
            kernarg_chunks(&[(0, 1), (1, 1), (2, 2)], 4, 1),
            [(0, 1), (1, 1), (2, 2)]
        );
    }
}
