//! CLIF's atomics on NV50 (`docs/ir.md`, "Atomics"; `docs/nv50.md`, "Atomics"): global
//! memory through `g15[]` with the atomic instructions of G84 and later (`g80.c`
//! `tabatomm`, `tabredm`; 64-bit `add`, `exch`, `cas` GT200 only), a result-less `red` where
//! the old value is unused; `atomic_load`/`atomic_store` are plain naturally aligned
//! accesses. The operations without an instruction (`nand`, GT200's other i64 ones) are
//! compare-and-swap loops by then (`machinst/expand_atomics.rs`). G80 has no atomic instruction;
//! workgroup-memory atomics (GT200's `ld lock`/`st unlock` loop) and i8/i16 are not
//! implemented yet.

use super::isle::generated::Context as _;
use super::{InstOutput, IsleContext};
use crate::ir::{self, AtomicRmwOp, Value, types};
use crate::isa::nv50::inst::{Inst, Src};
use crate::isa::nv50::mc::{AtomOp, Op, Ty, Variant};
use crate::machinst::RegClass;

impl IsleContext<'_, '_> {
    /// Refuses an atomic NV50 cannot do on `addr`'s memory; the reason, if so.
    fn atomic_unsupported(&self, addr: Value) -> Option<String> {
        if self.backend.variant < Variant::G84 {
            return Some(
                "G80 has no atomic instructions (global atomics come with G84, compute \
                 capability 1.1: envytools `g80.c`); compile for `g84` or `gt200`"
                    .into(),
            );
        }
        if self.lower.dfg().value_type(addr) == types::I32 {
            return Some("atomics on workgroup memory are not supported on NV50 yet".into());
        }
        None
    }

    /// `atomic_rmw op ty` at `addr`.
    pub(super) fn atomic_rmw(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        op: AtomicRmwOp,
        addr: Value,
        value: Value,
    ) -> InstOutput {
        if let Some(reason) = self.atomic_unsupported(addr) {
            self.fail(reason);
            return InstOutput::new();
        }
        let wide = ty == types::I64;
        let gt200 = self.backend.variant.has_f64();
        let found = match (op, wide) {
            _ if ty.bits() < 32 => None,
            (AtomicRmwOp::Add | AtomicRmwOp::Sub, false) => Some((AtomOp::Add, Ty::U32)),
            (AtomicRmwOp::Add, true) if gt200 => Some((AtomOp::Add, Ty::U64)),
            (AtomicRmwOp::Xchg, false) => Some((AtomOp::Exch, Ty::B32)),
            (AtomicRmwOp::Xchg, true) if gt200 => Some((AtomOp::Exch, Ty::B64)),
            (AtomicRmwOp::And, false) => Some((AtomOp::And, Ty::B32)),
            (AtomicRmwOp::Or, false) => Some((AtomOp::Or, Ty::B32)),
            (AtomicRmwOp::Xor, false) => Some((AtomOp::Xor, Ty::B32)),
            (AtomicRmwOp::Umin, false) => Some((AtomOp::Min, Ty::U32)),
            (AtomicRmwOp::Umax, false) => Some((AtomOp::Max, Ty::U32)),
            (AtomicRmwOp::Smin, false) => Some((AtomOp::Min, Ty::S32)),
            (AtomicRmwOp::Smax, false) => Some((AtomOp::Max, Ty::S32)),
            _ => None,
        };
        let Some((aop, aty)) = found else {
            self.fail(format!(
                "`atomic_rmw {op}` on {ty} is not supported on NV50 ({}) yet: the atomic \
                 instructions are 32-bit (64-bit `add`, `exch` and `cas` on GT200, which \
                 makes the other 64-bit operations compare-and-swap loops), and i8/i16 \
                 would need a loop on the containing word",
                self.backend.variant.envydis_name()
            ));
            return InstOutput::new();
        };
        let mut src = self.put_in_reg(value);
        if op == AtomicRmwOp::Sub {
            src = self.op2(Op::Subr, Ty::B32, Src::Reg(src), Src::Imm(0));
        }
        let result = self.lower.dfg().first_result(inst);
        let dst = (self.lower.is_used(result) || aop == AtomOp::Exch)
            .then(|| self.vreg(if wide { RegClass::Float } else { RegClass::Int }));
        let addr = self.atomic_address(addr);
        self.emit(Inst::Atomic {
            op: aop,
            ty: aty,
            dst,
            addr,
            src,
            cmp: None,
        });
        match dst {
            Some(d) => InstOutput::from_iter([d]),
            // An unused result: any register will do.
            None => InstOutput::from_iter([src]),
        }
    }

    /// `atomic_cas ty` at `addr`: `cas` (`old == expected ? replacement : old`).
    pub(super) fn atomic_cas(
        &mut self,
        ty: ir::Type,
        addr: Value,
        expected: Value,
        replacement: Value,
    ) -> InstOutput {
        if let Some(reason) = self.atomic_unsupported(addr) {
            self.fail(reason);
            return InstOutput::new();
        }
        let (aty, class) = match ty {
            types::I32 => (Ty::B32, RegClass::Int),
            types::I64 if self.backend.variant.has_f64() => (Ty::B64, RegClass::Float),
            _ => {
                self.fail(format!(
                    "`atomic_cas` on {ty} is not supported on NV50 ({}): `cas` is 32-bit, and \
                     64-bit on GT200",
                    self.backend.variant.envydis_name()
                ));
                return InstOutput::new();
            }
        };
        let cmp = self.put_in_reg(expected);
        let src = self.put_in_reg(replacement);
        let dst = self.vreg(class);
        let addr = self.atomic_address(addr);
        self.emit(Inst::Atomic {
            op: AtomOp::Cas,
            ty: aty,
            dst: Some(dst),
            addr,
            src,
            cmp: Some(cmp),
        });
        InstOutput::from_iter([dst])
    }

    /// `atomic_load`: a plain load (a naturally aligned access of up to 8 bytes is
    /// single-copy atomic; `g[]` is not cached in the multiprocessor).
    pub(super) fn atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        if self.lower.dfg().value_type(addr) == types::I32 {
            self.fail("atomics on workgroup memory are not supported on NV50 yet");
            return InstOutput::new();
        }
        let aty = match ty.bytes() {
            1 => Ty::U8,
            2 => Ty::U16,
            4 => Ty::B32,
            _ => Ty::B64,
        };
        self.lower_load(&aty, ty, addr, 0)
    }

    /// `atomic_store`: a plain store.
    pub(super) fn atomic_store(&mut self, value: Value, addr: Value) -> InstOutput {
        if self.lower.dfg().value_type(addr) == types::I32 {
            self.fail("atomics on workgroup memory are not supported on NV50 yet");
            return InstOutput::new();
        }
        let ty = self.lower.dfg().value_type(value);
        let aty = match ty.bytes() {
            1 => Ty::U8,
            2 => Ty::U16,
            4 => Ty::B32,
            _ => Ty::B64,
        };
        self.lower_store(&aty, value, addr, 0)
    }

    /// The `g15[]` address register of an atomic (CLIF's atomics have no offset).
    fn atomic_address(&mut self, addr: Value) -> Src {
        self.address(addr, 0)
    }
}
