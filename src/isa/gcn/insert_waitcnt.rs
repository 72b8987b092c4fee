//! Inserts `s_waitcnt` before instructions that touch the registers of memory loads still in
//! flight (GCN3 ISA manual 4.4, "Data dependency resolution"; AMDGPU LLVM docs, memory
//! model). Scalar loads (SMEM) return out of order, so waiting for one means
//! `lgkmcnt(0)`. Vector memory operations return in order, so waiting for one means
//! `vmcnt(n)` with n the operations issued after it. FLAT operations count in both
//! VM_CNT and LGKM_CNT, and since one may address LDS and complete out of order with the
//! others, a FLAT result is only known to be there after `vmcnt(0) lgkmcnt(0)` (as LLVM's
//! SIInsertWaitcnts also concludes). GLOBAL (gfx9) and MUBUF (gfx6) count in VM_CNT only.
//! On gfx6 a vector-memory store also counts in EXP_CNT until it has read its data VGPRs,
//! which must not be overwritten before (LLVM SIInsertWaitcnts: `VMW_GPR_LOCK`,
//! `vmemWriteNeedsExpWaitcnt`): an instruction defining one waits with `expcnt(n)`.

use super::inst::Inst;
use super::mc::{Enc, Gen};
use crate::machinst::{MachInst, OperandKind, Reg};

#[derive(Copy, Clone, Debug)]
struct Pending {
    /// The registers the load writes: (file, first, count).
    dst: Option<(u8, u16, u16)>,
    /// The registers a gfx6 store still reads while counted in EXP_CNT.
    data: Option<(u8, u16, u16)>,
    /// Counts in VM_CNT (vector memory), LGKM_CNT (scalar memory, FLAT) and EXP_CNT
    /// (gfx6 vector-memory stores until they have read their data).
    vm: bool,
    lgkm: bool,
    exp: bool,
    flat: bool,
}

/// The largest encodable counts, beyond which a wait is not needed for a value.
fn max_vmcnt(generation: Gen) -> usize {
    match generation {
        Gen::Gfx9 => 63,
        _ => 15,
    }
}

const MAX_EXPCNT: usize = 7;

pub fn run(insts: Vec<Inst>, generation: Gen) -> Vec<Inst> {
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
        let overlaps = |p: &Pending| meets(&touched, p.dst) || meets(&defined, p.data);
        let wait_all = inst.is_return() && matches!(inst, Inst::Ret { .. });
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
            let vm_after = if waited.iter().any(|p| p.flat) {
                0
            } else {
                vm_after
            };
            let vmcnt = need_vm.then(|| vm_after.min(max_vmcnt(generation)) as u8);
            let expcnt = need_exp.then(|| exp_after.min(MAX_EXPCNT) as u8);
            let lgkmcnt = need_lgkm.then_some(0);
            out.push(Inst::Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt,
            });
            // After the wait, a VM (EXP) operation is outstanding only if it is among the
            // last `vmcnt` (`expcnt`) ones, and an LGKM one only if LGKM_CNT was not waited
            // for.
            let (mut vm_newer, mut exp_newer) = (0, 0);
            let mut keep = Vec::new();
            for &before in pending.iter().rev() {
                let mut p = before;
                p.vm &= vmcnt.is_none_or(|n| vm_newer < n as usize);
                p.exp &= expcnt.is_none_or(|n| exp_newer < n as usize);
                p.lgkm &= lgkmcnt.is_none();
                vm_newer += before.vm as usize;
                exp_newer += before.exp as usize;
                if p.vm || p.lgkm || p.exp {
                    keep.push(p);
                }
            }
            keep.reverse();
            pending = keep;
        }
        match &inst {
            Inst::SLoad { dst, .. } => pending.push(Pending {
                dst: Some(range(*dst)),
                data: None,
                vm: false,
                lgkm: true,
                exp: false,
                flat: false,
            }),
            Inst::Load { op, dst, .. } => {
                let flat = op.info().enc == Enc::Flat;
                pending.push(Pending {
                    dst: Some(range(*dst)),
                    data: None,
                    vm: true,
                    lgkm: flat,
                    exp: false,
                    flat,
                })
            }
            Inst::Store { op, data, .. } => {
                let flat = op.info().enc == Enc::Flat;
                let exp = generation == Gen::Gfx6;
                pending.push(Pending {
                    dst: None,
                    data: exp.then(|| range(*data)),
                    vm: true,
                    lgkm: flat,
                    exp,
                    flat,
                })
            }
            _ => {}
        }
        out.push(inst);
    }
    out
}

fn range(r: Reg) -> (u8, u16, u16) {
    (r.file(), r.hw(), r.width())
}
