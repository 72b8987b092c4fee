//! Copy propagation after allocation.
//!
//! The allocator keeps singles, pairs and quads in classes of their own, so taking the
//! halves of a 64-bit value and building one from two 32-bit values (`Half`, `Combine`)
//! are copies it cannot coalesce, and its own moves add more. This pass works on the
//! allocated registers, 32-bit unit by unit:
//!
//! 1. *Forward*: within a block, while a copy's source and destination both still hold
//!    the value, later reads of the destination read the source instead (when the source
//!    fits the operand: same file, consecutive units, SGPR tuples aligned). VALU operands
//!    are only rewritten among VGPRs (an SGPR could break the one-SGPR constant-bus
//!    limit); a wider operand, or one of a pseudo-instruction emission expands into
//!    several instructions, only to a source clear of the results. Any write of EXEC
//!    forgets every copy: linearized code copies under a lane mask.
//! 2. *Dead copies*: with liveness over the blocks, copies (and units of copies) whose
//!    destination is never read are removed.
//! 3. *Backward*: a result that is copied (each unit once, into consecutive registers)
//!    and dead after its copies is computed in the copies' destination, and the copies,
//!    now self-copies, go (the dead-copy step runs again); the instructions reading it
//!    before its copies read the destination instead, which nothing else touches in
//!    between (a do-while's exit test reading the next counter, copied back after it).
//!
//! Only registers the allocator hands out are removed as destinations: VGPRs, and SGPRs
//! from `first_sgpr` below the special registers (VCC, EXEC, M0 are never touched).

use super::inst::{Inst, Op64, Src};
use super::lower::linear::EXEC;
use super::mc::{Enc, Op};
use super::regs::{SGPR, VGPR};
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use std::collections::VecDeque;

/// One 32-bit register: VGPRs are 0..256, SGPRs 256 + number.
type Unit = u16;

/// The first special SGPR (flat_scratch, xnack, VCC, M0, EXEC … are above).
const SPECIAL_SGPR: u16 = 102;
const UNITS: usize = 256 + 128;

fn unit(file: u8, hw: u16) -> Option<Unit> {
    match file {
        VGPR => Some(hw),
        SGPR if hw < SPECIAL_SGPR => Some(256 + hw),
        _ => None,
    }
}

/// The units of a real register, `None` when any is special.
pub(super) fn units(r: Reg) -> Option<Vec<Unit>> {
    let Reg::Real { file, hw, .. } = r else {
        return None;
    };
    (0..r.width()).map(|k| unit(file, hw + k)).collect()
}

fn class_of_width(width: usize) -> Option<RegClass> {
    match width {
        1 => Some(RegClass::Int),
        2 => Some(RegClass::Float),
        4 => Some(RegClass::Vector),
        _ => None,
    }
}

/// The register made of `units`, when they are consecutive, in one file and (SGPR tuples)
/// aligned.
fn reg_of(units: &[Unit]) -> Option<Reg> {
    let first = *units.first()?;
    if units
        .iter()
        .enumerate()
        .any(|(k, &u)| u != first + k as u16)
    {
        return None;
    }
    let (file, hw) = if first >= 256 {
        (SGPR, first - 256)
    } else {
        (VGPR, first)
    };
    if unit(file, hw + units.len() as u16 - 1).is_none()
        || (first < 256) != (first + units.len() as u16 - 1 < 256)
    {
        return None;
    }
    let width = units.len() as u16;
    if file == SGPR && width > 1 && hw % width.min(4) != 0 {
        return None;
    }
    Some(Reg::Real {
        file,
        class: class_of_width(units.len())?,
        hw,
    })
}

#[derive(Clone)]
struct Bits([u64; UNITS / 64]);

impl Bits {
    fn new() -> Bits {
        Bits([0; UNITS / 64])
    }
    fn get(&self, u: Unit) -> bool {
        self.0[u as usize / 64] >> (u % 64) & 1 != 0
    }
    fn set(&mut self, u: Unit, on: bool) {
        let (w, b) = (u as usize / 64, u % 64);
        if on {
            self.0[w] |= 1 << b;
        } else {
            self.0[w] &= !(1 << b);
        }
    }
    fn union(&mut self, other: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            changed |= *a | b != *a;
            *a |= b;
        }
        changed
    }
}

/// Whether `inst` copies registers to themselves (or nothing at all).
pub fn is_self_copy(inst: &Inst) -> bool {
    unit_copies(inst).is_some_and(|copies| copies.iter().all(|(d, s)| d == s))
}

/// The unit copies `inst` makes, (destination, source), when it is nothing but copies
/// within one file.
fn unit_copies(inst: &Inst) -> Option<Vec<(Unit, Unit)>> {
    let pairs = |dst: Reg, srcs: &[Reg]| -> Option<Vec<(Unit, Unit)>> {
        let d = units(dst)?;
        let s: Vec<Unit> = srcs
            .iter()
            .map(|&r| units(r))
            .collect::<Option<Vec<_>>>()?
            .concat();
        (d.len() == s.len() && srcs.iter().all(|r| r.file() == dst.file()))
            .then(|| d.into_iter().zip(s).collect())
    };
    match *inst {
        Inst::Copy { dst, src } => pairs(dst, &[src]),
        Inst::Combine { dst, ref parts } => pairs(dst, parts),
        _ => None,
    }
}

