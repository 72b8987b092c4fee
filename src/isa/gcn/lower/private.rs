//! Private memory (`docs/ir.md`, "Memory spaces"): `stack_addr` is the constant offset of
//! a stack slot in each lane's frame, and a `load` or `store` whose address is a stack
//! address (`analysis::stack_addresses`) is a MUBUF access through the scratch resource:
//! `off` with the whole offset in the instruction where the address is a constant, else
//! `offen` with the per-lane part in a VGPR and the constant part (0–4095) in the
//! instruction. Wide values are accessed a dword at a time (`Inst::ScratchLoad`).

use super::isle::generated::Context as _;
use super::memory::global_memory_op;
use super::{GcnLower, InstOutput, IsleContext};
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::{Gen, Op};
use crate::isa::gcn::regs::{SGPR, VGPR};
use crate::machinst::Reg;
use crate::machinst::RegClass;
use crate::machinst::lower::Lower;
use smallvec::smallvec;

/// The largest MUBUF instruction offset (12 bits, unsigned).
const MAX_OFFSET: i64 = 4095;

/// How far `split` follows additions back from an address.
const SPLIT_DEPTH: u32 = 8;

impl GcnLower<'_> {
    /// Kernels: the scratch resource's base moved to this wave's part of the private
    /// segment once at entry (`s_add_u32`/`s_addc_u32` of the wave offset), as LLVM does,
    /// so that every access has SOFFSET 0.
    pub(super) fn set_scratch_base(&self, ctx: &mut Lower<'_, Inst>) {
        let Some(scratch) = self.frame.scratch else {
            return;
        };
        let Some(wave_offset) = scratch.wave_offset else {
            return;
        };
        let base = scratch.rsrc.hw();
        let word = |k| crate::isa::gcn::regs::sgpr(base + k);
        ctx.emit(Inst::Salu {
            op: Op::SAddU32,
            dst: Some(word(0)),
            srcs: smallvec![Src::Reg(word(0)), Src::Reg(wave_offset)],
        });
        ctx.emit(Inst::Salu {
            op: Op::SAddcU32,
            dst: Some(word(1)),
            srcs: smallvec![Src::Reg(word(1)), Src::Imm(0)],
        });
    }
}

/// A private access's address: a VGPR with the per-lane part (`offen`) or none (`off`),
/// and the instruction offset.
struct PrivateAddress {
    vaddr: Option<Reg>,
    offset: u16,
}

impl IsleContext<'_, '_> {
    /// Whether `addr` is a stack address: the access is private.
    pub(super) fn is_private(&self, addr: Value) -> bool {
        let addr = self.lower.dfg().resolve_aliases(addr);
        self.backend.stack.contains(addr)
    }

