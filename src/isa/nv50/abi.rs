//! NV50's calling conventions (`docs/nv50.md`): a kernel as nouveau launches it (the thread
//! id packed in `$r0`, its arguments in `s[0x14]`…), a device function with its argument
//! and result words in `$r0`, `$r1`, … in order, returning with `ret`. A function's stack
//! slots lie in the thread's `l[]` from offset 0, then its spill slots (`docs/nv50.md`,
//! "Local memory").

use crate::ir;
use crate::isa::kernel_param_layout;
use crate::machinst::Reg;
use std::cell::Cell;

/// Where a kernel's arguments start in `s[]`: after the launch's system area.
pub const PARAM_BASE: u32 = 0x14;
/// At most this many bytes of arguments (63 user words: nouveau spends one on `z`).
pub const PARAM_LIMIT: u32 = 252;
/// Where the workgroup segment starts in `s[]`: after the largest argument area, so that
/// every function of a module (a device function does not know its caller's arguments)
/// finds it at the same place (`docs/nv50.md`, "Shared memory").
pub const WORKGROUP_BASE: u32 = PARAM_BASE + PARAM_LIMIT;

/// What the lowering needs to know about the function's inputs.
pub struct Frame {
    /// Kernels: the `s[]` byte offset of each entry-block parameter.
    pub param_offsets: Vec<u32>,
    /// Kernels: bytes of arguments.
    pub param_size: u32,
    /// Kernels: the virtual register holding `$r0` at entry (the packed thread id).
    pub tid: Cell<Option<Reg>>,
    /// Fragment programs reading a perspective input: the fragment's `w`, which their
    /// `interp`s multiply by (`lower/fragment.rs`).
    pub w: Cell<Option<Reg>>,
    /// The `l[]` offset of each stack slot (by index): `isa::stack_frame`'s layout from 0.
    pub stack_slots: Vec<u32>,
    /// The bytes the stack slots take in `l[]`; the spill slots follow.
    pub stack_size: u32,
}

impl Frame {
    /// A kernel's frame. Its arguments take the bytes of GCN's kernarg segment, shifted to
    /// `s[0x14]`, so that the same argument bytes serve both targets (`docs/nv50.md`).
    pub fn kernel(signature: &ir::Signature) -> Frame {
        let (offsets, size) = kernel_param_layout(signature);
        Frame {
            param_offsets: offsets.iter().map(|o| o + PARAM_BASE).collect(),
            param_size: size,
            tid: Cell::new(None),
            w: Cell::new(None),
            stack_slots: Vec::new(),
            stack_size: 0,
        }
    }

    pub fn device() -> Frame {
        Frame {
            param_offsets: Vec::new(),
            param_size: 0,
            tid: Cell::new(None),
            w: Cell::new(None),
            stack_slots: Vec::new(),
            stack_size: 0,
        }
    }
}
