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
    /// For each loop header, the values defined in its loop and used outside it, sorted.
    escaping: Vec<Vec<ir::Value>>,
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
                // `b`'s edges are added together: a repeated one ends the list.
                if preds[s].last() != Some(&b) {
                    preds[s].push(b);
                }
            }
        }
        let idom = dominators(n, &preds);
        let ipdom = post_dominators(n, &succs, &preds);
        // Natural loops: a back edge goes to a block that dominates its source; any other
        // edge to an earlier block in reverse postorder makes the CFG irreducible. The back
        // edges of one header make one loop, whose body is found walking predecessors.
        let mut back_edges: Vec<(usize, usize)> = Vec::new();
        for (src, ss) in succs.iter().enumerate() {
            for &h in ss {
                if h > src {
                    continue;
                }
                if !dominates(&idom, h, src) {
                    return Err(format!(
                        "irreducible control flow: the edge {} -> {} enters a loop other than \
                         through its header (node splitting is not implemented)",
                        order[src], order[h]
                    ));
                }
                back_edges.push((h, src));
            }
        }
        back_edges.sort_unstable();
        let mut bodies: Vec<(usize, Vec<usize>)> = Vec::new();
        // The header whose body last took each block.
        let mut in_body: Vec<Option<usize>> = vec![None; n];
        for &(h, src) in &back_edges {
            if bodies.last().is_none_or(|(hh, _)| *hh != h) {
                bodies.push((h, Vec::new()));
            }
            let body = &mut bodies.last_mut().unwrap().1;
            if in_body[h] != Some(h) {
                in_body[h] = Some(h);
                body.push(h);
            }
            let mut work = vec![src];
            while let Some(b) = work.pop() {
                if in_body[b] != Some(h) {
                    in_body[b] = Some(h);
                    body.push(b);
                    work.extend(preds[b].iter().copied());
                }
            }
        }
        // Outer loops have more blocks and earlier headers.
        bodies.sort_by_key(|(h, body)| (std::cmp::Reverse(body.len()), *h));
        let mut loops = vec![Vec::new(); n];
        for (h, body) in &bodies {
            for &b in body {
                loops[b].push(*h);
            }
        }
        let escaping = escaping_values(func, &order, &index, &loops);
        Ok(Cfg {
            order,
            index,
            succs,
            preds,
            idom,
            ipdom,
            loops,
            escaping,
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
        // A header is the innermost loop of its own list, at its nesting depth.
        self.loops[h]
            .len()
            .checked_sub(1)
            .is_some_and(|depth| self.loops[b].get(depth) == Some(&h))
    }

    /// Whether `v` is used by an instruction outside the loop with header `h`, `v` being
    /// defined in the loop.
    pub fn used_outside_loop(&self, v: ir::Value, h: usize) -> bool {
        self.escaping[h].binary_search(&v).is_ok()
    }

    /// The values defined in the loop with header `h` and used outside it.
    pub fn escaping(&self, h: usize) -> &[ir::Value] {
        &self.escaping[h]
    }

    /// The blocks a divergent branch at the end of `b` influences: those reachable from its
    /// successors without passing its immediate post-dominator, where lanes may be apart.
    pub fn influence_region(&self, b: usize) -> Vec<usize> {
        let stop = self.ipdom[b];
        let mut seen = std::collections::HashSet::new();
        let mut work: Vec<usize> = self.succs[b].clone();
        let mut region = Vec::new();
        while let Some(x) = work.pop() {
            if Some(x) == stop || !seen.insert(x) {
                continue;
            }
            region.push(x);
            work.extend(self.succs[x].iter().copied());
        }
        region
    }
}

