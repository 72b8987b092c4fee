//! Register recoloring after allocation: one register file's values placed again, singles,
//! pairs and quads sharing all its registers.
//!
//! The allocator ([`super::regalloc`]) keeps each width in a class of registers of its own,
//! so a loaded single cannot take the registers of the address pair that just died, and a
//! function needs the sum of its widths' peaks rather than the peak of their sum. This pass
//! takes the allocated code and places its values again in one shared file:
//!
//! 1. *Webs*: every definition of a 32-bit unit is a node; a read joins the nodes of all
//!    definitions that reach it (through the blocks' live-in units), so a node set is one
//!    value as the code sees it. A definition written into a read's register (two-address
//!    forms) joins that read, and so does one that keeps the lanes it does not write
//!    (`keeps_old`).
//! 2. *Groups*: a pair or quad operand fixes its units' nodes at consecutive places; a
//!    group is a set of nodes at fixed distances from each other, placed as one. A group
//!    whose distances contradict each other, or that holds a fixed register (an ABI input
//!    or result, a unit outside the file's range, a value live into the function), stays
//!    where the allocator put it.
//! 3. *Live ranges* over program points (each instruction reads at its early point and
//!    writes at its late one, as the allocator models it), and *conflicts*: unless an
//!    instruction is one machine instruction, a result of it shares units with a source
//!    only when it is that source exactly (a multi-instruction sequence may write part of
//!    its result before it reads all of a source; the allocator's aligned classes never
//!    let them overlap otherwise).
//! 4. *Placement*: first a copy joins its source when both then hold one value wherever
//!    both live (`Plan::coalesce_copies`); then groups in order of their first point, each
//!    at the first place (a copy's partner's first) where its units are free for its live
//!    ranges and aligned for every wide operand.
//!
//! The new placement is kept only when it uses no more registers than the allocator's.

use super::{MachInst, OperandKind, Reg, RegFile};
use smallvec::SmallVec;

/// The registers of one file this pass may move values among.
#[derive(Clone, Copy, Debug)]
pub struct Space {
    pub file: RegFile,
    /// Values in `first..limit` move; registers outside stay as they are.
    pub first: u16,
    pub limit: u16,
    /// Alignment of a 1-, 2- and 4-register operand (GCN: 1, 2, 4).
    pub alignment: [u16; 3],
    /// Values read or written as single registers stay below this (NV50: the short and
    /// immediate forms name `$r0`–`$r63`, and the allocator keeps singles there).
    pub single_limit: u16,
}

/// A copy's destination and the sources whose registers, in order, make it.
pub type Copied = (Reg, SmallVec<[Reg; 2]>);

/// What a target says about its instructions beyond their operands.
pub struct Rules<'a, I> {
    /// Whether instruction `i` of a block writes only some lanes of its results and keeps
    /// the others' values (so the value before it flows on through it).
    /// Asked per file: only that file's results of the instruction keep old values (a VALU
    /// under a lane mask keeps the other lanes of its VGPR result, but writes its SGPR
    /// carry-out whole).
    pub keeps_old: &'a dyn Fn(&[I], usize, RegFile) -> bool,
    /// Whether an instruction is one machine instruction, which reads all its sources
    /// before it writes: its results may then share units with sources of other widths.
    pub single: &'a dyn Fn(&I) -> bool,
    /// Whether an instruction's registers of the space must stay where the allocator put
    /// them (an encoding that reaches only some registers).
    pub pinned: &'a dyn Fn(&I) -> bool,
    /// What an instruction copies: its destination and the sources whose registers, in
    /// order, make it (a move, a pair built from halves). Placing each unit of the
    /// destination where its source's is makes the copy go.
    pub copies: &'a dyn Fn(&I) -> Option<Copied>,
}

/// Places the values of `space` again (see the module). Returns whether the code changed.
pub fn run<I: MachInst>(
    blocks: &mut [Vec<I>],
    succs: &[Vec<usize>],
    space: &Space,
    rules: &Rules<'_, I>,
) -> bool {
    let Some(mut plan) = Plan::new(blocks, succs, space, rules) else {
        return false;
    };
    plan.coalesce_copies();
    let Some(places) = plan.place() else {
        return false;
    };
    if places.used > plan.used {
        return false;
    }
    if cfg!(debug_assertions) {
        plan.check(succs, &places.of_node);
    }
    plan.rewrite(blocks, &places.of_node);
    true
}

/// A unit's number within the space (`hw - first`).
type Unit = u16;
type Node = u32;

/// No node (a unit that holds nothing the pass knows).
const NONE: Node = Node::MAX;

/// How an operand occurrence takes part, as the pass sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Use,
    LateUse,
    Def,
    EarlyDef,
}

