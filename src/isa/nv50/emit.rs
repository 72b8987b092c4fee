//! Emission: allocated instructions to machine code. Each instruction takes the shortest
//! form its operands encode in (short, immediate, long: `docs/nv50.md`, "Instruction
//! forms"); then, per block, short instructions are paired and a lone one widened, so every
//! long instruction and every block starts at an 8-byte boundary. Blocks are laid out in
//! VCode order with each join block (`join nop`) just before the block it joins at;
//! branches to the next block are left out, and branch targets are absolute addresses for
//! code placed at 0, listed for relocation.

use super::inst::{Alu, Inst, SharedRmw, Src};
use super::link::CallSite;
use super::mc::{self, Cond, Form, McInst, Mods, Op, Operand, Pred, Ty, Variant};
use super::reconverge::{Join, Plan};
use super::regs::{GPR, gpr};
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use std::collections::{BTreeMap, BTreeSet};

/// A register operand of `r`'s width.
fn reg_operand(r: Reg, hw: u16) -> Operand {
    match r.class() {
        RegClass::Int => Operand::R(hw as u8),
        RegClass::Float => Operand::D(hw as u8),
        RegClass::Vector => Operand::Q(hw as u8),
    }
}

/// The MC operand of a source, registers numbered by `hw`.
fn src_operand(src: Src, hw: &dyn Fn(Reg) -> u16) -> Operand {
    match src {
        Src::Reg(r) => reg_operand(r, hw(r)),
        Src::Half(r, hi) => Operand::R((hw(r) + hi as u16) as u8),
        Src::H16(r, hi) => Operand::H {
            reg: hw(r) as u8,
            hi,
        },
        Src::Imm(c) => Operand::Imm(c),
        Src::Shared { ty, areg, offset } => Operand::Shared { ty, areg, offset },
        Src::SReg(s) => Operand::SReg(s),
        Src::Const(offset) => Operand::Const {
            space: 0,
            areg: 0,
            offset,
        },
        Src::Varying(offset) => Operand::Varying { areg: 0, offset },
        Src::Attr(offset) => Operand::Attr { offset },
    }
}

/// `alu` as an MC instruction in `form`.
fn alu_mc(alu: &Alu, form: Form, hw: &dyn Fn(Reg) -> u16) -> McInst {
    let mut inst = McInst::new(alu.op, form);
    // `ld` from `s[]` and `mov` from a special register name no type of their own.
    inst.ty = match alu.srcs.first() {
        Some(Src::Shared { .. }) if alu.op == Op::Ld => None,
        Some(Src::SReg(_) | Src::Varying(_)) => None,
        _ => alu.ty,
    };
    inst.src_ty = alu.src_ty;
    inst.mods = alu.mods;
    inst.round = alu.round;
    inst.cmp = alu.cmp;
    inst.dst = Some(match alu.dst {
        Some(d) => reg_operand(d, hw(d)),
        None => Operand::Discard,
    });
    inst.cdst = alu.cdst.map(|c| hw(c) as u8);
    let mut n = 0;
    for &s in &alu.srcs {
        inst.src[n] = Some(src_operand(s, hw));
        n += 1;
    }
    if let Some(c) = alu.carry {
        inst.src[n] = Some(Operand::C(hw(c) as u8));
    }
    inst
}

/// The forms tried, shortest first.
const FORMS: [Form; 3] = [Form::Short, Form::Imm, Form::Long];

/// Whether some form of `alu` encodes on `variant`, its virtual registers standing for low
/// registers (`$r4`, `$r4d`, …: any register below `$r64` encodes in every form that takes
/// one; `$c1` for a flag: the short and immediate `addc` read only `$c0`, so a virtual
/// carry needs a long form): what the lowering asks before it keeps an immediate operand.
pub fn encodable(alu: &Alu, variant: Variant) -> bool {
    let hw = |r: Reg| match r {
        Reg::Real { hw, .. } => hw,
        Reg::Virtual { file: GPR, .. } => 4,
        Reg::Virtual { .. } => 1,
    };
    FORMS
        .iter()
        .any(|&form| mc::encode(&alu_mc(alu, form, &hw), variant).is_ok())
}

/// The shortest encodable form of `alu`, allocated; pushed onto `out`.
///
/// The lowering keeps an immediate where a form encodes it with low registers
/// ([`encodable`]); a half of a pair allocated above `$r63` then reaches only long normal
/// forms, which take no immediate. The immediate then goes into the destination's (first)
/// register first (`mov` reaches `$r127`), unless a source overlaps it (a single
/// destination never overlaps a pair: the classes partition the file).
fn alu_shortest(out: &mut Vec<Item>, alu: &Alu, variant: Variant) -> Result<(), String> {
    let hw = |r: Reg| r.hw();
    if let Some(inst) = FORMS
        .iter()
        .map(|&form| alu_mc(alu, form, &hw))
        .find(|inst| mc::encode(inst, variant).is_ok())
    {
        out.push(Item::Mc(inst));
        return Ok(());
    }
    let no_encoding = || format!("no encoding of {alu:?}");
    let (Some(dst), Some(k)) = (
        alu.dst,
        alu.srcs.iter().position(|s| matches!(s, Src::Imm(_))),
    ) else {
        return Err(no_encoding());
    };
    let scratch = dst.hw();
    let overlaps = alu.srcs.iter().any(|s| match *s {
        Src::Reg(r) | Src::Half(r, _) | Src::H16(r, _) => {
            (r.hw()..r.hw() + r.width()).contains(&scratch)
        }
        _ => false,
    });
    let Src::Imm(c) = alu.srcs[k] else {
        unreachable!("found above")
    };
    if overlaps {
        return Err(no_encoding());
    }
    let mut in_reg = alu.clone();
    in_reg.srcs[k] = Src::Reg(gpr(scratch));
    let inst = alu_mc(&in_reg, Form::Long, &hw);
    mc::encode(&inst, variant).map_err(|_| no_encoding())?;
    out.push(Item::Mc(shortest(
        mov32(scratch, Operand::Imm(c)),
        variant,
    )?));
    out.push(Item::Mc(inst));
    Ok(())
}

