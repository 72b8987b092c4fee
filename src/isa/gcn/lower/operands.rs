//! Operand legalisation: values into the register file and form an instruction can read
//! (VGPR copies, the constant bus, literals, inline constants), VALU and SALU instructions
//! with legal sources, carry chains and register pairs.

use super::IsleContext;
use super::conditions::is_signed;
use super::isle::generated::Context as _;
use crate::isa::gcn::inst::{Inst, Op64, Src, without_carry};
use crate::isa::gcn::mc::{Op, Operand};
use crate::isa::gcn::regs::{SGPR, VGPR};

use crate::ir::condcodes::IntCC;
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::machinst::{Reg, RegClass};
use smallvec::{SmallVec, smallvec};

/// How many nested `fmin`/`fmax` with constant bounds share one NaN compare.
pub(super) const MINMAX_CHAIN_DEPTH: u32 = 4;

impl IsleContext<'_, '_> {
    /// `reg` in the VGPR file, copying it there once if it lives in an SGPR.
    pub(super) fn vgpr_copy(&mut self, reg: Reg) -> Reg {
        if reg.file() == VGPR {
            return reg;
        }
        if let Some(&copy) = self.vgpr_copies.get(&reg) {
            return copy;
        }
        let dst = self.vreg(VGPR, reg.class());
        self.emit(Inst::Copy { dst, src: reg });
        self.vgpr_copies.insert(reg, dst);
        dst
    }

    /// `reg` (holding a uniform value) in the SGPR file.
    pub(super) fn sgpr_copy(&mut self, reg: Reg) -> Reg {
        if reg.file() == SGPR {
            return reg;
        }
        let dst = self.vreg(SGPR, reg.class());
        self.emit(Inst::Copy { dst, src: reg });
        dst
    }

