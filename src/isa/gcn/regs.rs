//! GCN registers: the two files, the special registers, and each file as the allocation
//! driver sees it.

use crate::isa::gcn::mc::Gen;
use crate::machinst::regalloc::{RegisterFile, Spill};
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

/// The two files as the allocation driver sees them (`machinst::regalloc::run`): SGPRs from
/// `first_sgpr` (after the ones the hardware initialises, the return address and the lane
/// masks) below `sgpr_limit`, with VCC offered as an extra pair; VGPRs from v0 (the fixed
/// ABI registers v0, v1, … are the partition's singles) below `vgpr_limit` (the VGPRs above
/// hold lane masks that found no SGPR pair). Pairs are aligned to 2 and quads to 4 (the
/// hardware requires it of SGPR tuples; VGPR tuples are aligned alike, see
/// `docs/decisions.md`). Both files spill into their own registers above the partition, and
/// with `to_memory` beyond them into memory (`place_spills`: SGPRs into VGPR lanes, VGPRs
/// into scratch). In a function that calls (`calls`), which always spills to memory, no
/// register a call clobbers holds a spill slot: SGPRs spill straight to memory, VGPRs into
/// spare registers from [`FIRST_CALLEE_SAVED_VGPR`] only.
pub fn files(
    first_sgpr: u16,
    sgpr_limit: u16,
    vgpr_limit: u16,
    to_memory: bool,
    calls: bool,
) -> [RegisterFile; 2] {
    let spill = |spare_from| match (to_memory, calls) {
        (_, true) => Spill::Memory { spare_from },
        (true, false) => Spill::Memory { spare_from: 0 },
        (false, false) => Spill::SpareRegisters,
    };
    [
        RegisterFile {
            file: SGPR,
            first: first_sgpr,
            limit: sgpr_limit,
            alignment: ALIGNMENT,
            special: vec![(VCC, true)],
            spill: spill(sgpr_limit),
        },
        RegisterFile {
            file: VGPR,
            first: 0,
            limit: vgpr_limit,
            alignment: ALIGNMENT,
            special: Vec::new(),
            spill: spill(FIRST_CALLEE_SAVED_VGPR),
        },
    ]
}

/// The VGPRs from here up keep their values across a call (`docs/ir.md`, "Calls"); a call
/// clobbers the ones below and every SGPR.
pub const FIRST_CALLEE_SAVED_VGPR: u16 = 32;

/// Alignment of singles, pairs and quads.
pub const ALIGNMENT: [u16; 3] = [1, 2, 4];
