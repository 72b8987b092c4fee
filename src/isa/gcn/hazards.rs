//! Hazard recognition: inserts `s_nop` where the hardware needs wait states between two
//! instructions that it does not interlock.
//!
//! The rules are those of the ISA manuals' "Manually Inserted Wait States (NOPs)" tables
//! (Southern Islands ISA 4.5, Sea Islands 4.5, GCN3 4.5, Vega 4.5) that concern
//! instructions the backend emits. Every instruction after the writer counts as one wait
//! state and `s_nop N` as N+1. The simulator checks the same rules independently
//! (`sim/gcn/hazard.rs`), so a missing `s_nop` fails a test rather than a GPU.
//!
//! The pass runs on MC code after register allocation; at block entries it assumes the
//! worst (`run_blocks`).

use super::mc::{Enc, Form, Gen, LANE_SELECT, McInst, Op, Operand, SDST_OUT, nop_wait_states_max};

/// A rule: when `reads` of the later instruction overlap `writes` of an earlier one, at
/// least `wait_states` must separate them.
struct Rule {
    /// What the rule is, for reports.
    name: &'static str,
    applies: fn(Gen) -> bool,
    wait_states: u32,
    /// The scalar registers (operand numbers) the earlier instruction writes that matter.
    writes: fn(&McInst, Gen) -> Vec<u16>,
    /// The scalar registers the later instruction reads that matter.
    reads: fn(&McInst, Gen) -> Vec<u16>,
}

/// The registers `o` names when it is `width` dwords wide, if it is a scalar register.
fn scalar_regs(o: Option<Operand>, width: u8) -> impl Iterator<Item = u16> {
    o.filter(|o| o.0 < 128)
        .into_iter()
        .flat_map(move |o| o.0..o.0 + width.max(1) as u16)
}

/// The scalar registers a VALU instruction writes: a lane-mask or carry result, or the
/// SGPR result of `v_readlane_b32`/`v_readfirstlane_b32`.
fn valu_sgpr_writes(inst: &McInst, _: Gen) -> Vec<u16> {
    let info = inst.op.info();
    if info.form != Form::Valu {
        return Vec::new();
    }
    let mut regs: Vec<u16> = scalar_regs(inst.sdst, info.sdst).collect();
    if info.flags & SDST_OUT != 0 {
        regs.extend(scalar_regs(inst.dst, info.dst));
    }
    regs
}

fn valu_vcc_writes(inst: &McInst, generation: Gen) -> Vec<u16> {
    let mut regs = valu_sgpr_writes(inst, generation);
    regs.retain(|&r| r == Operand::VCC.0 || r == Operand::VCC.0 + 1);
    regs
}

/// The lane-select SGPR of `v_readlane_b32`/`v_writelane_b32`.
fn lane_select_reads(inst: &McInst, _: Gen) -> Vec<u16> {
    match inst.op {
        Op::VReadlaneB32 | Op::VWritelaneB32 => scalar_regs(inst.src[1], 1).collect(),
        _ => Vec::new(),
    }
}

/// `v_div_fmas_f32` reads VCC implicitly.
fn div_fmas_reads(inst: &McInst, _: Gen) -> Vec<u16> {
    match inst.op {
        Op::VDivFmasF32 | Op::VDivFmasF64 => vec![Operand::VCC.0],
        _ => Vec::new(),
    }
}

/// The SGPRs a scalar or vector memory instruction reads (its address, GLOBAL's SGPR
/// base, or a descriptor).
fn memory_sgpr_reads(inst: &McInst, encs: &[Enc]) -> Vec<u16> {
    if !encs.contains(&inst.enc) {
        return Vec::new();
    }
    inst.src
        .iter()
        .zip(inst.src_widths())
        .flat_map(|(&o, width)| scalar_regs(o, width))
        .collect()
}

