//! Linearized code: `s_cbranch_execz` over the work of blocks no lane enters.
//!
//! In a linearized function every block runs, with EXEC set to its lane mask (see
//! `machinst::divergence::linearize`); a block no lane takes runs with EXEC = 0. Its
//! vector instructions then change nothing, but they still take their issue cycles, and
//! memory instructions and waits still cost. After allocation, this pass finds, where EXEC
//! holds a block's lanes (after `s_mov_b64 exec, mask`), the runs of instructions that
//! have no effect when EXEC is 0 and branches over each when EXEC is 0.
//!
//! What may be skipped: VALU work (its results are only read by lanes that ran it: a
//! value's definition dominates its uses, so a lane reading it went through the block that
//! defines it; lane masks a skipped compare leaves stale are only ANDed with EXEC = 0 by
//! the edge code after the run), masked moves, vector memory instructions, the lane
//! permutes of the LDS unit and waits.
//! What must run: scalar instructions (lane-mask bookkeeping, EXEC, uniform values),
//! the allocator's moves (whole-wave copies between EXEC saves: the lanes they move are
//! not this block's), scalar loads, branches and returns.
//!
//! A run starts only where nothing can be in flight (no memory instruction earlier in the
//! block; every block starts with nothing in flight), so skipping the waits inside it
//! leaves nothing outstanding that the code after it expects to have been waited for;
//! the waits after the run were computed for the path through it and are no-ops on the
//! path around it.
//!
//! A call through an address (`call_indirect`) is always skipped when EXEC is 0: its
//! address may have been read (`v_readfirstlane_b32`) from no lane.
//!
//! Whether a branch pays off follows LLVM's `SIPreEmitPeephole::mustRetainExeczBranch`: a
//! run is skipped when it holds a memory instruction or a wait, or at least
//! [`SKIP_THRESHOLD`] machine instructions.

use super::inst::{Callee, Inst, Src};
use super::lower::linear::EXEC;
use super::mc::Op;
use super::regs::{SGPR, VGPR};
use crate::machinst::{MachInst, OperandKind, Reg};

/// The length of a run of plain VALU instructions worth a branch (LLVM's
/// `amdgpu-skip-threshold` default).
pub const SKIP_THRESHOLD: usize = 12;

fn is_vgpr(r: Reg) -> bool {
    r.file() == VGPR
}

/// Whether `inst` has no effect that matters when EXEC is 0.
fn skippable(inst: &Inst) -> bool {
    match inst {
        // v_writelane_b32 writes a lane whatever EXEC is (lane masks kept in VGPR lanes).
        Inst::Valu { op, dst, sdst, .. } => {
            dst.is_none_or(is_vgpr)
                && *dst != Some(EXEC)
                && *sdst != Some(EXEC)
                && *op != Op::VWritelaneB32
        }
        Inst::Alu64 { dst, .. }
        | Inst::Const64 { dst, .. }
        | Inst::Combine { dst, .. }
        | Inst::Half { dst, .. }
        | Inst::Copy { dst, .. } => is_vgpr(*dst),
        Inst::FDiv32 { .. }
        | Inst::Sqrt32 { .. }
        | Inst::FDiv64 { .. }
        | Inst::Sqrt64 { .. }
        | Inst::RoundF64 { .. }
        | Inst::MaskedMove { .. }
        | Inst::Load { .. }
        | Inst::Store { .. }
        | Inst::Atomic { .. }
        | Inst::ScratchLoad {
            whole_wave: false, ..
        }
        | Inst::ScratchStore {
            whole_wave: false, ..
        }
        | Inst::InvalidateL1
        | Inst::ValuDpp { .. }
        | Inst::Ds { .. }
        | Inst::DsWrite { .. }
        | Inst::DsAtomic { .. }
        | Inst::Waitcnt { .. }
        | Inst::Interp { .. }
        | Inst::InterpMov { .. }
        | Inst::Undef { .. } => true,
        // Every wave of the work-group must reach the barrier, and M0 must hold the bound
        // whatever EXEC is; the fence's waits stay before the instructions after it.
        Inst::LdsBound | Inst::Barrier => false,
        // M0 holds the primitive mask whatever EXEC is; a pixel wave's exports end it,
        // the last with `done`, whichever lanes are left.
        Inst::SetM0 { .. } | Inst::Export { .. } => false,
        // Spill code of linearized code moves whole waves, as the allocator's moves do.
        Inst::ScratchLoad {
            whole_wave: true, ..
        }
        | Inst::ScratchStore {
            whole_wave: true, ..
        }
        | Inst::Spill { .. }
        | Inst::Reload { .. } => false,
        Inst::Args { .. }
        | Inst::WaveScan { .. }
        | Inst::LaneGather { .. }
        | Inst::Salu { .. }
        | Inst::SCmpSelect { .. }
        | Inst::SLoad { .. }
        | Inst::Const128 { .. }
        | Inst::Jump { .. }
        | Inst::BrScc { .. }
        | Inst::BrExecnz { .. }
        | Inst::BrExecz { .. }
        | Inst::WaveCopy { .. }
        | Inst::EndPgm
        | Inst::Discard { .. }
        | Inst::Ret { .. }
        | Inst::Call { .. }
        | Inst::Swappc { .. }
        | Inst::FuncAddr { .. } => false,
    }
}

