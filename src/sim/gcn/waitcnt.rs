//! Outstanding memory operations and `s_waitcnt` (GCN3 ISA manual 4.4 "Data Dependency
//! Resolution" and the SOPP table entry for S_WAITCNT; the same rules in the SI, CI and
//! Vega manuals).
//!
//! A load reads memory when it issues, but its value reaches the destination registers only
//! when an `s_waitcnt` retires it; until then any read or overwrite of those registers is a
//! violation. The counters:
//! - VM_CNT counts vector-memory operations, which return in issue order: `vmcnt(n)`
//!   retires all but the newest `n`.
//! - LGKM_CNT counts scalar-memory (and LDS, GDS, message) operations, which may return
//!   out of order: only `lgkmcnt(0)` guarantees that a particular one has returned.
//! - FLAT operations that reach global memory return in VM_CNT order like GLOBAL and
//!   MUBUF, so `vmcnt` alone retires them: the hardware counts a FLAT access in LGKM_CNT
//!   too, but only its LDS part waits there, and the simulator's FLAT addresses never reach
//!   LDS (it models no LDS aperture). LLVM's SIInsertWaitcnts agrees: a FLAT instruction
//!   gets an LDS event only when it may access LDS (`mayAccessLDSThroughFlat`).
//! - EXP_CNT counts exports and GDS (none yet) and, on gfx6 only, vector-memory stores
//!   until they have read their data VGPRs (LLVM SIInsertWaitcnts: the `VMW_GPR_LOCK`
//!   event, `vmemWriteNeedsExpWaitcnt()` = before Sea Islands): overwriting a store's data
//!   VGPR before `expcnt` retires the store is a violation. EXP_CNT retires in order here
//!   (the only event is the store's), and independently of VM_CNT, as LLVM assumes.

use super::program::RegSet;

/// The value a load delivers when it retires.
#[derive(Clone, Debug)]
pub(crate) enum Payload {
    /// Consecutive SGPRs from `first`.
    Scalar { first: u16, values: Vec<u32> },
    /// Consecutive VGPRs from `first`, for the lanes in `lanes`: `values[reg][lane]`.
    Vector {
        first: u16,
        lanes: u64,
        values: Vec<[u32; 64]>,
    },
    /// A store or cache operation: nothing to deliver.
    None,
}

#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// Decode index and address of the issuing instruction.
    pub index: u32,
    pub pc: u32,
    /// Still counted in VM_CNT / LGKM_CNT / EXP_CNT.
    pub vm: bool,
    pub lgkm: bool,
    pub exp: bool,
    pub dst: RegSet,
    /// Registers the operation still reads while counted in EXP_CNT (gfx6 store data).
    pub data: RegSet,
    pub payload: Payload,
}

impl Pending {
    /// A vector-memory access (VM_CNT) of the instruction at `pc` with nothing to deliver
    /// yet: its caller fills in what it writes and reads.
    pub fn vector_memory(index: u32, pc: u32) -> Pending {
        Pending {
            index,
            pc,
            vm: true,
            lgkm: false,
            exp: false,
            dst: RegSet::EMPTY,
            data: RegSet::EMPTY,
            payload: Payload::None,
        }
    }

    /// An LDS access (LGKM_CNT), as [`Pending::vector_memory`].
    pub fn lds(index: u32, pc: u32) -> Pending {
        Pending {
            vm: false,
            lgkm: true,
            ..Pending::vector_memory(index, pc)
        }
    }
}

/// The outstanding memory operations of a wave, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outstanding {
    ops: Vec<Pending>,
    /// Union of the destinations of `ops`.
    dst: RegSet,
}

impl Outstanding {
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn issue(&mut self, op: Pending) {
        self.dst = self.dst.union(op.dst);
        self.ops.push(op);
    }

    /// The oldest outstanding operation, if any.
    pub fn oldest(&self) -> Option<&Pending> {
        self.ops.first()
    }

    /// The oldest outstanding operation writing a register of `regs`.
    pub fn conflict(&self, regs: RegSet) -> Option<(&Pending, RegSet)> {
        if !self.dst.overlaps(regs) {
            return None;
        }
        self.ops.iter().find_map(|p| {
            let common = p.dst.intersect(regs);
            (!common.is_empty()).then_some((p, common))
        })
    }

    /// The oldest operation counted in EXP_CNT that still reads a register of `writes`.
    pub fn data_conflict(&self, writes: RegSet) -> Option<(&Pending, RegSet)> {
        self.ops.iter().find_map(|p| {
            let common = p.data.intersect(writes);
            (p.exp && !common.is_empty()).then_some((p, common))
        })
    }

