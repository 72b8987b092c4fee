//! Branch relaxation: SOPP branches (`s_branch`, `s_cbranch_*`) encode a signed 16-bit
//! offset in dwords, so they reach 32,767 dwords (128 KiB) forward and 32,768 back. A
//! branch further away becomes a long jump through a scratch SGPR pair, as LLVM's
//! `BranchRelaxation` pass does with `SIInstrInfo::insertIndirectBranch`:
//!
//! ```text
//! s_getpc_b64 s[N:N+1]              ; the address of the next instruction
//! s_add_u32   sN, sN, lo(target - that address)
//! s_addc_u32  sN+1, sN+1, hi(…)     ; 0 forward, -1 backward
//! s_setpc_b64 s[N:N+1]
//! ```
//!
//! A conditional branch out of range becomes the inverted short branch over the long jump.
//! The condition is tested before the jump sequence runs, so a branch on SCC still sees
//! its compare; `s_add_u32`/`s_addc_u32` then clobber SCC on the taken path only, which is
//! harmless because SCC is never live at a branch target: every target is the start of a
//! block, and the backend never keeps a value in SCC from one instruction of `inst.rs` to
//! the next (`Inst::Salu`, `Inst::BrScc`). [`run`] checks this for every long jump.
//!
//! Relaxing grows the code, which can push other branches out of range: the layout is
//! recomputed until no further branch needs relaxing. Branches only ever turn long, never
//! back, so the iteration ends (at most once per branch) at a fixpoint.
//!
//! The scratch pair is the caller's: an aligned pair no instruction of the function uses
//! (see `docs/decisions.md`, "Branch relaxation").

use super::mc::{self, Form, Gen, McInst, Op, Operand};

/// Bytes of a long jump: `s_getpc_b64`, `s_add_u32` with its literal, `s_addc_u32`,
/// `s_setpc_b64`.
pub const LONG_JUMP_BYTES: usize = 4 + 8 + 4 + 4;

/// Bytes of a SOPP branch.
const SHORT_BYTES: usize = 4;

/// The code of a function whose branches all reach their targets.
#[derive(Debug)]
pub struct Relaxed {
    pub insts: Vec<McInst>,
    /// Whether a long jump uses the scratch pair (which then counts as used).
    pub uses_scratch: bool,
}

/// Why branches could not be resolved.
#[derive(Debug)]
pub enum RelaxError {
    /// A branch needs a long jump but the caller has no free SGPR pair to give.
    NoScratchPair,
    /// A backend bug (a branch to a block without code, an unencodable instruction, SCC
    /// live where a long jump would clobber it).
    Internal(String),
}

/// The branch with the inverse condition, for the short branch over a long jump.
fn inverse(op: Op) -> Option<Op> {
    Some(match op {
        Op::SCbranchScc0 => Op::SCbranchScc1,
        Op::SCbranchScc1 => Op::SCbranchScc0,
        Op::SCbranchVccz => Op::SCbranchVccnz,
        Op::SCbranchVccnz => Op::SCbranchVccz,
        Op::SCbranchExecz => Op::SCbranchExecnz,
        Op::SCbranchExecnz => Op::SCbranchExecz,
        _ => return None,
    })
}

/// The extra bytes a branch takes as a long jump: the conditional ones keep their (now
/// inverted) short branch in front of it, `s_branch` is replaced.
fn growth(op: Op) -> usize {
    match op {
        Op::SBranch => LONG_JUMP_BYTES - SHORT_BYTES,
        _ => LONG_JUMP_BYTES,
    }
}

/// Whether a SOPP branch of `delta` bytes (from the end of the branch) reaches.
fn in_range(delta: i64) -> bool {
    (i16::MIN as i64..=i16::MAX as i64).contains(&(delta / 4))
}

