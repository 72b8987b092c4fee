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

/// EXEC as a register pair.
pub const EXEC: Reg = Reg::Real {
    file: SGPR,
    class: RegClass::Float,
    hw: 126,
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
pub const MAX_PER_CLASS: usize = 63;

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
    let (singles, pairs, quads) = (demand[0].max(min_singles), demand[1], demand[2]);
    if singles > MAX_PER_CLASS || pairs > MAX_PER_CLASS || quads > MAX_PER_CLASS {
        return None;
    }
    // Quads, then pairs, start at the first suitably aligned register after the singles;
    // the alignment gap goes to the singles, where it costs nothing.
    let alignment = match (quads, pairs) {
        (0, 0) => 1,
        (0, _) => 2,
        _ => 4,
    };
    let wide_start = (first + singles as u16).div_ceil(alignment) * alignment;
    let singles = ((wide_start - first) as usize).min(MAX_PER_CLASS);
    let pairs_start = wide_start + 4 * quads as u16;
    if pairs_start + 2 * pairs as u16 > limit {
        return None;
    }
    let mut classes: [Vec<(u16, bool)>; 3] = [
        (0..singles as u16).map(|i| (first + i, true)).collect(),
        (0..pairs as u16)
            .map(|i| (pairs_start + 2 * i, true))
            .collect(),
        (0..quads as u16)
            .map(|i| (wide_start + 4 * i, true))
            .collect(),
    ];
    for &(reg, allocatable) in extra {
        if let Reg::Real { class, hw, .. } = reg {
            classes[class as usize].push((hw, allocatable));
        }
    }
    if classes.iter().any(|c| c.len() > MAX_PER_CLASS) {
        return None;
    }
    Some(FileEnv {
        file,
        classes,
        limit,
    })
}
