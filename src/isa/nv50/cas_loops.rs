//! Compare-and-swap loops for the `atomic_rmw` operations NV50 has no instruction for
//! (`docs/nv50.md`, "Atomics"): `nand` of i32, and on GT200 every i64 operation but `add`
//! and `xchg`. A CLIF-to-CLIF pass on the function's copy, before the analyses, so that
//! the loop is an ordinary divergent loop for reconvergence:
//!
//! ```text
//!     old0 = atomic_load p               ; a first guess
//!     jump retry(old0)
//! retry(old):
//!     new = op(old, x)
//!     seen = atomic_cas p, old, new
//!     done = icmp eq seen, old
//!     brif done, after(seen), retry(seen)
//! after(v):                              ; the rest of the block, v the old value
//! ```

use super::mc::Variant;
use crate::ir::condcodes::IntCC;
use crate::ir::{self, AtomicRmwOp, BlockArg, InstBuilder, InstructionData, types};
use cranelift_codegen::cursor::{Cursor, FuncCursor};

/// Whether `atomic_rmw op` of `ty` needs a loop on `variant` (and can have one: the
/// compare-and-swap of its width exists there).
fn needs_loop(op: AtomicRmwOp, ty: ir::Type, variant: Variant) -> bool {
    match ty {
        types::I32 => op == AtomicRmwOp::Nand && variant.has_global_atomics(),
        types::I64 => !matches!(op, AtomicRmwOp::Add | AtomicRmwOp::Xchg) && variant.has_f64(),
        _ => false,
    }
}

/// Rewrites every global `atomic_rmw` that needs it (`needs_loop`) into a compare-and-swap
/// loop.
pub fn run(func: &mut ir::Function, variant: Variant) {
    let found: Vec<ir::Inst> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| match func.dfg.insts[inst] {
            InstructionData::AtomicRmw { op, args, .. } => {
                let ty = func.dfg.ctrl_typevar(inst);
                func.dfg.value_type(args[0]) == types::I64 && needs_loop(op, ty, variant)
            }
            _ => false,
        })
        .collect();
    for inst in found {
        expand(func, inst);
    }
}

fn expand(func: &mut ir::Function, inst: ir::Inst) {
    let InstructionData::AtomicRmw {
        op, args, flags, ..
    } = func.dfg.insts[inst]
    else {
        unreachable!("an atomic_rmw")
    };
    let flags = func.dfg.mem_flags[flags];
    let [p, x] = args;
    let ty = func.dfg.ctrl_typevar(inst);
    let result = func.dfg.first_result(inst);
    let next = func
        .layout
        .next_inst(inst)
        .expect("a block ends with its terminator");
    let retry = func.dfg.make_block();
    let after = func.dfg.make_block();
    func.layout.split_block(after, next);
    func.layout.insert_block(retry, after);
    let old = func.dfg.append_block_param(retry, ty);
    let value = func.dfg.append_block_param(after, ty);

    let mut pos = FuncCursor::new(func).at_inst(inst);
    let first = pos.ins().atomic_load(ty, flags, p);
    pos.ins().jump(retry, &[BlockArg::Value(first)]);
    pos.goto_bottom(retry);
    let new = match op {
        AtomicRmwOp::Sub => pos.ins().isub(old, x),
        AtomicRmwOp::And => pos.ins().band(old, x),
        AtomicRmwOp::Or => pos.ins().bor(old, x),
        AtomicRmwOp::Xor => pos.ins().bxor(old, x),
        AtomicRmwOp::Nand => {
            let both = pos.ins().band(old, x);
            pos.ins().bnot(both)
        }
        AtomicRmwOp::Umin => pos.ins().umin(old, x),
        AtomicRmwOp::Umax => pos.ins().umax(old, x),
        AtomicRmwOp::Smin => pos.ins().smin(old, x),
        AtomicRmwOp::Smax => pos.ins().smax(old, x),
        AtomicRmwOp::Add | AtomicRmwOp::Xchg => unreachable!("instructions of their own"),
    };
    let seen = pos.ins().atomic_cas(flags, p, old, new);
    let done = pos.ins().icmp(IntCC::Equal, seen, old);
    pos.ins().brif(
        done,
        after,
        &[BlockArg::Value(seen)],
        retry,
        &[BlockArg::Value(seen)],
    );
    func.layout.remove_inst(inst);
    func.dfg.clear_results(inst);
    func.dfg.change_to_alias(result, value);
}
