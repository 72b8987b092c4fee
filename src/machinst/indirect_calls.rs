//! Indirect calls rewritten in CLIF before selection, for targets that call through an
//! address held in scalar registers (GCN's `s_swappc_b64`):
//!
//! - `return_call_indirect` in a device function becomes `call_indirect` and a `return`
//!   of its results, as the backends compile `return_call` (a kernel's is left for the
//!   backend to refuse);
//! - a `call_indirect` whose callee may differ between the lanes of a wave becomes a
//!   *waterfall* loop, as LLVM's AMDGPU backend and ACO build one: each turn takes the
//!   address of the first lane left (`wavelift_readfirstlane` of both halves), calls it
//!   for the lanes holding that address, and lets them leave; the others go round again.
//!   Each turn serves at least the first lane left, so the loop ends after as many turns
//!   as there are distinct addresses among the lanes.
//!
//! The loop is ordinary CLIF with a divergent exit, which the backends linearize as any
//! such loop; the call inside it has a uniform callee. Its results leave the loop as block
//! arguments: each lane keeps those of the turn that served it.

use crate::FunctionKind;
use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Analysis;
use crate::intrinsics::{self, Intrinsic};
use crate::ir::{self, InstBuilder, InstructionData, Opcode, Type, Value, types};
use cranelift_codegen::cursor::{Cursor, FuncCursor};

/// Rewrites the indirect calls of `func` as the module documentation says.
pub fn run(func: &mut ir::Function) {
    if FunctionKind::of(&func.signature) == Ok(FunctionKind::Device) {
        for inst in insts_with(func, Opcode::ReturnCallIndirect) {
            split_tail_call(func, inst);
        }
    }
    let calls = insts_with(func, Opcode::CallIndirect);
    if calls.is_empty() {
        return;
    }
    // Irreducible control flow is the backend's to report.
    let Ok(cfg) = Cfg::new(func) else {
        return;
    };
    let divergent: Vec<ir::Inst> = {
        let mut analysis = Analysis::new(func, &cfg);
        analysis.assume_divergent(per_lane_values(func));
        let uniformity = analysis.finish();
        calls
            .into_iter()
            .filter(|&inst| {
                let callee = func.dfg.resolve_aliases(func.dfg.inst_args(inst)[0]);
                // Results no call can return are the backend's to refuse.
                let returnable = func.dfg.inst_results(inst).iter().all(|&v| {
                    let ty = func.dfg.value_type(v);
                    (ty.is_int() || ty.is_float()) && ty.bits() <= 64
                });
                returnable && !uniformity.is_uniform(callee)
            })
            .collect()
    };
    if divergent.is_empty() {
        return;
    }
    let first_lane = intrinsics::declare(func, Intrinsic::ReadFirstLane);
    for inst in divergent {
        waterfall(func, inst, first_lane);
    }
}

/// The instructions of `func` with `opcode`, in layout order.
fn insts_with(func: &ir::Function, opcode: Opcode) -> Vec<ir::Inst> {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| func.dfg.insts[inst].opcode() == opcode)
        .collect()
}

/// The values that differ per lane whatever their operands: a device function's arguments
/// (its callers may pass different values per lane) and what atomics return (each lane
/// its own old value, even at one address).
fn per_lane_values(func: &ir::Function) -> Vec<Value> {
    let mut values = Vec::new();
    if FunctionKind::of(&func.signature) == Ok(FunctionKind::Device)
        && let Some(entry) = func.layout.entry_block()
    {
        values.extend_from_slice(func.dfg.block_params(entry));
    }
    for inst in func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
    {
        if matches!(
            func.dfg.insts[inst].opcode(),
            Opcode::AtomicRmw | Opcode::AtomicCas | Opcode::AtomicLoad
        ) {
            values.extend_from_slice(func.dfg.inst_results(inst));
        }
    }
    values
}

/// `return_call_indirect` at `inst` as `call_indirect` and `return`.
fn split_tail_call(func: &mut ir::Function, inst: ir::Inst) {
    let InstructionData::CallIndirect { sig_ref, .. } = func.dfg.insts[inst] else {
        unreachable!("a return_call_indirect");
    };
    let args = func.dfg.inst_args(inst).to_vec();
    let mut pos = FuncCursor::new(func).at_inst(inst);
    let call = pos.ins().call_indirect(sig_ref, args[0], &args[1..]);
    let results = pos.func.dfg.inst_results(call).to_vec();
    pos.ins().return_(&results);
    pos.remove_inst();
}