/// A branch target: a block, or one of the blocks emission places before a block: the
/// `join nop` of the regions joining there, the `join nop` (then `bra` to the header) of a
/// loop's latch, the `breakaddr` of a loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Label {
    Block(usize),
    Join(usize),
    Latch(usize),
    Breakaddr(usize),
}

impl Label {
    fn of_join(join: Join) -> Label {
        match join {
            Join::Block(b) => Label::Join(b),
            Join::Latch(h) => Label::Latch(h),
        }
    }
}

/// How a jump along an edge leaves: a `bra` to a label, or a `break` out of its loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dest {
    Bra(Label),
    Break,
}

/// An instruction of the layout: encoded but for a branch target, a label's or (`Local`)
/// the item that many items after this one in the same block (a loop inside one VCode
/// instruction), or (`Call`) a function's, which linking writes.
#[derive(Clone)]
enum Item {
    Mc(McInst),
    Branch(McInst, Label),
    Local(McInst, isize),
    Call(McInst, String),
}

impl Item {
    fn words(&self) -> usize {
        match self {
            Item::Mc(i) | Item::Branch(i, _) | Item::Local(i, _) | Item::Call(i, _) => i.words(),
        }
    }
}

fn mov32(dst: u16, src: Operand) -> McInst {
    McInst::with(
        Op::Mov,
        Form::Short,
        Some(Ty::B32),
        Some(Operand::R(dst as u8)),
        &[src],
    )
}

/// The shortest encodable form of `inst`, else `inst` itself in its long form.
fn shortest(mut inst: McInst, variant: Variant) -> Result<McInst, String> {
    for form in FORMS {
        inst.form = form;
        if mc::encode(&inst, variant).is_ok() {
            return Ok(inst);
        }
    }
    Err(format!("no encoding of {}", mc::print(&inst)))
}

/// Copies `count` registers from `src` to `dst` (`mov b32` each).
fn copy_regs(
    out: &mut Vec<Item>,
    dst: u16,
    src: u16,
    count: u16,
    variant: Variant,
) -> Result<(), String> {
    if dst == src {
        return Ok(());
    }
    for k in 0..count {
        out.push(Item::Mc(shortest(
            mov32(dst + k, Operand::R((src + k) as u8)),
            variant,
        )?));
    }
    Ok(())
}

