//! Private memory: a stack slot of one to eight dwords, every dword written first (so that
//! each load reads bytes a store defined), then values of each type stored and loaded at
//! constant offsets and at per-lane indexes (`stack_addr` plus a masked operand), each
//! aligned to its size up to a dword (`docs/ir.md`, "Memory spaces"), or accessed by an
//! atomic of up to a dword (each lane's own memory: the single-work-item case of atomics);
//! the loaded values go into scope; the types are those the target's profile has. The GCN
//! backend keeps the slot in scratch (`src/isa/gcn/lower/private.rs`), NV50 in `l[]`
//! (`src/isa/nv50/lower/private.rs`).

use super::{Generator, Spec};
use crate::ir::types::{F32, F64, I8, I16, I32, I64};
use crate::ir::{self, InstBuilder, MemFlagsData, Opcode, Value};
use arbitrary::Result;

/// One function instruction in this many is a private-memory sequence (where the target
/// lowers stack slots).
pub(super) const PRIVATE_ODDS: u32 = 12;

impl Generator<'_, '_, '_> {
    /// Whether the target lowers stack slots.
    pub(super) fn lowers_private_memory(&self) -> bool {
        !self.config.wide && self.config.profile.lowers(Opcode::StackAddr, I32)
    }

    /// One stack slot, filled, then accessed (see the module documentation).
    pub(super) fn private_memory(&mut self) -> Result<()> {
        let dwords = *self.u.choose(&[1u32, 2, 4, 8])?;
        let align_shift = *self.u.choose(&[2u8, 3, 4])?;
        let slot = self.func.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            4 * dwords,
            align_shift,
        ));
        let pointer = *self.u.choose(&[I32, I64])?;
        let base = self.cursor().ins().stack_addr(pointer, slot, 0);
        for k in 0..dwords {
            let v = self.exact_operand(I32)?;
            self.cursor()
                .ins()
                .store(MemFlagsData::trusted(), v, base, 4 * k as i32);
        }
        for _ in 0..self.u.int_in_range(1..=4)? {
            let types: Vec<ir::Type> = [I8, I16, I32, I64, F32, F64]
                .into_iter()
                .filter(|t| self.config.profile.value_types.contains(t))
                .collect();
            let ty = *self.u.choose(&types)?;
            let size = ty.bytes();
            if size > 4 * dwords {
                continue;
            }
            let align = size.min(4);
            let (addr, offset) = if dwords > 1 && size <= 4 && self.u.ratio(1, 2)? {
                // A per-lane dword (`x & (dwords - 1)`), at an aligned byte within it.
                let index = self.per_lane_dword(dwords, pointer)?;
                let addr = self.cursor().ins().iadd(base, index);
                let within = align * self.u.int_in_range(0..=(4 - size) / align)?;
                (addr, within)
            } else {
                let at = align * self.u.int_in_range(0..=(4 * dwords - size) / align)?;
                (base, at)
            };
            if ty.is_int() && size <= 4 && self.u.ratio(1, 3)? {
                // An atomic, on the exact address (atomics take no offset).
                let at = if offset == 0 {
                    addr
                } else {
                    let k = self.cursor().ins().iconst(pointer, offset as i64);
                    self.spec[k] = Spec::Exact;
                    self.cursor().ins().iadd(addr, k)
                };
                self.private_atomic(ty, at)?;
            } else if self.u.ratio(1, 2)? {
                let v = self.exact_operand(ty)?;
                self.cursor()
                    .ins()
                    .store(MemFlagsData::trusted(), v, addr, offset as i32);
            } else {
                let v = self
                    .cursor()
                    .ins()
                    .load(ty, MemFlagsData::trusted(), addr, offset as i32);
                self.define(v);
            }
        }
        Ok(())
    }

    /// An atomic of `ty` (i8–i32, naturally aligned) on the stack address `addr`: a
    /// read-modify-write of any operation, a compare-and-swap, an atomic load or store.
    /// On private memory each is a plain access sequence (`machinst/expand_atomics.rs`).
    fn private_atomic(&mut self, ty: ir::Type, addr: Value) -> Result<()> {
        use ir::AtomicRmwOp::*;
        let flags = MemFlagsData::trusted();
        match self.u.int_in_range(0..=3)? {
            0 => {
                let ops = [Add, Sub, And, Nand, Or, Xor, Xchg, Umin, Umax, Smin, Smax];
                let op = *self.u.choose(&ops)?;
                let v = self.exact_operand(ty)?;
                let old = self.cursor().ins().atomic_rmw(ty, flags, op, addr, v);
                self.define(old);
            }
            1 => {
                let expected = self.exact_operand(ty)?;
                let new = self.exact_operand(ty)?;
                let old = self.cursor().ins().atomic_cas(flags, addr, expected, new);
                self.define(old);
            }
            2 => {
                let v = self.cursor().ins().atomic_load(ty, flags, addr);
                self.define(v);
            }
            _ => {
                let v = self.exact_operand(ty)?;
                self.cursor().ins().atomic_store(flags, v, addr);
            }
        }
        Ok(())
    }

    /// `(x & (dwords - 1)) * 4` of an i32 operand, as a `pointer`-typed offset.
    fn per_lane_dword(&mut self, dwords: u32, pointer: ir::Type) -> Result<Value> {
        let x = self.exact_operand(I32)?;
        let mask = self.cursor().ins().iconst(I32, (dwords - 1) as i64);
        self.spec[mask] = Spec::Exact;
        let masked = self.cursor().ins().band(x, mask);
        let two = self.cursor().ins().iconst(I32, 2);
        self.spec[two] = Spec::Exact;
        let index = self.cursor().ins().ishl(masked, two);
        Ok(if pointer == I64 {
            self.cursor().ins().uextend(I64, index)
        } else {
            index
        })
    }
}
