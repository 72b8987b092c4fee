//! Memory addressing: scalar-cache loads, global loads and stores in each generation's
//! form (FLAT, GLOBAL with an SGPR base, MUBUF `addr64` with gfx6's buffer resource),
//! constant offsets folded into the instruction.

use super::isle::generated::Context as _;
use super::merge::Role;
use super::{GcnLower, InstOutput, IsleContext};
use crate::isa::gcn::inst::{Inst, Op64, Src};
use crate::isa::gcn::mc::smem_offset_encodable;
use crate::isa::gcn::mc::{Gen, Op};
use crate::isa::gcn::regs::{SGPR, VGPR};

use crate::analysis::bounds;
use crate::ir::{self, InstructionData, Opcode, Value, types};
use crate::machinst::lower::Lower;
use crate::machinst::{Reg, RegClass};
use smallvec::{SmallVec, smallvec};

/// The buffer resource (V#) of gfx6's global-memory accesses: base 0 and no stride (dwords
/// 0–1), NUM_RECORDS = 0xffffffff (dword 2), and in dword 3 the identity DST_SEL swizzle
/// with NUM_FORMAT = FLOAT and DATA_FORMAT = 32, which untyped accesses need to be valid
/// (SI ISA 8.1.5 / table "Buffer resource descriptor"; the descriptor Mesa's ACO builds for
/// SI global memory, `ac_build_raw_buffer_descriptor`). With `addr64` the address is
/// base + VADDR + offset.
pub const GLOBAL_BUFFER_RSRC: [u32; 4] = [0, 0, 0xffff_ffff, 0x0002_7fac];

impl GcnLower<'_> {
    /// gfx6 has no FLAT: global memory is MUBUF `addr64` through [`GLOBAL_BUFFER_RSRC`],
    /// defined once at entry for a function that accesses memory.
    pub(super) fn define_buffer_rsrc(&self, ctx: &mut Lower<'_, Inst>) {
        let func = ctx.func;
        let accesses_memory = func.layout.blocks().any(|b| {
            func.layout.block_insts(b).any(|i| {
                let opcode = func.dfg.insts[i].opcode();
                (opcode.can_load() || opcode.can_store()) && !self.accesses_private(func, i)
            })
        });
        if self.generation == Gen::Gfx6 && accesses_memory {
            let dst = ctx.new_vreg(SGPR, RegClass::Vector);
            ctx.emit(Inst::Const128 {
                dst,
                value: GLOBAL_BUFFER_RSRC,
            });
            self.buffer_rsrc.set(Some(dst));
        }
    }
}

impl GcnLower<'_> {
    /// Whether `inst` is a load or store of private memory (`private.rs`).
    fn accesses_private(&self, func: &ir::Function, inst: ir::Inst) -> bool {
        let addr = match func.dfg.insts[inst] {
            InstructionData::Load { arg, .. } => arg,
            InstructionData::Store { args: [_, arg], .. } => arg,
            _ => return false,
        };
        self.stack.contains(func.dfg.resolve_aliases(addr))
    }

    /// gfx6–gfx8 check each DS access against M0 (`Inst::LdsBound`): set once at entry in a
    /// function that accesses workgroup memory (an i32 address).
    pub(super) fn set_lds_bound(&self, ctx: &mut Lower<'_, Inst>) {
        if self.needs_lds_bound(ctx.func) {
            ctx.emit(Inst::LdsBound);
        }
    }

    /// Whether `func` runs on gfx6–gfx8 and accesses workgroup memory: whether M0 must
    /// hold the bound (set again after each call, which clobbers M0).
    pub(super) fn needs_lds_bound(&self, func: &ir::Function) -> bool {
        let accesses_lds = func.layout.blocks().any(|b| {
            func.layout.block_insts(b).any(|i| {
                let addr = match func.dfg.insts[i] {
                    InstructionData::Load { arg, .. } => arg,
                    // `bitcast` shares this format; only the atomics access memory.
                    InstructionData::LoadNoOffset {
                        opcode: Opcode::AtomicLoad,
                        arg,
                        ..
                    } => arg,
                    InstructionData::Store { args: [_, arg], .. }
                    | InstructionData::StoreNoOffset { args: [_, arg], .. }
                    | InstructionData::AtomicRmw { args: [arg, _], .. }
                    | InstructionData::AtomicCas {
                        args: [arg, _, _], ..
                    } => arg,
                    _ => return false,
                };
                func.dfg.value_type(addr) == types::I32 && !self.accesses_private(func, i)
            })
        });
        self.generation < Gen::Gfx9 && accesses_lds
    }
}

