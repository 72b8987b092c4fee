//! Where divergent branches reconverge (`docs/nv50.md`, "Placing joinat and join"): for
//! each divergent branch, the join block (its immediate post-dominator, within its loop)
//! whose `join nop` its `joinat` pushes, and which edges enter that join rather than the
//! block itself; for each loop with divergent code, the `breakaddr` before its header and
//! the exit edges that are `break`s.
//!
//! A divergent loop's breaking exits all reach one block: `exit_blocks.rs` gives the loops
//! whose exits did not one first. A region entered other than through its branch gets no
//! `joinat` (rule 2): an enclosing region joins its paths, one made for it inside a loop
//! where there is none (`anchor`): a block's or, failing that, the loop header's up to its
//! latch.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Uniformity;
use crate::intrinsics::Intrinsic;
use crate::ir;
use std::collections::{BTreeMap, BTreeSet};

/// Where a `joinat` reconverges: the `join nop` placed before a block, or the one placed
/// before a loop's header that only its back edges enter (the loop's latch).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Join {
    Block(usize),
    Latch(usize),
}

/// The reconvergence of one function, by CFG index (which is the VCode index of the
/// function's own blocks).
#[derive(Clone, Default, Debug)]
pub struct Plan {
    /// The blocks ending in a divergent branch.
    pub divergent: BTreeSet<usize>,
    /// Where the `joinat` of each block ending in a divergent branch that pushes one joins.
    pub joinat: BTreeMap<usize, Join>,
    /// For each join, the blocks whose edges into its block (the header, for a latch) enter
    /// the `join nop` instead: the branch blocks and their regions.
    pub join_preds: BTreeMap<Join, BTreeSet<usize>>,
    /// The loops with `breakaddr`: header, the block the breaking threads continue at, and
    /// one block with an edge to it (whose edge chooses the label: the block or its join).
    pub breakaddr: BTreeMap<usize, (usize, usize)>,
    /// The edges that are `break`s.
    pub breaks: BTreeSet<(usize, usize)>,
    /// For each header with `breakaddr`, the blocks outside its loop that enter it (and
    /// so run the `breakaddr`).
    pub loop_entries: BTreeMap<usize, BTreeSet<usize>>,
    /// The loop headers whose code starts with a `joinat` of their latch (in every
    /// iteration): the region of the whole body, made for a region entered twice inside it
    /// that no nearer one encloses (`anchor`).
    pub header_joinat: BTreeSet<usize>,
    /// The reconvergence-stack entries pending in each block: what a call there finds on
    /// the stack below its own entry (`link.rs` adds the callee's).
    pub depth: Vec<usize>,
}

impl Plan {
    /// The join an edge from the block with CFG index `from` into `to` enters, if any.
    pub fn join_entered(&self, from: usize, to: usize) -> Option<Join> {
        [Join::Latch(to), Join::Block(to)].into_iter().find(|j| {
            self.join_preds
                .get(j)
                .is_some_and(|preds| preds.contains(&from))
        })
    }

    /// Whether an edge from `from` into the header `to` runs its loop's `breakaddr`.
    pub fn enters_loop(&self, from: usize, to: usize) -> bool {
        self.loop_entries
            .get(&to)
            .is_some_and(|preds| preds.contains(&from))
    }
}

/// Plans the `joinat`s and `breakaddr`s of `func`'s divergent branches and loops; `Err`
/// says why one cannot be placed.
///
/// A divergent branch inside a loop whose region has a second entry and no enclosing
/// region of the same iteration to join it gets one (`anchor`): the nearest block
/// dominating it whose region holds it and has one entry pushes a `joinat` too, even where
/// its own branch is uniform, or else the loop's header pushes one of its latch at its
/// start. Adding one changes which regions nest, so planning starts again with it; each
/// round adds one, so this ends.
///
/// `locks` are the blocks with an atomic on workgroup memory, whose lock loop pushes one
/// `breakaddr` of its own (`Inst::SharedAtomic`): one stack entry more there.
pub fn plan(
    cfg: &Cfg,
    uniformity: &Uniformity,
    collective: &BTreeSet<usize>,
    locks: &BTreeSet<usize>,
) -> Result<Plan, String> {
    let mut anchors = BTreeSet::new();
    loop {
        match plan_with(cfg, uniformity, collective, locks, &anchors)? {
            Planned::Done(plan) => return Ok(plan),
            Planned::Anchor(a) => {
                if !anchors.insert(a) {
                    return Err(format!("internal error: {a:?} is already an anchor"));
                }
            }
        }
    }
}

