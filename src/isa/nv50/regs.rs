//! NV50 registers: the two files the allocator fills and their descriptions for the shared
//! driver (`machinst::regalloc::run`).
//!
//! - `$r0`–`$r127` (32-bit; 64-bit values in even pairs `$rNd`, 128-bit in quads `$rNq`:
//!   `docs/nv50.md`, "Registers"). Short and immediate forms reach only `$r0`–`$r63`;
//!   emission falls back to long forms above. Values beyond them spill into `l[]`
//!   (`Spill::Memory`, `place_spills.rs`).
//! - `$c0`–`$c3`, the flag registers: compare results that branches, `select` and carries
//!   read. When more are live at once, the others spill into `$r` (`Spill::IntoFile`): the
//!   shared driver places them in `$r` above all the function's own, and the allocator's
//!   moves become `mov $r $cN` (the four flags in bits 0–3) and `mov $cN $r` (`emit.rs`).
//!   There is no move between two `$c`: it goes through one more such `$r`.
//!
//! `$a1`–`$a4` are not allocated: wavelift reads `s[]` (arguments, system values) at fixed
//! offsets, and only G80's kernel arguments beyond an operand's offset field go through
//! `$a1`/`$a2`, written once at the kernel's start (`Inst::SetAddr`).

use crate::machinst::regalloc::{RegisterFile, Spill};
use crate::machinst::{Reg, RegClass, RegFile};

/// `$r`.
pub const GPR: RegFile = 0;
/// `$c`.
pub const FLAG: RegFile = 1;

/// `$r` per thread (`isa.rst`: up to 128).
pub const GPR_LIMIT: u16 = 128;
/// `$c` registers.
pub const FLAG_LIMIT: u16 = 4;

/// The first `$r` a call keeps (`docs/ir.md`, "Calls"): `$r0`–`$r15` carry arguments and
/// results and are clobbered, `$r16`–`$r127` are the callee's to save.
pub const FIRST_CALLEE_SAVED_GPR: u16 = 16;

/// `$rN`.
pub fn gpr(hw: u16) -> Reg {
    Reg::Real {
        file: GPR,
        class: RegClass::Int,
        hw,
    }
}

/// The two files as the allocation driver sees them: `$r` from `$r0` up to `gpr_limit` (the
/// fixed ABI registers `$r0`, `$r1`, … are the partition's singles), pairs aligned to 2 and
/// quads to 4 as the encodings require, spilling into its own spare registers, and with
/// `to_memory` then into `l[]` (`place_spills.rs`); `$c` with one width, after `$r` (its
/// spills go above the `$r` the function uses, below [`GPR_LIMIT`]: a `gpr_limit` below it
/// leaves them room). In a function that calls (`calls`), which always may spill to
/// memory, no register a call clobbers holds a spill slot: `$r` spills into spare
/// registers from [`FIRST_CALLEE_SAVED_GPR`] only, and so do the flags.
pub fn files(gpr_limit: u16, to_memory: bool, calls: bool) -> [RegisterFile; 2] {
    let kept = if calls { FIRST_CALLEE_SAVED_GPR } else { 0 };
    [
        RegisterFile {
            file: GPR,
            first: 0,
            limit: gpr_limit,
            alignment: [1, 2, 4],
            special: Vec::new(),
            spill: if to_memory || calls {
                Spill::Memory { spare_from: kept }
            } else {
                Spill::SpareRegisters
            },
        },
        RegisterFile {
            file: FLAG,
            first: 0,
            limit: FLAG_LIMIT,
            alignment: [1, 1, 1],
            special: Vec::new(),
            spill: Spill::IntoFile {
                file: GPR,
                from: kept,
                limit: GPR_LIMIT,
            },
        },
    ]
}
