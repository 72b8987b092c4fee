//! The NV50 lowering: the backend the shared driver (`machinst::lower`) calls (entry,
//! block parameters, branch arguments, instructions through the ISLE rules) and the
//! context those rules run in. By concern: `isle.rs` (the constructors `isle/nv50/*.isle`
//! call), `branches.rs` (branches, with the `joinat` of divergent ones), `low_words.rs`
//! (i64 values kept as their low word), `multiply.rs`, `int_arith.rs`, `f32_ops.rs` and `f64_ops.rs` (the
//! expansions).

use super::abi::Frame;
use super::inst::{Alu, Inst, Src};
use super::low_words::LowWords;
use super::mc::{Op, Ty, Variant};
use super::reconverge::Plan;
use super::regs::{GPR, gpr};
use crate::analysis::cfg::Cfg;
use crate::analysis::stack_addresses::StackAddresses;
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::machinst::lower::{Lower, LowerBackend};
use crate::machinst::{Reg, RegClass};
use crate::{CompileError, FunctionKind};
use cranelift_codegen::entity::SecondaryMap;
use isle::generated;
use std::collections::BTreeSet;

pub use crate::machinst::isle::InstOutput;

mod atomics;
mod branches;
mod calls;
mod cross_lane;
mod f32_ops;
mod f64_ops;
mod fragment;
mod int_arith;
mod isle;
mod low_words;
mod multiply;
mod private;
mod vertex;
mod workgroup;

pub use cross_lane::{scratch_size, uses_scratch};
pub use private::LOCAL_LIMIT;
pub use workgroup::SHARED_LIMIT;

pub struct Nv50Lower<'a> {
    pub variant: Variant,
    pub kind: FunctionKind,
    pub frame: &'a Frame,
    pub cfg: &'a Cfg,
    pub plan: &'a Plan,
    /// The compares lowered into a `$c` ([`compares_in_flags`]).
    pub in_flags: &'a BTreeSet<Value>,
    /// The i64 values kept as their low word.
    pub low_words: &'a LowWords,
    /// Where the cross-lane scratch areas start in `s[]` (`cross_lane.rs`).
    pub scratch_base: u32,
    /// The values that address stack slots (`private.rs`).
    pub stack: &'a StackAddresses,
    /// A fragment program's inputs and outputs (`None`: a kernel or device function).
    pub fragment: Option<&'a super::fragment::FragmentInfo>,
    /// A vertex program's inputs and outputs (`None`: not one).
    pub vertex: Option<&'a super::vertex::VertexInfo>,
}

/// The `icmp`s of up to 32 bits whose results only branch and `select` conditions read, at
/// least two of them: each is one `set` into a `$c` that all its uses read. A compare read
/// once is `set` again where it is read (`IsleContext::condition`), which costs the same and
/// keeps `$c` values short-lived (there are four); one read several times is computed once,
/// and when more such are live than there are `$c`, the allocator spills them into `$r`
/// (`regs.rs`). A compare with any other use is a 0/1 in a `$r`, set again into a `$c` where
/// a condition reads it.
pub fn compares_in_flags(func: &ir::Function) -> BTreeSet<Value> {
    let mut conditions: SecondaryMap<Value, u32> = SecondaryMap::new();
    let mut others: SecondaryMap<Value, u32> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let reads_condition = matches!(
                func.dfg.insts[inst].opcode(),
                Opcode::Brif | Opcode::Select | Opcode::SelectSpectreGuard
            );
            for (k, v) in func.dfg.inst_values(inst).enumerate() {
                let v = func.dfg.resolve_aliases(v);
                if reads_condition && k == 0 {
                    conditions[v] += 1;
                } else {
                    others[v] += 1;
                }
            }
        }
    }
    let mut kept = BTreeSet::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let InstructionData::IntCompare { args, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let v = func.dfg.first_result(inst);
            if func.dfg.value_type(args[0]).bits() <= 32 && conditions[v] >= 2 && others[v] == 0 {
                kept.insert(v);
            }
        }
    }
    kept
}

