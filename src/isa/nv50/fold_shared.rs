//! Kernel arguments and launch values read in place.
//!
//! The lowering reads each argument word and system value of `s[]` into a register (`mov
//! b32 $r s[…]`, `docs/nv50.md`, "Shared memory"). An ALU instruction can read one `s[]`
//! word itself as its first source, as nouveau's code does (`add b32 $r1 b32 s[0x14]
//! $r0`): this pass, on the VCode before allocation, makes every instruction that reads
//! such a register read the `s[]` word instead, where a form of it encodes that (the
//! second source of a commutative operation moved first); dead-code elimination then drops
//! the `mov`s nothing reads any more. `s[]` below the arguments' end is written by nobody
//! while a kernel runs (device functions called by it included), so the word reads the
//! same wherever it is read.

use super::emit::encodable;
use super::inst::{Alu, Inst, Src};
use super::mc::{Mods, Op, Ty, Variant};
use super::regs::GPR;
use crate::machinst::{Reg, VCode};

/// An `s[]` operand: its access type, `$a` register and offset.
#[derive(Copy, Clone)]
struct Word {
    ty: Ty,
    areg: u8,
    offset: u32,
}

/// The `s[]` word a `mov` reads into its destination, if `alu` is such a plain `mov`.
fn shared_mov(alu: &Alu) -> Option<(Reg, Word)> {
    let plain = alu.op == Op::Mov
        && alu.ty == Some(Ty::B32)
        && alu.mods == Mods::NONE
        && alu.cdst.is_none();
    match (alu.dst, alu.srcs.as_slice()) {
        (Some(dst), [Src::Shared { ty, areg, offset }]) if plain => Some((
            dst,
            Word {
                ty: *ty,
                areg: *areg,
                offset: *offset,
            },
        )),
        _ => None,
    }
}

/// `src` read from `s[]`, when it is a register (or 16-bit half) holding a word of it: a
/// 32-bit register as its `b32` word, a low or high half as its `u16` halves (little-endian).
fn in_place(src: Src, words: &[Option<Word>]) -> Option<Src> {
    let word = |r: Reg| match r {
        Reg::Virtual { file: GPR, vreg } => words[vreg.vreg()],
        _ => None,
    };
    let shared = |ty, w: Word, offset| Src::Shared {
        ty,
        areg: w.areg,
        offset,
    };
    match src {
        Src::Reg(r) => {
            let w = word(r)?;
            (w.ty == Ty::B32).then(|| shared(Ty::B32, w, w.offset))
        }
        Src::H16(r, hi) => {
            let w = word(r)?;
            match (w.ty, hi) {
                (Ty::B32, _) => Some(shared(Ty::U16, w, w.offset + 2 * hi as u32)),
                (Ty::U16, false) => Some(shared(Ty::U16, w, w.offset)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `alu` with its first two sources swapped, where that computes the same.
fn swapped(alu: &Alu) -> Option<Alu> {
    let op = match alu.op {
        Op::Add | Op::Addc | Op::And | Op::Or | Op::Xor | Op::Min | Op::Max | Op::Mul | Op::Mad => {
            alu.op
        }
        Op::Sub => Op::Subr,
        Op::Subr => Op::Sub,
        _ => return None,
    };
    // A 16-bit `mul` types each source: the types go with them.
    if alu.srcs.len() < 2 || (alu.op == Op::Mul && alu.src_ty.is_some() && alu.src_ty != alu.ty) {
        return None;
    }
    let mut out = alu.clone();
    out.op = op;
    out.srcs.swap(0, 1);
    // The modifiers of each source go with it.
    let mut mods = alu.mods;
    for (a, b) in [
        (Mods::NOT0, Mods::NOT1),
        (Mods::NEG0, Mods::NEG1),
        (Mods::ABS0, Mods::ABS1),
    ] {
        mods = Mods(mods.0 & !(a.0 | b.0));
        if alu.mods.contains(a) {
            mods |= b;
        }
        if alu.mods.contains(b) {
            mods |= a;
        }
    }
    out.mods = mods;
    Some(out)
}

/// Makes the ALU instructions of `vcode` read `s[]` words in place of the registers they
/// were moved into (see the module comment).
pub fn run(vcode: &mut VCode<Inst>, variant: Variant) {
    let mut words: Vec<Option<Word>> = vec![None; vcode.num_vregs()];
    for inst in &vcode.insts {
        if let Inst::Alu(alu) = inst
            && let Some((Reg::Virtual { file: GPR, vreg }, word)) = shared_mov(alu)
        {
            words[vreg.vreg()] = Some(word);
        }
    }
    if words.iter().all(Option::is_none) {
        return;
    }
    for inst in &mut vcode.insts {
        let Inst::Alu(alu) = inst else {
            continue;
        };
        if shared_mov(alu).is_some() {
            continue;
        }
        for k in 0..alu.srcs.len().min(2) {
            let Some(src) = in_place(alu.srcs[k], &words) else {
                continue;
            };
            let candidate = match k {
                0 => Some(alu.clone()),
                _ => swapped(alu),
            };
            if let Some(mut candidate) = candidate {
                candidate.srcs[0] = src;
                if encodable(&candidate, variant) {
                    *alu = candidate;
                    break;
                }
            }
        }
    }
}