/// A scalar load of `op` from `base + offset`: the offset in the instruction when it fits
/// (gfx6: 8 bits of dwords; gfx7: a 32-bit literal), else in the SGPR `soffset`, set by an
/// `s_mov_b32` first, as LLVM does on gfx6 (`SelectSMRDOffset`); `new_sgpr` makes it.
pub(super) fn scalar_load(
    op: Op,
    dst: Reg,
    base: Reg,
    offset: u32,
    generation: Gen,
    new_sgpr: impl FnOnce() -> Reg,
) -> SmallVec<[Inst; 2]> {
    if smem_offset_encodable(offset, generation) {
        return smallvec![Inst::SLoad {
            op,
            dst,
            base,
            offset,
            soffset: None,
        }];
    }
    let soffset = new_sgpr();
    smallvec![
        Inst::Salu {
            op: Op::SMovB32,
            dst: Some(soffset),
            srcs: smallvec![Src::Imm(offset)],
        },
        Inst::SLoad {
            op,
            dst,
            base,
            offset: 0,
            soffset: Some(soffset),
        },
    ]
}

impl IsleContext<'_, '_> {
    pub(super) fn load(
        &mut self,
        inst: ir::Inst,
        ty: ir::Type,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        match self.backend.merges.role(inst) {
            Some(Role::Leader(group)) => return smallvec![self.merged_load(inst, group)],
            Some(Role::Member) => {
                let loaded = self.backend.merges.loaded.borrow().get(&inst).copied();
                return match loaded {
                    Some(reg) => smallvec![reg],
                    None => {
                        self.fail("internal error: a merged load's dword was not loaded");
                        smallvec![]
                    }
                };
            }
            None => {}
        }
        if self.is_private(addr) {
            let opcode = self.lower.dfg().insts[inst].opcode();
            return self.private_load(opcode, ty, addr, offset);
        }
        if self.lower.dfg().value_type(addr) == types::I32 {
            return self.workgroup_load(inst, ty, addr, offset);
        }
        let opcode = self.lower.dfg().insts[inst].opcode();
        let result = self.lower.dfg().first_result(inst);
        // In a linearized function (divergent branches) a block may run with no lane
        // active; a scalar load would still execute, perhaps from an address read out of an
        // inactive lane. Only the entry block surely runs with lanes.
        let layout = &self.lower.func.layout;
        let may_run_empty = self.backend.uniformity.has_divergent_branches()
            && layout.inst_block(inst) != layout.entry_block();
        // Uniform loads (readonly memory, uniform address) use the scalar cache.
        if self.is_uniform(result)
            && !may_run_empty
            && opcode == Opcode::Load
            && matches!(ty.bytes(), 4 | 8)
            && offset >= 0
            && (offset % 4 == 0 || smem_offset_encodable(offset as u32, self.backend.generation))
        {
            let base = self.pair_of(addr, SGPR);
            let (op, class) = if ty.bytes() == 4 {
                (Op::SLoadDword, RegClass::Int)
            } else {
                (Op::SLoadDwordx2, RegClass::Float)
            };
            let dst = self.vreg(SGPR, class);
            let generation = self.backend.generation;
            let new_sgpr = || self.vreg(SGPR, RegClass::Int);
            for inst in scalar_load(op, dst, base, offset as u32, generation, new_sgpr) {
                self.emit(inst);
            }
            return smallvec![dst];
        }
        let Some((op, class)) = self.load_op(opcode, ty) else {
            self.fail(format!("`{opcode}` of type {ty} is not supported"));
            return smallvec![];
        };
        let loaded = self.global_load(op, addr, offset, false, |this| this.vreg(VGPR, class));
        loaded.into_iter().collect()
    }

