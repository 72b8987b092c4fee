//! CLIF's atomics and fences: on global memory (an i64 address) `atomic_rmw` and
//! `atomic_cas` as one atomic instruction of each generation's global-memory form (MUBUF
//! `addr64` on gfx6, FLAT on gfx7/gfx8, GLOBAL on gfx9), `atomic_load`/`atomic_store` as
//! plain accesses, each between the waits and cache invalidation that make it sequentially
//! consistent, as CLIF promises, at agent scope; on workgroup memory (an i32 address) the
//! DS atomics and plain DS accesses between the waits of workgroup scope, the widest scope
//! LDS has (LLVM's AMDGPU memory model for GFX6–GFX9, `docs/ir.md` "Atomics").
//! `machinst::expand_atomics` has already turned the operations with no instruction
//! (`nand`, 8- and 16-bit read-modify-writes) into compare-and-swap loops.

use super::workgroup::MAX_OFFSET;
use super::{InstOutput, IsleContext};
use crate::ir::{self, AtomicRmwOp, Value};
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::{Enc, Gen, Op};
use crate::isa::gcn::regs::VGPR;
use crate::machinst::lower::constant_sum;
use crate::machinst::{Reg, RegClass};
use smallvec::smallvec;

/// What an atomic instruction does to memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Swap,
    Cmpswap,
    Add,
    Sub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
}

/// Each atomic as FLAT (gfx7/gfx8), GLOBAL (gfx9) and MUBUF `addr64` (gfx6), 32-bit then
/// 64-bit (`_x2`).
const ATOMIC_OPS: &[(Kind, [[Op; 3]; 2])] = {
    use Kind::*;
    use Op::*;
    &[
        (
            Swap,
            [
                [FlatAtomicSwap, GlobalAtomicSwap, BufferAtomicSwap],
                [FlatAtomicSwapX2, GlobalAtomicSwapX2, BufferAtomicSwapX2],
            ],
        ),
        (
            Cmpswap,
            [
                [FlatAtomicCmpswap, GlobalAtomicCmpswap, BufferAtomicCmpswap],
                [
                    FlatAtomicCmpswapX2,
                    GlobalAtomicCmpswapX2,
                    BufferAtomicCmpswapX2,
                ],
            ],
        ),
        (
            Add,
            [
                [FlatAtomicAdd, GlobalAtomicAdd, BufferAtomicAdd],
                [FlatAtomicAddX2, GlobalAtomicAddX2, BufferAtomicAddX2],
            ],
        ),
        (
            Sub,
            [
                [FlatAtomicSub, GlobalAtomicSub, BufferAtomicSub],
                [FlatAtomicSubX2, GlobalAtomicSubX2, BufferAtomicSubX2],
            ],
        ),
        (
            Smin,
            [
                [FlatAtomicSmin, GlobalAtomicSmin, BufferAtomicSmin],
                [FlatAtomicSminX2, GlobalAtomicSminX2, BufferAtomicSminX2],
            ],
        ),
        (
            Umin,
            [
                [FlatAtomicUmin, GlobalAtomicUmin, BufferAtomicUmin],
                [FlatAtomicUminX2, GlobalAtomicUminX2, BufferAtomicUminX2],
            ],
        ),
        (
            Smax,
            [
                [FlatAtomicSmax, GlobalAtomicSmax, BufferAtomicSmax],
                [FlatAtomicSmaxX2, GlobalAtomicSmaxX2, BufferAtomicSmaxX2],
            ],
        ),
        (
            Umax,
            [
                [FlatAtomicUmax, GlobalAtomicUmax, BufferAtomicUmax],
                [FlatAtomicUmaxX2, GlobalAtomicUmaxX2, BufferAtomicUmaxX2],
            ],
        ),
        (
            And,
            [
                [FlatAtomicAnd, GlobalAtomicAnd, BufferAtomicAnd],
                [FlatAtomicAndX2, GlobalAtomicAndX2, BufferAtomicAndX2],
            ],
        ),
        (
            Or,
            [
                [FlatAtomicOr, GlobalAtomicOr, BufferAtomicOr],
                [FlatAtomicOrX2, GlobalAtomicOrX2, BufferAtomicOrX2],
            ],
        ),
        (
            Xor,
            [
                [FlatAtomicXor, GlobalAtomicXor, BufferAtomicXor],
                [FlatAtomicXorX2, GlobalAtomicXorX2, BufferAtomicXorX2],
            ],
        ),
    ]
};

/// The atomic instruction of `kind` on `bytes`-wide data (4 or 8) for `generation`.
fn atomic_op(kind: Kind, bytes: u32, generation: Gen) -> Op {
    let (_, forms) = ATOMIC_OPS
        .iter()
        .find(|(k, _)| *k == kind)
        .expect("every kind has a row");
    let row = forms[(bytes == 8) as usize];
    match generation {
        Gen::Gfx6 => row[2],
        Gen::Gfx7 | Gen::Gfx8 => row[0],
        Gen::Gfx9 => row[1],
    }
}

