//! The control-flow graph of a CLIF function as the GPU analyses see it: reachable blocks
//! in reverse postorder, dominators and post-dominators, natural loops, and the region a
//! divergent branch influences. Blocks are numbered by their reverse-postorder index.

use crate::ir::{self, Block};
use cranelift_codegen::entity::SecondaryMap;

pub struct Cfg {
    /// Reachable blocks in reverse postorder.
    pub order: Vec<Block>,
    /// Each block's index in `order`; `None` for unreachable blocks.
    pub index: SecondaryMap<Block, Option<usize>>,
    /// Successors in the order of the terminator's destinations (a `br_table` may repeat
    /// one), and predecessors.
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Immediate dominators (the entry has itself).
    pub idom: Vec<usize>,
    /// Immediate post-dominators; `None` is the virtual exit every return leads to.
    pub ipdom: Vec<Option<usize>>,
    /// For each block, the headers of the loops containing it, outermost first.
    pub loops: Vec<Vec<usize>>,
}

/// The blocks a terminator may branch to, in order.
pub fn destinations(func: &ir::Function, inst: ir::Inst) -> Vec<(Block, Vec<ir::BlockArg>)> {
    func.dfg.insts[inst]
        .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
        .iter()
        .map(|call| {
            (
                call.block(&func.dfg.value_lists),
                call.args(&func.dfg.value_lists).collect(),
            )
        })
        .collect()
}

impl Cfg {
    /// Builds the graph; `Err` names an irreducible loop.
    pub fn new(func: &ir::Function) -> Result<Cfg, String> {
        let Some(entry) = func.layout.entry_block() else {
            return Err("the function has no blocks".into());
        };
        let block_succs = |b: Block| -> Vec<Block> {
            func.layout
                .last_inst(b)
                .map(|t| destinations(func, t).into_iter().map(|(d, _)| d).collect())
                .unwrap_or_default()
        };
        // Iterative depth-first search for the postorder.
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut postorder = Vec::new();
        let mut stack = vec![(entry, block_succs(entry), 0usize)];
        visited[entry] = true;
        while let Some((b, succs, next)) = stack.last_mut() {
            if *next < succs.len() {
                let s = succs[*next];
                *next += 1;
                if !visited[s] {
                    visited[s] = true;
                    let ss = block_succs(s);
                    stack.push((s, ss, 0));
                }
            } else {
                postorder.push(*b);
                stack.pop();
            }
        }
        let order: Vec<Block> = postorder.into_iter().rev().collect();
        let mut index = SecondaryMap::new();
        for (i, &b) in order.iter().enumerate() {
            index[b] = Some(i);
        }
        let n = order.len();
        let succs: Vec<Vec<usize>> = order
            .iter()
            .map(|&b| {
                block_succs(b)
                    .iter()
                    .map(|&s| index[s].expect("reachable"))
                    .collect()
            })
            .collect();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        let idom = dominators(n, &preds);
        let ipdom = post_dominators(n, &succs);
        // Natural loops: a back edge goes to a block that dominates its source; any other
        // edge to an earlier block in reverse postorder makes the CFG irreducible.
        let dominates = |a: usize, b: usize| dominates(&idom, a, b);
        let mut bodies: Vec<(usize, Vec<bool>)> = Vec::new();
        for (src, ss) in succs.iter().enumerate() {
            for &h in ss {
                if h > src {
                    continue;
                }
                if !dominates(h, src) {
                    return Err(format!(
                        "irreducible control flow: the edge {} -> {} enters a loop other than \
                         through its header (node splitting is not implemented)",
                        order[src], order[h]
                    ));
                }
                let body = match bodies.iter_mut().find(|(hh, _)| *hh == h) {
                    Some((_, body)) => body,
                    None => {
                        bodies.push((h, vec![false; n]));
                        &mut bodies.last_mut().unwrap().1
                    }
                };
                body[h] = true;
                let mut work = vec![src];
                while let Some(b) = work.pop() {
                    if !body[b] {
                        body[b] = true;
                        work.extend(preds[b].iter().copied());
                    }
                }
            }
        }
        // Outer loops have more blocks and earlier headers.
        bodies
            .sort_by_key(|(h, body)| (std::cmp::Reverse(body.iter().filter(|&&x| x).count()), *h));
        let mut loops = vec![Vec::new(); n];
        for (h, body) in &bodies {
            for b in 0..n {
                if body[b] {
                    loops[b].push(*h);
                }
            }
        }
        Ok(Cfg {
            order,
            index,
            succs,
            preds,
            idom,
            ipdom,
            loops,
        })
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Whether `a` dominates `b`.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        dominates(&self.idom, a, b)
    }

