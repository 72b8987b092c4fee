//! Atomics a target has no instruction for, rewritten in CLIF as compare-and-swap loops on
//! one it has, before the mid-end (as LLVM's `AtomicExpand` pass does before selection):
//!
//! - a read-modify-write the target lacks on its own width (`nand` on GCN) loads the old
//!   value, computes the new one and swaps it in with `atomic_cas`, again from the value the
//!   failed swap returned until a swap succeeds;
//! - a read-modify-write or compare-and-swap on fewer bytes than the narrowest `atomic_cas`
//!   the target has (i8 and i16 on GCN) does the same on the naturally aligned 32-bit word
//!   that contains it, changing only its bytes (little-endian: the byte at address `a` is
//!   bits `8 × (a mod 4)` up of the word).
//!
//! - an atomic on private memory (a stack address, `analysis::stack_addresses`), which no
//!   other work-item can see, becomes the plain load, operation and store it amounts to
//!   (as LLVM lowers atomics on `addrspace(5)`), on every target.
//!
//! The loops are ordinary CLIF: a loop whose exit depends on what each lane's swap
//! returned, which the backends lower as any divergent loop. Each `atomic_cas` is
//! sequentially consistent, so the operation is; where it succeeds is its place in the
//! order. A narrow compare-and-swap that finds other bytes in its field fails at an
//! `atomic_load` or `atomic_cas` that read them, so a failure too is one atomic read.

use crate::analysis::stack_addresses::StackAddresses;
use crate::ir::{self, AtomicRmwOp, InstBuilder, InstructionData, Type, Value, types};
use cranelift_codegen::cursor::{Cursor, FuncCursor};

/// Which atomics the target has instructions for: read-modify-writes by operation, data
/// type and address type (the memory: i64 global, i32 workgroup), compare-and-swap by data
/// and address type. Everything else is expanded where a compare-and-swap allows.
#[derive(Copy, Clone)]
pub struct Native {
    pub rmw: fn(AtomicRmwOp, Type, Type) -> bool,
    pub cas: fn(Type, Type) -> bool,
}

impl Native {
    /// A target on which every atomic is lowered as written (or refused by its backend).
    pub const ALL: Native = Native {
        rmw: |_, _, _| true,
        cas: |_, _| true,
    };
}

/// Rewrites every atomic of `func` that `native` says the target lacks. Types it cannot
/// help with (no native `atomic_cas` of the type or of i32 for narrow ones) are left for
/// the backend to refuse.
pub fn run(func: &mut ir::Function, native: Native) {
    let private = StackAddresses::collect(func);
    let on_stack: Vec<ir::Inst> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| match func.dfg.insts[inst] {
            InstructionData::AtomicRmw {
                args: [addr, _], ..
            }
            | InstructionData::AtomicCas {
                args: [addr, _, _], ..
            }
            | InstructionData::LoadNoOffset {
                opcode: ir::Opcode::AtomicLoad,
                arg: addr,
                ..
            }
            | InstructionData::StoreNoOffset {
                opcode: ir::Opcode::AtomicStore,
                args: [_, addr],
                ..
            } => private.contains(func.dfg.resolve_aliases(addr)),
            _ => false,
        })
        .collect();
    for inst in on_stack {
        make_plain(func, inst);
    }
    let mut todo = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            match func.dfg.insts[inst] {
                InstructionData::AtomicRmw { op, args, .. } => {
                    let ty = func.dfg.ctrl_typevar(inst);
                    let space = func.dfg.value_type(args[0]);
                    if !(native.rmw)(op, ty, space) && expandable(ty, space, native) {
                        todo.push(inst);
                    }
                }
                InstructionData::AtomicCas { args, .. } => {
                    let ty = func.dfg.ctrl_typevar(inst);
                    let space = func.dfg.value_type(args[0]);
                    if !(native.cas)(ty, space) && ty.bytes() < 4 && (native.cas)(types::I32, space)
                    {
                        todo.push(inst);
                    }
                }
                _ => {}
            }
        }
    }
    for inst in todo {
        expand(func, inst);
    }
}