/// The register class of a value of `ty`: one `$r`, an even pair, an aligned quad.
pub fn class_of(ty: ir::Type) -> Option<RegClass> {
    match ty.bits() {
        _ if ty.is_vector() => None,
        1..=32 => Some(RegClass::Int),
        64 => Some(RegClass::Float),
        128 => Some(RegClass::Vector),
        _ => None,
    }
}

impl LowerBackend for Nv50Lower<'_> {
    type MInst = Inst;

    fn lower_entry(&self, ctx: &mut Lower<'_, Inst>) -> Result<(), CompileError> {
        let func = ctx.func;
        let entry = func.layout.entry_block().expect("checked by the driver");
        let params: Vec<Value> = func.dfg.block_params(entry).to_vec();
        if let Some(info) = self.fragment {
            return self.fragment_entry(ctx, info, &params);
        }
        if self.vertex.is_some() {
            return self.user_data_entry(ctx, &params);
        }
        match self.kind {
            FunctionKind::Kernel => {
                // `$r0`: the packed thread id, read by the work-item intrinsics.
                let tid = ctx.new_vreg(GPR, RegClass::Int);
                ctx.emit(Inst::Args {
                    defs: vec![(tid, gpr(0))],
                });
                self.frame.tid.set(Some(tid));
                let used: Vec<usize> = (0..params.len())
                    .filter(|&i| ctx.is_used(params[i]))
                    .collect();
                // An i64 whose high word nothing reads: its low word alone.
                let word_offsets = |i: usize| {
                    let bytes = if self.low_words.low_only(func, params[i]) {
                        4
                    } else {
                        func.dfg.value_type(params[i]).bytes()
                    };
                    (0..bytes.div_ceil(4)).map(move |w| self.frame.param_offsets[i] + 4 * w)
                };
                let far: Vec<u32> = used
                    .iter()
                    .flat_map(|&i| word_offsets(i))
                    .filter(|&o| o > OPERAND_REACH && self.variant < Variant::G84)
                    .collect();
                let bases = far_argument_bases(&far);
                for (k, &base) in bases.iter().enumerate() {
                    ctx.emit(Inst::SetAddr {
                        areg: k as u8 + 1,
                        value: base as u16,
                    });
                }
                for &i in &used {
                    let param = params[i];
                    let ty = func.dfg.value_type(param);
                    let mut words = Vec::new();
                    for offset in word_offsets(i) {
                        let dst = ctx.new_vreg(GPR, RegClass::Int);
                        let src = match bases
                            .iter()
                            .position(|&b| (b..=b + OPERAND_REACH).contains(&offset))
                        {
                            Some(k) if offset > OPERAND_REACH => Src::Shared {
                                ty: Ty::B32,
                                areg: k as u8 + 1,
                                offset: offset - bases[k],
                            },
                            _ => Src::Shared {
                                ty: Ty::B32,
                                areg: 0,
                                offset,
                            },
                        };
                        ctx.emit(read_shared(dst, src));
                        words.push(dst);
                    }
                    let reg = match words.as_slice() {
                        [one] => *one,
                        [lo, hi] => {
                            let dst = ctx.new_vreg(GPR, RegClass::Float);
                            ctx.emit(Inst::Combine {
                                dst,
                                lo: *lo,
                                hi: *hi,
                            });
                            dst
                        }
                        _ => {
                            return Err(
                                ctx.error(format!("kernel argument of type {ty} is not supported"))
                            );
                        }
                    };
                    ctx.set_value_reg(param, reg);
                }
            }
            FunctionKind::Device => {
                let mut defs = Vec::new();
                let mut combines = Vec::new();
                let mut next = 0u16;
                for &param in &params {
                    let ty = func.dfg.value_type(param);
                    let words = ty.bytes().div_ceil(4) as u16;
                    // An i64 whose high word nothing reads: its low word's register alone.
                    let read = if self.low_words.low_only(func, param) {
                        1
                    } else {
                        words
                    };
                    let parts: Vec<Reg> = (0..read)
                        .map(|k| {
                            let v = ctx.new_vreg(GPR, RegClass::Int);
                            defs.push((v, gpr(next + k)));
                            v
                        })
                        .collect();
                    next += words;
                    match parts.as_slice() {
                        [one] => ctx.set_value_reg(param, *one),
                        [lo, hi] => combines.push((param, *lo, *hi)),
                        _ => {
                            return Err(ctx.error(format!(
                                "device-function parameter of type {ty} is not supported"
                            )));
                        }
                    }
                }
                ctx.emit(Inst::Args { defs });
                for (param, lo, hi) in combines {
                    let dst = ctx.new_vreg(GPR, RegClass::Float);
                    ctx.emit(Inst::Combine { dst, lo, hi });
                    ctx.set_value_reg(param, dst);
                }
            }
        }
        Ok(())
    }

    fn block_param_reg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        param: Value,
    ) -> Result<Reg, CompileError> {
        let ty = ctx.dfg().value_type(param);
        if self.low_words.low_only(ctx.func, param) {
            return Ok(ctx.new_vreg(GPR, RegClass::Int));
        }
        match class_of(ty) {
            Some(class) => Ok(ctx.new_vreg(GPR, class)),
            None => Err(ctx.error(format!("block parameters of type {ty} are not supported"))),
        }
    }

    fn branch_arg(
        &self,
        ctx: &mut Lower<'_, Inst>,
        value: Value,
        param: Reg,
    ) -> Result<Reg, CompileError> {
        let mut r = ctx.value_reg(value)?;
        if param.class() == RegClass::Int && r.class() == RegClass::Float {
            // A parameter kept as its low word (`low_words.rs`) of a pair.
            let low = ctx.new_vreg(GPR, RegClass::Int);
            ctx.emit(Inst::Alu(Alu::new(
                Op::Mov,
                Some(Ty::B32),
                Some(low),
                &[Src::Half(r, false)],
            )));
            r = low;
        }
        if r.class() != param.class() || r.file() != param.file() {
            return Err(ctx.error(format!(
                "internal error: block argument {value} in {r:?} for a parameter in {param:?}"
            )));
        }
        Ok(r)
    }

    fn lower_branch(
        &self,
        ctx: &mut Lower<'_, Inst>,
        inst: ir::Inst,
        targets: &[usize],
    ) -> Result<Vec<usize>, CompileError> {
        if let Some(reason) = i128_use(ctx.func, inst) {
            return Err(ctx.error(reason));
        }
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
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
        if let Some(reason) = i128_use(ctx.func, inst) {
            return Err(ctx.error(reason));
        }
        let mut isle = IsleContext {
            lower: ctx,
            backend: self,
            error: None,
        };
        let output = generated::constructor_lower(&mut isle, inst);
        if let Some(error) = isle.error {
            return Err(error);
        }
        match output {
            Some(regs) => Ok(regs.into_vec()),
            None => Err(ctx.error(unsupported_reason(ctx.func, inst, self.variant))),
        }
    }
}