    /// The global load `flat` (named by its FLAT opcode) of `addr + offset`, in the
    /// generation's encoding and addressing, into the register `dst` makes once the address
    /// is computed (an atomic load also asks for its waits there); `glc` reads past the
    /// wave's L1. `None` when the addressing failed, which `address` has reported.
    pub(super) fn global_load(
        &mut self,
        flat: Op,
        addr: Value,
        offset: i32,
        glc: bool,
        dst: impl FnOnce(&mut Self) -> Reg,
    ) -> Option<Reg> {
        let (op, rsrc) = self.global_memory(flat);
        let address = self.address(op, addr, offset)?;
        let dst = dst(self);
        self.emit(Inst::Load {
            op,
            dst,
            addr: address.vaddr,
            offset: address.offset,
            sbase: address.saddr.or(rsrc),
            glc,
        });
        Some(dst)
    }

    /// The global store `flat` at `addr + offset` of the VGPR tuple `data` makes once the
    /// address is computed, as [`Self::global_load`].
    pub(super) fn global_store(
        &mut self,
        flat: Op,
        addr: Value,
        offset: i32,
        data: impl FnOnce(&mut Self) -> Reg,
    ) {
        let (op, rsrc) = self.global_memory(flat);
        let Some(address) = self.address(op, addr, offset) else {
            return;
        };
        let data = data(self);
        self.emit(Inst::Store {
            op,
            addr: address.vaddr,
            offset: address.offset,
            data,
            sbase: address.saddr.or(rsrc),
        });
    }

    pub(super) fn store(
        &mut self,
        inst: ir::Inst,
        value: Value,
        addr: Value,
        offset: i32,
    ) -> InstOutput {
        match self.backend.merges.role(inst) {
            Some(Role::Leader(group)) => {
                self.merged_store(group);
                return smallvec![];
            }
            Some(Role::Member) => return smallvec![],
            None => {}
        }
        if self.lower.dfg().value_type(addr) == types::I32 && !self.is_private(addr) {
            return self.workgroup_store(inst, value, addr, offset);
        }
        let opcode = self.lower.dfg().insts[inst].opcode();
        let ty = self.lower.dfg().value_type(value);
        let op = match (opcode, ty.bytes()) {
            (Opcode::Istore8, _) | (Opcode::Store, 1) => Op::FlatStoreByte,
            (Opcode::Istore16, _) | (Opcode::Store, 2) => Op::FlatStoreShort,
            (Opcode::Store, 4) | (Opcode::Istore32, _) => Op::FlatStoreDword,
            (Opcode::Store, 8) => Op::FlatStoreDwordx2,
            (Opcode::Store, 16) => Op::FlatStoreDwordx4,
            _ => {
                self.fail(format!("`{opcode}` of type {ty} is not supported"));
                return smallvec![];
            }
        };
        if self.is_private(addr) {
            self.private_store(op, value, addr, offset);
            return smallvec![];
        }
        self.global_store(op, addr, offset, |this| {
            let data = this.value_reg(value);
            this.vgpr_copy(data)
        });
        smallvec![]
    }

    /// The `dwordx2`/`dwordx4` load of `group` (`merge.rs`), issued at its first member
    /// `leader`: each member's dword is extracted (a half of a half for `dwordx4`) and
    /// recorded for the members lowered later; the leader's own is returned.
    fn merged_load(&mut self, leader: ir::Inst, group: usize) -> Reg {
        let merges = &self.backend.merges;
        let (addr, offset, members) = {
            let g = &merges.groups[group];
            (g.addr, g.offset, g.members.clone())
        };
        let (flat, class) = match members.len() {
            2 => (Op::FlatLoadDwordx2, RegClass::Float),
            _ => (Op::FlatLoadDwordx4, RegClass::Vector),
        };
        let dst = self.vreg(VGPR, class);
        if self.lower.dfg().value_type(addr) == types::I32 {
            self.workgroup_pair_load(dst, addr, offset);
        } else {
            self.global_load(flat, addr, offset, false, |_| dst);
        }
        let pairs = match members.len() {
            2 => vec![dst],
            _ => vec![self.half(dst, false), self.half(dst, true)],
        };
        let mut own = None;
        for (k, &member) in members.iter().enumerate() {
            let dword = self.half(pairs[k / 2], k % 2 == 1);
            if member == leader {
                own = Some(dword);
            }
            self.backend
                .merges
                .loaded
                .borrow_mut()
                .insert(member, dword);
        }
        own.expect("the leader is a member")
    }