/// A region made to enclose a region entered twice (see [`plan`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Anchor {
    /// The block at the end of which a `joinat` of its post-dominator is pushed, whatever
    /// its branch.
    Branch(usize),
    /// The loop header at the start of which a `joinat` of its latch is pushed.
    Header(usize),
}

/// A round of planning: a plan, or a region that must be made first.
enum Planned {
    Done(Plan),
    Anchor(Anchor),
}

/// Plans with `anchors`, the regions made besides the divergent branches'.
fn plan_with(
    cfg: &Cfg,
    uniformity: &Uniformity,
    collective: &BTreeSet<usize>,
    locks: &BTreeSet<usize>,
    anchors: &BTreeSet<Anchor>,
) -> Result<Planned, String> {
    let mut plan = Plan::default();
    let divergent: Vec<usize> = (0..cfg.len())
        .filter(|&b| uniformity.is_divergent_branch(cfg.order[b]))
        .collect();
    plan.divergent = divergent.iter().copied().collect();
    let headers = divergent_loops(cfg, uniformity);
    for &h in &headers {
        plan_loop(cfg, collective, &headers, h, &mut plan)?;
    }
    // Regions already joined, with their join and branch block: a nested branch joining at
    // the same place gets no `joinat` of its own (rule 3).
    let mut regions: Vec<(BTreeSet<usize>, Join, usize)> = Vec::new();
    let mut in_loop_pdoms: BTreeMap<usize, Vec<Option<Join>>> = BTreeMap::new();
    // The stack entries pending in each block (`Plan::check_depth`).
    let mut depth = vec![0usize; cfg.len()];
    for &h in plan.breakaddr.keys() {
        for b in (0..cfg.len()).filter(|&b| cfg.in_loop(b, h)) {
            depth[b] += 1;
        }
    }
    // The regions in reverse postorder, a header's whole body before its own branch's.
    let mut starts: BTreeSet<(usize, bool)> = plan.divergent.iter().map(|&b| (b, true)).collect();
    for &a in anchors {
        starts.insert(match a {
            Anchor::Branch(b) => (b, true),
            Anchor::Header(h) => (h, false),
        });
    }
    for (b, at_end) in starts {
        if !at_end {
            // The whole body of the loop with header `b`, joining at its latch: entered only
            // through the header.
            let region: BTreeSet<usize> = (0..cfg.len()).filter(|&x| cfg.in_loop(x, b)).collect();
            for &x in &region {
                depth[x] += 1;
            }
            plan.header_joinat.insert(b);
            let join = Join::Latch(b);
            plan.join_preds
                .entry(join)
                .or_default()
                .extend(region.iter().copied());
            regions.push((region, join, b));
            continue;
        }
        let block = cfg.order[b];
        // A divergent `brif` pushes at most one branch entry, a `br_table`'s chain one per
        // compare but the last (and a warp splits at most 31 times); a uniform one none.
        let mut targets = cfg.succs[b].clone();
        targets.sort_unstable();
        targets.dedup();
        let pushes = match plan.divergent.contains(&b) {
            true => (targets.len() - 1).min(31),
            false => 0,
        };
        let (join, region) = match cfg.loops[b].last() {
            None => match cfg.ipdom[b] {
                Some(p) => {
                    let region: BTreeSet<usize> = cfg.influence_region(b).into_iter().collect();
                    (Some(Join::Block(p)), region)
                }
                // Every path returns: the threads exit apart.
                None => (None, reachable(cfg, b, |_| true)),
            },
            Some(&h) => {
                let pdoms = in_loop_pdoms
                    .entry(h)
                    .or_insert_with(|| loop_post_dominators(cfg, h));
                match pdoms[b] {
                    Some(join) => (Some(join), loop_region(cfg, h, b, join)),
                    // Every path leaves the loop (or returns): they run apart until then.
                    None => (None, reachable(cfg, b, |x| cfg.in_loop(x, h) && x != h)),
                }
            }
        };
        let Some(join) = join else {
            for &x in region.iter().chain([&b]) {
                depth[x] += pushes;
            }
            continue;
        };
        if let Some(outside) = second_entry(cfg, b, &region) {
            // A `join` the paths from the other entry would meet without the entry: the
            // branch gets no `joinat` (rule 2's alternative). Its branch entries are drained
            // by the join of an enclosing region of the same loop iteration; with none, the
            // paths run apart to their end, which outside loops pushes at most once per
            // branch. Inside a loop that would be once per iteration: an enclosing region
            // is made (`anchor`).
            let innermost = cfg.loops[b].last();
            let enclosed = regions
                .iter()
                .any(|(outer, _, a)| outer.contains(&b) && cfg.loops[*a].last() == innermost);
            if let Some(&h) = innermost
                && !enclosed
            {
                let made = anchor(cfg, h, b, &in_loop_pdoms[&h]);
                if anchors.contains(&made) {
                    return Err(format!(
                        "internal error: the region of the divergent branch at the end of \
                         {block}, also entered from {}, is not enclosed by {made:?}",
                        cfg.order[outside]
                    ));
                }
                return Ok(Planned::Anchor(made));
            }
            let apart = reachable(cfg, b, |x| innermost.is_none_or(|&h| cfg.in_loop(x, h)));
            for &x in apart.iter().chain([&b]) {
                depth[x] += pushes;
            }
            continue;
        }
        let nested = regions
            .iter()
            .any(|(outer, j, _)| *j == join && outer.contains(&b));
        for &x in region.iter().chain([&b]) {
            depth[x] += pushes + usize::from(!nested);
        }
        if nested {
            continue;
        }
        plan.joinat.insert(b, join);
        let preds = plan.join_preds.entry(join).or_default();
        preds.insert(b);
        preds.extend(region.iter().copied());
        regions.push((region, join, b));
    }
    for &b in locks {
        depth[b] += 1;
    }
    if let Some((b, &most)) = depth.iter().enumerate().max_by_key(|&(_, d)| *d)
        && most > STACK_ENTRIES
    {
        return Err(format!(
            "the divergent control flow reaching {} may need {most} entries of the \
             reconvergence stack, which holds {STACK_ENTRIES} (`docs/nv50.md`, \"What the \
             hardware does\")",
            cfg.order[b]
        ));
    }
    plan.depth = depth;
    Ok(Planned::Done(plan))
}