/// One block's instructions as layout items; `dest(b)` is how an edge to VCode block `b`
/// leaves.
fn lower_block(
    insts: &[Inst],
    dest: &dyn Fn(usize) -> Dest,
    variant: Variant,
) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    let mut a3 = AddressRegister::default();
    for inst in insts {
        match inst {
            Inst::Args { .. } => {}
            Inst::Alu(alu) => alu_shortest(&mut out, alu, variant)?,
            Inst::Select { dst, cond, c, t, f } => {
                let words = dst.width();
                copy_regs(&mut out, dst.hw(), f.hw(), words, variant)?;
                for k in 0..words {
                    let mut mov = mov32(dst.hw() + k, Operand::R((t.hw() + k) as u8));
                    mov.form = Form::Long;
                    mov.pred = Some(Pred {
                        cond: *cond,
                        reg: c.hw() as u8,
                    });
                    out.push(Item::Mc(mov));
                }
            }
            Inst::Load { ty, dst, addr } => {
                let addr = src_operand(*addr, &|r| r.hw());
                let Operand::R(addr) = addr else {
                    return Err(format!("address {addr:?} not in a register"));
                };
                out.push(Item::Mc(McInst::with(
                    Op::Ld,
                    Form::Long,
                    Some(*ty),
                    Some(reg_operand(*dst, dst.hw())),
                    &[Operand::Global { space: 15, addr }],
                )));
            }
            Inst::Store { ty, data, addr } => {
                let addr = src_operand(*addr, &|r| r.hw());
                let Operand::R(addr) = addr else {
                    return Err(format!("address {addr:?} not in a register"));
                };
                out.push(Item::Mc(McInst::with(
                    Op::St,
                    Form::Long,
                    Some(*ty),
                    Some(Operand::Global { space: 15, addr }),
                    &[reg_operand(*data, data.hw())],
                )));
            }
            Inst::SharedLoad {
                ty,
                dst,
                addr,
                offset,
                via_a3,
            } => {
                let mut offset = *offset;
                // G80's `mov` operand reaches 31 units past `$a`.
                let reach = match variant {
                    Variant::G80 => Some(0x1f * ty.bytes()),
                    _ => None,
                };
                let areg = match via_a3 {
                    true => SHARED_AREG,
                    false => a3.set(&mut out, *addr, &mut offset, reach, dst.width()),
                };
                // One access per word of a pair or quad.
                for k in 0..dst.width() {
                    let src = Src::Shared {
                        ty: *ty,
                        areg,
                        offset: offset + 4 * k as u32,
                    };
                    // G84 added `ld` from `s[]`; G80 reads it as a `mov` operand.
                    let op = if variant >= Variant::G84 {
                        Op::Ld
                    } else {
                        Op::Mov
                    };
                    let load = Alu::new(op, Some(Ty::B32), Some(gpr(dst.hw() + k)), &[src]);
                    alu_shortest(&mut out, &load, variant)?;
                }
            }
            Inst::SharedStore {
                ty,
                data,
                addr,
                offset,
                via_a3,
            } => {
                let mut offset = *offset;
                let areg = match via_a3 {
                    true => SHARED_AREG,
                    false => a3.set(&mut out, *addr, &mut offset, None, data.width()),
                };
                for k in 0..data.width() {
                    out.push(Item::Mc(McInst::with(
                        Op::St,
                        Form::Long,
                        None,
                        Some(Operand::Shared {
                            ty: *ty,
                            areg,
                            offset: offset + 4 * k as u32,
                        }),
                        &[Operand::R((data.hw() + k) as u8)],
                    )));
                }
            }
            Inst::SharedAtomic {
                op,
                dst,
                addr,
                src,
                cmp,
                tmp,
                tmp2,
                c,
            } => {
                let hw = |r: &Option<Reg>| r.map(|r| r.hw());
                let regs = SharedAtomicRegs {
                    dst: dst.hw(),
                    src: hw(src),
                    cmp: hw(cmp),
                    tmp: tmp.hw(),
                    tmp2: hw(tmp2),
                    c: c.hw() as u8,
                };
                let mut offset = 0;
                let areg = a3.set(&mut out, Some(*addr), &mut offset, None, 1);
                shared_atomic(&mut out, *op, regs, areg)?;
            }
            Inst::LocalLoad {
                ty,
                dst,
                addr,
                offset,
            } => {
                let mut offset = *offset;
                let step = ty.bytes().max(4);
                let count = (4 * dst.width() as u32 / step).max(1);
                let areg = a3.set(&mut out, *addr, &mut offset, None, 1);
                for k in 0..count {
                    let reg = dst.hw() + (k * step / 4) as u16;
                    out.push(Item::Mc(McInst::with(
                        Op::Ld,
                        Form::Long,
                        Some(*ty),
                        Some(wide_operand(reg, step)),
                        &[Operand::Local {
                            areg,
                            offset: offset + k * step,
                        }],
                    )));
                }
            }
            Inst::LocalStore {
                ty,
                data,
                addr,
                offset,
            } => {
                let mut offset = *offset;
                let step = ty.bytes().max(4);
                let count = (4 * data.width() as u32 / step).max(1);
                let areg = a3.set(&mut out, *addr, &mut offset, None, 1);
                for k in 0..count {
                    let reg = data.hw() + (k * step / 4) as u16;
                    out.push(Item::Mc(McInst::with(
                        Op::St,
                        Form::Long,
                        Some(*ty),
                        Some(Operand::Local {
                            areg,
                            offset: offset + k * step,
                        }),
                        &[wide_operand(reg, step)],
                    )));
                }
            }
            Inst::Spill { .. } | Inst::Reload { .. } => {
                return Err("a spill or reload not placed in `l[]` (`place_spills.rs`)".into());
            }
            Inst::Atomic {
                op,
                ty,
                dst,
                addr,
                src,
                cmp,
            } => {
                let Operand::R(addr) = src_operand(*addr, &|r| r.hw()) else {
                    return Err(format!("atomic address {addr:?} not in a register"));
                };
                let global = Operand::Global { space: 15, addr };
                let src = reg_operand(*src, src.hw());
                let inst = match (dst, cmp) {
                    (Some(d), Some(c)) => McInst::with(
                        Op::Atomic(*op),
                        Form::Long,
                        Some(*ty),
                        Some(reg_operand(*d, d.hw())),
                        &[global, reg_operand(*c, c.hw()), src],
                    ),
                    (Some(d), None) => McInst::with(
                        Op::Atomic(*op),
                        Form::Long,
                        Some(*ty),
                        Some(reg_operand(*d, d.hw())),
                        &[global, src],
                    ),
                    (None, _) => {
                        McInst::with(Op::Red(*op), Form::Long, Some(*ty), Some(global), &[src])
                    }
                };
                out.push(Item::Mc(inst));
            }
            Inst::SetSharedAddr { addr } => {
                a3.set(&mut out, Some(*addr), &mut 0, None, 1);
            }
            Inst::Barrier => {
                // nouveau's `emitBAR`: `bar sync 0` (word 0 bits 25 and 26 set, all threads).
                let mut bar = McInst::with(Op::Bar, Form::Long, None, None, &[Operand::Imm(0)]);
                bar.mods = Mods::INC | Mods::WAIT;
                out.push(Item::Mc(bar));
            }
            Inst::SetAddr { areg, value } => out.push(Item::Mc(McInst::with(
                Op::Add,
                Form::Long,
                None,
                Some(Operand::A(*areg)),
                &[Operand::A(0), Operand::Imm(u32::from(*value))],
            ))),
            // `$c` spills into `$r` and reloads from it: the allocator's moves between the
            // files (`regs.rs`). Both keep all four flags (`mov $r $c` writes them to bits
            // 0–3: `isa.rst`, "Registers"), so a reloaded `$c` answers every condition.
            Inst::Copy { dst, src } => match (dst.file() == GPR, src.file() == GPR) {
                (true, true) => copy_regs(&mut out, dst.hw(), src.hw(), dst.width(), variant)?,
                (true, false) => out.push(Item::Mc(McInst::with(
                    Op::Mov,
                    Form::Long,
                    None,
                    Some(Operand::R(dst.hw() as u8)),
                    &[Operand::C(src.hw() as u8)],
                ))),
                (false, true) => out.push(Item::Mc(McInst::with(
                    Op::Mov,
                    Form::Long,
                    None,
                    Some(Operand::C(dst.hw() as u8)),
                    &[Operand::R(src.hw() as u8)],
                ))),
                (false, false) => {
                    return Err("a copy between `$c` registers (the allocator moves them \
                                through a `$r`)"
                        .into());
                }
            },
            Inst::Combine { dst, lo, hi } => {
                copy_regs(&mut out, dst.hw(), lo.hw(), 1, variant)?;
                copy_regs(&mut out, dst.hw() + 1, hi.hw(), 1, variant)?;
            }
            Inst::Jump { target } => out.push(jump(None, dest(*target))),
            Inst::Branch {
                cond,
                c,
                taken,
                not_taken,
            } => {
                let pred = Pred {
                    cond: *cond,
                    reg: c.hw() as u8,
                };
                out.push(jump(Some(pred), dest(*taken)));
                out.push(jump(None, dest(*not_taken)));
            }
            Inst::Joinat { join } => {
                out.push(Item::Branch(
                    McInst::new(Op::Joinat, Form::Long),
                    Label::of_join(*join),
                ));
            }
            Inst::Output { offset, src } => out.push(Item::Mc(McInst::with(
                Op::Mov,
                Form::Long,
                Some(Ty::B32),
                Some(Operand::Out {
                    areg: 0,
                    offset: *offset,
                }),
                &[Operand::R(src.hw() as u8)],
            ))),
            Inst::Kill => {
                out.push(Item::Mc(McInst::new(Op::Kill, Form::Long)));
            }
            Inst::Exit { .. } => {
                // The `exit` bit on the last instruction when it is a long normal one that
                // always executes (widened from a short one if need be), else `exit nop`.
                // `discard` never carries it (nouveau's `trySetExitModifier`).
                if let Some(Item::Mc(last)) = out.last_mut()
                    && last.pred.is_none()
                    && !last.join
                    && last.op != Op::Kill
                {
                    let mut long = last.clone();
                    long.form = Form::Long;
                    long.exit = true;
                    if mc::encode(&long, variant).is_ok() {
                        *last = long;
                        continue;
                    }
                }
                let mut nop = McInst::new(Op::Nop, Form::Long);
                nop.exit = true;
                out.push(Item::Mc(nop));
            }
            Inst::Ret { .. } => out.push(Item::Mc(McInst::new(Op::Ret, Form::Long))),
            Inst::Call { callee, .. } => {
                out.push(Item::Call(
                    McInst::new(Op::Call, Form::Long),
                    callee.clone(),
                ));
                // The callee may set `$a3` to its own use.
                a3 = AddressRegister::default();
            }
        }
        a3.forget_written(inst);
    }
    Ok(out)
}

