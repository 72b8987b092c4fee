//! The NV50 machine instruction (VCode level): one MC operation with virtual-register
//! operands ([`Alu`], its form chosen at emission), memory accesses through `g[15]`, `s[]`
//! and `l[]`, the allocator's spills and reloads (placed in `l[]` after allocation), and the
//! few pseudo-instructions emission expands (selects, copies of pairs, branches, the
//! function's end, the lock loops of atomics on `s[]`).

use super::mc::{AtomOp, Cond, Mods, Op, Round, SReg, Ty};
use super::reconverge::Join;
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use smallvec::SmallVec;

/// What an atomic on `s[]` ([`Inst::SharedAtomic`]) stores back, from the old value `old`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SharedRmw {
    /// `op ty old src`: `add` (`sub` adds the negated operand), `and`, `or`, `xor`, `min`,
    /// `max`.
    Alu(Op, Ty),
    /// `!(old & src)`: `or b32 ~old ~src`.
    Nand,
    /// `src`.
    Exch,
    /// `old == cmp ? src : old`.
    Cas,
}

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Src {
    /// A register of any width (`$r`, `$rNd`, `$rNq`).
    Reg(Reg),
    /// One 32-bit register of a pair: the low (`false`) or high half of an i64.
    Half(Reg, bool),
    /// The low (`false`) or high 16 bits of a 32-bit register (`$rNl`, `$rNh`: `$r0`–`$r63`
    /// only), for the 16-bit multiplies.
    H16(Reg, bool),
    /// A 32-bit immediate: only where the immediate form (or a shift count) encodes it,
    /// which the lowering checks ([`super::lower`]).
    Imm(u32),
    /// `s[$a<areg> + offset]` read as `ty` (`areg` 0: `s[offset]`): kernel arguments and
    /// the launch's system values.
    Shared { ty: Ty, areg: u8, offset: u32 },
    /// A special register (`$physid`).
    SReg(SReg),
    /// `c0[offset]` as a 32-bit word: a graphics program's user data (`ld b32` only).
    Const(u32),
    /// `v[offset]`: the plane `interp` evaluates (its first source).
    Varying(u32),
    /// `a[offset]`: a vertex program's input word.
    Attr(u32),
}

impl Src {
    fn visit(&mut self, visit: &mut dyn FnMut(&mut Reg, OperandKind)) {
        if let Src::Reg(r) | Src::Half(r, _) | Src::H16(r, _) = self {
            visit(r, OperandKind::Use);
        }
    }
}

/// One machine operation. Emission encodes it in the shortest form its operands allow
/// (short, immediate, long: `docs/nv50.md`, "Instruction forms").
#[derive(Clone, Debug, PartialEq)]
pub struct Alu {
    pub op: Op,
    pub ty: Option<Ty>,
    pub src_ty: Option<Ty>,
    pub mods: Mods,
    pub round: Option<Round>,
    pub cmp: Option<Cond>,
    /// `None`: the result is discarded (`#`), only `cdst` is written.
    pub dst: Option<Reg>,
    pub srcs: SmallVec<[Src; 3]>,
    /// A `$c` written with the result's flags.
    pub cdst: Option<Reg>,
    /// The `$c` carry an `addc` reads (its last source).
    pub carry: Option<Reg>,
}

impl Alu {
    pub fn new(op: Op, ty: Option<Ty>, dst: Option<Reg>, srcs: &[Src]) -> Alu {
        Alu {
            op,
            ty,
            src_ty: None,
            mods: Mods::NONE,
            round: None,
            cmp: None,
            dst,
            srcs: srcs.iter().copied().collect(),
            cdst: None,
            carry: None,
        }
    }

