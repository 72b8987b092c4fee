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
//! 4. *Placement*: groups in order of their first point, each at the first place (a copy's
//!    partner's first) where its units are free for its live ranges and aligned for every
//!    wide operand.
//!
//! The new placement is kept only when it uses no more registers than the allocator's.

use super::{MachInst, OperandKind, Reg, RegFile};
use std::collections::HashMap;

/// The registers of one file this pass may move values among.
#[derive(Clone, Copy, Debug)]
pub struct Space {
    pub file: RegFile,
    /// Values in `first..limit` move; registers outside stay as they are.
    pub first: u16,
    pub limit: u16,
    /// Alignment of a 1-, 2- and 4-register operand (GCN: 1, 2, 4).
    pub alignment: [u16; 3],
}

/// What a target says about its instructions beyond their operands.
pub struct Rules<'a, I> {
    /// Whether instruction `i` of a block writes only some lanes of its results and keeps
    /// the others' values (so the value before it flows on through it).
    pub keeps_old: &'a dyn Fn(&[I], usize) -> bool,
    /// Whether an instruction is one machine instruction, which reads all its sources
    /// before it writes: its results may then share units with sources of other widths.
    pub single: &'a dyn Fn(&I) -> bool,
    /// The single registers an instruction copies, (destination, source): placing both
    /// in one register makes the copy go.
    pub copies: &'a dyn Fn(&I) -> Vec<(Reg, Reg)>,
}

/// Places the values of `space` again (see the module). Returns whether the code changed.
pub fn run<I: MachInst>(
    blocks: &mut [Vec<I>],
    succs: &[Vec<usize>],
    space: &Space,
    rules: &Rules<'_, I>,
) -> bool {
    let Some(plan) = Plan::new(blocks, succs, space, rules) else {
        return false;
    };
    let Some(places) = plan.place() else {
        return false;
    };
    if places.used > plan.used {
        return false;
    }
    if cfg!(debug_assertions) {
        plan.check(blocks, succs, &places.of_node);
    }
    plan.rewrite(blocks, &places.of_node);
    true
}

/// A unit's number within the space (`hw - first`).
type Unit = u16;
type Node = u32;

/// How an operand occurrence takes part, as the pass sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Use,
    LateUse,
    Def,
    EarlyDef,
}

/// One operand of the space at one instruction.
#[derive(Clone, Debug)]
struct Occurrence {
    role: Role,
    width: u16,
    /// The node of each unit.
    nodes: Vec<Node>,
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
    fn get(&self, u: Unit) -> bool {
        self.0[u as usize / 64] >> (u % 64) & 1 != 0
    }
    fn set(&mut self, u: Unit, on: bool) {
        let (w, b) = (u as usize / 64, u % 64);
        if on {
            self.0[w] |= 1 << b;
        } else {
            self.0[w] &= !(1 << b);
        }
    }
    fn union(&mut self, other: &Units) -> bool {
        let before = self.0;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        before != self.0
    }
    fn iter(&self) -> impl Iterator<Item = Unit> + '_ {
        (0..256u16).filter(|&u| self.get(u))
    }
}

/// Nodes joined at fixed distances: `parent` with the node's place minus its parent's.
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
        let mut path = Vec::new();
        let mut n = x;
        while self.parent[n as usize] != n {
            path.push(n);
            n = self.parent[n as usize];
        }
        // Path compression: from the node nearest the root outwards.
        let root = n;
        let mut acc = 0;
        for &p in path.iter().rev() {
            acc += self.offset[p as usize];
            self.offset[p as usize] = acc;
            self.parent[p as usize] = root;
        }
        (
            root,
            if x == root {
                0
            } else {
                self.offset[x as usize]
            },
        )
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