/// A move under EXEC in linearized code, as (destination, source) units: it writes the
/// lanes that are on, as does the VALU instruction defining its source, which can
/// therefore write the destination itself ([`coalesce`]) when EXEC does not change in
/// between. Not a copy for forward propagation: the lanes that are off differ.
fn masked_copies(inst: &Inst) -> Option<Vec<(Unit, Unit)>> {
    match *inst {
        Inst::MaskedMove { dst, src, mask, .. }
            if mask == EXEC && dst.file() == VGPR && src.file() == VGPR =>
        {
            Some(units(dst)?.into_iter().zip(units(src)?).collect())
        }
        _ => None,
    }
}

/// The units `inst` reads and writes.
fn uses_defs(inst: &Inst) -> (Vec<Unit>, Vec<Unit>) {
    let (mut uses, mut defs) = (Vec::new(), Vec::new());
    inst.clone().visit_operands(&mut |r, kind| {
        let Reg::Real { file, hw, .. } = *r else {
            return;
        };
        let list = match kind {
            OperandKind::Use
            | OperandKind::LateUse
            | OperandKind::UseFixed(_)
            | OperandKind::UseAny => &mut uses,
            _ => &mut defs,
        };
        list.extend((0..r.width()).filter_map(|k| unit(file, hw + k)));
    });
    // A clobbered register (a call's) is written as a result is.
    for &c in inst.clobbers() {
        if let Reg::Real { file, hw, .. } = c {
            defs.extend((0..c.width()).filter_map(|k| unit(file, hw + k)));
        }
    }
    (uses, defs)
}

/// Rewrites the operands of `inst` that read a copy's destination to read its source.
///
/// A single machine instruction reads its operands before it writes, so a 32-bit operand
/// may become one of its results' registers; a wider operand, or any operand of a
/// pseudo-instruction that emission expands into several instructions, must stay clear of
/// the results (an earlier instruction of the sequence could overwrite it).
fn substitute(inst: &mut Inst, map: &[Option<Unit>]) {
    let (_, defs) = uses_defs(inst);
    let kept = inst.preserved();
    let single = matches!(
        inst,
        Inst::Valu { .. }
            | Inst::Salu { .. }
            | Inst::BrScc { .. }
            | Inst::Load { .. }
            | Inst::SLoad { .. }
            | Inst::Store { .. }
            | Inst::Copy { .. }
    );
    let rewrite = |r: &mut Reg, file: u8| {
        if r.file() != file {
            return;
        }
        let Some(us) = units(*r) else {
            return;
        };
        let mapped: Option<Vec<Unit>> = us.iter().map(|&u| map[u as usize]).collect();
        let Some(mapped) = mapped else {
            return;
        };
        if !(single && mapped.len() == 1) && mapped.iter().any(|u| defs.contains(u)) {
            return;
        }
        if let Some(new) = reg_of(&mapped) {
            *r = new;
        }
    };
    let src = |s: &mut Src, file: u8| {
        if let Src::Reg(r) = s {
            rewrite(r, file);
        }
    };
    match inst {
        // The value v_writelane_b32 writes is an SGPR (the only constant-bus read).
        Inst::Valu {
            op: Op::VWritelaneB32,
            srcs,
            ..
        } => src(&mut srcs[0], SGPR),
        // The value an SDWA destination keeps bits of must stay in the destination's
        // register.
        Inst::Valu { srcs, .. } => {
            let operands = kept.unwrap_or(srcs.len());
            srcs[..operands].iter_mut().for_each(|s| src(s, VGPR))
        }
        Inst::Salu { srcs, .. } => srcs.iter_mut().for_each(|s| src(s, SGPR)),
        Inst::BrScc { a, b, .. } => {
            src(a, SGPR);
            src(b, SGPR);
        }
        Inst::SCmpSelect { a, b, t, f, .. } => {
            for s in [a, b, t, f] {
                src(s, SGPR);
            }
        }
        Inst::Load { addr, sbase, .. } => {
            rewrite(addr, VGPR);
            if let Some(s) = sbase {
                rewrite(s, SGPR);
            }
        }
        // A MUBUF atomic that returns the old value writes it over its data, which must
        // stay the copy the allocator made.
        Inst::Atomic {
            op,
            dst,
            addr,
            data,
            sbase,
            ..
        } => {
            rewrite(addr, VGPR);
            if dst.is_none() || op.info().enc != Enc::Mubuf {
                rewrite(data, VGPR);
            }
            if let Some(s) = sbase {
                rewrite(s, SGPR);
            }
        }
        Inst::SLoad { base, soffset, .. } => {
            rewrite(base, SGPR);
            if let Some(s) = soffset {
                rewrite(s, SGPR);
            }
        }
        Inst::Store {
            addr, data, sbase, ..
        } => {
            rewrite(addr, VGPR);
            rewrite(data, VGPR);
            if let Some(s) = sbase {
                rewrite(s, SGPR);
            }
        }
        Inst::Copy { src: s, .. } => {
            let file = s.file();
            rewrite(s, file);
        }
        Inst::Combine { parts, .. } => {
            for part in parts {
                let file = part.file();
                rewrite(part, file);
            }
        }
        // `b` may be an SGPR pair beside VGPR `a`: each stays in its file.
        Inst::Alu64 { a, b, .. } => {
            let file = a.file();
            rewrite(a, file);
            if let Src::Reg(r) = b {
                let file = r.file();
                rewrite(r, file);
            }
        }
        Inst::FDiv32 { num, den, .. } | Inst::FDiv64 { num, den, .. } => {
            rewrite(num, VGPR);
            rewrite(den, VGPR);
        }
        Inst::Sqrt32 { src: s, .. }
        | Inst::Sqrt64 { src: s, .. }
        | Inst::RoundF64 { src: s, .. } => rewrite(s, VGPR),
        Inst::MaskedMove { src: s, mask, .. } => {
            rewrite(s, VGPR);
            rewrite(mask, SGPR);
        }
        _ => {}
    }
}