/// The data VGPRs (operand numbers) of a vector-memory store or atomic with more than 64
/// bits of data (LLVM's `createsVALUHazard`: `cmpswap_x2` too).
fn wide_store_data(inst: &McInst, _: Gen) -> Vec<u16> {
    let info = inst.op.info();
    let store = matches!(
        info.form,
        Form::FlatStore | Form::MubufStore | Form::FlatAtomic | Form::MubufAtomic
    );
    match inst.src[1] {
        Some(data) if store && info.src[1] > 2 => (data.0..data.0 + info.src[1] as u16).collect(),
        _ => Vec::new(),
    }
}

/// The VGPRs (operand numbers) a VALU instruction writes.
fn valu_vgpr_writes(inst: &McInst, _: Gen) -> Vec<u16> {
    let info = inst.op.info();
    match inst.dst {
        Some(d) if info.form == Form::Valu && d.is_vgpr() => {
            (d.0..d.0 + info.dst.max(1) as u16).collect()
        }
        _ => Vec::new(),
    }
}

/// The VGPRs (operand numbers) a DPP instruction reads: either source, not only the one
/// DPP moves (the simulator's rule and LLVM's `checkDPPHazards` count both).
fn dpp_vgpr_reads(inst: &McInst, _: Gen) -> Vec<u16> {
    if inst.dpp.is_none() {
        return Vec::new();
    }
    inst.src
        .iter()
        .zip(inst.src_widths())
        .filter_map(|(&o, width)| o.filter(|o| o.is_vgpr()).map(|o| (o, width)))
        .flat_map(|(o, width)| o.0..o.0 + width.max(1) as u16)
        .collect()
}

/// EXEC, as read by a DPP instruction.
fn dpp_exec_reads(inst: &McInst, _: Gen) -> Vec<u16> {
    match inst.dpp {
        Some(_) => vec![Operand::EXEC.0, Operand::EXEC.0 + 1],
        None => Vec::new(),
    }
}

fn valu_exec_writes(inst: &McInst, generation: Gen) -> Vec<u16> {
    let mut regs = valu_sgpr_writes(inst, generation);
    regs.retain(|&r| r == Operand::EXEC.0 || r == Operand::EXEC.0 + 1);
    regs
}

/// M0, when a scalar ALU instruction writes it.
fn salu_m0_writes(inst: &McInst, _: Gen) -> Vec<u16> {
    let salu = matches!(inst.enc, Enc::Sop1 | Enc::Sop2 | Enc::Sopk);
    match inst.dst {
        Some(d) if salu && d == Operand::M0 => vec![Operand::M0.0],
        _ => Vec::new(),
    }
}

/// M0, as parameter interpolation reads it (the primitive mask and the LDS offset).
fn interp_m0_reads(inst: &McInst, _: Gen) -> Vec<u16> {
    match inst.enc {
        Enc::Vintrp => vec![Operand::M0.0],
        _ => Vec::new(),
    }
}

fn always(_: Gen) -> bool {
    true
}

const RULES: &[Rule] = &[
    Rule {
        name: "VALU writes an SGPR, then v_readlane/v_writelane selects the lane with it",
        applies: always,
        wait_states: 4,
        writes: valu_sgpr_writes,
        reads: lane_select_reads,
    },
    Rule {
        name: "VALU writes VCC, then v_div_fmas reads it",
        applies: always,
        wait_states: 4,
        writes: valu_vcc_writes,
        reads: div_fmas_reads,
    },
    Rule {
        name: "VALU writes an SGPR, then a vector memory instruction reads it",
        applies: always,
        wait_states: 5,
        writes: valu_sgpr_writes,
        reads: |inst, _| memory_sgpr_reads(inst, &[Enc::Flat, Enc::Global, Enc::Mubuf]),
    },
    Rule {
        name: "a store of more than 64 bits, then VALU overwrites its data VGPRs (gfx7+)",
        applies: |g| g >= Gen::Gfx7,
        wait_states: 1,
        writes: wide_store_data,
        reads: valu_vgpr_writes,
    },
    Rule {
        name: "VALU writes a VGPR, then a DPP operation reads it (gfx8+)",
        applies: |g| g >= Gen::Gfx8,
        wait_states: 2,
        writes: valu_vgpr_writes,
        reads: dpp_vgpr_reads,
    },
    Rule {
        name: "VALU writes EXEC, then a DPP operation (gfx8+)",
        applies: |g| g >= Gen::Gfx8,
        wait_states: 5,
        writes: valu_exec_writes,
        reads: dpp_exec_reads,
    },
    Rule {
        name: "SALU writes M0, then VINTRP reads it (gfx9)",
        applies: |g| g == Gen::Gfx9,
        wait_states: 1,
        writes: salu_m0_writes,
        reads: interp_m0_reads,
    },
    Rule {
        name: "VALU writes an SGPR, then SMRD reads it (gfx6)",
        applies: |g| g == Gen::Gfx6,
        wait_states: 4,
        writes: valu_sgpr_writes,
        reads: |inst, _| memory_sgpr_reads(inst, &[Enc::Smem]),
    },
];