/// What `$a3` holds within a block's code: the `$r` it was last set from, while neither
/// has been written since. A block starts knowing nothing (its predecessors may differ,
/// and each predicated arm is lowered on its own), so the reuse never crosses a label.
#[derive(Default)]
struct AddressRegister {
    from: Option<u16>,
}

impl AddressRegister {
    /// The `$a` register through which an `s[]` or `l[]` access of `words` words at
    /// `addr + offset` goes (`$a0`, which reads 0, without `addr`), after the instructions
    /// that set it: `shl $a3 addr 0x0` (`$a` takes the low 16 bits, which cover `s[]` and
    /// `l[]`), left out when `$a3` holds `addr` already, and, when the offset field reaches
    /// only `reach` bytes (G80's `mov` operand: 31 units), `add $a3 $a 0x…` for an offset
    /// beyond that, leaving `offset` 0 (the other forms reach all of `s[]` and `l[]`).
    /// [`SHARED_AREG`] is outside the allocator: nothing else writes it.
    fn set(
        &mut self,
        out: &mut Vec<Item>,
        addr: Option<Reg>,
        offset: &mut u32,
        reach: Option<u32>,
        words: u16,
    ) -> u8 {
        let mut areg = 0;
        if let Some(a) = addr {
            if self.from != Some(a.hw()) {
                out.push(Item::Mc(McInst::with(
                    Op::Shl,
                    Form::Long,
                    None,
                    Some(Operand::A(SHARED_AREG)),
                    &[Operand::R(a.hw() as u8), Operand::Imm(0)],
                )));
                self.from = Some(a.hw());
            }
            areg = SHARED_AREG;
        }
        let last = *offset + 4 * (words as u32 - 1);
        if reach.is_some_and(|reach| last > reach) {
            out.push(Item::Mc(McInst::with(
                Op::Add,
                Form::Long,
                None,
                Some(Operand::A(SHARED_AREG)),
                &[Operand::A(areg), Operand::Imm(*offset)],
            )));
            areg = SHARED_AREG;
            *offset = 0;
            self.from = None;
        }
        areg
    }

    /// Forgets `$a3`'s source once `inst` writes it.
    fn forget_written(&mut self, inst: &Inst) {
        let Some(from) = self.from else {
            return;
        };
        inst.clone().visit_operands(&mut |r, kind| {
            let read = matches!(
                kind,
                OperandKind::Use
                    | OperandKind::LateUse
                    | OperandKind::UseFixed(_)
                    | OperandKind::UseAny
            );
            if !read && r.file() == GPR && (r.hw()..r.hw() + r.width()).contains(&from) {
                self.from = None;
            }
        });
    }
}

