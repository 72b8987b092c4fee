//! One exit block per divergent loop (`docs/nv50.md`, "Placing joinat and join"): a
//! `break` continues at the one block its loop's `breakaddr` names, so a loop with divergent
//! code whose exits lead to several blocks, or leave an enclosing loop too, first gets an
//! exit block. Every such exit then goes there instead, passing the number of the exit
//! taken, the arguments of its destination and the loop's values that are used after it;
//! the exit block dispatches on the number (a `br_table`) to the old destinations.
//!
//! The exit block of a loop nested in another has an extra, never taken, default
//! destination: the enclosing loop's header. That keeps the exit block inside the enclosing
//! loop, so that an exit leaving both loops is a `break` of the inner one, then one of the
//! outer one from the exit block.
//!
//! This runs on a copy of the CLIF function before the analyses; the values used after the
//! loop are renamed to the exit block's parameters, the paths where a value is not defined
//! passing a zero of its type (no use reads it there: the value dominates its uses).
//! Exits into a private tail (`reconverge::is_private_tail`) stay as they are.

use super::reconverge::{collective_blocks, divergent_loops, is_private_tail};
use super::uniform_values;
use crate::FunctionKind;
use crate::analysis::cfg::{Cfg, destinations};
use crate::analysis::stack_addresses::StackAddresses;
use crate::ir::{self, BlockArg, InstBuilder, JumpTableData, Type, Value, types};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Gives each divergent loop of `func` that needs one an exit block; `Err` names what
/// cannot be passed through one.
pub fn run(func: &mut ir::Function, kind: FunctionKind) -> Result<(), String> {
    // Each round gives one loop (the innermost that needs it) its exit block; the exit
    // block may make its enclosing loop divergent, which a later round sees.
    let rounds = func.layout.blocks().count() + 1;
    for _ in 0..rounds {
        let cfg = Cfg::new(func)?;
        let stack = StackAddresses::collect(func);
        let uniformity = uniform_values::analyze(func, &cfg, kind, &stack);
        let loops = divergent_loops(&cfg, &uniformity);
        let collective = collective_blocks(func, &cfg);
        let mut by_depth: Vec<usize> = loops.iter().copied().collect();
        by_depth.sort_by_key(|&h| std::cmp::Reverse(cfg.loops[h].len()));
        let Some((h, exits)) = by_depth
            .into_iter()
            .find_map(|h| exits_needing_block(&cfg, &collective, h).map(|e| (h, e)))
        else {
            return Ok(());
        };
        add_exit_block(func, &cfg, &collective, h, &exits)?;
    }
    Err("internal error: loop exit blocks did not converge".into())
}

/// An exit edge: the terminator, the index of the destination among its destinations, and
/// the destination block (CFG index).
type Exit = (ir::Inst, usize, usize);

/// The exit edges of the loop with header `h` that must go through an exit block, if any:
/// those that are not into a private tail, when they lead to several blocks or one of them
/// leaves the enclosing loop too.
fn exits_needing_block(
    cfg: &Cfg,
    collective: &BTreeSet<usize>,
    h: usize,
) -> Option<Vec<(usize, usize)>> {
    let parent = cfg.loops[h].len().checked_sub(2).map(|d| cfg.loops[h][d]);
    let mut exits = Vec::new();
    for b in (0..cfg.len()).filter(|&b| cfg.in_loop(b, h)) {
        for (k, &t) in cfg.succs[b].iter().enumerate() {
            if cfg.in_loop(t, h) {
                continue;
            }
            let outermost = cfg.loops[b]
                .iter()
                .copied()
                .find(|&l| !cfg.in_loop(t, l))
                .expect("the edge leaves `h`");
            if !is_private_tail(cfg, collective, t, outermost) {
                exits.push((b, k));
            }
        }
    }
    let targets: BTreeSet<usize> = exits.iter().map(|&(b, k)| cfg.succs[b][k]).collect();
    let leaves_parent = parent.is_some_and(|p| targets.iter().any(|&t| !cfg.in_loop(t, p)));
    (targets.len() > 1 || leaves_parent).then_some(exits)
}

