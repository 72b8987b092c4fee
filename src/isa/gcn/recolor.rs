//! GCN's use of the shared recoloring pass (`machinst::recolor`): both files, with what
//! GCN instructions say beyond their operands.

use super::inst::Inst;
use super::lower::linear::EXEC;
use super::regs::{self, SGPR, VGPR};
use crate::machinst::recolor::{self, Copied, Rules, Space};
use crate::machinst::{MachInst, OperandKind, RegFile};
use smallvec::smallvec;

/// Places the allocator's VGPRs (below `vgpr_limit`: the lane-mask slots above stay) and
/// SGPRs (`first_sgpr..sgpr_limit`) again. Returns whether the code changed.
pub fn run(
    blocks: &mut [Vec<Inst>],
    succs: &[Vec<usize>],
    first_sgpr: u16,
    sgpr_limit: u16,
    vgpr_limit: u16,
) -> bool {
    let rules = Rules {
        keeps_old: &keeps_old,
        single: &single,
        pinned: &|_| false,
        copies: &copies,
    };
    let vgprs = Space {
        file: VGPR,
        first: 0,
        limit: vgpr_limit,
        alignment: regs::ALIGNMENT,
        single_limit: vgpr_limit,
    };
    let sgprs = Space {
        file: SGPR,
        first: first_sgpr,
        limit: sgpr_limit,
        alignment: regs::ALIGNMENT,
        single_limit: sgpr_limit,
    };
    let v = recolor::run(blocks, succs, &vgprs, &rules);
    let s = recolor::run(blocks, succs, &sgprs, &rules);
    v || s
}

/// A definition that took a masked move's place (`copies::coalesce`) writes only the lanes
/// that are on: the move of its register to itself before it marks it. Only that register
/// keeps old lanes: another result of the instruction in `file` (a VALU's carry-out or
/// compare mask, an SGPR pair written whole) does not.
fn keeps_old(block: &[Inst], i: usize, file: RegFile) -> bool {
    let Some(Inst::MaskedMove {
        dst,
        old,
        src,
        mask,
    }) = i.checked_sub(1).map(|p| &block[p])
    else {
        return false;
    };
    if !(dst == old && old == src && *mask == EXEC) || dst.file() != file {
        return false;
    }
    let mut writes = false;
    block[i].clone().visit_operands(&mut |r, kind| {
        writes |= *r == *dst
            && matches!(
                kind,
                OperandKind::Def | OperandKind::EarlyDef | OperandKind::DefReuse(_)
            );
    });
    writes
}

/// Instructions that read all their sources before they write any result register:
/// scalar ALU instructions, memory reads (their addresses are read when they issue), and
/// VALU instructions with a 32-bit result. A 64-bit VALU result may be written in two
/// passes, as the allocator's aligned pairs never tested otherwise.
fn single(inst: &Inst) -> bool {
    match inst {
        Inst::Valu { dst, .. } => dst.is_none_or(|d| d.width() == 1),
        Inst::Salu { .. } | Inst::Load { .. } | Inst::SLoad { .. } => true,
        _ => false,
    }
}

/// What a copy or a combination copies: its destination and sources.
fn copies(inst: &Inst) -> Option<Copied> {
    match inst {
        Inst::Copy { dst, src } => Some((*dst, smallvec![*src])),
        Inst::Combine { dst, parts } => Some((*dst, parts.iter().copied().collect())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::copies::tests::{store, valu, vpair};
    use crate::isa::gcn::inst::{Op64, Src};
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::vgpr;
    use crate::machinst::{Reg, RegClass};

    fn add(dst: Reg, a: Reg, b: Reg) -> Inst {
        valu(Op::VAddF32, dst, &[a, b])
    }

    /// Runs the pass on one block that ends the function (v0–v3 live into it).
    fn one_block(insts: Vec<Inst>) -> Vec<Inst> {
        let mut blocks = vec![insts];
        run(&mut blocks, &[vec![]], 8, 102, 256);
        blocks.pop().unwrap()
    }

    #[test]
    fn singles_take_the_registers_of_a_pair_that_died() {
        // The allocator keeps pairs and singles apart (v[8:9], v12, v13); placed again, the
        // pair takes the first free aligned pair, and the second pair the address v[0:1]
        // that died at the first store.
        let out = one_block(vec![
            add(vgpr(8), vgpr(0), vgpr(1)),
            add(vgpr(9), vgpr(2), vgpr(3)),
            store(vpair(0), vpair(8)),
            add(vgpr(12), vgpr(8), vgpr(9)),
            add(vgpr(13), vgpr(12), vgpr(12)),
            store(vpair(2), vpair(12)),
        ]);
        assert_eq!(
            out,
            vec![
                add(vgpr(4), vgpr(0), vgpr(1)),
                add(vgpr(5), vgpr(2), vgpr(3)),
                store(vpair(0), vpair(4)),
                add(vgpr(0), vgpr(4), vgpr(5)),
                add(vgpr(1), vgpr(0), vgpr(0)),
                store(vpair(2), vpair(0)),
            ]
        );
    }

    #[test]
    fn a_copy_of_a_value_shares_its_place() {
        // v[8:9] copies v[4:5], which a shift then overwrites while the copy is still to
        // be stored: the copy and its source become one value in one place, the copy goes
        // and the shift writes elsewhere.
        let shift = |dst, src| Inst::Valu {
            op: Op::VLshlrevB64,
            dst: Some(dst),
            sdst: None,
            srcs: [Src::Imm(2), Src::Reg(src)].into_iter().collect(),
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        };
        let out = one_block(vec![
            add(vgpr(4), vgpr(0), vgpr(1)),
            add(vgpr(5), vgpr(2), vgpr(3)),
            Inst::Copy {
                dst: vpair(8),
                src: vpair(4),
            },
            shift(vpair(4), vpair(4)),
            store(vpair(0), vpair(4)),
            store(vpair(2), vpair(8)),
        ]);
        assert_eq!(out.len(), 6, "{out:?}");
        let [
            _,
            _,
            Inst::Copy { dst, src },
            Inst::Valu {
                dst: Some(shifted), ..
            },
            ..,
        ] = &out[..]
        else {
            panic!("{out:?}");
        };
        assert_eq!(dst, src, "a copy to itself, which emission drops");
        assert_ne!(shifted, src);
    }

    #[test]
    fn a_sequence_never_writes_a_source_it_reads_later() {
        // A 64-bit subtract (low instruction, then high) into a return pair fixed at v[1:2]:
        // its first source must not be v[0:1], whose high half the low instruction writes.
        let unaligned = Reg::Real {
            file: VGPR,
            class: RegClass::Float,
            hw: 1,
        };
        let alu64 = |op, dst, a, b| Inst::Alu64 {
            op,
            dst,
            a,
            b: Src::Reg(b),
        };
        let out = one_block(vec![
            alu64(Op64::Add, vpair(6), vpair(0), vpair(2)),
            alu64(Op64::Sub, unaligned, vpair(6), vpair(2)),
            Inst::Ret {
                results: vec![(unaligned, unaligned)],
                ret_addr: crate::isa::gcn::regs::sgpr_pair(0),
            },
        ]);
        assert_eq!(out[0], alu64(Op64::Add, vpair(4), vpair(0), vpair(2)));
        assert_eq!(out[1], alu64(Op64::Sub, unaligned, vpair(4), vpair(2)));
    }
}
