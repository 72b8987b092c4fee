//! Where divergent branches reconverge (`docs/nv50.md`, "Placing joinat and join"): for
//! each divergent branch, the join block (its immediate post-dominator) whose `join nop`
//! its `joinat` pushes, and which edges enter that join block rather than the block itself.
//!
//! So far for branches outside loops: a divergent branch inside a loop needs
//! `breakaddr`/`break` for the loop's exits, which is not implemented yet, and is a
//! `CompileError`. A region entered other than through its branch (which would need the
//! blocks copied) is one too.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Uniformity;
use std::collections::{BTreeMap, BTreeSet};

/// The reconvergence of one function, by CFG index (which is the VCode index of the
/// function's own blocks).
#[derive(Default, Debug)]
pub struct Plan {
    /// The join block P of each block ending in a divergent branch that pushes a `joinat`.
    pub joinat: BTreeMap<usize, usize>,
    /// For each join block P, the blocks whose edges into P enter its `join nop` (placed
    /// just before P) instead: the branch blocks and their regions.
    pub join_preds: BTreeMap<usize, BTreeSet<usize>>,
}

impl Plan {
    /// Whether an edge from the block with CFG index `from` into `to` enters `to`'s join.
    pub fn enters_join(&self, from: usize, to: usize) -> bool {
        self.join_preds
            .get(&to)
            .is_some_and(|preds| preds.contains(&from))
    }
}

/// Plans the `joinat`s of `func`'s divergent branches; `Err` says why one cannot be placed.
pub fn plan(cfg: &Cfg, uniformity: &Uniformity) -> Result<Plan, String> {
    let mut plan = Plan::default();
    // Regions already joined, with their join block: a nested branch joining at the same
    // block gets no `joinat` of its own (rule 3).
    let mut regions: Vec<(BTreeSet<usize>, usize)> = Vec::new();
    for (b, &block) in cfg.order.iter().enumerate() {
        if !uniformity.is_divergent_branch(block) {
            continue;
        }
        if !cfg.loops[b].is_empty() {
            return Err(format!(
                "the divergent branch at the end of {block} is inside a loop: reconverging \
                 there needs `breakaddr`/`break`, which the NV50 backend does not emit yet"
            ));
        }
        let Some(p) = cfg.ipdom[b] else {
            // Every path returns: the threads exit apart.
            continue;
        };
        let region: BTreeSet<usize> = cfg.influence_region(b).into_iter().collect();
        for &x in &region {
            if let Some(&outside) = cfg.preds[x]
                .iter()
                .find(|&&q| q != b && !region.contains(&q))
            {
                return Err(format!(
                    "the region of the divergent branch at the end of {block} is also entered \
                     from {} (copying the blocks so that it has one entry is not implemented \
                     yet)",
                    cfg.order[outside]
                ));
            }
        }
        if regions
            .iter()
            .any(|(outer, join)| *join == p && outer.contains(&b))
        {
            continue;
        }
        plan.joinat.insert(b, p);
        let preds = plan.join_preds.entry(p).or_default();
        preds.insert(b);
        preds.extend(region.iter().copied());
        regions.push((region, p));
    }
    Ok(plan)
}
