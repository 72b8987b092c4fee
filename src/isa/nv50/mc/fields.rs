//! Operand fields: how each [`Field`] of the table holds an [`Operand`], both ways. The
//! layouts are envydis's (`envydis/g80.c`, "Register fields" and "Memory fields").

use super::table::{Field, W};
use super::{Operand, Program, SReg, Ty};

/// An instruction under construction: its bits, and which bits a field has claimed. Two
/// fields may claim the same bits only with the same value (the `$c` field that is both
/// the predicate's register and `addc`'s carry; the `$a` field of memory operands).
pub(crate) struct Bits {
    pub w: u64,
    used: u64,
}

impl Bits {
    pub fn new(w: u64) -> Bits {
        Bits { w, used: 0 }
    }

    pub fn put(&mut self, pos: u8, len: u8, val: u64) -> Result<(), String> {
        let mask = ((1u64 << len) - 1) << pos;
        if val >> len != 0 {
            return Err(format!("{val:#x} does not fit in {len} bits"));
        }
        let v = val << pos;
        if self.used & mask & (self.w ^ v) != 0 {
            return Err(format!("conflicting values for bits {pos}..{}", pos + len));
        }
        self.w = (self.w & !mask) | v;
        self.used |= mask;
        Ok(())
    }
}

pub(crate) fn get(w: u64, pos: u8, len: u8) -> u64 {
    (w >> pos) & ((1u64 << len) - 1)
}

/// Shared-memory access types of the source fields (`tabss`, `tabrealls`): 2 bits.
const SHARED_TYS: [Ty; 4] = [Ty::U8, Ty::U16, Ty::S16, Ty::B32];

fn reg_num(op: Operand, w: W, bits: u8) -> Result<u64, String> {
    let n = match (op, w) {
        (Operand::R(n), W::R) => n as u64,
        (Operand::H { reg, hi }, W::H) => 2 * reg as u64 + hi as u64,
        (Operand::D(n), W::D) if n.is_multiple_of(2) => n as u64,
        (Operand::Q(n), W::Q) if n.is_multiple_of(4) => n as u64,
        (Operand::D(_) | Operand::Q(_), _) => return Err(format!("{op:?} is not aligned")),
        _ => return Err(format!("{op:?} is not a {w:?} register")),
    };
    if n >> bits != 0 {
        return Err(format!("{op:?} is out of the field's range"));
    }
    Ok(n)
}

fn reg_of(n: u64, w: W) -> Option<Operand> {
    let n = n as u8;
    match w {
        W::R => Some(Operand::R(n)),
        W::H => Some(Operand::H {
            reg: n / 2,
            hi: n % 2 == 1,
        }),
        W::D => n.is_multiple_of(2).then_some(Operand::D(n)),
        W::Q => n.is_multiple_of(4).then_some(Operand::Q(n)),
    }
}

fn reg_bytes(w: W) -> u32 {
    match w {
        W::H => 2,
        W::R => 4,
        W::D => 8,
        W::Q => 16,
    }
}

/// A scaled offset: `offset` bytes as a count of `size`-byte units in `bits` bits.
fn scaled(offset: u32, size: u32, bits: u8) -> Result<u64, String> {
    if !offset.is_multiple_of(size) {
        return Err(format!("offset {offset:#x} is not a multiple of {size}"));
    }
    let units = (offset / size) as u64;
    if units >> bits != 0 {
        return Err(format!("offset {offset:#x} is out of range"));
    }
    Ok(units)
}

/// The 3-bit `$a` field of long forms (bits 26–27 and 34), or the 2-bit one of short and
/// immediate forms (bits 26–27).
fn put_areg(b: &mut Bits, areg: u8, long: bool) -> Result<(), String> {
    let a = areg as u64;
    if long {
        b.put(26, 2, a & 3)?;
        b.put(34, 1, a >> 2)
    } else {
        b.put(26, 2, a)
    }
}

fn get_areg(w: u64, long: bool) -> u8 {
    let mut a = get(w, 26, 2);
    if long {
        a |= get(w, 34, 1) << 2;
    }
    a as u8
}

