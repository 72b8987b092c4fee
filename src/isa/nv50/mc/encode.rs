//! The encoder: [`McInst`] to words, by walking the atoms of the first table row of its
//! operation and form that can hold it.

use super::fields::Bits;
use super::table::{Atom, RoundField, Row, Slot, op_name, rows_of};
use super::{Cond, Form, McInst, Mods, Round, Variant};

/// The encoding of `inst` on `variant`: one word (short form) or two.
pub fn encode(inst: &McInst, variant: Variant) -> Result<Vec<u32>, String> {
    let (_, w) = select(inst, Some(variant))?;
    Ok(match inst.form {
        Form::Short => vec![w as u32],
        Form::Imm | Form::Long => vec![w as u32, (w >> 32) as u32],
    })
}

/// The row that encodes `inst` (on `variant`, or on any variant), with the encoding.
pub(crate) fn select(
    inst: &McInst,
    variant: Option<Variant>,
) -> Result<(&'static Row, u64), String> {
    let name = op_name(inst.op);
    let mut errors: Vec<String> = Vec::new();
    for row in rows_of(inst.op, inst.form) {
        match encode_row(inst, row, variant) {
            Ok(w) => return Ok((row, w)),
            Err(e) => {
                if !errors.contains(&e) {
                    errors.push(e);
                }
            }
        }
    }
    if errors.is_empty() {
        return Err(format!("{name} has no {:?} form", inst.form));
    }
    Err(format!(
        "{name} ({:?} form): {}",
        inst.form,
        errors.join("; ")
    ))
}

/// Which parts of the instruction the row's atoms have consumed.
#[derive(Default)]
struct Used {
    dst: bool,
    src: [bool; 4],
    cdst: bool,
    ty: bool,
    src_ty: bool,
    round: bool,
    cmp: bool,
    mods: Mods,
}

fn encode_row(inst: &McInst, row: &Row, variant: Option<Variant>) -> Result<u64, String> {
    if let Some(v) = variant
        && v < row.min
    {
        return Err(format!("needs {:?} or later", row.min));
    }
    let long = inst.form == Form::Long;
    let mut b = Bits::new(row.value);
    // Claim the fixed bits, so no field can overwrite them.
    for pos in 0..64 {
        if row.mask >> pos & 1 == 1 {
            b.put(pos, 1, row.value >> pos & 1)?;
        }
    }
    let mut used = Used::default();
    if long && !row.control {
        match (inst.exit, inst.join) {
            (false, false) => b.put(32, 2, 0)?,
            (true, false) => b.put(32, 2, 1)?,
            (false, true) => b.put(32, 2, 2)?,
            (true, true) => return Err("exit and join at once".into()),
        }
    } else if inst.exit || inst.join {
        return Err("exit/join need a long non-control instruction".into());
    }
    if row.pred {
        match inst.pred {
            None => b.put(39, 5, Cond::Always.code() as u64)?,
            Some(p) => {
                if p.cond == Cond::Always {
                    return Err("an always-true predicate is written as none".into());
                }
                b.put(39, 5, p.cond.code() as u64)?;
                if p.cond == Cond::Never {
                    if p.reg != 0 {
                        return Err("a never predicate reads no register".into());
                    }
                } else {
                    b.put(44, 2, p.reg as u64)?;
                }
            }
        }
    } else if inst.pred.is_some() {
        return Err("no predicate in this form".into());
    }
    for atom in &row.atoms {
        encode_atom(*atom, inst, &mut b, &mut used, variant)?;
    }
    let unused = [
        (inst.dst.is_some() && !used.dst, "a destination"),
        (inst.cdst.is_some() && !used.cdst, "a $c output"),
        (inst.ty.is_some() && !used.ty, "a type"),
        (inst.src_ty.is_some() && !used.src_ty, "a source type"),
        (inst.round.is_some() && !used.round, "a rounding mode"),
        (inst.cmp.is_some() && !used.cmp, "a comparison"),
        (inst.mods.0 & !used.mods.0 != 0, "these modifiers"),
    ];
    if let Some((_, what)) = unused.iter().find(|(bad, _)| *bad) {
        return Err(format!(
            "takes no {}",
            what.trim_start_matches("a ").trim_start_matches("these ")
        ));
    }
    for (i, s) in inst.src.iter().enumerate() {
        if s.is_some() && !used.src[i] {
            return Err(format!("has no source {i}"));
        }
    }
    Ok(b.w)
}