/// Each atomic on workgroup memory (DS): 32-bit then 64-bit, each without and with the
/// old value returned. An exchange always returns it (DS has no other form).
const DS_ATOMIC_OPS: &[(Kind, [[Op; 2]; 2])] = {
    use Kind::*;
    use Op::*;
    &[
        (
            Swap,
            [
                [DsWrxchgRtnB32, DsWrxchgRtnB32],
                [DsWrxchgRtnB64, DsWrxchgRtnB64],
            ],
        ),
        (
            Cmpswap,
            [[DsCmpstB32, DsCmpstRtnB32], [DsCmpstB64, DsCmpstRtnB64]],
        ),
        (Add, [[DsAddU32, DsAddRtnU32], [DsAddU64, DsAddRtnU64]]),
        (Sub, [[DsSubU32, DsSubRtnU32], [DsSubU64, DsSubRtnU64]]),
        (Smin, [[DsMinI32, DsMinRtnI32], [DsMinI64, DsMinRtnI64]]),
        (Umin, [[DsMinU32, DsMinRtnU32], [DsMinU64, DsMinRtnU64]]),
        (Smax, [[DsMaxI32, DsMaxRtnI32], [DsMaxI64, DsMaxRtnI64]]),
        (Umax, [[DsMaxU32, DsMaxRtnU32], [DsMaxU64, DsMaxRtnU64]]),
        (And, [[DsAndB32, DsAndRtnB32], [DsAndB64, DsAndRtnB64]]),
        (Or, [[DsOrB32, DsOrRtnB32], [DsOrB64, DsOrRtnB64]]),
        (Xor, [[DsXorB32, DsXorRtnB32], [DsXorB64, DsXorRtnB64]]),
    ]
};

/// The DS atomic of `kind` on `bytes`-wide data (4 or 8), returning the old value or not.
fn ds_atomic_op(kind: Kind, bytes: u32, returns: bool) -> Op {
    let (_, forms) = DS_ATOMIC_OPS
        .iter()
        .find(|(k, _)| *k == kind)
        .expect("every kind has a row");
    forms[(bytes == 8) as usize][returns as usize]
}

/// The hardware's operation for a CLIF read-modify-write; NAND has none.
fn rmw_kind(op: AtomicRmwOp) -> Option<Kind> {
    Some(match op {
        AtomicRmwOp::Add => Kind::Add,
        AtomicRmwOp::Sub => Kind::Sub,
        AtomicRmwOp::And => Kind::And,
        AtomicRmwOp::Or => Kind::Or,
        AtomicRmwOp::Xor => Kind::Xor,
        AtomicRmwOp::Xchg => Kind::Swap,
        AtomicRmwOp::Umin => Kind::Umin,
        AtomicRmwOp::Umax => Kind::Umax,
        AtomicRmwOp::Smin => Kind::Smin,
        AtomicRmwOp::Smax => Kind::Smax,
        AtomicRmwOp::Nand => return None,
    })
}

impl IsleContext<'_, '_> {
    pub(super) fn atomic_rmw(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        op: AtomicRmwOp,
        addr: Value,
        value: Value,
    ) -> InstOutput {
        let Some(kind) = rmw_kind(op) else {
            self.fail(format!(
                "`atomic_rmw` {op} is not supported on GCN (no instruction; a compare-and-swap \
                 loop is not implemented yet)"
            ));
            return smallvec![];
        };
        if !matches!(ty.bytes(), 4 | 8) || !ty.is_int() {
            self.fail(format!(
                "`atomic_rmw` {op} of type {ty} is not supported on GCN (i32 and i64 only)"
            ));
            return smallvec![];
        }
        let data = self.data_vgpr(value);
        if self.is_workgroup_address(addr) {
            return self.workgroup_atomic(inst, kind, ty, addr, data, None);
        }
        self.atomic(inst, kind, ty, addr, data)
    }

    pub(super) fn atomic_cas(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        addr: Value,
        expected: Value,
        replacement: Value,
    ) -> InstOutput {
        if !matches!(ty.bytes(), 4 | 8) || !ty.is_int() {
            self.fail(format!(
                "`atomic_cas` of type {ty} is not supported on GCN (i32 and i64 only)"
            ));
            return smallvec![];
        }
        if self.is_workgroup_address(addr) {
            // `ds_cmpst_*` compares with DATA0 and writes DATA1, two separate operands.
            let cmp = self.data_vgpr(expected);
            let new = self.data_vgpr(replacement);
            return self.workgroup_atomic(inst, Kind::Cmpswap, ty, addr, cmp, Some(new));
        }
        // The data of `cmpswap`: the new value, then the one compared with memory.
        let parts = [replacement, expected].map(|v| self.data_vgpr(v));
        let class = if ty.bytes() == 4 {
            RegClass::Float
        } else {
            RegClass::Vector
        };
        let data = self.vreg(VGPR, class);
        self.emit(Inst::Combine {
            dst: data,
            parts: parts.into_iter().collect(),
        });
        self.atomic(inst, Kind::Cmpswap, ty, addr, data)
    }

