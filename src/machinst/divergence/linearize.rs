//! Lowering of functions with divergent branches by *mask linearization* (see
//! `docs/decisions.md`, "Control flow").
//!
//! The blocks run one after another in the order of [`Layout`] (loops contiguous), each
//! with EXEC set to its lane mask: the lanes that branched to it. A branch does not
//! jump: each edge ORs its lanes (`exec & condition`) into its target's mask, and
//! writes its block arguments into the target's pending parameters with masked moves
//! (each tied to the previous version, so that the other lanes keep theirs and SSA
//! holds along the linear order). The first edge into a target in each iteration of the
//! loop around it sets the mask and defines the parameters with plain moves instead. A
//! loop ends in a latch that sets EXEC to the header's mask (the lanes that took a back
//! edge this iteration) and branches back while it is not empty. Values defined in a
//! loop and used after it are copied, by masked moves, on the loop's exit edges;
//! `return` is an edge to one exit block after every other.
//!
//! regalloc2 sees this linear CFG, so a VGPR holding a value for lanes that are off is
//! live across the blocks in between and is never reused there; its moves copy whole
//! waves ([`LinearInst::gen_wave_move`], which the target passes to the allocator).
//!
//! Lane masks live in fixed registers outside the allocator, coloured by their live ranges
//! in the linear order: the first [`LinearBackend::mask_registers`] colours are registers,
//! and masks that do not fit there (deep nests, wide `br_table`s) are kept in spill slots
//! the backend provides (GCN: lanes of a VGPR).

use super::linear_layout::Layout;
use crate::CompileError;
use crate::analysis::cfg::{Cfg, destinations};
use crate::machinst::lower::{Lower, LowerBackend, lower_value_inst};
use crate::machinst::{MachInst, Reg, RegClass, RegFile, VBlock, VCode};
use cranelift_codegen::ir::{self, Opcode, Value};
use std::collections::{HashMap, HashSet};

/// What a target's instructions supply to linearized code, besides [`MachInst`].
pub trait LinearInst: MachInst {
    /// A copy of every lane of the wave, whatever the current lane mask: the move the
    /// allocator inserts in linearized code, where registers hold values of lanes that are
    /// off (`regalloc::run` takes it in place of [`MachInst::gen_move`]).
    fn gen_wave_move(dst: Reg, src: Reg) -> Self;
}