impl Field {
    /// Encodes `op` into `b`; `dst` is the instruction's destination (for
    /// [`Field::SameAsDst`]).
    pub fn encode(self, op: Operand, dst: Option<Operand>, b: &mut Bits) -> Result<(), String> {
        use Operand as O;
        match (self, op) {
            (Field::Reg { pos, bits, w }, op) => b.put(pos, bits, reg_num(op, w, bits)?),
            (Field::LDst(_), O::Discard) => {
                b.put(2, 7, 127)?;
                b.put(35, 1, 1)
            }
            // Any long destination can be an output word instead (`g80.c` `tablldst`,
            // `isa.rst` "LDST"); field 127 is the discard, so `o[0x1fc]` is not reachable.
            (Field::LDst(W::R), O::Out { areg: 0, offset }) if offset != 0x1fc => {
                b.put(2, 7, scaled(offset, 4, 7)?)?;
                b.put(35, 1, 1)
            }
            (Field::LDst(w), op) => {
                b.put(35, 1, 0)?;
                b.put(2, 7, reg_num(op, w, 7)?)
            }
            (Field::SSrc1(_) | Field::ISrc1(_), O::Shared { ty, areg, offset }) => {
                let t = SHARED_TYS
                    .iter()
                    .position(|&t| t == ty)
                    .ok_or(format!("s[] cannot be read as {}", ty.name()))?;
                b.put(24, 1, 1)?;
                b.put(25, 1, 0)?;
                if self == Field::SSrc1(W::R) || self == Field::SSrc1(W::H) {
                    // Bit 23 would make source 2 a constant: both at once do not exist.
                    b.put(23, 1, 0)?;
                }
                b.put(13, 2, t as u64)?;
                b.put(9, 4, scaled(offset, ty.bytes(), 4)?)?;
                put_areg(b, areg, false)
            }
            // `a[]` takes the bits of `s[]` in vertex programs, all six for the offset in
            // words, without `$a` (`g80.c` `tabss`, `samem_m`); immediate forms have no
            // `a[]` (`tabis`).
            (Field::SSrc1(_), O::Attr { offset }) => {
                b.put(24, 1, 1)?;
                b.put(23, 1, 0)?;
                b.put(25, 1, 0)?;
                b.put(9, 6, scaled(offset, 4, 6)?)
            }
            (Field::SSrc1(w) | Field::ISrc1(w), op) => {
                b.put(24, 1, 0)?;
                b.put(9, 6, reg_num(op, w, 6)?)
            }
            (
                Field::SSrc2(w),
                O::Const {
                    space,
                    areg,
                    offset,
                },
            ) => {
                if space > 1 {
                    return Err("short forms read only c0[] and c1[]".into());
                }
                b.put(23, 1, 1)?;
                b.put(24, 1, 0)?;
                b.put(25, 1, 0)?;
                b.put(21, 1, space as u64)?;
                b.put(16, 5, scaled(offset, reg_bytes(w), 5)?)?;
                put_areg(b, areg, false)
            }
            (Field::SSrc2(w), op) => {
                b.put(23, 1, 0)?;
                b.put(16, 6, reg_num(op, w, 6)?)
            }
            (Field::LSrc1(_), O::Shared { ty, areg, offset }) => {
                let t = SHARED_TYS
                    .iter()
                    .position(|&t| t == ty)
                    .ok_or(format!("s[] cannot be read as {}", ty.name()))?;
                b.put(53, 1, 1)?;
                b.put(25, 1, 0)?;
                b.put(14, 2, t as u64)?;
                b.put(9, 5, scaled(offset, ty.bytes(), 5)?)?;
                put_areg(b, areg, true)
            }
            // Long: seven bits of offset in words (`tabrealls`, `lamem_m`).
            (Field::LSrc1(_), O::Attr { offset }) => {
                b.put(53, 1, 1)?;
                b.put(9, 7, scaled(offset, 4, 7)?)
            }
            (Field::LSrc1(w), op) => {
                b.put(53, 1, 0)?;
                b.put(9, 7, reg_num(op, w, 7)?)
            }
            (
                Field::LSrc2(w) | Field::LSrc3(w),
                O::Const {
                    space,
                    areg,
                    offset,
                },
            ) => {
                let (flag, other, pos) = if matches!(self, Field::LSrc2(_)) {
                    (23, 24, 16)
                } else {
                    (24, 23, 46)
                };
                b.put(flag, 1, 1)?;
                b.put(other, 1, 0)?;
                b.put(25, 1, 0)?;
                b.put(54, 4, space as u64)?;
                b.put(pos, 7, scaled(offset, reg_bytes(w), 7)?)?;
                // `$a` indexes only the first memory operand: after an `s[]` source 1, the
                // constant is unindexed (`L2CONST32NA`).
                if b.w >> 53 & 1 == 1 {
                    if areg != 0 {
                        return Err("only the first memory operand can use $a".into());
                    }
                    Ok(())
                } else {
                    put_areg(b, areg, true)
                }
            }
            (Field::LSrc2(w), op) => {
                b.put(23, 1, 0)?;
                b.put(16, 7, reg_num(op, w, 7)?)
            }
            (Field::LSrc3(w), op) => {
                b.put(24, 1, 0)?;
                b.put(46, 7, reg_num(op, w, 7)?)
            }
            (Field::SameAsDst, op) => {
                if Some(op) == dst {
                    Ok(())
                } else {
                    Err("the addend must be the destination".into())
                }
            }
            (Field::C0, O::C(0)) => Ok(()),
            (Field::C0, _) => Err("the carry must be $c0".into()),
            (Field::CondReg, O::C(c)) => b.put(44, 2, c as u64),
            (Field::CDstReg, O::C(c)) => {
                b.put(36, 2, c as u64)?;
                b.put(38, 1, 1)
            }
            (Field::AReg, O::A(a)) => put_areg(b, a, true),
            (Field::ADst, O::A(a)) if a != 0 => b.put(2, 3, a as u64),
            (Field::SReg, O::SReg(s)) => b.put(46, 4, s as u64),
            (Field::Imm32, O::Imm(v)) => {
                b.put(16, 6, v as u64 & 0x3f)?;
                b.put(34, 26, v as u64 >> 6)
            }
            (Field::Imm { pos, bits }, O::Imm(v)) => b.put(pos, bits, v as u64),
            (Field::ShCnt(_), O::Imm(v)) => {
                b.put(52, 1, 1)?;
                b.put(16, 7, v as u64)
            }
            (Field::ShCnt(w), op) => {
                b.put(52, 1, 0)?;
                Field::LSrc2(w).encode(op, dst, b)
            }
            (Field::Global { space_pos }, O::Global { space, addr }) => {
                b.put(space_pos, 4, space as u64)?;
                b.put(9, 7, addr as u64)
            }
            (Field::Local, O::Local { areg, offset }) => {
                b.put(9, 16, offset as u64)?;
                put_areg(b, areg, true)
            }
            (Field::SharedWide(fty), O::Shared { ty, areg, offset }) if ty == fty => {
                let size = ty.bytes();
                b.put(
                    9,
                    16 - size.trailing_zeros() as u8,
                    scaled(offset, size, 16 - size.trailing_zeros() as u8)?,
                )?;
                put_areg(b, areg, true)
            }
            (
                Field::ConstWide(ty),
                O::Const {
                    space,
                    areg,
                    offset,
                },
            ) => {
                let size = ty.bytes();
                let bits = 16 - size.trailing_zeros() as u8;
                b.put(54, 4, space as u64)?;
                b.put(9, bits, scaled(offset, size, bits)?)?;
                put_areg(b, areg, true)
            }
            (Field::Target, O::Target(addr)) => {
                if addr % 4 != 0 || addr >> 24 != 0 {
                    return Err(format!("code address {addr:#x} is not encodable"));
                }
                let words = (addr >> 2) as u64;
                b.put(11, 16, words & 0xffff)?;
                b.put(46, 6, words >> 16)
            }
            (Field::StData, op @ O::H { .. }) => {
                b.put(53, 1, 0)?;
                b.put(46, 7, reg_num(op, W::H, 7)?)
            }
            (Field::StData, op) => {
                b.put(53, 1, 1)?;
                b.put(46, 7, reg_num(op, W::R, 7)?)
            }
            (Field::Varying { long }, O::Varying { areg, offset }) => {
                b.put(16, 8, scaled(offset, 4, 8)?)?;
                put_areg(b, areg, long)
            }
            (Field::OutWide, O::Out { areg, offset }) => {
                b.put(9, 14, scaled(offset, 4, 14)?)?;
                put_areg(b, areg, true)
            }
            (f, op) => Err(format!("{op:?} cannot go in {f:?}")),
        }
    }

