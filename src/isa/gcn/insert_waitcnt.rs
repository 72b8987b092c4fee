//! Inserts `s_waitcnt` before instructions that touch the registers of memory loads still in
//! flight (GCN3 ISA manual 4.4, "Data dependency resolution"; AMDGPU LLVM docs, memory
//! model). Scalar loads (SMEM) return out of order, so waiting for one means
//! `lgkmcnt(0)`. Vector memory operations return in order, so waiting for one means
//! `vmcnt(n)` with n the operations issued after it. FLAT operations count in both
//! VM_CNT and LGKM_CNT, and since one may address LDS and complete out of order with the
//! others, a FLAT result is only known to be there after `vmcnt(0) lgkmcnt(0)` (as LLVM's
//! SIInsertWaitcnts also concludes).
//!
//! Control flow: everything in flight is waited for before each branch, so the pass can
//! walk the code in layout order.

use super::inst::Inst;
use super::mc::Gen;
use crate::machinst::{MachInst, Reg};

#[derive(Copy, Clone, Debug)]
struct Pending {
    /// The registers the load writes: (file, first, count).
    dst: Option<(u8, u16, u16)>,
    /// Counts in VM_CNT (vector memory) and LGKM_CNT (scalar memory, FLAT).
    vm: bool,
    lgkm: bool,
    flat: bool,
}

/// The largest encodable counts, beyond which a wait is not needed for a value.
fn max_vmcnt(generation: Gen) -> usize {
    match generation {
        Gen::Gfx9 => 63,
        _ => 15,
    }
}

pub fn run(insts: Vec<Inst>, generation: Gen) -> Vec<Inst> {
    let mut out = Vec::with_capacity(insts.len());
    let mut pending: Vec<Pending> = Vec::new();
    for mut inst in insts {
        let mut touched: Vec<(u8, u16, u16)> = Vec::new();
        inst.visit_operands(&mut |r, _| {
            if let Reg::Real { file, hw, .. } = *r {
                touched.push((file, hw, r.width()));
            }
        });
        let overlaps = |p: &Pending| {
            p.dst.is_some_and(|(file, first, count)| {
                touched
                    .iter()
                    .any(|&(f, h, w)| f == file && h < first + count && first < h + w)
            })
        };
        // Nothing stays in flight across a branch, so every block starts with nothing
        // pending whichever way it is entered (conservative, but always correct; loads
        // outstanding at a loop's back edge are waited for).
        let wait_all = matches!(inst, Inst::Ret { .. }) || inst.is_branch();
        // The newest pending operation this instruction must wait for.
        let needed: Option<usize> = if wait_all && !pending.is_empty() {
            Some(pending.len() - 1)
        } else {
            pending.iter().rposition(overlaps)
        };
        if let Some(index) = needed {
            let waited = &pending[..=index];
            let vm_after = pending[index + 1..].iter().filter(|p| p.vm).count();
            let need_vm = waited.iter().any(|p| p.vm);
            let need_lgkm = waited.iter().any(|p| p.lgkm);
            let vm_after = if waited.iter().any(|p| p.flat) {
                0
            } else {
                vm_after
            };
            let vmcnt = need_vm.then(|| vm_after.min(max_vmcnt(generation)) as u8);
            let lgkmcnt = need_lgkm.then_some(0);
            out.push(Inst::Waitcnt {
                vmcnt,
                expcnt: None,
                lgkmcnt,
            });
            // After the wait, a VM operation is outstanding only if it is among the last
            // `vmcnt` ones, and an LGKM one only if LGKM_CNT was not waited for.
            let mut vm_newer = 0;
            let mut keep = Vec::new();
            for p in pending.iter().rev() {
                let vm_outstanding = p.vm && vmcnt.is_none_or(|n| vm_newer < n as usize);
                let lgkm_outstanding = p.lgkm && lgkmcnt.is_none();
                if p.vm {
                    vm_newer += 1;
                }
                if vm_outstanding || lgkm_outstanding {
                    keep.push(*p);
                }
            }
            keep.reverse();
            pending = keep;
        }
        match &inst {
            Inst::SLoad { dst, .. } => pending.push(Pending {
                dst: Some(range(*dst)),
                vm: false,
                lgkm: true,
                flat: false,
            }),
            Inst::FlatLoad { dst, .. } => pending.push(Pending {
                dst: Some(range(*dst)),
                vm: true,
                lgkm: true,
                flat: true,
            }),
            Inst::FlatStore { .. } => pending.push(Pending {
                dst: None,
                vm: true,
                lgkm: true,
                flat: true,
            }),
            _ => {}
        }
        out.push(inst);
    }
    out
}

fn range(r: Reg) -> (u8, u16, u16) {
    (r.file(), r.hw(), r.width())
}
