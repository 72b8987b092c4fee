//! Inserts `s_waitcnt` before instructions that touch the registers of memory loads still in
//! flight (GCN3 ISA manual 4.4, "Data dependency resolution"; AMDGPU LLVM docs, memory
//! model). Scalar loads (SMEM) return out of order, so waiting for one means
//! `lgkmcnt(0)`. Vector memory operations return in order, so waiting for one means
//! `vmcnt(n)` with n the operations issued after it. A FLAT access waits in LGKM_CNT only
//! for the part of it that reaches LDS; the part that reaches global memory returns in
//! VM_CNT order like any vector-memory access. wavelift never addresses LDS through FLAT
//! (its workgroup memory is accessed with DS instructions), so its FLAT accesses, like GLOBAL (gfx9) and MUBUF
//! (gfx6), need `vmcnt(n)` alone. LLVM's SIInsertWaitcnts does the same: a FLAT
//! instruction gets an LDS event only when `mayAccessLDSThroughFlat`, and forces both
//! counters to 0 (`setPendingFlat`) only when it may reach both.
//! On gfx6 a vector-memory store also counts in EXP_CNT until it has read its data VGPRs,
//! which must not be overwritten before (LLVM SIInsertWaitcnts: `VMW_GPR_LOCK`,
//! `vmemWriteNeedsExpWaitcnt`): an instruction defining one waits with `expcnt(n)`.
//!
//! An `s_waitcnt` lowering emitted (the ordering of an atomic or a fence) is a request:
//! the pass keeps the counters of it with more operations in flight than it allows, or
//! drops it. Atomics count like loads when they return a value and like stores otherwise.
//! LDS accesses (DS) count in LGKM_CNT, loads until their result arrives and stores until
//! done; before `s_barrier` everything in flight is waited for.
//!
//! Control flow: everything in flight is waited for before each branch, so the pass can
//! walk the code in layout order. Not before `s_endpgm`, nor a jump to a block that is only
//! `s_endpgm`: nothing observes the end of a kernel's last accesses (its stores complete
//! after the wave has ended, and the hardware frees its registers only then), and LLVM
//! waits there neither.

use super::inst::Inst;
use super::mc::Gen;
use crate::machinst::{MachInst, OperandKind, Reg};

#[derive(Copy, Clone, Debug)]
struct Pending {
    /// The registers the load writes: (file, first, count).
    dst: Option<(u8, u16, u16)>,
    /// The registers a gfx6 store still reads while counted in EXP_CNT.
    data: Option<(u8, u16, u16)>,
    /// Counts in VM_CNT (vector memory), LGKM_CNT (scalar memory) and EXP_CNT (gfx6
    /// vector-memory stores until they have read their data).
    vm: bool,
    lgkm: bool,
    exp: bool,
}

/// The largest encodable counts, beyond which a wait is not needed for a value.
fn max_vmcnt(generation: Gen) -> usize {
    match generation {
        Gen::Gfx9 => 63,
        _ => 15,
    }
}

const MAX_EXPCNT: usize = 7;

