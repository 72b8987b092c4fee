//! Adjacent memory accesses merged into one: dword loads (stores) of one address value at
//! consecutive offsets, with nothing between them in their block that could observe the
//! difference, become one `dwordx2`/`dwordx4` load (store) of global memory, or one
//! `ds_read2_b32` (`ds_write2_b32`) of workgroup memory, as LLVM's `SILoadStoreOptimizer`
//! does. A merged access replaces two to four instructions and,
//! where the generation has no immediate offset (FLAT on gfx7/gfx8), the 64-bit address
//! addition of each member.
//!
//! A load group is issued at its first member in program order, which moves the later
//! members' reads up past instructions that neither store nor have other effects; a store
//! group at its last member, which moves the earlier members' writes down past
//! instructions that neither load nor store nor have other effects. So no memory access
//! that could alias a member changes order with it. The hardware needs only dword
//! alignment for multi-dword global accesses (HSA's unaligned access mode, which LLVM's
//! `allowsMisalignedMemoryAccesses` also assumes for global memory), the alignment of the
//! members.

use crate::analysis::stack_addresses::StackAddresses;
use crate::analysis::uniformity::Uniformity;
use crate::ir::{self, InstructionData, Opcode, Value};
use crate::machinst::Reg;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Load,
    Store,
}

/// One merged access: `members` (by offset, the first at `offset`) read or write the
/// dwords `offset`, `offset + 4`, … of `addr`.
#[derive(Debug)]
pub struct Group {
    pub addr: Value,
    pub offset: i32,
    pub members: Vec<ir::Inst>,
}

/// What the lowering of a member does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Issues group `.0`'s access.
    Leader(usize),
    /// Issued by its group's leader: a load's result is the dword the leader extracted, a
    /// store emits nothing.
    Member,
}

#[derive(Default)]
pub struct Merges {
    pub groups: Vec<Group>,
    roles: HashMap<ir::Inst, Role>,
    /// The register of each loaded dword, recorded when its group's leader is lowered.
    pub loaded: RefCell<HashMap<ir::Inst, Reg>>,
}

impl Merges {
    pub fn role(&self, inst: ir::Inst) -> Option<Role> {
        self.roles.get(&inst).copied()
    }

    /// The groups of `func`: dword loads whose results are used and divergent (a uniform
    /// one reads the scalar cache instead), dword stores.
    pub fn find(func: &ir::Function, uniformity: &Uniformity, stack: &StackAddresses) -> Merges {
        let mut used = HashSet::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                for v in func.dfg.inst_values(inst) {
                    used.insert(func.dfg.resolve_aliases(v));
                }
            }
        }
        let mut merges = Merges::default();
        for block in func.layout.blocks() {
            let mut open: Vec<Candidate> = Vec::new();
            for inst in func.layout.block_insts(block) {
                let opcode = func.dfg.insts[inst].opcode();
                // Private accesses are a dword each anyway (`private.rs`).
                let access = dword_access(func, inst)
                    .filter(|a| !stack.contains(a.addr))
                    .filter(|a| match a.kind {
                        Kind::Load => {
                            let result = func.dfg.first_result(inst);
                            used.contains(&result) && !uniformity.is_uniform(result)
                        }
                        Kind::Store => true,
                    });
                // What `inst` must not pass: for a load, any store; for a store, any access.
                let ends = |c: &Candidate| match access {
                    Some(a) if a.kind == Kind::Load => c.kind == Kind::Store,
                    Some(a) => c.kind == Kind::Load || c.addr != a.addr,
                    None if opcode.can_store()
                        || opcode.other_side_effects()
                        || opcode.is_call() =>
                    {
                        true
                    }
                    None => opcode.can_load() && c.kind == Kind::Store,
                };
                let (ended, kept): (Vec<Candidate>, Vec<Candidate>) =
                    open.into_iter().partition(|c| ends(c));
                open = kept;
                for c in ended {
                    merges.close(c);
                }
                if let Some(a) = access {
                    match open
                        .iter_mut()
                        .find(|c| c.kind == a.kind && c.addr == a.addr)
                    {
                        Some(c) => c.members.push((inst, a.offset)),
                        None => open.push(Candidate {
                            kind: a.kind,
                            workgroup: func.dfg.value_type(a.addr) == ir::types::I32,
                            constant: constant_part(func, a.addr),
                            addr: a.addr,
                            members: vec![(inst, a.offset)],
                        }),
                    }
                }
            }
            for c in open {
                merges.close(c);
            }
        }
        merges
    }

    /// Splits the accesses of `c` into groups of consecutive dwords, four where it can,
    /// else two (always two in workgroup memory: one `read2`/`write2`).
    fn close(&mut self, c: Candidate) {
        let mut members = c.members.clone();
        members.sort_by_key(|&(_, offset)| offset);
        // Two stores to one dword: their order matters, and one merged store cannot keep
        // it.
        if members.windows(2).any(|w| w[0].1 == w[1].1) {
            if c.kind == Kind::Store {
                return;
            }
            members.dedup_by_key(|m| m.1);
        }
        let mut start = 0;
        while start < members.len() {
            let mut end = start + 1;
            let widest = if c.workgroup { 2 } else { 4 };
            while end < members.len()
                && end - start < widest
                && members[end].1.checked_sub(members[end - 1].1) == Some(4)
            {
                end += 1;
            }
            let len = match end - start {
                4 => 4,
                2 | 3 => 2,
                _ => 1,
            };
            // A pair of workgroup dwords is one `read2`/`write2` only where its offsets
            // fit the two 8-bit dword fields; two single accesses take any 16-bit offset.
            let offset = c.constant + members[start].1 as i64;
            let len = if c.workgroup && !(0..=1016).contains(&offset) {
                1
            } else {
                len
            };
            if len > 1 {
                let group: Vec<ir::Inst> =
                    members[start..start + len].iter().map(|m| m.0).collect();
                // Program order is the order of `c.members`.
                let position = |i: &ir::Inst| c.members.iter().position(|m| m.0 == *i);
                let leader = match c.kind {
                    Kind::Load => group.iter().min_by_key(|i| position(i)),
                    Kind::Store => group.iter().max_by_key(|i| position(i)),
                }
                .copied()
                .expect("a group has members");
                let index = self.groups.len();
                for &m in &group {
                    self.roles.insert(m, Role::Member);
                }
                self.roles.insert(leader, Role::Leader(index));
                self.groups.push(Group {
                    addr: c.addr,
                    offset: members[start].1,
                    members: group,
                });
            }
            start += len;
        }
    }
}