fn add_exit_block(
    func: &mut ir::Function,
    cfg: &Cfg,
    collective: &BTreeSet<usize>,
    h: usize,
    exits: &[(usize, usize)],
) -> Result<(), String> {
    let parent = cfg.loops[h].len().checked_sub(2).map(|d| cfg.loops[h][d]);
    // The exits as terminators and destination indices; the destinations in order.
    let mut edges: Vec<Exit> = Vec::new();
    let mut targets: Vec<usize> = Vec::new();
    for &(b, k) in exits {
        let inst = func.layout.last_inst(cfg.order[b]).expect("a terminator");
        let t = cfg.succs[b][k];
        edges.push((inst, k, t));
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    let escaping: Vec<Value> = cfg.escaping(h).to_vec();
    let exit = func.dfg.make_block();
    func.layout.append_block(exit);
    let sel = func.dfg.append_block_param(exit, types::I32);
    // Slots: each destination's parameters (in the order of `targets`, which the block's
    // parameters and every jump to it follow), then the escaping values.
    let mut slots: Vec<(usize, Vec<Value>)> = Vec::new();
    for &t in &targets {
        let params: Vec<Type> = func
            .dfg
            .block_params(cfg.order[t])
            .iter()
            .map(|&p| func.dfg.value_type(p))
            .collect();
        let vals = params
            .into_iter()
            .map(|ty| func.dfg.append_block_param(exit, ty))
            .collect();
        slots.push((t, vals));
    }
    let renamed: Vec<Value> = escaping
        .iter()
        .map(|&v| {
            let ty = func.dfg.value_type(v);
            func.dfg.append_block_param(exit, ty)
        })
        .collect();
    // Zeros for the slots an exit does not fill, defined at the top of the entry block.
    let mut zeros: HashMap<Type, Value> = HashMap::new();
    let entry = func.layout.entry_block().expect("checked by Cfg::new");
    let exit_types: Vec<Type> = func
        .dfg
        .block_params(exit)
        .iter()
        .map(|&p| func.dfg.value_type(p))
        .collect();
    let header_types: Vec<Type> = parent
        .map(|p| {
            func.dfg
                .block_params(cfg.order[p])
                .iter()
                .map(|&v| func.dfg.value_type(v))
                .collect()
        })
        .unwrap_or_default();
    for ty in exit_types.into_iter().chain(header_types) {
        if zeros.contains_key(&ty) {
            continue;
        }
        let first = func
            .layout
            .first_inst(entry)
            .expect("a terminator at least");
        let mut pos = FuncCursor::new(func).at_inst(first);
        let zero = match ty {
            types::I8 | types::I16 | types::I32 | types::I64 => pos.ins().iconst(ty, 0),
            types::F32 => pos.ins().f32const(0.0),
            types::F64 => pos.ins().f64const(0.0),
            _ => {
                return Err(format!(
                    "a value of type {ty} leaves the loop at {} through its exit block, which \
                     is not supported",
                    cfg.order[h]
                ));
            }
        };
        zeros.insert(ty, zero);
    }
    let zero_of = |func: &ir::Function, v: Value| zeros[&func.dfg.value_type(v)];
    // Redirect the exits.
    for &(inst, k, t) in &edges {
        let block = func.layout.inst_block(inst).expect("in the layout");
        let b = cfg.index[block].expect("reachable");
        let number = targets.iter().position(|&x| x == t).expect("listed") as i64;
        let mut pos = FuncCursor::new(func).at_inst(inst);
        let number = pos.ins().iconst(types::I32, number);
        let old_args: Vec<BlockArg> = destinations(func, inst)[k].1.clone();
        let mut args = vec![BlockArg::Value(number)];
        for (x, vals) in &slots {
            if *x == t {
                args.extend(old_args.iter().copied());
            } else {
                args.extend(vals.iter().map(|&p| BlockArg::Value(zero_of(func, p))));
            }
        }
        for &v in &escaping {
            let defined = match func.dfg.value_def(v) {
                ir::ValueDef::Result(i, _) => func.layout.inst_block(i),
                ir::ValueDef::Param(bl, _) => Some(bl),
                _ => None,
            }
            .and_then(|bl| cfg.index[bl])
            .is_some_and(|d| cfg.dominates(d, b));
            args.push(BlockArg::Value(if defined { v } else { zero_of(func, v) }));
        }
        let call = func.dfg.block_call(exit, &args);
        let dfg = &mut func.dfg;
        dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables)
            [k] = call;
    }
    // The dispatch: entry `n` goes where the exits numbered `n` went.
    let table: Vec<ir::BlockCall> = slots
        .iter()
        .map(|(t, vals)| {
            let args: Vec<BlockArg> = vals.iter().map(|&p| BlockArg::Value(p)).collect();
            func.dfg.block_call(cfg.order[*t], &args)
        })
        .collect();
    let default = match parent {
        Some(p) => {
            let args: Vec<BlockArg> = func
                .dfg
                .block_params(cfg.order[p])
                .to_vec()
                .into_iter()
                .map(|v| BlockArg::Value(zero_of(func, v)))
                .collect();
            func.dfg.block_call(cfg.order[p], &args)
        }
        None => *table.last().expect("at least one exit"),
    };
    let jt = func.create_jump_table(JumpTableData::new(default, &table));
    FuncCursor::new(func)
        .at_bottom(exit)
        .ins()
        .br_table(sel, jt);
    // Uses after the loop read the exit block's parameters; private tails keep theirs.
    let tails: BTreeSet<usize> = private_tail_blocks(cfg, collective, h);
    let map: BTreeMap<Value, Value> = escaping.iter().copied().zip(renamed).collect();
    let blocks: Vec<ir::Block> = func.layout.blocks().collect();
    for block in blocks {
        if block == exit {
            continue;
        }
        let Some(x) = cfg.index[block] else { continue };
        if cfg.in_loop(x, h) || tails.contains(&x) {
            continue;
        }
        let insts: Vec<ir::Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |v| map.get(&v).copied().unwrap_or(v));
        }
    }
    Ok(())
}

/// The blocks of the private tails the loop with header `h` exits into.
fn private_tail_blocks(cfg: &Cfg, collective: &BTreeSet<usize>, h: usize) -> BTreeSet<usize> {
    let mut tails = BTreeSet::new();
    for b in (0..cfg.len()).filter(|&b| cfg.in_loop(b, h)) {
        for &t in &cfg.succs[b] {
            if cfg.in_loop(t, h) {
                continue;
            }
            let outermost = cfg.loops[b]
                .iter()
                .copied()
                .find(|&l| !cfg.in_loop(t, l))
                .expect("the edge leaves `h`");
            if is_private_tail(cfg, collective, t, outermost) {
                let mut work = vec![t];
                while let Some(x) = work.pop() {
                    if tails.insert(x) {
                        work.extend(cfg.succs[x].iter().copied());
                    }
                }
            }
        }
    }
    tails
}