    /// The atomic `kind` of `ty` at `addr` with `data`, between the waits of its ordering;
    /// the returning form only when the CLIF result is used.
    fn atomic(
        &mut self,
        inst: ir::Inst,
        kind: Kind,
        ty: ir::Type,
        addr: Value,
        data: Reg,
    ) -> InstOutput {
        let op = atomic_op(kind, ty.bytes(), self.backend.generation);
        let Some(address) = self.address(op, addr, 0) else {
            return smallvec![];
        };
        let rsrc = self.buffer_rsrc(op);
        let result = self.lower.dfg().first_result(inst);
        let returns = self.lower.is_used(result);
        let class = if ty.bytes() == 4 {
            RegClass::Int
        } else {
            RegClass::Float
        };
        // MUBUF returns the old value in the data registers, the first of them for cmpswap.
        let mubuf = op.info().enc == Enc::Mubuf;
        let dst = returns.then(|| {
            let class = if mubuf { data.class() } else { class };
            self.vreg(VGPR, class)
        });
        self.release();
        self.emit(Inst::Atomic {
            op,
            dst,
            addr: address.vaddr,
            offset: address.offset,
            data,
            sbase: address.saddr.or(rsrc),
        });
        self.acquire();
        match dst {
            Some(d) if mubuf && kind == Kind::Cmpswap => smallvec![self.half(d, false)],
            Some(d) => smallvec![d],
            // Nothing reads the result: a register that is never defined stands for it.
            None => smallvec![self.vreg(VGPR, class)],
        }
    }

    /// The DS atomic `kind` of `ty` at the workgroup address `addr` with `data` (and
    /// `data1`, `ds_cmpst`'s new value), between the waits of workgroup scope; the
    /// returning form only when the CLIF result is used.
    fn workgroup_atomic(
        &mut self,
        inst: ir::Inst,
        kind: Kind,
        ty: ir::Type,
        addr: Value,
        data: Reg,
        data1: Option<Reg>,
    ) -> InstOutput {
        let result = self.lower.dfg().first_result(inst);
        let returns = self.lower.is_used(result);
        let op = ds_atomic_op(kind, ty.bytes(), returns);
        let (x, c) = constant_sum(self, addr, 0);
        let (vaddr, offset) = self.ds_offset(x, c, MAX_OFFSET, 1);
        let class = if ty.bytes() == 4 {
            RegClass::Int
        } else {
            RegClass::Float
        };
        // `ds_wrxchg` returns the old value whether it is used or not.
        let dst = self.vreg(VGPR, class);
        self.workgroup_order();
        self.emit(Inst::DsAtomic {
            op,
            dst: (op.info().dst != 0).then_some(dst),
            addr: vaddr,
            data,
            data1,
            offset: offset as u16,
        });
        self.workgroup_order();
        smallvec![dst]
    }

    /// Whether `addr` addresses workgroup memory (an i32, `docs/ir.md` "Memory spaces").
    fn is_workgroup_address(&self, addr: Value) -> bool {
        self.lower.dfg().value_type(addr) == ir::types::I32
    }

