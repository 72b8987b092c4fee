//! NaN-avoiding minimum and maximum (IEEE 754-2008 `minNum`/`maxNum`: OpenCL's `fmin`/
//! `fmax`, SPIR-V's `NMin`/`NMax`), which CLIF writes with its NaN-propagating
//! `fmin`/`fmax` and a NaN test:
//!
//! ```text
//! select (fcmp uno x, x), y, (fmax x, y)      ; maxNum(x, y) for a y that is never NaN
//! ```
//!
//! `v_max_f32`/`v_min_f32` in IEEE mode (the mode `docs/ir.md` assumes) are `maxNum`/`minNum`
//! themselves for a quiet NaN, so the three CLIF instructions are one VALU instruction when
//! `x` cannot be a signalling NaN (the hardware returns a quiet NaN for a signalling one),
//! and two otherwise (`v_max_f32 x, x` quiets `x` first). A value known never to be NaN
//! also lets a plain `fmin`/`fmax` skip its NaN fix-up: a clamp written with these idioms
//! compiles to a `v_max_f32` and a `v_min_f32`, as LLVM compiles OpenCL's.

use super::IsleContext;
use super::isle::generated::Context as _;
use crate::ir::condcodes::FloatCC;
use crate::ir::{InstructionData, Opcode, Value, types};
use crate::isa::gcn::inst::Src;
use crate::isa::gcn::mc::Op;
use crate::machinst::{Reg, RegClass};

/// How deep the NaN facts look through the values' definitions.
const DEPTH: u32 = 6;

impl IsleContext<'_, '_> {
    /// `select c, t, f` of f32 values as one `v_max_f32`/`v_min_f32` (or two), when it is
    /// the NaN-avoiding idiom of the module.
    pub(super) fn nan_avoiding_minmax(&mut self, c: Value, t: Value, f: Value) -> Option<Reg> {
        let (max, x, y) = self.nan_avoiding(c, t, f)?;
        let x = if self.quiet(x, DEPTH) {
            self.put_in_src(x)
        } else {
            let x = self.put_in_src(x);
            Src::Reg(self.valu(Op::VMaxF32, &[x, x], RegClass::Int))
        };
        let op = if max { Op::VMaxF32 } else { Op::VMinF32 };
        let y = self.put_in_src(y);
        Some(self.valu(op, &[x, y], RegClass::Int))
    }

    /// The idiom `select c, t, f` = maxNum (`true`) or minNum of `x` and a never-NaN `y`:
    /// `c` is true exactly where `x` is NaN and then selects `y`, else `fmax`/`fmin` of `x`
    /// and `y`.
    fn nan_avoiding(&self, c: Value, t: Value, f: Value) -> Option<(bool, Value, Value)> {
        let dfg = self.lower.dfg();
        let inst = self.defining_inst(c)?;
        let InstructionData::FloatCompare {
            opcode: Opcode::Fcmp,
            cond,
            args: [a, b],
        } = dfg.insts[inst]
        else {
            return None;
        };
        if a != b || dfg.value_type(a) != types::F32 {
            return None;
        }
        // For `x, x`, `uno` and `ne` (unordered or unequal) hold exactly for NaN, `ord` and
        // `eq` exactly for numbers.
        let (when_nan, otherwise) = match cond {
            FloatCC::Unordered | FloatCC::NotEqual => (t, f),
            FloatCC::Ordered | FloatCC::Equal => (f, t),
            _ => return None,
        };
        let inst = self.defining_inst(otherwise)?;
        let InstructionData::Binary {
            opcode: opcode @ (Opcode::Fmax | Opcode::Fmin),
            args: [p, q],
        } = dfg.insts[inst]
        else {
            return None;
        };
        let y = match (p == a, q == a) {
            (true, _) => q,
            (_, true) => p,
            _ => return None,
        };
        (y == when_nan && self.never_nan(y, DEPTH)).then_some((opcode == Opcode::Fmax, a, y))
    }

    /// Whether the f32 `value` is never NaN (a number constant, a conversion from an
    /// integer, the idiom with a never-NaN bound, and what these make through sign
    /// operations, selects and NaN-propagating min/max).
    pub(super) fn never_nan(&self, value: Value, depth: u32) -> bool {
        if let Some(bits) = self.const32(value) {
            return !f32::from_bits(bits).is_nan();
        }
        let Some(inst) = self.defining_inst(value).filter(|_| depth > 0) else {
            return false;
        };
        let dfg = self.lower.dfg();
        let number = |v| self.never_nan(v, depth - 1);
        match dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::FcvtFromSint | Opcode::FcvtFromUint,
                ..
            } => true,
            InstructionData::Unary {
                opcode: Opcode::Fneg | Opcode::Fabs,
                arg,
            } => number(arg),
            InstructionData::Binary {
                opcode: Opcode::Fmax | Opcode::Fmin,
                args: [a, b],
            } => number(a) && number(b),
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [c, t, f],
            } => {
                (number(t) && number(f))
                    || self
                        .nan_avoiding(c, t, f)
                        .is_some_and(|(_, _, y)| number(y))
            }
            _ => false,
        }
    }

    /// Whether the f32 `value` is never a signalling NaN: results of arithmetic (which
    /// returns quiet NaNs), quiet constants, and selects of such.
    fn quiet(&self, value: Value, depth: u32) -> bool {
        if let Some(bits) = self.const32(value) {
            let v = f32::from_bits(bits);
            return !v.is_nan() || bits & 0x0040_0000 != 0;
        }
        if self.never_nan(value, depth) {
            return true;
        }
        let Some(inst) = self.defining_inst(value).filter(|_| depth > 0) else {
            return false;
        };
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [_, t, f],
            } => self.quiet(t, depth - 1) && self.quiet(f, depth - 1),
            data => matches!(
                data.opcode(),
                Opcode::Fadd
                    | Opcode::Fsub
                    | Opcode::Fmul
                    | Opcode::Fdiv
                    | Opcode::Fma
                    | Opcode::Sqrt
                    | Opcode::Fmin
                    | Opcode::Fmax
                    | Opcode::Floor
                    | Opcode::Ceil
                    | Opcode::Trunc
                    | Opcode::Nearest
                    | Opcode::Fdemote
            ),
        }
    }

    /// The instruction that defines `value`, if one does.
    fn defining_inst(&self, value: Value) -> Option<crate::ir::Inst> {
        let dfg = self.lower.dfg();
        match dfg.value_def(dfg.resolve_aliases(value)) {
            crate::ir::ValueDef::Result(inst, _) => Some(inst),
            _ => None,
        }
    }
}