    /// The `dwordx2`/`dwordx4` store of `group` (`merge.rs`), issued at its last member:
    /// the members' data (by offset) gathered into consecutive VGPRs.
    fn merged_store(&mut self, group: usize) {
        let merges = &self.backend.merges;
        let (addr, offset, members) = {
            let g = &merges.groups[group];
            (g.addr, g.offset, g.members.clone())
        };
        let data: Vec<Reg> = members
            .iter()
            .map(|&m| {
                let value = self.lower.dfg().inst_args(m)[0];
                let reg = self.value_reg(value);
                self.vgpr_copy(reg)
            })
            .collect();
        if self.lower.dfg().value_type(addr) == types::I32 {
            self.workgroup_pair_store(&data, addr, offset);
            return;
        }
        let (flat, class) = match data.len() {
            2 => (Op::FlatStoreDwordx2, RegClass::Float),
            _ => (Op::FlatStoreDwordx4, RegClass::Vector),
        };
        let tuple = self.vreg(VGPR, class);
        self.emit(Inst::Combine {
            dst: tuple,
            parts: data.into(),
        });
        self.global_store(flat, addr, offset, |_| tuple);
    }

    pub(super) fn load_op(&mut self, opcode: Opcode, ty: ir::Type) -> Option<(Op, RegClass)> {
        Some(match (opcode, ty.bytes()) {
            (Opcode::Uload8, _) | (Opcode::Load, 1) => (Op::FlatLoadUbyte, RegClass::Int),
            (Opcode::Sload8, _) => (Op::FlatLoadSbyte, RegClass::Int),
            (Opcode::Uload16, _) | (Opcode::Load, 2) => (Op::FlatLoadUshort, RegClass::Int),
            (Opcode::Sload16, _) => (Op::FlatLoadSshort, RegClass::Int),
            (Opcode::Load, 4) | (Opcode::Uload32 | Opcode::Sload32, _) => {
                (Op::FlatLoadDword, RegClass::Int)
            }
            (Opcode::Load, 8) => (Op::FlatLoadDwordx2, RegClass::Float),
            (Opcode::Load, 16) => (Op::FlatLoadDwordx4, RegClass::Vector),
            _ => return None,
        })
    }

    /// The registers and immediate offset that address `addr + offset` for the
    /// global-memory operation `op`: the offset is folded into the instruction when it fits.
    pub(super) fn address(&mut self, op: Op, addr: Value, offset: i32) -> Option<Address> {
        if self.lower.dfg().value_type(addr) != types::I64 {
            self.fail("memory addresses must be i64 (global memory) or i32 (workgroup memory)");
            return None;
        }
        let fits = offset == 0 || immediate_offsets(op).contains(&offset);
        if let Some((base, index)) = self.resource_base(op, addr) {
            let rsrc = self.base_resource(base);
            let vaddr = self.pair_of(index, VGPR);
            if fits {
                return Some(Address {
                    vaddr,
                    saddr: Some(rsrc),
                    offset,
                });
            }
            return Some(Address {
                vaddr: self.valu64_reg(Op64::Add, vaddr, Src::Imm(offset as u32)),
                saddr: Some(rsrc),
                offset: 0,
            });
        }
        if let Some((base, index)) = self.sgpr_base(op, addr) {
            let (index, offset) = self.fold_constant(op, index, offset);
            let fits = offset == 0 || immediate_offsets(op).contains(&offset);
            let saddr = self.pair_of(base, SGPR);
            let low = self.low_word(index, LOW_WORD_DEPTH);
            let vaddr = self.src_to_vgpr(low);
            if fits {
                return Some(Address {
                    vaddr,
                    saddr: Some(saddr),
                    offset,
                });
            }
            // A larger offset goes into the base, with scalar adds.
            let saddr = self.salu64(&Op64::Add, saddr, Src::Imm(offset as u32));
            return Some(Address {
                vaddr,
                saddr: Some(saddr),
                offset: 0,
            });
        }
        let vaddr = self.pair_of(addr, VGPR);
        if fits {
            return Some(Address {
                vaddr,
                saddr: None,
                offset,
            });
        }
        Some(Address {
            vaddr: self.valu64_reg(Op64::Add, vaddr, Src::Imm(offset as u32)),
            saddr: None,
            offset: 0,
        })
    }

