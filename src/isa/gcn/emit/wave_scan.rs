//! Wave reductions and scans (`Inst::WaveScan`): the cross-lane intrinsics
//! `wavelift_reduce_*` and `wavelift_scan_*` (`docs/ir.md`, "Cross-lane intrinsics").
//! Counts below are of the expansion alone, wait-state `s_nop`s included, for an identity
//! that is an inline constant (one more instruction where it is a literal, see below).
//!
//! **Inactive lanes.** Every form first gives a whole-wave copy of the source the
//! operation's identity in the caller's inactive lanes: with EXEC saved and set to all
//! lanes, `v_cndmask_b32` selects the source where the saved EXEC has the lane and the
//! identity elsewhere, an inline constant (0, −1) or a register moved the literal first
//! (VOP3 takes no literal): 2 or 3 instructions (LLVM's `set.inactive` takes four: a move,
//! two `s_not_b64 exec` and a move).
//!
//! **gfx8/gfx9** (DPP): six VALU operations with a DPP source compute the inclusive scan
//! in place, in the association order `docs/ir.md` fixes (LLVM's
//! `AMDGPUAtomicOptimizer::buildScan` uses the same steps): `row_shr:1`, `2`, `4`, `8`
//! (within each row of 16 lanes; a lane whose source is outside its row is not written,
//! `bound_ctrl` clear, so it keeps its value: the identity's effect), then `row_bcast:15`
//! with `row_mask:0xa` (rows 1 and 3 add the last lane of the row before) and
//! `row_bcast:31` with `row_mask:0xc` (rows 2 and 3 add lane 31). Each reads the VGPR the
//! one before wrote, so the hazard pass puts an `s_nop 1` between them. A reduction then
//! reads lane 63 (`v_readlane_b32`): 16 instructions; an inclusive scan runs in the
//! result's register: 15; an exclusive scan shifts the wave by one lane (`wave_shr:1`,
//! lane 0 reading 0 through `bound_ctrl` where the identity is 0, else keeping a moved
//! identity): 17 (18 with the move). (LLVM 19's own form of these steps, with its
//! `set.inactive` and `strict.wwm`, takes 18 for either.)
//!
//! gfx8's `v_add_u32` writes a carry, which the simulator (rightly: the manuals do not say)
//! refuses to leave undefined in a lane DPP does not write: its row steps use `bound_ctrl`
//! (an invalid source reads 0, the sum's identity, and every lane writes). A reduction reads
//! lane 63 alone, whose value is the same whether the other rows take the `row_bcast`
//! steps or not, so its `row_bcast` steps write every row (16 instructions, as gfx9). A
//! scan's rows must not: each `row_bcast` step moves the broadcast value into a register
//! cleared beforehand (`v_mov_b32_dpp` with the step's row mask), then adds it without
//! DPP. The two clearing moves stand where the first step's `s_nop 1` would: an inclusive
//! sum is 18 instructions, an exclusive one 20.
//!
//! **f32 min and max**: `v_min_f32`/`v_max_f32` (IEEE mode) return the other operand of a
//! quiet NaN, CLIF's `fmin`/`fmax` a NaN; and a lane's result is NaN exactly when an
//! active lane it combines holds one. After EXEC is restored, `v_cmp_u_f32` gives the
//! active NaN lanes x; a reduction with any is NaN (`s_or_b64` sets SCC, `s_cselect_b32`:
//! 3 more instructions, 20 in all); a scan is NaN from the lowest NaN lane up (inclusive: the lanes
//! outside `(x − 1) & !x`) or above it (exclusive: outside `x ^ (x − 1)`), a 64-bit
//! subtract, one mask operation, the NaN moved into a VGPR and a `v_cndmask_b32` (6 more:
//! VOP2's VCC takes the constant bus, which a literal would need; 22 inclusive, 25
//! exclusive).
//!
//! **gfx6/gfx7** (no DPP) run the source's whole-wave copy through lane reads:
//! - integer operations: `v_readlane_b32` of every lane in order and a scalar operation
//!   per lane (`v_writelane_b32` of the running value for scans): 130 instructions for a
//!   reduction, 196 for a scan (the order does not matter: they are associative and
//!   commutative);
//! - f32 min and max the same way, on integer keys: `x ^ ((x >>arith 31) >>logical 1)`
//!   orders f32 bit patterns as `s_min_i32`/`s_max_i32` order integers, −0.0 below +0.0,
//!   and is its own inverse (3 VALU instructions before the chain, 3 after, then the NaN
//!   rule above): 140 for a reduction, 209 for a scan (their identities are literals);
//! - the f32 sum, whose order is DPP's tree. A reduction combines pairs level by level:
//!   lane k·2s takes lane k·2s + s (`v_readlane_b32`, `v_writelane_b32` into a second
//!   register) for s = 1, 2, 4, 8, 16, then one `v_add_f32` adds the two registers in every
//!   lane; the last level adds lane 32 as a scalar operand. IEEE addition is commutative,
//!   so this is the tree `docs/ir.md` gives for lane 63 (pairs, pairs of pairs, …): 136
//!   instructions (the identity −0.0 is a literal). A scan moves the wave into 16 registers, register p holding in lane r
//!   the value of lane 16r + p (63 lane moves; register 0 is the source's copy), so that
//!   each row step is one `v_add_f32` per register, for the four rows at once, under EXEC
//!   0b1111: 49 additions; the `row_bcast:15` step adds a register holding lanes 15 and 47
//!   in lanes 1 and 3 and −0.0 elsewhere (x + −0.0 = x), the `row_bcast:31` step lane 31
//!   as a scalar operand under EXEC 0b1100; then 64 lane moves back (the exclusive scan
//!   moves lane i − 1 into lane i): 347 instructions inclusive, 346 exclusive. Moving each
//!   step's shifted copy lane by lane instead (each row step 2 instructions per lane that
//!   reads another) would take over 400, and an exclusive scan 126 more for the last
//!   shift.