/// The register operand of an access of `bytes` (4, 8, 16) from `$r<hw>`.
fn wide_operand(hw: u16, bytes: u32) -> Operand {
    match bytes {
        8 => Operand::D(hw as u8),
        16 => Operand::Q(hw as u8),
        _ => Operand::R(hw as u8),
    }
}

/// The registers of an [`Inst::SharedAtomic`], allocated.
struct SharedAtomicRegs {
    dst: u16,
    src: Option<u16>,
    cmp: Option<u16>,
    tmp: u16,
    tmp2: Option<u16>,
    c: u8,
}

/// The lock loop of an atomic on the `s[]` word at `$a<areg>` (GT200; nouveau's
/// `handleSharedATOM`, with the unlocking path predicated rather than branched to):
///
/// ```text
///     breakaddr done
/// try:
///     ld lock $c $dst b32 s[$a]        locked: `lt` (sign set); else the value is kept
///     (lt $c) <new value into $tmp>
///     (lt $c) st unlock b32 s[$a] $tmp
///     (lt $c) break
///     bra try
/// done:
/// ```
///
/// `ld lock` locks the word for one thread of the warp per try (`isa.rst`: one locked
/// location per warp), so the threads leave one by one, each after storing and unlocking;
/// a word another warp holds fails for all of them until it is unlocked.
fn shared_atomic(
    out: &mut Vec<Item>,
    op: SharedRmw,
    r: SharedAtomicRegs,
    areg: u8,
) -> Result<(), String> {
    let word = Operand::Shared {
        ty: Ty::B32,
        areg,
        offset: 0,
    };
    let pred = Pred {
        cond: Cond::L,
        reg: r.c,
    };
    let operand = |x: Option<u16>, what: &str| {
        x.map(|x| Operand::R(x as u8))
            .ok_or_else(|| format!("an atomic on s[] without its {what}"))
    };
    let alu = |op: Op, ty: Ty, dst: u16, a: Operand, b: Operand| {
        let mut inst = McInst::with(
            op,
            Form::Long,
            Some(ty),
            Some(Operand::R(dst as u8)),
            &[a, b],
        );
        inst.pred = Some(pred);
        inst
    };
    let old = Operand::R(r.dst as u8);
    let mut compute = Vec::new();
    let stored = match op {
        SharedRmw::Alu(op, ty) => {
            compute.push(alu(op, ty, r.tmp, old, operand(r.src, "operand")?));
            r.tmp
        }
        SharedRmw::Nand => {
            let mut or = alu(Op::Or, Ty::B32, r.tmp, old, operand(r.src, "operand")?);
            or.mods = Mods::NOT0 | Mods::NOT1;
            compute.push(or);
            r.tmp
        }
        SharedRmw::Exch => r.src.ok_or("an exchange on s[] without its operand")?,
        // old ^ ((new ^ old) & (old == cmp ? −1 : 0)).
        SharedRmw::Cas => {
            let tmp2 = r
                .tmp2
                .ok_or("a compare-and-swap on s[] without its second temporary")?;
            let mut eq = alu(
                Op::Set,
                Ty::U32,
                tmp2,
                old,
                operand(r.cmp, "compared value")?,
            );
            eq.cmp = Some(Cond::E);
            compute.push(eq);
            compute.push(alu(
                Op::Xor,
                Ty::B32,
                r.tmp,
                operand(r.src, "new value")?,
                old,
            ));
            compute.push(alu(
                Op::And,
                Ty::B32,
                r.tmp,
                Operand::R(r.tmp as u8),
                Operand::R(tmp2 as u8),
            ));
            compute.push(alu(Op::Xor, Ty::B32, r.tmp, Operand::R(r.tmp as u8), old));
            r.tmp
        }
    };
    let mut lock = McInst::with(Op::Ld, Form::Long, None, Some(old), &[word]);
    lock.mods = Mods::LOCK;
    lock.cdst = Some(r.c);
    let mut unlock = McInst::with(
        Op::St,
        Form::Long,
        None,
        Some(word),
        &[Operand::R(stored as u8)],
    );
    unlock.mods = Mods::UNLOCK;
    unlock.pred = Some(pred);
    let mut brk = McInst::new(Op::Break, Form::Long);
    brk.pred = Some(pred);
    // breakaddr, ld lock, the computation, st unlock, break, bra.
    let body = 1 + compute.len() + 3;
    out.push(Item::Local(
        McInst::new(Op::Breakaddr, Form::Long),
        1 + body as isize,
    ));
    out.push(Item::Mc(lock));
    out.extend(compute.into_iter().map(Item::Mc));
    out.push(Item::Mc(unlock));
    out.push(Item::Mc(brk));
    out.push(Item::Local(
        McInst::new(Op::Bra, Form::Long),
        1 - body as isize,
    ));
    Ok(())
}

/// The `$a` register of workgroup-memory, scratch and `l[]` accesses (`$a1`, `$a2` may hold the
/// bases of far kernel arguments on G80: `lower::far_argument_bases`).
const SHARED_AREG: u8 = 3;

/// A `bra` or a `break`, predicated on `pred` if any.
fn jump(pred: Option<Pred>, dest: Dest) -> Item {
    match dest {
        Dest::Bra(label) => {
            let mut bra = McInst::new(Op::Bra, Form::Long);
            bra.pred = pred;
            Item::Branch(bra, label)
        }
        Dest::Break => {
            let mut brk = McInst::new(Op::Break, Form::Long);
            brk.pred = pred;
            Item::Mc(brk)
        }
    }
}