    /// `addr` as `base + index` for GLOBAL's SGPR-base form (Vega ISA 12.12, SADDR) with
    /// `index` provably below 2^32 ([`bounds::max_unsigned`]), since the hardware
    /// zero-extends the 32-bit VGPR offset it adds to the base.
    pub(super) fn sgpr_base(&mut self, op: Op, addr: Value) -> Option<(Value, Value)> {
        if op.info().enc != crate::isa::gcn::mc::Enc::Global {
            return None;
        }
        self.uniform_base(addr).filter(|&(_, index)| {
            bounds::max_unsigned(self.lower.func, index).is_some_and(|b| b <= u32::MAX as u64)
        })
    }

    /// `addr` as `base + index` for MUBUF `addr64` (gfx6) with the base in the buffer
    /// resource, as LLVM does (a uniform address is one SGPR pair copied anyway). The
    /// hardware adds the resource's 48-bit base to the 64-bit VADDR (SI ISA 8.1.5), which
    /// is the 64-bit sum for the addresses of gfx6's 40-bit virtual memory.
    fn resource_base(&mut self, op: Op, addr: Value) -> Option<(Value, Value)> {
        if op.info().enc != crate::isa::gcn::mc::Enc::Mubuf {
            return None;
        }
        self.uniform_base(addr)
    }

    /// `addr` as `iadd(base, index)`, either operand order, with `base` uniform (an SGPR
    /// pair) and `index` divergent.
    fn uniform_base(&mut self, addr: Value) -> Option<(Value, Value)> {
        let inst = self.def_inst(addr)?;
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = self.lower.dfg().insts[inst]
        else {
            return None;
        };
        [(args[0], args[1]), (args[1], args[0])]
            .into_iter()
            .find(|&(base, index)| self.is_uniform(base) && !self.is_uniform(index))
    }

    /// The buffer resource of [`GLOBAL_BUFFER_RSRC`]'s kind with `base` (a uniform i64) as
    /// its base address, built once per block and base.
    fn base_resource(&mut self, base: Value) -> Reg {
        let block = self
            .lower
            .cur_inst
            .and_then(|i| self.lower.func.layout.inst_block(i));
        let cached = |this: &Self, key| {
            this.backend
                .base_resources
                .borrow()
                .get(&(block, key))
                .copied()
        };
        if let Some(rsrc) = cached(self, base) {
            return rsrc;
        }
        // Dwords 2 and 3 set for each resource: shared ones would need copies wherever
        // the allocator gives two resources different registers.
        let [.., size, format] = GLOBAL_BUFFER_RSRC;
        let size = self.salu(Op::SMovB32, &[Src::Imm(size)], RegClass::Int);
        let format = self.salu(Op::SMovB32, &[Src::Imm(format)], RegClass::Int);
        let pair = self.pair_of(base, SGPR);
        let rsrc = self.vreg(SGPR, RegClass::Vector);
        self.emit(Inst::Combine {
            dst: rsrc,
            parts: smallvec![pair, size, format],
        });
        let key = (block, base);
        self.backend.base_resources.borrow_mut().insert(key, rsrc);
        rsrc
    }

    /// `index + offset` as `x + (offset + c)` when `index` is `iadd(x, c)` for a constant
    /// `c`, the sum is an immediate offset of `op`, and `x` too is provably below 2^32, so
    /// that it can be GLOBAL's VGPR offset instead of `index` (the hardware's 64-bit sum
    /// `base + zext(x) + offset + c` is the same address).
    pub(super) fn fold_constant(&mut self, op: Op, index: Value, offset: i32) -> (Value, i32) {
        let Some(inst) = self.def_inst(index) else {
            return (index, offset);
        };
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = self.lower.dfg().insts[inst]
        else {
            return (index, offset);
        };
        for (x, c) in [(args[0], args[1]), (args[1], args[0])] {
            let Some(c) = self.const64_of(c) else {
                continue;
            };
            let Some(sum) = i32::try_from(c as i64)
                .ok()
                .and_then(|c| c.checked_add(offset))
            else {
                continue;
            };
            let bounded =
                bounds::max_unsigned(self.lower.func, x).is_some_and(|b| b <= u32::MAX as u64);
            if bounded && immediate_offsets(op).contains(&sum) {
                return (x, sum);
            }
        }
        (index, offset)
    }