/// The analysis of the allocated code that placement works from.
struct Plan {
    space: Space,
    /// Per block, per instruction: the operands of every file, `None` outside the space,
    /// in visiting order.
    occurrences: Vec<Vec<Vec<Option<Occurrence>>>>,
    joins: Joins,
    /// Each node's unit in the allocator's placement.
    original: Vec<Unit>,
    /// Nodes that must keep their unit (and with them their group).
    fixed: Vec<bool>,
    /// Each node's live ranges (inclusive program points).
    ranges: Vec<Vec<(u32, u32)>>,
    /// Per block, the node holding each unit at its end.
    exits: Vec<HashMap<Unit, Node>>,
    /// Units reserved at program points whoever else lives there (clobbers).
    reserved: Vec<(Unit, u32)>,
    /// Node pairs that must not share a unit.
    conflicts: Vec<(Node, Node)>,
    /// Node pairs a copy joins.
    hints: Vec<(Node, Node)>,
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
        blocks: &[Vec<I>],
        succs: &[Vec<usize>],
        space: &Space,
        rules: &Rules<'_, I>,
    ) -> Option<Plan> {
        let size = space.limit.checked_sub(space.first)?;
        if size == 0 || size > 256 {
            return None;
        }
        let mut plan = Plan {
            space: *space,
            occurrences: Vec::with_capacity(blocks.len()),
            joins: Joins {
                parent: Vec::new(),
                offset: Vec::new(),
                broken: Vec::new(),
            },
            original: Vec::new(),
            fixed: Vec::new(),
            ranges: Vec::new(),
            exits: Vec::new(),
            reserved: Vec::new(),
            conflicts: Vec::new(),
            hints: Vec::new(),
            points: 0,
            used: 0,
        };
        // Each operand's role and units, before nodes exist.
        let mut shapes: Vec<Vec<Vec<Option<Shape>>>> = Vec::with_capacity(blocks.len());
        for block in blocks {
            let mut b = Vec::with_capacity(block.len());
            for inst in block {
                let mut ops = Vec::new();
                inst.clone().visit_operands(&mut |r, kind| {
                    ops.push(plan.shape(*r, kind));
                });
                b.push(ops);
            }
            shapes.push(b);
        }
        let live_out = liveness(blocks, succs, &shapes, rules);
        plan.find_webs(blocks, succs, &shapes, &live_out, rules);
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
        let units: Vec<Unit> = (hw..hw + width)
            .filter(|&h| h >= self.space.first && h < self.space.limit)
            .map(|h| h - self.space.first)
            .collect();
        if units.is_empty() {
            return None;
        }
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
        self.ranges.push(Vec::new());
        self.joins.add()
    }

    /// Step 1 and 2: the nodes of every occurrence, joined into webs and groups.
    fn find_webs<I>(
        &mut self,
        blocks: &[Vec<I>],
        succs: &[Vec<usize>],
        shapes: &[Vec<Vec<Option<Shape>>>],
        live_out: &[Units],
        rules: &Rules<'_, I>,
    ) {
        let live_in = live_ins(blocks, shapes, live_out, rules);
        // The node holding each live-in unit at a block's entry.
        let mut entry: Vec<HashMap<Unit, Node>> = Vec::with_capacity(blocks.len());
        for (b, live) in live_in.iter().enumerate() {
            let mut map = HashMap::new();
            for u in live.iter() {
                let n = self.node(u);
                // Live into the function: an input where the caller or hardware put it.
                self.fixed[n as usize] |= b == 0;
                map.insert(u, n);
            }
            entry.push(map);
        }
        for (b, block) in blocks.iter().enumerate() {
            let mut current = entry[b].clone();
            let mut occurrences = Vec::with_capacity(block.len());
            for (i, ops) in shapes[b].iter().enumerate() {
                let mut occ: Vec<Option<Occurrence>> = vec![None; ops.len()];
                for (k, shape) in ops.iter().enumerate() {
                    let Some(s) = shape else { continue };
                    if matches!(s.role, Role::Use | Role::LateUse) {
                        let nodes = s
                            .units
                            .iter()
                            .map(|&u| match current.get(&u) {
                                Some(&n) => n,
                                // Read with no definition: leave it be.
                                None => {
                                    let n = self.node(u);
                                    self.fixed[n as usize] = true;
                                    current.insert(u, n);
                                    n
                                }
                            })
                            .collect();
                        occ[k] = Some(s.occurrence(nodes));
                    }
                }
                let keeps_old = (rules.keeps_old)(block, i);
                for (k, shape) in ops.iter().enumerate() {
                    let Some(s) = shape else { continue };
                    if !matches!(s.role, Role::Def | Role::EarlyDef) {
                        continue;
                    }
                    let mut nodes = Vec::with_capacity(s.units.len());
                    for (j, &u) in s.units.iter().enumerate() {
                        let n = self.node(u);
                        if let Some(&old) = current.get(&u).filter(|_| keeps_old) {
                            self.joins.join(old, n, 0);
                        }
                        if let Some(Some(read)) = s.reuse.map(|r| occ.get(r).cloned().flatten())
                            && let Some(&m) = read.nodes.get(j)
                        {
                            self.joins.join(m, n, 0);
                        }
                        current.insert(u, n);
                        nodes.push(n);
                    }
                    occ[k] = Some(s.occurrence(nodes));
                }
                for o in occ.iter().flatten() {
                    if !o.movable {
                        for &n in &o.nodes {
                            self.fixed[n as usize] = true;
                        }
                    }
                    // A wide operand's units at consecutive places.
                    for (j, &n) in o.nodes.iter().enumerate().skip(1) {
                        if o.nodes.len() == o.width as usize {
                            self.joins.join(o.nodes[0], n, j as i32);
                        }
                    }
                }
                occurrences.push(occ);
            }
            self.occurrences.push(occurrences);
            self.exits.push(current);
        }
        // A unit live into a block holds, at the end of each predecessor, the same value.
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                for (&u, &n) in &entry[s] {
                    match self.exits[b].get(&u) {
                        Some(&m) => self.joins.join(m, n, 0),
                        None => self.fixed[n as usize] = true,
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
        let mut start = 0u32;
        for (b, block) in blocks.iter().enumerate() {
            let first = 2 * start;
            let last = 2 * (start + block.len() as u32);
            // Per live unit: the node and the last point it is needed at.
            let mut open: HashMap<Unit, (Node, u32)> = HashMap::new();
            for u in live_out[b].iter() {
                if let Some(&n) = self.exits[b].get(&u) {
                    open.insert(u, (n, last.saturating_sub(1).max(first)));
                }
            }
            for (i, inst) in block.iter().enumerate().rev() {
                let g = start + i as u32;
                let occs = &self.occurrences[b][i];
                let keeps_old = (rules.keeps_old)(block, i);
                for occ in occs.iter().flatten() {
                    if !matches!(occ.role, Role::Def | Role::EarlyDef) {
                        continue;
                    }
                    let from = if occ.role == Role::EarlyDef {
                        2 * g
                    } else {
                        2 * g + 1
                    };
                    for &n in &occ.nodes {
                        let u = self.original[n as usize];
                        let to = open.remove(&u).map_or(2 * g + 1, |(_, e)| e);
                        self.ranges[n as usize].push((from, to.max(from)));
                        if keeps_old {
                            open.insert(u, (n, 2 * g));
                        }
                    }
                }
                for occ in occs.iter().flatten() {
                    let to = match occ.role {
                        Role::Use => 2 * g,
                        Role::LateUse => 2 * g + 1,
                        _ => continue,
                    };
                    for &n in &occ.nodes {
                        let u = self.original[n as usize];
                        let e = open.get(&u).map_or(to, |&(_, e)| e.max(to));
                        open.insert(u, (n, e));
                    }
                }
                for &c in inst.clobbers() {
                    if let Reg::Real { file, hw, .. } = c
                        && file == self.space.file
                    {
                        for h in hw..hw + c.width() {
                            if h >= self.space.first && h < self.space.limit {
                                self.reserved.push((h - self.space.first, 2 * g + 1));
                            }
                        }
                    }
                }
            }
            for (_, (n, e)) in open {
                self.ranges[n as usize].push((first, e));
            }
            start += block.len() as u32;
        }
        self.points = 2 * start + 1;
    }

    /// Step 3: results and sources of different widths at one instruction, and copies.
    fn find_conflicts<I>(&mut self, blocks: &[Vec<I>], rules: &Rules<'_, I>) {
        for (b, block) in blocks.iter().enumerate() {
            for (i, inst) in block.iter().enumerate() {
                let occs: Vec<&Occurrence> = self.occurrences[b][i].iter().flatten().collect();
                let single = (rules.single)(inst);
                for d in occs
                    .iter()
                    .filter(|o| matches!(o.role, Role::Def | Role::EarlyDef))
                {
                    for s in occs
                        .iter()
                        .filter(|o| matches!(o.role, Role::Use | Role::LateUse))
                    {
                        if single {
                            continue;
                        }
                        // Several instructions: a result is its source exactly (unit for
                        // unit) or misses it.
                        for (j, &x) in d.nodes.iter().enumerate() {
                            for (k, &y) in s.nodes.iter().enumerate() {
                                if d.width != s.width || j != k {
                                    self.conflicts.push((x, y));
                                }
                            }
                        }
                    }
                }
                for (dst, src) in (rules.copies)(inst) {
                    let find = |r: Reg, defs: bool| {
                        let u = r.hw().checked_sub(self.space.first)?;
                        occs.iter()
                            .filter(|o| matches!(o.role, Role::Def | Role::EarlyDef) == defs)
                            .flat_map(|o| o.nodes.iter())
                            .copied()
                            .find(|&n| self.original[n as usize] == u)
                    };
                    if dst.file() != self.space.file || src.file() != self.space.file {
                        continue;
                    }
                    if let (Some(x), Some(y)) = (find(dst, true), find(src, false)) {
                        self.hints.push((x, y));
                    }
                }
            }
        }
    }

    /// Step 4: a place for every group, `None` when one does not fit.
    fn place(&self) -> Option<Places> {
        let mut joins = Joins {
            parent: self.joins.parent.clone(),
            offset: self.joins.offset.clone(),
            broken: self.joins.broken.clone(),
        };
        let nodes = self.original.len();
        let size = self.space.limit - self.space.first;
        // Groups: root → members with their offsets.
        let mut members: HashMap<Node, Vec<(Node, i32)>> = HashMap::new();
        let mut root_of = vec![(0, 0); nodes];
        for n in 0..nodes as Node {
            let (r, o) = joins.find(n);
            root_of[n as usize] = (r, o);
            members.entry(r).or_default().push((n, o));
        }
        // Alignment each group's base must meet: (modulus, residue) pairs.
        let mut aligned: HashMap<Node, Vec<(i32, i32)>> = HashMap::new();
        for occ in self.occurrences.iter().flatten().flatten().flatten() {
            if occ.width > 1 && occ.nodes.len() == occ.width as usize {
                let (r, o) = root_of[occ.nodes[0] as usize];
                let a = self.space.alignment[occ.width.trailing_zeros() as usize] as i32;
                aligned.entry(r).or_default().push((a, o));
            }
        }
        let words = (self.points as usize).div_ceil(64);
        let mut busy = vec![vec![0u64; words]; size as usize];
        for &(u, p) in &self.reserved {
            busy[u as usize][p as usize / 64] |= 1 << (p % 64);
        }
        let mut place: Vec<Option<Unit>> = vec![None; nodes];
        let mut used = 0u16;
        let occupy = |busy: &mut Vec<Vec<u64>>, n: Node, u: Unit| {
            for &(s, e) in &self.ranges[n as usize] {
                for (w, mask) in words_of(s, e) {
                    busy[u as usize][w] |= mask;
                }
            }
        };
        let pinned = |root: Node, joins: &Joins| {
            joins.broken[root as usize]
                || members[&root].iter().any(|&(n, _)| self.fixed[n as usize])
                || members[&root].iter().any(|&(n, o)| {
                    let (m, mo) = members[&root][0];
                    self.original[n as usize] as i32 - o != self.original[m as usize] as i32 - mo
                })
        };
        // Pinned groups first, where the allocator put them.
        let mut free_groups = Vec::new();
        for (&root, group) in &members {
            if pinned(root, &joins) {
                for &(n, _) in group {
                    let u = self.original[n as usize];
                    place[n as usize] = Some(u);
                    occupy(&mut busy, n, u);
                    used = used.max(u + 1);
                }
            } else {
                let start = group
                    .iter()
                    .flat_map(|&(n, _)| self.ranges[n as usize].iter().map(|r| r.0))
                    .min()
                    .unwrap_or(u32::MAX);
                free_groups.push((start, root));
            }
        }
        free_groups.sort_unstable();
        let mut conflicts: Vec<Vec<Node>> = vec![Vec::new(); nodes];
        for &(x, y) in &self.conflicts {
            conflicts[x as usize].push(y);
            conflicts[y as usize].push(x);
        }
        let mut hints: Vec<Vec<Node>> = vec![Vec::new(); nodes];
        for &(x, y) in &self.hints {
            hints[x as usize].push(y);
            hints[y as usize].push(x);
        }
        let free = |busy: &Vec<Vec<u64>>, n: Node, u: Unit| {
            self.ranges[n as usize]
                .iter()
                .all(|&(s, e)| words_of(s, e).all(|(w, mask)| busy[u as usize][w] & mask == 0))
        };
        for (_, root) in free_groups {
            let group = &members[&root];
            let low = group.iter().map(|&(_, o)| o).min()?;
            let high = group.iter().map(|&(_, o)| o).max()?;
            let rules = aligned.get(&root).map(Vec::as_slice).unwrap_or(&[]);
            let fits = |base: i32, busy: &Vec<Vec<u64>>, place: &Vec<Option<Unit>>| {
                if base + low < 0 || base + high >= size as i32 {
                    return false;
                }
                let abs = base + self.space.first as i32;
                if rules.iter().any(|&(a, o)| (abs + o).rem_euclid(a) != 0) {
                    return false;
                }
                group.iter().all(|&(n, o)| {
                    let u = (base + o) as Unit;
                    free(busy, n, u)
                        && conflicts[n as usize]
                            .iter()
                            .all(|&m| place[m as usize] != Some(u))
                })
            };
            let hinted = group.iter().flat_map(|&(n, o)| {
                hints[n as usize]
                    .iter()
                    .filter_map(|&m| place[m as usize])
                    .map(move |u| u as i32 - o)
                    .collect::<Vec<_>>()
            });
            let candidates: Vec<i32> = hinted.chain(-low..size as i32 - high).collect();
            let base = candidates
                .into_iter()
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
    fn check<I>(&self, blocks: &[Vec<I>], succs: &[Vec<usize>], places: &[Unit]) {
        const UNDEFINED: Node = Node::MAX;
        const MIXED: Node = Node::MAX - 1;
        let mut joins = Joins {
            parent: self.joins.parent.clone(),
            offset: self.joins.offset.clone(),
            broken: self.joins.broken.clone(),
        };
        let size = (self.space.limit - self.space.first) as usize;
        // The web root in each unit at each block's entry.
        let mut entry: Vec<Option<Vec<Node>>> = vec![None; blocks.len()];
        entry[0] = Some(vec![UNDEFINED; size]);
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            let mut state = entry[b].clone().expect("queued blocks have an entry state");
            for (i, occs) in self.occurrences[b].iter().enumerate() {
                for o in occs.iter().flatten() {
                    if matches!(o.role, Role::Use | Role::LateUse) {
                        for &n in &o.nodes {
                            let u = places[n as usize] as usize;
                            let web = joins.find(n).0;
                            debug_assert!(
                                state[u] == web || state[u] == UNDEFINED,
                                "recoloring: block {b} instruction {i} reads unit {u}, \
                                 which holds another value"
                            );
                        }
                    }
                }
                for o in occs.iter().flatten() {
                    if matches!(o.role, Role::Def | Role::EarlyDef) {
                        for &n in &o.nodes {
                            state[places[n as usize] as usize] = joins.find(n).0;
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
        for (b, block) in blocks.iter_mut().enumerate() {
            for (i, inst) in block.iter_mut().enumerate() {
                let occs = &self.occurrences[b][i];
                let mut k = 0;
                inst.visit_operands(&mut |r, _| {
                    if let Some(Some(occ)) = occs.get(k)
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

/// An operand's role and units before nodes exist.
#[derive(Clone, Debug)]
struct Shape {
    role: Role,
    width: u16,
    units: Vec<Unit>,
    fixed: bool,
    /// The use operand (visiting index) a two-address result is written into.
    reuse: Option<usize>,
}

impl Shape {
    fn occurrence(&self, nodes: Vec<Node>) -> Occurrence {
        Occurrence {
            role: self.role,
            width: self.width,
            nodes,
            movable: !self.fixed,
        }
    }
}

/// Reads and writes of one instruction, as unit sets (a kept-lanes write also reads).
fn reads_writes(ops: &[Option<Shape>], keeps_old: bool) -> (Units, Units) {
    let (mut reads, mut writes) = (Units::new(), Units::new());
    for s in ops.iter().flatten() {
        let set = match s.role {
            Role::Use | Role::LateUse => &mut reads,
            Role::Def | Role::EarlyDef => &mut writes,
        };
        for &u in &s.units {
            set.set(u, true);
        }
    }
    if keeps_old {
        reads.union(&writes);
    }
    (reads, writes)
}

/// The units live at the end of each block.
fn liveness<I>(
    blocks: &[Vec<I>],
    succs: &[Vec<usize>],
    shapes: &[Vec<Vec<Option<Shape>>>],
    rules: &Rules<'_, I>,
) -> Vec<Units> {
    let n = blocks.len();
    let summaries: Vec<Vec<(Units, Units)>> = (0..n)
        .map(|b| {
            (0..blocks[b].len())
                .map(|i| reads_writes(&shapes[b][i], (rules.keeps_old)(&blocks[b], i)))
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
                for u in writes.iter() {
                    live.set(u, false);
                }
                live.union(reads);
            }
            changed |= live_in[b].union(&live);
        }
    }
    (0..n).map(|b| out(&live_in, b)).collect()
}

/// The units live at the start of each block, from those live at its end.
fn live_ins<I>(
    blocks: &[Vec<I>],
    shapes: &[Vec<Vec<Option<Shape>>>],
    live_out: &[Units],
    rules: &Rules<'_, I>,
) -> Vec<Units> {
    (0..blocks.len())
        .map(|b| {
            let mut live = live_out[b].clone();
            for i in (0..blocks[b].len()).rev() {
                let (reads, writes) = reads_writes(&shapes[b][i], (rules.keeps_old)(&blocks[b], i));
                for u in writes.iter() {
                    live.set(u, false);
                }
                live.union(&reads);
            }
            live
        })
        .collect()
}