/// Pairs the short instructions of a block, widening a lone one (every short form has a
/// long twin, and an immediate one when the long form cannot hold the operands).
fn pair_shorts(items: &mut [Item], variant: Variant) -> Result<(), String> {
    let mut i = 0;
    while i < items.len() {
        if items[i].words() == 2 {
            i += 1;
            continue;
        }
        if items.get(i + 1).is_some_and(|next| next.words() == 1) {
            i += 2;
            continue;
        }
        let Item::Mc(inst) = &mut items[i] else {
            return Err("a short branch".into());
        };
        let widened = [Form::Long, Form::Imm].into_iter().find_map(|form| {
            let mut wide = inst.clone();
            wide.form = form;
            mc::encode(&wide, variant).is_ok().then_some(wide)
        });
        *inst = widened.ok_or_else(|| format!("no long form of {}", mc::print(inst)))?;
        i += 1;
    }
    Ok(())
}

/// The most instructions an `if` arm may have to be predicated rather than branched around,
/// for a divergent and a uniform branch: nouveau's limits (`docs/nv50.md`, "Predicating
/// short ifs").
const ARM_LIMIT_DIVERGENT: usize = 12;
const ARM_LIMIT_UNIFORM: usize = 4;

/// A conditional branch whose arms are predicated: the arms' instructions, each predicated
/// on its side's condition, and the VCode block where both arms continue.
struct ShortIf {
    arms: Vec<Item>,
    join: usize,
}

/// Where a jump to VCode block `x` ends up through edge blocks that only jump.
fn through(blocks: &[Vec<Inst>], cfg_len: usize, mut x: usize) -> usize {
    while x >= cfg_len
        && let [Inst::Jump { target }] = blocks[x].as_slice()
    {
        x = *target;
    }
    x
}

/// One side of a conditional branch at the end of `from`: the block it runs, if that is
/// entered only from the branch (through edge blocks that only jump) and jumps on, and where
/// the side continues (the block itself when it is not such an arm).
fn arm_of(
    blocks: &[Vec<Inst>],
    preds: &[Vec<usize>],
    cfg_len: usize,
    from: usize,
    target: usize,
) -> (Option<usize>, usize) {
    let (mut prev, mut x) = (from, target);
    while x >= cfg_len
        && let [Inst::Jump { target }] = blocks[x].as_slice()
    {
        (prev, x) = (x, *target);
    }
    match blocks[x].as_slice() {
        [.., Inst::Jump { target: next }] if preds[x] == [prev] => {
            (Some(x), through(blocks, cfg_len, *next))
        }
        _ => (None, x),
    }
}

/// The instructions of arm block `arm` (all but its jump), predicated on `pred`; `None` when
/// one of them cannot be: a branch or end, an instruction already predicated or carrying
/// `join`/`exit`, one that reads a `$c` (`addc`) or writes `pred`'s, one with no long
/// normal form (immediates), or more than `limit` of them.
fn predicated_arm(
    insts: &[Inst],
    pred: Pred,
    limit: usize,
    variant: Variant,
) -> Result<Option<Vec<Item>>, String> {
    let [body @ .., Inst::Jump { .. }] = insts else {
        return Ok(None);
    };
    if body.iter().any(|i| {
        matches!(
            i,
            Inst::Jump { .. }
                | Inst::Branch { .. }
                | Inst::Joinat { .. }
                | Inst::Exit { .. }
                | Inst::Ret { .. }
                | Inst::Call { .. }
                | Inst::Args { .. }
                | Inst::SetAddr { .. }
                | Inst::SharedAtomic { .. }
        )
    }) {
        return Ok(None);
    }
    let items = lower_block(body, &|_| Dest::Break, variant)?;
    if items.len() > limit {
        return Ok(None);
    }
    let mut out = Vec::new();
    for item in items {
        let Item::Mc(mut inst) = item else {
            return Ok(None);
        };
        let reads_flag = inst.src.iter().any(|s| matches!(s, Some(Operand::C(_))));
        let writes_pred = inst.cdst == Some(pred.reg) || inst.dst == Some(Operand::C(pred.reg));
        if inst.pred.is_some() || inst.join || inst.exit || reads_flag || writes_pred {
            return Ok(None);
        }
        inst.form = Form::Long;
        inst.pred = Some(pred);
        if mc::encode(&inst, variant).is_err() {
            return Ok(None);
        }
        out.push(Item::Mc(inst));
    }
    Ok(Some(out))
}