impl Role {
    fn reads(self) -> bool {
        matches!(self, Role::Use | Role::LateUse)
    }
}

/// An operand's role and units before nodes exist.
#[derive(Clone, Debug)]
struct Shape {
    role: Role,
    width: u16,
    units: SmallVec<[Unit; 4]>,
    fixed: bool,
    /// The use operand (visiting index) a two-address result is written into.
    reuse: Option<usize>,
}

/// One operand of the space at one instruction.
#[derive(Clone, Debug)]
struct Occurrence {
    role: Role,
    width: u16,
    /// The node of each unit.
    nodes: SmallVec<[Node; 4]>,
    /// Whether this operand moves with its nodes (false: outside the range, or fixed).
    movable: bool,
}

/// Units of the space as bits (at most 256 units).
#[derive(Clone, PartialEq, Eq)]
struct Units([u64; 4]);

impl Units {
    fn new() -> Units {
        Units([0; 4])
    }
    fn set(&mut self, u: Unit) {
        self.0[u as usize / 64] |= 1 << (u % 64);
    }
    fn union(&mut self, other: &Units) -> bool {
        let before = self.0;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        before != self.0
    }
    /// Clears the units of `other`.
    fn remove(&mut self, other: &Units) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
    }
    fn iter(&self) -> impl Iterator<Item = Unit> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    (w * 64) as Unit + bit as Unit
                })
            })
        })
    }
}

/// Nodes joined at fixed distances: `parent` with the node's place minus its parent's.
#[derive(Clone, Default)]
struct Joins {
    parent: Vec<Node>,
    offset: Vec<i32>,
    /// A root whose group asks two places of one node.
    broken: Vec<bool>,
}

impl Joins {
    fn add(&mut self) -> Node {
        let n = self.parent.len() as Node;
        self.parent.push(n);
        self.offset.push(0);
        self.broken.push(false);
        n
    }
    /// The root of `x` and `x`'s place minus the root's.
    fn find(&mut self, x: Node) -> (Node, i32) {
        let mut root = x;
        let mut total = 0;
        while self.parent[root as usize] != root {
            total += self.offset[root as usize];
            root = self.parent[root as usize];
        }
        // Path compression: every node on the way points at the root.
        let mut n = x;
        let mut rest = total;
        while self.parent[n as usize] != root && n != root {
            let (next, step) = (self.parent[n as usize], self.offset[n as usize]);
            self.parent[n as usize] = root;
            self.offset[n as usize] = rest;
            rest -= step;
            n = next;
        }
        (root, total)
    }
    /// Asks place(b) = place(a) + d.
    fn join(&mut self, a: Node, b: Node, d: i32) {
        let (ra, oa) = self.find(a);
        let (rb, ob) = self.find(b);
        if ra == rb {
            if ob - oa != d {
                self.broken[ra as usize] = true;
            }
            return;
        }
        self.parent[rb as usize] = ra;
        self.offset[rb as usize] = oa + d - ob;
        if self.broken[rb as usize] {
            self.broken[ra as usize] = true;
        }
    }
}

/// The analysis of the allocated code that placement works from. Instructions are
/// numbered through the whole function (`block_starts`), operands through all
/// instructions (`op_starts`), in visiting order.
struct Plan {
    space: Space,
    /// Units the allocator's code touches: `0..size`.
    size: u16,
    block_starts: Vec<usize>,
    op_starts: Vec<usize>,
    /// Every operand, `None` outside the space.
    occurrences: Vec<Option<Occurrence>>,
    joins: Joins,
    /// Each node's unit in the allocator's placement.
    original: Vec<Unit>,
    /// Nodes that must keep their unit (and with them their group).
    fixed: Vec<bool>,
    /// Nodes that stand for a definition (the others: values live into a block).
    defines: Vec<bool>,
    /// Live ranges (inclusive program points) as (node, first, last), then grouped by node:
    /// node `n`'s are `ranges[range_starts[n]..range_starts[n + 1]]`.
    ranges: Vec<(Node, u32, u32)>,
    range_starts: Vec<usize>,
    /// The node holding each unit at each block's end (`size` per block).
    exits: Vec<Node>,
    /// Units reserved at program points whoever else lives there (clobbers).
    reserved: Vec<(Unit, u32)>,
    /// Node pairs that must not share a unit.
    conflicts: Vec<(Node, Node)>,
    /// Node pairs a copy joins, (destination, source); `copies` groups them by copy.
    hints: Vec<(Node, Node)>,
    copies: Vec<std::ops::Range<usize>>,
    points: u32,
    /// Registers the allocator's placement uses (one past the highest unit).
    used: u16,
}

/// The placement found: each node's unit, and the registers it uses.
struct Places {
    of_node: Vec<Unit>,
    used: u16,
}