    /// The 32-bit constant a value is, when it is one.
    pub(super) fn const32(&self, value: Value) -> Option<u32> {
        let dfg = self.lower.dfg();
        let ir::ValueDef::Result(inst, _) = dfg.value_def(value) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } if dfg.value_type(value).bits() <= 32 => Some(imm.bits() as u32),
            InstructionData::UnaryIeee32 {
                opcode: Opcode::F32const,
                imm,
            } => Some(imm.bits()),
            InstructionData::UnaryIeee16 {
                opcode: Opcode::F16const,
                imm,
            } => Some(imm.bits() as u32),
            _ => None,
        }
    }

    /// The 32-bit operand of the i8/i16 constant `value` (bits `c`): sign-extended from its
    /// width when that makes it an inline constant (`iadd.i16 x, -16` reads `-16`, not the
    /// literal `0xfff0`). A narrow value's upper bits are unspecified wherever it lives
    /// (`docs/ir.md`), so every user reads only its low bits and either extension serves.
    pub(super) fn narrow_constant(&self, value: Value, c: u32) -> u32 {
        let bits = self.lower.dfg().value_type(value).bits();
        if bits >= 32 || self.inline(c) {
            return c;
        }
        let shift = 32 - bits;
        let signed = ((c << shift) as i32 >> shift) as u32;
        if self.inline(signed) { signed } else { c }
    }

    /// The 64-bit constant a value is, when it is one.
    pub(super) fn const64_of(&self, value: Value) -> Option<u64> {
        let dfg = self.lower.dfg();
        let ir::ValueDef::Result(inst, _) = dfg.value_def(value) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits() as u64),
            _ => None,
        }
    }

    /// `v` as `x >> 8k` of an i32 `x`: `(x, Some(k))` for a `ushr` by 0, 8, 16 or 24, `(v,
    /// None)` for another `ushr`, `(v, Some(0))` otherwise.
    pub(super) fn byte_shift(&mut self, v: Value) -> (Value, Option<u8>) {
        let Some(inst) = self.def_inst(v) else {
            return (v, Some(0));
        };
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::Binary {
                opcode: Opcode::Ushr,
                args: [x, amount],
            } if dfg.value_type(x) == types::I32 => match self.const64_of(amount) {
                Some(c @ (0 | 8 | 16 | 24)) => (x, Some(c as u8 / 8)),
                _ => (v, None),
            },
            _ => (v, Some(0)),
        }
    }

    /// `v_max_f32`/`v_min_f32` of `x` and `y` without CLIF's NaN rule, and the two values
    /// whose unordered compare tells where that rule applies. With a constant, non-NaN
    /// operand the result is NaN exactly where the other one is, so through a chain of such
    /// operations (a clamp: `fmin(fmax(x, lo), hi)`) one compare of the innermost value
    /// serves them all.
    pub(super) fn minmax_core(
        &mut self,
        max: bool,
        x: Value,
        y: Value,
        depth: u32,
    ) -> (Reg, (Value, Value)) {
        let is_number = |c: Option<u32>| c.is_some_and(|bits| !f32::from_bits(bits).is_nan());
        let op = if max { Op::VMaxF32 } else { Op::VMinF32 };
        let operand = if is_number(self.const32(y)) {
            Some((x, y))
        } else if is_number(self.const32(x)) {
            Some((y, x))
        } else {
            None
        };
        let Some((v, c)) = operand else {
            let srcs = [self.put_in_src(x), self.put_in_src(y)];
            return (self.valu(op, &srcs, RegClass::Int), (x, y));
        };
        let dfg = self.lower.dfg();
        if depth > 0
            && let Some(inst) = self.def_inst(v)
            && let InstructionData::Binary {
                opcode: opcode @ (Opcode::Fmax | Opcode::Fmin),
                args: [a, b],
            } = dfg.insts[inst]
            && dfg.value_type(v) == types::F32
            && [a, b].iter().any(|&w| is_number(self.const32(w)))
        {
            let (inner, sources) = self.minmax_core(opcode == Opcode::Fmax, a, b, depth - 1);
            let c = self.put_in_src(c);
            return (self.valu(op, &[Src::Reg(inner), c], RegClass::Int), sources);
        }
        let srcs = [self.put_in_src(v), self.put_in_src(c)];
        (self.valu(op, &srcs, RegClass::Int), (v, v))
    }

    pub(super) fn inline(&self, value: u32) -> bool {
        Operand::inline_int(value as i32 as i64).is_some()
            || Operand::inline_f32(value, self.backend.generation).is_some()
    }

    /// `s` as a VGPR or an inline constant: an operand that leaves the one constant-bus
    /// read of a VALU instruction to its SGPR lane mask.
    pub(super) fn off_bus(&mut self, s: Src) -> Src {
        match s {
            Src::Reg(r) if r.file() == VGPR => s,
            Src::Imm(v) if self.inline(v) => s,
            _ => Src::Reg(self.src_to_vgpr(s)),
        }
    }

    /// Copies a source into a fresh VGPR.
    pub(super) fn src_to_vgpr(&mut self, src: Src) -> Reg {
        match src {
            Src::Reg(r) => self.vgpr_copy(r),
            Src::Imm(_) => {
                let dst = self.vreg(VGPR, RegClass::Int);
                self.emit(Inst::Valu {
                    op: Op::VMovB32,
                    dst: Some(dst),
                    sdst: None,
                    srcs: smallvec![src],
                    neg: 0,
                    abs: 0,
                    clamp: false,
                    mask_in_vcc: false,
                    sdwa: None,
                });
                dst
            }
        }
    }

    /// Makes VALU sources legal for `op`: second operand in a VGPR when the short
    /// encodings can be used (swapping commutative operands, or taking the reversed
    /// opcode), at most one constant-bus read (SGPRs, literals), and no literal in the
    /// long (VOP3) encoding, which gfx6–gfx9 lack. (`v_cndmask_b32`, whose mask is a bus
    /// read of its own, is legalised by `cndmask`.)
    pub(super) fn legalize_valu(&mut self, op: Op, srcs: &mut SmallVec<[Src; 3]>) -> Op {
        self.legalize_valu_in(op, srcs, false)
    }

    /// [`Self::legalize_valu`] for an instruction that may need the VOP3 encoding whatever
    /// its sources (`vop3`): a compare whose lane mask the allocator may put in an SGPR
    /// pair other than VCC. VOP3 takes no literal, so literals go to VGPRs first.
    pub(super) fn legalize_valu_in(
        &mut self,
        mut op: Op,
        srcs: &mut SmallVec<[Src; 3]>,
        vop3: bool,
    ) -> Op {
        if srcs.len() == 2
            && !srcs[1].is_vgpr()
            && srcs[0].is_vgpr()
            && let Some(swapped) = commuted(op)
        {
            srcs.swap(0, 1);
            op = swapped;
        }
        let long_form =
            vop3 || !short_form(op) || (srcs.len() >= 2 && !srcs[1].is_vgpr()) || srcs.len() == 3;
        let mut bus = 0;
        let mut seen_sgprs: SmallVec<[Reg; 3]> = SmallVec::new();
        // An SGPR read twice reads the bus once, but in a function that calls, the
        // allocator may reload a value spilled across a call into two registers, one per
        // operand (every SGPR value crosses a call in memory): there, each read counts.
        let shared = !self.backend.frame.calls;
        for i in 0..srcs.len() {
            let needs_bus = match srcs[i] {
                Src::Reg(r) if r.file() == SGPR => !(shared && seen_sgprs.contains(&r)),
                Src::Reg(_) => false,
                Src::Imm(v) => !self.inline(v),
            };
            if !needs_bus {
                if let Src::Reg(r) = srcs[i]
                    && r.file() == SGPR
                {
                    seen_sgprs.push(r);
                }
                continue;
            }
            let literal_in_long = matches!(srcs[i], Src::Imm(_)) && long_form;
            let literal_not_first = matches!(srcs[i], Src::Imm(_)) && i != 0;
            if let Src::Imm(v) = srcs[i]
                && bus == 0
                && (literal_in_long || literal_not_first)
            {
                // The bus is free but the encoding takes no literal here: an SGPR holds it,
                // as LLVM does, which the block's other uses share.
                let r = self.scalar_literal(v);
                srcs[i] = Src::Reg(r);
                bus += 1;
                seen_sgprs.push(r);
            } else if bus >= 1 || literal_in_long || literal_not_first {
                let r = self.src_to_vgpr(srcs[i]);
                srcs[i] = Src::Reg(r);
            } else {
                bus += 1;
                if let Src::Reg(r) = srcs[i] {
                    seen_sgprs.push(r);
                }
            }
        }
        op
    }

    /// A compare's lane mask: in VCC (`mask_in_vcc`, for a mask read next to the compare)
    /// with the short encoding's operands, else in any SGPR pair, which needs VOP3's.
    pub(super) fn compare(&mut self, op: Op, a: Src, b: Src, mask_in_vcc: bool) -> Reg {
        // 64-bit compares get register pairs (never constants) from the rules.
        let mut srcs: SmallVec<[Src; 3]> = smallvec![a, b];
        let op = self.legalize_valu_in(op, &mut srcs, !mask_in_vcc);
        let mask = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: None,
            sdst: Some(mask),
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc,
            sdwa: None,
        });
        mask
    }

    /// The result and four temporaries of an fdiv/sqrt expansion, VGPRs of `class`.
    pub(super) fn expansion_vgprs(&mut self, class: RegClass) -> (Reg, [Reg; 4]) {
        (
            self.vreg(VGPR, class),
            [(); 4].map(|_| self.vreg(VGPR, class)),
        )
    }

    pub(super) fn valu(&mut self, op: Op, srcs: &[Src], class: RegClass) -> Reg {
        // The result is the only output: an add needs no carry-out where it can go without.
        let op = without_carry(op, self.backend.generation);
        let mut srcs: SmallVec<[Src; 3]> = srcs.iter().copied().collect();
        let op = self.legalize_valu(op, &mut srcs);
        let dst = self.vreg(VGPR, class);
        self.emit(Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        });
        dst
    }

    pub(super) fn salu(&mut self, op: Op, srcs: &[Src], class: RegClass) -> Reg {
        let mut srcs: SmallVec<[Src; 2]> = srcs.iter().copied().collect();
        self.one_scalar_literal(&mut srcs);
        let dst = self.vreg(SGPR, class);
        self.emit(Inst::Salu {
            op,
            dst: Some(dst),
            srcs,
        });
        dst
    }

    /// An SALU instruction encodes one literal dword, which every source marked literal
    /// reads: keep the first literal value and move any other into an SGPR.
    pub(super) fn one_scalar_literal(&mut self, srcs: &mut [Src]) {
        let mut literal = None;
        for s in srcs.iter_mut() {
            let Src::Imm(v) = *s else { continue };
            if self.inline(v) || literal == Some(v) {
                continue;
            }
            if literal.is_some() {
                *s = Src::Reg(self.materialize_s(v));
            } else {
                literal = Some(v);
            }
        }
    }

    /// Two sources of one SALU instruction, with at most one literal value.
    pub(super) fn scalar_pair(&mut self, a: Src, b: Src) -> [Src; 2] {
        let mut pair = [a, b];
        self.one_scalar_literal(&mut pair);
        pair
    }

    /// An operand of a compare (or a select's condition), extended from a narrow type to
    /// 32 bits as the condition needs, computed in `file` (VALU or SALU). Narrow values
    /// live with unspecified upper bits, so they must be extended before comparing.
    pub(super) fn cmp_src(&mut self, cc: IntCC, value: Value, file: u8) -> Src {
        let ty = self.lower.dfg().value_type(value);
        let bits = ty.bits();
        let signed = is_signed(cc);
        if let Some(c) = self.const32(value) {
            let c = if bits >= 32 {
                c
            } else if signed {
                ((c << (32 - bits)) as i32 >> (32 - bits)) as u32
            } else {
                c & ((1u32 << bits) - 1)
            };
            return Src::Imm(c);
        }
        let r = self.value_reg(value);
        let (op, srcs): (Op, &[Src]) = match (bits, signed, file) {
            (32, _, VGPR) => return Src::Reg(r),
            (32, _, _) => return Src::Reg(self.sgpr_copy(r)),
            (8 | 16, true, VGPR) => (Op::VBfeI32, &[Src::Imm(0), Src::Imm(bits)]),
            (8 | 16, false, VGPR) => (Op::VBfeU32, &[Src::Imm(0), Src::Imm(bits)]),
            (8, true, _) => (Op::SSextI32I8, &[]),
            (16, true, _) => (Op::SSextI32I16, &[]),
            (8 | 16, false, _) => (Op::SAndB32, &[Src::Imm((1 << bits) - 1)]),
            _ => {
                self.fail(format!("comparison of type {ty} is not supported"));
                return Src::Reg(r);
            }
        };
        let operands: SmallVec<[Src; 3]> = std::iter::once(Src::Reg(r))
            .chain(srcs.iter().copied())
            .collect();
        Src::Reg(if file == VGPR {
            self.valu(op, &operands, RegClass::Int)
        } else {
            let operands: SmallVec<[Src; 2]> = operands
                .iter()
                .map(|&s| match s {
                    Src::Reg(r) => Src::Reg(self.sgpr_copy(r)),
                    imm => imm,
                })
                .collect();
            self.salu(op, &operands, RegClass::Int)
        })
    }

    /// The literal `v` in an SGPR, set once per CLIF block (an SALU move runs whatever the
    /// lanes, and the block's first use dominates its later ones).
    fn scalar_literal(&mut self, v: u32) -> Reg {
        let Some(inst) = self.lower.cur_inst else {
            return self.materialize_s(v);
        };
        let Some(block) = self.lower.func.layout.inst_block(inst) else {
            return self.materialize_s(v);
        };
        if let Some(&r) = self.backend.scalar_literals.borrow().get(&(block, v)) {
            return r;
        }
        let r = self.materialize_s(v);
        self.backend
            .scalar_literals
            .borrow_mut()
            .insert((block, v), r);
        r
    }

    pub(super) fn materialize_s(&mut self, v: u32) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::Salu {
            op: Op::SMovB32,
            dst: Some(dst),
            srcs: smallvec![Src::Imm(v)],
        });
        dst
    }

    /// A value as a scalar source.
    pub(super) fn ssrc(&mut self, value: Value) -> Src {
        if let Some(c) = self.const32(value) {
            return Src::Imm(c);
        }
        let r = self.value_reg(value);
        Src::Reg(self.sgpr_copy(r))
    }

    pub(super) fn pair_of(&mut self, value: Value, file: u8) -> Reg {
        let r = self.value_reg(value);
        if r.class() != RegClass::Float {
            self.fail(format!(
                "internal error: {value} is not held in a register pair"
            ));
        }
        if file == VGPR {
            self.vgpr_copy(r)
        } else {
            self.sgpr_copy(r)
        }
    }

    /// A 64-bit VALU operation (two or more 32-bit instructions at emission) with legal
    /// sources: `a` in VGPRs; `b` as it is when an SGPR pair (each instruction of the
    /// expansion reads at most its one half, the one constant-bus read) or a constant whose
    /// high half is an inline constant and whose low half the first instruction, a VOP2
    /// for the operations that take a literal, can read as one; otherwise in VGPRs.
    pub(super) fn valu64_reg(&mut self, op: Op64, a: Reg, b: Src) -> Reg {
        let (a, b) = match b {
            Src::Reg(r) if a.file() != VGPR && r.file() == VGPR && commutes64(op) => {
                (r, Src::Reg(a))
            }
            _ => (a, b),
        };
        let a = self.vgpr_copy(a);
        let b = match b {
            Src::Imm(v) if self.inline(v) && Operand::inline_int(v as i32 as i64).is_some() => b,
            Src::Imm(_) if literal_in_low_half(op) => b,
            Src::Imm(v) => Src::Reg(self.const64_reg(false, v as i32 as i64 as u64)),
            Src::Reg(_) => b,
        };
        let dst = self.vreg(VGPR, RegClass::Float);
        self.emit(Inst::Alu64 { op, dst, a, b });
        dst
    }

    pub(super) fn const64_reg(&mut self, uniform: bool, value: u64) -> Reg {
        let file = if uniform { SGPR } else { VGPR };
        let dst = self.vreg(file, RegClass::Float);
        self.emit(Inst::Const64 { dst, value });
        dst
    }

    /// The high word of the 64-bit `x`; of a product, computed alone.
    pub(super) fn high_word(&mut self, x: Value) -> Src {
        // (a.hi·2^32 + a.lo)(b.hi·2^32 + b.lo) has high word
        // mul_hi(a.lo, b.lo) + a.lo·b.hi + a.hi·b.lo (mod 2^32).
        if let Some(inst) = self.def_inst(x)
            && let InstructionData::Binary {
                opcode: Opcode::Imul,
                args: [a, b],
            } = self.lower.dfg().insts[inst]
        {
            let halves = |this: &mut Self, v: Value| -> [Option<Src>; 2] {
                if let Some(c) = this.const64_of(v) {
                    return [c as u32, (c >> 32) as u32].map(|h| (h != 0).then_some(Src::Imm(h)));
                }
                if this.high_half_zero(v, HIGH_ZERO_DEPTH) {
                    return [Some(this.low_word(v, super::memory::LOW_WORD_DEPTH)), None];
                }
                let pair = this.put_in_vsrc_pair(v);
                [false, true].map(|hi| Some(Src::Reg(this.half(pair, hi))))
            };
            let [a_lo, a_hi] = halves(self, a);
            let [b_lo, b_hi] = halves(self, b);
            let mut terms = Vec::new();
            if let (Some(p), Some(q)) = (a_lo, b_lo) {
                terms.push(self.valu(Op::VMulHiU32, &[p, q], RegClass::Int));
            }
            for (p, q) in [(a_lo, b_hi), (a_hi, b_lo)] {
                if let (Some(p), Some(q)) = (p, q) {
                    terms.push(self.valu(Op::VMulLoU32, &[p, q], RegClass::Int));
                }
            }
            let Some((&first, rest)) = terms.split_first() else {
                return Src::Imm(0);
            };
            let sum = rest.iter().fold(first, |acc, &t| {
                let add = without_carry(Op::VAddU32, self.backend.generation);
                self.valu(add, &[Src::Reg(acc), Src::Reg(t)], RegClass::Int)
            });
            return Src::Reg(sum);
        }
        let pair = self.put_in_vsrc_pair(x);
        Src::Reg(self.half(pair, true))
    }

    /// The low and high words of the 64-bit `x` as operands of 32-bit VALU instructions:
    /// of a constant, its halves; of a product of two wave-uniform values whose high halves
    /// are zero, `s_mul_i32` for the low word (a scalar operand a VOP2 reads directly) and
    /// `v_mul_hi_u32` for the high one (SALU has no high multiply before gfx9); otherwise
    /// the halves of its register pair.
    pub(super) fn words(&mut self, x: Value) -> (Src, Src) {
        if let Some(c) = self.const64_of(x) {
            return (Src::Imm(c as u32), Src::Imm((c >> 32) as u32));
        }
        if self.is_uniform(x)
            && let Some(inst) = self.def_inst(x)
            && let InstructionData::Binary {
                opcode: Opcode::Imul,
                args: [a, b],
            } = self.lower.dfg().insts[inst]
            && self.high_half_zero(a, HIGH_ZERO_DEPTH)
            && self.high_half_zero(b, HIGH_ZERO_DEPTH)
        {
            let depth = super::memory::LOW_WORD_DEPTH;
            let (a, b) = (self.low_word(a, depth), self.low_word(b, depth));
            if [a, b]
                .iter()
                .all(|s| !matches!(s, Src::Reg(r) if r.file() == VGPR))
            {
                let lo = self.salu(Op::SMulI32, &[a, b], RegClass::Int);
                let hi = self.valu(Op::VMulHiU32, &[a, b], RegClass::Int);
                return (Src::Reg(lo), Src::Reg(hi));
            }
        }
        let pair = self.put_in_vsrc_pair(x);
        (
            Src::Reg(self.half(pair, false)),
            Src::Reg(self.half(pair, true)),
        )
    }

    /// The low 32 bits of the integer `value`, in 32-bit operations where it is an
    /// `iconst`, an `uextend` of an i32, an `iadd`, `imul`, `band`, `bor` or `bxor` of such
    /// values, or an `ishl` of one by a constant (the low word of each result depends only
    /// on the low words of the operands;
    /// the 64-bit computation is then left to dead-code elimination); otherwise the low
    /// half of its register. `depth` limits how far definitions are followed.
    pub(super) fn low_word(&mut self, value: Value, depth: u32) -> Src {
        if let Some(c) = self.const64_of(value) {
            return Src::Imm(c as u32);
        }
        let def = if depth > 0 {
            self.def_inst(value)
        } else {
            None
        };
        if let Some(inst) = def {
            let dfg = self.lower.dfg();
            match dfg.insts[inst] {
                InstructionData::Unary {
                    opcode: Opcode::Uextend,
                    arg,
                } if dfg.value_type(arg) == types::I32 => return Src::Reg(self.value_reg(arg)),
                InstructionData::Binary {
                    opcode: Opcode::Ishl,
                    args,
                } => {
                    if let Some(k) = self.const64_of(args[1]) {
                        let k = k as u32 & (dfg.value_type(value).bits() - 1);
                        if k >= 32 {
                            return Src::Imm(0);
                        }
                        let x = self.low_word(args[0], depth - 1);
                        return Src::Reg(self.valu(
                            Op::VLshlrevB32,
                            &[Src::Imm(k), x],
                            RegClass::Int,
                        ));
                    }
                }
                InstructionData::Binary {
                    opcode:
                        opcode @ (Opcode::Iadd
                        | Opcode::Imul
                        | Opcode::Band
                        | Opcode::Bor
                        | Opcode::Bxor),
                    args,
                } => {
                    let op = match opcode {
                        Opcode::Iadd => Op::VAddU32,
                        Opcode::Imul => Op::VMulLoU32,
                        Opcode::Band => Op::VAndB32,
                        Opcode::Bor => Op::VOrB32,
                        _ => Op::VXorB32,
                    };
                    let a = self.low_word(args[0], depth - 1);
                    let b = self.low_word(args[1], depth - 1);
                    return Src::Reg(self.valu(op, &[a, b], RegClass::Int));
                }
                _ => {}
            }
        }
        let pair = self.pair_of(value, VGPR);
        Src::Reg(self.half(pair, false))
    }
}

