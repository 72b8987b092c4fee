//! The wavelift intrinsics (`crate::intrinsics`) on GCN: work-item and work-group ids and
//! sizes from the kernel's hardware inputs; the cross-lane intrinsics from lane reads,
//! compare masks ANDed with EXEC, wave scans (`Inst::WaveScan`, `emit/wave_scan.rs`),
//! and the shuffles (`shuffles.rs`). Each runs under the EXEC of the block that calls it, which is
//! the set of active lanes `docs/ir.md` defines their results over.

use super::IsleContext;
use super::isle::generated::constructor_cond_mask;
use crate::isa::gcn::inst::{Inst, ScanKind, Src};
use crate::isa::gcn::mc::{Gen, Op};
use crate::isa::gcn::regs::{EXEC, SGPR, VGPR};

use crate::FunctionKind;
use crate::intrinsics::{Intrinsic, Stage, WaveOp};
use crate::ir::Value;
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    pub(super) fn lower_intrinsic(&mut self, intrinsic: Intrinsic, args: &[Value]) -> Option<Reg> {
        let frame = self.backend.frame;
        match intrinsic {
            Intrinsic::WorkitemId(d) => {
                if self.backend.kind != FunctionKind::Kernel {
                    self.fail("work-item ids are only available in kernels");
                    return None;
                }
                // The entry's `Args` defines v0..v2 first, in order.
                let args = self.lower.vcode.insts.iter().find_map(|i| match i {
                    Inst::Args { defs } => Some(defs.clone()),
                    _ => None,
                })?;
                Some(args[d as usize].0)
            }
            Intrinsic::WorkgroupId(d) => {
                let Some(r) = frame.workgroup_id[d as usize] else {
                    self.fail("work-group ids are only available in kernels");
                    return None;
                };
                // The hardware-initialised SGPR is never allocated: use it in place.
                Some(r)
            }
            Intrinsic::WorkgroupSize(d) => {
                let Some(base) = frame.dispatch_ptr else {
                    self.fail("work-group sizes are only available in kernels");
                    return None;
                };
                // hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z are u16 at byte 4, 6, 8.
                let dword = self.vreg(SGPR, RegClass::Int);
                let offset = 4 + 2 * d as u32;
                self.emit(Inst::SLoad {
                    op: Op::SLoadDword,
                    dst: dword,
                    base,
                    offset: offset & !3,
                    soffset: None,
                });
                let field = (16 << 16) | ((offset & 3) * 8);
                Some(self.salu(
                    Op::SBfeU32,
                    &[Src::Reg(dword), Src::Imm(field)],
                    RegClass::Int,
                ))
            }
            Intrinsic::LaneId => Some(self.lane_id()),
            Intrinsic::WaveSize => Some(self.salu(Op::SMovB32, &[Src::Imm(64)], RegClass::Int)),
            Intrinsic::ReadFirstLane => {
                let x = self.value_reg(args[0]);
                Some(self.uniform_sgpr(x))
            }
            Intrinsic::ReadLane => {
                let lane = self.value_reg(args[1]);
                let lane = self.uniform_sgpr(lane);
                let x = self.value_reg(args[0]);
                let value = match x.file() {
                    SGPR => x,
                    _ => self.sgpr_valu(Op::VReadlaneB32, &[Src::Reg(x), Src::Reg(lane)]),
                };
                // An inactive lane reads as 0: test its EXEC bit (both take the lane
                // number modulo 64).
                let bits = self.salu(
                    Op::SLshrB64,
                    &[Src::Reg(EXEC), Src::Reg(lane)],
                    RegClass::Float,
                );
                let low = self.half(bits, false);
                Some(self.scalar_select(Op::SBitcmp1B32, low, Src::Reg(value), Src::Imm(0)))
            }
            Intrinsic::Ballot => Some(self.ballot(args[0], Op::SAndB64)),
            Intrinsic::VoteAny => {
                // Some active lane is true: the ballot counts at least one.
                let lanes = self.ballot(args[0], Op::SAndB64);
                let count = self.salu(Op::SBcnt1I32B64, &[Src::Reg(lanes)], RegClass::Int);
                Some(self.salu(Op::SMinU32, &[Src::Reg(count), Src::Imm(1)], RegClass::Int))
            }
            Intrinsic::VoteAll => {
                // No active lane is false: EXEC minus the true lanes counts none.
                let lanes = self.ballot(args[0], Op::SAndn2B64);
                let count = self.salu(Op::SBcnt1I32B64, &[Src::Reg(lanes)], RegClass::Int);
                let dst = self.vreg(SGPR, RegClass::Int);
                self.emit(Inst::SCmpSelect {
                    cmp: Op::SCmpEqU32,
                    a: Src::Reg(count),
                    b: Src::Imm(0),
                    select: Op::SCselectB32,
                    dst,
                    t: Src::Imm(1),
                    f: Src::Imm(0),
                });
                Some(dst)
            }
            Intrinsic::Reduce(op) => self.wave_scan(op, ScanKind::Reduce, args[0]),
            Intrinsic::InclusiveScan(op) => self.wave_scan(op, ScanKind::Inclusive, args[0]),
            Intrinsic::ExclusiveScan(op) => self.wave_scan(op, ScanKind::Exclusive, args[0]),
            Intrinsic::Shuffle(kind) => Some(self.lane_shuffle(kind, args[0], args[1])),
            Intrinsic::QuadBroadcast => Some(self.quad_broadcast(args[0], args[1])),
            Intrinsic::QuadSwap(mask) => Some(self.quad_swap(args[0], mask)),
            // The segment starts at LDS address 0 (`workgroup.rs` folds it out of
            // addresses); its size is the frame's.
            Intrinsic::WorkgroupBase => Some(self.salu(Op::SMovB32, &[Src::Imm(0)], RegClass::Int)),
            Intrinsic::Barrier => {
                self.barrier();
                None
            }
            // `intrinsics::check_stage` lets a stage's intrinsics through only in a shader
            // of that stage.
            _ if intrinsic.stage() == Some(Stage::Vertex) => self.lower_vertex_intrinsic(intrinsic),
            _ => self.lower_fragment_intrinsic(intrinsic, args),
        }
    }

    /// The lane's index in the wave: `v_mbcnt` over an all-ones mask counts the lanes
    /// below this one.
    pub(super) fn lane_id(&mut self) -> Reg {
        let lo = self.valu(
            Op::VMbcntLoU32B32,
            &[Src::Imm(u32::MAX), Src::Imm(0)],
            RegClass::Int,
        );
        self.valu(
            Op::VMbcntHiU32B32,
            &[Src::Imm(u32::MAX), Src::Reg(lo)],
            RegClass::Int,
        )
    }

    /// `x` in an SGPR: itself, or the first active lane's value (a wave-uniform operand in
    /// a VGPR, or the lane number of `wavelift_readlane`, which docs/ir.md takes from the
    /// first active lane).
    pub(super) fn uniform_sgpr(&mut self, x: Reg) -> Reg {
        match x.file() {
            SGPR => x,
            _ => self.sgpr_valu(Op::VReadfirstlaneB32, &[Src::Reg(x)]),
        }
    }

    /// A VALU instruction with an SGPR result (`v_readfirstlane_b32`, `v_readlane_b32`).
    pub(super) fn sgpr_valu(&mut self, op: Op, srcs: &[Src]) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::Valu {
            op,
            dst: Some(dst),
            sdst: None,
            srcs: srcs.iter().copied().collect(),
            neg: 0,
            abs: 0,
            clamp: false,
            mask_in_vcc: false,
            sdwa: None,
        });
        dst
    }

    /// `cmp(a, 0) ? t : f` in an SGPR.
    fn scalar_select(&mut self, cmp: Op, a: Reg, t: Src, f: Src) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::SCmpSelect {
            cmp,
            a: Src::Reg(a),
            b: Src::Imm(0),
            select: Op::SCselectB32,
            dst,
            t,
            f,
        });
        dst
    }

    /// `combine(condition's lane mask, EXEC)`: with `s_and_b64` the active lanes where
    /// `condition` is true, with `s_andn2_b64` those where it is false.
    fn ballot(&mut self, condition: Value, combine: Op) -> Reg {
        let mask = constructor_cond_mask(self, condition);
        let (a, b) = match combine {
            Op::SAndn2B64 => (EXEC, mask),
            _ => (mask, EXEC),
        };
        self.salu(combine, &[Src::Reg(a), Src::Reg(b)], RegClass::Float)
    }

    fn wave_scan(&mut self, op: WaveOp, kind: ScanKind, x: Value) -> Option<Reg> {
        let src = self.value_reg(x);
        let src = self.vgpr_copy(src);
        let dst_file = if kind == ScanKind::Reduce { SGPR } else { VGPR };
        let dst = self.vreg(dst_file, RegClass::Int);
        let scan = kind != ScanKind::Reduce;
        // f32 min/max scans build a 64-bit NaN mask in `lane`; gfx6/gfx7's f32 sum scans
        // transpose the wave into 16 registers (`emit/wave_scan.rs`).
        let lane_class = match (op, scan) {
            (WaveOp::FMin | WaveOp::FMax, true) => RegClass::Float,
            _ => RegClass::Int,
        };
        let transposed = op == WaveOp::FAdd && scan && self.backend.generation < Gen::Gfx8;
        let rows = (0..if transposed { 15 } else { 0 })
            .map(|_| self.vreg(VGPR, RegClass::Int))
            .collect();
        let inst = Inst::WaveScan {
            op,
            kind,
            dst,
            src,
            tmp: self.vreg(VGPR, RegClass::Int),
            shifted: self.vreg(VGPR, RegClass::Int),
            saved_exec: self.vreg(SGPR, RegClass::Float),
            lane: self.vreg(SGPR, lane_class),
            rows,
        };
        self.emit(inst);
        Some(dst)
    }
}