impl Plan {
    fn new<I: MachInst>(
        blocks: &mut [Vec<I>],
        succs: &[Vec<usize>],
        space: &Space,
        rules: &Rules<'_, I>,
    ) -> Option<Plan> {
        let range = space.limit.checked_sub(space.first)?;
        if range == 0 || range > 256 {
            return None;
        }
        let mut plan = Plan {
            space: *space,
            size: 0,
            block_starts: Vec::with_capacity(blocks.len() + 1),
            op_starts: Vec::new(),
            occurrences: Vec::new(),
            joins: Joins::default(),
            original: Vec::new(),
            fixed: Vec::new(),
            defines: Vec::new(),
            ranges: Vec::new(),
            range_starts: Vec::new(),
            exits: Vec::new(),
            reserved: Vec::new(),
            conflicts: Vec::new(),
            hints: Vec::new(),
            copies: Vec::new(),
            points: 0,
            used: 0,
        };
        // Each operand's role and units, before nodes exist.
        let mut shapes: Vec<Option<Shape>> = Vec::new();
        for block in blocks.iter_mut() {
            plan.block_starts.push(plan.op_starts.len());
            for inst in block.iter_mut() {
                plan.op_starts.push(shapes.len());
                let pinned = (rules.pinned)(inst);
                inst.visit_operands(&mut |r, kind| {
                    let shape = plan.shape(*r, kind).map(|s| Shape {
                        fixed: s.fixed || pinned,
                        ..s
                    });
                    shapes.push(shape);
                });
            }
        }
        plan.block_starts.push(plan.op_starts.len());
        plan.op_starts.push(shapes.len());
        if plan.size == 0 {
            return None;
        }
        let blocks: &[Vec<I>] = blocks;
        let (live_in, live_out) = plan.liveness(blocks, succs, &shapes, rules);
        plan.find_webs(blocks, succs, &shapes, &live_in, rules);
        plan.find_ranges(blocks, &live_out, rules);
        plan.find_conflicts(blocks, rules);
        Some(plan)
    }

    /// An operand as the pass sees it, `None` outside the space.
    fn shape(&mut self, r: Reg, kind: OperandKind) -> Option<Shape> {
        let Reg::Real { file, hw, .. } = r else {
            return None;
        };
        if file != self.space.file {
            return None;
        }
        let width = r.width();
        let inside = hw >= self.space.first && hw + width <= self.space.limit;
        if inside {
            self.used = self.used.max(hw + width - self.space.first);
        }
        let (role, fixed, reuse) = match kind {
            OperandKind::Use | OperandKind::UseAny => (Role::Use, false, None),
            OperandKind::UseFixed(_) => (Role::Use, true, None),
            OperandKind::LateUse => (Role::LateUse, false, None),
            OperandKind::Def | OperandKind::DefAny => (Role::Def, false, None),
            OperandKind::DefFixed(_) => (Role::Def, true, None),
            OperandKind::EarlyDef => (Role::EarlyDef, false, None),
            OperandKind::DefReuse(n) => (Role::Def, false, Some(n)),
        };
        // Units outside the range are not the pass's to track; an operand that reaches
        // past the range pins the units it has inside.
        let units: SmallVec<[Unit; 4]> = (hw..hw + width)
            .filter(|&h| h >= self.space.first && h < self.space.limit)
            .map(|h| h - self.space.first)
            .collect();
        let &last = units.last()?;
        self.size = self.size.max(last + 1);
        Some(Shape {
            role,
            width,
            units,
            fixed: fixed || !inside,
            reuse,
        })
    }

    fn node(&mut self, unit: Unit) -> Node {
        self.original.push(unit);
        self.fixed.push(false);
        self.defines.push(false);
        self.joins.add()
    }

    /// The operands of instruction `i` of block `b`, as a range of operand numbers.
    fn ops(&self, b: usize, i: usize) -> std::ops::Range<usize> {
        let g = self.block_starts[b] + i;
        self.op_starts[g]..self.op_starts[g + 1]
    }

    /// Reads and writes of one instruction, as unit sets (a kept-lanes write also reads).
    fn reads_writes(ops: &[Option<Shape>], keeps_old: bool) -> (Units, Units) {
        let (mut reads, mut writes) = (Units::new(), Units::new());
        for s in ops.iter().flatten() {
            let set = if s.role.reads() {
                &mut reads
            } else {
                &mut writes
            };
            for &u in &s.units {
                set.set(u);
            }
        }
        if keeps_old {
            reads.union(&writes);
        }
        (reads, writes)
    }