fn encode_atom(
    atom: Atom,
    inst: &McInst,
    b: &mut Bits,
    used: &mut Used,
    variant: Option<Variant>,
) -> Result<(), String> {
    match atom {
        Atom::Name(_) | Atom::Open | Atom::Close => Ok(()),
        Atom::Flag(m, bit, min) => {
            used.mods |= m;
            let on = inst.mods.contains(m);
            if on
                && let Some(v) = variant
                && v < min
            {
                return Err(format!("this modifier needs {min:?} or later"));
            }
            b.put(bit, 1, on as u64)
        }
        Atom::Fixed(m) => {
            used.mods |= m;
            if inst.mods.contains(m) {
                Ok(())
            } else {
                Err("a modifier the encoding implies is missing".into())
            }
        }
        Atom::Type(slot, t) => {
            let have = take_ty(inst, slot, used);
            if have == Some(t) {
                Ok(())
            } else {
                Err(format!("type {} expected", t.name()))
            }
        }
        Atom::TypeBit(slot, bit, t0, t1) => match take_ty(inst, slot, used) {
            Some(t) if t == t0 => b.put(bit, 1, 0),
            Some(t) if t == t1 => b.put(bit, 1, 1),
            _ => Err(format!("type {} or {} expected", t0.name(), t1.name())),
        },
        Atom::Round(field) => {
            used.round = true;
            let r = inst.round.ok_or("a rounding mode is required")?;
            let (pos, code) = match (field, r) {
                (RoundField::RnRz(pos), Round::Rn) => (pos, 0),
                (RoundField::RnRz(pos), Round::Rz) => (pos, 3),
                (RoundField::Rnd(pos), Round::Rn | Round::Rm | Round::Rp | Round::Rz) => {
                    (pos, r as u64)
                }
                (RoundField::Rint(pos), Round::Rni | Round::Rmi | Round::Rpi | Round::Rzi) => {
                    (pos, r as u64 - 4)
                }
                _ => return Err(format!("rounding mode {} not available", r.name())),
            };
            b.put(pos, 2, code)
        }
        Atom::Cmp { pos, int } => {
            used.cmp = true;
            let c = inst.cmp.ok_or("a comparison is required")?;
            match (int, c.code()) {
                (true, code @ 0..=6) => b.put(pos, 3, code as u64),
                (true, 15) => b.put(pos, 3, 7),
                (false, code @ 0..=15) => b.put(pos, 4, code as u64),
                _ => Err(format!("comparison {} not available", c.name())),
            }
        }
        Atom::CDst => {
            used.cdst = true;
            match inst.cdst {
                Some(c) => {
                    b.put(36, 2, c as u64)?;
                    b.put(38, 1, 1)
                }
                None => b.put(38, 1, 0),
            }
        }
        Atom::CDstAlways => {
            used.cdst = true;
            let c = inst.cdst.ok_or("a $c output is required")?;
            b.put(36, 2, c as u64)?;
            b.put(38, 1, 1)
        }
        Atom::Dst(field) => {
            used.dst = true;
            let op = inst.dst.ok_or("a destination is required")?;
            field.encode(op, inst.dst, b)
        }
        Atom::Src(i, field) => {
            let i = i as usize;
            used.src[i] = true;
            let op = inst.src[i].ok_or_else(|| format!("source {i} is required"))?;
            field.encode(op, inst.dst, b)
        }
    }
}

fn take_ty(inst: &McInst, slot: Slot, used: &mut Used) -> Option<super::Ty> {
    match slot {
        Slot::Ty => {
            used.ty = true;
            inst.ty
        }
        Slot::SrcTy => {
            used.src_ty = true;
            inst.src_ty
        }
    }
}