/// Forward copy propagation within one block.
fn propagate(block: &mut [Inst]) {
    // map[d] = s: unit d holds the same value as unit s.
    let mut map: Vec<Option<Unit>> = vec![None; UNITS];
    // The units with an entry in `map`.
    let mut active: Vec<Unit> = Vec::new();
    for inst in block.iter_mut() {
        // One half of a tuple: a plain copy of those units.
        if let Inst::Half {
            dst,
            src: Reg::Real { file, hw, .. },
            hi,
        } = *inst
        {
            *inst = Inst::Copy {
                dst,
                src: Reg::Real {
                    file,
                    class: dst.class(),
                    hw: hw + hi as u16 * dst.width(),
                },
            };
        }
        if !active.is_empty() {
            substitute(inst, &map);
        }
        let copies = unit_copies(inst).unwrap_or_default();
        let resolved: Vec<(Unit, Unit)> = copies
            .iter()
            .map(|&(d, s)| (d, map[s as usize].unwrap_or(s)))
            .collect();
        if inst.writes_exec() {
            for d in active.drain(..) {
                map[d as usize] = None;
            }
            continue;
        }
        let (_, defs) = uses_defs(inst);
        active.retain(|&d| {
            let keep = !defs.contains(&d) && !map[d as usize].is_some_and(|s| defs.contains(&s));
            if !keep {
                map[d as usize] = None;
            }
            keep
        });
        for (d, s) in resolved {
            if d != s && !defs.contains(&s) {
                if map[d as usize].is_none() {
                    active.push(d);
                }
                map[d as usize] = Some(s);
            }
        }
    }
}

/// Whether `u` is a register the allocator hands out (so a copy into it may go).
fn allocatable(u: Unit, first_sgpr: u16) -> bool {
    u < 256 || u >= 256 + first_sgpr
}

/// The units live at the end of each block.
type Summary = (Vec<Unit>, Vec<Unit>);