/// The farthest 32-bit `s[]` offset an operand's 5-bit scaled offset field reaches
/// (`docs/nv50.md`, "Shared memory").
const OPERAND_REACH: u32 = 0x7c;

/// The `$a1`, `$a2`, … bases through which G80 reads the argument words at `far` (sorted
/// offsets beyond [`OPERAND_REACH`]): each base is the first offset it serves and reaches
/// the next 0x7c bytes, so the at most 0xfc bytes of arguments past 0x7c need at most two
/// (`docs/nv50.md`, "Shared memory").
fn far_argument_bases(far: &[u32]) -> Vec<u32> {
    let mut bases: Vec<u32> = Vec::new();
    for &offset in far {
        if bases.last().is_none_or(|&b| offset > b + OPERAND_REACH) {
            bases.push(offset);
        }
    }
    bases
}

/// `mov b32 dst s[…]` when the offset field reaches (through `$a` on G80), else (G84 and
/// later) `ld b32 dst s[offset]` (`docs/nv50.md`, "Shared memory").
fn read_shared(dst: Reg, src: Src) -> Inst {
    let op = match src {
        Src::Shared { offset, .. } if offset > OPERAND_REACH => Op::Ld,
        _ => Op::Mov,
    };
    Inst::Alu(Alu::new(op, Some(Ty::B32), Some(dst), &[src]))
}