/// `ends[b]`: block `b` is only `s_endpgm`.
pub fn run(insts: Vec<Inst>, generation: Gen, ends: &[bool]) -> Vec<Inst> {
    let mut out = Vec::with_capacity(insts.len());
    let mut pending: Vec<Pending> = Vec::new();
    for mut inst in insts {
        let mut touched: Vec<(u8, u16, u16)> = Vec::new();
        let mut defined: Vec<(u8, u16, u16)> = Vec::new();
        inst.visit_operands(&mut |r, kind| {
            if let Reg::Real { file, hw, .. } = *r {
                touched.push((file, hw, r.width()));
                if matches!(
                    kind,
                    OperandKind::Def
                        | OperandKind::EarlyDef
                        | OperandKind::DefFixed(_)
                        | OperandKind::DefReuse(_)
                        | OperandKind::DefAny
                ) {
                    defined.push((file, hw, r.width()));
                }
            }
        });
        let meets = |regs: &[(u8, u16, u16)], range: Option<(u8, u16, u16)>| {
            range.is_some_and(|(file, first, count)| {
                regs.iter()
                    .any(|&(f, h, w)| f == file && h < first + count && first < h + w)
            })
        };
        // A load's result is neither read nor overwritten before it arrives; a gfx6
        // store's data is not overwritten before the store has read it.
        let overlaps = |p: &Pending| meets(&touched, p.dst) || p.exp && meets(&defined, p.data);
        // Nothing stays in flight across a branch, so every block starts with nothing
        // pending whichever way it is entered (conservative, but always correct; loads
        // outstanding at a loop's back edge are waited for).
        let ends_kernel =
            matches!(inst, Inst::Jump { target } if ends.get(target).copied() == Some(true));
        // Before a barrier, every access in flight completes (LLVM's
        // SIInsertWaitcnts waits for all counters before `s_barrier` on gfx6–gfx9, which do
        // not wait by themselves; docs/ir.md, "Barriers and fences").
        let wait_all = matches!(inst, Inst::Ret { .. } | Inst::Swappc { .. } | Inst::Barrier)
            || inst.is_branch() && !ends_kernel;
        // The newest pending operation this instruction must wait for.
        let needed: Option<usize> = if wait_all && !pending.is_empty() {
            Some(pending.len() - 1)
        } else {
            pending.iter().rposition(overlaps)
        };
        if let Some(index) = needed {
            let waited = &pending[..=index];
            let after = &pending[index + 1..];
            let vm_after = after.iter().filter(|p| p.vm).count();
            let exp_after = after.iter().filter(|p| p.exp).count();
            let need_vm = waited.iter().any(|p| p.vm && (p.dst.is_some() || wait_all));
            let need_exp = waited
                .iter()
                .any(|p| p.exp && (wait_all || meets(&defined, p.data)));
            let need_lgkm = waited.iter().any(|p| p.lgkm);
            let vmcnt = need_vm.then(|| vm_after.min(max_vmcnt(generation)) as u8);
            let expcnt = need_exp.then(|| exp_after.min(MAX_EXPCNT) as u8);
            let lgkmcnt = need_lgkm.then_some(0);
            out.push(Inst::Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt,
            });
            pending = retire(&pending, vmcnt, expcnt, lgkmcnt);
        }
        match &inst {
            // A wait lowering asked for (the ordering of an atomic or a fence): only the
            // counters with more operations in flight than it allows, or nothing.
            Inst::Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt,
            } => {
                let exceeds = |count: Option<u8>, of: fn(&Pending) -> bool| {
                    count.filter(|&n| pending.iter().filter(|p| of(p)).count() > n as usize)
                };
                let vmcnt = exceeds(*vmcnt, |p| p.vm);
                let expcnt = exceeds(*expcnt, |p| p.exp);
                let lgkmcnt = exceeds(*lgkmcnt, |p| p.lgkm);
                if vmcnt.is_some() || expcnt.is_some() || lgkmcnt.is_some() {
                    out.push(Inst::Waitcnt {
                        vmcnt,
                        expcnt,
                        lgkmcnt,
                    });
                    pending = retire(&pending, vmcnt, expcnt, lgkmcnt);
                }
                continue;
            }
            // An atomic returning the old value waits like a load, one that does not like a
            // store (gfx6: both hold their data in EXP_CNT, LLVM's `mayStore` MUBUF).
            Inst::Atomic { dst, data, .. } => {
                let exp = generation == Gen::Gfx6;
                pending.push(Pending {
                    dst: dst.map(range),
                    data: exp.then(|| range(*data)),
                    vm: true,
                    lgkm: false,
                    exp,
                })
            }
            Inst::SLoad { dst, .. } => pending.push(Pending {
                dst: Some(range(*dst)),
                data: None,
                vm: false,
                lgkm: true,
                exp: false,
            }),
            // LDS loads, stores and atomics, and the lane permutes (which return like an LDS
            // load, GCN3 ISA 4.4), count in LGKM_CNT until done.
            Inst::Ds { .. } | Inst::DsAtomic { .. } | Inst::DsWrite { .. } => {
                let dst = match &inst {
                    Inst::Ds { dst, .. } => Some(*dst),
                    Inst::DsAtomic { dst, .. } => *dst,
                    _ => None,
                };
                pending.push(Pending {
                    dst: dst.map(range),
                    data: None,
                    vm: false,
                    lgkm: true,
                    exp: false,
                })
            }
            Inst::Load { dst, .. } => pending.push(Pending {
                dst: Some(range(*dst)),
                data: None,
                vm: true,
                lgkm: false,
                exp: false,
            }),
            Inst::Store { data, .. } => {
                let exp = generation == Gen::Gfx6;
                pending.push(Pending {
                    dst: None,
                    data: exp.then(|| range(*data)),
                    vm: true,
                    lgkm: false,
                    exp,
                })
            }
            // Private memory: one MUBUF instruction per dword, each counted.
            Inst::ScratchLoad { dst, .. } => {
                for _ in 0..dst.width() {
                    pending.push(Pending {
                        dst: Some(range(*dst)),
                        data: None,
                        vm: true,
                        lgkm: false,
                        exp: false,
                    });
                }
            }
            Inst::ScratchStore { data, .. } => {
                let exp = generation == Gen::Gfx6;
                for _ in 0..data.width() {
                    pending.push(Pending {
                        dst: None,
                        data: exp.then(|| range(*data)),
                        vm: true,
                        lgkm: false,
                        exp,
                    });
                }
            }
            _ => {}
        }
        out.push(inst);
    }
    out
}