    /// Decodes the operand of this field from `w` in a `program`; `dst` is the instruction's
    /// destination (for [`Field::SameAsDst`]). `None`: the field holds no operand we know.
    pub fn decode(self, w: u64, dst: Option<Operand>, program: Program) -> Option<Operand> {
        use Operand as O;
        match self {
            Field::Reg { pos, bits, w: rw } => reg_of(get(w, pos, bits), rw),
            Field::LDst(rw) => match (get(w, 35, 1), get(w, 2, 7)) {
                (1, 127) if rw != W::D && rw != W::Q => Some(O::Discard),
                (1, n) if rw == W::R => Some(O::Out {
                    areg: 0,
                    offset: n as u32 * 4,
                }),
                (1, _) => None,
                (_, n) => reg_of(n, rw),
            },
            Field::ISrc1(_) if get(w, 24, 1) == 1 && program != Program::Compute => None,
            Field::SSrc1(_) if get(w, 24, 1) == 1 && program != Program::Compute => {
                (program == Program::Vertex && get(w, 23, 1) == 0).then(|| O::Attr {
                    offset: get(w, 9, 6) as u32 * 4,
                })
            }
            Field::LSrc1(_) if get(w, 53, 1) == 1 && program != Program::Compute => {
                (program == Program::Vertex).then(|| O::Attr {
                    offset: get(w, 9, 7) as u32 * 4,
                })
            }
            Field::SSrc1(rw) | Field::ISrc1(rw) => {
                if get(w, 24, 1) == 1 {
                    let ty = SHARED_TYS[get(w, 13, 2) as usize];
                    let offset = get(w, 9, 4) as u32 * ty.bytes();
                    Some(O::Shared {
                        ty,
                        areg: get_areg(w, false),
                        offset,
                    })
                } else {
                    reg_of(get(w, 9, 6), rw)
                }
            }
            Field::SSrc2(rw) => {
                if get(w, 23, 1) == 1 {
                    let offset = get(w, 16, 5) as u32 * reg_bytes(rw);
                    Some(O::Const {
                        space: get(w, 21, 1) as u8,
                        areg: get_areg(w, false),
                        offset,
                    })
                } else {
                    reg_of(get(w, 16, 6), rw)
                }
            }
            Field::LSrc1(rw) => {
                if get(w, 53, 1) == 1 {
                    let ty = SHARED_TYS[get(w, 14, 2) as usize];
                    let offset = get(w, 9, 5) as u32 * ty.bytes();
                    Some(O::Shared {
                        ty,
                        areg: get_areg(w, true),
                        offset,
                    })
                } else {
                    reg_of(get(w, 9, 7), rw)
                }
            }
            Field::LSrc2(rw) | Field::LSrc3(rw) => {
                let (flag, pos) = if matches!(self, Field::LSrc2(_)) {
                    (23, 16)
                } else {
                    (24, 46)
                };
                if get(w, flag, 1) == 1 {
                    let areg = if get(w, 53, 1) == 1 {
                        0
                    } else {
                        get_areg(w, true)
                    };
                    let offset = get(w, pos, 7) as u32 * reg_bytes(rw);
                    Some(O::Const {
                        space: get(w, 54, 4) as u8,
                        areg,
                        offset,
                    })
                } else {
                    reg_of(get(w, pos, 7), rw)
                }
            }
            Field::SameAsDst => dst,
            Field::C0 => Some(O::C(0)),
            Field::CondReg => Some(O::C(get(w, 44, 2) as u8)),
            Field::CDstReg => Some(O::C(get(w, 36, 2) as u8)),
            Field::AReg => Some(O::A(get_areg(w, true))),
            Field::ADst => Some(O::A(get(w, 2, 3) as u8)),
            Field::SReg => {
                let n = get(w, 46, 4);
                SReg::ALL.into_iter().find(|&s| s as u64 == n).map(O::SReg)
            }
            Field::Imm32 => Some(O::Imm((get(w, 16, 6) | get(w, 34, 26) << 6) as u32)),
            Field::Imm { pos, bits } => Some(O::Imm(get(w, pos, bits) as u32)),
            Field::ShCnt(rw) => {
                if get(w, 52, 1) == 1 {
                    Some(O::Imm(get(w, 16, 7) as u32))
                } else {
                    Field::LSrc2(rw).decode(w, dst, program)
                }
            }
            Field::Global { space_pos } => Some(O::Global {
                space: get(w, space_pos, 4) as u8,
                addr: get(w, 9, 7) as u8,
            }),
            Field::Local => Some(O::Local {
                areg: get_areg(w, true),
                offset: get(w, 9, 16) as u32,
            }),
            Field::SharedWide(ty) => {
                let size = ty.bytes();
                let units = get(w, 9, 16 - size.trailing_zeros() as u8) as u32;
                Some(O::Shared {
                    ty,
                    areg: get_areg(w, true),
                    offset: units * size,
                })
            }
            Field::ConstWide(ty) => {
                let size = ty.bytes();
                let units = get(w, 9, 16 - size.trailing_zeros() as u8) as u32;
                Some(O::Const {
                    space: get(w, 54, 4) as u8,
                    areg: get_areg(w, true),
                    offset: units * size,
                })
            }
            Field::Target => Some(O::Target(
                ((get(w, 11, 16) | get(w, 46, 6) << 16) << 2) as u32,
            )),
            Field::StData => {
                let n = get(w, 46, 7);
                reg_of(n, if get(w, 53, 1) == 1 { W::R } else { W::H })
            }
            Field::Varying { long } => Some(O::Varying {
                areg: get_areg(w, long),
                offset: get(w, 16, 8) as u32 * 4,
            }),
            Field::OutWide => Some(O::Out {
                areg: get_areg(w, true),
                offset: get(w, 9, 14) as u32 * 4,
            }),
        }
    }
}
