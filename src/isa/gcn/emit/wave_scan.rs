//! Wave reductions and scans (`Inst::WaveScan`): the cross-lane intrinsics
//! `wavelift_reduce_*` and `wavelift_scan_*` (`docs/ir.md`, "Cross-lane intrinsics").
//!
//! Both forms first give every inactive lane the operation's identity in a copy of the
//! source, so that the whole wave can then take part: with EXEC all ones,
//! `v_mov_b32 t, identity`, then under the caller's EXEC `v_mov_b32 t, src`.
//!
//! **gfx8/gfx9** (DPP): six VALU operations with a DPP source compute the inclusive scan
//! in place, in the association order `docs/ir.md` fixes (LLVM's
//! `AMDGPUAtomicOptimizer::buildScan` uses the same steps): `row_shr:1`, `2`, `4`, `8`
//! (within each row of 16 lanes; a lane whose source is outside its row is not written,
//! `bound_ctrl` clear, so it keeps its value: the identity's effect), then `row_bcast:15`
//! with `row_mask:0xa` (rows 1 and 3 add the last lane of the row before) and
//! `row_bcast:31` with `row_mask:0xc` (rows 2 and 3 add lane 31). Each reads the VGPR the
//! one before wrote, so the hazard pass puts an `s_nop 1` between them. A reduction then
//! reads lane 63 (`v_readlane_b32`); an exclusive scan shifts the wave by one lane
//! (`wave_shr:1`, lane 0 keeping the identity). A reduction is 19 instructions with the
//! five `s_nop 1` (gfx9, and gfx8 but for the sum). gfx8's `v_add_u32` writes a carry, which the manuals leave undefined in a lane
//! DPP does not write: its row steps use `bound_ctrl` (an invalid source reads 0) and its
//! `row_bcast` steps a shifted copy (`v_mov_b32` 0, `v_mov_b32_dpp`, `v_add_u32`): 23
//! instructions for its sum reduction.
//!
//! **gfx6/gfx7** (no DPP): `v_readlane_b32` of every lane in order and a scalar operation
//! per lane (`v_writelane_b32` of the running value for scans): 131 instructions for a
//! reduction, 197 for a scan. The integer operations are associative and commutative, so
//! any order gives the documented result; the f32 ones are not supported there yet (their
//! order is the DPP tree's, which readlanes would have to rebuild).

use super::super::mc::{Dpp, DppCtrl, Gen, Op, Operand};
use super::{Emitter, mc_inst, reg_operand};
use crate::intrinsics::WaveOp;
use crate::isa::gcn::inst::{ScanKind, without_carry, writes_carry};
use crate::machinst::Reg;

/// The canonical quiet NaN, the result of an f32 min or max with a NaN operand.
const F32_NAN: u32 = 0x7fc0_0000;

/// The VALU operation of `op` (gfx8: `v_add_u32` writes its carry to VCC).
pub fn valu_op(op: WaveOp, generation: Gen) -> Op {
    match op {
        WaveOp::Add => without_carry(Op::VAddU32, generation),
        WaveOp::SMin => Op::VMinI32,
        WaveOp::SMax => Op::VMaxI32,
        WaveOp::UMin => Op::VMinU32,
        WaveOp::UMax => Op::VMaxU32,
        WaveOp::And => Op::VAndB32,
        WaveOp::Or => Op::VOrB32,
        WaveOp::Xor => Op::VXorB32,
        WaveOp::FAdd => Op::VAddF32,
        WaveOp::FMin => Op::VMinF32,
        WaveOp::FMax => Op::VMaxF32,
    }
}