    /// `atomic_load`: a plain load (every width is single-copy atomic when aligned) with
    /// `glc`, which reads past the wave's L1, between the waits of its ordering.
    pub(super) fn atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        if self.is_workgroup_address(addr) {
            return self.workgroup_atomic_load(ty, addr);
        }
        let Some((op, class)) = self
            .load_op(ir::Opcode::Load, ty)
            .filter(|_| ty.bytes() <= 8)
        else {
            self.fail(format!("`atomic_load` of type {ty} is not supported"));
            return smallvec![];
        };
        let loaded = self.global_load(op, addr, 0, true, |this| {
            let dst = this.vreg(VGPR, class);
            this.release();
            dst
        });
        if loaded.is_some() {
            self.acquire();
        }
        loaded.into_iter().collect()
    }

    /// `atomic_store`: a plain store after every earlier access has completed (stores
    /// write through L1 on gfx6–gfx9, so no cache control is needed).
    pub(super) fn atomic_store(&mut self, value: Value, addr: Value) -> InstOutput {
        let ty = self.lower.dfg().value_type(value);
        if self.is_workgroup_address(addr) {
            return self.workgroup_atomic_store(ty, value, addr);
        }
        let op = match ty.bytes() {
            1 => Op::FlatStoreByte,
            2 => Op::FlatStoreShort,
            4 => Op::FlatStoreDword,
            8 => Op::FlatStoreDwordx2,
            _ => {
                self.fail(format!("`atomic_store` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        self.global_store(op, addr, 0, |this| {
            let data = this.data_vgpr(value);
            this.release();
            data
        });
        smallvec![]
    }

    /// `atomic_load` from workgroup memory: a plain DS load (single-copy atomic when
    /// aligned) between the waits of workgroup scope.
    fn workgroup_atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
        let (op, class) = match ty.bytes() {
            1 => (Op::DsReadU8, RegClass::Int),
            2 => (Op::DsReadU16, RegClass::Int),
            4 => (Op::DsReadB32, RegClass::Int),
            8 => (Op::DsReadB64, RegClass::Float),
            _ => {
                self.fail(format!("`atomic_load` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        let (x, c) = constant_sum(self, addr, 0);
        let (vaddr, offset) = self.ds_offset(x, c, MAX_OFFSET, 1);
        let dst = self.vreg(VGPR, class);
        self.workgroup_order();
        self.emit(Inst::Ds {
            op,
            dst,
            addr: vaddr,
            data: None,
            offset: offset as u16,
        });
        self.workgroup_order();
        smallvec![dst]
    }

    /// `atomic_store` to workgroup memory: a plain DS store after every earlier access of
    /// the wave that another wave could order it with.
    fn workgroup_atomic_store(&mut self, ty: ir::Type, value: Value, addr: Value) -> InstOutput {
        let op = match ty.bytes() {
            1 => Op::DsWriteB8,
            2 => Op::DsWriteB16,
            4 => Op::DsWriteB32,
            8 => Op::DsWriteB64,
            _ => {
                self.fail(format!("`atomic_store` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        let (x, c) = constant_sum(self, addr, 0);
        let (vaddr, offset) = self.ds_offset(x, c, MAX_OFFSET, 1);
        let data = self.data_vgpr(value);
        self.workgroup_order();
        self.emit(Inst::DsWrite {
            op,
            addr: vaddr,
            data,
            data1: None,
            offset: offset as u16,
        });
        smallvec![]
    }

    /// `fence`: every earlier access completes, and later loads miss the L1 cache.
    pub(super) fn fence(&mut self) -> InstOutput {
        self.release();
        self.emit(Inst::InvalidateL1);
        smallvec![]
    }

    /// The release half of a sequentially consistent access: every earlier memory access
    /// of the wave has completed (LLVM: `s_waitcnt vmcnt(0) lgkmcnt(0)` before a seq_cst
    /// access at agent scope). `insert_waitcnt` keeps only the counters with something in
    /// flight.
    fn release(&mut self) {
        self.emit(Inst::Waitcnt {
            vmcnt: Some(0),
            expcnt: None,
            lgkmcnt: Some(0),
        });
    }

    /// The order of an access to LDS at workgroup scope, the widest LDS has (only the
    /// waves of the work-group can observe it), before and after it: every LDS, scalar and
    /// FLAT access in flight has completed. The work-group's waves share the compute unit's
    /// L1 cache, whose vector accesses complete in order, so global accesses need no wait
    /// and no cache is invalidated (LLVM's workgroup-scope sequences on GFX6–GFX9).
    fn workgroup_order(&mut self) {
        self.emit(Inst::Waitcnt {
            vmcnt: None,
            expcnt: None,
            lgkmcnt: Some(0),
        });
    }

    /// The acquire half: the access has completed, then the L1 cache is invalidated so
    /// that later loads see what other waves wrote before it.
    fn acquire(&mut self) {
        self.emit(Inst::Waitcnt {
            vmcnt: Some(0),
            expcnt: None,
            lgkmcnt: None,
        });
        self.emit(Inst::InvalidateL1);
    }

    /// `value` in VGPRs, the data of a vector-memory instruction: a 32-bit constant moved
    /// there directly.
    fn data_vgpr(&mut self, value: Value) -> Reg {
        if let Some(c) = self.const32(value) {
            return self.src_to_vgpr(Src::Imm(c));
        }
        let reg = self.value_reg(value);
        self.vgpr_copy(reg)
    }

    /// gfx6's buffer resource for a MUBUF `op` (`memory.rs`).
    fn buffer_rsrc(&mut self, op: Op) -> Option<Reg> {
        if op.info().enc != Enc::Mubuf {
            return None;
        }
        let rsrc = self.backend.buffer_rsrc.get();
        if rsrc.is_none() {
            self.fail("internal error: no buffer resource for a gfx6 atomic");
        }
        rsrc
    }
}