    /// The source a plain 32-bit `mov` copies (a register or a word of a pair), if this
    /// is one.
    pub fn copied(&self) -> Option<Src> {
        let plain = self.op == Op::Mov
            && self.ty == Some(Ty::B32)
            && self.src_ty.is_none()
            && self.mods == Mods::NONE
            && self.round.is_none()
            && self.cmp.is_none()
            && self.dst.is_some()
            && self.cdst.is_none()
            && self.carry.is_none();
        match self.srcs.as_slice() {
            [s @ Src::Reg(r)] if plain && r.class() == RegClass::Int => Some(*s),
            [s @ Src::Half(..)] if plain => Some(*s),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// Function entry: defines each virtual register (first) from the real register the
    /// launch or the caller fills (second).
    Args {
        defs: Vec<(Reg, Reg)>,
    },
    Alu(Alu),
    /// `dst = cond($c) ? t : f`: `mov dst f`, then `(cond $c) mov dst t` (of each half for a
    /// pair). `dst` is written before `t` is read: an early def.
    Select {
        dst: Reg,
        cond: Cond,
        c: Reg,
        t: Reg,
        f: Reg,
    },
    /// `ld ty dst g15[addr]`.
    Load {
        ty: Ty,
        dst: Reg,
        addr: Src,
    },
    /// `st ty g15[addr] data`.
    Store {
        ty: Ty,
        data: Reg,
        addr: Src,
    },
    /// A load of `s[]` (workgroup memory, the cross-lane scratch area) at the byte address
    /// `addr + offset` (`addr` absent: `offset` alone) as `ty` (`u8`, `u16`, `s16`, `b32`);
    /// a pair or quad `dst` is loaded word by word (`ty` `b32`). Emission puts `addr` in
    /// `$a3` (`lower/workgroup.rs`).
    SharedLoad {
        ty: Ty,
        dst: Reg,
        addr: Option<Reg>,
        offset: u32,
        /// `addr` is absent and the access is relative to `$a3` as the last
        /// [`Inst::SetSharedAddr`] set it (a run of accesses to one area).
        via_a3: bool,
    },
    /// A store of `data` to `s[]` at `addr + offset` as `ty` (`b8`, `b16`, `b32`; a pair or
    /// quad word by word).
    SharedStore {
        ty: Ty,
        data: Reg,
        addr: Option<Reg>,
        offset: u32,
        /// As [`Inst::SharedLoad`]'s.
        via_a3: bool,
    },
    /// `shl $a3 addr 0x0`: the base of the `via_a3` accesses after it.
    SetSharedAddr {
        addr: Reg,
    },
    /// A load of `l[]` (private memory: stack slots, `lower/private.rs`) at the byte address
    /// `addr + offset` (`addr` absent: `offset` alone) as `ty` (`u8`, `s8`, `u16`, `s16`,
    /// `b32`, `b64`, `b128`); a `dst` wider than `ty` is loaded in accesses of `ty` at
    /// consecutive addresses (a pair as two `b32`). Emission puts `addr` in `$a3`.
    LocalLoad {
        ty: Ty,
        dst: Reg,
        addr: Option<Reg>,
        offset: u32,
    },
    /// A store of `data` to `l[]` at `addr + offset` as `ty` (`u8`, `u16`, `b32`, `b64`,
    /// `b128`; `data` wider than `ty` in several accesses, as [`Inst::LocalLoad`]).
    LocalStore {
        ty: Ty,
        data: Reg,
        addr: Option<Reg>,
        offset: u32,
    },
    /// The allocator's spill of `src` into its memory slot `slot` (in words), which
    /// `place_spills.rs` turns into an `st` to `l[]`.
    Spill {
        slot: u32,
        src: Reg,
    },
    /// The allocator's reload of `dst` from its memory slot `slot` (an `ld` from `l[]`).
    Reload {
        dst: Reg,
        slot: u32,
    },
    /// `bar sync 0`: waits for every thread of the block.
    Barrier,
    /// A global atomic on `g15[addr]`, `op` of `ty`: `ld <op>`, `exch` or `cas` with the
    /// old value in `dst`, or `red <op>` without one (`dst` absent; never `exch`, `cas`).
    /// `src` is the operand (`cas`: the new value), `cmp` `cas`'s compared value.
    Atomic {
        op: AtomOp,
        ty: Ty,
        dst: Option<Reg>,
        addr: Src,
        src: Reg,
        cmp: Option<Reg>,
    },
    /// An atomic on the `s[]` word at `addr` (GT200), the loop of `ld lock` and `st unlock`
    /// emission expands (`docs/nv50.md`, "Atomics"): `breakaddr` past the loop; `ld lock
    /// $c dst` (the old value; the `$c` says whether this thread got the lock, which one
    /// thread of the warp does per try); in the threads that did, the new value into
    /// `tmp`, `st unlock` of it and `break`; the others try again. `src` is the operand
    /// (`cas`: the new value), `cmp` `cas`'s compared value. The defs are written before
    /// the uses are read for the last time.
    SharedAtomic {
        op: SharedRmw,
        dst: Reg,
        addr: Reg,
        src: Option<Reg>,
        cmp: Option<Reg>,
        tmp: Reg,
        /// `cas`'s second temporary.
        tmp2: Option<Reg>,
        /// The lock's `$c`.
        c: Reg,
    },
    /// `add $a<areg> 0x0 value`: the base of `s[]` arguments beyond an operand's offset
    /// field on G80 (`lower::far_argument_bases`). Nothing else writes `$a`, so the fixed
    /// register needs no allocation.
    SetAddr {
        areg: u8,
        value: u16,
    },
    /// A register copy of any width (`mov b32` per register).
    Copy {
        dst: Reg,
        src: Reg,
    },
    /// Builds a pair from two registers.
    Combine {
        dst: Reg,
        lo: Reg,
        hi: Reg,
    },
    /// `bra` to a VCode block.
    Jump {
        target: usize,
    },
    /// `(cond $c) bra taken`, then `bra not_taken` (left out when it falls through).
    Branch {
        cond: Cond,
        c: Reg,
        taken: usize,
        not_taken: usize,
    },
    /// `joinat` a `join nop` (`reconverge.rs`).
    Joinat {
        join: Join,
    },
    /// `discard`: the fragment program's threads that run it end without results.
    Kill,
    /// `mov b32 o[offset] src`: a vertex program's output word.
    Output {
        offset: u32,
        src: Reg,
    },
    /// A kernel's or graphics program's end: `exit`, with a fragment program's results in
    /// their registers (`docs/ir.md`, "Fragment-program ABI (NV50)").
    Exit {
        results: Vec<(Reg, Reg)>,
    },
    /// A device function's end: its results in their ABI registers, then `ret`.
    Ret {
        uses: Vec<(Reg, Reg)>,
    },
    /// `call` of the device function `callee` (its symbol), linked later: each argument
    /// (first) in its ABI register (second), the results defined from theirs, every other
    /// register the callee may write a clobber (`lower/calls.rs`).
    Call {
        callee: String,
        args: Vec<(Reg, Reg)>,
        results: Vec<(Reg, Reg)>,
        clobbers: Vec<Reg>,
    },
}

impl MachInst for Inst {
    fn visit_operands(&mut self, visit: &mut dyn FnMut(&mut Reg, OperandKind)) {
        match self {
            Inst::Args { defs } => {
                for (v, fixed) in defs {
                    visit(v, OperandKind::DefFixed(*fixed));
                }
            }
            Inst::Alu(alu) => {
                for s in &mut alu.srcs {
                    s.visit(visit);
                }
                if let Some(c) = &mut alu.carry {
                    visit(c, OperandKind::Use);
                }
                if let Some(d) = &mut alu.dst {
                    visit(d, OperandKind::Def);
                }
                if let Some(c) = &mut alu.cdst {
                    visit(c, OperandKind::Def);
                }
            }
            Inst::Select { dst, c, t, f, .. } => {
                visit(c, OperandKind::Use);
                visit(t, OperandKind::Use);
                visit(f, OperandKind::Use);
                visit(dst, OperandKind::EarlyDef);
            }
            Inst::Load { dst, addr, .. } => {
                addr.visit(visit);
                visit(dst, OperandKind::Def);
            }
            Inst::Store { data, addr, .. } => {
                addr.visit(visit);
                visit(data, OperandKind::Use);
            }
            Inst::SharedLoad { dst, addr, .. } => {
                if let Some(a) = addr {
                    visit(a, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::SharedStore { data, addr, .. } => {
                if let Some(a) = addr {
                    visit(a, OperandKind::Use);
                }
                visit(data, OperandKind::Use);
            }
            Inst::SetSharedAddr { addr } => visit(addr, OperandKind::Use),
            Inst::LocalLoad { dst, addr, .. } => {
                if let Some(a) = addr {
                    visit(a, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::LocalStore { data, addr, .. } => {
                if let Some(a) = addr {
                    visit(a, OperandKind::Use);
                }
                visit(data, OperandKind::Use);
            }
            Inst::Spill { src, .. } | Inst::Output { src, .. } => visit(src, OperandKind::Use),
            Inst::Reload { dst, .. } => visit(dst, OperandKind::Def),
            Inst::Atomic {
                dst,
                addr,
                src,
                cmp,
                ..
            } => {
                addr.visit(visit);
                visit(src, OperandKind::Use);
                if let Some(c) = cmp {
                    visit(c, OperandKind::Use);
                }
                if let Some(d) = dst {
                    visit(d, OperandKind::Def);
                }
            }
            Inst::SharedAtomic {
                dst,
                addr,
                src,
                cmp,
                tmp,
                tmp2,
                c,
                ..
            } => {
                visit(addr, OperandKind::Use);
                for r in [src, cmp].into_iter().flatten() {
                    visit(r, OperandKind::Use);
                }
                for r in [Some(dst), Some(tmp), tmp2.as_mut(), Some(c)]
                    .into_iter()
                    .flatten()
                {
                    visit(r, OperandKind::EarlyDef);
                }
            }
            Inst::Copy { dst, src } => {
                visit(src, OperandKind::Use);
                visit(dst, OperandKind::Def);
            }
            Inst::Combine { dst, lo, hi } => {
                visit(lo, OperandKind::Use);
                visit(hi, OperandKind::Use);
                visit(dst, OperandKind::EarlyDef);
            }
            Inst::Branch { c, .. } => visit(c, OperandKind::Use),
            Inst::Ret { uses } | Inst::Exit { results: uses } => {
                for (v, fixed) in uses {
                    visit(v, OperandKind::UseFixed(*fixed));
                }
            }
            Inst::Call { args, results, .. } => {
                for (v, fixed) in args {
                    visit(v, OperandKind::UseFixed(*fixed));
                }
                for (v, fixed) in results {
                    visit(v, OperandKind::DefFixed(*fixed));
                }
            }
            Inst::Jump { .. }
            | Inst::Joinat { .. }
            | Inst::Kill
            | Inst::SetAddr { .. }
            | Inst::Barrier => {}
        }
    }

    fn clobbers(&self) -> &[Reg] {
        match self {
            Inst::Call { clobbers, .. } => clobbers,
            _ => &[],
        }
    }

    fn has_side_effects(&self) -> bool {
        matches!(
            self,
            Inst::Args { .. }
                | Inst::Call { .. }
                | Inst::SetAddr { .. }
                | Inst::Store { .. }
                | Inst::SharedStore { .. }
                | Inst::LocalStore { .. }
                | Inst::Spill { .. }
                | Inst::SetSharedAddr { .. }
                | Inst::Atomic { .. }
                | Inst::SharedAtomic { .. }
                | Inst::Barrier
                | Inst::Jump { .. }
                | Inst::Branch { .. }
                | Inst::Joinat { .. }
                | Inst::Kill
                | Inst::Output { .. }
                | Inst::Exit { .. }
                | Inst::Ret { .. }
        )
    }

    fn is_return(&self) -> bool {
        matches!(self, Inst::Exit { .. } | Inst::Ret { .. })
    }

    fn is_branch(&self) -> bool {
        matches!(self, Inst::Jump { .. } | Inst::Branch { .. })
    }

    fn gen_move(dst: Reg, src: Reg) -> Inst {
        Inst::Copy { dst, src }
    }

    fn gen_jump(target: usize) -> Inst {
        Inst::Jump { target }
    }
}
