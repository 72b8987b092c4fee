//! Uniform branches: `brif`, `jump` and `br_table` on uniform values, lowered to scalar
//! compares and branches.

use super::super::inst::{Inst, Src};
use super::super::mc::Op;
use super::super::regs::SGPR;
use super::IsleContext;
use super::conditions::scmp_int;
use crate::ir::condcodes::IntCC;
use crate::ir::{self, InstructionData, Opcode, Value};
use crate::machinst::RegClass;

impl IsleContext<'_, '_> {
    /// Lowers a uniform branch (uniform condition, uniform control) to scalar branches.
    pub(super) fn lower_branch(&mut self, inst: ir::Inst, targets: &[usize]) -> Vec<usize> {
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::Jump { .. } => {
                self.emit(Inst::Jump { target: targets[0] });
                vec![targets[0]]
            }
            InstructionData::Brif { arg, .. } => {
                let (cmp, a, b) = self.scalar_condition(arg);
                self.emit(Inst::BrScc {
                    cmp,
                    a,
                    b,
                    taken: targets[0],
                    not_taken: targets[1],
                });
                targets.to_vec()
            }
            InstructionData::BranchTable { arg, .. } => {
                // A compare chain: entry k when the index is k, else the default
                // (`targets[0]`). Its later links are blocks of their own.
                let index = self.cmp_src(IntCC::Equal, arg, SGPR);
                let entries = &targets[1..];
                let Some((&first, rest)) = entries.split_first() else {
                    self.emit(Inst::Jump { target: targets[0] });
                    return vec![targets[0]];
                };
                let mut next = targets[0];
                for (k, &entry) in rest.iter().enumerate().rev() {
                    let link = Inst::BrScc {
                        cmp: Op::SCmpEqU32,
                        a: index,
                        b: Src::Imm(k as u32 + 1),
                        taken: entry,
                        not_taken: next,
                    };
                    next = self
                        .lower
                        .deferred_block(vec![link], vec![(entry, Vec::new()), (next, Vec::new())]);
                }
                self.emit(Inst::BrScc {
                    cmp: Op::SCmpEqU32,
                    a: index,
                    b: Src::Imm(0),
                    taken: first,
                    not_taken: next,
                });
                vec![first, next]
            }
            _ => {
                self.fail(format!("`{}` is not supported", dfg.insts[inst].opcode()));
                Vec::new()
            }
        }
    }

    /// The scalar compare that sets SCC when the uniform branch condition `c` is true: the
    /// condition's own `icmp` when SALU has it, else `c != 0`.
    fn scalar_condition(&mut self, c: Value) -> (Op, Src, Src) {
        let dfg = self.lower.dfg();
        if let ir::ValueDef::Result(def, _) = dfg.value_def(c)
            && let InstructionData::IntCompare {
                opcode: Opcode::Icmp,
                cond,
                args: [x, y],
            } = dfg.insts[def]
            && self.is_uniform(x)
            && self.is_uniform(y)
        {
            let ty = dfg.value_type(x);
            if let Some(op) = scmp_int(cond, ty.bits() == 64, self.backend.generation) {
                let (a, b) = if ty.bits() == 64 {
                    let a = self.pair_of(x, SGPR);
                    let b = self.pair_of(y, SGPR);
                    (Src::Reg(a), Src::Reg(b))
                } else {
                    let a = self.cmp_src(cond, x, SGPR);
                    let b = self.cmp_src(cond, y, SGPR);
                    let [a, b] = self.scalar_pair(a, b);
                    (a, b)
                };
                return (op, a, b);
            }
        }
        if dfg.value_type(c).bits() == 64 {
            let pair = self.pair_of(c, SGPR);
            let lo = self.half(pair, false);
            let hi = self.half(pair, true);
            let any = self.salu(Op::SOrB32, &[Src::Reg(lo), Src::Reg(hi)], RegClass::Int);
            return (Op::SCmpLgU32, Src::Reg(any), Src::Imm(0));
        }
        let a = self.cmp_src(IntCC::NotEqual, c, SGPR);
        (Op::SCmpLgU32, a, Src::Imm(0))
    }
}