use super::super::mc::{Dpp, DppCtrl, Gen, Op, Operand};
use super::{Emitter, mc_inst, reg_operand};
use crate::intrinsics::WaveOp;
use crate::isa::gcn::inst::{ScanKind, without_carry, writes_carry};
use crate::machinst::Reg;

/// The canonical quiet NaN, the result of an f32 min or max with a NaN operand.
const F32_NAN: u32 = 0x7fc0_0000;

/// −0.0, the f32 sum's identity.
const NEG_ZERO: u32 = 0x8000_0000;

/// The integer key gfx6/gfx7 order `op`'s value `bits` by: f32 bit patterns made to order
/// as `i32`s (the sign-magnitude negatives reversed), other values themselves.
fn key(op: WaveOp, bits: u32) -> u32 {
    if op.is_float() {
        bits ^ (((bits as i32) >> 31) as u32 >> 1)
    } else {
        bits
    }
}

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

/// The scalar operation of `op` in gfx6/gfx7's chain (f32 min/max on keys, [`key`]), if
/// it has one.
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
        WaveOp::FMin => Op::SMinI32,
        WaveOp::FMax => Op::SMaxI32,
        WaveOp::FAdd => return None,
    })
}

/// The registers of an `Inst::WaveScan` after allocation.
pub struct WaveScanRegs<'a> {
    pub dst: Reg,
    pub src: Reg,
    /// A VGPR: the source with inactive lanes at the identity, then the running values.
    pub tmp: Reg,
    /// A VGPR: gfx8's cleared register for a sum's `row_bcast` steps; gfx6/gfx7's second
    /// register of the f32 sum and of the float keys.
    pub shifted: Reg,
    /// An SGPR pair: the caller's EXEC (VCC where the identity takes a literal).
    pub saved_exec: Reg,
    /// An SGPR (a pair for f32 min/max scans): one lane's value in the gfx6/gfx7 chain,
    /// the NaN masks of f32 min/max scans.
    pub lane: Reg,
    /// gfx6/gfx7's f32 sum scans: registers 1–15 of the transposed wave.
    pub rows: &'a [Reg],
}

/// The DPP steps of the inclusive scan: control and row mask.
const DPP_STEPS: [(DppCtrl, u8); 6] = [
    (DppCtrl::RowShr(1), 0xf),
    (DppCtrl::RowShr(2), 0xf),
    (DppCtrl::RowShr(4), 0xf),
    (DppCtrl::RowShr(8), 0xf),
    (DppCtrl::RowBcast15, 0xa),
    (DppCtrl::RowBcast31, 0xc),
];

/// The inline constant `i` (lane numbers, shift counts, small masks).
fn int(i: i64) -> Operand {
    Operand::inline_int(i).expect("an inline constant")
}