/// Replaces the atomic `inst` on private memory by plain accesses with its flags: a load,
/// the operation and a store for `atomic_rmw`; a load, a compare and a store of the
/// chosen value for `atomic_cas`; a load or a store for `atomic_load`/`atomic_store`.
fn make_plain(func: &mut ir::Function, inst: ir::Inst) {
    let data = func.dfg.insts[inst];
    let mut pos = FuncCursor::new(func).at_inst(inst);
    let result = match data {
        InstructionData::AtomicRmw {
            flags, op, args, ..
        } => {
            let flags = pos.func.dfg.mem_flags[flags];
            let ty = pos.func.dfg.ctrl_typevar(inst);
            let old = pos.ins().load(ty, flags, args[0], 0);
            let new = apply(&mut pos, op, old, args[1]);
            pos.ins().store(flags, new, args[0], 0);
            Some(old)
        }
        InstructionData::AtomicCas { flags, args, .. } => {
            let flags = pos.func.dfg.mem_flags[flags];
            let ty = pos.func.dfg.ctrl_typevar(inst);
            let old = pos.ins().load(ty, flags, args[0], 0);
            let matches = pos.ins().icmp(ir::condcodes::IntCC::Equal, old, args[1]);
            let new = pos.ins().select(matches, args[2], old);
            pos.ins().store(flags, new, args[0], 0);
            Some(old)
        }
        InstructionData::LoadNoOffset { flags, arg, .. } => {
            let flags = pos.func.dfg.mem_flags[flags];
            let ty = pos.func.dfg.ctrl_typevar(inst);
            Some(pos.ins().load(ty, flags, arg, 0))
        }
        InstructionData::StoreNoOffset { flags, args, .. } => {
            let flags = pos.func.dfg.mem_flags[flags];
            pos.ins().store(flags, args[0], args[1], 0);
            None
        }
        _ => unreachable!("only atomics are made plain"),
    };
    if let Some(value) = result {
        let old = pos.func.dfg.first_result(inst);
        pos.func.dfg.clear_results(inst);
        pos.func.dfg.change_to_alias(old, value);
    }
    pos.remove_inst();
}

/// Whether a read-modify-write of `ty` at an address of type `space` can become a loop:
/// on its own width, or on the containing i32 word for i8/i16.
fn expandable(ty: Type, space: Type, native: Native) -> bool {
    ty.is_int() && ((native.cas)(ty, space) || ty.bytes() < 4 && (native.cas)(types::I32, space))
}

/// The position of a narrow field in its 32-bit word: the word's address, the field's
/// bit offset in it (an i32), and the word's mask of the field's bits.
struct Field {
    word: Value,
    shift: Value,
    mask: Value,
}

fn expand(func: &mut ir::Function, inst: ir::Inst) {
    let data = func.dfg.insts[inst];
    let ty = func.dfg.ctrl_typevar(inst);
    let result = func.dfg.first_result(inst);
    let (flags, addr) = match data {
        InstructionData::AtomicRmw { flags, args, .. } => (flags, args[0]),
        InstructionData::AtomicCas { flags, args, .. } => (flags, args[0]),
        _ => unreachable!("only atomics are expanded"),
    };
    let flags = func.dfg.mem_flags[flags];
    // The block splits at the atomic: what comes before jumps into the loop, which leaves
    // to `done`, which holds the rest.
    let head = func
        .layout
        .inst_block(inst)
        .expect("the atomic is in the layout");
    let done = func.dfg.make_block();
    let body = func.dfg.make_block();
    func.layout.split_block(done, inst);
    func.dfg.clear_results(inst);
    let mut pos = FuncCursor::new(func).at_inst(inst);
    pos.remove_inst();
    pos.goto_bottom(head);
    let field = (ty.bytes() < 4).then(|| field(&mut pos, addr, ty));
    let word_ty = if field.is_some() { types::I32 } else { ty };
    let word_addr = field.as_ref().map_or(addr, |f| f.word);
    match data {
        InstructionData::AtomicRmw { op, args, .. } => {
            // The operand in its field's place (and, for `and`, ones around it), computed
            // once before the loop.
            let placed = field.as_ref().map(|f| {
                let placed = place(&mut pos, f, args[1]);
                if op == AtomicRmwOp::And {
                    pos.ins().bor_not(placed, f.mask)
                } else {
                    placed
                }
            });
            let initial = pos.ins().load(word_ty, flags, word_addr, 0);
            pos.ins().jump(body, &[initial.into()]);
            pos.insert_block(body);
            let old = pos.func.dfg.append_block_param(body, word_ty);
            let new = match (&field, placed) {
                (Some(f), Some(placed)) => word_operation(&mut pos, op, f, old, placed)
                    .unwrap_or_else(|| {
                        let shifted = pos.ins().ushr(old, f.shift);
                        let narrow = pos.ins().ireduce(ty, shifted);
                        let updated = apply(&mut pos, op, narrow, args[1]);
                        splice(&mut pos, f, old, updated)
                    }),
                _ => apply(&mut pos, op, old, args[1]),
            };
            let got = pos.ins().atomic_cas(flags, word_addr, old, new);
            let swapped = pos.ins().icmp(ir::condcodes::IntCC::Equal, got, old);
            pos.ins()
                .brif(swapped, done, &[old.into()], body, &[got.into()]);
        }
        InstructionData::AtomicCas { args, .. } => {
            let f = field
                .as_ref()
                .expect("only narrow compare-and-swaps are expanded");
            let expected = place(&mut pos, f, args[1]);
            let replacement = place(&mut pos, f, args[2]);
            let initial = pos.ins().atomic_load(word_ty, flags, word_addr);
            pos.ins().jump(body, &[initial.into()]);
            pos.insert_block(body);
            let current = pos.func.dfg.append_block_param(body, word_ty);
            let bits = pos.ins().band(current, f.mask);
            let matches = pos.ins().icmp(ir::condcodes::IntCC::Equal, bits, expected);
            let attempt = pos.func.dfg.make_block();
            pos.ins()
                .brif(matches, attempt, &[], done, &[current.into()]);
            pos.insert_block(attempt);
            let others = pos.ins().band_not(current, f.mask);
            let new = pos.ins().bor(others, replacement);
            let got = pos.ins().atomic_cas(flags, word_addr, current, new);
            let swapped = pos.ins().icmp(ir::condcodes::IntCC::Equal, got, current);
            pos.ins()
                .brif(swapped, done, &[current.into()], body, &[got.into()]);
        }
        _ => unreachable!("only atomics are expanded"),
    }
    // `done` receives the word the operation read; the CLIF result is its field.
    let first = pos
        .func
        .layout
        .first_inst(done)
        .expect("the rest of the block");
    pos.goto_inst(first);
    match &field {
        None => pos.func.dfg.attach_block_param(done, result),
        Some(f) => {
            let word = pos.func.dfg.append_block_param(done, types::I32);
            let shifted = pos.ins().ushr(word, f.shift);
            pos.ins().with_result(result).ireduce(ty, shifted);
        }
    }
}

