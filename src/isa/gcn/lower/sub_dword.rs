//! Bytes and words of 32-bit values: bit fields written as shifts, masks, extensions and
//! narrow types, selected with one `v_bfe` (every generation) or folded into the VALU
//! instruction that reads or writes them as SDWA selects (gfx8, gfx9; GCN3 ISA 12.7
//! "VOP_SDWA", `docs/isa-notes.md` "SDWA and DPP").

use super::IsleContext;
use super::isle::generated::Context as _;
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::isa::gcn::inst::{Inst, Src, without_carry};
use crate::isa::gcn::mc::{DstUnused, Gen, Op, Sdwa, SdwaSel};
use crate::isa::gcn::regs::{SGPR, VGPR};
use crate::machinst::RegClass;
use smallvec::SmallVec;

/// How many definitions [`IsleContext::known_zeros`] follows.
const ZEROS_DEPTH: u32 = 4;

/// `width` bits of the i32 value `x` from bit `offset`, zero- or sign-extended to 32 bits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Field {
    pub x: Value,
    pub offset: u32,
    pub width: u32,
    pub signed: bool,
}

/// The SDWA select of the bits (`offset`, `width`), if there is one.
fn sel_of(offset: u32, width: u32) -> Option<SdwaSel> {
    SdwaSel::ALL
        .into_iter()
        .find(|s| s.bits() == (offset, width))
}

/// The VALU operation of a CLIF integer operation SDWA can carry (VOP2 forms with 32-bit
/// operands), and whether a narrow operand must be extended for it (and how).
fn sdwa_binop(opcode: Opcode) -> Option<(Op, Option<bool>)> {
    Some(match opcode {
        Opcode::Iadd => (Op::VAddU32, None),
        Opcode::Isub => (Op::VSubU32, None),
        Opcode::Band => (Op::VAndB32, None),
        Opcode::Bor => (Op::VOrB32, None),
        Opcode::Bxor => (Op::VXorB32, None),
        Opcode::Umin => (Op::VMinU32, Some(false)),
        Opcode::Umax => (Op::VMaxU32, Some(false)),
        Opcode::Smin => (Op::VMinI32, Some(true)),
        Opcode::Smax => (Op::VMaxI32, Some(true)),
        _ => return None,
    })
}

/// An SDWA source: a value with its select and sign extension.
type Part = (Value, SdwaSel, bool);

/// One SDWA instruction to emit, and how many instructions it saves: those of the plain
/// rules it replaces, minus itself.
struct Plan {
    op: Op,
    srcs: SmallVec<[Part; 2]>,
    dst_sel: SdwaSel,
    dst_unused: DstUnused,
    /// `UNUSED_PRESERVE`: the value whose other bits the destination keeps.
    keep: Option<Value>,
    saved: i32,
}

impl IsleContext<'_, '_> {
    fn const_u32(&self, v: Value) -> Option<u32> {
        self.const64_of(v).map(|c| c as u32)
    }

    fn binary(&mut self, v: Value) -> Option<(Opcode, [Value; 2])> {
        let inst = self.def_inst(v)?;
        match self.lower.dfg().insts[inst] {
            InstructionData::Binary { opcode, args } => Some((opcode, args)),
            _ => None,
        }
    }

    fn unary(&mut self, v: Value) -> Option<(Opcode, Value)> {
        let inst = self.def_inst(v)?;
        match self.lower.dfg().insts[inst] {
            InstructionData::Unary { opcode, arg } => Some((opcode, arg)),
            _ => None,
        }
    }