impl Emitter<'_> {
    pub(super) fn wave_scan(&mut self, op: WaveOp, kind: ScanKind, regs: &WaveScanRegs) {
        let dpp = self.generation >= Gen::Gfx8;
        // An inclusive DPP scan runs in the result's register.
        let acc = match (dpp, kind) {
            (true, ScanKind::Inclusive) => regs.dst,
            _ => regs.tmp,
        };
        self.set_inactive(op, acc, regs);
        if dpp {
            self.dpp_scan(op, kind, acc, regs);
        } else if op == WaveOp::FAdd && kind == ScanKind::Reduce {
            self.readlane_fadd_reduce(regs);
        } else if op == WaveOp::FAdd {
            self.readlane_fadd_scan(kind, regs);
        } else {
            self.readlane_scan(op, kind, regs);
        }
        if matches!(op, WaveOp::FMin | WaveOp::FMax) {
            self.nan_lanes(kind, regs);
        }
    }

    /// `acc` = the source in the caller's lanes, the identity in the others; EXEC all lanes.
    fn set_inactive(&mut self, op: WaveOp, acc: Reg, regs: &WaveScanRegs) {
        let save = reg_operand(regs.saved_exec, 0);
        self.salu(Op::SOrSaveexecB64, Some(save), &[int(-1)], None);
        let (src, acc) = (reg_operand(regs.src, 0), reg_operand(acc, 0));
        let identity = match op.identity() {
            0 => int(0),
            u32::MAX => int(-1),
            bits => {
                // VOP3 takes no literal (nor a second scalar beside the mask).
                self.mov_constant(acc, bits);
                acc
            }
        };
        self.valu(
            Op::VCndmaskB32,
            Some(acc),
            None,
            &[identity, src, save],
            None,
        );
    }

    fn dpp_scan(&mut self, op: WaveOp, kind: ScanKind, acc: Reg, regs: &WaveScanRegs) {
        let a = reg_operand(acc, 0);
        let valu = valu_op(op, self.generation);
        let carry = writes_carry(valu).then_some(Operand::VCC);
        // gfx8's sum scans: the registers the `row_bcast` steps move into, cleared (the
        // result's register is free until the exclusive scan's last step).
        let cleared = [
            regs.shifted,
            if kind == ScanKind::Inclusive {
                regs.tmp
            } else {
                regs.dst
            },
        ]
        .map(|r| reg_operand(r, 0));
        let moves = carry.is_some() && kind != ScanKind::Reduce;
        if moves {
            for c in cleared {
                self.valu(Op::VMovB32, Some(c), None, &[int(0)], None);
            }
        }
        for (ctrl, row_mask) in DPP_STEPS {
            let mut dpp = Dpp::new(ctrl);
            dpp.row_mask = row_mask;
            if carry.is_none() {
                self.valu_dpp(valu, a, None, &[a, a], dpp);
            } else if row_mask == 0xf || !moves {
                // Every lane writes its carry: an invalid source reads 0 (`bound_ctrl`),
                // and a reduction's `row_bcast` steps take every row (only lane 63 counts).
                dpp.row_mask = 0xf;
                dpp.bound_ctrl = true;
                self.valu_dpp(valu, a, carry, &[a, a], dpp);
            } else {
                let c = cleared[(ctrl == DppCtrl::RowBcast31) as usize];
                self.valu_dpp(Op::VMovB32, c, None, &[a], dpp);
                self.valu(valu, Some(a), carry, &[c, a], None);
            }
        }
        let d = reg_operand(regs.dst, 0);
        let save = reg_operand(regs.saved_exec, 0);
        match kind {
            ScanKind::Reduce => {
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
                self.valu(Op::VReadlaneB32, Some(d), None, &[a, int(63)], None);
            }
            ScanKind::Inclusive => {
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
            }
            ScanKind::Exclusive => {
                // Lane 0's source is out of range: it reads 0 with `bound_ctrl`, or keeps
                // the identity moved there.
                let mut shift = Dpp::new(DppCtrl::WaveShr1);
                if op.identity() == 0 {
                    shift.bound_ctrl = true;
                } else {
                    self.mov_constant(d, op.identity());
                }
                self.valu_dpp(Op::VMovB32, d, None, &[a], shift);
                self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
            }
        }
    }

    /// `v_mov_b32 dst, bits`; 0x80000000 (−0.0, `i32::MIN`) as `v_bfrev_b32 dst, 1`, which
    /// needs no literal dword.
    fn mov_constant(&mut self, dst: Operand, bits: u32) {
        match bits {
            0x8000_0000 => self.valu(Op::VBfrevB32, Some(dst), None, &[int(1)], None),
            _ => {
                let mut literal = None;
                let value = self.imm(bits, &mut literal);
                self.valu(Op::VMovB32, Some(dst), None, &[value], literal);
            }
        }
    }

    /// f32 min/max, after EXEC is restored: NaN where an active lane combined holds one.
    fn nan_lanes(&mut self, kind: ScanKind, regs: &WaveScanRegs) {
        let (src, d) = (reg_operand(regs.src, 0), reg_operand(regs.dst, 0));
        // VOPC writes 0 for inactive lanes.
        self.valu(Op::VCmpUF32, None, Some(Operand::VCC), &[src, src], None);
        if kind == ScanKind::Reduce {
            // SCC = VCC ≠ 0 (`s_cmp_lg_u64` is gfx8's).
            self.salu(
                Op::SOrB64,
                Some(Operand::VCC),
                &[Operand::VCC, int(0)],
                None,
            );
            self.salu(
                Op::SCselectB32,
                Some(d),
                &[Operand::LITERAL, d],
                Some(F32_NAN),
            );
            return;
        }
        // x − 1 clears x's lowest bit and sets those below it (all bits for x = 0).
        let (p, p_hi) = (reg_operand(regs.lane, 0), reg_operand(regs.lane, 1));
        let vcc_hi = Operand(Operand::VCC.0 + 1);
        self.salu(Op::SSubU32, Some(p), &[Operand::VCC, int(1)], None);
        self.salu(Op::SSubbU32, Some(p_hi), &[vcc_hi, int(0)], None);
        // The lanes that keep their value: below the lowest NaN lane (inclusive), up to it
        // (exclusive).
        let keep = match kind {
            ScanKind::Inclusive => (Op::SAndn2B64, [p, Operand::VCC]),
            _ => (Op::SXorB64, [Operand::VCC, p]),
        };
        self.salu(keep.0, Some(Operand::VCC), &keep.1, None);
        // The NaN in a register: VCC is on the constant bus already. `tmp` is free: the
        // scan ran in the result's register or moved out of it.
        let nan = reg_operand(regs.tmp, 0);
        self.mov_constant(nan, F32_NAN);
        self.valu(
            Op::VCndmaskB32,
            Some(d),
            None,
            &[nan, d, Operand::VCC],
            None,
        );
    }

    /// gfx6/gfx7: the lanes one by one (integer operations, and f32 min/max on keys).
    fn readlane_scan(&mut self, op: WaveOp, kind: ScanKind, regs: &WaveScanRegs) {
        let salu = salu_op(op).expect("f32 sums take readlane_fadd_*");
        let (t, d) = (reg_operand(regs.tmp, 0), reg_operand(regs.dst, 0));
        let lane = reg_operand(regs.lane, 0);
        let save = reg_operand(regs.saved_exec, 0);
        let keys = op.is_float();
        if keys {
            self.float_keys(t, reg_operand(regs.shifted, 0));
        }
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
        match kind {
            ScanKind::Reduce => {
                self.valu(Op::VReadlaneB32, Some(d), None, &[t, int(0)], None);
                for i in 1..64 {
                    self.valu(Op::VReadlaneB32, Some(lane), None, &[t, int(i)], None);
                    self.salu(salu, Some(d), &[d, lane], None);
                }
                if keys {
                    self.salu(Op::SAshrI32, Some(lane), &[d, int(31)], None);
                    self.salu(Op::SLshrB32, Some(lane), &[lane, int(1)], None);
                    self.salu(Op::SXorB32, Some(d), &[d, lane], None);
                }
            }
            ScanKind::Inclusive | ScanKind::Exclusive => {
                // `save`'s low half is free once EXEC is restored: the running value.
                let acc = save;
                let mut literal = None;
                let identity = self.imm(key(op, op.identity()), &mut literal);
                self.salu(Op::SMovB32, Some(acc), &[identity], literal);
                for i in 0..64 {
                    self.valu(Op::VReadlaneB32, Some(lane), None, &[t, int(i)], None);
                    if kind == ScanKind::Exclusive {
                        self.valu(Op::VWritelaneB32, Some(d), None, &[acc, int(i)], None);
                    }
                    self.salu(salu, Some(acc), &[acc, lane], None);
                    if kind == ScanKind::Inclusive {
                        self.valu(Op::VWritelaneB32, Some(d), None, &[acc, int(i)], None);
                    }
                }
                if keys {
                    self.float_keys(d, reg_operand(regs.shifted, 0));
                }
            }
        }
    }

    /// `v = v ^ ((v >>arith 31) >>logical 1)` in every lane EXEC has: f32 bit patterns to
    /// integer keys ordered as the floats (−0.0 below +0.0), and back.
    fn float_keys(&mut self, v: Operand, tmp: Operand) {
        self.valu(Op::VAshrrevI32, Some(tmp), None, &[int(31), v], None);
        self.valu(Op::VLshrrevB32, Some(tmp), None, &[int(1), tmp], None);
        self.valu(Op::VXorB32, Some(v), None, &[v, tmp], None);
    }

    /// gfx6/gfx7's f32 sum reduction: DPP's tree, level by level (see the module comment).
    fn readlane_fadd_reduce(&mut self, regs: &WaveScanRegs) {
        let (t, pairs) = (reg_operand(regs.tmp, 0), reg_operand(regs.shifted, 0));
        let lane = reg_operand(regs.lane, 0);
        for stride in [1, 2, 4, 8, 16] {
            for k in (0..64).step_by(2 * stride) {
                let from = int((k + stride) as i64);
                self.valu(Op::VReadlaneB32, Some(lane), None, &[t, from], None);
                self.valu(
                    Op::VWritelaneB32,
                    Some(pairs),
                    None,
                    &[lane, int(k as i64)],
                    None,
                );
            }
            self.valu(Op::VAddF32, Some(t), None, &[pairs, t], None);
        }
        self.valu(Op::VReadlaneB32, Some(lane), None, &[t, int(32)], None);
        self.valu(Op::VAddF32, Some(pairs), None, &[lane, t], None);
        let save = reg_operand(regs.saved_exec, 0);
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
        let d = reg_operand(regs.dst, 0);
        self.valu(Op::VReadlaneB32, Some(d), None, &[pairs, int(0)], None);
    }

    /// gfx6/gfx7's f32 sum scans: the DPP steps on the transposed wave (see the module
    /// comment). Register p (`tmp` for p = 0) holds lane 16r + p in lane r.
    fn readlane_fadd_scan(&mut self, kind: ScanKind, regs: &WaveScanRegs) {
        let t = reg_operand(regs.tmp, 0);
        let reg = |p: usize| match p {
            0 => t,
            _ => reg_operand(regs.rows[p - 1], 0),
        };
        let lane = reg_operand(regs.lane, 0);
        // Lane i = 16r + p to lane r of register p (lane 0 is in place), in order: `tmp`'s
        // lanes 1–3 are read before lanes 16, 32 and 48 overwrite them.
        for i in 1..64 {
            let (r, p) = (i / 16, i % 16);
            self.valu(
                Op::VReadlaneB32,
                Some(lane),
                None,
                &[t, int(i as i64)],
                None,
            );
            self.valu(
                Op::VWritelaneB32,
                Some(reg(p)),
                None,
                &[lane, int(r as i64)],
                None,
            );
        }
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[int(0b1111)], None);
        // Row steps: descending p reads register p − d before the step writes it.
        for d in [1, 2, 4, 8] {
            for p in (d..16).rev() {
                self.valu(Op::VAddF32, Some(reg(p)), None, &[reg(p - d), reg(p)], None);
            }
        }
        // Rows 1 and 3 add lanes 15 and 47: lanes 1 and 3 of a register, −0.0 in 0 and 2.
        let last = reg_operand(regs.shifted, 0);
        self.mov_constant(last, NEG_ZERO);
        for r in [1, 3] {
            self.valu(
                Op::VReadlaneB32,
                Some(lane),
                None,
                &[reg(15), int(r - 1)],
                None,
            );
            self.valu(Op::VWritelaneB32, Some(last), None, &[lane, int(r)], None);
        }
        for p in 0..16 {
            self.valu(Op::VAddF32, Some(reg(p)), None, &[last, reg(p)], None);
        }
        // Rows 2 and 3 add lane 31.
        self.valu(Op::VReadlaneB32, Some(lane), None, &[reg(15), int(1)], None);
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[int(0b1100)], None);
        for p in 0..16 {
            self.valu(Op::VAddF32, Some(reg(p)), None, &[lane, reg(p)], None);
        }
        let save = reg_operand(regs.saved_exec, 0);
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
        let d = reg_operand(regs.dst, 0);
        let first = match kind {
            ScanKind::Exclusive => {
                self.mov_constant(d, NEG_ZERO);
                1
            }
            _ => 0,
        };
        for i in first..64 {
            let from = i - first;
            let (r, p) = (from / 16, from % 16);
            self.valu(
                Op::VReadlaneB32,
                Some(lane),
                None,
                &[reg(p), int(r as i64)],
                None,
            );
            self.valu(
                Op::VWritelaneB32,
                Some(d),
                None,
                &[lane, int(i as i64)],
                None,
            );
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