    /// Whether `b` is in the loop with header `h`.
    pub fn in_loop(&self, b: usize, h: usize) -> bool {
        self.loops[b].contains(&h)
    }

    /// Whether `v` is used by an instruction outside the loop with header `h`.
    pub fn used_outside_loop(&self, func: &ir::Function, v: ir::Value, h: usize) -> bool {
        self.order.iter().enumerate().any(|(x, &xb)| {
            !self.in_loop(x, h)
                && func.layout.block_insts(xb).any(|inst| {
                    func.dfg
                        .inst_values(inst)
                        .any(|a| func.dfg.resolve_aliases(a) == v)
                })
        })
    }

    /// The blocks a divergent branch at the end of `b` influences: those reachable from its
    /// successors without passing its immediate post-dominator, where lanes may be apart.
    pub fn influence_region(&self, b: usize) -> Vec<usize> {
        let stop = self.ipdom[b];
        let mut seen = vec![false; self.len()];
        let mut work: Vec<usize> = self.succs[b].clone();
        let mut region = Vec::new();
        while let Some(x) = work.pop() {
            if Some(x) == stop || seen[x] {
                continue;
            }
            seen[x] = true;
            region.push(x);
            work.extend(self.succs[x].iter().copied());
        }
        region
    }
}

fn dominates(idom: &[usize], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        if idom[b] == b {
            return false;
        }
        b = idom[b];
    }
}

/// Immediate dominators over reverse-postorder indices (Cooper, Harvey, Kennedy, "A
/// Simple, Fast Dominance Algorithm").
fn dominators(n: usize, preds: &[Vec<usize>]) -> Vec<usize> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return Vec::new();
    }
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut c = p;
                        while a != c {
                            while a > c {
                                a = idom[a].unwrap();
                            }
                            while c > a {
                                c = idom[c].unwrap();
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom.into_iter().map(|d| d.unwrap_or(0)).collect()
}

/// Immediate post-dominators, with a virtual exit (index `n`) after every block without
/// successors; computed as dominators of the reversed graph by iterating sets (the
/// graphs are small).
fn post_dominators(n: usize, succs: &[Vec<usize>]) -> Vec<Option<usize>> {
    let exit = n;
    let all: Vec<bool> = vec![true; n + 1];
    let mut pdom: Vec<Vec<bool>> = vec![all.clone(); n + 1];
    pdom[exit] = vec![false; n + 1];
    pdom[exit][exit] = true;
    let rsuccs = |b: usize| -> Vec<usize> {
        if succs[b].is_empty() {
            vec![exit]
        } else {
            succs[b].clone()
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut new = all.clone();
            for s in rsuccs(b) {
                for k in 0..=n {
                    new[k] &= pdom[s][k];
                }
            }
            new[b] = true;
            if new != pdom[b] {
                pdom[b] = new;
                changed = true;
            }
        }
    }
    // The immediate post-dominator is the strict post-dominator that all others
    // post-dominate.
    (0..n)
        .map(|b| {
            let strict: Vec<usize> = (0..=n).filter(|&k| k != b && pdom[b][k]).collect();
            let ip = strict
                .iter()
                .copied()
                .find(|&c| strict.iter().all(|&o| o == c || pdom[c][o]))?;
            (ip != exit).then_some(ip)
        })
        .collect()
}