    /// The units live at the start and at the end of each block.
    fn liveness<I>(
        &self,
        blocks: &[Vec<I>],
        succs: &[Vec<usize>],
        shapes: &[Option<Shape>],
        rules: &Rules<'_, I>,
    ) -> (Vec<Units>, Vec<Units>) {
        let n = blocks.len();
        let summaries: Vec<Vec<(Units, Units)>> = (0..n)
            .map(|b| {
                (0..blocks[b].len())
                    .map(|i| {
                        let keeps_old = (rules.keeps_old)(&blocks[b], i, self.space.file);
                        Self::reads_writes(&shapes[self.ops(b, i)], keeps_old)
                    })
                    .collect()
            })
            .collect();
        let mut live_in = vec![Units::new(); n];
        let out = |live_in: &[Units], b: usize| {
            let mut live = Units::new();
            for &s in &succs[b] {
                live.union(&live_in[s]);
            }
            live
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut live = out(&live_in, b);
                for (reads, writes) in summaries[b].iter().rev() {
                    live.remove(writes);
                    live.union(reads);
                }
                changed |= live_in[b].union(&live);
            }
        }
        let live_out = (0..n).map(|b| out(&live_in, b)).collect();
        (live_in, live_out)
    }

    /// Step 1 and 2: the nodes of every occurrence, joined into webs and groups.
    fn find_webs<I>(
        &mut self,
        blocks: &[Vec<I>],
        succs: &[Vec<usize>],
        shapes: &[Option<Shape>],
        live_in: &[Units],
        rules: &Rules<'_, I>,
    ) {
        let size = self.size as usize;
        // The node holding each live-in unit at a block's entry (`size` per block).
        let mut entry = vec![NONE; blocks.len() * size];
        for (b, live) in live_in.iter().enumerate() {
            for u in live.iter() {
                let n = self.node(u);
                // Live into the function: an input where the caller or hardware put it.
                self.fixed[n as usize] |= b == 0;
                entry[b * size + u as usize] = n;
            }
        }
        self.occurrences = vec![None; shapes.len()];
        self.exits = vec![NONE; blocks.len() * size];
        for (b, block) in blocks.iter().enumerate() {
            let mut current = entry[b * size..(b + 1) * size].to_vec();
            for i in 0..block.len() {
                let ops = self.ops(b, i);
                for k in ops.clone() {
                    let Some(s) = shapes[k].as_ref().filter(|s| s.role.reads()) else {
                        continue;
                    };
                    let mut nodes = SmallVec::new();
                    for &u in &s.units {
                        if current[u as usize] == NONE {
                            // Read with no definition: leave it be.
                            let n = self.node(u);
                            self.fixed[n as usize] = true;
                            current[u as usize] = n;
                        }
                        nodes.push(current[u as usize]);
                    }
                    self.occurrences[k] = Some(s.occurrence(nodes));
                }
                let keeps_old = (rules.keeps_old)(block, i, self.space.file);
                for k in ops.clone() {
                    let Some(s) = shapes[k].as_ref().filter(|s| !s.role.reads()) else {
                        continue;
                    };
                    let mut nodes = SmallVec::new();
                    for (j, &u) in s.units.iter().enumerate() {
                        let n = self.node(u);
                        self.defines[n as usize] = true;
                        let old = current[u as usize];
                        if keeps_old && old != NONE {
                            self.joins.join(old, n, 0);
                        }
                        let read = s.reuse.and_then(|r| {
                            let occ = self.occurrences.get(ops.start + r)?.as_ref()?;
                            occ.nodes.get(j).copied()
                        });
                        if let Some(m) = read {
                            self.joins.join(m, n, 0);
                        }
                        current[u as usize] = n;
                        nodes.push(n);
                    }
                    self.occurrences[k] = Some(s.occurrence(nodes));
                }
                for k in ops {
                    let Some(o) = &self.occurrences[k] else {
                        continue;
                    };
                    let (first, movable, whole) =
                        (o.nodes[0], o.movable, o.nodes.len() == o.width as usize);
                    let nodes = o.nodes.clone();
                    for (j, &n) in nodes.iter().enumerate() {
                        if !movable {
                            self.fixed[n as usize] = true;
                        }
                        // A wide operand's units at consecutive places.
                        if whole && j > 0 {
                            self.joins.join(first, n, j as i32);
                        }
                    }
                }
            }
            self.exits[b * size..(b + 1) * size].copy_from_slice(&current);
        }
        // A unit live into a block holds, at the end of each predecessor, the same value.
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                for u in 0..size {
                    let n = entry[s * size + u];
                    if n == NONE {
                        continue;
                    }
                    match self.exits[b * size + u] {
                        NONE => self.fixed[n as usize] = true,
                        m => self.joins.join(m, n, 0),
                    }
                }
            }
        }
    }

    /// Step 3: each node's live ranges over program points (instruction `g` of the whole
    /// function reads at `2g` and writes at `2g + 1`), and clobbered units.
    fn find_ranges<I: MachInst>(
        &mut self,
        blocks: &[Vec<I>],
        live_out: &[Units],
        rules: &Rules<'_, I>,
    ) {
        let size = self.size as usize;
        // Per unit: the node live there and the last point it is needed at.
        let mut open: Vec<(Node, u32)> = vec![(NONE, 0); size];
        for (b, block) in blocks.iter().enumerate() {
            let start = self.block_starts[b] as u32;
            let first = 2 * start;
            let last = (2 * (start + block.len() as u32))
                .saturating_sub(1)
                .max(first);
            for u in live_out[b].iter() {
                let n = self.exits[b * size + u as usize];
                if n != NONE {
                    open[u as usize] = (n, last);
                }
            }
            for (i, inst) in block.iter().enumerate().rev() {
                let g = start + i as u32;
                let ops = self.ops(b, i);
                let keeps_old = (rules.keeps_old)(block, i, self.space.file);
                for occ in self.occurrences[ops.clone()].iter().flatten() {
                    let from = match occ.role {
                        Role::Def => 2 * g + 1,
                        Role::EarlyDef => 2 * g,
                        _ => continue,
                    };
                    for &n in &occ.nodes {
                        let u = self.original[n as usize] as usize;
                        let to = match std::mem::replace(&mut open[u], (NONE, 0)) {
                            (NONE, _) => 2 * g + 1,
                            (_, e) => e,
                        };
                        self.ranges.push((n, from, to.max(from)));
                        if keeps_old {
                            open[u] = (n, 2 * g);
                        }
                    }
                }
                for occ in self.occurrences[ops].iter().flatten() {
                    let to = match occ.role {
                        Role::Use => 2 * g,
                        Role::LateUse => 2 * g + 1,
                        _ => continue,
                    };
                    for &n in &occ.nodes {
                        let u = self.original[n as usize] as usize;
                        open[u] = match open[u] {
                            (NONE, _) => (n, to),
                            (m, e) => (m, e.max(to)),
                        };
                    }
                }
                for &c in inst.clobbers() {
                    if let Reg::Real { file, hw, .. } = c
                        && file == self.space.file
                    {
                        for h in hw..hw + c.width() {
                            let u = h.wrapping_sub(self.space.first);
                            if h >= self.space.first && u < self.size {
                                self.reserved.push((u, 2 * g + 1));
                            }
                        }
                    }
                }
            }
            for slot in open.iter_mut() {
                if let (n, e) = std::mem::replace(slot, (NONE, 0))
                    && n != NONE
                {
                    self.ranges.push((n, first, e));
                }
            }
        }
        self.points = 2 * *self.block_starts.last().unwrap_or(&0) as u32 + 1;
        // Grouped by node.
        self.ranges.sort_unstable();
        self.range_starts = vec![0; self.original.len() + 1];
        for &(n, ..) in &self.ranges {
            self.range_starts[n as usize + 1] += 1;
        }
        for n in 0..self.original.len() {
            self.range_starts[n + 1] += self.range_starts[n];
        }
    }

    /// Node `n`'s live ranges.
    fn ranges_of(&self, n: Node) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = self.range_starts[n as usize]..self.range_starts[n as usize + 1];
        self.ranges[r].iter().map(|&(_, s, e)| (s, e))
    }

    /// Step 3: results and sources that must not overlap, and copies.
    fn find_conflicts<I>(&mut self, blocks: &[Vec<I>], rules: &Rules<'_, I>) {
        for (b, block) in blocks.iter().enumerate() {
            for (i, inst) in block.iter().enumerate() {
                let occs = &self.occurrences[self.ops(b, i)];
                if !(rules.single)(inst) {
                    // Several instructions: a result is its source exactly (unit for unit)
                    // or misses it.
                    for d in occs.iter().flatten().filter(|o| !o.role.reads()) {
                        for s in occs.iter().flatten().filter(|o| o.role.reads()) {
                            for (j, &x) in d.nodes.iter().enumerate() {
                                for (k, &y) in s.nodes.iter().enumerate() {
                                    if d.width != s.width || j != k {
                                        self.conflicts.push((x, y));
                                    }
                                }
                            }
                        }
                    }
                }
                let first_hint = self.hints.len();
                for (dst, src) in (rules.copies)(inst).map_or_else(Vec::new, copied_units) {
                    if dst.file() != self.space.file || src.file() != self.space.file {
                        continue;
                    }
                    let find = |r: Reg, reads: bool| {
                        let u = r.hw().checked_sub(self.space.first)?;
                        occs.iter()
                            .flatten()
                            .filter(|o| o.role.reads() == reads)
                            .flat_map(|o| o.nodes.iter())
                            .copied()
                            .find(|&n| self.original[n as usize] == u)
                    };
                    if let (Some(x), Some(y)) = (find(dst, false), find(src, true)) {
                        self.hints.push((x, y));
                    }
                }
                if self.hints.len() > first_hint {
                    self.copies.push(first_hint..self.hints.len());
                }
            }
        }
    }

    /// Step 4, first: a copy whose destination holds nothing but the copied value shares
    /// its source's place, so the copy goes. Sound when the source is not written while
    /// the destination lives (both then hold one value wherever both live), the copy is
    /// the destination's only definition, and the groups merged put no two other values
    /// that live at once in one unit. Groups with fixed units are left alone.
    fn coalesce_copies(&mut self) {
        let nodes = self.original.len();
        let mut members: Vec<Vec<Node>> = vec![Vec::new(); nodes];
        for n in 0..nodes as Node {
            let root = self.joins.find(n).0;
            members[root as usize].push(n);
        }
        let mut aligned = self.alignments();
        let conflicts = adjacency(nodes, &self.conflicts);
        for copy in self.copies.clone() {
            let pairs: Vec<(Node, Node)> = self.hints[copy].to_vec();
            let (x, y) = pairs[0];
            let ((rx, ox), (ry, oy)) = (self.joins.find(x), self.joins.find(y));
            if rx == ry {
                continue;
            }
            // One destination group and one source group, at one distance.
            let mut same = true;
            for &(a, b) in &pairs {
                let ((ra, oa), (rb, ob)) = (self.joins.find(a), self.joins.find(b));
                same &= ra == rx && rb == ry && oa - ob == ox - oy;
            }
            let gx: Vec<(Node, i32)> = members[rx as usize]
                .iter()
                .map(|&n| (n, self.joins.find(n).1))
                .collect();
            // `y`'s group placed so that each source sits where its destination does.
            let gy: Vec<(Node, i32)> = members[ry as usize]
                .iter()
                .map(|&n| (n, self.joins.find(n).1 - oy + ox))
                .collect();
            let offsets: Vec<i32> = pairs.iter().map(|&(a, _)| self.joins.find(a).1).collect();
            let free = |g: &[(Node, i32)]| g.iter().all(|&(n, _)| !self.fixed[n as usize]);
            if !same
                || self.joins.broken[rx as usize]
                || self.joins.broken[ry as usize]
                || !free(&gx)
                || !free(&gy)
            {
                continue;
            }
            let web = |g: &[(Node, i32)], o: i32| -> Vec<Node> {
                g.iter().filter(|e| e.1 == o).map(|e| e.0).collect()
            };
            let mut sound = true;
            let mut copied: Vec<(i32, Vec<Node>, Vec<Node>)> = Vec::new();
            for (&(a, _), &o) in pairs.iter().zip(&offsets) {
                let (web_x, web_y) = (web(&gx, o), web(&gy, o));
                // The copy defines the destination's web alone.
                sound &= !web_x.iter().any(|&n| n != a && self.defines[n as usize]);
                // The source is not written while the destination lives.
                for p in web_y
                    .iter()
                    .filter(|&&n| self.defines[n as usize])
                    .filter_map(|&n| self.ranges_of(n).map(|r| r.0).min())
                {
                    sound &= !web_x
                        .iter()
                        .any(|&n| self.ranges_of(n).any(|(s, e)| s < p && p <= e));
                }
                copied.push((o, web_x, web_y));
            }
            if !sound {
                continue;
            }
            // No other two values of the merged group in one unit at once, and alignments
            // that one base can meet.
            let overlap = |a: Node, b: Node| {
                self.ranges_of(a)
                    .any(|(s, e)| self.ranges_of(b).any(|(t, f)| s <= f && t <= e))
            };
            let same_value = |a: Node, b: Node, o: i32| {
                copied
                    .iter()
                    .any(|(p, wx, wy)| *p == o && wx.contains(&a) && wy.contains(&b))
            };
            let collide = gx.iter().any(|&(a, oa)| {
                gy.iter()
                    .any(|&(b, ob)| oa == ob && !same_value(a, b, oa) && overlap(a, b))
            });
            let rules: Vec<(i32, i32)> = aligned[rx as usize]
                .iter()
                .copied()
                .chain(aligned[ry as usize].iter().map(|&(a, o)| (a, o - oy + ox)))
                .collect();
            let alignable =
                (0..4).any(|base: i32| rules.iter().all(|&(a, o)| (base + o).rem_euclid(a) == 0));
            // (The copy's own destination and source units may meet: a unit copied to
            // itself.)
            let conflicting = gx.iter().chain(&gy).any(|&(a, oa)| {
                conflicts[a as usize].iter().any(|&b| {
                    !pairs.contains(&(a, b))
                        && !pairs.contains(&(b, a))
                        && gx.iter().chain(&gy).any(|&(c, oc)| c == b && oc == oa)
                })
            });
            if collide || !alignable || conflicting {
                continue;
            }
            self.joins.join(x, y, 0);
            let root = self.joins.find(x).0;
            let gone = if root == rx { ry } else { rx };
            let moved = std::mem::take(&mut members[gone as usize]);
            members[root as usize].extend(moved);
            // The rules were relative to `x`'s old root, where `x` sat at `ox`.
            let fx = self.joins.find(x).1;
            aligned[root as usize] = rules.iter().map(|&(a, o)| (a, o - ox + fx)).collect();
            aligned[gone as usize].clear();
        }
    }

    /// The alignment each group's base must meet, per root: (modulus, offset of the wide
    /// operand's first unit from the root).
    fn alignments(&mut self) -> Vec<Vec<(i32, i32)>> {
        let mut aligned: Vec<Vec<(i32, i32)>> = vec![Vec::new(); self.original.len()];
        for k in 0..self.occurrences.len() {
            let Some(occ) = &self.occurrences[k] else {
                continue;
            };
            if occ.width > 1 && occ.nodes.len() == occ.width as usize {
                let a = self.space.alignment[occ.width.trailing_zeros() as usize] as i32;
                let (r, o) = self.joins.find(occ.nodes[0]);
                if !aligned[r as usize].contains(&(a, o)) {
                    aligned[r as usize].push((a, o));
                }
            }
        }
        aligned
    }

    /// Step 4: a place for every group, `None` when one does not fit.
    fn place(&mut self) -> Option<Places> {
        let nodes = self.original.len();
        let size = self.size as usize;
        // Groups: each root's members with their offsets.
        let mut members: Vec<Vec<(Node, i32)>> = vec![Vec::new(); nodes];
        for n in 0..nodes as Node {
            let (r, o) = self.joins.find(n);
            members[r as usize].push((n, o));
        }
        let aligned = self.alignments();
        // Nodes read or written as single registers.
        let mut single = vec![false; nodes];
        for occ in self.occurrences.iter().flatten() {
            if occ.width == 1 {
                for &n in &occ.nodes {
                    single[n as usize] = true;
                }
            }
        }
        let single_limit = self.space.single_limit.saturating_sub(self.space.first) as i32;
        let words = (self.points as usize).div_ceil(64);
        let mut busy = vec![0u64; words * size];
        for &(u, p) in &self.reserved {
            busy[u as usize * words + p as usize / 64] |= 1 << (p % 64);
        }
        let occupy = |busy: &mut [u64], n: Node, u: Unit| {
            for (s, e) in self.ranges_of(n) {
                for (w, mask) in words_of(s, e) {
                    busy[u as usize * words + w] |= mask;
                }
            }
        };
        let free = |busy: &[u64], n: Node, u: Unit| {
            self.ranges_of(n).all(|(s, e)| {
                words_of(s, e).all(|(w, mask)| busy[u as usize * words + w] & mask == 0)
            })
        };
        let mut place: Vec<Option<Unit>> = vec![None; nodes];
        let mut used = 0u16;
        // Pinned groups first, where the allocator put them.
        let mut free_groups = Vec::new();
        for (root, group) in members.iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let pinned =
                self.joins.broken[root] || group.iter().any(|&(n, _)| self.fixed[n as usize]);
            if pinned {
                for &(n, _) in group {
                    let u = self.original[n as usize];
                    place[n as usize] = Some(u);
                    occupy(&mut busy, n, u);
                    used = used.max(u + 1);
                }
            } else {
                let start = group
                    .iter()
                    .flat_map(|&(n, _)| self.ranges_of(n).map(|r| r.0))
                    .min()
                    .unwrap_or(u32::MAX);
                free_groups.push((start, root));
            }
        }
        free_groups.sort_unstable();
        let conflicts = adjacency(nodes, &self.conflicts);
        let hints = adjacency(nodes, &self.hints);
        let mut candidates = Vec::new();
        for (_, root) in free_groups {
            let group = &members[root];
            let low = group.iter().map(|&(_, o)| o).min()?;
            let high = group.iter().map(|&(_, o)| o).max()?;
            let rules = &aligned[root];
            let fits = |base: i32, busy: &[u64], place: &[Option<Unit>]| {
                if base + low < 0 || base + high >= size as i32 {
                    return false;
                }
                let abs = base + self.space.first as i32;
                if rules.iter().any(|&(a, o)| (abs + o).rem_euclid(a) != 0) {
                    return false;
                }
                group.iter().all(|&(n, o)| {
                    let u = (base + o) as Unit;
                    (!single[n as usize] || base + o < single_limit)
                        && free(busy, n, u)
                        && conflicts[n as usize]
                            .iter()
                            .all(|&m| place[m as usize] != Some(u))
                })
            };
            candidates.clear();
            for &(n, o) in group {
                for &m in &hints[n as usize] {
                    if let Some(u) = place[m as usize] {
                        candidates.push(u as i32 - o);
                    }
                }
            }
            candidates.extend(-low..size as i32 - high);
            let base = candidates
                .iter()
                .copied()
                .find(|&base| fits(base, &busy, &place))?;
            for &(n, o) in group {
                let u = (base + o) as Unit;
                place[n as usize] = Some(u);
                occupy(&mut busy, n, u);
                used = used.max(u + 1);
            }
        }
        Some(Places {
            of_node: place.into_iter().collect::<Option<Vec<_>>>()?,
            used,
        })
    }

    /// Checks the placement (debug builds): following the new places through the code,
    /// every read finds the web it read before in the unit it now reads.
    fn check(&mut self, succs: &[Vec<usize>], places: &[Unit]) {
        const UNDEFINED: Node = Node::MAX;
        const MIXED: Node = Node::MAX - 1;
        let size = self.size as usize;
        let blocks = self.block_starts.len() - 1;
        // The web root in each unit at each block's entry.
        let mut entry: Vec<Option<Vec<Node>>> = vec![None; blocks];
        entry[0] = Some(vec![UNDEFINED; size]);
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            let mut state = entry[b].clone().expect("queued blocks have an entry state");
            for g in self.block_starts[b]..self.block_starts[b + 1] {
                let ops = self.op_starts[g]..self.op_starts[g + 1];
                for reads in [true, false] {
                    for k in ops.clone() {
                        let Some(o) = &self.occurrences[k] else {
                            continue;
                        };
                        if o.role.reads() != reads {
                            continue;
                        }
                        for n in o.nodes.clone() {
                            let u = places[n as usize] as usize;
                            let web = self.joins.find(n).0;
                            if reads {
                                debug_assert!(
                                    state[u] == web || state[u] == UNDEFINED,
                                    "recoloring: instruction {g} reads unit {u}, which holds \
                                     another value"
                                );
                            } else {
                                state[u] = web;
                            }
                        }
                    }
                }
            }
            for &s in &succs[b] {
                let merged: Vec<Node> = match &entry[s] {
                    None => state.clone(),
                    Some(old) => old
                        .iter()
                        .zip(&state)
                        .map(|(&a, &c)| if a == c { a } else { MIXED })
                        .collect(),
                };
                if entry[s].as_ref() != Some(&merged) {
                    entry[s] = Some(merged);
                    work.push(s);
                }
            }
        }
    }

    /// Renames every movable operand to its first node's place.
    fn rewrite<I: MachInst>(&self, blocks: &mut [Vec<I>], places: &[Unit]) {
        let mut k = 0;
        for inst in blocks.iter_mut().flatten() {
            inst.visit_operands(&mut |r, _| {
                if let Some(occ) = &self.occurrences[k]
                    && occ.movable
                    && let Reg::Real { file, class, .. } = *r
                {
                    *r = Reg::Real {
                        file,
                        class,
                        hw: places[occ.nodes[0] as usize] + self.space.first,
                    };
                }
                k += 1;
            });
        }
    }
}