/// The scalar operation of an integer `op` (gfx6/gfx7's chain), if it has one.
fn salu_op(op: WaveOp) -> Option<Op> {
    Some(match op {
        WaveOp::Add => Op::SAddU32,
        WaveOp::SMin => Op::SMinI32,
        WaveOp::SMax => Op::SMaxI32,
        WaveOp::UMin => Op::SMinU32,
        WaveOp::UMax => Op::SMaxU32,
        WaveOp::And => Op::SAndB32,
        WaveOp::Or => Op::SOrB32,
        WaveOp::Xor => Op::SXorB32,
        WaveOp::FAdd | WaveOp::FMin | WaveOp::FMax => return None,
    })
}

/// The registers of an `Inst::WaveScan` after allocation.
pub struct WaveScanRegs {
    pub dst: Reg,
    pub src: Reg,
    /// A VGPR: the source with inactive lanes at the identity, then the running values.
    pub tmp: Reg,
    /// A VGPR: gfx8's shifted copy for the sum's `row_bcast` steps.
    pub shifted: Reg,
    /// An SGPR pair: the caller's EXEC.
    pub saved_exec: Reg,
    /// An SGPR: one lane's value in the gfx6/gfx7 chain (unused with DPP).
    pub lane: Reg,
}

impl Emitter<'_> {
    pub(super) fn wave_scan(&mut self, op: WaveOp, kind: ScanKind, regs: &WaveScanRegs) {
        let (t, src) = (reg_operand(regs.tmp, 0), reg_operand(regs.src, 0));
        let save = reg_operand(regs.saved_exec, 0);
        let all = Operand::inline_int(-1).expect("-1 is inline");
        let mut literal = None;
        let identity = self.imm(op.identity(), &mut literal);
        self.salu(Op::SOrSaveexecB64, Some(save), &[all], None);
        self.valu(Op::VMovB32, Some(t), None, &[identity], literal);
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
        self.valu(Op::VMovB32, Some(t), None, &[src], None);
        if self.generation >= Gen::Gfx8 {
            self.dpp_scan(op, kind, regs);
        } else {
            self.readlane_scan(op, kind, regs);
        }
        if matches!(op, WaveOp::FMin | WaveOp::FMax) && kind == ScanKind::Reduce {
            // v_min_f32/v_max_f32 (IEEE mode) skip a NaN operand; CLIF's fmin/fmax give
            // NaN: so does the reduction when an active lane holds one (VOPC writes 0 for
            // inactive lanes).
            let d = reg_operand(regs.dst, 0);
            self.valu(Op::VCmpUF32, None, Some(Operand::VCC), &[src, src], None);
            self.salu(
                Op::SCmpLgU64,
                None,
                &[Operand::VCC, Operand::inline_int(0).unwrap()],
                None,
            );
            self.salu(
                Op::SCselectB32,
                Some(d),
                &[Operand::LITERAL, d],
                Some(F32_NAN),
            );
        }
    }

    fn dpp_scan(&mut self, op: WaveOp, kind: ScanKind, regs: &WaveScanRegs) {
        let t = reg_operand(regs.tmp, 0);
        let all = Operand::inline_int(-1).expect("-1 is inline");
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[all], None);
        let valu = valu_op(op, self.generation);
        let carry = writes_carry(valu).then_some(Operand::VCC);
        let steps = [
            (DppCtrl::RowShr(1), 0xf),
            (DppCtrl::RowShr(2), 0xf),
            (DppCtrl::RowShr(4), 0xf),
            (DppCtrl::RowShr(8), 0xf),
            (DppCtrl::RowBcast15, 0xa),
            (DppCtrl::RowBcast31, 0xc),
        ];
        for (ctrl, row_mask) in steps {
            let mut dpp = Dpp::new(ctrl);
            dpp.row_mask = row_mask;
            if carry.is_none() {
                self.valu_dpp(valu, t, None, &[t, t], dpp);
            } else if row_mask == 0xf {
                // gfx8's v_add_u32 writes a carry bit in every lane, which the manual does
                // not define for a lane DPP leaves unwritten: with `bound_ctrl` an invalid
                // source reads 0, the sum's identity, and every lane writes.
                dpp.bound_ctrl = true;
                self.valu_dpp(valu, t, carry, &[t, t], dpp);
            } else {
                // The rows the mask leaves out must add 0: a shifted copy, then a plain add.
                let shifted = reg_operand(regs.shifted, 0);
                let zero = Operand::inline_int(0).expect("0 is inline");
                self.valu(Op::VMovB32, Some(shifted), None, &[zero], None);
                self.valu_dpp(Op::VMovB32, shifted, None, &[t], dpp);
                self.valu(valu, Some(t), carry, &[shifted, t], None);
            }
        }
        let d = reg_operand(regs.dst, 0);
        let save = reg_operand(regs.saved_exec, 0);
        match kind {
            ScanKind::Reduce => {
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
                let lane63 = Operand::inline_int(63).expect("63 is inline");
                self.valu(Op::VReadlaneB32, Some(d), None, &[t, lane63], None);
            }
            ScanKind::Inclusive => {
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
                self.valu(Op::VMovB32, Some(d), None, &[t], None);
            }
            ScanKind::Exclusive => {
                // Lane 0's source is out of range: not written, it keeps the identity.
                let mut literal = None;
                let identity = self.imm(op.identity(), &mut literal);
                self.valu(Op::VMovB32, Some(d), None, &[identity], literal);
                self.valu_dpp(Op::VMovB32, d, None, &[t], Dpp::new(DppCtrl::WaveShr1));
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
            }
        }
    }

    /// gfx6/gfx7: the lanes one by one (integer operations only; lowering refuses f32).
    fn readlane_scan(&mut self, op: WaveOp, kind: ScanKind, regs: &WaveScanRegs) {
        let salu = salu_op(op).expect("lowering refuses f32 wave operations before gfx8");
        let (t, d) = (reg_operand(regs.tmp, 0), reg_operand(regs.dst, 0));
        let lane = reg_operand(regs.lane, 0);
        let at = |i: i64| Operand::inline_int(i).expect("lane numbers are inline");
        match kind {
            ScanKind::Reduce => {
                self.valu(Op::VReadlaneB32, Some(d), None, &[t, at(0)], None);
                for i in 1..64 {
                    self.valu(Op::VReadlaneB32, Some(lane), None, &[t, at(i)], None);
                    self.salu(salu, Some(d), &[d, lane], None);
                }
            }
            ScanKind::Inclusive | ScanKind::Exclusive => {
                // `save`'s low half is free once EXEC is restored: the running value.
                let acc = reg_operand(regs.saved_exec, 0);
                let mut literal = None;
                let identity = self.imm(op.identity(), &mut literal);
                self.salu(Op::SMovB32, Some(acc), &[identity], literal);
                for i in 0..64 {
                    self.valu(Op::VReadlaneB32, Some(lane), None, &[t, at(i)], None);
                    if kind == ScanKind::Exclusive {
                        self.valu(Op::VWritelaneB32, Some(d), None, &[acc, at(i)], None);
                    }
                    self.salu(salu, Some(acc), &[acc, lane], None);
                    if kind == ScanKind::Inclusive {
                        self.valu(Op::VWritelaneB32, Some(d), None, &[acc, at(i)], None);
                    }
                }
            }
        }
    }

    /// A VOP1/VOP2 operation whose src0 is read through DPP `dpp`.
    pub(super) fn valu_dpp(
        &mut self,
        op: Op,
        dst: Operand,
        sdst: Option<Operand>,
        srcs: &[Operand],
        dpp: Dpp,
    ) {
        let mut m = mc_inst(op, self.generation);
        m.dst = Some(dst);
        m.sdst = sdst;
        for (i, &s) in srcs.iter().enumerate() {
            m.src[i] = Some(s);
        }
        m.dpp = Some(dpp);
        if let Err(e) = m.select_encoding(self.generation) {
            self.errors.push(e);
        }
        self.out.push(m);
    }
}