    /// `v` as a bit field of another i32 value, when instructions make it one: `band` with
    /// a mask 2^w − 1, `ushr`/`sshr` by a constant (of an `ishl` by a smaller or equal
    /// one), `uextend`/`sextend` of an i8/i16 (an `ireduce` of such a field, or the narrow
    /// value's own low bits).
    pub(super) fn field(&mut self, v: Value) -> Option<Field> {
        if self.lower.dfg().value_type(v) != types::I32 {
            return None;
        }
        match self.binary(v) {
            Some((Opcode::Band, args)) => {
                let (inner, mask) = [(args[0], args[1]), (args[1], args[0])]
                    .into_iter()
                    .find_map(|(x, m)| self.const_u32(m).map(|m| (x, m)))?;
                let width = (mask as u64 + 1).trailing_zeros();
                if mask == 0 || mask == u32::MAX || (mask as u64 + 1) != 1 << width {
                    return None;
                }
                match self.field(inner) {
                    Some(f) if width <= f.width => Some(Field {
                        width,
                        signed: false,
                        ..f
                    }),
                    _ => Some(Field {
                        x: inner,
                        offset: 0,
                        width,
                        signed: false,
                    }),
                }
            }
            Some((opcode @ (Opcode::Ushr | Opcode::Sshr), [y, amount])) => {
                let o = self.const_u32(amount)? & 31;
                if o == 0 {
                    return None;
                }
                let signed = opcode == Opcode::Sshr;
                if let Some((Opcode::Ishl, [z, a])) = self.binary(y)
                    && let Some(a) = self.const_u32(a).map(|a| a & 31)
                    && a <= o
                {
                    return Some(Field {
                        x: z,
                        offset: o - a,
                        width: 32 - o,
                        signed,
                    });
                }
                Some(Field {
                    x: y,
                    offset: o,
                    width: 32 - o,
                    signed,
                })
            }
            _ => match self.unary(v) {
                Some((Opcode::Uextend, arg)) => self.narrow_field(arg, false),
                Some((Opcode::Sextend, arg)) => self.narrow_field(arg, true),
                _ => None,
            },
        }
    }

    /// The i8/i16 value `v` extended to 32 bits as a field: of the i32 an `ireduce` takes
    /// (the field that i32 is, when it is one at least as wide), else of `v`'s own register.
    pub(super) fn narrow_field(&mut self, v: Value, signed: bool) -> Option<Field> {
        let width = self.lower.dfg().value_type(v).bits();
        if width != 8 && width != 16 {
            return None;
        }
        if let Some((Opcode::Ireduce, arg)) = self.unary(v)
            && self.lower.dfg().value_type(arg) == types::I32
        {
            let (x, offset) = match self.field(arg) {
                Some(f) if f.width >= width => (f.x, f.offset),
                _ => (arg, 0),
            };
            return Some(Field {
                x,
                offset,
                width,
                signed,
            });
        }
        Some(Field {
            x: v,
            offset: 0,
            width,
            signed,
        })
    }

    /// The bits of the i32 `v` known to be zero.
    fn known_zeros(&mut self, v: Value, depth: u32) -> u32 {
        if let Some(c) = self.const32(v) {
            return !c;
        }
        if depth == 0 {
            return 0;
        }
        if let Some(f) = self.field(v)
            && !f.signed
        {
            return !((u64::MAX >> (64 - f.width)) as u32);
        }
        match self.binary(v) {
            Some((Opcode::Band, [a, b])) => {
                self.known_zeros(a, depth - 1) | self.known_zeros(b, depth - 1)
            }
            Some((Opcode::Bor, [a, b])) => {
                self.known_zeros(a, depth - 1) & self.known_zeros(b, depth - 1)
            }
            Some((Opcode::Ishl, [a, k])) => match self.const_u32(k) {
                Some(k) => {
                    let k = k & 31;
                    (self.known_zeros(a, depth - 1) << k) | ((1u32 << k) - 1)
                }
                None => 0,
            },
            _ => 0,
        }
    }

    /// `v` as a field placed at bit `k`: `(field, k, real)` for `ishl(field, k)` (the bits
    /// shifted out dropped from the field), or a field itself (`k` = 0). `real`: the field
    /// takes an instruction of its own (else it is the low bits of a shifted value). A
    /// signed field's sign bits must reach bit 31.
    fn placed_field(&mut self, v: Value) -> Option<(Field, u32, bool)> {
        let (f, k, real) = match self.binary(v) {
            Some((Opcode::Ishl, [q, k])) => {
                let k = self.const_u32(k)? & 31;
                match self.field(q) {
                    Some(f) => (f, k, true),
                    None => {
                        let f = Field {
                            x: q,
                            offset: 0,
                            width: 32 - k,
                            signed: false,
                        };
                        (f, k, false)
                    }
                }
            }
            _ => (self.field(v)?, 0, true),
        };
        if f.signed && k + f.width < 32 {
            return None;
        }
        let width = f.width.min(32 - k);
        Some((Field { width, ..f }, k, real))
    }

    /// An SDWA source for the i32 operand `v`: a field's select, or the whole dword.
    /// Counts a folded field in `saved`.
    fn dword_part(&mut self, v: Value, saved: &mut i32) -> Part {
        match self.field(v) {
            Some(f) if f.width < 32 => match sel_of(f.offset, f.width) {
                Some(sel) => {
                    *saved += 1;
                    (f.x, sel, f.signed)
                }
                None => (v, SdwaSel::Dword, false),
            },
            _ => (v, SdwaSel::Dword, false),
        }
    }