/// A block other than `b` with an edge into `b`'s region from outside it, if any.
fn second_entry(cfg: &Cfg, b: usize, region: &BTreeSet<usize>) -> Option<usize> {
    region.iter().find_map(|&x| {
        cfg.preds[x]
            .iter()
            .find(|&&q| q != b && !region.contains(&q))
            .copied()
    })
}

/// The region to make for `b`'s, which is entered twice inside the loop with header `h`:
/// the nearest block dominating `b` in that loop (and in no loop nested in it, where a
/// `joinat` would push once per inner iteration) whose region, up to its post-dominator
/// within the loop (`pdoms`), holds `b` and is entered only through it; else the loop's
/// whole body, from its header to its latch, which every block of the loop but the header
/// is entered from inside. Either's `joinat` drains the branch entries of `b`'s region,
/// whose paths stay in it until its join (`docs/nv50.md`, "Placing joinat and join", rule
/// 2). A block of the loop may be past every such block: after an inner loop that leaves
/// to it and to the other entry of `b`'s region, for one.
fn anchor(cfg: &Cfg, h: usize, b: usize, pdoms: &[Option<Join>]) -> Anchor {
    let mut s = b;
    while s != h {
        s = cfg.idom[s];
        if cfg.loops[s].last() != Some(&h) {
            continue;
        }
        let Some(join) = pdoms[s] else { continue };
        let region = loop_region(cfg, h, s, join);
        if region.contains(&b) && second_entry(cfg, s, &region).is_none() {
            return Anchor::Branch(s);
        }
    }
    Anchor::Header(h)
}

/// The entries of a warp's control-flow stack (nouveau's `stack_size`: `docs/nv50.md`).
pub const STACK_ENTRIES: usize = 64;

/// The blocks reachable from `b`'s successors through blocks where `keep` holds.
fn reachable(cfg: &Cfg, b: usize, keep: impl Fn(usize) -> bool) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut work: Vec<usize> = cfg.succs[b].clone();
    while let Some(x) = work.pop() {
        if keep(x) && seen.insert(x) {
            work.extend(cfg.succs[x].iter().copied());
        }
    }
    seen
}

