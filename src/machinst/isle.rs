//! The Rust side of `isle/prelude.isle`, shared by every target's ISLE context. A target's
//! context type has a field `lower: &mut Lower<'_, I>` and invokes
//! [`isle_prelude_methods!`](crate::isle_prelude_methods) inside its `impl Context`.

use super::Reg;
use crate::ir::{BlockCall, Value, ValueList};
use smallvec::SmallVec;

/// ISLE's view of a value list from an offset.
pub type ValueSlice = (ValueList, usize);
pub type ValueArray2 = [Value; 2];
pub type ValueArray3 = [Value; 3];
pub type BlockArray2 = [BlockCall; 2];
/// The registers holding one instruction's results.
pub type InstOutput = SmallVec<[Reg; 2]>;

/// Implements the prelude's extern extractors and constructors.
#[macro_export]
#[doc(hidden)]
macro_rules! isle_prelude_methods {
    () => {
        fn inst_data_value(
            &mut self,
            inst: $crate::ir::Inst,
        ) -> ($crate::ir::Type, $crate::ir::InstructionData) {
            let dfg = self.lower.dfg();
            let ty = match dfg.inst_results(inst).first() {
                Some(&v) => dfg.value_type(v),
                None => $crate::ir::types::INVALID,
            };
            (ty, dfg.insts[inst])
        }

        fn value_list_slice(
            &mut self,
            list: $crate::ir::ValueList,
        ) -> $crate::machinst::isle::ValueSlice {
            (list, 0)
        }

        fn value_slice_unwrap(
            &mut self,
            slice: $crate::machinst::isle::ValueSlice,
        ) -> Option<($crate::ir::Value, $crate::machinst::isle::ValueSlice)> {
            let (list, off) = slice;
            list.get(off, &self.lower.dfg().value_lists)
                .map(|v| (v, (list, off + 1)))
        }

        /// The instruction defining `value`, when it can be folded into its user here.
        fn def_inst(&mut self, value: $crate::ir::Value) -> Option<$crate::ir::Inst> {
            let dfg = self.lower.dfg();
            match dfg.value_def(dfg.resolve_aliases(value)) {
                $crate::ir::ValueDef::Result(inst, _) if self.lower.can_refold(inst) => Some(inst),
                _ => None,
            }
        }

        fn value_type(&mut self, value: $crate::ir::Value) -> $crate::ir::Type {
            self.lower.dfg().value_type(value)
        }

        fn fits_in_32(&mut self, ty: $crate::ir::Type) -> Option<$crate::ir::Type> {
            (ty.is_int() && ty.bits() <= 32).then_some(ty)
        }

        fn fits_in_16(&mut self, ty: $crate::ir::Type) -> Option<$crate::ir::Type> {
            (ty.is_int() && ty.bits() <= 16).then_some(ty)
        }

        fn scalar32(&mut self, ty: $crate::ir::Type) -> Option<$crate::ir::Type> {
            ((ty.is_int() || ty.is_float()) && ty.bits() <= 32).then_some(ty)
        }

        fn ty_bits(&mut self, ty: $crate::ir::Type) -> u8 {
            ty.bits() as u8
        }

        fn i64_from_iconst(&mut self, value: $crate::ir::Value) -> Option<i64> {
            let inst = self.def_inst(value)?;
            let dfg = self.lower.dfg();
            match dfg.insts[inst] {
                $crate::ir::InstructionData::UnaryImm {
                    opcode: $crate::ir::Opcode::Iconst,
                    imm,
                } => {
                    let bits = dfg.value_type(value).bits();
                    let shift = 64 - bits.min(64);
                    Some((imm.bits() << shift) >> shift)
                }
                _ => None,
            }
        }

        fn u64_from_imm64(&mut self, imm: $crate::ir::immediates::Imm64) -> u64 {
            imm.bits() as u64
        }

        fn u32_from_ieee16(&mut self, imm: $crate::ir::immediates::Ieee16) -> u32 {
            imm.bits() as u32
        }

        fn u32_from_ieee32(&mut self, imm: $crate::ir::immediates::Ieee32) -> u32 {
            imm.bits()
        }

        fn u64_from_ieee64(&mut self, imm: $crate::ir::immediates::Ieee64) -> u64 {
            imm.bits()
        }

        fn u8_from_uimm8(&mut self, imm: $crate::ir::immediates::Uimm8) -> u8 {
            imm
        }

        fn output_reg(&mut self, reg: $crate::machinst::Reg) -> $crate::machinst::isle::InstOutput {
            $crate::machinst::isle::InstOutput::from_iter([reg])
        }

        fn output_pair(
            &mut self,
            a: $crate::machinst::Reg,
            b: $crate::machinst::Reg,
        ) -> $crate::machinst::isle::InstOutput {
            $crate::machinst::isle::InstOutput::from_iter([a, b])
        }

        fn output_none(&mut self) -> $crate::machinst::isle::InstOutput {
            $crate::machinst::isle::InstOutput::new()
        }

        fn unpack_value_array_2(
            &mut self,
            arr: &$crate::machinst::isle::ValueArray2,
        ) -> ($crate::ir::Value, $crate::ir::Value) {
            let [a, b] = *arr;
            (a, b)
        }

        fn pack_value_array_2(
            &mut self,
            a: $crate::ir::Value,
            b: $crate::ir::Value,
        ) -> $crate::machinst::isle::ValueArray2 {
            [a, b]
        }

        fn unpack_value_array_3(
            &mut self,
            arr: &$crate::machinst::isle::ValueArray3,
        ) -> ($crate::ir::Value, $crate::ir::Value, $crate::ir::Value) {
            let [a, b, c] = *arr;
            (a, b, c)
        }

        fn pack_value_array_3(
            &mut self,
            a: $crate::ir::Value,
            b: $crate::ir::Value,
            c: $crate::ir::Value,
        ) -> $crate::machinst::isle::ValueArray3 {
            [a, b, c]
        }

        fn unpack_block_array_2(
            &mut self,
            arr: &$crate::machinst::isle::BlockArray2,
        ) -> ($crate::ir::BlockCall, $crate::ir::BlockCall) {
            let [a, b] = *arr;
            (a, b)
        }

        fn pack_block_array_2(
            &mut self,
            a: $crate::ir::BlockCall,
            b: $crate::ir::BlockCall,
        ) -> $crate::machinst::isle::BlockArray2 {
            [a, b]
        }
    };
}
