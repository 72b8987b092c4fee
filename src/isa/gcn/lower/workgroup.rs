//! Workgroup memory (LDS) on GCN: loads and stores whose address is an i32 (`docs/ir.md`,
//! "Memory spaces") become DS instructions, with the constant part of the address folded
//! into their 16-bit offset; the barrier and fences.
//!
//! The segment starts at LDS address 0, so `wavelift_workgroup_base` is 0 and an address
//! `base + x + c` is `x` in the ADDR VGPR and `c` in the offset. Accesses of 8 and 16 bytes
//! use `ds_read_b64`/`ds_read_b128` (and the writes) only when the CLIF access is flagged
//! `aligned`: gfx6–gfx8 require natural alignment of them (LLVM splits a 4-aligned one
//! the same way, `SITargetLowering::allowsMisalignedMemoryAccessesImpl`); otherwise they
//! are `ds_read2_b32`/`ds_write2_b32` pairs of dwords, which need 4 bytes only.

use super::{InstOutput, IsleContext};
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::{Gen, Op};
use crate::isa::gcn::regs::VGPR;

use crate::ir::{self, InstructionData, Opcode, Value};
use crate::machinst::lower::{AddressTerms, constant_sum};
use crate::machinst::{Reg, RegClass};
use smallvec::smallvec;

/// The largest byte offset of the DS offset field (unsigned 16 bits).
pub(super) const MAX_OFFSET: i64 = 0xffff;
/// The largest dword offset of `ds_read2_b32`/`ds_write2_b32` (each 8 bits).
const MAX_OFFSET2: i64 = 0xff;