    /// Applies `s_waitcnt vmcnt(vm) expcnt(exp) lgkmcnt(lgkm)`; returns the operations that
    /// completed, oldest first, for their payloads to be written.
    pub fn wait(&mut self, vm: u32, exp: u32, lgkm: u32) -> Vec<Pending> {
        fn retire_in_order(ops: &mut [Pending], keep: u32, counted: fn(&mut Pending) -> &mut bool) {
            let mut outstanding = 0;
            for p in ops.iter_mut() {
                outstanding += *counted(p) as u32;
            }
            let mut retire = outstanding.saturating_sub(keep);
            for p in ops {
                if retire == 0 {
                    break;
                }
                let c = counted(p);
                if *c {
                    *c = false;
                    retire -= 1;
                }
            }
        }
        retire_in_order(&mut self.ops, vm, |p| &mut p.vm);
        // A gfx6 atomic that returns a value has read its data before the value came back.
        for p in &mut self.ops {
            if !p.vm && p.exp && !p.dst.is_empty() {
                p.exp = false;
            }
        }
        retire_in_order(&mut self.ops, exp, |p| &mut p.exp);
        if lgkm == 0 {
            for p in &mut self.ops {
                p.lgkm = false;
            }
        }
        self.take_completed()
    }

    /// Everything returns (`s_endpgm`: stores are done, load results are dropped).
    pub fn drain(&mut self) -> Vec<Pending> {
        self.wait(0, 0, 0)
    }

    fn take_completed(&mut self) -> Vec<Pending> {
        let (done, rest): (Vec<Pending>, Vec<Pending>) =
            self.ops.drain(..).partition(|p| !p.vm && !p.lgkm && !p.exp);
        self.ops = rest;
        self.dst = self
            .ops
            .iter()
            .fold(RegSet::EMPTY, |acc, p| acc.union(p.dst));
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(pc: u32, vm: bool, lgkm: bool, reg: u16) -> Pending {
        Pending {
            index: 0,
            pc,
            vm,
            lgkm,
            exp: false,
            dst: RegSet::range(reg, 1),
            data: RegSet::EMPTY,
            payload: Payload::None,
        }
    }

    #[test]
    fn vm_in_order_lgkm_only_at_zero() {
        let mut o = Outstanding::default();
        o.issue(op(0, true, false, 256));
        o.issue(op(8, true, false, 257));
        o.issue(op(16, false, true, 4));
        let done = o.wait(1, 7, 15);
        assert_eq!(done.iter().map(|p| p.pc).collect::<Vec<_>>(), vec![0]);
        assert!(o.conflict(RegSet::range(256, 1)).is_none());
        assert_eq!(o.conflict(RegSet::range(257, 1)).unwrap().0.pc, 8);
        // lgkmcnt(0) with one SMEM outstanding: lgkmcnt(n > 0) guarantees nothing.
        assert!(o.wait(15, 7, 1).is_empty());
        assert_eq!(o.wait(15, 7, 0).len(), 1);
        assert!(o.conflict(RegSet::range(4, 1)).is_none());
    }

    #[test]
    fn gfx6_store_data_is_locked_until_expcnt() {
        let mut o = Outstanding::default();
        let mut store = op(0, true, false, 0);
        (store.exp, store.dst, store.data) = (true, RegSet::EMPTY, RegSet::range(260, 2));
        o.issue(store.clone());
        o.issue(store);
        assert!(
            o.conflict(RegSet::range(260, 1)).is_none(),
            "reading is fine"
        );
        assert!(o.data_conflict(RegSet::range(261, 1)).is_some());
        assert!(o.wait(0, 7, 15).is_empty(), "vmcnt does not retire EXP_CNT");
        assert_eq!(o.wait(15, 1, 15).len(), 1, "in order: the older one");
        assert_eq!(o.wait(15, 0, 15).len(), 1);
        assert!(o.data_conflict(RegSet::range(261, 1)).is_none());
    }

    #[test]
    fn an_operation_in_both_counters_needs_both() {
        let mut o = Outstanding::default();
        o.issue(op(0, true, true, 256));
        assert!(o.wait(0, 7, 15).is_empty());
        assert!(o.conflict(RegSet::range(256, 1)).is_some());
        assert_eq!(o.wait(15, 7, 0).len(), 1);
        assert!(o.is_empty());
    }
}