/// Accesses of one address value that may merge, in program order.
struct Candidate {
    kind: Kind,
    /// The address is an i32: workgroup memory.
    workgroup: bool,
    /// The constant part of the address (`constant_part`), for workgroup memory.
    constant: i64,
    addr: Value,
    members: Vec<(ir::Inst, i32)>,
}

#[derive(Copy, Clone)]
struct Access {
    kind: Kind,
    addr: Value,
    offset: i32,
}

/// `inst` as a 32-bit `load` or `store` of an i64 address (global memory) or an i32 one
/// (workgroup memory, whose pairs become `ds_read2_b32`/`ds_write2_b32`).
fn dword_access(func: &ir::Function, inst: ir::Inst) -> Option<Access> {
    let dfg = &func.dfg;
    let (kind, addr, offset, ty) = match dfg.insts[inst] {
        InstructionData::Load {
            opcode: Opcode::Load,
            arg,
            offset,
            ..
        } => (
            Kind::Load,
            arg,
            offset,
            dfg.value_type(dfg.first_result(inst)),
        ),
        InstructionData::Store {
            opcode: Opcode::Store,
            args: [value, addr],
            offset,
            ..
        } => (Kind::Store, addr, offset, dfg.value_type(value)),
        _ => return None,
    };
    let addr = dfg.resolve_aliases(addr);
    let space = dfg.value_type(addr);
    let memory = space == ir::types::I64 || space == ir::types::I32;
    (ty.bytes() == 4 && !ty.is_vector() && memory).then(|| Access {
        kind,
        addr,
        offset: offset.into(),
    })
}

/// The sum of the `iconst`s added to `value` by a chain of `iadd`s, which the workgroup
/// lowering folds into the DS offset with the access's own (`workgroup.rs`).
fn constant_part(func: &ir::Function, value: Value) -> i64 {
    let dfg = &func.dfg;
    let constant = |v: Value| match dfg.value_def(dfg.resolve_aliases(v)) {
        ir::ValueDef::Result(inst, _) => match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits() as i32 as i64),
            _ => None,
        },
        _ => None,
    };
    let mut value = dfg.resolve_aliases(value);
    let mut sum = 0;
    while let ir::ValueDef::Result(inst, _) = dfg.value_def(value) {
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args: [a, b],
        } = dfg.insts[inst]
        else {
            break;
        };
        match (constant(a), constant(b)) {
            (_, Some(k)) => {
                sum += k;
                value = dfg.resolve_aliases(a);
            }
            (Some(k), None) => {
                sum += k;
                value = dfg.resolve_aliases(b);
            }
            (None, None) => break,
        }
    }
    sum
}
