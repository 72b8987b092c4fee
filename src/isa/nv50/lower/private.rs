//! Private memory on NV50 (`docs/ir.md`, "Memory spaces"; `docs/nv50.md`, "Local memory"):
//! each thread's stack slots lie in its `l[]` at the offsets of `isa::stack_frame`, and a
//! stack address is that offset as an integer. A `load` or `store` whose address is a stack
//! address (`analysis::stack_addresses`) is an `ld`/`st` of `l[$a3 + offset]`: the constant
//! part of the address in the instruction's 16-bit offset field, a per-thread part in `$a3`
//! (emission sets it, as for `s[]`). `l[]` has every unit, `s8` included; an 8- or 16-byte
//! value is one `b64`/`b128` access where its address is known to be aligned to its size,
//! else one `b32` per word (CLIF asks private accesses to be aligned to 4 bytes only).

use super::isle::generated::Context as _;
use super::{InstOutput, IsleContext};
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::isa::nv50::inst::{Inst, Src};
use crate::isa::nv50::mc::{Op, Ty};
use crate::machinst::{Reg, RegClass};

/// Bytes of `l[]` a thread can address: the 16-bit offset field and `$a` (`isa.rst`,
/// "l[]: 16-bit, byte-oriented addressing"; `LOCAL_SIZE_LOG` reaches 0x10000).
pub const LOCAL_LIMIT: u32 = 0x1_0000;

/// How far [`IsleContext::split_private`] follows additions back from an address.
const SPLIT_DEPTH: u32 = 8;

/// An `l[]` address: a register with the per-thread part, and the offset field's value.
struct LocalAddress {
    addr: Option<Reg>,
    offset: u32,
    /// The address is a multiple of this (1 to 16).
    alignment: u32,
}

impl IsleContext<'_, '_> {
    /// Whether `addr` is a stack address: the access is private.
    pub(super) fn is_private(&self, addr: Value) -> bool {
        let addr = self.lower.dfg().resolve_aliases(addr);
        self.backend.stack.contains(addr)
    }

    /// `stack_addr`: the slot's offset in `l[]` plus `offset`, as an i32, or an i64 (its
    /// low word alone when nothing reads the high one).
    pub(super) fn stack_addr(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        slot: ir::StackSlot,
        offset: i32,
    ) -> InstOutput {
        let Some(at) = self.slot_offset(slot, offset as i64) else {
            return InstOutput::new();
        };
        let reg = match ty {
            types::I32 => self.mov_imm(at as u32),
            types::I64 if self.low_only(inst).is_some() => self.mov_imm(at as u32),
            types::I64 => self.const64(at as u64),
            _ => {
                self.fail(format!(
                    "`stack_addr` of type {ty}: a stack address is i32 or i64"
                ));
                return InstOutput::new();
            }
        };
        InstOutput::from_iter([reg])
    }

    /// The `l[]` offset of `slot` plus `offset`.
    fn slot_offset(&mut self, slot: ir::StackSlot, offset: i64) -> Option<i64> {
        let Some(&base) = self.backend.frame.stack_slots.get(slot.as_u32() as usize) else {
            self.fail(format!("{slot} is not a sized stack slot of the function"));
            return None;
        };
        Some(base as i64 + offset)
    }

    /// A load of `ty` (the access type the rules chose) into a value of `clif_ty` from the
    /// private address `addr + offset`.
    pub(super) fn private_load(
        &mut self,
        ty: Ty,
        clif_ty: ir::Type,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let Some(address) = self.local_address(addr, offset, ty.bytes()) else {
            return InstOutput::new();
        };
        let wide = clif_ty.bits() == 64 && ty.bytes() < 8;
        let class = match ty {
            Ty::B64 => RegClass::Float,
            Ty::B128 => RegClass::Vector,
            _ => RegClass::Int,
        };
        let dst = self.vreg(class);
        self.emit(Inst::LocalLoad {
            ty: access_ty(ty, address.alignment),
            dst,
            addr: address.addr,
            offset: address.offset,
        });
        if !wide {
            return InstOutput::from_iter([dst]);
        }
        InstOutput::from_iter([self.widen_loaded(ty, dst)])
    }

    /// A store of `data` as `ty` (`u8`, `u16`: the low bits; `b32`, `b64`, `b128`) to the
    /// private address `addr + offset`.
    pub(super) fn private_store(
        &mut self,
        ty: Ty,
        mut data: Reg,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let Some(address) = self.local_address(addr, offset, ty.bytes()) else {
            return InstOutput::new();
        };
        if ty.bytes() < 8 && data.class() == RegClass::Float {
            // A narrow store of an i64: its low word.
            data = self.half(data, false);
        }
        self.emit(Inst::LocalStore {
            ty: access_ty(ty, address.alignment),
            data,
            addr: address.addr,
            offset: address.offset,
        });
        InstOutput::new()
    }

