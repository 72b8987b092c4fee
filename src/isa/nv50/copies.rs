//! Copies after allocation.
//!
//! The allocator keeps singles, pairs and quads apart, so a pair built from two words
//! (`Combine`: a 64-bit value read whole, by `st b64`, an f64 operation, a device
//! function's i64 argument) is two `mov`s, and its own moves (a value needed in another
//! register, at a block parameter or a fixed one) are copies too. Per block, on the
//! allocated registers, 32-bit unit by unit:
//!
//! 1. *Forward*: while a copy's source and destination both still hold the value, later
//!    reads of the destination read the source instead, where the source makes an operand
//!    of the same shape (a pair aligned, a 16-bit half below `$r64`) that encodes.
//! 2. *Dead copies*: with liveness over the blocks, the units of copies whose destination
//!    nothing reads go.
//! 3. *Backward*: when the register a copy reads was written by one instruction of the
//!    block, is read by nothing after the copy and the copy's destination is neither read
//!    nor written in between, that instruction writes the destination instead, the reads
//!    in between follow, and the copy, now copying a register to itself, goes.
//!
//! The fixed registers of the function's entry and return are never renamed.

use super::emit::encodable;
use super::inst::{Inst, Src};
use super::mc::Variant;
use super::regs::{GPR, gpr};
use crate::machinst::{Reg, RegClass};
use std::collections::VecDeque;

/// A set of `$r` registers (`$r0`–`$r127`), one bit each.
type Units = u128;

/// The units of a real `$r` register.
fn units(r: Reg) -> Units {
    match r {
        Reg::Real { file: GPR, hw, .. } => ((1u128 << r.width()) - 1) << hw,
        _ => 0,
    }
}

/// The units a source reads.
fn src_units(src: &Src) -> Units {
    match *src {
        Src::Reg(r) => units(r),
        Src::Half(Reg::Real { file: GPR, hw, .. }, hi) => 1 << (hw + hi as u16),
        Src::H16(r, _) => units(r),
        _ => 0,
    }
}

/// The units `inst` reads.
fn reads(inst: &Inst) -> Units {
    match inst {
        Inst::Alu(alu) => alu.srcs.iter().map(src_units).fold(0, |a, b| a | b),
        Inst::Select { t, f, .. } => units(*t) | units(*f),
        Inst::Load { addr, .. } => src_units(addr),
        Inst::Store { data, addr, .. } => units(*data) | src_units(addr),
        Inst::SharedLoad { addr, .. } => addr.map_or(0, units),
        Inst::SharedStore { data, addr, .. } => units(*data) | addr.map_or(0, units),
        Inst::LocalLoad { addr, .. } => addr.map_or(0, units),
        Inst::LocalStore { data, addr, .. } => units(*data) | addr.map_or(0, units),
        Inst::Spill { src, .. } | Inst::Output { src, .. } => units(*src),
        Inst::SetSharedAddr { addr } => units(*addr),
        Inst::Atomic { addr, src, cmp, .. } => src_units(addr) | units(*src) | cmp.map_or(0, units),
        Inst::SharedAtomic { addr, src, cmp, .. } => {
            units(*addr) | src.map_or(0, units) | cmp.map_or(0, units)
        }
        Inst::Copy { src, .. } => units(*src),
        Inst::Combine { lo, hi, .. } => units(*lo) | units(*hi),
        Inst::Ret { uses } | Inst::Exit { results: uses } => {
            uses.iter().map(|(r, _)| units(*r)).fold(0, |a, b| a | b)
        }
        Inst::Call { args, .. } => args.iter().map(|(r, _)| units(*r)).fold(0, |a, b| a | b),
        Inst::Args { .. }
        | Inst::Reload { .. }
        | Inst::SetAddr { .. }
        | Inst::Jump { .. }
        | Inst::Branch { .. }
        | Inst::Joinat { .. }
        | Inst::Barrier
        | Inst::Kill => 0,
    }
}