/// The wait states `inst` provides to the instructions after it.
fn wait_states_of(inst: &McInst) -> u32 {
    match inst.op {
        Op::SNop => inst.imm as u32 + 1,
        _ => 1,
    }
}

/// How many wait states must still be inserted before `insts[at]` given the instructions
/// before it, and the rule that needs them.
pub fn missing_wait_states(
    insts: &[McInst],
    at: usize,
    generation: Gen,
) -> Option<(u32, &'static str)> {
    missing_in_block(insts, 0, None, at, generation)
}

/// [`missing_wait_states`] for an instruction of the block starting at `insts[start]`;
/// with `unknown_entry`, whatever ran before the block (another block's branch) is
/// assumed to need every wait state.
fn missing_in_block(
    insts: &[McInst],
    start: usize,
    unknown_entry: Option<&[Vec<u16>]>,
    at: usize,
    generation: Gen,
) -> Option<(u32, &'static str)> {
    let later = &insts[at];
    let mut worst: Option<(u32, &'static str)> = None;
    for (index, rule) in RULES.iter().enumerate() {
        if !(rule.applies)(generation) {
            continue;
        }
        let reads = (rule.reads)(later, generation);
        if reads.is_empty() {
            continue;
        }
        let mut waited = 0;
        let mut found = false;
        for earlier in insts[start..at].iter().rev() {
            if waited >= rule.wait_states {
                found = true;
                break;
            }
            if (rule.writes)(earlier, generation)
                .iter()
                .any(|r| reads.contains(r))
            {
                let missing = rule.wait_states - waited;
                if worst.is_none_or(|(w, _)| missing > w) {
                    worst = Some((missing, rule.name));
                }
                found = true;
                break;
            }
            waited += wait_states_of(earlier);
        }
        // Entered by a branch: the code before may be any of the function's, so only a
        // writer somewhere in the function can make the rule apply.
        let possible =
            unknown_entry.is_some_and(|writes| writes[index].iter().any(|r| reads.contains(r)));
        if !found && possible && waited < rule.wait_states {
            let missing = rule.wait_states - waited;
            if worst.is_none_or(|(w, _)| missing > w) {
                worst = Some((missing, rule.name));
            }
        }
    }
    worst
}

/// Inserts the `s_nop`s the rules require in code made of blocks (`block_starts`, as
/// [`super::lay_out_blocks::run`] returns them); at the start of every block but the first
/// the worst is assumed of the code before it, since a branch may lead there. Returns the
/// new block starts. "The worst" is bounded by what the function's instructions write.
pub fn run_blocks(
    insts: Vec<McInst>,
    block_starts: &[Option<usize>],
    generation: Gen,
) -> (Vec<McInst>, Vec<Option<usize>>) {
    let mut starts: Vec<(usize, usize)> = block_starts
        .iter()
        .enumerate()
        .filter_map(|(b, s)| s.map(|s| (s, b)))
        .collect();
    starts.sort();
    let mut new_starts = vec![None; block_starts.len()];
    let mut out: Vec<McInst> = Vec::with_capacity(insts.len());
    // What each rule's writers write anywhere in the function.
    let writes: Vec<Vec<u16>> = RULES
        .iter()
        .map(|rule| {
            let mut regs: Vec<u16> = insts
                .iter()
                .flat_map(|inst| (rule.writes)(inst, generation))
                .collect();
            regs.sort_unstable();
            regs.dedup();
            regs
        })
        .collect();
    let mut next_start = 0;
    let mut block_start = 0;
    let mut unknown_entry = false;
    let mut pending: Vec<Option<McInst>> = insts.into_iter().map(Some).collect();
    for i in 0..pending.len() {
        while next_start < starts.len() && starts[next_start].0 == i {
            new_starts[starts[next_start].1] = Some(out.len());
            block_start = out.len();
            unknown_entry = i != 0;
            next_start += 1;
        }
        let Some(inst) = pending[i].take() else {
            // Moved into an earlier instruction's wait states.
            continue;
        };
        let block_end = starts.get(next_start).map_or(pending.len(), |&(s, _)| s);
        let entry = unknown_entry.then_some(writes.as_slice());
        let missing_before = |out: &mut Vec<McInst>, inst: &McInst| {
            out.push(inst.clone());
            let missing = missing_in_block(out, block_start, entry, out.len() - 1, generation);
            out.pop();
            missing.map_or(0, |(missing, _)| missing)
        };
        let mut missing = missing_before(&mut out, &inst);
        if missing > 0 {
            // Fill the wait states with later instructions of the block that may go first.
            let mut crossed = vec![access(&inst)];
            for later in i + 1..block_end {
                if missing == 0 {
                    break;
                }
                let Some(candidate) = &pending[later] else {
                    continue;
                };
                let Some(moved) = movable(candidate) else {
                    match access(candidate) {
                        Some(a) => crossed.push(Some(a)),
                        None => break,
                    }
                    continue;
                };
                let independent = crossed.iter().all(|c| {
                    c.as_ref().is_some_and(|c| {
                        !moved
                            .writes
                            .iter()
                            .any(|r| c.reads.contains(r) || c.writes.contains(r))
                            && !moved.reads.iter().any(|r| c.writes.contains(r))
                    })
                });
                // An instruction right before one that some rule makes wait is probably
                // its wait state already: moving it would only move the s_nop there.
                let next = pending[later + 1..block_end].iter().flatten().next();
                let waits_for_it = next.is_some_and(|next| {
                    RULES.iter().any(|rule| {
                        (rule.applies)(generation) && !(rule.reads)(next, generation).is_empty()
                    })
                });
                if independent && !waits_for_it {
                    out.push(candidate.clone());
                    let at = out.len() - 1;
                    let clear =
                        missing_in_block(&out, block_start, entry, at, generation).is_none();
                    let left = missing_before(&mut out, &inst);
                    if clear && left < missing {
                        missing = left;
                        pending[later] = None;
                        continue;
                    }
                    out.pop();
                }
                crossed.push(Some(moved));
            }
        }
        out.extend(nops(missing, generation));
        out.push(inst);
    }
    (out, new_starts)
}

/// The registers (operand numbers, VGPRs from 256) an instruction reads and writes,
/// including the implicit ones that matter to a VALU instruction moved across it.
struct Access {
    reads: Vec<u16>,
    writes: Vec<u16>,
}

/// The registers `o` names when it is `width` dwords wide, if it is a register that an
/// instruction reads or writes (an SGPR, a special register such as VCC, M0 or EXEC, SCC,
/// or a VGPR), not a constant.
fn registers(o: Option<Operand>, width: u8) -> impl Iterator<Item = u16> {
    o.filter(|o| !o.is_inline_constant() && !o.is_literal())
        .into_iter()
        .flat_map(move |o| o.0..o.0 + width.max(1) as u16)
}

/// What `inst` accesses, or `None` when nothing may be moved across it: branches, calls
/// and every other SOPP (`s_waitcnt`, `s_endpgm`, `s_barrier`, `s_nop`, …), exports, the
/// program-counter reads and writes, the hardware-register accesses (`s_setreg` changes
/// the VALU's rounding and denormal modes) and the instructions that write EXEC implicitly.
fn access(inst: &McInst) -> Option<Access> {
    let info = inst.op.info();
    let barrier = matches!(inst.enc, Enc::Sopp | Enc::Exp)
        || matches!(
            info.form,
            Form::Sop1Src
                | Form::Sop1Dst
                | Form::SopkGetreg
                | Form::SopkSetreg
                | Form::SopkSetregImm32
        )
        || matches!(
            inst.op,
            Op::SSwappcB64
                | Op::SAndSaveexecB64
                | Op::SOrSaveexecB64
                | Op::SXorSaveexecB64
                | Op::SAndn2SaveexecB64
                | Op::SOrn2SaveexecB64
        );
    if barrier {
        return None;
    }
    // The destination counts as read too: `v_mac_f32` and `v_interp_p2_f32` read it, and
    // SOPK's compares hold a source there.
    let dst: Vec<u16> = registers(inst.dst, info.dst).collect();
    let mut writes = dst.clone();
    writes.extend(registers(inst.sdst, info.sdst));
    if info.sdst > 0 && inst.sdst.is_none() {
        // The `_e32` compares and carries write VCC.
        writes.extend([Operand::VCC.0, Operand::VCC.0 + 1]);
    }
    if matches!(inst.enc, Enc::Sop1 | Enc::Sop2 | Enc::Sopk | Enc::Sopc) {
        writes.push(Operand::SCC.0);
    }
    let mut reads = dst;
    for (&o, width) in inst.src.iter().zip(inst.src_widths()) {
        reads.extend(registers(o, width));
    }
    reads.extend(registers(Some(inst.soffset), 1));
    if let Some(export) = inst.export {
        reads.extend(export.src.iter().flat_map(|&o| registers(o, 1)));
    }
    reads.extend([Operand::M0.0, Operand::EXEC.0, Operand::EXEC.0 + 1]);
    Some(Access { reads, writes })
}

/// What `inst` accesses when it may fill another instruction's wait states: a plain VALU
/// operation (VOP1, VOP2 or VOP3, no SDWA or DPP) that writes only VGPRs and reads only
/// VGPRs, SGPRs, VCC, constants and EXEC, all of them named by its operands — not the
/// lane accesses, the carries and compares (SGPR results) or `v_div_fmas` (VCC read
/// implicitly). Such an instruction has no effect but on its destination VGPRs.
fn movable(inst: &McInst) -> Option<Access> {
    let info = inst.op.info();
    let plain = info.form == Form::Valu
        && matches!(inst.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vop3)
        && info.sdst == 0
        && info.flags & (SDST_OUT | LANE_SELECT) == 0
        && !matches!(inst.op, Op::VDivFmasF32 | Op::VDivFmasF64)
        && inst.dst.is_some_and(|d| d.is_vgpr())
        && inst.src.iter().flatten().all(|s| {
            s.is_vgpr() || s.0 <= Operand::VCC.0 + 1 || s.is_inline_constant() || s.is_literal()
        });
    if !plain {
        return None;
    }
    let mut access = access(inst)?;
    access.reads.retain(|&r| r != Operand::M0.0);
    Some(access)
}

/// Inserts the `s_nop`s the rules require in code that is one block.
pub fn run(insts: Vec<McInst>, generation: Gen) -> Vec<McInst> {
    run_blocks(insts, &[Some(0)], generation).0
}

/// `s_nop`s giving `wait_states`: one when the generation's count field holds it, more
/// when not (gfx6/gfx7 count at most 8 per `s_nop`, gfx8/gfx9 16).
fn nops(wait_states: u32, generation: Gen) -> impl Iterator<Item = McInst> {
    let max = nop_wait_states_max(generation);
    (0..wait_states.div_ceil(max)).map(move |k| {
        let mut nop = McInst::new(Op::SNop, Enc::Sopp);
        nop.imm = (wait_states - k * max).min(max) as i32 - 1;
        nop
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn div_scale() -> McInst {
        let v = Operand::vgpr;
        McInst::valu(
            Op::VDivScaleF32,
            Gen::Gfx8,
            Some(v(0)),
            Some(Operand::VCC),
            &[v(1), v(2), v(1)],
        )
        .unwrap()
    }

    fn div_fmas() -> McInst {
        let v = Operand::vgpr;
        McInst::valu(
            Op::VDivFmasF32,
            Gen::Gfx8,
            Some(v(3)),
            None,
            &[v(0), v(1), v(2)],
        )
        .unwrap()
    }

    fn filler() -> McInst {
        let v = Operand::vgpr;
        McInst::valu(Op::VMovB32, Gen::Gfx8, Some(v(9)), None, &[v(8)]).unwrap()
    }

    #[test]
    fn div_fmas_after_vcc_write_gets_nops() {
        let out = run(vec![div_scale(), div_fmas()], Gen::Gfx8);
        assert_eq!(out.len(), 3);
        assert_eq!(
            (out[1].op, out[1].imm),
            (Op::SNop, 3),
            "4 wait states: s_nop 3"
        );

        let out = run(vec![div_scale(), filler(), filler(), div_fmas()], Gen::Gfx8);
        assert_eq!((out[3].op, out[3].imm), (Op::SNop, 1));

        let far = vec![
            div_scale(),
            filler(),
            filler(),
            filler(),
            filler(),
            div_fmas(),
        ];
        assert_eq!(
            run(far.clone(), Gen::Gfx8),
            far,
            "far enough apart: nothing added"
        );
    }

    #[test]
    fn readlane_lane_select_after_valu_sgpr_write() {
        let (v, s) = (Operand::vgpr, Operand::sgpr);
        let readfirstlane =
            McInst::valu(Op::VReadfirstlaneB32, Gen::Gfx8, Some(s(4)), None, &[v(0)]).unwrap();
        let readlane =
            McInst::valu(Op::VReadlaneB32, Gen::Gfx8, Some(s(5)), None, &[v(1), s(4)]).unwrap();
        let out = run(vec![readfirstlane.clone(), readlane.clone()], Gen::Gfx8);
        assert_eq!((out[1].op, out[1].imm), (Op::SNop, 3));
        // A different lane-select register needs nothing.
        let other =
            McInst::valu(Op::VReadlaneB32, Gen::Gfx8, Some(s(5)), None, &[v(1), s(6)]).unwrap();
        assert_eq!(
            run(vec![readfirstlane.clone(), other.clone()], Gen::Gfx8).len(),
            2
        );
        // Existing nops count: s_nop 1 gives two of the four wait states.
        let mut nop = McInst::new(Op::SNop, Enc::Sopp);
        nop.imm = 1;
        let out = run(vec![readfirstlane, nop, readlane], Gen::Gfx8);
        assert_eq!((out[2].op, out[2].imm), (Op::SNop, 1));
    }

    #[test]
    fn wide_store_data_overwrite_from_gfx7() {
        let v = Operand::vgpr;
        let mut store = McInst::new(Op::FlatStoreDwordx4, Enc::Flat);
        store.src = [Some(v(0)), Some(v(4)), None];
        let overwrite = |g| {
            McInst::valu(
                Op::VMovB32,
                g,
                Some(v(7)),
                None,
                &[Operand::inline_int(0).unwrap()],
            )
            .unwrap()
        };
        let out = run(vec![store.clone(), overwrite(Gen::Gfx8)], Gen::Gfx8);
        assert_eq!((out[1].op, out[1].imm), (Op::SNop, 0));
        let mut buffer = McInst::new(Op::BufferStoreDwordx4, Enc::Mubuf);
        buffer.src = [Some(v(0)), Some(v(4)), Some(Operand::sgpr(8))];
        assert_eq!(
            run(vec![buffer, overwrite(Gen::Gfx6)], Gen::Gfx6).len(),
            2,
            "gfx6 waits with expcnt instead"
        );
    }

    #[test]
    fn global_saddr_after_valu_sgpr_write() {
        let (v, s) = (Operand::vgpr, Operand::sgpr);
        // v_readfirstlane_b32 writes s5, the high half of the SGPR base s[4:5].
        let write = McInst::valu(Op::VReadfirstlaneB32, Gen::Gfx9, Some(s(5)), None, &[v(0)]);
        let write = write.unwrap();
        let mut load = McInst::new(Op::GlobalLoadDword, Enc::Global);
        (load.dst, load.src[0], load.src[1]) = (Some(v(1)), Some(v(2)), Some(s(4)));
        let out = run(vec![write.clone(), load.clone()], Gen::Gfx9);
        assert_eq!((out[1].op, out[1].imm), (Op::SNop, 4), "5 wait states");
        let mut store = McInst::new(Op::GlobalStoreDword, Enc::Global);
        store.src = [Some(v(2)), Some(v(1)), Some(s(4))];
        let out = run(vec![write.clone(), filler(), store], Gen::Gfx9);
        assert_eq!((out[2].op, out[2].imm), (Op::SNop, 3));
        // Another base needs nothing.
        load.src[1] = Some(s(6));
        assert_eq!(run(vec![write, load], Gen::Gfx9).len(), 2);
    }

    #[test]
    fn smrd_after_valu_sgpr_write_only_on_gfx6() {
        let (v, s) = (Operand::vgpr, Operand::sgpr);
        let write = |g| McInst::valu(Op::VReadfirstlaneB32, g, Some(s(4)), None, &[v(0)]).unwrap();
        let mut load = McInst::new(Op::SLoadDword, Enc::Smem);
        (load.dst, load.src[0]) = (Some(s(8)), Some(s(4)));
        assert_eq!(
            run(vec![write(Gen::Gfx6), load.clone()], Gen::Gfx6).len(),
            3
        );
        assert_eq!(
            run(vec![write(Gen::Gfx8), load.clone()], Gen::Gfx8).len(),
            2
        );
        // The offset register counts too.
        (load.src[0], load.src[1]) = (Some(s(2)), Some(s(4)));
        assert_eq!(run(vec![write(Gen::Gfx6), load], Gen::Gfx6).len(), 3);
    }

    #[test]
    fn interpolation_after_m0_write_only_on_gfx9() {
        let mut set_m0 = McInst::new(Op::SMovB32, Enc::Sop1);
        (set_m0.dst, set_m0.src[0]) = (Some(Operand::M0), Some(Operand::sgpr(2)));
        let mut interp = McInst::new(Op::VInterpMovF32, Enc::Vintrp);
        interp.dst = Some(Operand::vgpr(0));
        interp.interp = Some(crate::isa::gcn::mc::Interp {
            attr: 0,
            chan: 1,
            param: Some(crate::isa::gcn::mc::InterpParam::P0),
        });
        for g in [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
            let out = run(vec![set_m0.clone(), interp.clone()], g);
            assert_eq!(out.len(), if g == Gen::Gfx9 { 3 } else { 2 }, "{g:?}");
            // Another instruction between them is the wait state.
            let out = run(vec![set_m0.clone(), filler(), interp.clone()], g);
            assert_eq!(out.len(), 3, "{g:?}");
        }
    }

    #[test]
    fn independent_later_instructions_fill_wait_states() {
        let v = Operand::vgpr;
        let mut set_m0 = McInst::new(Op::SMovB32, Enc::Sop1);
        (set_m0.dst, set_m0.src[0]) = (Some(Operand::M0), Some(Operand::sgpr(2)));
        let mut interp = McInst::new(Op::VInterpP1F32, Enc::Vintrp);
        (interp.dst, interp.src[0]) = (Some(v(2)), Some(v(0)));
        interp.interp = Some(crate::isa::gcn::mc::Interp {
            attr: 0,
            chan: 0,
            param: None,
        });
        let constant = |d| {
            let one = Operand::inline_f32(1.0f32.to_bits(), Gen::Gfx9).unwrap();
            McInst::valu(Op::VMovB32, Gen::Gfx9, Some(v(d)), None, &[one]).unwrap()
        };
        let mut export = McInst::new(Op::Exp, Enc::Exp);
        export.export = Some(crate::isa::gcn::mc::Export {
            target: crate::isa::gcn::mc::ExpTarget::Mrt(0),
            src: [Some(v(2)), Some(v(3)), None, None],
            compr: false,
            done: true,
            vm: true,
        });
        let code = vec![set_m0.clone(), interp.clone(), constant(3), export.clone()];
        assert_eq!(
            run(code, Gen::Gfx9),
            [set_m0.clone(), constant(3), interp.clone(), export.clone()],
            "the move takes the s_nop's place"
        );
        // Not when it overwrites what the instruction it crosses reads (I, in v0)…
        let code = vec![set_m0.clone(), interp.clone(), constant(0), export.clone()];
        assert_eq!(run(code, Gen::Gfx9)[1].op, Op::SNop);
        // …nor across an export or the end of the block.
        let code = vec![set_m0.clone(), interp.clone(), export.clone(), constant(3)];
        assert_eq!(run(code, Gen::Gfx9)[1].op, Op::SNop);
        let code = vec![set_m0, interp, constant(3), export];
        let (out, _) = run_blocks(code, &[Some(0), Some(2)], Gen::Gfx9);
        assert_eq!(out[1].op, Op::SNop);
    }

    #[test]
    fn nops_split_where_the_count_field_ends() {
        let counts = |n, g| nops(n, g).map(|m| m.imm).collect::<Vec<_>>();
        for g in [Gen::Gfx6, Gen::Gfx7] {
            assert_eq!(counts(8, g), [7]);
            assert_eq!(counts(10, g), [7, 1], "{g:?}: s_nop 9 would be s_nop 1");
            assert_eq!(counts(16, g), [7, 7]);
        }
        assert_eq!(counts(10, Gen::Gfx8), [9]);
        assert_eq!(counts(17, Gen::Gfx9), [15, 0]);
        for g in [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
            for n in 1..40 {
                let total: u32 = nops(n, g).map(|m| wait_states_of(&m)).sum();
                assert_eq!(total, n, "{g:?}");
                let mut bytes = Vec::new();
                for m in nops(n, g) {
                    crate::isa::gcn::mc::encode(&m, g, &mut bytes).unwrap();
                }
            }
        }
    }

    #[test]
    fn block_entries_assume_only_writers_the_function_has() {
        let v = Operand::vgpr;
        // A block starting with v_div_fmas: it may follow any code of the function, so with
        // a VCC writer somewhere it gets the full four wait states…
        let starts = [Some(0), Some(1)];
        let (out, new_starts) = run_blocks(vec![div_scale(), div_fmas()], &starts, Gen::Gfx8);
        assert_eq!((out[1].op, out[1].imm), (Op::SNop, 3));
        assert_eq!(new_starts, [Some(0), Some(1)]);
        // …and none when nothing in the function writes VCC.
        let code = vec![filler(), filler(), div_fmas()];
        let (out, _) = run_blocks(code.clone(), &[Some(0), Some(2)], Gen::Gfx8);
        assert_eq!(out, code);
        // A plain VALU at a block entry needs nothing without wide stores around.
        let add = McInst::valu(Op::VAddF32, Gen::Gfx8, Some(v(1)), None, &[v(2), v(3)]).unwrap();
        let (out, _) = run_blocks(vec![filler(), add.clone()], &[Some(0), Some(1)], Gen::Gfx8);
        assert_eq!(out.len(), 2);
    }
}