    /// The register and offset field addressing `addr + offset` for an access of `bytes`:
    /// the constant part in the field when it lies in `l[]`, else added to the per-thread
    /// part first (which then must be in `l[]` on its own, as the access's address).
    fn local_address(&mut self, addr: Value, offset: i32, bytes: u32) -> Option<LocalAddress> {
        let (dynamic, constant) = self.split_private(addr, SPLIT_DEPTH)?;
        let constant = constant + offset as i64;
        let fits = |c: i64| c >= 0 && c + bytes as i64 <= LOCAL_LIMIT as i64;
        let Some(x) = dynamic else {
            if !fits(constant) {
                self.fail(format!(
                    "a private access at {constant:#x}, outside the {LOCAL_LIMIT:#x} bytes of \
                     `l[]` a thread can address"
                ));
                return None;
            }
            return Some(LocalAddress {
                addr: None,
                offset: constant as u32,
                alignment: 1 << (constant as u32).trailing_zeros().min(4),
            });
        };
        let zeros = self.low_zero_bits(x, SPLIT_DEPTH);
        let index = self.low_in_reg(x);
        let (addr, offset) = if fits(constant) {
            (index, constant as u32)
        } else {
            let sum = self.alu2(
                &Op::Add,
                &Ty::B32,
                Src::Reg(index),
                Src::Imm(constant as u32),
            );
            (sum, 0)
        };
        let zeros = zeros.min((constant as u64).trailing_zeros()).min(4);
        Some(LocalAddress {
            addr: Some(addr),
            offset,
            alignment: 1 << zeros,
        })
    }

    /// `addr` as a per-thread value plus a constant: the constant alone (`None`) where
    /// `addr` is a stack slot plus constants; `None` when the slot is not the function's.
    fn split_private(&mut self, addr: Value, depth: u32) -> Option<(Option<Value>, i64)> {
        let addr = self.lower.dfg().resolve_aliases(addr);
        let whole = Some((Some(addr), 0));
        let Some(inst) = self.def_inst(addr).filter(|_| depth > 0) else {
            return whole;
        };
        match self.lower.dfg().insts[inst] {
            InstructionData::StackAddr {
                opcode: Opcode::StackAddr,
                stack_slot,
                offset,
            } => {
                let at = self.slot_offset(stack_slot, i32::from(offset) as i64)?;
                Some((None, at))
            }
            InstructionData::Binary {
                opcode: Opcode::Iadd,
                args: [a, b],
            } => {
                // One side is the stack address; a constant or a per-thread index the other.
                let (address, other) = if self.is_private(a) { (a, b) } else { (b, a) };
                let (dynamic, constant) = self.split_private(address, depth - 1)?;
                let known = self
                    .const32(other)
                    .map(|c| c as i32 as i64)
                    .or_else(|| self.const64_of(other).map(|c| c as i64));
                match (dynamic, known) {
                    (dynamic, Some(c)) => Some((dynamic, constant + c)),
                    (None, None) => Some((Some(other), constant)),
                    (Some(_), None) => whole,
                }
            }
            _ => whole,
        }
    }

    /// How many low bits of the integer `value` are known to be zero (at most 4, what an
    /// access's alignment needs): through shifts and multiplications by constants, masks,
    /// sums and extensions.
    fn low_zero_bits(&mut self, value: Value, depth: u32) -> u32 {
        if let Some(c) = self.const64_of(value) {
            return c.trailing_zeros().min(4);
        }
        let Some(inst) = self.def_inst(value).filter(|_| depth > 0) else {
            return 0;
        };
        let constant = |this: &mut Self, v: Value| this.const64_of(v);
        match self.lower.dfg().insts[inst] {
            InstructionData::Binary {
                opcode,
                args: [a, b],
            } => match opcode {
                Opcode::Ishl => constant(self, b).map_or(0, |k| {
                    (self.low_zero_bits(a, depth - 1) + (k as u32).min(4)).min(4)
                }),
                Opcode::Imul => {
                    let za = self.low_zero_bits(a, depth - 1);
                    let zb = self.low_zero_bits(b, depth - 1);
                    (za + zb).min(4)
                }
                Opcode::Band => {
                    let za = self.low_zero_bits(a, depth - 1);
                    let zb = self.low_zero_bits(b, depth - 1);
                    za.max(zb)
                }
                Opcode::Iadd | Opcode::Isub => {
                    let za = self.low_zero_bits(a, depth - 1);
                    let zb = self.low_zero_bits(b, depth - 1);
                    za.min(zb)
                }
                _ => 0,
            },
            InstructionData::Unary {
                opcode: Opcode::Uextend | Opcode::Sextend | Opcode::Ireduce,
                arg,
            } => self.low_zero_bits(arg, depth - 1),
            _ => 0,
        }
    }
}

/// The unit of a private access of `ty` at an address aligned to `alignment`: a `b64` or
/// `b128` value not known to be aligned to its size is accessed a word at a time.
fn access_ty(ty: Ty, alignment: u32) -> Ty {
    match ty {
        Ty::B64 | Ty::B128 if alignment < ty.bytes() => Ty::B32,
        _ => ty,
    }
}
