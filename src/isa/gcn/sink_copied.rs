//! Before allocation: a result that is copied is computed just before its first reader
//! when that lets it take the register of a value it reads.
//!
//! The typical case is a loop counter, `i' = i + 1` passed back to the header while `i` is
//! still read after the add (`i * x`): `i` and `i'` are live at once, the allocator gives
//! them two registers and the back edge a `v_mov_b32`. With the add moved after the last
//! reader of `i` (and before the first of `i'`, the exit test of a do-while, say), `i` dies
//! where `i'` is born, the allocator can give both one register, and the copy becomes a
//! move of a register to itself. The same holds for any block
//! argument (the copies that start the pending values of linearized code) and any value
//! the copy's source reads for the last time.
//!
//! Moving is sound in VCode, where virtual registers are defined once: the instruction
//! passes only instructions that do not write EXEC (a VALU instruction computes the lanes
//! EXEC holds) nor a real register it reads. It is moved only when one of its sources is
//! read for the last time between its place and its first reader (and is not live after the
//! block): then the source's life grows by what the result's shrinks, and the two no longer
//! overlap.

use super::inst::Inst;
use crate::machinst::{MachInst, OperandKind, Reg, VCode};

/// How far before its first reader an instruction may be moved from.
const WINDOW: usize = 64;

fn is_use(kind: OperandKind) -> bool {
    matches!(
        kind,
        OperandKind::Use | OperandKind::LateUse | OperandKind::UseFixed(_) | OperandKind::UseAny
    )
}

/// A virtual register's index.
fn vreg(r: Reg) -> Option<usize> {
    match r {
        Reg::Virtual { vreg, .. } => Some(vreg.vreg()),
        Reg::Real { .. } => None,
    }
}

/// The operands of `inst`: (register, whether it is read).
fn operands(inst: &Inst) -> Vec<(Reg, bool)> {
    let mut list = Vec::new();
    inst.clone()
        .visit_operands(&mut |r, kind| list.push((*r, is_use(kind))));
    list
}

/// A set of virtual registers.
#[derive(Clone)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64)])
    }
    fn get(&self, v: usize) -> bool {
        self.0[v / 64] >> (v % 64) & 1 != 0
    }
    fn insert(&mut self, v: usize) {
        self.0[v / 64] |= 1 << (v % 64);
    }
}

/// Virtual registers live at the end of each block (branch arguments included).
fn live_out(vcode: &VCode<Inst>) -> Vec<Set> {
    let n = vcode.blocks.len();
    let vregs = vcode.num_vregs();
    // Each block's upward-exposed reads (branch arguments included) and its definitions
    // (parameters included).
    let mut exposed = vec![Set::new(vregs); n];
    let mut defined = vec![Set::new(vregs); n];
    let mut args = vec![Set::new(vregs); n];
    for (b, block) in vcode.blocks.iter().enumerate() {
        for &p in &block.params {
            defined[b].insert(vreg(p).expect("a virtual parameter"));
        }
        for inst in &vcode.insts[block.insts.clone()] {
            let ops = operands(inst);
            for &(r, read) in &ops {
                if let Some(v) = vreg(r)
                    && read
                    && !defined[b].get(v)
                {
                    exposed[b].insert(v);
                }
            }
            for &(r, read) in &ops {
                if let Some(v) = vreg(r)
                    && !read
                {
                    defined[b].insert(v);
                }
            }
        }
        for r in block.branch_args.iter().flatten() {
            if let Some(v) = vreg(*r) {
                args[b].insert(v);
            }
        }
    }
    let mut live_in = exposed.clone();
    let mut out = args;
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            for &s in &vcode.blocks[b].succs {
                for (o, &l) in out[b].0.iter_mut().zip(&live_in[s].0) {
                    changed |= *o | l != *o;
                    *o |= l;
                }
            }
            let words = live_in[b].0.iter_mut().zip(&out[b].0).zip(&defined[b].0);
            for ((l, &o), &d) in words {
                changed |= *l | (o & !d) != *l;
                *l |= o & !d;
            }
        }
    }
    out
}