    /// An SDWA source for the narrow operand `v` of an operation that reads it extended as
    /// `ext` says (`None`: only its low bits matter).
    fn narrow_part(&mut self, v: Value, ext: Option<bool>, saved: &mut i32) -> Part {
        let Some(f) = self.narrow_field(v, ext.unwrap_or(false)) else {
            return (v, SdwaSel::Dword, false);
        };
        // A field off the byte boundaries (`ireduce (ushr x 9)`) is no select: `v`'s own
        // low bits are.
        let (f, sel) = match sel_of(f.offset, f.width) {
            Some(sel) => (f, sel),
            None => {
                let own = Field {
                    x: v,
                    offset: 0,
                    ..f
                };
                (
                    own,
                    sel_of(0, f.width).expect("i8 and i16 are a byte and a word"),
                )
            }
        };
        match ext {
            Some(signed) => {
                *saved += 1 + (f.x != v) as i32;
                (f.x, sel, signed)
            }
            None if f.x != v => {
                *saved += 1;
                (f.x, sel, false)
            }
            None => (v, SdwaSel::Dword, false),
        }
    }

    /// The plan for `opcode(args)` of type `ty`, its result placed by `dst_sel`.
    fn binop_plan(&mut self, opcode: Opcode, args: [Value; 2], ty: ir::Type) -> Option<Plan> {
        let (op, ext) = sdwa_binop(opcode)?;
        let mut saved = 0;
        let srcs = match ty.bits() {
            32 => args.map(|a| self.dword_part(a, &mut saved)),
            8 | 16 => args.map(|a| self.narrow_part(a, ext, &mut saved)),
            _ => return None,
        };
        Some(Plan {
            op,
            srcs: srcs.into_iter().collect(),
            dst_sel: SdwaSel::Dword,
            dst_unused: DstUnused::Pad,
            keep: None,
            saved,
        })
    }

    /// The plan computing the field `f` (or, when `f` is the low bits of an operation's
    /// result, that operation) for a destination select; `real`: the field took an
    /// instruction of its own, which the plan saves.
    fn field_plan(&mut self, f: Field, real: bool) -> Option<Plan> {
        if f.offset == 0
            && let Some((opcode, args)) = self.binary(f.x)
            && let Some(plan) = self.binop_plan(opcode, args, self.lower.dfg().value_type(f.x))
        {
            return Some(Plan {
                saved: plan.saved + real as i32,
                ..plan
            });
        }
        Some(Plan {
            op: Op::VMovB32,
            srcs: [(f.x, sel_of(f.offset, f.width)?, f.signed)]
                .into_iter()
                .collect(),
            dst_sel: SdwaSel::Dword,
            dst_unused: DstUnused::Pad,
            keep: None,
            saved: real as i32 - 1,
        })
    }

