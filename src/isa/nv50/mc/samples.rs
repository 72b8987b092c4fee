//! Representative instructions of every table row, for the envydis test
//! (`tests/nv50_envydis.rs`): each row with default operands, then with each atom's other
//! choices one at a time (each modifier, type, rounding mode, comparison, operand kind and
//! field extreme), and predicates, `$c` outputs, `exit` and `join` on long forms. Derived
//! from the table, so a new row is sampled, and so checked against envydis, without a test
//! change.

use super::table::{Atom, Field, RoundField, Row, Slot, W, rows};
use super::{Cond, Form, McInst, Operand, Pred, Round, SReg, Ty, Variant, encode};

/// The samples that encode on the latest variant, without duplicates.
pub fn samples() -> Vec<McInst> {
    let mut out: Vec<McInst> = Vec::new();
    for row in rows() {
        for inst in row_samples(row) {
            if encode(&inst, Variant::G200).is_ok() && !out.contains(&inst) {
                out.push(inst);
            }
        }
    }
    out
}

fn row_samples(row: &Row) -> Vec<McInst> {
    let mut base = McInst::new(row.op, row.form);
    for atom in &row.atoms {
        if let Some(first) = choices(*atom, &base).into_iter().next() {
            first(&mut base);
        }
    }
    let mut out = vec![base.clone()];
    for atom in &row.atoms {
        for choice in choices(*atom, &base).into_iter().skip(1) {
            let mut inst = base.clone();
            choice(&mut inst);
            out.push(inst);
        }
    }
    if row.pred {
        for (cond, reg) in [
            (Cond::Never, 0),
            (Cond::L, 1),
            (Cond::Eu, 3),
            (Cond::No, 2),
            (Cond::Geu, 0),
        ] {
            let mut inst = base.clone();
            inst.pred = Some(Pred { cond, reg });
            out.push(inst);
        }
    }
    if row.form == Form::Long && !row.control {
        for (exit, join) in [(true, false), (false, true)] {
            let mut inst = base.clone();
            (inst.exit, inst.join) = (exit, join);
            out.push(inst);
        }
    }
    out
}

type Choice = Box<dyn Fn(&mut McInst)>;

/// The settings an atom can take: the first is the default.
fn choices(atom: Atom, base: &McInst) -> Vec<Choice> {
    match atom {
        Atom::Name(_) | Atom::Open | Atom::Close => Vec::new(),
        Atom::Flag(m, _, _) => vec![
            Box::new(|_| {}),
            Box::new(move |i: &mut McInst| i.mods |= m),
        ],
        Atom::Fixed(m) => vec![Box::new(move |i: &mut McInst| i.mods |= m)],
        Atom::Type(slot, t) => vec![set_ty(slot, t)],
        Atom::TypeBit(slot, _, t0, t1) => vec![set_ty(slot, t0), set_ty(slot, t1)],
        Atom::Round(field) => {
            let rounds: &[Round] = match field {
                RoundField::RnRz(_) => &[Round::Rn, Round::Rz],
                RoundField::Rnd(_) => &[Round::Rn, Round::Rm, Round::Rp, Round::Rz],
                RoundField::Rint(_) => &[Round::Rni, Round::Rmi, Round::Rpi, Round::Rzi],
            };
            rounds
                .iter()
                .map(|&r| Box::new(move |i: &mut McInst| i.round = Some(r)) as Choice)
                .collect()
        }
        Atom::Cmp { int, .. } => {
            let mut conds: Vec<Cond> = Cond::ALL.into_iter().filter(|c| c.code() <= 15).collect();
            if int {
                conds.retain(|c| c.code() <= 6 || *c == Cond::Always);
            }
            conds.rotate_left(1);
            conds
                .into_iter()
                .map(|c| Box::new(move |i: &mut McInst| i.cmp = Some(c)) as Choice)
                .collect()
        }
        Atom::CDstAlways => vec![
            Box::new(|i: &mut McInst| i.cdst = Some(0)),
            Box::new(|i: &mut McInst| i.cdst = Some(1)),
            Box::new(|i: &mut McInst| i.cdst = Some(3)),
        ],
        Atom::CDst => vec![
            Box::new(|_| {}),
            Box::new(|i: &mut McInst| i.cdst = Some(1)),
            Box::new(|i: &mut McInst| i.cdst = Some(3)),
        ],
        Atom::Dst(field) => operands(field, 0, base.dst)
            .into_iter()
            .map(|o| Box::new(move |i: &mut McInst| i.dst = Some(o)) as Choice)
            .collect(),
        Atom::Src(n, field) => operands(field, n + 1, base.dst)
            .into_iter()
            .map(|o| Box::new(move |i: &mut McInst| i.src[n as usize] = Some(o)) as Choice)
            .collect(),
    }
}

fn set_ty(slot: Slot, t: Ty) -> Choice {
    Box::new(move |i: &mut McInst| match slot {
        Slot::Ty => i.ty = Some(t),
        Slot::SrcTy => i.src_ty = Some(t),
    })
}

/// Registers of width `w` in a `bits`-bit field: a small one (distinct per operand `k`)
/// and the largest.
fn regs(w: W, bits: u8, k: u8) -> Vec<Operand> {
    let max = (1u16 << bits) as u8 - 1;
    match w {
        W::R => vec![Operand::R(k + 1), Operand::R(max)],
        W::H => vec![
            Operand::H {
                reg: k + 1,
                hi: k % 2 == 1,
            },
            Operand::H {
                reg: max / 2,
                hi: true,
            },
        ],
        W::D => vec![Operand::D(2 * k + 2), Operand::D(max - 1)],
        W::Q => vec![Operand::Q(4 * k + 4), Operand::Q(max - 3)],
    }
}