/// How many definitions [`IsleContext::high_half_zero`] follows.
pub(super) const HIGH_ZERO_DEPTH: u32 = 4;

impl IsleContext<'_, '_> {
    /// Whether the high 32 bits of the 64-bit integer `value` are known to be zero: an
    /// `iconst` below 2^32, an `uextend` from 32 bits or fewer, a `band` with such a value,
    /// a `umin` with one, a `bor`, `bxor`, `umax` or `select` of two, or an `ushr` by a
    /// constant of 32 or more; `depth` limits how far definitions are followed. The rules
    /// use it to leave out the high-half work of 64-bit index arithmetic, whatever shape
    /// the indices take.
    pub(super) fn high_half_zero(&self, value: Value, depth: u32) -> bool {
        if let Some(c) = self.const64_of(value) {
            return c >> 32 == 0;
        }
        let dfg = self.lower.dfg();
        let ir::ValueDef::Result(inst, _) = dfg.value_def(dfg.resolve_aliases(value)) else {
            return false;
        };
        if depth == 0 || dfg.value_type(value) != types::I64 {
            return false;
        }
        let zero = |v: Value| self.high_half_zero(v, depth - 1);
        match dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Uextend,
                arg,
            } => dfg.value_type(arg).bits() <= 32,
            InstructionData::Binary {
                opcode: Opcode::Band | Opcode::Umin,
                args,
            } => zero(args[0]) || zero(args[1]),
            InstructionData::Binary {
                opcode: Opcode::Bor | Opcode::Bxor | Opcode::Umax,
                args,
            } => zero(args[0]) && zero(args[1]),
            InstructionData::Binary {
                opcode: Opcode::Ushr,
                args,
            } => self.const64_of(args[1]).is_some_and(|k| k & 63 >= 32),
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args,
            } => zero(args[1]) && zero(args[2]),
            _ => false,
        }
    }
}

