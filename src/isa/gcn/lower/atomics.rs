//! CLIF's atomics and fences on global memory: `atomic_rmw` and `atomic_cas` as one
//! atomic instruction of each generation's global-memory form (MUBUF `addr64` on gfx6,
//! FLAT on gfx7/gfx8, GLOBAL on gfx9), `atomic_load`/`atomic_store` as plain accesses, each
//! between the waits and cache invalidation that make it sequentially consistent, as CLIF
//! promises, at agent scope (LLVM's AMDGPU memory model for GFX6–GFX9, `docs/ir.md`
//! "Atomics").

use super::{InstOutput, IsleContext};
use crate::ir::{self, AtomicRmwOp, Value};
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::{Enc, Gen, Op};
use crate::isa::gcn::regs::VGPR;
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

    /// `atomic_load`: a plain load (every width is single-copy atomic when aligned) with
    /// `glc`, which reads past the wave's L1, between the waits of its ordering.
    pub(super) fn atomic_load(&mut self, ty: ir::Type, addr: Value) -> InstOutput {
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