/// Whether registers `a` and `b` share a register.
fn overlap(a: Reg, b: Reg) -> bool {
    match (a, b) {
        (
            Reg::Real {
                file: fa, hw: ha, ..
            },
            Reg::Real {
                file: fb, hw: hb, ..
            },
        ) => fa == fb && ha < hb + b.width() && hb < ha + a.width(),
        _ => a == b,
    }
}

/// Whether the instruction at `i` is a VALU compare (or carry) whose lane mask scalar code
/// after it in the block reads without ANDing it with EXEC (`s_or_b64 mask, mask, cond`
/// adding an edge's lanes): that relies on the compare clearing the lanes that are off,
/// which a skipped compare does not do, so it must run even when EXEC is 0.
fn mask_read_whole(block: &[Inst], i: usize) -> bool {
    let Inst::Valu {
        sdst: Some(mask), ..
    } = block[i]
    else {
        return false;
    };
    for inst in &block[i + 1..] {
        if let Inst::Salu { srcs, .. } = inst
            && srcs
                .iter()
                .any(|s| s.reg().is_some_and(|r| overlap(r, mask)))
            && !srcs.contains(&Src::Reg(EXEC))
        {
            return true;
        }
        let mut written = inst.clobbers().iter().any(|&c| overlap(c, mask));
        inst.clone().visit_operands(&mut |r, kind| {
            written |= !matches!(
                kind,
                OperandKind::Use
                    | OperandKind::LateUse
                    | OperandKind::UseFixed(_)
                    | OperandKind::UseAny
            ) && overlap(*r, mask);
        });
        if written {
            return false;
        }
    }
    false
}

fn is_memory(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::Atomic { .. }
            | Inst::SLoad { .. }
            | Inst::Ds { .. }
            | Inst::DsWrite { .. }
            | Inst::DsAtomic { .. }
            | Inst::ScratchLoad { .. }
            | Inst::ScratchStore { .. }
    )
}

/// Whether `inst` sets EXEC to a lane mask other than the function's lanes `entry`.
fn sets_block_exec(inst: &Inst, entry: Reg) -> bool {
    matches!(inst, Inst::Salu { dst: Some(d), srcs, .. }
        if *d == EXEC && srcs.first().is_some_and(|s| s.reg() != Some(entry)))
}