impl Shape {
    fn occurrence(&self, nodes: SmallVec<[Node; 4]>) -> Occurrence {
        Occurrence {
            role: self.role,
            width: self.width,
            nodes,
            movable: !self.fixed,
        }
    }
}

/// Each node's partners in `pairs`, both ways.
fn adjacency(nodes: usize, pairs: &[(Node, Node)]) -> Vec<Vec<Node>> {
    let mut lists = vec![Vec::new(); nodes];
    for &(x, y) in pairs {
        lists[x as usize].push(y);
        lists[y as usize].push(x);
    }
    lists
}

/// The single registers a copy copies, (destination, source), unit by unit.
fn copied_units((dst, sources): Copied) -> Vec<(Reg, Reg)> {
    let single = |r: Reg, k: u16| Reg::Real {
        file: r.file(),
        class: super::RegClass::Int,
        hw: r.hw() + k,
    };
    let srcs = sources
        .iter()
        .flat_map(|&s| (0..s.width()).map(move |k| single(s, k)));
    (0..dst.width()).map(|k| single(dst, k)).zip(srcs).collect()
}

/// The bit words of points `s..=e`, with the mask of the points in each.
fn words_of(s: u32, e: u32) -> impl Iterator<Item = (usize, u64)> {
    (s / 64..=e / 64).map(move |w| {
        let low = if w == s / 64 { s % 64 } else { 0 };
        let high = if w == e / 64 { e % 64 } else { 63 };
        let mask = (u64::MAX >> (63 - high)) & (u64::MAX << low);
        (w as usize, mask)
    })
}
