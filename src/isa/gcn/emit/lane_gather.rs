//! gfx6/gfx7's shuffle by a per-lane index (`Inst::LaneGather`), for the shuffles no
//! `ds_swizzle_b32` pattern gives (`lower/shuffles.rs`; `docs/decisions.md`, "Shuffles on
//! gfx6/gfx7"). Those generations have no `ds_bpermute_b32` and no DPP, and wavelift has
//! no LDS memory yet, so each lane's value is fetched by the scalar unit, destination lane
//! by destination lane:
//!
//! 1. `v_readlane_b32` reads destination lane i's index into an SGPR, two lanes ahead of
//!    its use: a VALU write of an SGPR needs four wait states before `v_readlane_b32`
//!    selects a lane with it (SI/CI manuals 4.5), and a ring of three SGPRs leaves six
//!    instructions in between, so no `s_nop` is needed;
//! 2. `v_readlane_b32` reads the source at that index (the hardware takes it modulo 64);
//! 3. `v_writelane_b32` writes it to lane i of the destination.
//!
//! Before the lanes, the source is copied with every inactive lane at 0 (with EXEC all
//! ones, `v_mov_b32 t, 0`; under the caller's EXEC, `v_mov_b32 t, src`), so that an index
//! naming an inactive lane reads 0; after them, `v_cmp_gt_u32 vcc, 64, index` and
//! `v_cndmask_b32` give 0 where the index is 64 or more (the modulo read the wrong lane).
//! `v_writelane_b32` writes lanes whatever EXEC holds: the inactive lanes of `dst`, a
//! register the allocator has free in every lane, get values nobody reads.
//!
//! 198 instructions: 64 × 3 for the lanes, 4 for the copy, 2 for the range.
//! The alternative, a loop over the distinct indices (`v_readfirstlane_b32` of an index,
//! the lanes that want it as EXEC, one `v_readlane_b32`), is 13 instructions long but runs
//! about 10 per distinct index: up to 640 where every lane reads another lane, the
//! shuffles' usual case (up, down, xor).

use super::super::mc::{Op, Operand};
use super::{Emitter, reg_operand};
use crate::machinst::Reg;

/// The registers of an `Inst::LaneGather` after allocation.
pub struct LaneGatherRegs {
    pub dst: Reg,
    pub src: Reg,
    pub index: Reg,
    /// A VGPR: the source with inactive lanes at 0.
    pub tmp: Reg,
    /// An SGPR pair: the caller's EXEC.
    pub saved_exec: Reg,
    /// SGPRs: the ring of lane numbers read ahead.
    pub lanes: [Reg; 3],
    /// An SGPR: one lane's value.
    pub value: Reg,
}

/// How many lanes ahead the ring reads an index.
const AHEAD: usize = 2;

impl Emitter<'_> {
    pub(super) fn lane_gather(&mut self, regs: &LaneGatherRegs) {
        let at = |i: usize| Operand::inline_int(i as i64).expect("lane numbers are inline");
        let (d, t) = (reg_operand(regs.dst, 0), reg_operand(regs.tmp, 0));
        let (src, index) = (reg_operand(regs.src, 0), reg_operand(regs.index, 0));
        let value = reg_operand(regs.value, 0);
        let ring = regs.lanes.map(|r| reg_operand(r, 0));
        let read_index = |e: &mut Self, i: usize| {
            e.valu(
                Op::VReadlaneB32,
                Some(ring[i % ring.len()]),
                None,
                &[index, at(i)],
                None,
            );
        };
        for i in 0..AHEAD {
            read_index(self, i);
        }
        let save = reg_operand(regs.saved_exec, 0);
        let all = Operand::inline_int(-1).expect("-1 is inline");
        let zero = at(0);
        self.salu(Op::SOrSaveexecB64, Some(save), &[all], None);
        self.valu(Op::VMovB32, Some(t), None, &[zero], None);
        self.salu(Op::SMovB64, Some(Operand::EXEC), &[save], None);
        self.valu(Op::VMovB32, Some(t), None, &[src], None);
        for i in 0..64 {
            if i + AHEAD < 64 {
                read_index(self, i + AHEAD);
            }
            let lane = ring[i % ring.len()];
            self.valu(Op::VReadlaneB32, Some(value), None, &[t, lane], None);
            self.valu(Op::VWritelaneB32, Some(d), None, &[value, at(i)], None);
        }
        let vcc = Some(Operand::VCC);
        self.valu(Op::VCmpGtU32, None, vcc, &[at(64), index], None);
        self.valu(
            Op::VCndmaskB32,
            Some(d),
            None,
            &[zero, d, Operand::VCC],
            None,
        );
    }
}