    /// What SDWA instruction computes the result of `inst`, if one does with fewer
    /// instructions than the plain rules.
    fn sdwa_plan(&mut self, inst: ir::Inst) -> Option<Plan> {
        let dfg = self.lower.dfg();
        let result = dfg.first_result(inst);
        let ty = dfg.value_type(result);
        match dfg.insts[inst] {
            InstructionData::Binary { opcode, args } => {
                // An insert: `a` with the bits of a placed field replaced, where `a` has
                // zeros there (`bor(band(d, mask), ishl(v, k))`, packs of bytes).
                if opcode == Opcode::Bor && ty == types::I32 {
                    for (a, p) in [(args[0], args[1]), (args[1], args[0])] {
                        let Some((f, k, real)) = self.placed_field(p) else {
                            continue;
                        };
                        let Some(dst_sel) = sel_of(k, f.width) else {
                            continue;
                        };
                        let bits = (((1u64 << f.width) - 1) << k) as u32;
                        if self.known_zeros(a, ZEROS_DEPTH) & bits != bits
                            || self.const32(a).is_some()
                        {
                            continue;
                        }
                        let Some(plan) = self.field_plan(f, real) else {
                            continue;
                        };
                        return Some(Plan {
                            dst_sel,
                            dst_unused: DstUnused::Preserve,
                            keep: Some(a),
                            saved: plan.saved + 1 + (k > 0) as i32,
                            ..plan
                        });
                    }
                }
                // The low byte or word of an operation's result.
                if opcode == Opcode::Band
                    && ty == types::I32
                    && let Some(f) = self.field(result)
                    && f.offset == 0
                    && let Some(dst_sel @ (SdwaSel::Byte0 | SdwaSel::Word0)) = sel_of(0, f.width)
                    && let Some((inner, iargs)) = self.binary(f.x)
                    && let Some(plan) =
                        self.binop_plan(inner, iargs, self.lower.dfg().value_type(f.x))
                {
                    return Some(Plan {
                        dst_sel,
                        saved: plan.saved + 1,
                        ..plan
                    });
                }
                // A placed field: `ishl(field, k)` (an operation's result, or a byte or word
                // of a value) in one instruction.
                if opcode == Opcode::Ishl
                    && ty == types::I32
                    && let Some((f, k, real)) = self.placed_field(result)
                    && k > 0
                    && let Some(dst_sel) = sel_of(k, f.width)
                    && let Some(plan) = self.field_plan(f, real)
                {
                    let dst_unused = if f.signed {
                        DstUnused::Sext
                    } else {
                        DstUnused::Pad
                    };
                    return Some(Plan {
                        dst_sel,
                        dst_unused,
                        saved: plan.saved + 1,
                        ..plan
                    });
                }
                self.binop_plan(opcode, args, ty)
            }
            // An i8/i16 operation's result extended: the destination select does it.
            InstructionData::Unary {
                opcode: opcode @ (Opcode::Uextend | Opcode::Sextend),
                arg,
            } if ty == types::I32 => {
                let (inner, iargs) = self.binary(arg)?;
                let plan = self.binop_plan(inner, iargs, self.lower.dfg().value_type(arg))?;
                let dst_sel = sel_of(0, self.lower.dfg().value_type(arg).bits())?;
                let dst_unused = match opcode {
                    Opcode::Sextend => DstUnused::Sext,
                    _ => DstUnused::Pad,
                };
                Some(Plan {
                    dst_sel,
                    dst_unused,
                    saved: plan.saved + 1,
                    ..plan
                })
            }
            // A byte or word converted to f32 (bytes have v_cvt_f32_ubyte<n>).
            InstructionData::Unary {
                opcode: opcode @ (Opcode::FcvtFromUint | Opcode::FcvtFromSint),
                arg,
            } if ty == types::F32 => {
                let mut saved = 0;
                let part = match self.lower.dfg().value_type(arg) {
                    types::I32 => self.dword_part(arg, &mut saved),
                    types::I8 | types::I16 => {
                        self.narrow_part(arg, Some(opcode == Opcode::FcvtFromSint), &mut saved)
                    }
                    _ => return None,
                };
                let op = match opcode {
                    Opcode::FcvtFromUint => Op::VCvtF32U32,
                    _ => Op::VCvtF32I32,
                };
                Some(Plan {
                    op,
                    srcs: [part].into_iter().collect(),
                    dst_sel: SdwaSel::Dword,
                    dst_unused: DstUnused::Pad,
                    keep: None,
                    saved,
                })
            }
            _ => None,
        }
    }

    /// How many instructions making the plan's sources legal for SDWA adds: gfx8 reads
    /// VGPRs only (constants and SGPRs need a `v_mov_b32`); gfx9 also reads SGPRs and
    /// inline constants, but no literal, and one scalar value.
    fn sdwa_source_cost(&mut self, plan: &Plan) -> i32 {
        let gfx9 = self.backend.generation >= Gen::Gfx9;
        let mut cost = 0;
        let mut scalar: Option<Value> = None;
        for &(v, _, _) in &plan.srcs {
            let on_bus = match self.const32(v) {
                Some(c) if gfx9 && self.inline(c) => false,
                Some(_) => {
                    cost += 1;
                    continue;
                }
                None => self.is_uniform(v),
            };
            if on_bus {
                if !gfx9 || scalar.is_some_and(|s| s != v) {
                    cost += 1;
                } else {
                    scalar = Some(v);
                }
            }
        }
        cost
    }