/// The headers of the loops with a divergent branch anywhere inside: they get `breakaddr`,
/// since a `bra` out of them would leave the entries their body pushed on the stack.
pub fn divergent_loops(cfg: &Cfg, uniformity: &Uniformity) -> BTreeSet<usize> {
    (0..cfg.len())
        .filter(|&b| uniformity.is_divergent_branch(cfg.order[b]))
        .flat_map(|b| cfg.loops[b].iter().copied())
        .collect()
}

/// The exits of the loop with header `h` (which has divergent code): which are `break`s,
/// and where the breaking threads continue.
fn plan_loop(
    cfg: &Cfg,
    collective: &BTreeSet<usize>,
    breakaddr_loops: &BTreeSet<usize>,
    h: usize,
    plan: &mut Plan,
) -> Result<(), String> {
    let mut exit: Option<(usize, usize)> = None;
    for b in (0..cfg.len()).filter(|&b| cfg.in_loop(b, h)) {
        for &t in &cfg.succs[b] {
            if cfg.in_loop(t, h) {
                continue;
            }
            // The loops the edge leaves, outermost first: `b`'s from the first that does
            // not contain `t`.
            let left: Vec<usize> = cfg.loops[b]
                .iter()
                .copied()
                .filter(|&l| !cfg.in_loop(t, l))
                .collect();
            let outermost = left[0];
            if is_private_tail(cfg, collective, t, outermost) {
                // Its threads run to their end and never meet the others again: a `bra`.
                continue;
            }
            let with_breakaddr: Vec<usize> = left
                .iter()
                .copied()
                .filter(|l| breakaddr_loops.contains(l))
                .collect();
            if with_breakaddr != [outermost] {
                // This loop (`h`) is among them; it is not the only one or not the outermost.
                return Err(format!(
                    "the edge {} -> {} leaves {} loops, one with divergent code inside: a \
                     `break` leaves only the innermost (an exit block per level is not \
                     implemented yet)",
                    cfg.order[b],
                    cfg.order[t],
                    left.len()
                ));
            }
            if outermost != h {
                continue;
            }
            match exit {
                Some((_, x)) if x != t => {
                    return Err(format!(
                        "the loop at {} has divergent code and exits to both {} and {}: a \
                         `break` continues at one block (an exit block dispatching on which \
                         exit was taken is not implemented yet)",
                        cfg.order[h], cfg.order[x], cfg.order[t]
                    ));
                }
                _ => exit = Some((b, t)),
            }
            plan.breaks.insert((b, t));
        }
    }
    if let Some((from, x)) = exit {
        plan.breakaddr.insert(h, (x, from));
        let entries = cfg.preds[h]
            .iter()
            .copied()
            .filter(|&p| !cfg.in_loop(p, h))
            .collect();
        plan.loop_entries.insert(h, entries);
    }
    Ok(())
}

/// Whether the blocks reachable from `t` are entered only through `t`, and `t` only from
/// the loop with header `h`, and none of them is `collective`: the threads that go there
/// from the loop run to their end without meeting any others, so a plain `bra` may take
/// them (the entries the loop pushed are popped when the others are done). A tail with a
/// cross-lane intrinsic or a barrier is not private: its threads must run it together.
pub fn is_private_tail(cfg: &Cfg, collective: &BTreeSet<usize>, t: usize, h: usize) -> bool {
    let mut reached = BTreeSet::from([t]);
    let mut work = vec![t];
    while let Some(x) = work.pop() {
        for &s in &cfg.succs[x] {
            if reached.insert(s) {
                work.push(s);
            }
        }
    }
    reached.iter().all(|&x| {
        !collective.contains(&x)
            && cfg.preds[x]
                .iter()
                .all(|&q| reached.contains(&q) || x == t && cfg.in_loop(q, h))
    })
}

/// The blocks (CFG indices) with a call the threads of a warp make together: a cross-lane
/// intrinsic or `wavelift_barrier`.
pub fn collective_blocks(func: &ir::Function, cfg: &Cfg) -> BTreeSet<usize> {
    (0..cfg.len())
        .filter(|&b| {
            func.layout.block_insts(cfg.order[b]).any(|inst| {
                let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                    return false;
                };
                Intrinsic::from_func_ref(func, func_ref)
                    .is_some_and(|i| i.is_cross_lane() || i == Intrinsic::Barrier)
            })
        })
        .collect()
}

