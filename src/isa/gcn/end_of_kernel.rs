//! What no one observes in a kernel, which ends with `s_endpgm` and returns no registers:
//! the blocks that end it at once (no memory access needs to have finished there,
//! `insert_waitcnt`), the scalar results written on the way to `s_endpgm` that nothing
//! reads, such as a join block's lane mask accumulated before a join that only ends the
//! kernel, and the scalar results nothing in the kernel reads at all, such as the entry
//! lanes a device function would restore before returning. (Allocated registers are freed
//! by `copies`' dead-code step already; lane-mask registers are fixed, outside it.)

use super::copies::units;
use super::inst::{Inst, Src};
use super::regs::EXEC;
use crate::machinst::{MachInst, OperandKind};

/// Whether each block ends the kernel at once: it is only `s_endpgm`, or only a jump to
/// such a block (an empty join block before the exit).
pub fn ending_blocks(blocks: &[Vec<Inst>]) -> Vec<bool> {
    let mut ends: Vec<bool> = blocks
        .iter()
        .map(|b| matches!(b.as_slice(), [Inst::EndPgm]))
        .collect();
    // Each round resolves one more jump of a chain; a chain is at most all the blocks.
    for _ in 0..blocks.len() {
        let mut changed = false;
        for (b, block) in blocks.iter().enumerate() {
            if let [Inst::Jump { target }] = block.as_slice()
                && !ends[b]
                && ends.get(*target).copied() == Some(true)
            {
                ends[b] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    ends
}

/// Removes the SALU instructions whose results no instruction of the kernel reads (an SALU
/// instruction's other result, SCC, is never read across instructions), until none is
/// left. A read by an SALU instruction that writes the same register back (`s_or_b64 m,
/// m, exec`, a join's mask gathering its edges) does not count: such a value flows only
/// into itself. To run after the last pass that adds reads of SGPRs
/// (`expand_wave_copies`).
pub fn remove_unread_scalar_writes(blocks: &mut [Vec<Inst>]) {
    loop {
        let mut read: Vec<u16> = Vec::new();
        for inst in blocks.iter().flatten() {
            let accumulates = |r: &crate::machinst::Reg| {
                matches!(inst, Inst::Salu { op, dst: Some(dst), .. }
                    if dst == r && !op.info().name.contains("saveexec"))
            };
            inst.clone().visit_operands(&mut |r, kind| {
                if accumulates(r) {
                    return;
                }
                if is_use(kind)
                    && let Some(units) = units(*r)
                {
                    read.extend(units);
                }
            });
        }
        let unread = |inst: &Inst| {
            matches!(inst, Inst::Salu { dst: Some(dst), .. }
                if units(*dst).is_some_and(|us| us.iter().all(|u| !read.contains(u))))
        };
        if !blocks.iter().flatten().any(unread) {
            return;
        }
        for block in blocks.iter_mut() {
            block.retain(|inst| !unread(inst));
        }
    }
}

/// Removes the writes of all of EXEC at the end of a block that only jumps on to a block
/// setting all of EXEC again first, without reading it: no instruction runs under the
/// value they leave (a join block's mask before a fragment shader's exports set EXEC to
/// the lanes not discarded).
pub fn remove_overwritten_exec_writes(blocks: &mut [Vec<Inst>]) {
    let sets_exec = |inst: &Inst| {
        matches!(inst, Inst::Salu { op, dst: Some(dst), srcs }
            if *dst == EXEC && op.info().dst == 2 && !srcs.contains(&Src::Reg(EXEC)))
    };
    // The block a jump to `b` arrives at, through blocks that only jump.
    let arrival = |mut b: usize| {
        for _ in 0..blocks.len() {
            match blocks[b].as_slice() {
                [Inst::Jump { target }] => b = *target,
                _ => break,
            }
        }
        b
    };
    let overwritten: Vec<bool> = blocks
        .iter()
        .map(|block| match block.last() {
            Some(Inst::Jump { target }) => blocks[arrival(*target)].first().is_some_and(sets_exec),
            _ => false,
        })
        .collect();
    for (block, overwritten) in blocks.iter_mut().zip(overwritten) {
        if !overwritten {
            continue;
        }
        // Backwards from the jump while nothing reads EXEC: SALU instructions that do not
        // name it (the saveexec forms read it without naming it); everything else runs
        // under it.
        let mut at = block.len() - 1;
        while at > 0 {
            at -= 1;
            match &block[at] {
                inst if sets_exec(inst) => {
                    block.remove(at);
                }
                Inst::Salu { op, srcs, .. }
                    if !srcs.contains(&Src::Reg(EXEC)) && !op.info().name.contains("saveexec") => {}
                _ => break,
            }
        }
    }
}

fn is_use(kind: OperandKind) -> bool {
    matches!(
        kind,
        OperandKind::Use | OperandKind::LateUse | OperandKind::UseFixed(_) | OperandKind::UseAny
    )
}

/// Removes, in the blocks that end the kernel (their last instruction is `s_endpgm` or a
/// jump to a block of `ends`), the SALU instructions whose results no later instruction of
/// the block reads. Their SCC result is not read either: no branch follows. EXEC, VCC and
/// the other special registers are never removed as results. The waits and L1
/// invalidations of an atomic's ordering with no memory access after them go too: they
/// order nothing (a dispatch's end makes its writes visible by itself).
pub fn remove_dead_scalar_writes(blocks: &mut [Vec<Inst>], ends: &[bool]) {
    for block in blocks.iter_mut() {
        let ending = match block.last() {
            Some(Inst::EndPgm) => true,
            Some(Inst::Jump { target }) => ends.get(*target).copied() == Some(true),
            _ => false,
        };
        if !ending {
            continue;
        }
        let mut read: Vec<u16> = Vec::new();
        let mut kept = Vec::with_capacity(block.len());
        let mut accesses_after = false;
        for mut inst in std::mem::take(block).into_iter().rev() {
            if let Inst::Salu { dst: Some(dst), .. } = &inst
                && let Some(written) = units(*dst)
                && written.iter().all(|u| !read.contains(u))
            {
                continue;
            }
            let ordering = matches!(inst, Inst::Waitcnt { .. } | Inst::InvalidateL1);
            if ordering && !accesses_after {
                continue;
            }
            accesses_after |= !ordering
                && !matches!(
                    inst,
                    Inst::Salu { .. }
                        | Inst::Valu { .. }
                        | Inst::Copy { .. }
                        | Inst::EndPgm
                        | Inst::Jump { .. }
                );
            inst.visit_operands(&mut |r, kind| {
                if is_use(kind)
                    && let Some(units) = units(*r)
                {
                    read.extend(units);
                }
            });
            kept.push(inst);
        }
        kept.reverse();
        *block = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::{sgpr_pair, vgpr};
    use crate::machinst::Reg;
    use smallvec::smallvec;

    fn or_exec(dst: Reg) -> Inst {
        Inst::Salu {
            op: Op::SOrB64,
            dst: Some(dst),
            srcs: smallvec![Src::Reg(dst), Src::Reg(EXEC)],
        }
    }

    fn set_exec(mask: Reg) -> Inst {
        Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(mask)],
        }
    }

    #[test]
    fn exec_set_again_after_the_jump_is_not_kept() {
        let (join, live) = (sgpr_pair(6), sgpr_pair(2));
        // A join's mask, then a jump (through a block that only jumps) to exports under
        // the live lanes: the join's EXEC is never used; its OR reads EXEC and stays.
        let mut blocks = vec![
            vec![or_exec(join), set_exec(join), Inst::Jump { target: 1 }],
            vec![Inst::Jump { target: 2 }],
            vec![set_exec(live), Inst::EndPgm],
        ];
        remove_overwritten_exec_writes(&mut blocks);
        assert_eq!(blocks[0], vec![or_exec(join), Inst::Jump { target: 1 }]);
        // Kept when something runs under it, or the next block reads EXEC first.
        let under = vec![set_exec(join), store(None), Inst::Jump { target: 1 }];
        let mut blocks = vec![under.clone(), vec![set_exec(live), Inst::EndPgm]];
        remove_overwritten_exec_writes(&mut blocks);
        assert_eq!(blocks[0], under);
        let jump = vec![set_exec(join), Inst::Jump { target: 1 }];
        let mut blocks = vec![jump.clone(), vec![or_exec(live), Inst::EndPgm]];
        remove_overwritten_exec_writes(&mut blocks);
        assert_eq!(blocks[0], jump);
    }

    #[test]
    fn a_mask_only_gathering_into_itself_is_unread() {
        let (join, other) = (sgpr_pair(8), sgpr_pair(10));
        let start = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(join),
            srcs: smallvec![Src::Reg(EXEC)],
        };
        let mut blocks = vec![vec![start.clone(), or_exec(join), Inst::EndPgm]];
        remove_unread_scalar_writes(&mut blocks);
        assert_eq!(blocks[0], vec![Inst::EndPgm]);
        // Read by another instruction, it stays.
        let read = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(other),
            srcs: smallvec![Src::Reg(join)],
        };
        let code = vec![start, or_exec(join), read, set_exec(other), Inst::EndPgm];
        let mut blocks = vec![code.clone()];
        remove_unread_scalar_writes(&mut blocks);
        assert_eq!(blocks[0], code);
    }

    fn store(sbase: Option<Reg>) -> Inst {
        Inst::Store {
            op: Op::GlobalStoreDword,
            addr: vgpr(2),
            offset: 0,
            data: vgpr(0),
            sbase,
        }
    }

    #[test]
    fn jumps_to_the_end_end_the_kernel() {
        let blocks = vec![
            vec![Inst::Jump { target: 2 }],
            vec![Inst::Jump { target: 3 }],
            vec![Inst::Jump { target: 1 }],
            vec![Inst::EndPgm],
            vec![store(None), Inst::Jump { target: 3 }],
        ];
        assert_eq!(ending_blocks(&blocks), [true, true, true, true, false]);
    }

    #[test]
    fn only_unread_scalar_results_before_the_end_go() {
        let mask = sgpr_pair(12);
        let base = sgpr_pair(14);
        let set_base = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(base),
            srcs: smallvec![Src::Imm(0)],
        };
        let restore = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(mask)],
        };
        let mut blocks = vec![
            vec![
                or_exec(mask),
                set_base.clone(),
                store(Some(base)),
                or_exec(mask),
                Inst::Jump { target: 1 },
            ],
            vec![Inst::EndPgm],
            // Not ending: a branch follows, which reads the mask's block.
            vec![or_exec(mask), Inst::Jump { target: 0 }],
        ];
        let ends = ending_blocks(&blocks);
        remove_dead_scalar_writes(&mut blocks, &ends);
        assert_eq!(
            blocks[0],
            vec![set_base, store(Some(base)), Inst::Jump { target: 1 }]
        );
        assert_eq!(blocks[2], vec![or_exec(mask), Inst::Jump { target: 0 }]);
        // EXEC is never a removed result, and a mask EXEC is set from stays.
        let mut blocks = vec![vec![or_exec(mask), restore.clone(), Inst::EndPgm]];
        remove_dead_scalar_writes(&mut blocks, &[true]);
        assert_eq!(blocks[0], vec![or_exec(mask), restore, Inst::EndPgm]);
    }

    #[test]
    fn scalar_results_nothing_reads_go() {
        let entry = sgpr_pair(6);
        let mask = sgpr_pair(12);
        let save = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(entry),
            srcs: smallvec![Src::Reg(EXEC)],
        };
        let set_mask = Inst::Salu {
            op: Op::SAndB64,
            dst: Some(mask),
            srcs: smallvec![Src::Reg(EXEC), Src::Reg(entry)],
        };
        let restore = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(mask)],
        };
        // Unread: the mask, then the entry lanes only it read.
        let mut blocks = vec![vec![save.clone(), set_mask.clone()], vec![Inst::EndPgm]];
        remove_unread_scalar_writes(&mut blocks);
        assert_eq!(blocks, vec![vec![], vec![Inst::EndPgm]]);
        // Read in another block: all stay.
        let mut blocks = vec![vec![save, set_mask], vec![restore, Inst::EndPgm]];
        let before = blocks.clone();
        remove_unread_scalar_writes(&mut blocks);
        assert_eq!(blocks, before);
    }
}
