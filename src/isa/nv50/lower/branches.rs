//! Branches: a `jump` is a `bra`, a `brif` a predicated `bra` on a `$c` (then a `bra` to
//! the other side, left out at emission where it falls through). A divergent `brif` first
//! pushes its join block with `joinat` (`reconverge.rs` decides where).

use super::IsleContext;
use crate::ir::{self, InstructionData};
use crate::isa::nv50::inst::Inst;

impl IsleContext<'_, '_> {
    pub(super) fn lower_branch(&mut self, inst: ir::Inst, targets: &[usize]) -> Vec<usize> {
        let func = self.lower.func;
        match func.dfg.insts[inst] {
            InstructionData::Jump { .. } => {
                self.emit(Inst::Jump { target: targets[0] });
                vec![targets[0]]
            }
            InstructionData::Brif { arg, .. } => {
                let (c, cond) = self.condition(arg);
                let block = func
                    .layout
                    .inst_block(inst)
                    .expect("an inserted instruction");
                let b = self.backend.cfg.index[block].expect("a reachable block");
                if let Some(&p) = self.backend.plan.joinat.get(&b) {
                    self.emit(Inst::Joinat { before: p });
                }
                self.emit(Inst::Branch {
                    cond,
                    c,
                    taken: targets[0],
                    not_taken: targets[1],
                });
                targets.to_vec()
            }
            _ => {
                let opcode = func.dfg.insts[inst].opcode();
                self.fail(format!(
                    "`{opcode}` is not supported by the NV50 backend yet"
                ));
                targets.to_vec()
            }
        }
    }
}