fn bytes(w: W) -> u32 {
    match w {
        W::H => 2,
        W::R => 4,
        W::D => 8,
        W::Q => 16,
    }
}

fn shared(tys: &[Ty], offset_bits: u8, max_areg: u8) -> Vec<Operand> {
    tys.iter()
        .enumerate()
        .map(|(n, &ty)| {
            let units = if n % 2 == 0 {
                (1 << offset_bits) - 1
            } else {
                n as u32
            };
            Operand::Shared {
                ty,
                areg: (n as u8 * 3) % (max_areg + 1),
                offset: units * ty.bytes(),
            }
        })
        .collect()
}

/// Sample operands of a field for operand `k` (0: the destination).
fn operands(field: Field, k: u8, dst: Option<Operand>) -> Vec<Operand> {
    let narrow = [Ty::U8, Ty::U16, Ty::S16, Ty::B32];
    match field {
        Field::Reg { bits, w, .. } => regs(w, bits, k),
        Field::LDst(w) => {
            let mut v = regs(w, 7, k);
            v.push(Operand::Discard);
            if w == W::R {
                v.extend([0x4, 0x1f8].map(|offset| Operand::Out { areg: 0, offset }));
            }
            v
        }
        Field::SSrc1(w) | Field::ISrc1(w) => {
            let mut v = regs(w, 6, k);
            v.extend(shared(&narrow, 4, 3));
            if matches!(field, Field::SSrc1(_)) {
                v.extend([0x4, 0xfc].map(|offset| Operand::Attr { offset }));
            }
            v
        }
        Field::SSrc2(w) => {
            let mut v = regs(w, 6, k);
            v.push(Operand::Const {
                space: 0,
                areg: 0,
                offset: bytes(w),
            });
            v.push(Operand::Const {
                space: 1,
                areg: 2,
                offset: 31 * bytes(w),
            });
            v
        }
        Field::LSrc1(w) => {
            let mut v = regs(w, 7, k);
            v.extend(shared(&narrow, 5, 7));
            v.extend([0x8, 0x1fc].map(|offset| Operand::Attr { offset }));
            v
        }
        Field::LSrc2(w) | Field::LSrc3(w) => {
            let mut v = regs(w, 7, k);
            v.push(Operand::Const {
                space: 0,
                areg: 0,
                offset: 2 * bytes(w),
            });
            v.push(Operand::Const {
                space: 15,
                areg: 7,
                offset: 127 * bytes(w),
            });
            v.push(Operand::Const {
                space: 1,
                areg: 1,
                offset: 0,
            });
            v
        }
        Field::SameAsDst => dst.into_iter().collect(),
        Field::C0 => vec![Operand::C(0)],
        Field::CondReg => vec![Operand::C(1), Operand::C(0), Operand::C(3)],
        Field::CDstReg => vec![Operand::C(2), Operand::C(0)],
        Field::AReg => vec![Operand::A(1), Operand::A(7), Operand::A(0)],
        Field::ADst => vec![Operand::A(2), Operand::A(7)],
        Field::SReg => SReg::ALL.into_iter().map(Operand::SReg).collect(),
        Field::Imm32 => vec![
            Operand::Imm(0x12345678),
            Operand::Imm(0),
            Operand::Imm(u32::MAX),
        ],
        Field::Imm { bits, .. } => vec![
            Operand::Imm(1),
            Operand::Imm((1 << bits) - 1),
            Operand::Imm(0),
        ],
        Field::ShCnt(w) => {
            let mut v = vec![Operand::Imm(5), Operand::Imm(0x7f)];
            v.extend(operands(Field::LSrc2(w), k, dst));
            v
        }
        Field::Global { .. } => vec![
            Operand::Global {
                space: 0,
                addr: k + 1,
            },
            Operand::Global {
                space: 15,
                addr: 127,
            },
        ],
        Field::Local => vec![
            Operand::Local {
                areg: 0,
                offset: 0x10,
            },
            Operand::Local {
                areg: 7,
                offset: 0xffff,
            },
            Operand::Local { areg: 1, offset: 0 },
        ],
        Field::SharedWide(ty) => {
            let max = (0xffff / ty.bytes()) * ty.bytes();
            vec![
                Operand::Shared {
                    ty,
                    areg: 0,
                    offset: 3 * ty.bytes(),
                },
                Operand::Shared {
                    ty,
                    areg: 7,
                    offset: max,
                },
                Operand::Shared {
                    ty,
                    areg: 1,
                    offset: 0,
                },
            ]
        }
        Field::ConstWide(ty) => {
            let max = (0xffff / ty.bytes()) * ty.bytes();
            vec![
                Operand::Const {
                    space: 0,
                    areg: 0,
                    offset: 3 * ty.bytes(),
                },
                Operand::Const {
                    space: 15,
                    areg: 7,
                    offset: max,
                },
                Operand::Const {
                    space: 1,
                    areg: 1,
                    offset: 0,
                },
            ]
        }
        Field::Target => vec![
            Operand::Target(0x10),
            Operand::Target(0xff_fffc),
            Operand::Target(0),
        ],
        Field::Varying { long } => vec![
            Operand::Varying {
                areg: 0,
                offset: 0x20,
            },
            Operand::Varying {
                areg: if long { 7 } else { 3 },
                offset: 0x3fc,
            },
            Operand::Varying { areg: 1, offset: 0 },
        ],
        Field::OutWide => vec![
            Operand::Out {
                areg: 0,
                offset: 0x10,
            },
            Operand::Out {
                areg: 7,
                offset: 0xfffc,
            },
            Operand::Out { areg: 1, offset: 0 },
        ],
        Field::StData => vec![
            Operand::R(k + 1),
            Operand::H {
                reg: 127 / 2,
                hi: true,
            },
            Operand::R(127),
        ],
    }
}