/// What stays in flight after waiting until at most `vmcnt` (`expcnt`) VM (EXP) operations
/// are outstanding (the newest ones), and no LGKM one if `lgkmcnt` is set.
fn retire(
    pending: &[Pending],
    vmcnt: Option<u8>,
    expcnt: Option<u8>,
    lgkmcnt: Option<u8>,
) -> Vec<Pending> {
    let (mut vm_newer, mut exp_newer) = (0, 0);
    let mut keep = Vec::new();
    for &before in pending.iter().rev() {
        let mut p = before;
        p.vm &= vmcnt.is_none_or(|n| vm_newer < n as usize);
        if before.vm && !p.vm {
            // An atomic's result has arrived, though its data may still count in EXP_CNT.
            p.dst = None;
        }
        p.exp &= expcnt.is_none_or(|n| exp_newer < n as usize);
        p.lgkm &= lgkmcnt.is_none();
        vm_newer += before.vm as usize;
        exp_newer += before.exp as usize;
        if p.vm || p.lgkm || p.exp {
            keep.push(p);
        }
    }
    keep.reverse();
    keep
}

fn range(r: Reg) -> (u8, u16, u16) {
    (r.file(), r.hw(), r.width())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::inst::Src;
    use crate::isa::gcn::mc::Op;
    use crate::machinst::RegClass;
    use smallvec::smallvec;

    fn vpair(hw: u16) -> Reg {
        Reg::Real {
            file: crate::isa::gcn::regs::VGPR,
            class: RegClass::Float,
            hw,
        }
    }

    fn store(op: Op, data: u16) -> Inst {
        Inst::Store {
            op,
            addr: vpair(4),
            offset: 0,
            data: crate::isa::gcn::regs::vgpr(data),
            sbase: None,
        }
    }

    fn overwrite(reg: u16) -> Inst {
        Inst::Valu {
            op: Op::VMovB32,
            dst: Some(crate::isa::gcn::regs::vgpr(reg)),
            sdst: None,
            srcs: smallvec![Src::Imm(0)],
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        }
    }

    fn waits(insts: &[Inst]) -> Vec<(Option<u8>, Option<u8>, Option<u8>)> {
        insts
            .iter()
            .filter_map(|i| match i {
                Inst::Waitcnt {
                    vmcnt,
                    expcnt,
                    lgkmcnt,
                } => Some((*vmcnt, *expcnt, *lgkmcnt)),
                _ => None,
            })
            .collect()
    }

    /// The waits of an atomic's ordering are requests: kept for the counters with
    /// operations in flight, dropped when none is; a returning atomic's result is waited
    /// for like a load's, and not again once a requested wait retired it.
    #[test]
    fn requested_waits_and_atomics() {
        let request = Inst::Waitcnt {
            vmcnt: Some(0),
            expcnt: None,
            lgkmcnt: Some(0),
        };
        let atomic = |dst| Inst::Atomic {
            op: Op::GlobalAtomicAdd,
            dst,
            addr: vpair(4),
            offset: 0,
            data: crate::isa::gcn::regs::vgpr(2),
            sbase: None,
        };
        let read = |reg| {
            let mut inst = overwrite(6);
            if let Inst::Valu { srcs, .. } = &mut inst {
                srcs[0] = Src::Reg(crate::isa::gcn::regs::vgpr(reg));
            }
            inst
        };
        let seq = vec![request.clone(), atomic(None), request.clone(), read(2)];
        let out = run(seq, Gen::Gfx9, &[]);
        assert_eq!(waits(&out), vec![(Some(0), None, None)]);
        assert!(
            matches!(out[0], Inst::Atomic { .. }),
            "nothing in flight: no wait"
        );
        let returning = atomic(Some(crate::isa::gcn::regs::vgpr(3)));
        let seq = vec![returning.clone(), read(3)];
        assert_eq!(
            waits(&run(seq, Gen::Gfx9, &[])),
            vec![(Some(0), None, None)]
        );
        let seq = vec![returning, request, read(3)];
        assert_eq!(
            waits(&run(seq, Gen::Gfx9, &[])),
            vec![(Some(0), None, None)]
        );
    }

    #[test]
    fn gfx6_store_data_is_overwritten_after_expcnt() {
        let seq = vec![
            store(Op::BufferStoreDword, 2),
            store(Op::BufferStoreDword, 3),
            overwrite(3),
            overwrite(2),
        ];
        let out = run(seq.clone(), Gen::Gfx6, &[]);
        assert_eq!(waits(&out), vec![(None, Some(0), None)]);
        // Overwriting the older store's data first: the newer may stay outstanding.
        let seq = vec![seq[0].clone(), seq[1].clone(), overwrite(2)];
        assert_eq!(
            waits(&run(seq, Gen::Gfx6, &[])),
            vec![(None, Some(1), None)]
        );
        // From gfx7 on, stores do not hold their data.
        let seq = vec![store(Op::FlatStoreDword, 2), overwrite(2)];
        assert!(waits(&run(seq, Gen::Gfx7, &[])).is_empty());
    }

    /// FLAT global loads return in VM_CNT order like GLOBAL ones: the older of two is
    /// waited for with `vmcnt(1)`, no `lgkmcnt` (which a FLAT access needs only for LDS).
    #[test]
    fn global_loads_need_no_lgkmcnt() {
        let load = |op, dst| Inst::Load {
            op,
            dst: crate::isa::gcn::regs::vgpr(dst),
            addr: vpair(4),
            offset: 0,
            sbase: None,
            glc: false,
        };
        let seq = vec![
            load(Op::GlobalLoadDword, 0),
            load(Op::GlobalLoadDword, 1),
            overwrite(0),
        ];
        assert_eq!(
            waits(&run(seq, Gen::Gfx9, &[])),
            vec![(Some(1), None, None)]
        );
        let seq = vec![
            load(Op::FlatLoadDword, 0),
            load(Op::FlatLoadDword, 1),
            overwrite(0),
        ];
        for generation in [Gen::Gfx7, Gen::Gfx8] {
            assert_eq!(
                waits(&run(seq.clone(), generation, &[])),
                vec![(Some(1), None, None)]
            );
        }
    }

    /// A kernel's last stores need no wait before `s_endpgm`, whether it follows them or a
    /// jump leads to it; a jump elsewhere waits for everything in flight.
    #[test]
    fn stores_before_the_end_are_not_waited_for() {
        let seq = vec![store(Op::FlatStoreDword, 2), Inst::EndPgm];
        assert!(waits(&run(seq, Gen::Gfx8, &[])).is_empty());
        let jump = |target| vec![store(Op::BufferStoreDword, 2), Inst::Jump { target }];
        let ends = [false, false, true];
        assert!(waits(&run(jump(2), Gen::Gfx6, &ends)).is_empty());
        assert_eq!(
            waits(&run(jump(1), Gen::Gfx6, &ends)),
            vec![(Some(0), Some(0), None)]
        );
    }
}