/// For each loop header, the values defined in its loop (block parameters and results)
/// that an instruction outside it uses (as an argument or a block argument), sorted: one
/// scan over the uses of the reachable blocks.
fn escaping_values(
    func: &ir::Function,
    order: &[Block],
    index: &SecondaryMap<Block, Option<usize>>,
    loops: &[Vec<usize>],
) -> Vec<Vec<ir::Value>> {
    let mut escaping = vec![Vec::new(); order.len()];
    if loops.iter().all(|l| l.is_empty()) {
        return escaping;
    }
    for (u, &ub) in order.iter().enumerate() {
        for inst in func.layout.block_insts(ub) {
            for v in func.dfg.inst_values(inst) {
                let v = func.dfg.resolve_aliases(v);
                let def_block = match func.dfg.value_def(v) {
                    ir::ValueDef::Result(i, _) => func.layout.inst_block(i),
                    ir::ValueDef::Param(b, _) => Some(b),
                    _ => None,
                };
                let Some(d) = def_block.and_then(|b| index[b]) else {
                    continue;
                };
                // Loops are nested, outermost first: those containing both blocks are a
                // common prefix, and the rest of the definition's contain it but not the use.
                let common = loops[d]
                    .iter()
                    .zip(&loops[u])
                    .take_while(|(a, b)| a == b)
                    .count();
                for &h in &loops[d][common..] {
                    escaping[h].push(v);
                }
            }
        }
    }
    for values in &mut escaping {
        values.sort_unstable();
        values.dedup();
    }
    escaping
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
/// successors: the dominators of the reversed graph, by the same algorithm as
/// [`dominators`] over its reverse postorder from the exit. A block from which no return
/// is reachable (an endless loop) has none: the virtual exit.
fn post_dominators(n: usize, succs: &[Vec<usize>], preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let exit = n;
    // The reversed graph: the exit leads to the blocks without successors, a block to
    // its predecessors.
    let ends: Vec<usize> = (0..n).filter(|&b| succs[b].is_empty()).collect();
    let rsuccs = |x: usize| -> &[usize] { if x == exit { &ends } else { &preds[x] } };
    let mut number = vec![usize::MAX; n + 1];
    let mut postorder = Vec::with_capacity(n + 1);
    let mut stack = vec![(exit, 0usize)];
    number[exit] = 0;
    while let Some((x, next)) = stack.last_mut() {
        let x = *x;
        if let Some(&y) = rsuccs(x).get(*next) {
            *next += 1;
            if number[y] == usize::MAX {
                number[y] = 0;
                stack.push((y, 0));
            }
        } else {
            number[x] = postorder.len();
            postorder.push(x);
            stack.pop();
        }
    }
    let mut ipdom: Vec<Option<usize>> = vec![None; n + 1];
    ipdom[exit] = Some(exit);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in postorder.iter().rev().skip(1) {
            let mut new: Option<usize> = None;
            let outs: &[usize] = if succs[b].is_empty() {
                &[exit]
            } else {
                &succs[b]
            };
            for &s in outs {
                if ipdom[s].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => s,
                    Some(mut a) => {
                        let mut c = s;
                        while a != c {
                            while number[a] < number[c] {
                                a = ipdom[a].unwrap();
                            }
                            while number[c] < number[a] {
                                c = ipdom[c].unwrap();
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && ipdom[b] != new {
                ipdom[b] = new;
                changed = true;
            }
        }
    }
    ipdom.truncate(n);
    ipdom
        .into_iter()
        .map(|p| p.filter(|&p| p != exit))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg_of(text: &str) -> (ir::Function, Cfg) {
        let func = cranelift_reader::parse_functions(text).unwrap().remove(0);
        let cfg = Cfg::new(&func).unwrap();
        (func, cfg)
    }

    #[test]
    fn nested_loops_and_values_leaving_them() {
        let (func, cfg) = cfg_of(
            "function %f(i32) -> i32 {
             block0(v0: i32):
                 jump block1(v0)
             block1(v1: i32):
                 v2 = iadd v1, v0
                 jump block2(v2)
             block2(v3: i32):
                 v4 = iadd v3, v3
                 brif v4, block2(v4), block3
             block3:
                 brif v2, block1(v4), block4
             block4:
                 return v4
             }",
        );
        let b = |n: u32| cfg.index[ir::Block::from_u32(n)].unwrap();
        let v = |n: u32| ir::Value::from_u32(n);
        assert_eq!(cfg.loops[b(2)], vec![b(1), b(2)]);
        assert!(cfg.in_loop(b(2), b(1)) && cfg.in_loop(b(3), b(1)));
        assert!(!cfg.in_loop(b(3), b(2)) && !cfg.in_loop(b(4), b(1)));
        // v4 leaves the inner loop (read in block3) and the outer one (block4); v2 is
        // read in block3, outside the inner loop but inside the outer one.
        assert!(cfg.used_outside_loop(v(4), b(2)) && cfg.used_outside_loop(v(4), b(1)));
        assert!(!cfg.used_outside_loop(v(2), b(1)));
        assert_eq!(cfg.escaping(b(1)), &[v(4)]);
        assert_eq!(cfg.escaping(b(2)), &[v(4)]);
        assert_eq!(cfg.ipdom[b(2)], Some(b(3)));
        assert_eq!(cfg.ipdom[b(3)], Some(b(4)));
        let _ = func;
    }

    #[test]
    fn a_block_that_never_returns_has_the_virtual_exit_as_post_dominator() {
        let (_, cfg) = cfg_of(
            "function %f(i32) -> i32 {
             block0(v0: i32):
                 brif v0, block1, block2
             block1:
                 jump block1
             block2:
                 return v0
             }",
        );
        let b = |n: u32| cfg.index[ir::Block::from_u32(n)].unwrap();
        // The endless loop is no path to the exit: block2 post-dominates the branch.
        assert_eq!(cfg.ipdom[b(0)], Some(b(2)));
        assert_eq!(cfg.ipdom[b(1)], None);
        assert_eq!(cfg.ipdom[b(2)], None);
    }
}
