//! GCN registers: the two files, the special registers, and the partition of each file
//! among the allocator's width classes.

use crate::isa::gcn::mc::Gen;
use crate::machinst::regalloc::FileEnv;
use crate::machinst::{Reg, RegClass, RegFile};

pub const SGPR: RegFile = 0;
pub const VGPR: RegFile = 1;

/// VCC as an allocatable SGPR pair: lane masks and carries prefer it, since the VOP2/VOPC
/// encodings name it implicitly and are half the size of VOP3.
pub const VCC: Reg = Reg::Real {
    file: SGPR,
    class: RegClass::Float,
    hw: 106,
};

/// Addressable SGPRs (GCN3 ISA manual 3.6.1: 102 on gfx8, 104 on gfx6/gfx7; VCC is
/// separate) and VGPRs.
pub fn sgpr_limit(generation: Gen) -> u16 {
    match generation {
        Gen::Gfx6 | Gen::Gfx7 => 104,
        Gen::Gfx8 | Gen::Gfx9 => 102,
    }
}
pub const VGPR_LIMIT: u16 = 256;

/// regalloc2 offers at most 63 registers per class.
const MAX_PER_CLASS: usize = 63;

pub fn vgpr(hw: u16) -> Reg {
    Reg::Real {
        file: VGPR,
        class: RegClass::Int,
        hw,
    }
}

pub fn sgpr(hw: u16) -> Reg {
    Reg::Real {
        file: SGPR,
        class: RegClass::Int,
        hw,
    }
}

pub fn sgpr_pair(hw: u16) -> Reg {
    Reg::Real {
        file: SGPR,
        class: RegClass::Float,
        hw,
    }
}

/// Partitions `first..limit` of a file among singles, pairs and quads for the given demand
/// (registers per class). Singles come first so that the fixed registers of the ABI (v0,
/// v1, … for arguments and work-item ids) are singles; pairs and quads follow, aligned.
/// Returns `None` when the demand does not fit.
pub fn partition(
    file: RegFile,
    first: u16,
    limit: u16,
    demand: [usize; 3],
    min_singles: usize,
    extra: &[(Reg, bool)],
) -> Option<FileEnv> {
    let singles = demand[0].max(min_singles);
    let pairs = demand[1];
    let quads = demand[2];
    if singles > MAX_PER_CLASS || pairs > MAX_PER_CLASS || quads > MAX_PER_CLASS {
        return None;
    }
    let mut next = first;
    let mut classes: [Vec<(u16, bool)>; 3] = Default::default();
    for _ in 0..singles {
        classes[0].push((next, true));
        next += 1;
    }
    // Quads before pairs keeps the alignment padding in one place.
    let align = |n: u16, a: u16| n.div_ceil(a) * a;
    let mut quad_base = align(next, 4);
    // Fill the padding below the quads with pairs/singles where possible.
    if quads == 0 {
        quad_base = next;
    }
    for i in 0..quads {
        classes[2].push((quad_base + 4 * i as u16, true));
    }
    next = quad_base + 4 * quads as u16;
    next = align(next, 2);
    for _ in 0..pairs {
        classes[1].push((next, true));
        next += 2;
    }
    if next > limit {
        return None;
    }
    for &(reg, allocatable) in extra {
        if let Reg::Real { class, hw, .. } = reg {
            classes[class as usize].push((hw, allocatable));
        }
    }
    if classes.iter().any(|c| c.len() > MAX_PER_CLASS) {
        return None;
    }
    Some(FileEnv { file, classes })
}
