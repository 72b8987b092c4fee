//! Branches: a `jump` is a `bra`, a `brif` a predicated `bra` on a `$c` (then a `bra` to
//! the other side, left out at emission where it falls through), a `br_table` a chain of
//! them, one compare per entry. A divergent branch first pushes its join with `joinat`
//! (`reconverge.rs` decides where); the chain of a divergent `br_table` needs only that one:
//! the branch entries its compares push are drained by the same join.

use super::IsleContext;
use super::generated;
use crate::ir::{self, InstructionData, types};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Op, Ty};
use crate::isa::nv50::regs::FLAG;
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    pub(super) fn lower_branch(&mut self, inst: ir::Inst, targets: &[usize]) -> Vec<usize> {
        let func = self.lower.func;
        let block = func
            .layout
            .inst_block(inst)
            .expect("an inserted instruction");
        let b = self.backend.cfg.index[block].expect("a reachable block");
        match func.dfg.insts[inst] {
            InstructionData::Jump { .. } => {
                self.emit(Inst::Jump { target: targets[0] });
                vec![targets[0]]
            }
            InstructionData::Brif { arg, .. } => {
                let (c, cond) = self.condition(arg);
                if let Some(&join) = self.backend.plan.joinat.get(&b) {
                    self.emit(Inst::Joinat { join });
                }
                self.emit(Inst::Branch {
                    cond,
                    c,
                    taken: targets[0],
                    not_taken: targets[1],
                });
                targets.to_vec()
            }
            InstructionData::BranchTable { arg, .. } => {
                // `targets[0]` is the default, then the entries.
                let index = self.table_index(arg);
                if let Some(&join) = self.backend.plan.joinat.get(&b) {
                    self.emit(Inst::Joinat { join });
                }
                let entries = &targets[1..];
                let Some((first, rest)) = entries.split_first() else {
                    self.emit(Inst::Jump { target: targets[0] });
                    return vec![targets[0]];
                };
                // Compare blocks for entries 1…, built from the last, whose other side is
                // the default (or the index's high word was not zero: it is too).
                let mut next = targets[0];
                for (k, &entry) in rest.iter().enumerate().rev() {
                    let mut insts = Vec::new();
                    let c = self.index_is(&mut insts, index, k as u32 + 1);
                    insts.push(Inst::Branch {
                        cond: Cond::Lg,
                        c,
                        taken: entry,
                        not_taken: next,
                    });
                    next = self
                        .lower
                        .deferred_block(insts, vec![(entry, Vec::new()), (next, Vec::new())]);
                }
                let mut insts = Vec::new();
                let c = self.index_is(&mut insts, index, 0);
                for i in insts {
                    self.emit(i);
                }
                self.emit(Inst::Branch {
                    cond: Cond::Lg,
                    c,
                    taken: *first,
                    not_taken: next,
                });
                vec![*first, next]
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

    /// The `br_table` index as a 32-bit register; an i64 index whose high word is not zero
    /// becomes 0xffffffff, which no table reaches (tables are far smaller).
    fn table_index(&mut self, arg: ir::Value) -> Reg {
        let ty = self.lower.dfg().value_type(arg);
        if ty != types::I64 {
            let src = generated::Context::zext(self, ty, arg);
            return self.in_reg(src);
        }
        let r = generated::Context::put_in_reg(self, arg);
        let lo = self.half(r, false);
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut test = Alu::new(
            Op::And,
            Some(Ty::B32),
            None,
            &[Src::Half(r, true), Src::Half(r, true)],
        );
        test.cdst = Some(c);
        self.emit(Inst::Alu(test));
        let all = generated::Context::mov_imm(self, u32::MAX);
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Select {
            dst,
            cond: Cond::Lg,
            c,
            t: all,
            f: lo,
        });
        dst
    }

    /// Appends to `insts` a `set` of a new `$c` whose `lg` holds where `index` is `k`.
    fn index_is(&mut self, insts: &mut Vec<Inst>, index: Reg, k: u32) -> Reg {
        let key = self.vreg(RegClass::Int);
        insts.push(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(key),
            &[Src::Imm(k)],
        )));
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut set = Alu::new(
            Op::Set,
            Some(Ty::U32),
            None,
            &[Src::Reg(index), Src::Reg(key)],
        );
        set.cmp = Some(Cond::E);
        set.cdst = Some(c);
        insts.push(Inst::Alu(set));
        c
    }
}