/// The one virtual register `inst` defines, when it is a plain VALU or SALU instruction
/// (nothing tied, fixed or early, no real register written).
fn movable_def(inst: &Inst) -> Option<Reg> {
    if !matches!(inst, Inst::Valu { .. } | Inst::Salu { .. }) || inst.writes_exec() {
        return None;
    }
    let mut def = None;
    let mut plain = true;
    inst.clone().visit_operands(&mut |r, kind| match kind {
        OperandKind::Use => {}
        OperandKind::Def if vreg(*r).is_some() && def.is_none() => def = Some(*r),
        _ => plain = false,
    });
    def.filter(|_| plain)
}

/// Whether `x` writes a real register `reads` holds, or EXEC.
fn blocks_move(x: &Inst, reads: &[Reg]) -> bool {
    x.writes_exec()
        || x.clobbers().iter().any(|c| reads.contains(c))
        || operands(x)
            .iter()
            .any(|&(r, read)| !read && vreg(r).is_none() && reads.contains(&r))
}

/// Moves, in each block, the instruction defining a copy's source to just before its first
/// reader, where that makes a source of it die there (see the module comment).
pub fn run(vcode: &mut VCode<Inst>) {
    let live = live_out(vcode);
    for (b, block) in vcode.blocks.iter().enumerate() {
        let range = block.insts.clone();
        let insts = &mut vcode.insts[range];
        // Each instruction moves at most once (two that read each other's last sources
        // would otherwise pass each other for ever).
        let mut moved = vec![false; insts.len()];
        let mut i = 0;
        while i < insts.len() {
            match (!moved[i]).then(|| sink(insts, i, &live[b])).flatten() {
                Some(q) => {
                    moved[i..q].rotate_left(1);
                    moved[q - 1] = true;
                }
                None => i += 1,
            }
        }
    }
}

