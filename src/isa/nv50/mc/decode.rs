//! The decoder: words to [`McInst`], the inverse of `encode.rs` over the same table. A
//! word decodes with the first row whose fixed bits match and whose fields hold operands
//! we know, and only if encoding the result gives the same bits back: a set bit no field
//! reads is an error, never silently dropped.

use std::fmt;

use super::encode::select;
use super::fields::get;
use super::table::{Atom, RoundField, Row, Slot, rows};
use super::{Cond, Form, McInst, Pred, Program, Round, Variant};

/// Why some words are not an instruction we know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The instruction at word `offset` needs more words than there are.
    Truncated { offset: usize },
    /// A long instruction at an odd word `offset` (long instructions are 8-byte aligned).
    Misaligned { offset: usize },
    /// The bytes are not a whole number of words.
    PartialWord { len: usize },
    /// No encoding we know matches the instruction at word `offset`.
    Unknown { offset: usize, words: Vec<u32> },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { offset } => {
                write!(f, "truncated instruction at word {offset}")
            }
            DecodeError::Misaligned { offset } => {
                write!(f, "long instruction at odd word {offset}")
            }
            DecodeError::PartialWord { len } => write!(f, "{len} bytes are not whole words"),
            DecodeError::Unknown { offset, words } => {
                let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
                write!(f, "unknown instruction {} at word {offset}", hex.join(" "))
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes a whole code segment of a `program`: each instruction with its offset in bytes.
pub fn decode(
    words: &[u32],
    variant: Variant,
    program: Program,
) -> Result<Vec<(usize, McInst)>, DecodeError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (inst, n) = decode_one(&words[i..], variant, program).map_err(|e| match e {
            DecodeError::Truncated { .. } => DecodeError::Truncated { offset: i },
            DecodeError::Unknown { words, .. } => DecodeError::Unknown { offset: i, words },
            e => e,
        })?;
        if n == 2 && i % 2 == 1 {
            return Err(DecodeError::Misaligned { offset: i });
        }
        out.push((i * 4, inst));
        i += n;
    }
    Ok(out)
}

/// [`decode`] on little-endian bytes.
pub fn decode_bytes(
    bytes: &[u8],
    variant: Variant,
    program: Program,
) -> Result<Vec<(usize, McInst)>, DecodeError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(DecodeError::PartialWord { len: bytes.len() });
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    decode(&words, variant, program)
}

/// Decodes the instruction at the start of `words` in a `program`: the instruction and its
/// size in words.
pub fn decode_one(
    words: &[u32],
    variant: Variant,
    program: Program,
) -> Result<(McInst, usize), DecodeError> {
    let first = *words.first().ok_or(DecodeError::Truncated { offset: 0 })?;
    let n = if first & 1 == 0 { 1 } else { 2 };
    if words.len() < n {
        return Err(DecodeError::Truncated { offset: 0 });
    }
    let w = if n == 1 {
        first as u64
    } else {
        (words[1] as u64) << 32 | first as u64
    };
    for row in rows() {
        if w & row.mask != row.value || variant < row.min {
            continue;
        }
        let Some(inst) = decode_row(w, row, program).filter(|i| program.allows(i)) else {
            continue;
        };
        // Only what encodes back to the same bits is decoded: unknown bits are errors.
        if let Ok((_, back)) = select(&inst, Some(variant))
            && back == w
        {
            return Ok((inst, n));
        }
    }
    Err(DecodeError::Unknown {
        offset: 0,
        words: words[..n].to_vec(),
    })
}

fn decode_row(w: u64, row: &Row, program: Program) -> Option<McInst> {
    let mut inst = McInst::new(row.op, row.form);
    let long = row.form == Form::Long;
    if long && !row.control {
        match get(w, 32, 2) {
            0 => {}
            1 => inst.exit = true,
            2 => inst.join = true,
            _ => return None,
        }
    }
    if row.pred {
        let cond = Cond::from_code(get(w, 39, 5) as u32)?;
        let reg = if cond == Cond::Never {
            0
        } else {
            get(w, 44, 2) as u8
        };
        if cond != Cond::Always {
            inst.pred = Some(Pred { cond, reg });
        }
    }
    for atom in &row.atoms {
        match *atom {
            Atom::Name(_) | Atom::Open | Atom::Close => {}
            Atom::Flag(m, bit, _) => {
                if get(w, bit, 1) == 1 {
                    inst.mods |= m;
                }
            }
            Atom::Fixed(m) => inst.mods |= m,
            Atom::Type(slot, t) => set_ty(&mut inst, slot, t),
            Atom::TypeBit(slot, bit, t0, t1) => {
                set_ty(&mut inst, slot, if get(w, bit, 1) == 1 { t1 } else { t0 })
            }
            Atom::Round(field) => {
                let rounds = [
                    Round::Rn,
                    Round::Rm,
                    Round::Rp,
                    Round::Rz,
                    Round::Rni,
                    Round::Rmi,
                    Round::Rpi,
                    Round::Rzi,
                ];
                inst.round = Some(match field {
                    RoundField::RnRz(pos) => match get(w, pos, 2) {
                        0 => Round::Rn,
                        3 => Round::Rz,
                        _ => return None,
                    },
                    RoundField::Rnd(pos) => rounds[get(w, pos, 2) as usize],
                    RoundField::Rint(pos) => rounds[4 + get(w, pos, 2) as usize],
                });
            }
            Atom::Cmp { pos, int } => {
                inst.cmp = Some(if int {
                    match get(w, pos, 3) {
                        7 => Cond::Always,
                        c => Cond::from_code(c as u32)?,
                    }
                } else {
                    Cond::from_code(get(w, pos, 4) as u32)?
                });
            }
            Atom::CDst => {
                if get(w, 38, 1) == 1 {
                    inst.cdst = Some(get(w, 36, 2) as u8);
                }
            }
            Atom::CDstAlways => inst.cdst = Some(get(w, 36, 2) as u8),
            Atom::Dst(field) => inst.dst = Some(field.decode(w, None, program)?),
            Atom::Src(i, field) => inst.src[i as usize] = Some(field.decode(w, inst.dst, program)?),
        }
    }
    Some(inst)
}

fn set_ty(inst: &mut McInst, slot: Slot, t: super::Ty) {
    match slot {
        Slot::Ty => inst.ty = Some(t),
        Slot::SrcTy => inst.src_ty = Some(t),
    }
}
