//! CLIF's atomics on NV50 (`docs/ir.md`, "Atomics"; `docs/nv50.md`, "Atomics"): global
//! memory through `g15[]` with the atomic instructions of G84 and later (`g80.c`
//! `tabatomm`, `tabredm`; 64-bit `add`, `exch`, `cas` GT200 only), a result-less `red` where
//! the old value is unused; `atomic_load`/`atomic_store` are plain naturally aligned
//! accesses. The operations without an instruction (`nand`, GT200's other i64 ones) are
//! compare-and-swap loops by then (`machinst/expand_atomics.rs`), and so are i8 and i16 on
//! their word. G80 has no atomic instruction. Atomics on workgroup memory are GT200's loop
//! of `ld lock` and `st unlock` ([`Inst::SharedAtomic`]); G80–G98 have no way to make
//! them atomic.

use super::isle::generated::Context as _;
use super::{InstOutput, IsleContext};
use crate::ir::{self, AtomicRmwOp, Value, types};
use crate::isa::nv50::inst::{Inst, SharedRmw, Src};
use crate::isa::nv50::mc::{AtomOp, Op, Ty, Variant};
use crate::isa::nv50::regs::FLAG;
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    /// Refuses an atomic NV50 cannot do on `addr`'s memory; the reason, if so.
    fn atomic_unsupported(&self, addr: Value) -> Option<String> {
        if self.is_shared(addr) {
            if self.backend.variant < Variant::G200 {
                return Some(
                    "atomics on workgroup memory need GT200 (`gt200`): shared-memory atomics \
                     (`ld lock`, `st unlock`) came with compute capability 1.2, and G80–G98 \
                     have no instruction that makes a read-modify-write of `s[]` atomic"
                        .into(),
                );
            }
            return None;
        }
        if self.backend.variant < Variant::G84 {
            return Some(
                "G80 has no atomic instructions (global atomics come with G84, compute \
                 capability 1.1: envytools `g80.c`); compile for `g84` or `gt200`"
                    .into(),
            );
        }
        None
    }

    /// Whether `addr` addresses workgroup memory (`s[]`): an i32 address.
    fn is_shared(&self, addr: Value) -> bool {
        self.lower.dfg().value_type(addr) == types::I32
    }

    /// Refuses an atomic on `ty` in `s[]` that neither a lock nor one access covers.
    fn refuse_shared(&mut self, ty: ir::Type) {
        self.fail(format!(
            "atomics on {ty} in workgroup memory are not supported on NV50: `ld lock` locks \
             one 32-bit word of `s[]`, and `s[]` is accessed by words"
        ));
    }

    /// An atomic on the `s[]` word at `addr` (GT200): the lock loop of
    /// [`Inst::SharedAtomic`], its old value in a new register. Only 32-bit words lock:
    /// i8 and i16 are compare-and-swap loops on their word by then
    /// (`machinst/expand_atomics.rs`), i64 is refused.
    fn shared_atomic(
        &mut self,
        ty: ir::Type,
        op: SharedRmw,
        addr: Value,
        src: Option<Reg>,
        cmp: Option<Reg>,
    ) -> InstOutput {
        if ty.bytes() != 4 {
            self.refuse_shared(ty);
            return InstOutput::new();
        }
        let addr = self.put_in_reg(addr);
        let dst = self.vreg(RegClass::Int);
        let tmp = self.vreg(RegClass::Int);
        let tmp2 = (op == SharedRmw::Cas).then(|| self.vreg(RegClass::Int));
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        self.emit(Inst::SharedAtomic {
            op,
            dst,
            addr,
            src,
            cmp,
            tmp,
            tmp2,
            c,
        });
        InstOutput::from_iter([dst])
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
        if self.is_shared(addr) {
            let shared_op = match op {
                AtomicRmwOp::Add | AtomicRmwOp::Sub => SharedRmw::Alu(Op::Add, Ty::B32),
                AtomicRmwOp::And => SharedRmw::Alu(Op::And, Ty::B32),
                AtomicRmwOp::Or => SharedRmw::Alu(Op::Or, Ty::B32),
                AtomicRmwOp::Xor => SharedRmw::Alu(Op::Xor, Ty::B32),
                AtomicRmwOp::Nand => SharedRmw::Nand,
                AtomicRmwOp::Umin => SharedRmw::Alu(Op::Min, Ty::U32),
                AtomicRmwOp::Umax => SharedRmw::Alu(Op::Max, Ty::U32),
                AtomicRmwOp::Smin => SharedRmw::Alu(Op::Min, Ty::S32),
                AtomicRmwOp::Smax => SharedRmw::Alu(Op::Max, Ty::S32),
                AtomicRmwOp::Xchg => SharedRmw::Exch,
            };
            let mut src = self.put_in_reg(value);
            if op == AtomicRmwOp::Sub {
                src = self.op2(Op::Subr, Ty::B32, Src::Reg(src), Src::Imm(0));
            }
            return self.shared_atomic(ty, shared_op, addr, Some(src), None);
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
                "`atomic_rmw {op}` on {ty} needs GT200 (`gt200`): the atomic instructions of \
                 NV50 ({}) are 32-bit, and 64-bit global atomics (`add`, `exch`, `cas`, on \
                 which the other 64-bit operations loop) came with compute capability 1.2",
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
        if self.is_shared(addr) {
            let cmp = self.put_in_reg(expected);
            let src = self.put_in_reg(replacement);
            return self.shared_atomic(ty, SharedRmw::Cas, addr, Some(src), Some(cmp));
        }
        let (aty, class) = match ty {
            types::I32 => (Ty::B32, RegClass::Int),
            types::I64 if self.backend.variant.has_f64() => (Ty::B64, RegClass::Float),
            _ => {
                self.fail(format!(
                    "`atomic_cas` on {ty} needs GT200 (`gt200`): `cas` on NV50 ({}) is \
                     32-bit, and its 64-bit form came with compute capability 1.2",
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
    /// On `s[]` (GT200) too, up to 32 bits: a plain load of a word another warp has
    /// locked waits until that one unlocks it (`isa.rst`).
    pub(super) fn atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        if self.is_shared(addr) {
            if let Some(reason) = self.atomic_unsupported(addr) {
                self.fail(reason);
                return InstOutput::new();
            }
            if ty.bytes() > 4 {
                self.refuse_shared(ty);
                return InstOutput::new();
            }
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
    /// On `s[]` (GT200), an exchange whose old value goes unused.
    pub(super) fn atomic_store(&mut self, value: Value, addr: Value) -> InstOutput {
        let ty = self.lower.dfg().value_type(value);
        if self.is_shared(addr) {
            if let Some(reason) = self.atomic_unsupported(addr) {
                self.fail(reason);
                return InstOutput::new();
            }
            let src = self.put_in_reg(value);
            self.shared_atomic(ty, SharedRmw::Exch, addr, Some(src), None);
            return InstOutput::new();
        }
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