/// Moves `insts[i]` down to its first reader if that pays; where that reader is then.
fn sink(insts: &mut [Inst], i: usize, live_out: &Set) -> Option<usize> {
    let def = movable_def(&insts[i])?;
    let end = insts.len().min(i + 1 + WINDOW);
    let reads_def = |x: &Inst| operands(x).contains(&(def, true));
    let q = (i + 1..end).find(|&x| reads_def(&insts[x]))?;
    let copied = insts[q..]
        .iter()
        .any(|x| matches!(x, Inst::Copy { src, .. } if *src == def));
    if q == i + 1 || !copied {
        return None;
    }
    let sources: Vec<Reg> = operands(&insts[i])
        .into_iter()
        .filter_map(|(r, read)| read.then_some(r))
        .collect();
    let real: Vec<Reg> = sources
        .iter()
        .copied()
        .filter(|&r| vreg(r).is_none())
        .collect();
    if insts[i + 1..q].iter().any(|x| blocks_move(x, &real)) {
        return None;
    }
    // A source read for the last time in between, and dead after the block.
    let dies_between = sources.iter().any(|&s| {
        let Some(v) = vreg(s) else {
            return false;
        };
        let read = |x: &Inst| operands(x).contains(&(s, true));
        !live_out.get(v) && insts[i + 1..q].iter().any(read) && !insts[q..].iter().any(read)
    });
    if !dies_between {
        return None;
    }
    insts[i..q].rotate_left(1);
    Some(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::inst::Src;
    use crate::isa::gcn::mc::Op;
    use crate::isa::gcn::regs::VGPR;
    use crate::machinst::{RegClass, VBlock};
    use smallvec::smallvec;

    fn valu(op: Op, dst: Reg, a: Src, b: Src) -> Inst {
        Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs: smallvec![a, b],
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        }
    }

    /// A loop body: `next = i + 1; p = i * x; sum = sum + p`, then `next` and `sum` copied
    /// to the back edge's arguments. `i` is last read by the multiply.
    fn body(vcode: &mut VCode<Inst>) -> (Vec<Reg>, Vec<Inst>) {
        let r: Vec<Reg> = (0..7)
            .map(|_| vcode.new_vreg(VGPR, RegClass::Int))
            .collect();
        let (i, x, sum, next, p, sum2, arg) = (r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
        let insts = vec![
            valu(Op::VAddU32, next, Src::Imm(1), Src::Reg(i)),
            valu(Op::VMulLoU32, p, Src::Reg(i), Src::Reg(x)),
            valu(Op::VAddU32, sum2, Src::Reg(sum), Src::Reg(p)),
            Inst::Copy {
                dst: arg,
                src: next,
            },
            Inst::Jump { target: 0 },
        ];
        (r, insts)
    }

    fn one_block(insts: Vec<Inst>, params: Vec<Reg>, args: Vec<Reg>) -> VCode<Inst> {
        let mut vcode = VCode::new();
        vcode.insts = insts;
        vcode.blocks = vec![VBlock {
            insts: 0..vcode.insts.len(),
            succs: vec![0],
            preds: vec![0],
            params,
            branch_args: vec![args],
        }];
        vcode
    }

    #[test]
    fn an_increment_moves_after_the_last_reader_of_its_source() {
        let mut scratch = VCode::<Inst>::new();
        let (r, insts) = body(&mut scratch);
        let mut vcode = one_block(
            insts.clone(),
            vec![r[0], r[1], r[2]],
            vec![r[6], r[1], r[5]],
        );
        vcode.vreg_files = scratch.vreg_files.clone();
        vcode.vreg_classes = scratch.vreg_classes.clone();
        run(&mut vcode);
        let expected = vec![
            insts[1].clone(),
            insts[2].clone(),
            insts[0].clone(),
            insts[3].clone(),
            insts[4].clone(),
        ];
        assert_eq!(vcode.insts, expected);
    }

    #[test]
    fn two_results_reading_one_dying_source_move_once_each() {
        // a = x + 1 and b = x + 2, both read first by c = a + b and copied after: each
        // would pass the other, x's last reader, for ever.
        let mut vcode = VCode::<Inst>::new();
        let r: Vec<Reg> = (0..6)
            .map(|_| vcode.new_vreg(VGPR, RegClass::Int))
            .collect();
        let (x, a, b, c, d, e) = (r[0], r[1], r[2], r[3], r[4], r[5]);
        let insts = vec![
            valu(Op::VAddU32, a, Src::Imm(1), Src::Reg(x)),
            valu(Op::VAddU32, b, Src::Imm(2), Src::Reg(x)),
            valu(Op::VAddU32, c, Src::Reg(a), Src::Reg(b)),
            Inst::Copy { dst: d, src: a },
            Inst::Copy { dst: e, src: b },
            Inst::Jump { target: 0 },
        ];
        let mut looped = one_block(insts.clone(), vec![x], vec![c]);
        looped.vreg_files = vcode.vreg_files.clone();
        looped.vreg_classes = vcode.vreg_classes.clone();
        run(&mut looped);
        assert_eq!(looped.insts.len(), insts.len());
    }

    #[test]
    fn a_source_live_after_the_block_keeps_the_order() {
        // `i` is passed on to the next iteration too: it never dies in the block.
        let mut scratch = VCode::<Inst>::new();
        let (r, insts) = body(&mut scratch);
        let mut vcode = one_block(
            insts.clone(),
            vec![r[0], r[1], r[2]],
            vec![r[0], r[1], r[5]],
        );
        vcode.vreg_files = scratch.vreg_files.clone();
        vcode.vreg_classes = scratch.vreg_classes.clone();
        run(&mut vcode);
        assert_eq!(vcode.insts, insts);
    }
}
