//! The printer: [`McInst`] to envydis's text (`envydis -n -m g80`), word for word: the
//! tokens of the encoding's atoms joined by single spaces, the multiply of a multiply-add
//! in parentheses, a predicate as `(cond $cN)` after `exit`/`join`.

use super::encode::select;
use super::table::{Atom, Slot, op_name};
use super::{Form, McInst, Mods, Operand};

/// The envydis text of `inst`. An instruction no row can encode prints as `???` with the
/// reason (the encoder reports the same error).
pub fn print(inst: &McInst) -> String {
    let row = match select(inst, None) {
        Ok((row, _)) => row,
        Err(e) => return format!("??? {} [{e}]", op_name(inst.op)),
    };
    let mut tokens: Vec<String> = Vec::new();
    if inst.form == Form::Long && !row.control {
        if inst.exit {
            tokens.push("exit".into());
        }
        if inst.join {
            tokens.push("join".into());
        }
    }
    if let Some(p) = inst.pred {
        tokens.push(match p.cond {
            super::Cond::Never => "(never)".into(),
            c => format!("({} $c{})", c.name(), p.reg),
        });
    }
    // Set by `Atom::Open`: the next token starts the parenthesised sub-instruction.
    let mut open = false;
    let push = |tokens: &mut Vec<String>, open: &mut bool, t: String| {
        tokens.push(if std::mem::take(open) {
            format!("({t}")
        } else {
            t
        });
    };
    for atom in &row.atoms {
        match *atom {
            Atom::Name(n) => push(&mut tokens, &mut open, n.into()),
            Atom::Open => open = true,
            Atom::Close => {
                if let Some(last) = tokens.last_mut() {
                    last.push(')');
                }
            }
            Atom::Flag(m, _, _) => {
                if inst.mods.contains(m) {
                    push(&mut tokens, &mut open, mod_name(m).into());
                }
            }
            Atom::Fixed(m) => push(&mut tokens, &mut open, mod_name(m).into()),
            Atom::Type(slot, _) | Atom::TypeBit(slot, ..) => {
                let ty = match slot {
                    Slot::Ty => inst.ty,
                    Slot::SrcTy => inst.src_ty,
                };
                if let Some(t) = ty {
                    push(&mut tokens, &mut open, t.name().into());
                }
            }
            Atom::Round(_) => {
                if let Some(r) = inst.round {
                    push(&mut tokens, &mut open, r.name().into());
                }
            }
            Atom::Cmp { .. } => {
                if let Some(c) = inst.cmp {
                    push(&mut tokens, &mut open, c.name().into());
                }
            }
            Atom::CDst | Atom::CDstAlways => {
                if let Some(c) = inst.cdst {
                    push(&mut tokens, &mut open, format!("$c{c}"));
                }
            }
            Atom::Dst(_) => {
                if let Some(o) = inst.dst {
                    push(&mut tokens, &mut open, operand(o));
                }
            }
            Atom::Src(i, _) => {
                if let Some(o) = inst.src[i as usize] {
                    push(&mut tokens, &mut open, operand(o));
                }
            }
        }
    }
    tokens.join(" ")
}

fn mod_name(m: Mods) -> &'static str {
    match m {
        Mods::SAT => "sat",
        Mods::NEG0 | Mods::NEG1 | Mods::NEG2 => "neg",
        Mods::ABS0 | Mods::ABS1 => "abs",
        Mods::NOT0 | Mods::NOT1 => "not",
        Mods::HIGH => "high",
        Mods::INC => "inc",
        Mods::WAIT => "wait",
        Mods::LOCK => "lock",
        Mods::UNLOCK => "unlock",
        Mods::CENT => "cent",
        Mods::FLAT => "flat",
        _ => "?",
    }
}

/// `$aN+offset` as envydis writes an address: the register alone when the offset is 0, the
/// offset alone without a register.
fn address(areg: u8, offset: u32) -> String {
    match (areg, offset) {
        (0, o) => format!("{o:#x}"),
        (a, 0) => format!("$a{a}"),
        (a, o) => format!("$a{a}+{o:#x}"),
    }
}

/// The envydis text of an operand.
pub fn operand(o: Operand) -> String {
    match o {
        Operand::R(n) => format!("$r{n}"),
        Operand::H { reg, hi } => format!("$r{reg}{}", if hi { 'h' } else { 'l' }),
        Operand::D(n) => format!("$r{n}d"),
        Operand::Q(n) => format!("$r{n}q"),
        Operand::Discard => "#".into(),
        Operand::Imm(v) => format!("{v:#x}"),
        Operand::C(n) => format!("$c{n}"),
        // envydis prints the zero register `$a0` as the number it reads.
        Operand::A(0) => "0x0".into(),
        Operand::A(n) => format!("$a{n}"),
        Operand::SReg(s) => format!("${}", s.name()),
        Operand::Shared { ty, areg, offset } => {
            format!("{} s[{}]", ty.name(), address(areg, offset))
        }
        Operand::Const {
            space,
            areg,
            offset,
        } => format!("c{space}[{}]", address(areg, offset)),
        Operand::Global { space, addr } => format!("g{space}[$r{addr}]"),
        Operand::Local { areg, offset } => format!("l[{}]", address(areg, offset)),
        Operand::Attr { offset } => format!("a[{offset:#x}]"),
        Operand::Varying { areg, offset } => format!("v[{}]", address(areg, offset)),
        Operand::Out { areg, offset } => format!("o[{}]", address(areg, offset)),
        Operand::Target(addr) => format!("{addr:#x}"),
    }
}