/// Why no rule matched `inst`.
fn unsupported_reason(func: &ir::Function, inst: ir::Inst, variant: Variant) -> String {
    let opcode = func.dfg.insts[inst].opcode();
    let ty = func.dfg.ctrl_typevar(inst);
    let target = format!("the NV50 backend ({})", variant.envydis_name());
    if let Some(reason) = rejection_reason(opcode) {
        format!("`{opcode}` is not supported by {target}: {reason}")
    } else if ty == types::INVALID {
        format!("`{opcode}` is not supported by {target} yet")
    } else {
        format!("`{opcode}` on type {ty} is not supported by {target} yet")
    }
}

/// Why `inst` cannot be lowered if it computes on an i128 value: NV50 keeps i128 in a
/// register quad for loads and stores (`b128`) and has no operation on it, not even taking
/// it apart (`isplit`) or building it (`iconcat`).
fn i128_use(func: &ir::Function, inst: ir::Inst) -> Option<String> {
    use Opcode::*;
    let dfg = &func.dfg;
    let opcode = dfg.insts[inst].opcode();
    let wide = match opcode {
        Load | Store | Return => false,
        // The arguments of the target blocks are copies; the condition is not.
        Jump | Brif | BrTable => dfg
            .inst_args(inst)
            .iter()
            .any(|&v| dfg.value_type(v) == types::I128),
        _ => dfg
            .inst_values(inst)
            .chain(dfg.inst_results(inst).iter().copied())
            .any(|v| dfg.value_type(v) == types::I128),
    };
    wide.then(|| {
        format!(
            "`{opcode}` on an i128 value is not supported by the NV50 backend: i128 values \
             can only be loaded and stored"
        )
    })
}

/// Why the backend rejects every use of `opcode`, for the opcodes rejected whatever their
/// types (as GCN's, `docs/ir.md` "Rejected").
fn rejection_reason(opcode: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match opcode {
        Trap | Trapz | Trapnz | Debugtrap => "a GPU warp cannot trap",
        DynamicStackAddr => {
            "dynamic stack slots are not supported (a thread's `l[]` is laid out at compile time)"
        }
        StackSwitch
        | GetFramePointer
        | GetStackPointer
        | GetReturnAddress
        | GetExceptionHandlerAddress => {
            "NV50 stack frames hold stack slots only, at fixed offsets of `l[]`: there is no \
             stack pointer, frame pointer or return address to read"
        }
        Fence => {
            "Tesla has no memory-fence instruction (envytools lists none; nouveau approximates \
             one with loads from a driver buffer and `bar sync`), so the device-wide ordering \
             of CLIF's `fence` cannot be given; within a work-group, `wavelift_barrier` orders \
             memory (docs/ir.md, \"Barriers and fences\")"
        }
        FuncAddr | CallIndirect | ReturnCallIndirect => {
            "function addresses and indirect calls are not supported by the NV50 backend \
             (`call` takes its target in the instruction)"
        }
        TryCall | TryCallIndirect => {
            "calls with exception handlers are not supported: a GPU warp cannot unwind"
        }
        _ => return crate::machinst::lower::rejected_on_every_gpu(opcode),
    })
}

pub struct IsleContext<'a, 'f> {
    lower: &'a mut Lower<'f, Inst>,
    backend: &'a Nv50Lower<'a>,
    /// The first error a constructor met; the rule's result is then discarded.
    error: Option<CompileError>,
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
                self.lower.new_vreg(GPR, RegClass::Int)
            }
        }
    }

    fn emit(&mut self, inst: Inst) {
        self.lower.emit(inst);
    }

    fn vreg(&mut self, class: RegClass) -> Reg {
        self.lower.new_vreg(GPR, class)
    }
}