/// Finds the conditional branches of function blocks whose arms are short enough to run
/// predicated (`docs/nv50.md`, "Predicating short ifs"): both sides are a block entered only
/// from the branch, or nothing, and continue at one block, which is no loop's entry and not
/// reached by a `break`. The `joinat` of such a branch goes, with its `join nop` when no
/// other region joins there. Returns them by block and the arm blocks no longer laid out.
fn short_ifs(
    blocks: &[Vec<Inst>],
    origin: &[usize],
    cfg_len: usize,
    plan: &mut Plan,
    variant: Variant,
) -> Result<(BTreeMap<usize, ShortIf>, BTreeSet<usize>), String> {
    let mut preds = vec![Vec::new(); blocks.len()];
    for (b, insts) in blocks.iter().enumerate() {
        for inst in insts {
            match inst {
                Inst::Jump { target } => preds[*target].push(b),
                Inst::Branch {
                    taken, not_taken, ..
                } => {
                    preds[*taken].push(b);
                    preds[*not_taken].push(b);
                }
                _ => {}
            }
        }
    }
    let mut ifs = BTreeMap::new();
    let mut absorbed = BTreeSet::new();
    for b in 0..cfg_len {
        let Some(Inst::Branch {
            cond,
            c,
            taken,
            not_taken,
        }) = blocks[b].last()
        else {
            continue;
        };
        let (t_arm, t_next) = arm_of(blocks, &preds, cfg_len, b, *taken);
        let (n_arm, n_next) = arm_of(blocks, &preds, cfg_len, b, *not_taken);
        if t_next != n_next || (t_arm.is_none() && n_arm.is_none()) || t_arm == n_arm {
            continue;
        }
        let join = t_next;
        let from: Vec<usize> = [Some(b), t_arm, n_arm].into_iter().flatten().collect();
        let labelled = |x: usize| {
            x < cfg_len
                && (plan.join_preds.contains_key(&Join::Block(x))
                    || plan.join_preds.contains_key(&Join::Latch(x))
                    || plan.breakaddr.contains_key(&x))
        };
        // No edge of the shape may be a `break` or enter a loop: the branch's into the arms
        // included.
        let leaves = |from: usize, to: usize| {
            plan.breaks.contains(&(from, to)) || plan.enters_loop(from, to)
        };
        if from
            .iter()
            .any(|&x| leaves(origin[x], join) || (x != b && (labelled(x) || leaves(b, x))))
        {
            continue;
        }
        // A taken (or not taken) edge straight to the join: the edges of the arms must
        // enter the same label as it does.
        let entered: BTreeSet<Option<Join>> = from
            .iter()
            .map(|&x| plan.join_entered(origin[x], join))
            .collect();
        if entered.len() > 1 {
            continue;
        }
        let limit = if plan.divergent.contains(&b) {
            ARM_LIMIT_DIVERGENT
        } else {
            ARM_LIMIT_UNIFORM
        };
        let pred = Pred {
            cond: *cond,
            reg: c.hw() as u8,
        };
        let inverse = Pred {
            cond: cond.inverse(),
            ..pred
        };
        let mut arms = Vec::new();
        let mut ok = true;
        for (arm, pred) in [(t_arm, pred), (n_arm, inverse)] {
            if let Some(a) = arm {
                match predicated_arm(&blocks[a], pred, limit, variant)? {
                    Some(items) => arms.extend(items),
                    None => ok = false,
                }
            }
        }
        if !ok {
            continue;
        }
        if let Some(j) = plan.joinat.remove(&b)
            && let Some(joined) = plan.join_preds.get_mut(&j)
        {
            for &x in &from {
                joined.remove(&origin[x]);
            }
            if joined.is_empty() {
                plan.join_preds.remove(&j);
            }
        }
        absorbed.extend(t_arm);
        absorbed.extend(n_arm);
        ifs.insert(b, ShortIf { arms, join });
    }
    Ok((ifs, absorbed))
}