/// The units `inst` writes.
fn writes(inst: &Inst) -> Units {
    match inst {
        Inst::Alu(alu) => alu.dst.map_or(0, units),
        Inst::Select { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::SharedLoad { dst, .. }
        | Inst::LocalLoad { dst, .. }
        | Inst::Reload { dst, .. }
        | Inst::Atomic { dst: Some(dst), .. }
        | Inst::Copy { dst, .. }
        | Inst::Combine { dst, .. } => units(*dst),
        Inst::SharedAtomic { dst, tmp, tmp2, .. } => {
            units(*dst) | units(*tmp) | tmp2.map_or(0, units)
        }
        Inst::Args { defs } => defs.iter().map(|(r, _)| units(*r)).fold(0, |a, b| a | b),
        // The callee may write every register the call clobbers.
        Inst::Call {
            results, clobbers, ..
        } => results
            .iter()
            .map(|(r, _)| units(*r))
            .chain(clobbers.iter().map(|&c| units(c)))
            .fold(0, |a, b| a | b),
        _ => 0,
    }
}

/// The units live at the end of each block (blocks with their successors).
fn live_out(blocks: &[Vec<Inst>], succs: &[Vec<usize>]) -> Vec<Units> {
    let n = blocks.len();
    // Per block: the units read before written (`gen`) and the units written (`kill`).
    let summary: Vec<(Units, Units)> = blocks
        .iter()
        .map(|insts| {
            insts.iter().rev().fold((0, 0), |(gen_, kill), inst| {
                let w = writes(inst);
                ((gen_ & !w) | reads(inst), kill | w)
            })
        })
        .collect();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut live_in: Vec<Units> = vec![0; n];
    let out = |live_in: &[Units], b: usize| succs[b].iter().fold(0, |a, &s| a | live_in[s]);
    let mut work: VecDeque<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    while let Some(b) = work.pop_front() {
        queued[b] = false;
        let (gen_, kill) = summary[b];
        let new = gen_ | (out(&live_in, b) & !kill);
        if new != live_in[b] {
            live_in[b] = new;
            for &p in &preds[b] {
                if !queued[p] {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    (0..n).map(|b| out(&live_in, b)).collect()
}

/// The (destination, source) register copies `inst` makes within `$r`.
fn copies(inst: &Inst) -> Vec<(Reg, Reg)> {
    match *inst {
        Inst::Alu(ref alu) => match (alu.dst, alu.copied()) {
            (Some(dst), Some(Src::Reg(src))) => vec![(dst, src)],
            (Some(dst), Some(Src::Half(Reg::Real { file: GPR, hw, .. }, hi))) => {
                vec![(dst, gpr(hw + hi as u16))]
            }
            _ => Vec::new(),
        },
        Inst::Copy { dst, src } if dst.file() == GPR && src.file() == GPR => vec![(dst, src)],
        Inst::Combine { dst, lo, hi } => {
            let word = |k: u16| Reg::Real {
                file: GPR,
                class: RegClass::Int,
                hw: dst.hw() + k,
            };
            vec![(word(0), lo), (word(1), hi)]
        }
        _ => Vec::new(),
    }
}

/// The register `inst` writes, if it may write another: one machine instruction, or a
/// `select` or a `Combine`, which write their destination before reading all their
/// sources (none of which may then be the new destination).
fn renamable_def(inst: &mut Inst) -> Option<&mut Reg> {
    match inst {
        Inst::Alu(alu) => alu.dst.as_mut(),
        Inst::Load { dst, .. }
        | Inst::Copy { dst, .. }
        | Inst::Select { dst, .. }
        | Inst::Combine { dst, .. } => Some(dst),
        _ => None,
    }
}

/// `inst` reading `to` where it read `from` (registers of one width), or `None` where a
/// read of `from`'s units is not `from` itself (a wider register, a fixed one) or the new
/// operand does not encode.
fn renamed_reads(inst: &Inst, from: Reg, to: Reg, variant: Variant) -> Option<Inst> {
    let mut inst = inst.clone();
    let hit = units(from);
    let reg = |r: &mut Reg| -> Option<()> {
        if units(*r) & hit == 0 {
            return Some(());
        }
        (*r == from).then(|| *r = to)
    };
    match &mut inst {
        Inst::Alu(alu) => {
            for s in alu.srcs.iter_mut() {
                if src_units(s) & hit == 0 {
                    continue;
                }
                *s = match *s {
                    Src::Reg(r) if r == from => Src::Reg(to),
                    // A half of the renamed pair, or the renamed single as a pair's half.
                    Src::Half(p, hi) if p == from => Src::Half(to, hi),
                    Src::Half(..) if from.class() == RegClass::Int => Src::Reg(to),
                    Src::H16(r, hi) if r == from => Src::H16(to, hi),
                    _ => return None,
                };
            }
            if !encodable(alu, variant) {
                return None;
            }
        }
        Inst::Select { t, f, .. } => {
            reg(t)?;
            reg(f)?;
        }
        Inst::Load { addr, .. } => match *addr {
            Src::Reg(r) if r == from => *addr = Src::Reg(to),
            Src::Half(..) if from.class() == RegClass::Int => *addr = Src::Reg(to),
            _ if src_units(addr) & hit == 0 => {}
            _ => return None,
        },
        Inst::Store { data, addr, .. } => {
            reg(data)?;
            match *addr {
                Src::Reg(r) if r == from => *addr = Src::Reg(to),
                Src::Half(..) if from.class() == RegClass::Int => *addr = Src::Reg(to),
                _ if src_units(addr) & hit == 0 => {}
                _ => return None,
            }
        }
        Inst::SharedLoad { addr, .. } => {
            if let Some(a) = addr {
                reg(a)?;
            }
        }
        Inst::SharedStore { data, addr, .. } | Inst::LocalStore { data, addr, .. } => {
            reg(data)?;
            if let Some(a) = addr {
                reg(a)?;
            }
        }
        Inst::LocalLoad { addr, .. } => {
            if let Some(a) = addr {
                reg(a)?;
            }
        }
        Inst::Spill { src, .. } | Inst::Output { src, .. } => reg(src)?,
        Inst::SetSharedAddr { addr } => reg(addr)?,
        Inst::Atomic { .. } | Inst::SharedAtomic { .. } => {
            if reads(&inst) & hit != 0 {
                return None;
            }
        }
        Inst::Copy { src, .. } => reg(src)?,
        Inst::Combine { lo, hi, .. } => {
            reg(lo)?;
            reg(hi)?;
        }
        Inst::Ret { .. } | Inst::Call { .. } | Inst::Exit { .. } => {
            if reads(&inst) & hit != 0 {
                return None;
            }
        }
        Inst::Args { .. }
        | Inst::Reload { .. }
        | Inst::SetAddr { .. }
        | Inst::Jump { .. }
        | Inst::Branch { .. }
        | Inst::Joinat { .. }
        | Inst::Barrier
        | Inst::Kill => {}
    }
    Some(inst)
}

/// Computes the source of the copy `(dst, src)` at `j` in `dst` where that is allowed (see
/// the module comment); returns whether it did.
fn coalesce_one(
    block: &mut [Inst],
    j: usize,
    dst: Reg,
    src: Reg,
    live_out: Units,
    variant: Variant,
) -> bool {
    let (d, s) = (units(dst), units(src));
    if d == s || d & s != 0 || dst.width() != src.width() {
        return false;
    }
    // The instruction that wrote `src` last, writing exactly it.
    let Some(i) = (0..j).rev().find(|&i| writes(&block[i]) & s != 0) else {
        return false;
    };
    let mut def = block[i].clone();
    match renamable_def(&mut def) {
        Some(r) if *r == src => *r = dst,
        _ => return false,
    }
    // One machine instruction reads its sources before it writes; a sequence must not
    // read what it already wrote.
    let single = matches!(def, Inst::Alu(_) | Inst::Load { .. });
    if (!single && reads(&def) & d != 0) || writes(&block[i]) != s {
        return false;
    }
    if let Inst::Alu(alu) = &def
        && !encodable(alu, variant)
    {
        return false;
    }
    // `dst` untouched in between; `src` dead after the copy.
    if block[i + 1..j]
        .iter()
        .any(|inst| (reads(inst) | writes(inst)) & d != 0)
    {
        return false;
    }
    let mut after = live_out;
    for inst in block[j + 1..].iter().rev() {
        after = (after & !writes(inst)) | reads(inst);
    }
    if after & s != 0 {
        return false;
    }
    // The copy's other units may read `src` too (a pair of one word twice).
    let mut renamed = Vec::with_capacity(j - i);
    for inst in &block[i + 1..=j] {
        match renamed_reads(inst, src, dst, variant) {
            Some(new) => renamed.push(new),
            None => return false,
        }
    }
    block[i] = def;
    for (k, inst) in renamed.into_iter().enumerate() {
        block[i + 1 + k] = inst;
    }
    true
}

/// Whether `inst` copies `$r` registers to themselves (and nothing else).
pub fn is_self_copy(inst: &Inst) -> bool {
    let units = unit_copies(inst);
    !units.is_empty() && units.iter().all(|(d, s)| d == s)
}

/// The (destination, source) unit copies of `inst` (a copy or `Combine` within `$r`).
fn unit_copies(inst: &Inst) -> Vec<(u16, u16)> {
    copies(inst)
        .into_iter()
        .flat_map(|(d, s)| (0..d.width()).map(move |k| (d.hw() + k, s.hw() + k)))
        .collect()
}

/// The real `$r` register of `width` units starting at `hw`, when that is one: a pair
/// even, a quad a multiple of four.
fn reg_at(hw: u16, width: u16) -> Option<Reg> {
    let class = match width {
        1 => RegClass::Int,
        2 => RegClass::Float,
        4 => RegClass::Vector,
        _ => return None,
    };
    (hw.is_multiple_of(width) && hw + width <= 128).then_some(Reg::Real {
        file: GPR,
        class,
        hw,
    })
}

/// `r` with each unit read where `map` says its value also is, when that makes a register
/// of `r`'s shape.
fn mapped(r: Reg, map: &[Option<u16>; 128]) -> Option<Reg> {
    let Reg::Real { file: GPR, hw, .. } = r else {
        return None;
    };
    let first = map[hw as usize]?;
    for k in 1..r.width() {
        if map[(hw + k) as usize]? != first + k {
            return None;
        }
    }
    reg_at(first, r.width())
}

/// `inst` reading, where `map` says a unit's value also is in another, that one instead;
/// operands that would not keep their shape or encode stay. Sequences that write before
/// they read (`select`, `Combine`, pair copies) keep sources clear of what they write.
fn forwarded(inst: &Inst, map: &[Option<u16>; 128], variant: Variant) -> Inst {
    let mut out = inst.clone();
    let written = writes(inst);
    let sequence = |r: Reg| units(r) & written == 0;
    let src = |s: Src| -> Option<Src> {
        match s {
            Src::Reg(r) => mapped(r, map).map(Src::Reg),
            Src::Half(Reg::Real { file: GPR, hw, .. }, hi) => {
                let u = map[(hw + hi as u16) as usize]?;
                reg_at(u, 1).map(Src::Reg)
            }
            Src::H16(r, hi) => mapped(r, map)
                .filter(|n| n.hw() < 64)
                .map(|n| Src::H16(n, hi)),
            _ => None,
        }
    };
    match &mut out {
        Inst::Alu(alu) => {
            for k in 0..alu.srcs.len() {
                if let Some(new) = src(alu.srcs[k]) {
                    let old = alu.srcs[k];
                    alu.srcs[k] = new;
                    if !encodable(alu, variant) {
                        alu.srcs[k] = old;
                    }
                }
            }
        }
        Inst::Load { addr, .. } => {
            if let Some(new @ Src::Reg(_)) = src(*addr) {
                *addr = new;
            }
        }
        Inst::Store { data, addr, .. } => {
            if let Some(new) = mapped(*data, map) {
                *data = new;
            }
            if let Some(new @ Src::Reg(_)) = src(*addr) {
                *addr = new;
            }
        }
        // `select` copies `f` first (an aligned register equal to the destination or
        // apart from it), then `t` under the predicate.
        Inst::Select { t, f, .. } => {
            if let Some(new) = mapped(*f, map) {
                *f = new;
            }
            if let Some(new) = mapped(*t, map).filter(|&n| sequence(n)) {
                *t = new;
            }
        }
        Inst::Copy { src: r, .. } => {
            if let Some(new) = mapped(*r, map).filter(|&n| n.width() == 1 || sequence(n)) {
                *r = new;
            }
        }
        Inst::Combine { dst, hi, .. } => {
            // `Combine` writes the low word, then reads the high one.
            if let Some(new) = mapped(*hi, map).filter(|&n| n.hw() != dst.hw()) {
                *hi = new;
            }
        }
        _ => {}
    }
    out
}

/// Forward copy propagation within one block (step 1 of the module comment).
fn propagate(block: &mut [Inst], variant: Variant) {
    // map[d] = s: unit d holds the same value as unit s.
    let mut map: [Option<u16>; 128] = [None; 128];
    for inst in block.iter_mut() {
        if map.iter().any(Option::is_some) {
            *inst = forwarded(inst, &map, variant);
        }
        let written = writes(inst);
        for (d, entry) in map.iter_mut().enumerate() {
            let stale = written >> d & 1 != 0 || entry.is_some_and(|s| written >> s & 1 != 0);
            if stale {
                *entry = None;
            }
        }
        for (d, s) in unit_copies(inst) {
            let s = map[s as usize].unwrap_or(s);
            if d != s && written >> s & 1 == 0 {
                map[d as usize] = Some(s);
            }
        }
    }
}

/// Removes the units of copies whose destination nothing reads (step 2).
fn remove_dead(block: &mut Vec<Inst>, live_out: Units) {
    let mut live = live_out;
    let mut kept = Vec::with_capacity(block.len());
    for inst in std::mem::take(block).into_iter().rev() {
        let inst = match copies(&inst).as_slice() {
            [] => inst,
            pairs => {
                let needed: Vec<(Reg, Reg)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(d, s)| d != s && units(d) & live != 0)
                    .collect();
                match needed.as_slice() {
                    [] => continue,
                    [(dst, src)] if needed.len() < pairs.len() => Inst::Copy {
                        dst: *dst,
                        src: *src,
                    },
                    _ => inst,
                }
            }
        };
        live = (live & !writes(&inst)) | reads(&inst);
        kept.push(inst);
    }
    kept.reverse();
    *block = kept;
}

/// Whether `inst` copies registers onto themselves only.
fn self_copy(inst: &Inst) -> bool {
    let c = copies(inst);
    !c.is_empty() && c.iter().all(|(d, s)| d == s)
}

/// Propagates and coalesces the copies of allocated code (blocks with their successors).
pub fn run(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>], variant: Variant) {
    // A copy that goes no longer ends what a later one copied: a second round follows it.
    for _ in 0..2 {
        for block in blocks.iter_mut() {
            propagate(block, variant);
        }
        let live = live_out(blocks, succs);
        for (block, &live_out) in blocks.iter_mut().zip(&live) {
            remove_dead(block, live_out);
        }
    }
    let live = live_out(blocks, succs);
    for (block, &live_out) in blocks.iter_mut().zip(&live) {
        for j in 0..block.len() {
            // Each coalescing rewrites the copy: its units are taken again.
            for k in 0..copies(&block[j]).len() {
                let (dst, src) = copies(&block[j])[k];
                coalesce_one(block, j, dst, src, live_out, variant);
            }
        }
        block.retain(|inst| !self_copy(inst));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::nv50::inst::Alu;
    use crate::isa::nv50::mc::{Op, Ty};

    fn pair(hw: u16) -> Reg {
        Reg::Real {
            file: GPR,
            class: RegClass::Float,
            hw,
        }
    }

    fn add(dst: u16, a: u16, b: u16) -> Inst {
        Inst::Alu(Alu::new(
            Op::Add,
            Some(Ty::B32),
            Some(gpr(dst)),
            &[Src::Reg(gpr(a)), Src::Reg(gpr(b))],
        ))
    }

    fn combine(dst: u16, lo: u16, hi: u16) -> Inst {
        Inst::Combine {
            dst: pair(dst),
            lo: gpr(lo),
            hi: gpr(hi),
        }
    }

    fn store(data: Reg, addr: u16) -> Inst {
        Inst::Store {
            ty: Ty::B64,
            data,
            addr: Src::Reg(gpr(addr)),
        }
    }

    /// Runs the pass on one block that ends the kernel.
    fn one_block(insts: Vec<Inst>) -> Vec<Inst> {
        let mut blocks = vec![insts];
        run(&mut blocks, &[vec![]], Variant::G80);
        blocks.pop().unwrap()
    }

    #[test]
    fn words_computed_for_a_pair_are_computed_in_it() {
        // Consecutive words already make a pair: the store reads them.
        let out = one_block(vec![
            add(4, 0, 1),
            add(5, 2, 3),
            combine(6, 4, 5),
            store(pair(6), 8),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(
            out,
            vec![
                add(4, 0, 1),
                add(5, 2, 3),
                store(pair(4), 8),
                Inst::Exit { results: vec![] }
            ]
        );
        // Others: the adds write the pair's words.
        let out = one_block(vec![
            add(5, 0, 1),
            add(9, 2, 3),
            combine(6, 5, 9),
            store(pair(6), 8),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(
            out,
            vec![
                add(6, 0, 1),
                add(7, 2, 3),
                store(pair(6), 8),
                Inst::Exit { results: vec![] }
            ]
        );
    }

    #[test]
    fn a_word_read_again_or_a_destination_in_use_stays() {
        // $r5 is read after the pair is built.
        let out = one_block(vec![
            add(5, 0, 1),
            add(9, 2, 3),
            combine(6, 5, 9),
            store(pair(6), 8),
            add(1, 5, 5),
            store(pair(0), 8),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(out[0], add(5, 0, 1));
        assert_eq!(out[1], add(7, 2, 3));
        // $r6 is read between the first add and the pair.
        let out = one_block(vec![
            add(5, 0, 1),
            add(10, 6, 6),
            add(9, 2, 3),
            combine(6, 5, 9),
            store(pair(6), 10),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(out[0], add(5, 0, 1));
        assert_eq!(out[2], add(7, 2, 3));
    }

    #[test]
    fn reads_follow_a_copy_while_both_hold_it() {
        // The pair copied from $r0d is read from $r0d; the copy goes.
        let copy = Inst::Copy {
            dst: pair(4),
            src: pair(0),
        };
        let out = one_block(vec![
            copy.clone(),
            store(pair(4), 8),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(out, vec![store(pair(0), 8), Inst::Exit { results: vec![] }]);
        // $r0 is written before the read: the copy stays.
        let out = one_block(vec![
            copy.clone(),
            add(0, 2, 3),
            store(pair(4), 8),
            store(pair(0), 8),
            Inst::Exit { results: vec![] },
        ]);
        assert_eq!(out[0], copy);
        assert_eq!(out[2], store(pair(4), 8));
    }
}
