//! Workgroup memory on NV50: loads and stores whose address is an i32 (`docs/ir.md`,
//! "Memory spaces") access the block's `s[]`, the segment starting at
//! [`WORKGROUP_BASE`](crate::isa::nv50::abi::WORKGROUP_BASE), after the largest argument
//! area (`docs/nv50.md`, "Shared memory"). An address `base + x + c` is `x` in `$a3` and
//! `c` (the base included) in the instruction's offset field; emission sets `$a3`
//! (`emit.rs`, `AddressRegister::set`). `s[]` is read in 8-, 16- and 32-bit units (`ld` on G84
//! and later, a `mov` operand on G80) and written with `st b8`/`b16`/`b32`: a signed byte is
//! loaded as `u8` and sign-extended (there is no `s8` unit), 8 and 16 bytes are 2 and 4
//! words, which need 4-byte alignment only.

use super::{InstOutput, IsleContext};
use crate::ir::{self, Value};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Op, Ty};
use crate::machinst::lower::{AddressTerms, constant_sum};
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    /// A load of `ty` (the access type the rules chose: `u8`, `s8`, `u16`, `s16`, `b32`,
    /// `b64`, `b128`) into a value of `clif_ty` from workgroup memory at `addr + offset`.
    pub(super) fn workgroup_load(
        &mut self,
        ty: Ty,
        clif_ty: ir::Type,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let (x, c) = constant_sum(self, addr, offset as i64);
        let Some(offset) = self.shared_offset(c) else {
            return InstOutput::new();
        };
        let addr = x.map(|x| self.value_reg(x));
        let wide = clif_ty.bits() == 64 && ty.bytes() < 8;
        let (access, class) = match ty {
            Ty::S8 => (Ty::U8, RegClass::Int),
            Ty::B64 => (Ty::B32, RegClass::Float),
            Ty::B128 => (Ty::B32, RegClass::Vector),
            _ => (ty, RegClass::Int),
        };
        let mut dst = self.vreg(class);
        self.emit(Inst::SharedLoad {
            ty: access,
            dst,
            addr,
            offset,
            via_a3: false,
        });
        if ty == Ty::S8 {
            let ext = self.vreg(RegClass::Int);
            let mut cvt = Alu::new(Op::Cvt, Some(Ty::S32), Some(ext), &[Src::Reg(dst)]);
            cvt.src_ty = Some(Ty::S8);
            self.emit(Inst::Alu(cvt));
            dst = ext;
        }
        if !wide {
            return InstOutput::from_iter([dst]);
        }
        InstOutput::from_iter([self.widen_loaded(ty, dst)])
    }

    /// A store of `data` as `ty` (`u8`, `u16`: the low bits; `b32`, `b64`, `b128`) to
    /// workgroup memory at `addr + offset`.
    pub(super) fn workgroup_store(
        &mut self,
        ty: Ty,
        mut data: Reg,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let (x, c) = constant_sum(self, addr, offset as i64);
        let Some(offset) = self.shared_offset(c) else {
            return InstOutput::new();
        };
        let addr = x.map(|x| self.value_reg(x));
        let access = match ty {
            Ty::U8 => Ty::B8,
            Ty::U16 => Ty::B16,
            _ => Ty::B32,
        };
        if ty.bytes() < 8 && data.class() == RegClass::Float {
            // `istore8`/`istore16`/`istore32` of an i64: its low word.
            data = self.half(data, false);
        }
        self.emit(Inst::SharedStore {
            ty: access,
            data,
            addr,
            offset,
            via_a3: false,
        });
        InstOutput::new()
    }

    /// The offset field's value for the constant part `c` of an address, or a failure
    /// when it lies outside `s[]`.
    fn shared_offset(&mut self, c: i64) -> Option<u32> {
        match u32::try_from(c) {
            Ok(offset) if offset < SHARED_LIMIT => Some(offset),
            _ => {
                self.fail(format!(
                    "a workgroup-memory address whose constant part {c:#x} lies outside the \
                     16 KiB of `s[]`"
                ));
                None
            }
        }
    }
}

/// Bytes of `s[]` per block (`SHARED_SIZE` at most 0x4000: `compute.xml`).
pub const SHARED_LIMIT: u32 = 0x4000;

impl AddressTerms for IsleContext<'_, '_> {
    fn constant_term(&mut self, value: Value) -> Option<i64> {
        self.const32(value).map(|k| k as i32 as i64)
    }

    fn iadd_terms(&mut self, value: Value) -> Option<(Value, Value)> {
        use super::isle::generated::Context as _;
        let inst = self.def_inst(value)?;
        crate::machinst::lower::iadd_operands(self.lower.dfg(), inst)
    }
}