/// The new word of a narrow read-modify-write `op` computed on the whole `old` word, where
/// that is shorter than taking the field out and putting it back, as llc-19 does: `placed`
/// is the operand in the field's bits, zero elsewhere (ones elsewhere for `and`). Carries
/// and borrows of `add`/`sub` only run upwards, into bits the mask then drops.
fn word_operation(
    pos: &mut FuncCursor,
    op: AtomicRmwOp,
    f: &Field,
    old: Value,
    placed: Value,
) -> Option<Value> {
    let ins = pos.ins();
    Some(match op {
        AtomicRmwOp::And => ins.band(old, placed),
        AtomicRmwOp::Or => ins.bor(old, placed),
        AtomicRmwOp::Xor => ins.bxor(old, placed),
        AtomicRmwOp::Xchg => {
            let others = ins.band_not(old, f.mask);
            pos.ins().bor(others, placed)
        }
        AtomicRmwOp::Add | AtomicRmwOp::Sub => {
            let wide = if op == AtomicRmwOp::Add {
                ins.iadd(old, placed)
            } else {
                ins.isub(old, placed)
            };
            let field = pos.ins().band(wide, f.mask);
            let others = pos.ins().band_not(old, f.mask);
            pos.ins().bor(others, field)
        }
        _ => return None,
    })
}

/// The word containing the `ty` field at `addr`, the field's shift and its mask. The
/// word's address is `addr` minus the byte's position rather than `addr & !3`: the
/// mid-end computes an operation with an immediate again in every block that uses it,
/// which would put it inside the loop.
fn field(pos: &mut FuncCursor, addr: Value, ty: Type) -> Field {
    let addr_ty = pos.func.dfg.value_type(addr);
    let low = if addr_ty == types::I32 {
        addr
    } else {
        pos.ins().ireduce(types::I32, addr)
    };
    let byte = pos.ins().band_imm_s(low, 3);
    let position = if addr_ty == types::I32 {
        byte
    } else {
        pos.ins().uextend(addr_ty, byte)
    };
    let word = pos.ins().isub(addr, position);
    let shift = pos.ins().ishl_imm_u(byte, 3);
    let ones = pos.ins().iconst(types::I32, ty.bounds(false).1 as i64);
    let mask = pos.ins().ishl(ones, shift);
    Field { word, shift, mask }
}

/// `value` (narrow) moved to its field's bits of a word, zero elsewhere.
fn place(pos: &mut FuncCursor, f: &Field, value: Value) -> Value {
    let wide = pos.ins().uextend(types::I32, value);
    pos.ins().ishl(wide, f.shift)
}

/// `word` with its field replaced by `value` (narrow).
fn splice(pos: &mut FuncCursor, f: &Field, word: Value, value: Value) -> Value {
    let placed = place(pos, f, value);
    let others = pos.ins().band_not(word, f.mask);
    pos.ins().bor(others, placed)
}

/// The new value of a read-modify-write `op` from the `old` one and the operand.
fn apply(pos: &mut FuncCursor, op: AtomicRmwOp, old: Value, operand: Value) -> Value {
    let ins = pos.ins();
    match op {
        AtomicRmwOp::Add => ins.iadd(old, operand),
        AtomicRmwOp::Sub => ins.isub(old, operand),
        AtomicRmwOp::And => ins.band(old, operand),
        AtomicRmwOp::Nand => {
            let and = ins.band(old, operand);
            pos.ins().bnot(and)
        }
        AtomicRmwOp::Or => ins.bor(old, operand),
        AtomicRmwOp::Xor => ins.bxor(old, operand),
        AtomicRmwOp::Xchg => operand,
        AtomicRmwOp::Umin => ins.umin(old, operand),
        AtomicRmwOp::Umax => ins.umax(old, operand),
        AtomicRmwOp::Smin => ins.smin(old, operand),
        AtomicRmwOp::Smax => ins.smax(old, operand),
    }
}