/// The opcode that computes `op` with its two sources swapped, if any.
pub(super) fn commuted(op: Op) -> Option<Op> {
    use Op::*;
    Some(match op {
        VAddU32 | VAddNcU32 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VAndB32 | VOrB32 | VXorB32
        | VMinI32 | VMinU32 | VMaxI32 | VMaxU32 | VAddF32 | VMulF32 | VMinF32 | VMaxF32
        | VAddU16 | VMulLoU16 | VMinU16 | VMinI16 | VMaxU16 | VMaxI16 => op,
        VSubU16 => VSubrevU16,
        VSubrevU16 => VSubU16,
        VSubU32 => VSubrevU32,
        VSubrevU32 => VSubU32,
        VSubNcU32 => VSubrevNcU32,
        VSubrevNcU32 => VSubNcU32,
        VSubF32 => VSubrevF32,
        VSubrevF32 => VSubF32,
        VCmpEqI32 | VCmpNeI32 | VCmpEqU32 | VCmpNeU32 | VCmpEqF32 | VCmpLgF32 | VCmpOF32
        | VCmpUF32 | VCmpNeqF32 | VCmpNlgF32 | VCmpEqI64 | VCmpNeI64 | VCmpEqU64 | VCmpNeU64 => op,
        VCmpLtI32 => VCmpGtI32,
        VCmpGtI32 => VCmpLtI32,
        VCmpLeI32 => VCmpGeI32,
        VCmpGeI32 => VCmpLeI32,
        VCmpLtU32 => VCmpGtU32,
        VCmpGtU32 => VCmpLtU32,
        VCmpLeU32 => VCmpGeU32,
        VCmpGeU32 => VCmpLeU32,
        VCmpLtI64 => VCmpGtI64,
        VCmpGtI64 => VCmpLtI64,
        VCmpLeI64 => VCmpGeI64,
        VCmpGeI64 => VCmpLeI64,
        VCmpLtU64 => VCmpGtU64,
        VCmpGtU64 => VCmpLtU64,
        VCmpLeU64 => VCmpGeU64,
        VCmpGeU64 => VCmpLeU64,
        VCmpLtF32 => VCmpGtF32,
        VCmpGtF32 => VCmpLtF32,
        VCmpLeF32 => VCmpGeF32,
        VCmpGeF32 => VCmpLeF32,
        VCmpNltF32 => VCmpNgtF32,
        VCmpNgtF32 => VCmpNltF32,
        VCmpNleF32 => VCmpNgeF32,
        VCmpNgeF32 => VCmpNleF32,
        _ => return None,
    })
}