    /// The generation's form of the global-memory operation `flat` (a FLAT opcode), and the
    /// buffer resource it reads if it is MUBUF.
    pub(super) fn global_memory(&mut self, flat: Op) -> (Op, Option<Reg>) {
        let op = global_memory_op(flat, self.backend.generation);
        if op.info().enc != crate::isa::gcn::mc::Enc::Mubuf {
            return (op, None);
        }
        let rsrc = self.backend.buffer_rsrc.get();
        if rsrc.is_none() {
            self.fail("internal error: no buffer resource for a gfx6 memory access");
        }
        (op, rsrc)
    }
}

/// How many definitions [`IsleContext::low_word`] follows.
pub(super) const LOW_WORD_DEPTH: u32 = 4;

/// Where a global-memory access goes: `vaddr + offset`, or with gfx9 GLOBAL's SGPR base
/// `saddr + zext(vaddr) + offset`.
pub(super) struct Address {
    /// A VGPR pair holding the address, or with `saddr` one VGPR holding an unsigned
    /// 32-bit offset from it.
    pub(super) vaddr: Reg,
    pub(super) saddr: Option<Reg>,
    pub(super) offset: i32,
}

/// Each FLAT global-memory operation with its GLOBAL (gfx9) and MUBUF `addr64` (gfx6)
/// counterparts.
const GLOBAL_MEMORY_OPS: &[[Op; 3]] = {
    use Op::*;
    &[
        [FlatLoadUbyte, GlobalLoadUbyte, BufferLoadUbyte],
        [FlatLoadSbyte, GlobalLoadSbyte, BufferLoadSbyte],
        [FlatLoadUshort, GlobalLoadUshort, BufferLoadUshort],
        [FlatLoadSshort, GlobalLoadSshort, BufferLoadSshort],
        [FlatLoadDword, GlobalLoadDword, BufferLoadDword],
        [FlatLoadDwordx2, GlobalLoadDwordx2, BufferLoadDwordx2],
        [FlatLoadDwordx4, GlobalLoadDwordx4, BufferLoadDwordx4],
        [FlatStoreByte, GlobalStoreByte, BufferStoreByte],
        [FlatStoreShort, GlobalStoreShort, BufferStoreShort],
        [FlatStoreDword, GlobalStoreDword, BufferStoreDword],
        [FlatStoreDwordx2, GlobalStoreDwordx2, BufferStoreDwordx2],
        [FlatStoreDwordx4, GlobalStoreDwordx4, BufferStoreDwordx4],
    ]
};

/// The best global-memory form of the FLAT operation `flat` on `generation`: GLOBAL on
/// gfx9 (no LGKM_CNT, a signed immediate offset), FLAT on gfx7/gfx8, MUBUF `addr64` on gfx6,
/// which has no FLAT.
pub(super) fn global_memory_op(flat: Op, generation: Gen) -> Op {
    let row = GLOBAL_MEMORY_OPS
        .iter()
        .find(|row| row[0] == flat)
        .expect("a FLAT global-memory operation");
    match generation {
        Gen::Gfx6 => row[2],
        Gen::Gfx7 | Gen::Gfx8 => row[0],
        Gen::Gfx9 => row[1],
    }
}

/// The immediate offsets a global-memory operation encodes: GLOBAL a signed 13-bit one
/// (Vega ISA 12.12), MUBUF an unsigned 12-bit one (SI ISA 12.5), FLAT none before gfx9
/// (and gfx9's FLAT is not used for global memory).
pub(super) fn immediate_offsets(op: Op) -> std::ops::RangeInclusive<i32> {
    match op.info().enc {
        crate::isa::gcn::mc::Enc::Global => -4096..=4095,
        crate::isa::gcn::mc::Enc::Mubuf => 0..=4095,
        _ => 0..=0,
    }
}
