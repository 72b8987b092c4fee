//! Dead-code elimination on VCode: removes instructions without side effects whose defs
//! nothing reads. Lowering is forward and greedy (a folded operand still gets its producer
//! lowered), and this pass cleans up after it.

use super::{MachInst, OperandKind, Reg, VCode};

pub fn run<I: MachInst>(vcode: &mut VCode<I>) {
    let mut uses = vec![0u32; vcode.num_vregs()];
    fn count(uses: &mut [u32], r: &Reg, delta: i32) {
        if let Reg::Virtual { vreg, .. } = *r {
            let n = &mut uses[vreg.vreg()];
            *n = n.wrapping_add_signed(delta);
        }
    }
    for inst in &mut vcode.insts {
        inst.visit_operands(&mut |r, kind| {
            if matches!(
                kind,
                OperandKind::Use
                    | OperandKind::LateUse
                    | OperandKind::UseFixed(_)
                    | OperandKind::UseAny
            ) {
                count(&mut uses, r, 1);
            }
        });
    }
    for block in &vcode.blocks {
        for args in &block.branch_args {
            for r in args {
                count(&mut uses, r, 1);
            }
        }
    }
    // Walk backwards so that a removed instruction's uses free up their producers too.
    let mut dead = vec![false; vcode.insts.len()];
    for index in (0..vcode.insts.len()).rev() {
        let inst = &mut vcode.insts[index];
        if inst.has_side_effects() || inst.is_branch() || inst.is_return() {
            continue;
        }
        let mut live = false;
        let mut has_def = false;
        inst.visit_operands(&mut |r, kind| match kind {
            OperandKind::Def
            | OperandKind::EarlyDef
            | OperandKind::DefFixed(_)
            | OperandKind::DefReuse(_)
            | OperandKind::DefAny => {
                has_def = true;
                if let Reg::Virtual { vreg, .. } = *r {
                    live |= uses[vreg.vreg()] > 0;
                } else {
                    live = true;
                }
            }
            _ => {}
        });
        if live || !has_def {
            continue;
        }
        dead[index] = true;
        inst.visit_operands(&mut |r, kind| {
            if matches!(
                kind,
                OperandKind::Use
                    | OperandKind::LateUse
                    | OperandKind::UseFixed(_)
                    | OperandKind::UseAny
            ) {
                count(&mut uses, r, -1);
            }
        });
    }
    if !dead.iter().any(|&d| d) {
        return;
    }
    // Compact the instruction list and fix up the block ranges.
    let mut new_index = Vec::with_capacity(dead.len() + 1);
    let mut kept = 0;
    for &d in &dead {
        new_index.push(kept);
        if !d {
            kept += 1;
        }
    }
    new_index.push(kept);
    for block in &mut vcode.blocks {
        block.insts = new_index[block.insts.start]..new_index[block.insts.end];
    }
    let mut index = 0;
    vcode.insts.retain(|_| {
        let keep = !dead[index];
        index += 1;
        keep
    });
}