/// Resolves the branches of `insts`, which carry their target block's index in `imm`
/// (`lay_out_blocks`), to dword offsets, turning those out of reach into long jumps
/// through the SGPR pair starting at `scratch`.
pub fn run(
    insts: &[McInst],
    block_starts: &[Option<usize>],
    generation: Gen,
    scratch: Option<u16>,
) -> Result<Relaxed, RelaxError> {
    let internal = RelaxError::Internal;
    // Sizes and targets (instruction indices) do not change; only the layout does.
    let mut sizes = Vec::with_capacity(insts.len());
    let mut targets = Vec::with_capacity(insts.len());
    let mut scratch_bytes = Vec::new();
    for inst in insts {
        let branch = inst.op.info().form == Form::SoppBranch;
        let mut probe = inst.clone();
        let target = if branch {
            probe.imm = 0;
            let target = block_starts
                .get(inst.imm as usize)
                .copied()
                .flatten()
                .ok_or_else(|| {
                    internal(format!("branch to block {} that has no code", inst.imm))
                })?;
            Some(target)
        } else {
            None
        };
        scratch_bytes.clear();
        mc::encode(&probe, generation, &mut scratch_bytes).map_err(internal)?;
        sizes.push(scratch_bytes.len());
        targets.push(target);
    }

    let mut long = vec![false; insts.len()];
    let mut offsets = vec![0usize; insts.len() + 1];
    loop {
        let mut at = 0;
        for (i, &size) in sizes.iter().enumerate() {
            offsets[i] = at;
            at += size + if long[i] { growth(insts[i].op) } else { 0 };
        }
        offsets[insts.len()] = at;
        let mut changed = false;
        for (i, target) in targets.iter().enumerate() {
            if let Some(t) = *target
                && !long[i]
            {
                let delta = offsets[t] as i64 - (offsets[i] + SHORT_BYTES) as i64;
                if !in_range(delta) {
                    long[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }

    let uses_scratch = long.contains(&true);
    let pair = match (uses_scratch, scratch) {
        (false, _) => 0,
        (true, Some(pair)) => pair,
        (true, None) => return Err(RelaxError::NoScratchPair),
    };
    let mut out = Vec::with_capacity(insts.len() + 4 * long.iter().filter(|&&l| l).count());
    for (i, inst) in insts.iter().enumerate() {
        let Some(t) = targets[i] else {
            out.push(inst.clone());
            continue;
        };
        if !long[i] {
            let delta = offsets[t] as i64 - (offsets[i] + SHORT_BYTES) as i64;
            let mut inst = inst.clone();
            inst.imm = (delta / 4) as i32;
            out.push(inst);
            continue;
        }
        if let Some(scc) = scc_read_first(insts, t) {
            return Err(internal(format!(
                "a long jump to instruction {t} would clobber SCC, which {:?} at {scc} reads",
                insts[scc].op
            )));
        }
        let mut jump_at = offsets[i];
        if inst.op != Op::SBranch {
            let inverted =
                inverse(inst.op).ok_or_else(|| internal(format!("no inverse of {:?}", inst.op)))?;
            let mut skip = McInst::new(inverted, inverted.info().enc);
            skip.imm = (LONG_JUMP_BYTES / 4) as i32;
            out.push(skip);
            jump_at += SHORT_BYTES;
        }
        // s_getpc_b64 gives the address of the s_add_u32 after it.
        let delta = offsets[t] as i64 - (jump_at + 4) as i64;
        long_jump(pair, delta, &mut out);
    }
    Ok(Relaxed {
        insts: out,
        uses_scratch,
    })
}

/// The even SGPR pair just above every SGPR the code names and the `reserved` ones the
/// hardware initialises, if it lies below `limit`: free everywhere in the function, so a
/// long jump anywhere may clobber it.
pub fn free_pair(insts: &[McInst], reserved: u16, limit: u16) -> Option<u16> {
    let mut end = reserved;
    for inst in insts {
        let info = inst.op.info();
        let widths = inst.src_widths();
        let operands = [(inst.dst, info.dst), (inst.sdst, info.sdst)]
            .into_iter()
            .chain(inst.src.iter().copied().zip(widths));
        for (operand, width) in operands {
            if let Some(o) = operand
                && o.0 < Operand::VCC.0
            {
                end = end.max(o.0 + width.max(1) as u16);
            }
        }
    }
    let pair = end.next_multiple_of(2);
    (pair + 2 <= limit).then_some(pair)
}

/// Appends the long jump by `delta` bytes from the end of its `s_getpc_b64`.
fn long_jump(pair: u16, delta: i64, out: &mut Vec<McInst>) {
    let (lo, hi) = (Operand(pair), Operand(pair + 1));
    let sop = |op: Op, dst: Option<Operand>, srcs: &[Operand], literal: Option<u32>| {
        let mut m = McInst::new(op, op.info().enc);
        m.dst = dst;
        for (k, &s) in srcs.iter().enumerate() {
            m.src[k] = Some(s);
        }
        m.literal = literal;
        m
    };
    let high = Operand::inline_int(delta >> 32).expect("code is smaller than 4 GiB");
    out.push(sop(Op::SGetpcB64, Some(lo), &[], None));
    out.push(sop(
        Op::SAddU32,
        Some(lo),
        &[lo, Operand::LITERAL],
        Some(delta as u32),
    ));
    out.push(sop(Op::SAddcU32, Some(hi), &[hi, high], None));
    out.push(sop(Op::SSetpcB64, None, &[lo], None));
}

/// Whether SCC may be live at `insts[at]`: the first instruction (in layout order, up to a
/// jump or the end of the code) that reads SCC before any writes it. The backend never
/// leaves SCC live at a block start, so this finds nothing unless that invariant broke.
fn scc_read_first(insts: &[McInst], at: usize) -> Option<usize> {
    for (i, inst) in insts.iter().enumerate().skip(at) {
        if reads_scc(inst.op) {
            return Some(i);
        }
        if writes_scc(inst.op) || matches!(inst.op, Op::SBranch | Op::SSetpcB64 | Op::SEndpgm) {
            return None;
        }
    }
    None
}

/// The operations that read SCC (GCN3 ISA 4.2, "Scalar condition code").
fn reads_scc(op: Op) -> bool {
    matches!(
        op,
        Op::SCbranchScc0
            | Op::SCbranchScc1
            | Op::SCselectB32
            | Op::SCselectB64
            | Op::SAddcU32
            | Op::SSubbU32
    )
}

/// Whether `op` overwrites SCC without reading it (GCN3 ISA 5.1–5.4): the compares, and
/// the SOP2 operations but `s_mul_i32` and the SCC readers; of SOP1, `s_not`, `s_bcnt1`,
/// `s_abs` and the EXEC saves.
fn writes_scc(op: Op) -> bool {
    use super::mc::Enc;
    match op.info().enc {
        Enc::Sopc => true,
        Enc::Sop2 => !reads_scc(op) && op != Op::SMulI32,
        Enc::Sop1 => matches!(
            op,
            Op::SNotB32
                | Op::SNotB64
                | Op::SBcnt1I32B32
                | Op::SBcnt1I32B64
                | Op::SAbsI32
                | Op::SAndSaveexecB64
                | Op::SOrSaveexecB64
                | Op::SXorSaveexecB64
                | Op::SAndn2SaveexecB64
                | Op::SOrn2SaveexecB64
        ),
        Enc::Sopk => matches!(op, Op::SCmpkEqU32 | Op::SAddkI32),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(op: Op, block: usize) -> McInst {
        let mut m = McInst::new(op, op.info().enc);
        m.imm = block as i32;
        m
    }

    fn nops(n: usize) -> Vec<McInst> {
        vec![McInst::new(Op::SNop, Op::SNop.info().enc); n]
    }

    /// `s_cbranch_execz` over `n` nops to block 1.
    fn over(op: Op, n: usize) -> (Vec<McInst>, Vec<Option<usize>>) {
        let mut insts = vec![branch(op, 1)];
        insts.extend(nops(n));
        insts.push(McInst::new(Op::SEndpgm, Op::SEndpgm.info().enc));
        (insts, vec![Some(0), Some(n + 1)])
    }

    #[test]
    fn short_branches_stay() {
        let (insts, starts) = over(Op::SCbranchExecz, 32767);
        let r = run(&insts, &starts, Gen::Gfx8, None).unwrap();
        assert!(!r.uses_scratch);
        assert_eq!(r.insts[0].imm, 32767);
        assert_eq!(r.insts.len(), insts.len());
    }

    #[test]
    fn far_conditional_branch_inverts_over_a_long_jump() {
        let (insts, starts) = over(Op::SCbranchExecz, 32768);
        assert!(matches!(
            run(&insts, &starts, Gen::Gfx8, None),
            Err(RelaxError::NoScratchPair)
        ));
        let r = run(&insts, &starts, Gen::Gfx8, Some(10)).unwrap();
        assert!(r.uses_scratch);
        let ops: Vec<Op> = r.insts[..5].iter().map(|m| m.op).collect();
        assert_eq!(
            ops,
            [
                Op::SCbranchExecnz,
                Op::SGetpcB64,
                Op::SAddU32,
                Op::SAddcU32,
                Op::SSetpcB64
            ]
        );
        assert_eq!(r.insts[0].imm, 5);
        // The target is at 24 + 4·32768 bytes; s_getpc_b64 returns 8.
        assert_eq!(r.insts[2].literal, Some(16 + 4 * 32768));
        assert_eq!(r.insts[3].src[1], Operand::inline_int(0));
        assert_eq!(r.insts[1].dst, Some(Operand(10)));
    }

    #[test]
    fn far_backward_jump_adds_a_negative_offset() {
        // Block 0: 40000 nops, then s_branch back to its start.
        let mut insts = nops(40000);
        insts.push(branch(Op::SBranch, 0));
        let r = run(&insts, &[Some(0)], Gen::Gfx9, Some(4)).unwrap();
        let add = &r.insts[40001];
        assert_eq!(add.op, Op::SAddU32);
        assert_eq!(add.literal, Some(-(4 * 40000 + 4i32) as u32));
        assert_eq!(r.insts[40002].src[1], Operand::inline_int(-1));
    }

    #[test]
    fn relaxing_one_branch_can_push_another_out_of_range() {
        // Branch A jumps over B and just fits; B's relaxation pushes A's target away.
        let mut insts = vec![branch(Op::SCbranchScc1, 1), branch(Op::SCbranchExecz, 2)];
        insts.extend(nops(32766));
        insts.push(McInst::new(Op::SEndpgm, Op::SEndpgm.info().enc)); // block 1
        insts.extend(nops(10));
        insts.push(McInst::new(Op::SEndpgm, Op::SEndpgm.info().enc)); // block 2
        let starts = [Some(0), Some(32768), Some(32768 + 11)];
        // Without B's growth A would reach: 32767 dwords.
        let r = run(&insts, &starts, Gen::Gfx8, Some(0)).unwrap();
        assert_eq!(r.insts[0].op, Op::SCbranchScc0, "A relaxed too");
    }

    #[test]
    fn a_long_jump_never_clobbers_live_scc() {
        // The target reads SCC first: the invariant is broken, which is an internal error.
        let mut insts = vec![branch(Op::SBranch, 1)];
        insts.extend(nops(40000));
        insts.push(branch(Op::SCbranchScc1, 0));
        let starts = [Some(0), Some(40001)];
        assert!(matches!(
            run(&insts, &starts, Gen::Gfx8, Some(0)),
            Err(RelaxError::Internal(_))
        ));
    }
}