/// Splits the blocks of linearized code at each run worth skipping: the part before it
/// ends in [`Inst::BrExecz`] to the part after it. `cost` gives the number of machine
/// instructions of a run. Branch targets are renumbered.
pub fn run(
    blocks: Vec<Vec<Inst>>,
    entry_lanes: Reg,
    cost: impl Fn(&[Inst]) -> usize,
) -> Vec<Vec<Inst>> {
    debug_assert_eq!(entry_lanes.file(), SGPR);
    // Each block's pieces: where runs start and end.
    let mut pieces: Vec<Vec<Vec<Inst>>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let mut cuts = Vec::new();
        // EXEC holds this block's lanes (it may be 0), and no memory operation is in
        // flight.
        let (mut block_exec, mut in_flight) = (false, false);
        let may_skip: Vec<bool> = (0..block.len())
            .map(|i| skippable(&block[i]) && !mask_read_whole(&block, i))
            .collect();
        let mut i = 0;
        while i < block.len() {
            if block_exec && !in_flight && may_skip[i] {
                let end = i + may_skip[i..].iter().take_while(|&&ok| ok).count();
                let run = &block[i..end];
                in_flight = run.iter().any(is_memory);
                if in_flight
                    || run.iter().any(|inst| matches!(inst, Inst::Waitcnt { .. }))
                    || cost(run) >= SKIP_THRESHOLD
                {
                    cuts.push((i, end));
                }
                i = end;
                continue;
            }
            // A call through an address read from no lane would jump to no function:
            // without lanes it is skipped, wherever it is (its wait is before it).
            if matches!(
                block[i],
                Inst::Swappc {
                    callee: Callee::Address(..),
                    ..
                }
            ) {
                cuts.push((i, i + 1));
            }
            in_flight |= is_memory(&block[i]);
            if block[i].writes_exec() {
                block_exec = sets_block_exec(&block[i], entry_lanes);
            }
            i += 1;
        }
        let mut parts = Vec::new();
        let mut rest = block;
        for &(start, end) in cuts.iter().rev() {
            let after = rest.split_off(end);
            let run = rest.split_off(start);
            parts.push(after);
            parts.push(run);
        }
        parts.push(rest);
        parts.reverse();
        pieces.push(parts);
    }
    // New block numbers: the first piece of each block keeps the block's branches.
    let mut first = Vec::with_capacity(pieces.len());
    let mut count = 0;
    for parts in &pieces {
        first.push(count);
        count += parts.len();
    }
    let mut out = Vec::with_capacity(count);
    for parts in pieces {
        let base = out.len();
        let n = parts.len();
        for (k, mut part) in parts.into_iter().enumerate() {
            for inst in &mut part {
                match inst {
                    Inst::Jump { target } => *target = first[*target],
                    Inst::BrScc {
                        taken, not_taken, ..
                    }
                    | Inst::BrExecnz { taken, not_taken } => {
                        *taken = first[*taken];
                        *not_taken = first[*not_taken];
                    }
                    _ => {}
                }
            }
            // Parts alternate: before a run, the run, after it.
            if k % 2 == 0 && k + 2 < n {
                part.push(Inst::BrExecz {
                    target: base + k + 2,
                });
            }
            out.push(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::inst::Src;
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::{sgpr_pair, vgpr};
    use smallvec::smallvec;

    fn exec_from(mask: Reg) -> Inst {
        Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(mask)],
        }
    }

    fn vadd(d: u16) -> Inst {
        Inst::Valu {
            op: Op::VAddF32,
            dst: Some(vgpr(d)),
            sdst: None,
            srcs: smallvec![Src::Reg(vgpr(0)), Src::Reg(vgpr(1))],
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        }
    }

    fn or_mask() -> Inst {
        Inst::Salu {
            op: Op::SOrB64,
            dst: Some(sgpr_pair(8)),
            srcs: smallvec![Src::Reg(sgpr_pair(8)), Src::Reg(EXEC)],
        }
    }

    const ENTRY: u16 = 2;
    const VPAIR: Reg = Reg::Real {
        file: VGPR,
        class: crate::machinst::RegClass::Float,
        hw: 2,
    };

    fn count(insts: &[Inst]) -> usize {
        insts.len()
    }

    #[test]
    fn long_vector_run_is_skipped_and_targets_renumbered() {
        let mut b1 = vec![exec_from(sgpr_pair(6))];
        b1.extend((0..SKIP_THRESHOLD as u16).map(vadd));
        b1.push(or_mask());
        b1.push(Inst::Jump { target: 2 });
        let blocks = vec![vec![Inst::Jump { target: 1 }], b1, vec![Inst::EndPgm]];
        let out = run(blocks, sgpr_pair(ENTRY), count);
        assert_eq!(out.len(), 5);
        assert_eq!(out[0], vec![Inst::Jump { target: 1 }]);
        assert_eq!(
            out[1],
            vec![exec_from(sgpr_pair(6)), Inst::BrExecz { target: 3 }]
        );
        assert_eq!(out[2].len(), SKIP_THRESHOLD);
        assert_eq!(out[3], vec![or_mask(), Inst::Jump { target: 4 }]);
        assert_eq!(out[4], vec![Inst::EndPgm]);
    }

    #[test]
    fn a_compare_whose_mask_is_ored_as_it_is_runs_with_no_lane() {
        let vcc = crate::isa::gcn::regs::VCC;
        let compare = Inst::Valu {
            op: Op::VCmpGeU32,
            dst: None,
            sdst: Some(vcc),
            srcs: smallvec![Src::Reg(vgpr(0)), Src::Reg(vgpr(1))],
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: true,
            sdwa: None,
        };
        let salu = |op, dst, a| Inst::Salu {
            op,
            dst: Some(dst),
            srcs: smallvec![Src::Reg(a), Src::Reg(vcc)],
        };
        let block = |edge: Inst| {
            let mut b = vec![exec_from(sgpr_pair(6))];
            b.extend((0..SKIP_THRESHOLD as u16).map(vadd));
            b.push(compare.clone());
            b.push(edge);
            b
        };
        // `s_or_b64 s[8:9], s[8:9], vcc` reads the compare's lanes as they are: the run
        // before it is skipped, the compare is not.
        let or = salu(Op::SOrB64, sgpr_pair(8), sgpr_pair(8));
        let out = run(vec![block(or.clone())], sgpr_pair(ENTRY), count);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1].len(), SKIP_THRESHOLD);
        assert_eq!(out[2], vec![compare.clone(), or]);
        // `s_andn2_b64 s[8:9], exec, vcc` ANDs them with EXEC = 0: the compare goes too.
        let andn2 = salu(Op::SAndn2B64, sgpr_pair(8), EXEC);
        let out = run(vec![block(andn2.clone())], sgpr_pair(ENTRY), count);
        assert_eq!(out[1].len(), SKIP_THRESHOLD + 1);
        assert_eq!(out[2], vec![andn2]);
    }

    #[test]
    fn short_runs_and_the_entry_lanes_are_not_skipped() {
        let short: Vec<Inst> = std::iter::once(exec_from(sgpr_pair(6)))
            .chain((0..3).map(vadd))
            .collect();
        let out = run(vec![short.clone()], sgpr_pair(ENTRY), count);
        assert_eq!(out, vec![short]);
        let restore: Vec<Inst> = std::iter::once(exec_from(sgpr_pair(ENTRY)))
            .chain((0..20).map(vadd))
            .collect();
        let out = run(vec![restore.clone()], sgpr_pair(ENTRY), count);
        assert_eq!(out, vec![restore]);
    }

    #[test]
    fn a_loop_header_body_is_skipped_after_its_mask_reset() {
        let reset = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(sgpr_pair(6)),
            srcs: smallvec![Src::Imm(0)],
        };
        let mut block = vec![exec_from(sgpr_pair(6)), reset.clone()];
        block.extend((0..SKIP_THRESHOLD as u16).map(vadd));
        let out = run(vec![block], sgpr_pair(ENTRY), count);
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[0],
            vec![exec_from(sgpr_pair(6)), reset, Inst::BrExecz { target: 2 }]
        );
        assert!(out[2].is_empty());
    }

    #[test]
    fn a_store_is_worth_a_branch_but_not_after_a_load() {
        let store = Inst::Store {
            op: Op::FlatStoreDword,
            addr: VPAIR,
            offset: 0,
            data: vgpr(4),
            sbase: None,
        };
        let load = Inst::Load {
            op: Op::FlatLoadDword,
            dst: vgpr(5),
            addr: VPAIR,
            offset: 0,
            sbase: None,
            glc: false,
        };
        let block = vec![exec_from(sgpr_pair(6)), store.clone(), or_mask()];
        let out = run(vec![block], sgpr_pair(ENTRY), count);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1], vec![store.clone()]);
        // A load before the EXEC change may still be in flight: no branch over its wait.
        let block = vec![load, exec_from(sgpr_pair(6)), store];
        let out = run(vec![block.clone()], sgpr_pair(ENTRY), count);
        assert_eq!(out, vec![block]);
    }

    #[test]
    fn whole_wave_copies_end_a_run_and_the_restored_exec_starts_one() {
        let saved = sgpr_pair(4);
        let copies = vec![
            Inst::Salu {
                op: Op::SMovB64,
                dst: Some(saved),
                srcs: smallvec![Src::Reg(EXEC)],
            },
            exec_from(sgpr_pair(ENTRY)),
            Inst::Copy {
                dst: vgpr(9),
                src: vgpr(3),
            },
            exec_from(saved),
        ];
        let mut block = vec![exec_from(sgpr_pair(6))];
        block.extend((0..SKIP_THRESHOLD as u16).map(vadd));
        block.extend(copies.clone());
        block.extend((0..SKIP_THRESHOLD as u16).map(vadd));
        let out = run(vec![block], sgpr_pair(ENTRY), count);
        assert_eq!(out.len(), 5);
        let mut middle = copies;
        middle.push(Inst::BrExecz { target: 4 });
        assert_eq!(out[2], middle);
        assert_eq!(out[3].len(), SKIP_THRESHOLD);
    }
}