    pub(super) fn stack_addr(
        &mut self,
        ty: ir::Type,
        slot: ir::StackSlot,
        offset: i32,
    ) -> InstOutput {
        let Some(at) = self.slot_offset(slot, offset as i64) else {
            return smallvec![];
        };
        if ty == types::I64 {
            let dst = self.vreg(SGPR, RegClass::Float);
            self.emit(Inst::Const64 {
                dst,
                value: at as u64,
            });
            return smallvec![dst];
        }
        if ty != types::I32 {
            self.fail(format!(
                "`stack_addr` of type {ty}: a stack address is i32 or i64"
            ));
            return smallvec![];
        }
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::Salu {
            op: Op::SMovB32,
            dst: Some(dst),
            srcs: smallvec![Src::Imm(at as u32)],
        });
        smallvec![dst]
    }

    /// The frame offset of `slot` plus `offset`.
    fn slot_offset(&mut self, slot: ir::StackSlot, offset: i64) -> Option<i64> {
        let Some(&base) = self.backend.frame.stack_slots.get(slot.as_u32() as usize) else {
            self.fail(format!("{slot} is not a sized stack slot of the function"));
            return None;
        };
        Some(base as i64 + offset)
    }

    pub(super) fn private_load(
        &mut self,
        opcode: Opcode,
        ty: ir::Type,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let Some((flat, class)) = self.load_op(opcode, ty) else {
            self.fail(format!("`{opcode}` of type {ty} is not supported"));
            return smallvec![];
        };
        let (op, dwords) = scratch_op(flat);
        let Some(address) = self.private_address(addr, offset, dwords) else {
            return smallvec![];
        };
        let dst = self.vreg(VGPR, class);
        let scratch = self.scratch();
        self.emit(Inst::ScratchLoad {
            op,
            dst,
            vaddr: address.vaddr,
            offset: address.offset,
            rsrc: scratch.rsrc,
            soffset: scratch.frame_offset,
            whole_wave: false,
        });
        smallvec![dst]
    }

    pub(super) fn private_store(&mut self, flat: Op, value: Value, addr: Value, offset: i32) {
        let (op, dwords) = scratch_op(flat);
        let Some(address) = self.private_address(addr, offset, dwords) else {
            return;
        };
        let data = self.value_reg(value);
        let data = self.vgpr_copy(data);
        let scratch = self.scratch();
        self.emit(Inst::ScratchStore {
            op,
            data,
            vaddr: address.vaddr,
            offset: address.offset,
            rsrc: scratch.rsrc,
            soffset: scratch.frame_offset,
            whole_wave: false,
        });
    }

    fn scratch(&self) -> crate::isa::gcn::abi::Scratch {
        self.backend
            .frame
            .scratch
            .expect("a function with stack addresses has a private segment")
    }

    /// The registers and instruction offset addressing `addr + offset` for an access of
    /// `dwords` instructions (each 4 bytes further).
    fn private_address(&mut self, addr: Value, offset: i32, dwords: u16) -> Option<PrivateAddress> {
        let (dynamic, constant) = self.split(addr, SPLIT_DEPTH)?;
        let constant = constant + offset as i64;
        let last = MAX_OFFSET - 4 * (dwords as i64 - 1);
        let index = match dynamic {
            None if (0..=last).contains(&constant) => {
                return Some(PrivateAddress {
                    vaddr: None,
                    offset: constant as u16,
                });
            }
            None => None,
            Some(value) => Some(self.offset_word(value)),
        };
        let (vaddr, offset) = match index {
            Some(reg) if (0..=last).contains(&constant) => (reg, constant as u16),
            Some(reg) => {
                let sum = self.valu(
                    Op::VAddU32,
                    &[Src::Imm(constant as u32), Src::Reg(reg)],
                    RegClass::Int,
                );
                (sum, 0)
            }
            None => (
                self.valu(Op::VMovB32, &[Src::Imm(constant as u32)], RegClass::Int),
                0,
            ),
        };
        Some(PrivateAddress {
            vaddr: Some(vaddr),
            offset,
        })
    }

    /// `addr` as a value added to a constant: the constant alone (`None`) where `addr` is a
    /// stack slot plus constants; `None` when the slot is not one of the function's.
    fn split(&mut self, addr: Value, depth: u32) -> Option<(Option<Value>, i64)> {
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
                // One side is the stack address; a constant or a per-lane index the other.
                let (address, other) = if self.is_private(a) { (a, b) } else { (b, a) };
                let (dynamic, constant) = self.split(address, depth - 1)?;
                match (dynamic, self.const64_of(other)) {
                    (dynamic, Some(c)) => Some((dynamic, constant + c as i64)),
                    (None, None) => Some((Some(other), constant)),
                    (Some(_), None) => whole,
                }
            }
            _ => whole,
        }
    }

    /// The low 32 bits of a frame offset value (an i32, or an i64 stack address or index),
    /// in a VGPR.
    fn offset_word(&mut self, value: Value) -> Reg {
        let reg = match self.lower.dfg().value_type(value) {
            types::I64 => match self.low_word(value, super::memory::LOW_WORD_DEPTH) {
                Src::Reg(r) => r,
                imm @ Src::Imm(_) => self.valu(Op::VMovB32, &[imm], RegClass::Int),
            },
            _ => self.value_reg(value),
        };
        self.vgpr_copy(reg)
    }
}

/// The MUBUF operation of one dword (or a narrower value) of the FLAT memory operation
/// `flat`, and how many of it the access takes.
fn scratch_op(flat: Op) -> (Op, u16) {
    let (one, dwords) = match flat {
        Op::FlatLoadDwordx2 => (Op::FlatLoadDword, 2),
        Op::FlatLoadDwordx4 => (Op::FlatLoadDword, 4),
        Op::FlatStoreDwordx2 => (Op::FlatStoreDword, 2),
        Op::FlatStoreDwordx4 => (Op::FlatStoreDword, 4),
        op => (op, 1),
    };
    (global_memory_op(one, Gen::Gfx6), dwords)
}
