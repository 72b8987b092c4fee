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
//!    limit); multi-instruction pseudo-instructions are left alone (their halves could
//!    overlap differently). Any write of EXEC forgets every copy: linearized code copies
//!    under a lane mask.
//! 2. *Dead copies*: with liveness over the blocks, copies (and halves of copies) whose
//!    destination is never read are removed.
//!
//! Only registers the allocator hands out are removed as destinations: VGPRs, and SGPRs
//! from `first_sgpr` below the special registers (VCC, EXEC, M0 are never touched).

use super::inst::{Inst, Src};
use super::regs::{SGPR, VGPR};
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};

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
fn units(r: Reg) -> Option<Vec<Unit>> {
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
        Inst::Combine { dst, lo, hi } => pairs(dst, &[lo, hi]),
        _ => None,
    }
}

fn writes_exec(inst: &Inst) -> bool {
    matches!(inst, Inst::Salu { dst: Some(Reg::Real { file: SGPR, hw, .. }), .. }
        if (126..=127).contains(hw))
}

/// The units `inst` reads and writes.
fn uses_defs(inst: &Inst) -> (Vec<Unit>, Vec<Unit>) {
    let (mut uses, mut defs) = (Vec::new(), Vec::new());
    inst.clone().visit_operands(&mut |r, kind| {
        let Reg::Real { file, hw, .. } = *r else {
            return;
        };
        let list = match kind {
            OperandKind::Use | OperandKind::UseFixed(_) => &mut uses,
            _ => &mut defs,
        };
        list.extend((0..r.width()).filter_map(|k| unit(file, hw + k)));
    });
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
        Inst::Valu { srcs, .. } => srcs.iter_mut().for_each(|s| src(s, VGPR)),
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
        Inst::Load { addr, .. } => rewrite(addr, VGPR),
        Inst::SLoad { base, .. } => rewrite(base, SGPR),
        Inst::Store { addr, data, .. } => {
            rewrite(addr, VGPR);
            rewrite(data, VGPR);
        }
        Inst::Copy { src: s, .. } => {
            let file = s.file();
            rewrite(s, file);
        }
        Inst::Combine { lo, hi, .. } => {
            let file = lo.file();
            rewrite(lo, file);
            rewrite(hi, file);
        }
        Inst::Alu64 { a, b, .. } => {
            let file = a.file();
            rewrite(a, file);
            src(b, file);
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
    for inst in block.iter_mut() {
        // One unit of a tuple: a plain copy of that unit.
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
                    class: RegClass::Int,
                    hw: hw + hi as u16,
                },
            };
        }
        substitute(inst, &map);
        let copies = unit_copies(inst).unwrap_or_default();
        let resolved: Vec<(Unit, Unit)> = copies
            .iter()
            .map(|&(d, s)| (d, map[s as usize].unwrap_or(s)))
            .collect();
        if writes_exec(inst) {
            map.fill(None);
            continue;
        }
        let (_, mut defs) = uses_defs(inst);
        for c in inst.clobbers() {
            if let Some(us) = units(*c) {
                defs.extend(us);
            }
        }
        for &d in &defs {
            map[d as usize] = None;
        }
        for entry in map.iter_mut() {
            if entry.is_some_and(|s| defs.contains(&s)) {
                *entry = None;
            }
        }
        for (d, s) in resolved {
            if d != s && !defs.contains(&s) {
                map[d as usize] = Some(s);
            }
        }
    }
}

/// Whether `u` is a register the allocator hands out (so a copy into it may go).
fn allocatable(u: Unit, first_sgpr: u16) -> bool {
    u < 256 || u >= 256 + first_sgpr
}