/// Replaces the `call_indirect` at `inst` by the waterfall loop: its block ends in the
/// loop, whose exit continues with the rest of the block.
fn waterfall(func: &mut ir::Function, inst: ir::Inst, first_lane: ir::FuncRef) {
    let InstructionData::CallIndirect { sig_ref, .. } = func.dfg.insts[inst] else {
        unreachable!("a call_indirect");
    };
    let args = func.dfg.inst_args(inst).to_vec();
    let (callee, args) = (args[0], &args[1..]);
    let results = func.dfg.inst_results(inst).to_vec();
    let result_types: Vec<Type> = results.iter().map(|&v| func.dfg.value_type(v)).collect();
    let before = func
        .layout
        .inst_block(inst)
        .expect("the call is in the layout");
    let rest = func.dfg.make_block();
    func.layout.split_block(rest, inst);
    func.dfg.clear_results(inst);
    for &result in &results {
        func.dfg.attach_block_param(rest, result);
    }
    let head = func.dfg.make_block();
    let call = func.dfg.make_block();
    let latch = func.dfg.make_block();
    let mut pos = FuncCursor::new(func).at_inst(inst);
    pos.remove_inst();

    // Before: the results start as zeros, which no lane keeps (each leaves the loop with
    // the results of its own call).
    pos.goto_bottom(before);
    let zeros: Vec<ir::BlockArg> = result_types
        .iter()
        .map(|&ty| zero(&mut pos, ty).into())
        .collect();
    pos.ins().jump(head, &zeros);

    // The head: the first lane's address, and which lanes share it.
    pos.insert_block(head);
    let carried: Vec<Value> = result_types
        .iter()
        .map(|&ty| pos.func.dfg.append_block_param(head, ty))
        .collect();
    let (lo, hi) = pos.ins().isplit(callee);
    let first_lo = pos.ins().call(first_lane, &[lo]);
    let first_lo = pos.func.dfg.first_result(first_lo);
    let first_hi = pos.ins().call(first_lane, &[hi]);
    let first_hi = pos.func.dfg.first_result(first_hi);
    let address = pos.ins().iconcat(first_lo, first_hi);
    let served = pos.ins().icmp(ir::condcodes::IntCC::Equal, callee, address);
    let not_yet = pos.ins().iconst(types::I8, 0);
    let mut passed: Vec<ir::BlockArg> = carried.iter().map(|&v| v.into()).collect();
    passed.push(not_yet.into());
    pos.ins().brif(served, call, &[], latch, &passed);

    // The call, for the lanes served this turn.
    pos.insert_block(call);
    let called = pos.ins().call_indirect(sig_ref, address, args);
    let mut passed: Vec<ir::BlockArg> = pos
        .func
        .dfg
        .inst_results(called)
        .iter()
        .map(|&v| v.into())
        .collect();
    let done = pos.ins().iconst(types::I8, 1);
    passed.push(done.into());
    pos.ins().jump(latch, &passed);

    // The latch: the served lanes leave with their results, the others go round.
    pos.insert_block(latch);
    let out: Vec<ir::BlockArg> = result_types
        .iter()
        .map(|&ty| pos.func.dfg.append_block_param(latch, ty).into())
        .collect();
    let left = pos.func.dfg.append_block_param(latch, types::I8);
    pos.ins().brif(left, rest, &out, head, &out);
}

/// A zero of `ty` (a call's result: an integer or float of at most 64 bits).
fn zero(pos: &mut FuncCursor, ty: Type) -> Value {
    match ty {
        types::F32 => pos.ins().f32const(0.0),
        types::F64 => pos.ins().f64const(0.0),
        _ if ty.is_float() => {
            let bits = pos
                .ins()
                .iconst(Type::int(ty.bits() as u16).expect("a float's width"), 0);
            pos.ins().bitcast(ty, ir::MemFlagsData::new(), bits)
        }
        _ => pos.ins().iconst(ty, 0),
    }
}