impl IsleContext<'_, '_> {
    /// A load from workgroup memory at `addr + offset` (an i32 address).
    pub(super) fn workgroup_load(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let opcode = self.lower.dfg().insts[inst].opcode();
        let aligned = self.is_aligned(inst);
        let (x, c) = constant_sum(self, addr, offset as i64);
        let single = |op| Some((op, RegClass::Int));
        let op = match (opcode, ty.bytes()) {
            (Opcode::Uload8, _) | (Opcode::Load, 1) => single(Op::DsReadU8),
            (Opcode::Sload8, _) => single(Op::DsReadI8),
            (Opcode::Uload16, _) | (Opcode::Load, 2) => single(Op::DsReadU16),
            (Opcode::Sload16, _) => single(Op::DsReadI16),
            (Opcode::Load, 4) | (Opcode::Uload32 | Opcode::Sload32, _) => single(Op::DsReadB32),
            (Opcode::Load, 8) if aligned => Some((Op::DsReadB64, RegClass::Float)),
            (Opcode::Load, 16) if aligned && self.backend.generation >= Gen::Gfx7 => {
                Some((Op::DsReadB128, RegClass::Vector))
            }
            (Opcode::Load, 8 | 16) => None,
            _ => {
                self.fail(format!("`{opcode}` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        if let Some((op, class)) = op {
            let (vaddr, offset) = self.ds_offset(x, c, MAX_OFFSET, 1);
            let dst = self.vreg(VGPR, class);
            self.emit(Inst::Ds {
                op,
                dst,
                addr: vaddr,
                data: None,
                offset: offset as u16,
            });
            return smallvec![dst];
        }
        // Dword pairs, each with one `ds_read2_b32`.
        let pairs: Vec<Reg> = (0..ty.bytes() as i64 / 8)
            .map(|k| {
                let (vaddr, first) = self.ds_offset(x, c + 8 * k, 4 * MAX_OFFSET2 - 4, 4);
                let dst = self.vreg(VGPR, RegClass::Float);
                self.emit(Inst::Ds {
                    op: Op::DsRead2B32,
                    dst,
                    addr: vaddr,
                    data: None,
                    offset: read2_offsets(first),
                });
                dst
            })
            .collect();
        if let [pair] = pairs[..] {
            return smallvec![pair];
        }
        let dst = self.vreg(VGPR, RegClass::Vector);
        self.emit(Inst::Combine {
            dst,
            parts: pairs.into(),
        });
        smallvec![dst]
    }

    /// A store of `value` to workgroup memory at `addr + offset` (an i32 address).
    pub(super) fn workgroup_store(
        &mut self,
        inst: ir::Inst,
        value: Value,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        let opcode = self.lower.dfg().insts[inst].opcode();
        let ty = self.lower.dfg().value_type(value);
        let aligned = self.is_aligned(inst);
        let op = match (opcode, ty.bytes()) {
            (Opcode::Istore8, _) | (Opcode::Store, 1) => Some(Op::DsWriteB8),
            (Opcode::Istore16, _) | (Opcode::Store, 2) => Some(Op::DsWriteB16),
            (Opcode::Store, 4) | (Opcode::Istore32, _) => Some(Op::DsWriteB32),
            (Opcode::Store, 8) if aligned => Some(Op::DsWriteB64),
            (Opcode::Store, 16) if aligned && self.backend.generation >= Gen::Gfx7 => {
                Some(Op::DsWriteB128)
            }
            (Opcode::Store, 8 | 16) => None,
            _ => {
                self.fail(format!("`{opcode}` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        let data = self.value_reg(value);
        let data = self.vgpr_copy(data);
        let (x, c) = constant_sum(self, addr, offset as i64);
        if let Some(op) = op {
            let (vaddr, offset) = self.ds_offset(x, c, MAX_OFFSET, 1);
            self.emit(Inst::DsWrite {
                op,
                addr: vaddr,
                data,
                data1: None,
                offset: offset as u16,
            });
            return smallvec![];
        }
        // Dword pairs, each with one `ds_write2_b32`.
        let pairs = match data.class() {
            RegClass::Vector => vec![self.half(data, false), self.half(data, true)],
            _ => vec![data],
        };
        for (k, pair) in pairs.into_iter().enumerate() {
            let (vaddr, first) = self.ds_offset(x, c + 8 * k as i64, 4 * MAX_OFFSET2 - 4, 4);
            let lo = self.half(pair, false);
            let hi = self.half(pair, true);
            self.emit(Inst::DsWrite {
                op: Op::DsWrite2B32,
                addr: vaddr,
                data: lo,
                data1: Some(hi),
                offset: read2_offsets(first),
            });
        }
        smallvec![]
    }

    /// Two dwords of workgroup memory at `addr + offset` and `addr + offset + 4` (merged
    /// loads, `merge.rs`) into the pair `dst`: one `ds_read2_b32`.
    pub(super) fn workgroup_pair_load(&mut self, dst: Reg, addr: Value, offset: i32) {
        let (x, c) = constant_sum(self, addr, offset as i64);
        let (vaddr, first) = self.ds_offset(x, c, 4 * MAX_OFFSET2 - 4, 4);
        self.emit(Inst::Ds {
            op: Op::DsRead2B32,
            dst,
            addr: vaddr,
            data: None,
            offset: read2_offsets(first),
        });
    }

    /// `data` (two VGPRs) to workgroup memory at `addr + offset` and `addr + offset + 4`
    /// (merged stores, `merge.rs`): one `ds_write2_b32`.
    pub(super) fn workgroup_pair_store(&mut self, data: &[Reg], addr: Value, offset: i32) {
        let (x, c) = constant_sum(self, addr, offset as i64);
        let (vaddr, first) = self.ds_offset(x, c, 4 * MAX_OFFSET2 - 4, 4);
        self.emit(Inst::DsWrite {
            op: Op::DsWrite2B32,
            addr: vaddr,
            data: data[0],
            data1: Some(data[1]),
            offset: read2_offsets(first),
        });
    }

    /// `wavelift_barrier` (where [`check_barriers`] allowed it).
    pub(super) fn barrier(&mut self) {
        self.emit(Inst::Barrier);
    }

    /// Whether the access is flagged `aligned` (naturally aligned).
    fn is_aligned(&self, inst: ir::Inst) -> bool {
        let dfg = self.lower.dfg();
        match dfg.insts[inst] {
            InstructionData::Load { flags, .. } | InstructionData::Store { flags, .. } => {
                dfg.mem_flags[flags].aligned()
            }
            _ => false,
        }
    }

    /// The ADDR VGPR and offset for `x + c`: `c` in the offset when it is in `0..=max` and
    /// a multiple of `unit` (the offset of read2/write2 counts dwords), else added to the
    /// address first.
    pub(super) fn ds_offset(
        &mut self,
        x: Option<Value>,
        c: i64,
        max: i64,
        unit: i64,
    ) -> (Reg, i64) {
        let fits = (0..=max).contains(&c) && c.rem_euclid(unit) == 0;
        let (base, offset) = if fits { (0, c) } else { (c, 0) };
        let vaddr = match x {
            None => self.src_to_vgpr(Src::Imm(base as u32)),
            Some(x) => {
                let reg = self.value_reg(x);
                if base == 0 {
                    self.vgpr_copy(reg)
                } else {
                    self.valu(
                        Op::VAddU32,
                        &[Src::Imm(base as u32), Src::Reg(reg)],
                        RegClass::Int,
                    )
                }
            }
        };
        (vaddr, offset)
    }
}

/// The OFFSET1:OFFSET0 field of `ds_read2_b32`/`ds_write2_b32` for dwords at `byte` and
/// `byte + 4`.
fn read2_offsets(byte: i64) -> u16 {
    let first = (byte / 4) as u16;
    first | (first + 1) << 8
}

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
