//! The layout of a linearized function (mask linearization, see `docs/decisions.md`): the
//! reachable blocks in a reverse postorder in which every loop is contiguous, so that a
//! wave can run the blocks one after another with a lane mask (GCN: EXEC) masking the lanes
//! of each, and a loop ends in a single backward branch taken while any lane continues.

use crate::analysis::cfg::Cfg;

pub struct Layout {
    /// CFG block indices (reverse-postorder numbers) in linear order; the entry is first.
    pub order: Vec<usize>,
    /// The position of each CFG block in `order`.
    pub pos: Vec<usize>,
    /// For each loop header, the position of its loop's last block.
    pub loop_end: Vec<Option<usize>>,
}

impl Layout {
    pub fn new(cfg: &Cfg) -> Layout {
        let n = cfg.len();
        let mut placed = vec![false; n];
        let mut order = Vec::with_capacity(n);
        // The blocks of each loop, by header, in reverse postorder.
        let mut members = vec![Vec::new(); n];
        for b in 0..n {
            for &h in &cfg.loops[b] {
                members[h].push(b);
            }
        }
        let all: Vec<usize> = (0..n).collect();
        place(cfg, &members, None, &all, 0, &mut placed, &mut order);
        let mut pos = vec![0; n];
        for (p, &b) in order.iter().enumerate() {
            pos[b] = p;
        }
        let mut loop_end = vec![None; n];
        for (p, &b) in order.iter().enumerate() {
            for &h in &cfg.loops[b] {
                loop_end[h] = Some(loop_end[h].map_or(p, |e: usize| e.max(p)));
            }
        }
        Layout {
            order,
            pos,
            loop_end,
        }
    }

    /// Whether `b` heads a loop.
    pub fn is_header(&self, b: usize) -> bool {
        self.loop_end[b].is_some()
    }
}

/// Places the blocks of the loop headed by `header` (the whole function for `None`, at
/// loop depth `depth`; `blocks` are its blocks in reverse postorder) in reverse postorder, each nested loop as one contiguous run. A
/// loop's header comes first among its blocks in reverse postorder (it dominates them),
/// and only the header has predecessors outside the loop, so moving a whole loop to the
/// place of its header keeps every forward edge pointing forward.
fn place(
    cfg: &Cfg,
    members: &[Vec<usize>],
    header: Option<usize>,
    blocks: &[usize],
    depth: usize,
    placed: &mut [bool],
    out: &mut Vec<usize>,
) {
    for &b in blocks {
        if placed[b] {
            continue;
        }
        let loops = &cfg.loops[b];
        if loops.len() > depth && Some(loops[depth]) != header {
            let inner = loops[depth];
            debug_assert_eq!(inner, b, "a loop's header precedes its blocks");
            place(
                cfg,
                members,
                Some(inner),
                &members[inner],
                depth + 1,
                placed,
                out,
            );
        } else {
            placed[b] = true;
            out.push(b);
        }
    }
}