/// Lays out and encodes allocated blocks. `origin[b]` is the function block (CFG index)
/// VCode block `b` is or was made for (the block an edge block splits an edge of, or whose
/// `br_table` a compare block belongs to); the function's own blocks come first, `cfg_len`
/// of them. Returns the code and the byte offsets of the instructions holding absolute
/// targets.
///
/// Layout: each function block, preceded by what emission places before it (a loop
/// latch's `join nop` and `bra`, the `join nop` of regions joining there, the loop's
/// `breakaddr`) and starting with the `joinat` of its latch where the plan says so
/// (`Plan::header_joinat`), followed by its edge and compare blocks, last made first, so that the
/// other side of a branch usually falls through. An edge block that only jumps is not laid
/// out: branches to it go where it goes.
pub fn assemble(
    blocks: &[Vec<Inst>],
    origin: &[usize],
    cfg_len: usize,
    plan: &Plan,
    variant: Variant,
) -> Result<Assembled, String> {
    let mut plan = plan.clone();
    let (ifs, absorbed) = short_ifs(blocks, origin, cfg_len, &mut plan, variant)?;
    let plan = &plan;
    // Where a branch from VCode block `from` to `to` goes.
    let dest = |from: usize, to: usize| -> Dest {
        let (mut from, mut to) = (origin[from], to);
        while to >= cfg_len {
            match blocks[to].as_slice() {
                [Inst::Jump { target }] => {
                    from = origin[to];
                    to = *target;
                }
                _ => return Dest::Bra(Label::Block(to)),
            }
        }
        if plan.breaks.contains(&(from, to)) {
            Dest::Break
        } else if let Some(join) = plan.join_entered(from, to) {
            Dest::Bra(Label::of_join(join))
        } else if plan.enters_loop(from, to) {
            Dest::Bra(Label::Breakaddr(to))
        } else {
            Dest::Bra(Label::Block(to))
        }
    };
    let mut trailing: Vec<Vec<usize>> = vec![Vec::new(); cfg_len];
    for b in (cfg_len..blocks.len()).rev() {
        if !matches!(blocks[b].as_slice(), [Inst::Jump { .. }]) {
            trailing[origin[b]].push(b);
        }
    }
    let mut layout: Vec<(Label, Vec<Item>)> = Vec::new();
    for (b, after) in trailing.iter().enumerate() {
        if plan.join_preds.contains_key(&Join::Latch(b)) {
            let mut join = McInst::new(Op::Nop, Form::Long);
            join.join = true;
            let back = Item::Branch(McInst::new(Op::Bra, Form::Long), Label::Block(b));
            layout.push((Label::Latch(b), vec![Item::Mc(join), back]));
        }
        if plan.join_preds.contains_key(&Join::Block(b)) {
            let mut join = McInst::new(Op::Nop, Form::Long);
            join.join = true;
            layout.push((Label::Join(b), vec![Item::Mc(join)]));
        }
        if let Some(&(exit, from)) = plan.breakaddr.get(&b) {
            // The breaking threads continue where the exit edge would have taken them.
            let label = match plan.join_entered(from, exit) {
                Some(join) => Label::of_join(join),
                None => Label::Block(exit),
            };
            let breakaddr = Item::Branch(McInst::new(Op::Breakaddr, Form::Long), label);
            layout.push((Label::Breakaddr(b), vec![breakaddr]));
        }
        for &v in std::iter::once(&b).chain(after) {
            if absorbed.contains(&v) {
                continue;
            }
            let mut items = match ifs.get(&v) {
                Some(short) => {
                    // The block without its `joinat` and branch, the predicated arms, then
                    // on to where they meet.
                    let body: Vec<Inst> = blocks[v]
                        .iter()
                        .filter(|i| !matches!(i, Inst::Joinat { .. } | Inst::Branch { .. }))
                        .cloned()
                        .collect();
                    let mut items = lower_block(&body, &|t| dest(v, t), variant)?;
                    items.extend(short.arms.iter().cloned());
                    items.push(jump(None, dest(v, short.join)));
                    items
                }
                None => lower_block(&blocks[v], &|t| dest(v, t), variant)?,
            };
            if v == b && plan.header_joinat.contains(&b) {
                // In every iteration, entered or repeated: the back edges run the latch's
                // `join nop`, then come here.
                let joinat = McInst::new(Op::Joinat, Form::Long);
                items.insert(0, Item::Branch(joinat, Label::Latch(b)));
            }
            pair_shorts(&mut items, variant)?;
            layout.push((Label::Block(v), items));
        }
    }
    // Branches to the label that follows fall through; a conditional one to it, followed
    // by a `bra` elsewhere, becomes the inverse conditional `bra` there.
    for i in 0..layout.len() {
        let next = layout.get(i + 1).map(|(l, _)| *l);
        let items = &mut layout[i].1;
        if let Some(Item::Branch(bra, label)) = items.last()
            && bra.op == Op::Bra
            && bra.pred.is_none()
            && Some(*label) == next
        {
            items.pop();
        } else if let [.., Item::Branch(cond_bra, taken), Item::Branch(bra, other)] =
            items.as_slice()
            && cond_bra.op == Op::Bra
            && bra.op == Op::Bra
            && bra.pred.is_none()
            && Some(*taken) == next
            && let Some(pred) = cond_bra.pred
        {
            let mut inverse = bra.clone();
            inverse.pred = Some(Pred {
                cond: pred.cond.inverse(),
                ..pred
            });
            let other = *other;
            items.pop();
            items.pop();
            items.push(Item::Branch(inverse, other));
        }
    }
    let mut addresses = Vec::new();
    let mut pc = 0u32;
    for (label, items) in &layout {
        addresses.push((*label, pc));
        pc += 4 * items.iter().map(Item::words).sum::<usize>() as u32;
    }
    let address = |label: Label| {
        addresses
            .iter()
            .find(|(l, _)| *l == label)
            .map(|&(_, a)| a)
            .ok_or_else(|| format!("no block {label:?}"))
    };
    let mut code = Vec::new();
    let mut relocations = Vec::new();
    let mut calls = Vec::new();
    let mut frame_accesses = Vec::new();
    for (i, (label, items)) in layout.iter().enumerate() {
        // The address of each item of the block, and of the end.
        let mut at = vec![addresses[i].1];
        for item in items {
            at.push(at[at.len() - 1] + 4 * item.words() as u32);
        }
        for (k, item) in items.iter().enumerate() {
            let inst = match item {
                Item::Mc(inst) => inst.clone(),
                Item::Branch(inst, label) => {
                    relocations.push(code.len() as u32);
                    let mut inst = inst.clone();
                    inst.src[0] = Some(Operand::Target(address(*label)?));
                    inst
                }
                Item::Local(inst, delta) => {
                    let target = k
                        .checked_add_signed(*delta)
                        .and_then(|t| at.get(t))
                        .ok_or_else(|| format!("a local branch outside its block: {delta}"))?;
                    relocations.push(code.len() as u32);
                    let mut inst = inst.clone();
                    inst.src[0] = Some(Operand::Target(*target));
                    inst
                }
                Item::Call(inst, callee) => {
                    let Label::Block(v) = *label else {
                        return Err(format!("a call of `{callee}` outside a block"));
                    };
                    calls.push(CallSite {
                        offset: code.len() as u32,
                        callee: callee.clone(),
                        depth: plan.depth.get(origin[v]).copied().unwrap_or(0) as u32 + 1,
                    });
                    let mut inst = inst.clone();
                    inst.src[0] = Some(Operand::Target(0));
                    inst
                }
            };
            let local = |o: &Option<Operand>| matches!(o, Some(Operand::Local { .. }));
            if local(&inst.dst) || inst.src.iter().any(local) {
                frame_accesses.push(code.len() as u32);
            }
            for word in mc::encode(&inst, variant)? {
                code.extend_from_slice(&word.to_le_bytes());
            }
        }
    }
    Ok(Assembled {
        code,
        relocations,
        calls,
        frame_accesses,
    })
}

/// A function's code and what a loader or linker changes in it.
pub struct Assembled {
    pub code: Vec<u8>,
    /// The byte offsets of the instructions whose absolute targets are for address 0.
    pub relocations: Vec<u32>,
    /// The calls, their targets 0.
    pub calls: Vec<CallSite>,
    /// The byte offsets of the instructions that access `l[]`, at offsets relative to
    /// the function's frame.
    pub frame_accesses: Vec<u32>,
}