/// What a target supplies to lower linearized code, besides [`LowerBackend`].
pub trait LinearBackend: LowerBackend<MInst: LinearInst> {
    /// Whether `value` is uniform as the target lowers it, one value for the whole wave
    /// (a loop's uniform values need no copies at its exits).
    fn is_uniform(&self, value: Value) -> bool;
    /// The register file of divergent values.
    fn vector_file(&self) -> RegFile;
    /// How many lane masks may live in registers; mask `k` from there on is spill slot
    /// `k - mask_registers()`. Each method below names a mask by its number `k`.
    fn mask_registers(&self) -> usize;
    /// How many lane masks may live in spill slots at once; a function that needs more is
    /// a register-exhaustion error.
    fn mask_slot_limit(&self) -> usize;
    /// At the entry, after `lower_entry`: remembers the lanes the function runs for.
    fn save_entry_lanes(&self, ctx: &mut Lower<'_, Self::MInst>);
    /// At a block's start: EXEC = `mask`.
    fn enter_block(&self, ctx: &mut Lower<'_, Self::MInst>, mask: usize);
    /// At the start of a block whose only edge comes from the block just before it, where
    /// EXEC still holds that block's lanes: EXEC &= `lanes`, the edge's lanes (computed
    /// there, as [`LinearBackend::edge_lanes`] gave them).
    fn narrow_lanes(&self, ctx: &mut Lower<'_, Self::MInst>, lanes: Lanes);
    fn clear_mask(&self, ctx: &mut Lower<'_, Self::MInst>, mask: usize);
    /// A lane mask of all active lanes (EXEC).
    fn active_lanes(&self) -> Reg;
    /// The lanes taking each destination of the terminator `inst` (in the order of
    /// `destinations`; one, all active lanes, for a `return`). `added[j]` says whether
    /// destination `j`'s lanes will be added to a mask ([`LinearBackend::add_lanes`]),
    /// rather than set a mask or narrow EXEC: a target may choose the form of the lanes
    /// that makes that cheapest.
    fn edge_lanes(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        inst: ir::Inst,
        added: &[bool],
    ) -> Result<Vec<Lanes>, CompileError>;
    /// `mask = lanes`; returns a lane mask of `lanes`.
    fn set_lanes(&self, ctx: &mut Lower<'_, Self::MInst>, mask: usize, lanes: Lanes) -> Reg;
    /// A lane mask of `lanes` (for the masked moves of an edge whose target's mask holds
    /// its lanes already).
    fn lanes_reg(&self, ctx: &mut Lower<'_, Self::MInst>, lanes: Lanes) -> Reg;
    /// `mask |= lanes`; returns a lane mask of `lanes`.
    fn add_lanes(&self, ctx: &mut Lower<'_, Self::MInst>, mask: usize, lanes: Lanes) -> Reg;
    /// A register of `class` with no defined value (the start of a pending value).
    fn undef(&self, ctx: &mut Lower<'_, Self::MInst>, file: RegFile, class: RegClass) -> Reg;
    /// `old` with `src` in the lanes of `lanes`: a new register tied to `old`.
    fn masked_move(&self, ctx: &mut Lower<'_, Self::MInst>, old: Reg, src: Reg, lanes: Reg) -> Reg;
    /// A loop latch: EXEC = `mask` (unless `None`: EXEC holds the lanes that continue),
    /// then branch to `back` if any lane is on, else to `out`.
    fn latch(&self, ctx: &mut Lower<'_, Self::MInst>, mask: Option<usize>, back: usize, out: usize);
    /// Whether lanes may leave the function before its `return` (a fragment shader's
    /// `discard`). Then no join or loop exit takes its lanes to be all those of the block
    /// before its branch: their masks are built from the edges that reach them, which the
    /// lanes that left take no more.
    fn lanes_may_leave(&self) -> bool {
        false
    }
    /// The exit block: every lane back on (each lane that entered returns), and the
    /// function's return with `values`.
    fn exit(
        &self,
        ctx: &mut Lower<'_, Self::MInst>,
        values: &[(Reg, ir::Type)],
    ) -> Result<(), CompileError>;
}

/// Linearized code, and the lane masks it keeps outside the allocator: the target places
/// them (registers before the allocator's, spill slots where it keeps them) and allocates
/// with [`LinearInst::gen_wave_move`] as the allocator's move.
pub struct Linearized<I> {
    pub vcode: VCode<I>,
    pub masks: Masks,
}

/// How many lane masks linearized code keeps in registers and in spill slots (numbered as
/// [`LinearBackend::mask_registers`] says).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// How many mask registers the blocks use.
    pub registers: usize,
    /// How many spill slots hold masks that found no register.
    pub slots: usize,
}

/// The lanes taking an edge: some of the active lanes.
#[derive(Copy, Clone, Debug)]
pub enum Lanes {
    /// All of them (a `jump` or a `return`).
    All,
    /// Those in which a lane mask is set.
    Where(Reg),
    /// Those in which a lane mask is clear.
    WhereNot(Reg),
    /// Those in which a 32-bit register equals a constant (a `br_table` entry, compared
    /// where its target's mask is updated, so that no comparison lives longer).
    Case(Reg, u32),
}

/// A value collected from several edges: a block parameter of a non-header block
/// (`Param`), of a loop header from outside (`Fwd`) or from its back edges (`Back`), a
/// return value (`Param` of the exit), or a value leaving a loop (`Exit`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    Param(usize, usize),
    Fwd(usize, usize),
    Back(usize, usize),
    Exit(Value, usize),
}

struct Var {
    class: RegClass,
    /// Its current version while lowering.
    cur: Option<Reg>,
}

/// What the linear walk does where: computed before lowering from the CFG.
struct Plan {
    /// The exit block's index among targets (after the CFG's blocks).
    exit: usize,
    vars: Vec<Var>,
    keys: HashMap<Key, usize>,
    /// Variables and masks started at the beginning of each block (by CFG index; the
    /// entry also starts those of the whole function).
    var_inits: Vec<Vec<usize>>,
    /// (Each mask's number, and whether it starts as EXEC rather than empty: `whole_exit`.)
    mask_inits: Vec<Vec<(usize, bool)>>,
    /// The blocks whose one edge is the only way out of the loop (or nest of loops) it
    /// leaves, entered by `fallthrough` ([`takes_whole_loop`]): every lane entering the
    /// loop leaves by that edge, so their mask starts as EXEC before the loop, and the edge
    /// adds nothing to it.
    whole_exit: Vec<bool>,
    /// The joins that every lane of their immediate dominator reaches, and no other
    /// ([`joins_whole`]): their mask is set to EXEC at the end of that block, and their
    /// edges add nothing to it. `join_sets` lists them by that block.
    whole_join: Vec<bool>,
    join_sets: Vec<Vec<usize>>,
    /// The edges (block, destination index) that start their target's lanes and pending
    /// parameters in each run of their scope, setting them rather than adding to them
    /// (see [`first_edges`]).
    starts: HashSet<(usize, usize)>,
    /// The loop headers that clear their mask on entry (for the back edges of the
    /// iteration) because no back edge can set it.
    resets: Vec<bool>,
    /// The blocks whose only edge from outside their loop is a `jump` from the block
    /// just before them: EXEC is already their lanes (or those of the loop's first
    /// iteration), so that edge and their start leave the mask alone.
    fallthrough: Vec<bool>,
    /// The blocks (not loop headers) entered by one edge, a conditional one from the block
    /// just before them: EXEC is that block's lanes at their start, so they narrow it to
    /// the edge's lanes ([`LinearBackend::narrow_lanes`]) and need no mask.
    narrowed: Vec<bool>,
    /// The lanes of each `narrowed` block's edge, from its branch to its start.
    narrowing: Vec<Option<Lanes>>,
    /// The loop headers whose only back edge is a `jump` from the loop's last block, just
    /// before its latch: EXEC is the lanes that continue already, so the latch need not
    /// set it (and with `fallthrough`, the header's mask is not needed at all).
    back_jump: Vec<bool>,
    /// The loop headers entered by `fallthrough` whose only back edge is a conditional one
    /// from the loop's last block: the latch narrows EXEC to that edge's lanes itself
    /// ([`LinearBackend::narrow_lanes`]), so the header needs no mask, and the moves of
    /// the carriers ([`carries_out`]) on that edge are made in the latch, under EXEC.
    back_narrow: Vec<bool>,
    /// For each `back_narrow` header, the lanes of its back edge, from its branch to the
    /// latch, and the carriers' moves waiting there: (variable, argument).
    latch_narrowing: Vec<Option<Lanes>>,
    latch_moves: Vec<Vec<(usize, Reg)>>,
    /// Variables that are parameters of each loop header (defined in the loop, pending
    /// past it).
    header_vars: Vec<Vec<usize>>,
    /// Each block's mask number (registers first, then spill slots).
    mask_of: Vec<usize>,
    /// Mask registers and spill slots used.
    masks: usize,
    mask_slots: usize,
    /// For each loop header, the values leaving its loop: (value, the block defining it,
    /// its variable).
    exit_vars: Vec<Vec<(Value, usize, usize)>>,
    /// For each loop header, its parameters that leave its loop, carried out by their own
    /// back-edge variables: (parameter index, variable); see [`carries_out`].
    carried: Vec<Vec<(usize, usize)>>,
    /// Whether each variable is such a carrier: every edge writes it with a masked move.
    carrier: Vec<bool>,
    /// Whether each carrier carries out the argument of its loop's one back edge, which
    /// the loop's one exit edge (from the same `brif`) takes out as well
    /// ([`carries_latch_value`]): it is written under all the lanes of that block.
    carrier_of_latch: Vec<bool>,
}

fn class_of(ty: ir::Type) -> Option<RegClass> {
    match ty.bits() {
        _ if ty.is_vector() => None,
        1..=32 => Some(RegClass::Int),
        64 => Some(RegClass::Float),
        _ => None,
    }
}

/// A terminator's destinations: (target, arguments), the exit (`cfg.len()`) for `return`.
type Dests = Vec<(usize, Vec<Value>)>;

/// Each block's terminator and its destinations.
fn edges(func: &ir::Function, cfg: &Cfg) -> Vec<(ir::Inst, Dests)> {
    let exit = cfg.len();
    cfg.order
        .iter()
        .map(|&block| {
            let term = func
                .layout
                .last_inst(block)
                .expect("blocks end in a terminator");
            let dests = if func.dfg.insts[term].opcode() == Opcode::Return {
                vec![(exit, func.dfg.inst_args(term).to_vec())]
            } else {
                destinations(func, term)
                    .into_iter()
                    .map(|(t, args)| {
                        let values = args
                            .iter()
                            .filter_map(|a| match *a {
                                ir::BlockArg::Value(v) => Some(v),
                                _ => None,
                            })
                            .collect();
                        (cfg.index[t].expect("reachable"), values)
                    })
                    .collect()
            };
            (term, dests)
        })
        .collect()
}

impl Plan {
    fn new<B: LinearBackend>(
        func: &ir::Function,
        cfg: &Cfg,
        layout: &Layout,
        backend: &B,
    ) -> Result<Plan, CompileError> {
        let n = cfg.len();
        let exit = n;
        let edges = edges(func, cfg);
        // The loops containing a target's consumption point.
        let consumed_in = |key: Key| -> Vec<usize> {
            match key {
                Key::Param(t, _) if t == exit => Vec::new(),
                Key::Param(t, _) | Key::Back(t, _) => cfg.loops[t].clone(),
                Key::Fwd(h, _) | Key::Exit(_, h) => {
                    let l = &cfg.loops[h];
                    l[..l.len() - 1].to_vec()
                }
            }
        };
        // Variables and their contributing blocks.
        let mut keys = HashMap::new();
        let mut var_list: Vec<(Key, RegClass, Vec<usize>)> = Vec::new();
        fn add(
            keys: &mut HashMap<Key, usize>,
            var_list: &mut Vec<(Key, RegClass, Vec<usize>)>,
            key: Key,
            class: RegClass,
            from: usize,
        ) {
            let id = *keys.entry(key).or_insert_with(|| {
                var_list.push((key, class, Vec::new()));
                var_list.len() - 1
            });
            var_list[id].2.push(from);
        }
        let param_class = |v: Value| {
            class_of(func.dfg.value_type(v)).ok_or_else(|| {
                CompileError::new(
                    func,
                    format!(
                        "block parameters of type {} are not supported",
                        func.dfg.value_type(v)
                    ),
                )
            })
        };
        let ret_types: Vec<ir::Type> = func
            .signature
            .returns
            .iter()
            .map(|r| r.value_type)
            .collect();
        for (p, (_, dests)) in edges.iter().enumerate() {
            for (t, args) in dests {
                for (i, _) in args.iter().enumerate() {
                    let (key, class) = if *t == exit {
                        let class = class_of(ret_types[i]).ok_or_else(|| {
                            CompileError::new(func, "return values of this type are not supported")
                        })?;
                        (Key::Param(exit, i), class)
                    } else {
                        let param = func.dfg.block_params(cfg.order[*t])[i];
                        let key = if !layout.is_header(*t) {
                            Key::Param(*t, i)
                        } else if cfg.in_loop(p, *t) {
                            Key::Back(*t, i)
                        } else {
                            Key::Fwd(*t, i)
                        };
                        (key, param_class(param)?)
                    };
                    add(&mut keys, &mut var_list, key, class, p);
                }
            }
        }
        let firsts = first_edges(cfg, layout, &edges);
        // Values leaving loops; a header's parameter may leave in its back-edge variable.
        let mut exit_vars = vec![Vec::new(); n];
        let mut carried = vec![Vec::new(); n];
        let mut whole_block = Vec::new();
        for h in (0..n).filter(|&h| layout.is_header(h)) {
            let params = func.dfg.block_params(cfg.order[h]);
            let exits: Vec<usize> = loop_blocks(layout, h)
                .into_iter()
                .filter(|&p| {
                    edges[p]
                        .1
                        .iter()
                        .any(|(t, _)| *t != exit && !cfg.in_loop(*t, h))
                })
                .collect();
            for (v, b) in defined_in_loop(func, cfg, layout, h) {
                if backend.is_uniform(v) || !cfg.used_outside_loop(v, h) {
                    continue;
                }
                let Some(class) = class_of(func.dfg.value_type(v)) else {
                    return Err(CompileError::new(
                        func,
                        format!(
                            "{v} of type {} leaves a divergent loop, which is not supported",
                            func.dfg.value_type(v)
                        ),
                    ));
                };
                if let Some(i) = params.iter().position(|&p| p == v)
                    && let Some(&id) = keys.get(&Key::Back(h, i))
                    && carries_out(func, cfg, layout, &edges, &firsts, h, i)
                {
                    carried[h].push((i, id));
                    exit_vars[h].push((v, b, id));
                    continue;
                }
                if let Some(i) = carries_latch_value(func, cfg, layout, &edges, h, v)
                    && !carried[h].iter().any(|&(k, _)| k == i)
                    && let Some(&id) = keys.get(&Key::Back(h, i))
                {
                    carried[h].push((i, id));
                    exit_vars[h].push((v, b, id));
                    whole_block.push(id);
                    continue;
                }
                for &p in &exits {
                    add(&mut keys, &mut var_list, Key::Exit(v, h), class, p);
                }
                if let Some(&id) = keys.get(&Key::Exit(v, h)) {
                    exit_vars[h].push((v, b, id));
                }
            }
        }
        let mut carrier = vec![false; var_list.len()];
        for &(_, id) in carried.iter().flatten() {
            carrier[id] = true;
        }
        let mut carrier_of_latch = vec![false; var_list.len()];
        for id in whole_block {
            carrier_of_latch[id] = true;
        }
        let mut var_inits = vec![Vec::new(); n];
        let mut header_vars = vec![Vec::new(); n];
        let mut vars = Vec::new();
        for (id, (key, class, from)) in var_list.iter().enumerate() {
            let consumed = consumed_in(*key);
            // The edge starting a parameter defines it; otherwise it starts undefined
            // just before the loop in its scope whose iterations collect it (values leaving
            // a loop always do; see `start_block`).
            let first = match *key {
                Key::Param(t, _) | Key::Fwd(t, _) => firsts.get(&(t, false)),
                Key::Back(t, _) => firsts.get(&(t, true)),
                Key::Exit(..) => None,
            };
            if !first.is_some_and(|f| f.settable) && !carrier[id] {
                var_inits[start_block(cfg, layout, consumed.last().copied(), from)].push(id);
            }
            let mut headers: Vec<usize> = from
                .iter()
                .flat_map(|&p| cfg.loops[p].iter().copied())
                .filter(|h| !consumed.contains(h))
                .collect();
            headers.sort_unstable();
            headers.dedup();
            for h in headers {
                header_vars[h].push(id);
            }
            vars.push(Var {
                class: *class,
                cur: None,
            });
        }
        // Masks: one per block, live from the edge that sets it, or else from the block
        // before the loop whose iterations add to it (`start_block`), where it is cleared, to
        // the consumption; coloured greedily. (Positions: 4 per block, so that a mask read
        // at a block's start and one set at its end may share a register.) The exit block
        // needs none: every lane returns.
        let starts: HashSet<(usize, usize)> = firsts
            .values()
            .filter(|f| f.settable)
            .map(|f| f.edge)
            .collect();
        let mut fallthrough = vec![false; n];
        let mut ends_loop = vec![false; n];
        for e in layout.loop_end.iter().flatten() {
            ends_loop[*e] = true;
        }
        for (&p, &t) in layout.order.iter().zip(&layout.order[1..]) {
            fallthrough[t] = !ends_loop[layout.pos[p]]
                && edges[p].1.len() == 1
                && firsts[&(t, false)].edge == (p, 0);
        }
        let mut edges_into = vec![0usize; n + 1];
        for (t, _) in edges.iter().flat_map(|(_, dests)| dests) {
            edges_into[*t] += 1;
        }
        let mut narrowed = vec![false; n];
        for (&p, &t) in layout.order.iter().zip(&layout.order[1..]) {
            narrowed[t] = !ends_loop[layout.pos[p]]
                && !layout.is_header(t)
                && edges_into[t] == 1
                && edges[p].1.len() > 1
                && edges[p].1.iter().any(|(d, _)| *d == t);
        }
        let mut back_jump = vec![false; n];
        for h in (0..n).filter(|&h| layout.is_header(h)) {
            let p = layout.order[layout.loop_end[h].expect("header")];
            back_jump[h] = cfg.loops[p].last() == Some(&h)
                && edges[p].1.len() == 1
                && firsts[&(h, true)].edge == (p, 0);
        }
        let mut back_edges_into = vec![0usize; n];
        for (p, (_, dests)) in edges.iter().enumerate() {
            for &(t, _) in dests {
                if t != exit && layout.is_header(t) && cfg.in_loop(p, t) {
                    back_edges_into[t] += 1;
                }
            }
        }
        let mut back_narrow = vec![false; n];
        for h in (0..n).filter(|&h| layout.is_header(h)) {
            let p = layout.order[layout.loop_end[h].expect("header")];
            back_narrow[h] = fallthrough[h]
                && back_edges_into[h] == 1
                && cfg.loops[p].last() == Some(&h)
                && edges[p].1.len() > 1
                && edges[p].1.iter().any(|&(t, _)| t == h);
        }
        let whole = !backend.lanes_may_leave();
        let whole_exit: Vec<bool> = (0..n)
            .map(|t| {
                whole
                    && t > 0
                    && takes_whole_loop(cfg, layout, &edges, &fallthrough, &edges_into, t)
            })
            .collect();
        let whole_join: Vec<bool> = (0..n)
            .map(|t| {
                whole
                    && t > 0
                    && !layout.is_header(t)
                    && edges_into[t] > 1
                    && joins_whole(cfg, &edges, t)
            })
            .collect();
        let mut join_sets = vec![Vec::new(); n];
        for t in (0..n).filter(|&t| whole_join[t]) {
            join_sets[cfg.idom[t]].push(t);
        }
        let mut resets = vec![false; n];
        let mut intervals = Vec::new();
        for t in 1..n {
            let header = layout.is_header(t);
            if header {
                resets[t] = !firsts[&(t, true)].settable;
            }
            if narrowed[t] || fallthrough[t] && (!header || back_jump[t] || back_narrow[t]) {
                continue;
            }
            let end = match header {
                true => 4 * layout.loop_end[t].expect("header") + 3,
                false => 4 * layout.pos[t],
            };
            let first = &firsts[&(t, false)];
            let (start, clear_at) = if fallthrough[t] {
                (4 * layout.pos[t] + 1, None)
            } else if whole_join[t] {
                (4 * layout.pos[cfg.idom[t]] + 2, None)
            } else if first.settable {
                (4 * layout.pos[first.edge.0] + 2, None)
            } else {
                let scope = start_block(cfg, layout, first.scope, &[first.edge.0]);
                (4 * layout.pos[scope] + 1, Some(scope))
            };
            intervals.push((start, end, t, clear_at));
        }
        intervals.sort_unstable();
        // Registers by linear scan; when none is free, the mask live longest (the new one
        // or an earlier one) goes to a spill slot for its whole range.
        let limit = backend.mask_registers();
        let mut in_reg: Vec<Option<usize>> = vec![None; intervals.len()];
        let mut holder: Vec<Option<usize>> = Vec::new();
        for (i, &(start, end, ..)) in intervals.iter().enumerate() {
            let free =
                (0..holder.len()).find(|&k| holder[k].is_none_or(|h| intervals[h].1 < start));
            let k = match free {
                Some(k) => k,
                None if holder.len() < limit => {
                    holder.push(None);
                    holder.len() - 1
                }
                None => {
                    let Some(k) = (0..holder.len())
                        .max_by_key(|&k| holder[k].map(|h| intervals[h].1))
                        .filter(|&k| holder[k].is_some_and(|h| intervals[h].1 > end))
                    else {
                        continue;
                    };
                    in_reg[holder[k].expect("held")] = None;
                    k
                }
            };
            holder[k] = Some(i);
            in_reg[i] = Some(k);
        }
        let mut slot_free_after: Vec<usize> = Vec::new();
        let mut mask_of = vec![0; n];
        let mut mask_inits = vec![Vec::new(); n];
        for (i, &(start, end, t, clear_at)) in intervals.iter().enumerate() {
            let k = match in_reg[i] {
                Some(k) => k,
                None => {
                    let s = match slot_free_after.iter().position(|&e| e < start) {
                        Some(s) => s,
                        None => {
                            slot_free_after.push(0);
                            slot_free_after.len() - 1
                        }
                    };
                    slot_free_after[s] = end;
                    limit + s
                }
            };
            mask_of[t] = k;
            if let Some(scope) = clear_at {
                mask_inits[scope].push((k, whole_exit[t]));
            }
        }
        if slot_free_after.len() > backend.mask_slot_limit() {
            return Err(CompileError::new(
                func,
                format!(
                    "register exhaustion: {} lane masks are live at once, more than the {} \
                     registers and {} spill slots there are for them",
                    limit + slot_free_after.len(),
                    limit,
                    backend.mask_slot_limit()
                ),
            ));
        }
        Ok(Plan {
            exit,
            vars,
            keys,
            var_inits,
            mask_inits,
            whole_exit,
            whole_join,
            join_sets,
            starts,
            resets,
            fallthrough,
            narrowed,
            narrowing: vec![None; n],
            back_jump,
            back_narrow,
            latch_narrowing: vec![None; n],
            latch_moves: vec![Vec::new(); n],
            header_vars,
            mask_of,
            masks: holder.len(),
            mask_slots: slot_free_after.len(),
            exit_vars,
            carried,
            carrier,
            carrier_of_latch,
        })
    }

    fn cur(&self, key: Key) -> Reg {
        self.vars[self.keys[&key]]
            .cur
            .expect("started at its scope")
    }
}

/// Whether parameter `i` of loop header `h`, which leaves the loop, can leave it in its
/// back-edge variable instead of a copy on every exit edge.
///
/// The variable then starts each iteration as the parameter, and every back edge writes
/// its argument into it with a masked move tied to the previous version, over the lanes
/// taking that edge; it never starts afresh. A lane that leaves the loop takes no back edge
/// in that iteration nor runs any block of the loop after it, so the versions keep its value
/// of the parameter to the end of the loop, where the variable is the value after the loop.
/// (Every version is defined from the previous one in its register or by the allocator's
/// whole-wave moves, which keep every lane.) This costs nothing where the back edge is a
/// `jump`, whose masked move is a move under EXEC that the argument's instruction can
/// write in place of (`copies.rs`); but the first back-edge move consumes the parameter's
/// register, so a later reader of the parameter would need a whole-wave copy of it. Hence
/// the condition: the first back edge (in the layout) leaves a block of this loop, not of a
/// nested one (whose iterations would run the move again before later readers), and
/// nothing after it reads the parameter: no block after it in the loop, no other argument
/// of its terminator, and no exit edge of an enclosing loop (the parameter does not leave
/// the loop around `h`).
fn carries_out(
    func: &ir::Function,
    cfg: &Cfg,
    layout: &Layout,
    edges: &[(ir::Inst, Dests)],
    firsts: &HashMap<(usize, bool), FirstEdge>,
    h: usize,
    i: usize,
) -> bool {
    let param = func.dfg.block_params(cfg.order[h])[i];
    let Some(first) = firsts.get(&(h, true)) else {
        return false;
    };
    let (b1, j1) = first.edge;
    if cfg.loops[b1].last() != Some(&h) {
        return false;
    }
    if let Some(&outer) = cfg.loops[h].iter().rev().nth(1)
        && cfg.used_outside_loop(param, outer)
    {
        return false;
    }
    let other_args = edges[b1].1.iter().enumerate().any(|(j, (_, args))| {
        args.iter()
            .enumerate()
            .any(|(k, &a)| a == param && (j, k) != (j1, i))
    });
    let end = layout.loop_end[h].expect("a loop header");
    let later_reads = layout.order[layout.pos[b1] + 1..=end].iter().any(|&b| {
        func.layout
            .block_insts(cfg.order[b])
            .any(|inst| func.dfg.inst_values(inst).any(|v| v == param))
    });
    !other_args && !later_reads
}

/// Whether every lane that enters the outermost loop that block `t`'s one edge leaves,
/// leaves by that edge: it is the only edge out of that loop (and no `return` is in it),
/// and the loop is entered by `fallthrough`, all the lanes of the block before it, whose
/// start, where `t`'s mask starts (`start_block`), can set the mask to EXEC. (A lane that
/// never leaves never ends the function.)
fn takes_whole_loop(
    cfg: &Cfg,
    layout: &Layout,
    edges: &[(ir::Inst, Dests)],
    fallthrough: &[bool],
    edges_into: &[usize],
    t: usize,
) -> bool {
    let exit = cfg.len();
    if layout.is_header(t) || edges_into[t] != 1 {
        return false;
    }
    let Some(b) = (0..cfg.len()).find(|&b| edges[b].1.iter().any(|&(d, _)| d == t)) else {
        return false;
    };
    let depth = cfg.loops[t].len();
    if cfg.loops[b].len() <= depth || cfg.loops[b][..depth] != cfg.loops[t][..] {
        return false;
    }
    let h = cfg.loops[b][depth];
    let leaving = loop_blocks(layout, h)
        .into_iter()
        .flat_map(|q| edges[q].1.iter().map(|&(d, _)| d))
        .filter(|&d| d == exit || !cfg.in_loop(d, h))
        .count();
    let Some(before) = layout.pos[h].checked_sub(1) else {
        return false;
    };
    leaving == 1
        && fallthrough[h]
        && start_block(cfg, layout, cfg.loops[t].last().copied(), &[b]) == layout.order[before]
}

/// Whether the join `t` (a block with several edges into it) takes exactly the lanes of
/// its immediate dominator `b`, once: from `b`, every path reaches `t` (`t` is `b`'s
/// immediate post-dominator) without a `return`, a back edge of a loop around `b` or an
/// exit from such a loop (loops nested in between run whole, their exits staying in
/// between), and every edge into `t` comes from a block reached from `b` so. Then `t`'s
/// mask is EXEC at the end of `b`, as LLVM's `s_and_saveexec_b64` keeps it for the join.
fn joins_whole(cfg: &Cfg, edges: &[(ir::Inst, Dests)], t: usize) -> bool {
    let exit = cfg.len();
    let b = cfg.idom[t];
    if cfg.ipdom[b] != Some(t) || cfg.loops[b] != cfg.loops[t] {
        return false;
    }
    let around = &cfg.loops[b];
    let mut reached = vec![false; cfg.len()];
    reached[b] = true;
    let mut stack = vec![b];
    while let Some(x) = stack.pop() {
        for &(d, _) in &edges[x].1 {
            if d == t {
                continue;
            }
            if d == exit || around.contains(&d) || !cfg.loops[d].starts_with(around) {
                return false;
            }
            if !reached[d] {
                reached[d] = true;
                stack.push(d);
            }
        }
    }
    cfg.preds[t].iter().all(|&p| reached[p])
}

/// Which parameter of loop header `h` can carry `v`, a value leaving the loop that is not
/// a parameter, out of it: a do-while's latch value. The loop has one back edge and one
/// exit edge (returns aside), both of one `brif` in the loop's last block, and the back
/// edge passes `v` as that parameter's argument. Every lane then leaves by that `brif`
/// with `v`, and so does every lane that goes round, so one move of `v` under all the
/// block's lanes, tied to the parameter, writes the carrier for both; the lanes that left
/// earlier are off and keep theirs. That move, at the end of the loop's last block,
/// consumes the parameter's register: nothing reads the parameter after it, provided the
/// parameter does not itself leave the loop and the `brif` passes it nowhere else.
fn carries_latch_value(
    func: &ir::Function,
    cfg: &Cfg,
    layout: &Layout,
    edges: &[(ir::Inst, Dests)],
    h: usize,
    v: Value,
) -> Option<usize> {
    let exit = cfg.len();
    let p = layout.order[layout.loop_end[h]?];
    if cfg.loops[p].last() != Some(&h) {
        return None;
    }
    let dests = &edges[p].1;
    let [(a, a_args), (b, b_args)] = dests.as_slice() else {
        return None;
    };
    let back_args = match (*a == h, *b == h) {
        (true, false) if *b != exit && !cfg.in_loop(*b, h) => a_args,
        (false, true) if *a != exit && !cfg.in_loop(*a, h) => b_args,
        _ => return None,
    };
    let i = back_args.iter().position(|&x| x == v)?;
    let param = func.dfg.block_params(cfg.order[h])[i];
    let (mut back_edges, mut exit_edges) = (0, 0);
    for q in loop_blocks(layout, h) {
        for &(t, _) in &edges[q].1 {
            back_edges += usize::from(t == h);
            exit_edges += usize::from(t != exit && !cfg.in_loop(t, h));
        }
    }
    let param_passed = dests.iter().flat_map(|(_, args)| args).any(|&x| x == param);
    (back_edges == 1 && exit_edges == 1 && !param_passed && !cfg.used_outside_loop(param, h))
        .then_some(i)
}

/// The first edge into a target in the linear order, among its edges from outside its
/// loop (`back` false) or among its back edges (`back` true, for a loop header).
struct FirstEdge {
    /// (block, destination index).
    edge: (usize, usize),
    /// The loop in which the target's lanes are collected from these edges (`None`: the
    /// function): the innermost loop around the target, for a back edge the target's own
    /// loop, for a loop entry the loop around it.
    scope: Option<usize>,
    /// Whether the edge runs exactly once in each iteration of `scope`, before any other
    /// of these edges: then it may *set* the target's lanes instead of adding to them.
    /// Every block of a linearized loop runs in each iteration (with no lane, maybe),
    /// so that holds unless the edge is in a loop nested in `scope`, which would set them
    /// again in each of its own iterations.
    settable: bool,
}

/// The first edge of each target, by (target, back), the back edges of a loop header
/// apart from its other edges.
fn first_edges(
    cfg: &Cfg,
    layout: &Layout,
    edges: &[(ir::Inst, Dests)],
) -> HashMap<(usize, bool), FirstEdge> {
    let exit = cfg.len();
    let mut firsts = HashMap::new();
    for &p in &layout.order {
        for (j, (t, _)) in edges[p].1.iter().enumerate() {
            let t = *t;
            let back = t != exit && layout.is_header(t) && cfg.in_loop(p, t);
            if firsts.contains_key(&(t, back)) {
                continue;
            }
            let scope = if t == exit {
                None
            } else if back {
                Some(t)
            } else if layout.is_header(t) {
                let l = &cfg.loops[t];
                l.len().checked_sub(2).map(|k| l[k])
            } else {
                cfg.loops[t].last().copied()
            };
            let settable = cfg.loops[p].last().copied() == scope;
            firsts.insert(
                (t, back),
                FirstEdge {
                    edge: (p, j),
                    scope,
                    settable,
                },
            );
        }
    }
    firsts
}

/// Where lanes or values collected from edges out of the blocks `from`, over the
/// iterations of loops nested in `scope` (`None`: the function), start from nothing: the
/// block before the outermost of those loops around the first of `from` (in the layout,
/// leaving sibling loops the same way), so that the mask or value lives from there rather
/// than from the start of `scope`; in linear code every block of `scope` runs once in each
/// of its iterations, in the layout's order. The start of `scope` when that is not found.
fn start_block(cfg: &Cfg, layout: &Layout, scope: Option<usize>, from: &[usize]) -> usize {
    let fallback = scope.unwrap_or(0);
    let depth = scope.map_or(0, |s| cfg.loops[s].len());
    let in_scope = |b: usize| depth == 0 || cfg.loops[b].get(depth - 1) == scope.as_ref();
    let Some(mut b) = from.iter().copied().min_by_key(|&b| layout.pos[b]) else {
        return fallback;
    };
    while cfg.loops[b].len() > depth {
        if !in_scope(b) {
            return fallback;
        }
        let header = cfg.loops[b][depth];
        let Some(before) = layout.pos[header].checked_sub(1) else {
            return fallback;
        };
        b = layout.order[before];
    }
    if in_scope(b) { b } else { fallback }
}

/// The blocks of the loop with header `h`, in reverse postorder (a loop is contiguous in
/// the layout).
fn loop_blocks(layout: &Layout, h: usize) -> Vec<usize> {
    let end = layout.loop_end[h].expect("a loop header");
    let mut blocks = layout.order[layout.pos[h]..=end].to_vec();
    blocks.sort_unstable();
    blocks
}

/// The values defined in the loop with header `h` (block parameters and results), each
/// with the block defining it.
fn defined_in_loop(
    func: &ir::Function,
    cfg: &Cfg,
    layout: &Layout,
    h: usize,
) -> Vec<(Value, usize)> {
    loop_blocks(layout, h)
        .into_iter()
        .flat_map(|b| {
            let block = cfg.order[b];
            func.dfg
                .block_params(block)
                .iter()
                .copied()
                .chain(
                    func.layout
                        .block_insts(block)
                        .flat_map(|i| func.dfg.inst_results(i).iter().copied()),
                )
                .map(move |v| (v, b))
        })
        .collect()
}

/// Lowers `func`, which has divergent branches, to linearized VCode: the blocks in the
/// order of [`Layout`], each followed by the latches of the loops it ends, then the exit
/// block, then the edge blocks of the latches.
pub fn lower_linearized<B: LinearBackend>(
    func: &ir::Function,
    cfg: &Cfg,
    backend: &B,
) -> Result<Linearized<B::MInst>, CompileError> {
    let n = cfg.len();
    if !cfg.preds[0].is_empty() {
        return Err(CompileError::new(
            func,
            "the entry block is a branch target; branch to a block of its own instead",
        ));
    }
    let layout = Layout::new(cfg);
    let mut plan = Plan::new(func, cfg, &layout, backend)?;
    let edges = edges(func, cfg);
    let mut ctx = Lower::new(func);
    let vfile = backend.vector_file();

    // VCode block numbers: each block, then the latches of the loops ending there
    // (innermost first), then the exit block.
    let mut vindex = vec![0; n];
    let mut latches: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (h, end) in layout.loop_end.iter().enumerate() {
        if let Some(p) = *end {
            latches[p].push(h);
        }
    }
    let mut count = 0;
    for (p, &b) in layout.order.iter().enumerate() {
        vindex[b] = count;
        count += 1;
        latches[p].sort_by_key(|&h| std::cmp::Reverse(cfg.loops[h].len()));
        count += latches[p].len();
    }
    let exit_vindex = count;
    ctx.num_blocks = count + 1;

    // CLIF parameters of loop headers are regalloc2 block parameters.
    let mut header_params = vec![Vec::new(); n];
    for h in (0..n).filter(|&h| layout.is_header(h)) {
        for &p in func.dfg.block_params(cfg.order[h]) {
            let r = backend.block_param_reg(&mut ctx, p)?;
            ctx.set_value_reg(p, r);
            header_params[h].push(r);
        }
    }
    // The arguments of an edge into header `h` from outside its loop.
    let entry_args = |plan: &Plan, h: usize| -> Vec<Reg> {
        let mut args: Vec<Reg> = (0..header_params[h].len())
            .map(|i| plan.cur(Key::Fwd(h, i)))
            .collect();
        args.extend(
            plan.header_vars[h]
                .iter()
                .map(|&id| plan.vars[id].cur.expect("started")),
        );
        args
    };
    // Which VCode block follows block position `p`, and the header it starts if any.
    let next_header = |p: usize| -> Option<usize> {
        layout
            .order
            .get(p + 1)
            .copied()
            .filter(|&b| layout.is_header(b))
    };

    let mut blocks: Vec<VBlock> = Vec::new();
    for (p, &b) in layout.order.iter().enumerate() {
        let block = cfg.order[b];
        let start = ctx.vcode.insts.len();
        let mut params = Vec::new();
        let mut entered = None;
        if p == 0 {
            // First, so that the allocator's whole-wave moves after the entry can use it.
            backend.save_entry_lanes(&mut ctx);
            backend.lower_entry(&mut ctx)?;
        } else {
            params = header_params[b].clone();
            for &id in &plan.header_vars[b] {
                let v = ctx.new_vreg(vfile, plan.vars[id].class);
                params.push(v);
                plan.vars[id].cur = Some(v);
            }
            // A carrier starts each iteration as its parameter.
            for &(i, id) in &plan.carried[b] {
                plan.vars[id].cur = Some(header_params[b][i]);
            }
            let mask = plan.mask_of[b];
            if !plan.fallthrough[b] {
                let at = ctx.vcode.insts.len();
                match plan.narrowing[b].take() {
                    Some(lanes) => backend.narrow_lanes(&mut ctx, lanes),
                    None => backend.enter_block(&mut ctx, mask),
                }
                entered = Some(at..ctx.vcode.insts.len());
            }
            if plan.resets[b] {
                backend.clear_mask(&mut ctx, mask);
            }
        }
        for &(k, whole) in &plan.mask_inits[b] {
            match whole {
                true => _ = backend.set_lanes(&mut ctx, k, Lanes::All),
                false => backend.clear_mask(&mut ctx, k),
            }
        }
        for id in plan.var_inits[b].clone() {
            plan.vars[id].cur = Some(backend.undef(&mut ctx, vfile, plan.vars[id].class));
        }
        if p != 0 && !layout.is_header(b) {
            for (i, &param) in func.dfg.block_params(block).iter().enumerate() {
                let r = plan.cur(Key::Param(b, i));
                ctx.set_value_reg(param, r);
            }
        }
        let body = ctx.vcode.insts.len();
        for inst in func.layout.block_insts(block) {
            ctx.cur_inst = Some(inst);
            let opcode = func.dfg.insts[inst].opcode();
            if opcode.is_branch() || opcode == Opcode::Return {
                debug_assert_eq!(inst, edges[b].0);
                lower_edges(
                    &mut ctx,
                    backend,
                    cfg,
                    &layout,
                    &mut plan,
                    b,
                    inst,
                    &edges[b].1,
                )?;
                continue;
            }
            if opcode.is_terminator() {
                return Err(ctx.error(format!("`{opcode}` is not supported")));
            }
            lower_value_inst(&mut ctx, backend, inst)?;
        }
        ctx.cur_inst = None;
        // A block that emitted nothing needs no EXEC, unless the next one keeps it.
        let next_keeps_exec = latches[p].is_empty()
            && layout
                .order
                .get(p + 1)
                .is_some_and(|&c| plan.fallthrough[c]);
        if let Some(enter) = entered
            && ctx.vcode.insts.len() == body
            && !next_keeps_exec
        {
            ctx.vcode.insts.drain(enter);
        }
        let next = blocks.len() + 1;
        let args = match (latches[p].is_empty(), next_header(p)) {
            (true, Some(h)) => entry_args(&plan, h),
            _ => Vec::new(),
        };
        ctx.emit(B::MInst::gen_jump(next));
        blocks.push(VBlock {
            insts: start..ctx.vcode.insts.len(),
            succs: vec![next],
            preds: Vec::new(),
            params,
            branch_args: vec![args],
        });
        // The latches of the loops ending here.
        let ending = latches[p].clone();
        for (k, &h) in ending.iter().enumerate() {
            let next = blocks.len() + 1;
            let start = ctx.vcode.insts.len();
            if let Some(lanes) = plan.latch_narrowing[h].take() {
                backend.narrow_lanes(&mut ctx, lanes);
                for (id, src) in std::mem::take(&mut plan.latch_moves[h]) {
                    let old = plan.vars[id].cur.expect("started");
                    if src != old {
                        let exec = backend.active_lanes();
                        plan.vars[id].cur = Some(backend.masked_move(&mut ctx, old, src, exec));
                    }
                }
            }
            let mut back_args: Vec<Reg> = (0..header_params[h].len())
                .map(|i| plan.cur(Key::Back(h, i)))
                .collect();
            back_args.extend(
                plan.header_vars[h]
                    .iter()
                    .map(|&id| plan.vars[id].cur.unwrap()),
            );
            let back = ctx.deferred_block(
                vec![B::MInst::gen_jump(vindex[h])],
                vec![(vindex[h], back_args)],
            );
            // Values leaving the loop are their exit copies from here on; the others
            // must not be read again.
            for &(v, _, id) in &plan.exit_vars[h] {
                let r = plan.vars[id].cur.expect("started");
                ctx.set_value_reg(v, r);
            }
            for (v, _) in defined_in_loop(func, cfg, &layout, h) {
                if !cfg.used_outside_loop(v, h) {
                    ctx.mark_stale(v);
                }
            }
            let out_args = match (k + 1 == ending.len(), next_header(p)) {
                (true, Some(nh)) => entry_args(&plan, nh),
                _ => Vec::new(),
            };
            let out = ctx.deferred_block(vec![B::MInst::gen_jump(next)], vec![(next, out_args)]);
            let mask = (!plan.back_jump[h] && !plan.back_narrow[h]).then_some(plan.mask_of[h]);
            backend.latch(&mut ctx, mask, back, out);
            blocks.push(VBlock {
                insts: start..ctx.vcode.insts.len(),
                succs: vec![back, out],
                preds: Vec::new(),
                params: Vec::new(),
                branch_args: vec![Vec::new(), Vec::new()],
            });
        }
    }
    // The exit block.
    debug_assert_eq!(blocks.len(), exit_vindex);
    let start = ctx.vcode.insts.len();
    let returns: Vec<(Reg, ir::Type)> = func
        .signature
        .returns
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let reg = match plan.keys.get(&Key::Param(plan.exit, i)) {
                Some(&id) => plan.vars[id].cur.expect("started"),
                None => backend.undef(&mut ctx, vfile, class_of(r.value_type).unwrap()),
            };
            (reg, r.value_type)
        })
        .collect();
    backend.exit(&mut ctx, &returns)?;
    blocks.push(VBlock {
        insts: start..ctx.vcode.insts.len(),
        succs: Vec::new(),
        preds: Vec::new(),
        params: Vec::new(),
        branch_args: Vec::new(),
    });
    let masks = Masks {
        registers: plan.masks,
        slots: plan.mask_slots,
    };
    Ok(Linearized {
        vcode: ctx.finish(blocks),
        masks,
    })
}

/// The terminator of block `b`: each destination's lanes join its target's mask, its
/// arguments the target's pending parameters, and values leaving loops their copies.
#[allow(clippy::too_many_arguments)]
fn lower_edges<B: LinearBackend>(
    ctx: &mut Lower<'_, B::MInst>,
    backend: &B,
    cfg: &Cfg,
    layout: &Layout,
    plan: &mut Plan,
    b: usize,
    inst: ir::Inst,
    dests: &[(usize, Vec<Value>)],
) -> Result<(), CompileError> {
    for &t in &plan.join_sets[b] {
        backend.set_lanes(ctx, plan.mask_of[t], Lanes::All);
    }
    // No mask for the exit, nor for the edge that keeps EXEC for a block.
    let silent = |t: usize| {
        let back = t != plan.exit && layout.is_header(t) && cfg.in_loop(b, t);
        t == plan.exit || (plan.fallthrough[t] && (!back || plan.back_jump[t]))
    };
    let added: Vec<bool> = dests
        .iter()
        .enumerate()
        .map(|(j, &(t, _))| !silent(t) && !plan.narrowed[t] && !plan.starts.contains(&(b, j)))
        .collect();
    let lanes = backend.edge_lanes(ctx, inst, &added)?;
    debug_assert_eq!(lanes.len(), dests.len());
    for (j, ((t, args), &lanes)) in dests.iter().zip(&lanes).enumerate() {
        let t = *t;
        let start = plan.starts.contains(&(b, j));
        let back = t != plan.exit && layout.is_header(t) && cfg.in_loop(b, t);
        let silent = silent(t);
        let e = if silent {
            debug_assert!(matches!(lanes, Lanes::All), "a jump or a return");
            backend.active_lanes()
        } else if plan.narrowed[t] {
            // The target's start takes the lanes; the edge is its only one, so it defines
            // the target's parameters with plain moves (`start`) and masks nothing.
            debug_assert!(start);
            plan.narrowing[t] = Some(lanes);
            backend.active_lanes()
        } else if back && plan.back_narrow[t] {
            // The latch takes the lanes; the edge is the loop's one back edge (`start`),
            // and the carriers' moves wait for the latch.
            debug_assert!(start);
            plan.latch_narrowing[t] = Some(lanes);
            backend.active_lanes()
        } else if plan.whole_exit[t] || plan.whole_join[t] {
            // The target's mask holds these lanes already.
            backend.lanes_reg(ctx, lanes)
        } else {
            let mask = plan.mask_of[t];
            match start {
                true => backend.set_lanes(ctx, mask, lanes),
                false => backend.add_lanes(ctx, mask, lanes),
            }
        };
        for (i, &v) in args.iter().enumerate() {
            let key = if t == plan.exit || !layout.is_header(t) {
                Key::Param(t, i)
            } else if cfg.in_loop(b, t) {
                Key::Back(t, i)
            } else {
                Key::Fwd(t, i)
            };
            let id = plan.keys[&key];
            let var = &plan.vars[id];
            if !start || plan.carrier[id] {
                let old = var.cur.expect("started");
                let src = backend.branch_arg(ctx, v, old)?;
                if plan.carrier_of_latch[id] {
                    let exec = backend.active_lanes();
                    plan.vars[id].cur = Some(backend.masked_move(ctx, old, src, exec));
                } else if back && plan.back_narrow[t] {
                    plan.latch_moves[t].push((id, src));
                } else if src != old {
                    plan.vars[id].cur = Some(backend.masked_move(ctx, old, src, e));
                }
                continue;
            }
            // A plain definition: the other lanes' values are never read, since a lane
            // takes one edge into the target in each run of the scope, and later edges
            // write theirs. A move under EXEC (unless `branch_arg` made a copy already)
            // rather than the argument's own register: the allocator can then keep the
            // two apart without whole-wave moves (measured: 0.5% less code than using
            // the register where it is free after the edge).
            let dst = ctx.new_vreg(backend.vector_file(), var.class);
            let src = backend.branch_arg(ctx, v, dst)?;
            let copied = ctx.value_reg(v).is_ok_and(|r| r != src);
            plan.vars[id].cur = Some(match copied {
                true => src,
                false => {
                    ctx.emit(B::MInst::gen_move(dst, src));
                    dst
                }
            });
        }
        if t == plan.exit {
            continue;
        }
        // Exits of the loops around `b` that do not contain `t`, innermost first.
        for &h in cfg.loops[b].iter().rev() {
            if cfg.in_loop(t, h) {
                break;
            }
            for k in 0..plan.exit_vars[h].len() {
                let (v, def, id) = plan.exit_vars[h][k];
                // Lanes leaving where `v`'s definition does not dominate never use it
                // (nor is it defined yet in the linear order: a loop header's parameter
                // has its register from the start). A carrier holds its value already.
                if !cfg.dominates(def, b) || plan.carrier[id] {
                    continue;
                }
                let value = ctx
                    .value_reg(v)
                    .expect("defined before a block it dominates");
                let old = plan.vars[id].cur.expect("started");
                let src = backend.branch_arg(ctx, v, old).unwrap_or(value);
                plan.vars[id].cur = Some(backend.masked_move(ctx, old, src, e));
            }
        }
    }
    Ok(())
}
