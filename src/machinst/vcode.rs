//! VCode: a function's machine instructions on virtual registers, in blocks.

use super::{MachInst, Reg, RegClass, RegFile};
use std::ops::Range;

/// One block of VCode.
#[derive(Clone, Debug, Default)]
pub struct VBlock {
    /// Index range of the block's instructions in [`VCode::insts`]; the last one is the
    /// block's terminator (a branch or a return).
    pub insts: Range<usize>,
    pub succs: Vec<usize>,
    pub preds: Vec<usize>,
    pub params: Vec<Reg>,
    /// For each successor, the registers the terminator passes to its parameters.
    pub branch_args: Vec<Vec<Reg>>,
}

/// A function in machine instructions over virtual registers.
#[derive(Clone, Debug)]
pub struct VCode<I> {
    pub insts: Vec<I>,
    pub blocks: Vec<VBlock>,
    /// The register file of each virtual register, by vreg index.
    pub vreg_files: Vec<RegFile>,
    pub vreg_classes: Vec<RegClass>,
}

impl<I: MachInst> VCode<I> {
    pub fn new() -> Self {
        VCode {
            insts: Vec::new(),
            blocks: Vec::new(),
            vreg_files: Vec::new(),
            vreg_classes: Vec::new(),
        }
    }

    /// A fresh virtual register of `file` and `class`.
    pub fn new_vreg(&mut self, file: RegFile, class: RegClass) -> Reg {
        let index = self.vreg_files.len();
        self.vreg_files.push(file);
        self.vreg_classes.push(class);
        Reg::Virtual {
            file,
            vreg: regalloc2::VReg::new(index, class),
        }
    }

    pub fn num_vregs(&self) -> usize {
        self.vreg_files.len()
    }
}

impl<I: MachInst> Default for VCode<I> {
    fn default() -> Self {
        Self::new()
    }
}