/// Whether the 64-bit operation `op` gives the same result with its sources swapped.
fn commutes64(op: Op64) -> bool {
    matches!(op, Op64::Add | Op64::And | Op64::Or | Op64::Xor | Op64::Mul)
}

/// Whether emission expands the 64-bit VALU operation `op` with a first instruction that
/// is a VOP2 reading `b`'s low half as src0, which may be a literal (the high half, the
/// sign of a 32-bit constant, is an inline constant). The others use VOP3 (`v_bfi_b32`,
/// `v_mul_lo_u32`), which takes no literal on gfx6–gfx9.
fn literal_in_low_half(op: Op64) -> bool {
    matches!(op, Op64::Add | Op64::Sub | Op64::And | Op64::Or | Op64::Xor)
}

/// Whether `op` has a 32-bit (VOP1/VOP2/VOPC) encoding on gfx8.
pub(super) fn short_form(op: Op) -> bool {
    use crate::isa::gcn::mc::Enc;
    matches!(op.info().enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
}

impl IsleContext<'_, '_> {
    /// A VALU operation with a 64-bit (VGPR pair) result, negating the sources in `neg`.
    /// Operations the generation lacks are a CompileError.
    pub(super) fn valu_pair(&mut self, op: Op, srcs: &[Src], neg: u8) -> Reg {
        let generation = self.backend.generation;
        if !op.info().available(generation) {
            self.fail(format!(
                "{} does not exist on {generation:?} (an expansion is not implemented yet)",
                op.info().mnemonic(generation)
            ));
        }
        let mut srcs: SmallVec<[Src; 3]> = srcs.iter().copied().collect();
        let op = self.legalize_valu_in(op, &mut srcs, neg != 0);
        let dst = self.vreg(VGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs,
            neg,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        });
        dst
    }

    /// An f64 rounding for a generation without the instruction (gfx6): the expansion
    /// `Inst::RoundF64`.
    pub(super) fn round64_expanded(&mut self, op: Op, src: Reg) -> Reg {
        let src = self.vgpr_copy(src);
        let dst = self.vreg(VGPR, RegClass::Float);
        let tmp = [(); 2].map(|_| self.vreg(VGPR, RegClass::Float));
        self.emit(Inst::RoundF64 { op, dst, src, tmp });
        dst
    }

    /// A carry-writing add or subtract in its VOP3b form, which writes the carry-out to a
    /// lane mask of our choosing rather than VCC, and reads a carry-in from one. The
    /// carry-in is a constant-bus read, so the other sources are then VGPRs or inline
    /// constants (as for `v_cndmask_b32`). With `in_vcc` the carry-out goes to VCC and the
    /// VOP2 form is possible: for a carry read by the next carry-taking instruction, or not
    /// at all (the allocator moves it should VCC be written before the read).
    pub(super) fn valu_carry(
        &mut self,
        op: Op,
        [a, b]: [Src; 2],
        carry_in: Option<Reg>,
        in_vcc: bool,
    ) -> Carry {
        let mut srcs: SmallVec<[Src; 3]> = smallvec![a, b];
        let op = match carry_in {
            None => self.legalize_valu_in(op, &mut srcs, !in_vcc),
            Some(mask) => {
                for s in srcs.iter_mut() {
                    *s = self.off_bus(*s);
                }
                srcs.push(Src::Reg(mask));
                op
            }
        };
        let value = self.vreg(VGPR, RegClass::Int);
        let mask = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::Valu {
            op,
            dst: Some(value),
            sdst: Some(mask),
            srcs,
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: in_vcc,
            sdwa: None,
        });
        Carry { value, mask }
    }
}

/// Register pairs: their halves and their making.
impl IsleContext<'_, '_> {
    /// The low or high half of a pair (a single) or of a quad (a pair).
    pub(super) fn half(&mut self, tuple: Reg, hi: bool) -> Reg {
        super::half(self.lower, tuple, hi)
    }

    pub(super) fn combine_regs(&mut self, lo: Reg, hi: Reg) -> Reg {
        let (lo, hi) = if lo.file() == hi.file() {
            (lo, hi)
        } else {
            (self.vgpr_copy(lo), self.vgpr_copy(hi))
        };
        let dst = self.vreg(lo.file(), RegClass::Float);
        self.emit(Inst::Combine {
            dst,
            parts: smallvec![lo, hi],
        });
        dst
    }
}

/// A VALU result with the carry-out (or borrow-out) it produced, as a lane mask.
#[derive(Copy, Clone, Debug)]
pub struct Carry {
    pub(super) value: Reg,
    pub(super) mask: Reg,
}
