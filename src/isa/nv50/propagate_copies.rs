//! Copy propagation on the VCode, before allocation.
//!
//! The lowering builds each 64-bit value from two 32-bit registers (`Combine`) and reads
//! a pair's words as halves (`Src::Half`, or a `mov` of one into a register of its own),
//! since the allocator keeps singles and pairs in classes of their own and cannot make a
//! pair of two singles. Virtual registers are defined once, so a register copied from
//! another holds its value wherever it is read: this pass makes every reader read the
//! original (a half of a combined pair is the register it was combined from), and dead-code
//! elimination then drops the copies and the pairs nothing reads whole any more. Pairs stay
//! where an instruction reads one whole (`ld`/`st b64`, GT200's f64 operations, a pair
//! block parameter, a `select` of pairs); `copies.rs` deals with them after allocation.

use super::inst::{Inst, Src};
use super::regs::GPR;
use crate::machinst::{Reg, RegClass, VCode};

/// What a virtual register holds, as far as copies tell.
#[derive(Copy, Clone)]
enum Def {
    /// The value of another register of its class.
    Copy(Reg),
    /// One word of a pair (`false`: the low one).
    Half(Reg, bool),
    /// A pair made of two registers.
    Parts(Reg, Reg),
}

/// The source of a register after propagation: a register, or a word of a pair.
#[derive(Copy, Clone)]
enum Origin {
    Whole(Reg),
    Half(Reg, bool),
}

struct Defs(Vec<Option<Def>>);

impl Defs {
    fn of(&self, r: Reg) -> Option<Def> {
        match r {
            Reg::Virtual { file: GPR, vreg } => self.0[vreg.vreg()],
            _ => None,
        }
    }

    /// Where the value of the single register `r` comes from.
    fn single(&self, r: Reg) -> Origin {
        match self.of(r) {
            Some(Def::Copy(s)) => self.single(s),
            Some(Def::Half(p, hi)) => self.word(p, hi),
            _ => Origin::Whole(r),
        }
    }

    /// The pair `p` with the copies between pairs followed back to the first.
    fn pair(&self, p: Reg) -> Reg {
        match self.of(p) {
            Some(Def::Copy(q)) => self.pair(q),
            _ => p,
        }
    }

    /// Where word `hi` of the pair `p` comes from.
    fn word(&self, p: Reg, hi: bool) -> Origin {
        let p = self.pair(p);
        match self.of(p) {
            Some(Def::Parts(lo, high)) => self.single(if hi { high } else { lo }),
            _ => Origin::Half(p, hi),
        }
    }

    /// `r` where a whole register is needed: a single's original register, a pair's.
    fn whole(&self, r: Reg) -> Reg {
        match r.class() {
            RegClass::Int => match self.single(r) {
                Origin::Whole(s) => s,
                Origin::Half(..) => r,
            },
            RegClass::Float => self.pair(r),
            RegClass::Vector => r,
        }
    }

    fn src(&self, src: Src) -> Src {
        match src {
            Src::Reg(r) if r.class() == RegClass::Int => match self.single(r) {
                Origin::Whole(s) => Src::Reg(s),
                Origin::Half(p, hi) => Src::Half(p, hi),
            },
            Src::Reg(r) => Src::Reg(self.whole(r)),
            Src::Half(p, hi) => match self.word(p, hi) {
                Origin::Whole(s) => Src::Reg(s),
                Origin::Half(q, hi) => Src::Half(q, hi),
            },
            // A 16-bit half of a single register only.
            Src::H16(r, hi) => match self.single(r) {
                Origin::Whole(s) => Src::H16(s, hi),
                Origin::Half(..) => src,
            },
            _ => src,
        }
    }
}

/// Makes every reader of a copy read its source (see the module comment). Dead-code
/// elimination removes the copies afterwards.
pub fn run(vcode: &mut VCode<Inst>) {
    let mut defs = Defs(vec![None; vcode.num_vregs()]);
    let index = |r: Reg| match r {
        Reg::Virtual { file: GPR, vreg } => Some(vreg.vreg()),
        _ => None,
    };
    for inst in &vcode.insts {
        let (dst, def) = match inst {
            Inst::Copy { dst, src } if dst.file() == src.file() => (*dst, Def::Copy(*src)),
            Inst::Combine { dst, lo, hi } => (*dst, Def::Parts(*lo, *hi)),
            Inst::Alu(alu) => match (alu.dst, alu.copied()) {
                (Some(dst), Some(Src::Reg(s))) => (dst, Def::Copy(s)),
                (Some(dst), Some(Src::Half(p, hi))) => (dst, Def::Half(p, hi)),
                _ => continue,
            },
            _ => continue,
        };
        // Only between virtual registers of `$r`: a real one may be written again.
        let sources = match def {
            Def::Copy(s) | Def::Half(s, _) => [s, s],
            Def::Parts(lo, hi) => [lo, hi],
        };
        if let Some(i) = index(dst)
            && sources.iter().all(|&s| index(s).is_some())
        {
            defs.0[i] = Some(def);
        }
    }
    for inst in &mut vcode.insts {
        match inst {
            Inst::Alu(alu) => {
                for s in &mut alu.srcs {
                    *s = defs.src(*s);
                }
            }
            Inst::Select { t, f, .. } => {
                *t = defs.whole(*t);
                *f = defs.whole(*f);
            }
            Inst::Load { addr, .. } => *addr = defs.src(*addr),
            Inst::Store { data, addr, .. } => {
                *data = defs.whole(*data);
                *addr = defs.src(*addr);
            }
            Inst::SharedLoad { addr, .. } | Inst::LocalLoad { addr, .. } => {
                if let Some(a) = addr {
                    *a = defs.whole(*a);
                }
            }
            Inst::SetSharedAddr { addr } => *addr = defs.whole(*addr),
            Inst::Output { src, .. } => *src = defs.whole(*src),
            Inst::Atomic { addr, src, cmp, .. } => {
                *addr = defs.src(*addr);
                *src = defs.whole(*src);
                if let Some(c) = cmp {
                    *c = defs.whole(*c);
                }
            }
            Inst::SharedAtomic { addr, src, cmp, .. } => {
                *addr = defs.whole(*addr);
                for r in [src, cmp].into_iter().flatten() {
                    *r = defs.whole(*r);
                }
            }
            Inst::SharedStore { data, addr, .. } | Inst::LocalStore { data, addr, .. } => {
                *data = defs.whole(*data);
                if let Some(a) = addr {
                    *a = defs.whole(*a);
                }
            }
            Inst::Copy { src, .. } => *src = defs.whole(*src),
            Inst::Combine { lo, hi, .. } => {
                *lo = defs.whole(*lo);
                *hi = defs.whole(*hi);
            }
            Inst::Ret { uses } | Inst::Call { args: uses, .. } | Inst::Exit { results: uses } => {
                for (r, _) in uses {
                    *r = defs.whole(*r);
                }
            }
            // The allocator's; none exists before allocation.
            Inst::Spill { .. } | Inst::Reload { .. } => {}
            Inst::Args { .. }
            | Inst::SetAddr { .. }
            | Inst::Jump { .. }
            | Inst::Branch { .. }
            | Inst::Joinat { .. }
            | Inst::Barrier
            | Inst::Kill => {}
        }
    }
    for block in &mut vcode.blocks {
        for args in &mut block.branch_args {
            for r in args {
                *r = defs.whole(*r);
            }
        }
    }
}