/// The blocks (CFG indices) with an atomic on workgroup memory (an i32 address): the lock
/// loops of GT200.
pub fn lock_blocks(func: &ir::Function, cfg: &Cfg) -> BTreeSet<usize> {
    (0..cfg.len())
        .filter(|&b| {
            func.layout.block_insts(cfg.order[b]).any(|inst| {
                let addr = match func.dfg.insts[inst] {
                    ir::InstructionData::AtomicRmw { args: [a, _], .. }
                    | ir::InstructionData::AtomicCas {
                        args: [a, _, _], ..
                    }
                    | ir::InstructionData::LoadNoOffset {
                        opcode: ir::Opcode::AtomicLoad,
                        arg: a,
                        ..
                    }
                    | ir::InstructionData::StoreNoOffset {
                        opcode: ir::Opcode::AtomicStore,
                        args: [_, a],
                        ..
                    } => a,
                    _ => return false,
                };
                func.dfg.value_type(addr) == ir::types::I32
            })
        })
        .collect()
}

/// The successors of `x` that count for reconvergence inside the loop with header `h`: the
/// blocks of the loop but `h`, and the latch for a back edge; exits leave.
fn loop_succs(cfg: &Cfg, h: usize, x: usize) -> impl Iterator<Item = Join> + '_ {
    cfg.succs[x].iter().filter_map(move |&s| {
        if s == h {
            Some(Join::Latch(h))
        } else if cfg.in_loop(s, h) {
            Some(Join::Block(s))
        } else {
            None
        }
    })
}

/// For each block (by CFG index; `None` outside the loop), its immediate post-dominator
/// counting only the paths that stay in the loop with header `h` up to its latch (back
/// edges end there): `None` when every path leaves. Post-dominator sets by iteration to a
/// fixed point, over the loop's blocks only.
fn loop_post_dominators(cfg: &Cfg, h: usize) -> Vec<Option<Join>> {
    let blocks: Vec<usize> = (0..cfg.len()).filter(|&b| cfg.in_loop(b, h)).collect();
    // `None`: no path to the latch (yet): the top of the lattice.
    let mut pdom: BTreeMap<usize, Option<BTreeSet<Join>>> =
        blocks.iter().map(|&b| (b, None)).collect();
    let latch = BTreeSet::from([Join::Latch(h)]);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in blocks.iter().rev() {
            let mut meet: Option<BTreeSet<Join>> = None;
            for s in loop_succs(cfg, h, b) {
                let set = match s {
                    Join::Latch(_) => Some(&latch),
                    Join::Block(s) => pdom[&s].as_ref(),
                };
                let Some(set) = set else { continue };
                meet = Some(match meet {
                    None => set.clone(),
                    Some(m) => m.intersection(set).copied().collect(),
                });
            }
            let new = meet.map(|mut m| {
                m.insert(Join::Block(b));
                m
            });
            if new != pdom[&b] {
                pdom.insert(b, new);
                changed = true;
            }
        }
    }
    let size = |j: &Join| match j {
        Join::Latch(_) => 1,
        Join::Block(x) => pdom[x].as_ref().map_or(0, BTreeSet::len),
    };
    let mut ipdom = vec![None; cfg.len()];
    for &b in &blocks {
        // Post-dominators form a chain: the nearest has the most of its own.
        ipdom[b] = pdom[&b].as_ref().and_then(|set| {
            set.iter()
                .filter(|&&j| j != Join::Block(b))
                .max_by_key(|j| size(j))
                .copied()
        });
    }
    ipdom
}

/// The blocks of the loop with header `h` that a divergent branch at the end of `b`
/// reaches before `join`, not following exits or back edges.
fn loop_region(cfg: &Cfg, h: usize, b: usize, join: Join) -> BTreeSet<usize> {
    let mut region = BTreeSet::new();
    let mut work: Vec<Join> = loop_succs(cfg, h, b).collect();
    while let Some(x) = work.pop() {
        let Join::Block(x) = x else { continue };
        if Join::Block(x) == join || !region.insert(x) {
            continue;
        }
        work.extend(loop_succs(cfg, h, x));
    }
    region
}