/// The units live at the end of each block, and each instruction's uses and definitions.
fn liveness(blocks: &[Vec<Inst>], succs: &[Vec<usize>]) -> (Vec<Bits>, Vec<Vec<Summary>>) {
    let n = blocks.len();
    // Liveness at block entries.
    let summaries: Vec<Vec<Summary>> = blocks
        .iter()
        .map(|b| b.iter().map(uses_defs).collect())
        .collect();
    let mut live_in: Vec<Bits> = (0..n).map(|_| Bits::new()).collect();
    let out = |live_in: &[Bits], b: usize| {
        let mut live = Bits::new();
        for &s in &succs[b] {
            live.union(&live_in[s]);
        }
        live
    };
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    // A worklist, first in postorder (successors before their predecessors), then the
    // predecessors of each block whose live-in set grew.
    let mut work: VecDeque<usize> = postorder(succs).into();
    let mut queued = vec![true; n];
    while let Some(b) = work.pop_front() {
        queued[b] = false;
        let mut live = out(&live_in, b);
        for (uses, defs) in summaries[b].iter().rev() {
            step(&mut live, uses, defs);
        }
        if live_in[b].union(&live) {
            for &p in &preds[b] {
                if !queued[p] {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    ((0..n).map(|b| out(&live_in, b)).collect(), summaries)
}

/// Every block in a postorder from block 0, then any block it does not reach.
fn postorder(succs: &[Vec<usize>]) -> Vec<usize> {
    let n = succs.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            if let Some(&s) = succs[b].get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
    }
    order
}

/// Liveness before an instruction from liveness after it.
fn step(live: &mut Bits, uses: &[Unit], defs: &[Unit]) {
    for &d in defs {
        live.set(d, false);
    }
    for &u in uses {
        live.set(u, true);
    }
}

/// The result register of `inst` that coalescing may rename, and whether `inst` is one
/// machine instruction.
fn renamable_def(inst: &mut Inst) -> Option<(&mut Reg, bool)> {
    if inst.preserved().is_some() {
        // Written in the register of the value whose other bits it keeps.
        return None;
    }
    match inst {
        Inst::Valu { dst: Some(d), .. } | Inst::Salu { dst: Some(d), .. } => Some((d, true)),
        Inst::Load { dst, .. } | Inst::SLoad { dst, .. } => Some((dst, true)),
        Inst::Alu64 { dst, .. }
        | Inst::SCmpSelect { dst, .. }
        | Inst::FDiv32 { dst, .. }
        | Inst::FDiv64 { dst, .. }
        | Inst::Sqrt32 { dst, .. }
        | Inst::Sqrt64 { dst, .. }
        | Inst::RoundF64 { dst, .. } => Some((dst, false)),
        _ => None,
    }
}

/// How far after a definition coalescing looks for the copies of its result.
const WINDOW: usize = 64;

/// Backward coalescing in one block: a result that is copied (every unit once, into
/// consecutive registers) and then dead is computed in the copies' destination instead,
/// which leaves the copies copying a register to itself; its readers before the copies
/// read the destination.
fn coalesce(block: &mut Vec<Inst>, live_out: &Bits) {
    let mut summaries: Vec<Summary> = block.iter().map(uses_defs).collect();
    // Liveness after each instruction.
    let mut live_after: Vec<Bits> = Vec::with_capacity(block.len());
    let mut live = live_out.clone();
    for (uses, defs) in summaries.iter().rev() {
        live_after.push(live.clone());
        step(&mut live, uses, defs);
    }
    live_after.reverse();
    // Definitions that now write a masked move's destination (see the end).
    let mut old_reads: Vec<(usize, Reg)> = Vec::new();
    for i in 0..block.len() {
        let mut probe = block[i].clone();
        let Some((&mut r, single)) = renamable_def(&mut probe) else {
            continue;
        };
        let Some(src_units) = units(r) else {
            continue;
        };
        let (i_uses, i_defs) = summaries[i].clone();
        // The copy of each unit: (instruction, destination unit).
        let mut targets: Vec<Option<(usize, Unit)>> = vec![None; src_units.len()];
        // Other instructions reading the result before its copies, which will read the
        // destination instead.
        let mut readers: Vec<usize> = Vec::new();
        let end = block.len().min(i + 1 + WINDOW);
        let mut ok = true;
        for (j, inst) in block.iter().enumerate().take(end).skip(i + 1) {
            if targets.iter().all(Option::is_some) {
                break;
            }
            if inst.writes_exec() {
                ok = false;
                break;
            }
            let (uses, defs) = &summaries[j];
            // `v_writelane_b32` writes its lane whatever EXEC holds.
            let lane_wise = !matches!(
                block[i],
                Inst::Valu {
                    op: Op::VWritelaneB32,
                    ..
                }
            );
            let copies = unit_copies(inst)
                .or_else(|| masked_copies(inst).filter(|_| lane_wise))
                .unwrap_or_default();
            for (k, &su) in src_units.iter().enumerate() {
                if !uses.contains(&su) {
                    continue;
                }
                let copied = copies.iter().filter(|&&(_, s)| s == su).count() == 1
                    && uses.iter().filter(|&&u| u == su).count() == 1;
                match copies.iter().find(|&&(_, s)| s == su) {
                    Some(&(d, _)) if copied && targets[k].is_none() => targets[k] = Some((j, d)),
                    None if copies.is_empty() && targets.iter().all(Option::is_none) => {
                        if readers.last() != Some(&j) {
                            readers.push(j);
                        }
                    }
                    _ => ok = false,
                }
            }
            if defs.iter().any(|d| src_units.contains(d)) {
                ok = false;
            }
            if !ok {
                break;
            }
        }
        if !ok || targets.iter().any(Option::is_none) {
            continue;
        }
        let targets: Vec<(usize, Unit)> = targets.into_iter().map(Option::unwrap).collect();
        let dst_units: Vec<Unit> = targets.iter().map(|&(_, d)| d).collect();
        let Some(new) = reg_of(&dst_units) else {
            continue;
        };
        if new.file() != r.file() || new.class() != r.class() {
            continue;
        }
        // The result is dead after its copies.
        if targets
            .iter()
            .zip(&src_units)
            .any(|(&(j, _), &s)| live_after[j].get(s))
        {
            continue;
        }
        // The destination is neither read nor written between the definition and its
        // copy, and stays clear of the definition's other operands.
        let clear = targets.iter().all(|&(j, d)| {
            (i + 1..j).all(|x| !summaries[x].0.contains(&d) && !summaries[x].1.contains(&d))
                && !i_defs.iter().any(|&u| u == d && !src_units.contains(&u))
        }) && may_write(&block[i], single, &dst_units, &i_uses);
        if !clear {
            continue;
        }
        // The readers before the copies read the destination (which nothing else reads or
        // writes in between), if their operands can be rewritten.
        let mut map: Vec<Option<Unit>> = vec![None; UNITS];
        for (&s, &d) in src_units.iter().zip(&dst_units) {
            map[s as usize] = Some(d);
        }
        let mut rewritten: Vec<(usize, Inst)> = Vec::new();
        for &j in &readers {
            let mut reader = block[j].clone();
            substitute(&mut reader, &map);
            if uses_defs(&reader).0.iter().any(|u| src_units.contains(u)) {
                ok = false;
                break;
            }
            rewritten.push((j, reader));
        }
        if !ok {
            continue;
        }
        // Each copy then reads the destination it writes.
        let mut copies: Vec<(usize, Inst)> = rewritten;
        for &(j, _) in &targets {
            if copies.iter().any(|&(x, _)| x == j) {
                continue;
            }
            let mut copy = block[j].clone();
            if !retarget(&mut copy, &src_units, &dst_units) {
                ok = false;
                break;
            }
            copies.push((j, copy));
        }
        if !ok {
            continue;
        }
        if let Some((d, _)) = renamable_def(&mut block[i]) {
            *d = new;
        }
        if targets
            .iter()
            .any(|&(j, _)| matches!(block[j], Inst::MaskedMove { .. }))
        {
            old_reads.push((i, new));
        }
        for (j, copy) in copies {
            block[j] = copy;
            summaries[j] = uses_defs(&block[j]);
        }
        summaries[i] = uses_defs(&block[i]);
        // The result's units are dead from the definition on (nothing else read them and
        // they were dead after their copies); each destination is live from the
        // definition to its copy, which now reads it.
        for (&(j, d), &s) in targets.iter().zip(&src_units) {
            for live in &mut live_after[i..j] {
                live.set(s, false);
                live.set(d, true);
            }
        }
    }
    // A definition that took a masked move's place writes only the lanes that are on and
    // keeps the others' values, which the move read: a move of the register to itself
    // before the definition (it emits nothing) reads them there, so that liveness still
    // sees the earlier writes of those lanes as needed.
    for &(i, reg) in old_reads.iter().rev() {
        block.insert(
            i,
            Inst::MaskedMove {
                dst: reg,
                old: reg,
                src: reg,
                mask: EXEC,
            },
        );
    }
}

/// Whether `inst` (one machine instruction when `single`) may write its result to `dst`
/// given the units it reads.
fn may_write(inst: &Inst, single: bool, dst: &[Unit], uses: &[Unit]) -> bool {
    let disjoint = || dst.iter().all(|d| !uses.contains(d));
    match inst {
        // A 64-bit bitwise/add/sub pair of instructions, low half first: its low result
        // must not be a high source.
        Inst::Alu64 { op, a, b, .. } if *op != Op64::Mul => {
            let high = |r: Reg| units(r).map(|u| u[u.len() - 1]);
            let b = match b {
                Src::Reg(r) => high(*r),
                Src::Imm(_) => None,
            };
            high(*a) != Some(dst[0]) && b != Some(dst[0])
        }
        // One instruction reads before it writes; wider results either are a source
        // exactly or miss them all.
        _ if single => {
            dst.len() == 1 || disjoint() || {
                // Every source the result touches is the result's registers exactly.
                let mut exact = true;
                inst.clone().visit_operands(&mut |r, kind| {
                    if matches!(
                        kind,
                        OperandKind::Use
                            | OperandKind::LateUse
                            | OperandKind::UseFixed(_)
                            | OperandKind::UseAny
                    ) {
                        let us = units(*r).unwrap_or_default();
                        exact &= us == dst || us.iter().all(|u| !dst.contains(u));
                    }
                });
                exact
            }
        }
        _ => disjoint(),
    }
}

/// Makes the copy `inst` read `to[k]` where it read `from[k]`; false when a source would
/// not be a register any more.
fn retarget(inst: &mut Inst, from: &[Unit], to: &[Unit]) -> bool {
    let fix = |r: &mut Reg| {
        let Some(us) = units(*r) else {
            return true;
        };
        let us: Vec<Unit> = us
            .iter()
            .map(|u| from.iter().position(|f| f == u).map_or(*u, |k| to[k]))
            .collect();
        match reg_of(&us) {
            Some(new) if new.file() == r.file() => {
                *r = new;
                true
            }
            _ => false,
        }
    };
    match inst {
        Inst::Copy { src, .. } => fix(src),
        Inst::Combine { parts, .. } => parts.iter_mut().all(fix),
        Inst::MaskedMove { src, .. } => fix(src),
        _ => false,
    }
}

/// Removes copies, or units of copies, whose destination is never read. Returns the units
/// live at the end of each block (from before the removal: a superset of what is live
/// now, which is what coalescing needs).
fn remove_dead(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>], first_sgpr: u16) -> Vec<Bits> {
    let (live_out, summaries) = liveness(blocks, succs);
    for (b, summaries) in summaries.into_iter().enumerate() {
        let mut live = live_out[b].clone();
        let block = std::mem::take(&mut blocks[b]);
        let mut kept = Vec::with_capacity(block.len());
        for (inst, summary) in block.into_iter().zip(summaries).rev() {
            let (inst, summary) = match unit_copies(&inst) {
                Some(copies) => {
                    let needed: Vec<(Unit, Unit)> = copies
                        .iter()
                        .copied()
                        .filter(|&(d, s)| d != s && (live.get(d) || !allocatable(d, first_sgpr)))
                        .collect();
                    if needed.len() == copies.len() {
                        (inst, summary)
                    } else if needed.is_empty() {
                        continue;
                    } else {
                        let (d, s): (Vec<Unit>, Vec<Unit>) = needed.into_iter().unzip();
                        match (reg_of(&d), reg_of(&s)) {
                            (Some(dst), Some(src)) => {
                                let copy = Inst::Copy { dst, src };
                                let summary = uses_defs(&copy);
                                (copy, summary)
                            }
                            _ => (inst, summary),
                        }
                    }
                }
                None => (inst, summary),
            };
            step(&mut live, &summary.0, &summary.1);
            kept.push(inst);
        }
        kept.reverse();
        blocks[b] = kept;
    }
    live_out
}

/// Scalar copies of the entry block between registers written nowhere else (kernel
/// arguments taken from a wider load, say) propagate into every block: each read of the
/// destination follows the copy, which dominates it, and the source still holds the value
/// then, as nothing else writes it. SGPRs only: a VGPR copied under a lane mask holds the
/// source's value in the active lanes alone.
fn propagate_entry_scalars(blocks: &mut [Vec<Inst>]) {
    let mut writes = vec![0u32; UNITS];
    for inst in blocks.iter().flatten() {
        for d in uses_defs(inst).1 {
            writes[d as usize] += 1;
        }
    }
    let mut map: Vec<Option<Unit>> = vec![None; UNITS];
    let mut written = Bits::new();
    let mut any = false;
    let Some(entry) = blocks.first_mut() else {
        return;
    };
    for inst in entry.iter_mut() {
        if any {
            substitute(inst, &map);
        }
        let (_, defs) = uses_defs(inst);
        for (d, s) in unit_copies(inst).unwrap_or_default() {
            let s = map[s as usize].unwrap_or(s);
            if d >= 256
                && s >= 256
                && d != s
                && writes[d as usize] == 1
                && writes[s as usize] == 1
                && written.get(s)
            {
                map[d as usize] = Some(s);
                any = true;
            }
        }
        for d in defs {
            written.set(d, true);
        }
    }
    if any {
        for inst in blocks[1..].iter_mut().flatten() {
            substitute(inst, &map);
        }
    }
}

/// Removes the `s_mov_b32` of a constant into an SGPR that already holds it, written by an
/// earlier one of the block and not since (gfx6's buffer resources, one per base address,
/// set the same two dwords in the same registers).
fn remove_repeated_constants(block: &mut Vec<Inst>) {
    let mut known: Vec<Option<u32>> = vec![None; UNITS];
    block.retain(|inst| {
        let constant = match inst {
            Inst::Salu {
                op: Op::SMovB32,
                dst: Some(dst),
                srcs,
            } => match (units(*dst).as_deref(), srcs.as_slice()) {
                (Some(&[u]), [Src::Imm(c)]) if u >= 256 => Some((u, *c)),
                _ => None,
            },
            _ => None,
        };
        if let Some((u, c)) = constant
            && known[u as usize] == Some(c)
        {
            return false;
        }
        for d in uses_defs(inst).1 {
            known[d as usize] = None;
        }
        for &d in inst.clobbers() {
            for u in units(d).unwrap_or_default() {
                known[u as usize] = None;
            }
        }
        if let Some((u, c)) = constant {
            known[u as usize] = Some(c);
        }
        true
    });
}

/// Propagates copies in allocated code (blocks in layout order with their successors)
/// and removes the ones left unread.
pub fn run(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>], first_sgpr: u16) {
    for block in blocks.iter_mut() {
        propagate(block);
    }
    propagate_entry_scalars(blocks);
    // Dead copies first: a copy left over by propagation still reads its source.
    let live = remove_dead(blocks, succs, first_sgpr);
    for (block, live) in blocks.iter_mut().zip(&live) {
        coalesce(block, live);
    }

    remove_dead(blocks, succs, first_sgpr);
    for block in blocks.iter_mut() {
        remove_repeated_constants(block);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::{sgpr, sgpr_pair, vgpr};
    use smallvec::smallvec;

    pub(in crate::isa::gcn) fn vpair(hw: u16) -> Reg {
        Reg::Real {
            file: VGPR,
            class: RegClass::Float,
            hw,
        }
    }

    pub(in crate::isa::gcn) fn valu(op: Op, dst: Reg, srcs: &[Reg]) -> Inst {
        Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs: srcs.iter().map(|&r| Src::Reg(r)).collect(),
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        }
    }

    pub(in crate::isa::gcn) fn store(addr: Reg, data: Reg) -> Inst {
        Inst::Store {
            op: Op::FlatStoreDwordx2,
            addr,
            offset: 0,
            data,
            sbase: None,
        }
    }

    fn copy(dst: Reg, src: Reg) -> Inst {
        Inst::Copy { dst, src }
    }

    /// Runs the pass on one block that ends the function.
    fn one_block(insts: Vec<Inst>) -> Vec<Inst> {
        let mut blocks = vec![insts];
        run(&mut blocks, &[vec![]], 2);
        blocks.pop().unwrap()
    }

    #[test]
    fn halves_and_combines_fold_into_their_readers() {
        // v[4:5] = (v0 + v1, v2 + v3) built from singles, then stored: the store reads the
        // singles directly when they are consecutive.
        let out = one_block(vec![
            valu(Op::VAddF32, vgpr(6), &[vgpr(0), vgpr(1)]),
            valu(Op::VAddF32, vgpr(7), &[vgpr(2), vgpr(3)]),
            Inst::Combine {
                dst: vpair(4),
                parts: smallvec![vgpr(6), vgpr(7)],
            },
            store(vpair(8), vpair(4)),
        ]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[2], store(vpair(8), vpair(6)));
        // Not consecutive: the adds write the pair directly.
        let out = one_block(vec![
            valu(Op::VAddF32, vgpr(6), &[vgpr(0), vgpr(1)]),
            valu(Op::VAddF32, vgpr(9), &[vgpr(2), vgpr(3)]),
            Inst::Combine {
                dst: vpair(4),
                parts: smallvec![vgpr(6), vgpr(9)],
            },
            store(vpair(10), vpair(4)),
        ]);
        assert_eq!(
            out,
            vec![
                valu(Op::VAddF32, vgpr(4), &[vgpr(0), vgpr(1)]),
                valu(Op::VAddF32, vgpr(5), &[vgpr(2), vgpr(3)]),
                store(vpair(10), vpair(4)),
            ]
        );
        // A half read through a copy of its pair.
        let out = one_block(vec![
            copy(vpair(2), vpair(4)),
            Inst::Half {
                dst: vgpr(0),
                src: vpair(2),
                hi: true,
            },
            valu(Op::VAddF32, vgpr(1), &[vgpr(0), vgpr(0)]),
            store(vpair(8), vpair(0)),
        ]);
        // The pair copy goes; the half stays for the store, the add reads v5.
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0], copy(vgpr(0), vgpr(5)));
        assert_eq!(out[1], valu(Op::VAddF32, vgpr(1), &[vgpr(5), vgpr(5)]));
    }

    #[test]
    fn sequences_never_read_what_they_already_wrote() {
        // The combine writes v4 first, so its high half must not become v4.
        let combine = Inst::Combine {
            dst: vpair(4),
            parts: smallvec![vgpr(6), vgpr(7)],
        };
        let out = one_block(vec![
            copy(vgpr(7), vgpr(4)),
            combine.clone(),
            store(vpair(8), vpair(4)),
        ]);
        assert_eq!(
            out,
            vec![copy(vgpr(7), vgpr(4)), combine, store(vpair(8), vpair(4))]
        );
        // A 64-bit add (two instructions) keeps a source that overlaps its result; a
        // single 32-bit instruction may read its own result register.
        let add = Inst::Alu64 {
            op: crate::isa::gcn::inst::Op64::Add,
            dst: vpair(4),
            a: vpair(2),
            b: Src::Reg(vpair(8)),
        };
        let out = one_block(vec![
            copy(vpair(2), vpair(5)),
            add.clone(),
            valu(Op::VAddF32, vgpr(6), &[vgpr(3), vgpr(3)]),
            store(vpair(8), vpair(4)),
            store(vpair(8), vpair(6)),
        ]);
        assert_eq!(out[1], add);
        let out = one_block(vec![
            copy(vgpr(3), vgpr(6)),
            valu(Op::VAddF32, vgpr(6), &[vgpr(3), vgpr(3)]),
            store(vpair(8), vpair(6)),
        ]);
        assert_eq!(
            out,
            vec![
                valu(Op::VAddF32, vgpr(6), &[vgpr(6), vgpr(6)]),
                store(vpair(8), vpair(6))
            ]
        );
    }

    fn ret(results: &[(Reg, Reg)]) -> Inst {
        Inst::Ret {
            results: results.to_vec(),
            ret_addr: sgpr_pair(0),
        }
    }

    fn alu64(op: crate::isa::gcn::inst::Op64, dst: Reg, a: Reg, b: Reg) -> Inst {
        Inst::Alu64 {
            op,
            dst,
            a,
            b: Src::Reg(b),
        }
    }

    #[test]
    fn a_result_only_copied_is_computed_in_place() {
        use crate::isa::gcn::inst::Op64;
        // v[4:5] = v[0:1] + v[2:3], returned in v0 and v1: the add writes v[0:1].
        let returned = |def: Inst| {
            one_block(vec![
                def,
                copy(vgpr(0), vgpr(4)),
                copy(vgpr(1), vgpr(5)),
                ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))]),
            ])
        };
        let out = returned(alu64(Op64::Add, vpair(4), vpair(0), vpair(2)));
        assert_eq!(
            out,
            vec![
                alu64(Op64::Add, vpair(0), vpair(0), vpair(2)),
                ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))])
            ]
        );
        // The high half of a source is written by the low instruction: no.
        let out = returned(alu64(Op64::Add, vpair(4), vpair(6), vpair(2)));
        assert_eq!(out[0], alu64(Op64::Add, vpair(0), vpair(6), vpair(2)));
        let out = one_block(vec![
            alu64(Op64::Add, vpair(4), vpair(0), vpair(6)),
            copy(vgpr(1), vgpr(4)),
            copy(vgpr(2), vgpr(5)),
            ret(&[(vgpr(1), vgpr(1)), (vgpr(2), vgpr(2))]),
        ]);
        assert_eq!(out.len(), 4, "v1 is a high source");
        // The multiply uses its result as scratch: its sources must stay clear.
        let out = returned(alu64(Op64::Mul, vpair(4), vpair(0), vpair(2)));
        assert_eq!(out.len(), 4);
        let out = returned(alu64(Op64::Mul, vpair(4), vpair(6), vpair(2)));
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn a_result_read_elsewhere_or_a_destination_in_use_stays() {
        let add = |d| valu(Op::VAddF32, vgpr(d), &[vgpr(2), vgpr(3)]);
        // The result is read after its copy.
        let out = one_block(vec![
            add(4),
            copy(vgpr(0), vgpr(4)),
            valu(Op::VAddF32, vgpr(1), &[vgpr(4), vgpr(4)]),
            ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))]),
        ]);
        assert_eq!(out[0], add(4));
        // The destination is read between the definition and the copy.
        let out = one_block(vec![
            add(4),
            valu(Op::VAddF32, vgpr(1), &[vgpr(0), vgpr(0)]),
            copy(vgpr(0), vgpr(4)),
            ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))]),
        ]);
        assert_eq!(out[0], add(4));
        // Free to go.
        let out = one_block(vec![
            add(4),
            valu(Op::VAddF32, vgpr(1), &[vgpr(3), vgpr(3)]),
            copy(vgpr(0), vgpr(4)),
            ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))]),
        ]);
        assert_eq!(out[0], add(0));
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn readers_before_the_copy_read_the_destination() {
        let add = |d, a, b| valu(Op::VAddF32, vgpr(d), &[vgpr(a), vgpr(b)]);
        // v4 is read by an add, then copied to v0 and dead: it is computed in v0.
        let out = one_block(vec![
            add(4, 2, 3),
            add(1, 4, 4),
            copy(vgpr(0), vgpr(4)),
            ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))]),
        ]);
        assert_eq!(
            out,
            vec![
                add(0, 2, 3),
                add(1, 0, 0),
                ret(&[(vgpr(0), vgpr(0)), (vgpr(1), vgpr(1))])
            ]
        );
        // Not where the reader writes the destination (then overwritten by the copy).
        let out = one_block(vec![
            add(4, 2, 3),
            add(0, 4, 4),
            copy(vgpr(0), vgpr(4)),
            ret(&[(vgpr(0), vgpr(0))]),
        ]);
        assert_eq!(out[0], add(4, 2, 3));
    }

    #[test]
    fn a_redefined_source_ends_the_copy() {
        let out = one_block(vec![
            copy(vgpr(3), vgpr(1)),
            valu(Op::VAddF32, vgpr(1), &[vgpr(0), vgpr(0)]),
            valu(Op::VAddF32, vgpr(4), &[vgpr(3), vgpr(1)]),
            store(vpair(6), vpair(3)),
        ]);
        assert_eq!(out[0], copy(vgpr(3), vgpr(1)));
        assert_eq!(out[2], valu(Op::VAddF32, vgpr(4), &[vgpr(3), vgpr(1)]));
    }

    #[test]
    fn sgprs_stay_out_of_valu_operands_and_exec_forgets_copies() {
        let out = one_block(vec![
            copy(sgpr(4), sgpr(6)),
            valu(Op::VAddF32, vgpr(0), &[sgpr(4), vgpr(1)]),
            store(vpair(2), vpair(0)),
        ]);
        assert_eq!(out[1], valu(Op::VAddF32, vgpr(0), &[sgpr(4), vgpr(1)]));
        let exec = Inst::Salu {
            op: Op::SMovB64,
            dst: Some(EXEC),
            srcs: smallvec![Src::Reg(sgpr_pair(8))],
        };
        let out = one_block(vec![
            copy(vgpr(3), vgpr(1)),
            exec.clone(),
            valu(Op::VAddF32, vgpr(0), &[vgpr(3), vgpr(3)]),
            store(vpair(4), vpair(0)),
        ]);
        assert_eq!(out[2], valu(Op::VAddF32, vgpr(0), &[vgpr(3), vgpr(3)]));
    }

    #[test]
    fn copies_live_into_a_successor_stay() {
        let mut blocks = vec![
            vec![
                copy(vgpr(3), vgpr(1)),
                copy(vgpr(5), vgpr(1)),
                Inst::Jump { target: 1 },
            ],
            vec![store(vpair(6), vpair(2)), Inst::EndPgm],
        ];
        run(&mut blocks, &[vec![1], vec![]], 2);
        assert_eq!(
            blocks[0],
            vec![copy(vgpr(3), vgpr(1)), Inst::Jump { target: 1 }]
        );
    }
}