    /// `inst`'s result in one SDWA instruction (gfx8, gfx9) when that takes fewer
    /// instructions than the plain rules: the byte and word extracts of its operands
    /// become source selects, the placing of its result a destination select.
    pub(super) fn sdwa_fold(&mut self, inst: ir::Inst) -> Option<crate::machinst::Reg> {
        if self.backend.generation < Gen::Gfx8 {
            return None;
        }
        let plan = self.sdwa_plan(inst)?;
        if !plan.op.info().sdwa_on(self.backend.generation)
            || plan.saved <= self.sdwa_source_cost(&plan)
        {
            return None;
        }
        let ty = self
            .lower
            .dfg()
            .value_type(self.lower.dfg().first_result(inst));
        if ty == types::I16
            && let Some(reg) = self.sixteen_bit(&plan)
        {
            return Some(reg);
        }
        let gfx9 = self.backend.generation >= Gen::Gfx9;
        let mut srcs: SmallVec<[Src; 3]> = SmallVec::new();
        let mut src_sel = [SdwaSel::Dword; 2];
        let mut sext = 0;
        let mut scalar = None;
        for (i, &(v, sel, signed)) in plan.srcs.iter().enumerate() {
            let s = self.put_in_src(v);
            let legal = match s {
                Src::Reg(r) if r.file() == VGPR => true,
                Src::Reg(r) => gfx9 && r.file() == SGPR && scalar.is_none_or(|x| x == r),
                Src::Imm(c) => gfx9 && self.inline(c),
            };
            let s = if legal {
                s
            } else {
                Src::Reg(self.src_to_vgpr(s))
            };
            if let Src::Reg(r) = s
                && r.file() == SGPR
            {
                scalar = Some(r);
            }
            srcs.push(s);
            src_sel[i] = sel;
            sext |= (signed as u8) << i;
        }
        if let Some(keep) = plan.keep {
            let r = self.value_reg(keep);
            srcs.push(Src::Reg(self.vgpr_copy(r)));
        }
        let dst = self.vreg(VGPR, RegClass::Int);
        self.emit(Inst::Valu {
            op: without_carry(plan.op, self.backend.generation),
            dst: Some(dst),
            sdst: None,
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: Some(Sdwa {
                dst_sel: plan.dst_sel,
                dst_unused: plan.dst_unused,
                src_sel,
                sext,
            }),
        });
        Some(dst)
    }

    /// The plan of an i16 result whose every source is the low word of a value, its result
    /// the whole register, as the 16-bit operation that reads exactly those words: a VOP2,
    /// half the SDWA form's size (`v_min_u16` for `umin.i16`). Only for i16 results: their
    /// upper bits are unspecified, where an i32 result needs the bits the 16-bit operation
    /// zeroes (a sum's carry into bit 16, a signed minimum's sign).
    fn sixteen_bit(&mut self, plan: &Plan) -> Option<crate::machinst::Reg> {
        let op = match plan.op {
            Op::VAddU32 => Op::VAddU16,
            Op::VSubU32 => Op::VSubU16,
            Op::VMinU32 => Op::VMinU16,
            Op::VMaxU32 => Op::VMaxU16,
            Op::VMinI32 => Op::VMinI16,
            Op::VMaxI32 => Op::VMaxI16,
            _ => return None,
        };
        let words = plan.srcs.iter().all(|&(_, sel, _)| sel == SdwaSel::Word0);
        if !words || plan.dst_sel != SdwaSel::Dword || plan.keep.is_some() {
            return None;
        }
        let srcs: SmallVec<[Src; 2]> = plan
            .srcs
            .iter()
            .map(|&(v, _, _)| match self.put_in_src(v) {
                Src::Imm(c) => Src::Imm(super::isle::operand16(c)),
                s => s,
            })
            .collect();
        Some(self.valu(op, &srcs, RegClass::Int))
    }

    /// `inst`'s i32 result, a bit field of another value, in one instruction: `v_and_b32`
    /// for low bits, a shift for high bits, `v_bfe_u32`/`v_bfe_i32` for the others (every
    /// generation).
    pub(super) fn bit_field_of(&mut self, inst: ir::Inst) -> Option<crate::machinst::Reg> {
        let result = self.lower.dfg().first_result(inst);
        let f = self.field(result)?;
        let x = self.put_in_src(f.x);
        let (op, srcs): (Op, SmallVec<[Src; 3]>) = match f {
            Field {
                offset: 0,
                signed: false,
                width,
                ..
            } => (
                Op::VAndB32,
                [Src::Imm((1u32 << width) - 1), x].into_iter().collect(),
            ),
            Field {
                offset,
                width,
                signed,
                ..
            } if offset + width == 32 => {
                let op = if signed {
                    Op::VAshrrevI32
                } else {
                    Op::VLshrrevB32
                };
                (op, [Src::Imm(offset), x].into_iter().collect())
            }
            Field {
                offset,
                width,
                signed,
                ..
            } => {
                let op = if signed { Op::VBfeI32 } else { Op::VBfeU32 };
                (
                    op,
                    [x, Src::Imm(offset), Src::Imm(width)].into_iter().collect(),
                )
            }
        };
        Some(self.valu(op, &srcs, RegClass::Int))
    }
}