/// Removes copies, or units of copies, whose destination is never read.
fn remove_dead(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>], first_sgpr: u16) {
    let n = blocks.len();
    // Liveness at block entries, iterated to a fixpoint (blocks in reverse).
    let summaries: Vec<Vec<(Vec<Unit>, Vec<Unit>)>> = blocks
        .iter()
        .map(|b| b.iter().map(uses_defs).collect())
        .collect();
    let mut live_in: Vec<Bits> = (0..n).map(|_| Bits::new()).collect();
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let mut live = Bits::new();
            for &s in &succs[b] {
                live.union(&live_in[s]);
            }
            for (uses, defs) in summaries[b].iter().rev() {
                for &d in defs {
                    live.set(d, false);
                }
                for &u in uses {
                    live.set(u, true);
                }
            }
            changed |= live_in[b].union(&live);
        }
        if !changed {
            break;
        }
    }
    for b in 0..n {
        let mut live = Bits::new();
        for &s in &succs[b] {
            live.union(&live_in[s]);
        }
        let block = std::mem::take(&mut blocks[b]);
        let mut kept = Vec::with_capacity(block.len());
        for inst in block.into_iter().rev() {
            let inst = match unit_copies(&inst) {
                Some(copies) => {
                    let needed: Vec<(Unit, Unit)> = copies
                        .iter()
                        .copied()
                        .filter(|&(d, s)| d != s && (live.get(d) || !allocatable(d, first_sgpr)))
                        .collect();
                    if needed.len() == copies.len() {
                        Some(inst)
                    } else if needed.is_empty() {
                        None
                    } else {
                        let (d, s): (Vec<Unit>, Vec<Unit>) = needed.into_iter().unzip();
                        match (reg_of(&d), reg_of(&s)) {
                            (Some(dst), Some(src)) => Some(Inst::Copy { dst, src }),
                            _ => Some(inst),
                        }
                    }
                }
                None => Some(inst),
            };
            let Some(inst) = inst else {
                continue;
            };
            let (uses, defs) = uses_defs(&inst);
            for d in defs {
                live.set(d, false);
            }
            for u in uses {
                live.set(u, true);
            }
            kept.push(inst);
        }
        kept.reverse();
        blocks[b] = kept;
    }
}

/// Propagates copies in allocated code (blocks in layout order with their successors)
/// and removes the ones left unread.
pub fn run(blocks: &mut [Vec<Inst>], succs: &[Vec<usize>], first_sgpr: u16) {
    for block in blocks.iter_mut() {
        propagate(block);
    }
    remove_dead(blocks, succs, first_sgpr);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::lower::linear::EXEC;
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::{sgpr, sgpr_pair, vgpr};
    use smallvec::smallvec;

    fn vpair(hw: u16) -> Reg {
        Reg::Real {
            file: VGPR,
            class: RegClass::Float,
            hw,
        }
    }

    fn valu(op: Op, dst: Reg, srcs: &[Reg]) -> Inst {
        Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs: srcs.iter().map(|&r| Src::Reg(r)).collect(),
            neg: 0,
            abs: 0,
            clamp: false,
        }
    }

    fn store(addr: Reg, data: Reg) -> Inst {
        Inst::Store {
            op: Op::FlatStoreDwordx2,
            addr,
            offset: 0,
            data,
            rsrc: None,
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
                lo: vgpr(6),
                hi: vgpr(7),
            },
            store(vpair(8), vpair(4)),
        ]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[2], store(vpair(8), vpair(6)));
        // Not consecutive: the combine stays.
        let out = one_block(vec![
            valu(Op::VAddF32, vgpr(6), &[vgpr(0), vgpr(1)]),
            valu(Op::VAddF32, vgpr(9), &[vgpr(2), vgpr(3)]),
            Inst::Combine {
                dst: vpair(4),
                lo: vgpr(6),
                hi: vgpr(9),
            },
            store(vpair(10), vpair(4)),
        ]);
        assert_eq!(out.len(), 4);
        assert_eq!(out[3], store(vpair(10), vpair(4)));
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
            lo: vgpr(6),
            hi: vgpr(7),
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
