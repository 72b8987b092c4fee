//! The shuffle and quad intrinsics on GCN (`wavelift_shuffle`, `_up`, `_down`, `_xor`,
//! `wavelift_quad_broadcast`, `wavelift_quad_swap_*`): each active lane reads `x` of a
//! source lane, 0 where that lane is outside the wave or inactive (`docs/ir.md`,
//! "Cross-lane intrinsics"). Every form below runs under the caller's EXEC and writes only
//! the active lanes of its result, except gfx6/gfx7's `Inst::LaneGather`, whose result
//! register the allocator keeps free in every lane.
//!
//! A constant operand that names a fixed pattern uses it ([`Fixed`]); the instruction
//! counts (without the `s_nop 1` a DPP read needs after a VALU write of `x`, or the copy
//! of a uniform `x` to a VGPR):
//!
//! | pattern | gfx8/gfx9 | gfx6/gfx7 |
//! | --- | --- | --- |
//! | `shuffle` by k < 64 | `v_readlane_b32`, `s_bitcmp1_b32` of k's EXEC bit, `s_cselect_b32`: 3 (a uniform result) | the same |
//! | `shuffle` by a uniform k | `v_readlane_b32`, `s_lshr_b64` of EXEC, two compare-selects: 6 | the same |
//! | up, down or xor by 0 | `x`: 0 | the same |
//! | k ≥ 64 (any shuffle) | `s_mov_b32` 0: 1 | the same |
//! | quad swaps, xor by 1–3, quad broadcast by a constant | `v_mov_b32_dpp` `quad_perm`: 1 | `ds_swizzle_b32` quad mode, `s_waitcnt`: 2 |
//! | xor by 7, 15 | `row_half_mirror`, `row_mirror`: 1 | `ds_swizzle_b32`: 2 |
//! | xor by other k < 32 | `ds_swizzle_b32` (xor within 32 lanes): 2 | the same |
//! | up, down by 1 | `wave_shr:1`, `wave_shl:1`: 1 | by index: 201 |
//!
//! DPP reads with `bound_ctrl` set and full row and bank masks, so that a source out of
//! range or inactive reads 0 and every active lane writes; `ds_swizzle_b32` reads 0 from
//! an inactive lane too (`sim/gcn/lds.rs` cites the manuals). `wave_shr:1` has exactly
//! one out-of-range lane, 0, as `shuffle_up` by 1 has; `wave_shl:1` lane 63.
//!
//! Otherwise each lane computes its source lane as an index that is 64 or more exactly
//! when the source is outside the wave: `k` (`shuffle`), `lane ^ k`, `lane − min(k, 64)`,
//! `lane + min(k, 64)` (the minimum keeps a huge `k` from wrapping back into range),
//! `v_bfi_b32(3, k, lane)` (`quad_broadcast`, never out of range); the lane number is
//! `v_mbcnt_lo`/`v_mbcnt_hi` (2). Then, by index:
//! - gfx8/gfx9: `v_lshlrev_b32` (`ds_bpermute_b32` takes a byte address), `ds_bpermute_b32`
//!   (an inactive source lane reads 0), `v_cmp_gt_u32 vcc, 64, index`, `s_waitcnt`,
//!   `v_cndmask_b32` (the permute takes the address modulo 64): 5 (3 without the range
//!   test, which a constant xor below 64 and the quad broadcast do not need); `shuffle`
//!   5, xor 8 (6 by a constant), up and down 9 (8 by a constant), quad broadcast 6.
//! - gfx6/gfx7: `Inst::LaneGather` (`emit/lane_gather.rs`), 198: `shuffle` 198, xor 201,
//!   up and down 201 by a constant, 202 by a variable; the quad broadcast by a variable
//!   instead broadcasts each lane of the quad with `ds_swizzle_b32` and selects by
//!   `k & 3`: 4 swizzles, `s_waitcnt`, `v_and_b32`, three compare-selects: 12.

use super::IsleContext;
use super::isle::generated::Context as _;
use super::operands::commuted;
use crate::intrinsics::{Intrinsic, Shuffle};
use crate::ir::{self, InstructionData, Opcode, types};
use crate::isa::gcn::inst::{Inst, Src, without_carry};
use crate::isa::gcn::mc::{Dpp, DppCtrl, Gen, Op};
use crate::isa::gcn::regs::{EXEC, SGPR, VGPR, sgpr};

use crate::ir::Value;
use crate::machinst::{Reg, RegClass};

/// Lanes per wave.
const LANES: u32 = 64;

/// What a shuffle with a constant operand reads, where a fixed pattern gives it exactly.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Fixed {
    /// The lane itself, which is active: `x`.
    Own,
    /// A lane outside the wave, for every lane: 0.
    Zero,
    /// One lane for every lane (below 64): a wave-uniform result.
    Lane(u32),
    /// Lane 4q + `p[i]` for lane 4q + i.
    Quad([u8; 4]),
    /// Lane `lane ^ k` (k < 32), within each half of 32 lanes.
    Xor(u32),
    /// A DPP pattern whose invalid sources are exactly the shuffle's out-of-range lanes.
    Dpp(DppCtrl),
}

/// The fixed pattern of shuffle `kind` by the constant `k`, if there is one (`dpp`: the
/// generation has DPP).
fn fixed(kind: Shuffle, k: u32, dpp: bool) -> Option<Fixed> {
    Some(match kind {
        Shuffle::Index if k < LANES => Fixed::Lane(k),
        _ if k >= LANES => Fixed::Zero,
        _ if k == 0 => Fixed::Own,
        Shuffle::Xor if k < 4 => Fixed::Quad([0, 1, 2, 3].map(|i| i ^ k as u8)),
        Shuffle::Xor if k == 7 && dpp => Fixed::Dpp(DppCtrl::RowHalfMirror),
        Shuffle::Xor if k == 15 && dpp => Fixed::Dpp(DppCtrl::RowMirror),
        Shuffle::Xor if k < 32 => Fixed::Xor(k),
        Shuffle::Up if k == 1 && dpp => Fixed::Dpp(DppCtrl::WaveShr1),
        Shuffle::Down if k == 1 && dpp => Fixed::Dpp(DppCtrl::WaveShl1),
        _ => return None,
    })
}

/// `ds_swizzle_b32`'s offset for a quad permute: bit 15 and two bits per lane.
fn quad_swizzle(p: [u8; 4]) -> u16 {
    0x8000
        | p.iter()
            .enumerate()
            .map(|(i, &l)| (l as u16) << (2 * i))
            .sum::<u16>()
}

/// `ds_swizzle_b32`'s offset for `lane ^ k` within 32 lanes: and-mask all ones, or-mask 0.
fn xor_swizzle(k: u32) -> u16 {
    0x1f | (k as u16) << 10
}

impl IsleContext<'_, '_> {
    /// The value a shuffle result `v` reads and the DPP pattern it reads it with, when `v`
    /// is a shuffle or quad operation with a constant operand that one DPP read gives
    /// exactly (gfx8/gfx9), seen through a `bitcast` (f32 values are shuffled as bits).
    fn dpp_source(&mut self, v: Value) -> Option<(Value, DppCtrl)> {
        if self.backend.generation < Gen::Gfx8 {
            return None;
        }
        let inst = self.def_inst(v)?;
        let dfg = self.lower.dfg();
        let (func_ref, args) = match dfg.insts[inst] {
            // `bitcast` carries memory flags (for its byte order), hence this format.
            InstructionData::LoadNoOffset {
                opcode: Opcode::Bitcast,
                arg,
                ..
            } if dfg.value_type(arg) == types::I32 => return self.dpp_source(arg),
            InstructionData::Call { func_ref, .. } => (func_ref, dfg.inst_args(inst).to_vec()),
            _ => return None,
        };
        // A wrongly declared intrinsic is not folded: its own lowering reports it.
        let intrinsic = Intrinsic::of_call(self.lower.func, func_ref)?.ok()?;
        let pattern = match intrinsic {
            Intrinsic::Shuffle(kind) => fixed(kind, self.const32(args[1])?, true)?,
            Intrinsic::QuadBroadcast => Fixed::Quad([(self.const32(args[1])? & 3) as u8; 4]),
            Intrinsic::QuadSwap(mask) => Fixed::Quad([0, 1, 2, 3].map(|i| i ^ mask)),
            _ => return None,
        };
        match pattern {
            Fixed::Quad(p) => Some((args[0], DppCtrl::QuadPerm(p))),
            Fixed::Dpp(ctrl) => Some((args[0], ctrl)),
            _ => None,
        }
    }

    /// A VOP2 operation of a shuffle result and a per-lane value as one instruction that
    /// reads the shuffled operand through DPP (gfx8/gfx9): `iadd (shuffle_xor x 1), y` is
    /// `v_add_u32_dpp d, x, y quad_perm:[1,0,3,2] bound_ctrl:1`, where the shuffle alone
    /// is a `v_mov_b32_dpp`. An invalid source lane reads 0 (`bound_ctrl`), the shuffle's
    /// result there. Only with a VGPR other operand (DPP reads VGPRs only: a constant or a
    /// uniform one would need a `v_mov_b32`, the instruction the fold saves).
    pub(super) fn dpp_fold(&mut self, inst: ir::Inst) -> Option<Reg> {
        let dfg = self.lower.dfg();
        let InstructionData::Binary { opcode, args } = dfg.insts[inst] else {
            return None;
        };
        let op = match (opcode, dfg.value_type(dfg.first_result(inst))) {
            (Opcode::Iadd, types::I32) => Op::VAddU32,
            (Opcode::Isub, types::I32) => Op::VSubU32,
            (Opcode::Band, types::I32) => Op::VAndB32,
            (Opcode::Bor, types::I32) => Op::VOrB32,
            (Opcode::Bxor, types::I32) => Op::VXorB32,
            (Opcode::Umin, types::I32) => Op::VMinU32,
            (Opcode::Umax, types::I32) => Op::VMaxU32,
            (Opcode::Smin, types::I32) => Op::VMinI32,
            (Opcode::Smax, types::I32) => Op::VMaxI32,
            (Opcode::Fadd, types::F32) => Op::VAddF32,
            (Opcode::Fsub, types::F32) => Op::VSubF32,
            (Opcode::Fmul, types::F32) => Op::VMulF32,
            _ => return None,
        };
        for (i, &shuffled) in args.iter().enumerate() {
            let Some((x, ctrl)) = self.dpp_source(shuffled) else {
                continue;
            };
            let other = args[1 - i];
            if self.const64_of(other).is_some() || self.is_uniform(other) {
                return None;
            }
            let op = if i == 0 { op } else { commuted(op)? };
            let x = self.value_reg(x);
            let src = self.vgpr_copy(x);
            let other = self.value_reg(other);
            let src1 = Some(self.vgpr_copy(other));
            let dst = self.vreg(VGPR, RegClass::Int);
            let mut dpp = Dpp::new(ctrl);
            dpp.bound_ctrl = true;
            self.emit(Inst::ValuDpp {
                op: without_carry(op, self.backend.generation),
                dst,
                src,
                src1,
                dpp,
            });
            return Some(dst);
        }
        None
    }

    /// `wavelift_shuffle*` of `x` by `k`.
    pub(super) fn lane_shuffle(&mut self, kind: Shuffle, x: Value, k: Value) -> Reg {
        let dpp = self.backend.generation >= Gen::Gfx8;
        if let Some(k) = self.const32(k) {
            if let Some(f) = fixed(kind, k, dpp) {
                return self.read_fixed(x, f);
            }
            let lane = self.lane_id();
            let op = match kind {
                Shuffle::Up => Op::VSubU32,
                Shuffle::Down => Op::VAddU32,
                _ => Op::VXorB32,
            };
            let index = self.valu(op, &[Src::Reg(lane), Src::Imm(k)], RegClass::Int);
            // `lane ^ k` for k < 64 stays in the wave.
            return self.gather(x, index, kind != Shuffle::Xor);
        }
        if kind == Shuffle::Index && self.is_uniform(k) {
            let k = self.value_reg(k);
            let k = self.uniform_sgpr(k);
            let x = self.value_reg(x);
            return self.read_lane(x, Src::Reg(k));
        }
        let k = self.value_reg(k);
        let index = match kind {
            Shuffle::Index => self.vgpr_copy(k),
            Shuffle::Xor => {
                let lane = self.lane_id();
                self.valu(Op::VXorB32, &[Src::Reg(lane), Src::Reg(k)], RegClass::Int)
            }
            Shuffle::Up | Shuffle::Down => {
                let lane = self.lane_id();
                let k = self.valu(Op::VMinU32, &[Src::Imm(LANES), Src::Reg(k)], RegClass::Int);
                let op = if kind == Shuffle::Up {
                    Op::VSubU32
                } else {
                    Op::VAddU32
                };
                self.valu(op, &[Src::Reg(lane), Src::Reg(k)], RegClass::Int)
            }
        };
        self.gather(x, index, true)
    }

    /// `wavelift_quad_broadcast` of `x`: lane `k & 3` of each quad.
    pub(super) fn quad_broadcast(&mut self, x: Value, k: Value) -> Reg {
        if let Some(k) = self.const32(k) {
            return self.read_fixed(x, Fixed::Quad([(k & 3) as u8; 4]));
        }
        let k = self.value_reg(k);
        if self.backend.generation >= Gen::Gfx8 {
            let lane = self.lane_id();
            let index = self.valu(
                Op::VBfiB32,
                &[Src::Imm(3), Src::Reg(k), Src::Reg(lane)],
                RegClass::Int,
            );
            return self.gather(x, index, false);
        }
        // gfx6/gfx7: each lane of the quad broadcast, then the one `k & 3` names.
        let x = self.value_reg(x);
        let x = self.vgpr_copy(x);
        let each = [0u8, 1, 2, 3]
            .map(|l| self.lane_permute(Op::DsSwizzleB32, x, None, quad_swizzle([l; 4])));
        let which = self.valu(Op::VAndB32, &[Src::Imm(3), Src::Reg(k)], RegClass::Int);
        let mut result = each[0];
        for (l, &broadcast) in each.iter().enumerate().skip(1) {
            let mask = self.compare(Op::VCmpEqU32, Src::Imm(l as u32), Src::Reg(which), true);
            result = self.cndmask(Src::Reg(result), Src::Reg(broadcast), mask);
        }
        result
    }

    /// `wavelift_quad_swap_*` of `x`: lane `lane ^ mask` of the quad.
    pub(super) fn quad_swap(&mut self, x: Value, mask: u8) -> Reg {
        self.read_fixed(x, Fixed::Quad([0, 1, 2, 3].map(|i| i ^ mask)))
    }

    fn read_fixed(&mut self, x: Value, fixed: Fixed) -> Reg {
        let x = self.value_reg(x);
        match fixed {
            Fixed::Own => x,
            Fixed::Zero => self.salu(Op::SMovB32, &[Src::Imm(0)], RegClass::Int),
            Fixed::Lane(k) => self.read_lane(x, Src::Imm(k)),
            Fixed::Quad(p) if self.backend.generation >= Gen::Gfx8 => {
                self.dpp_mov(x, DppCtrl::QuadPerm(p))
            }
            Fixed::Quad(p) => {
                let x = self.vgpr_copy(x);
                self.lane_permute(Op::DsSwizzleB32, x, None, quad_swizzle(p))
            }
            Fixed::Xor(k) => {
                let x = self.vgpr_copy(x);
                self.lane_permute(Op::DsSwizzleB32, x, None, xor_swizzle(k))
            }
            Fixed::Dpp(ctrl) => self.dpp_mov(x, ctrl),
        }
    }

    /// `x` of lane `lane` (an SGPR or a constant below 64) in every active lane, 0 when that
    /// lane is inactive or (an SGPR) 64 or more: a wave-uniform SGPR.
    fn read_lane(&mut self, x: Reg, lane: Src) -> Reg {
        let value = match x.file() {
            SGPR => x,
            _ => self.sgpr_valu(Op::VReadlaneB32, &[Src::Reg(x), lane]),
        };
        match lane {
            // A constant lane: test its bit of EXEC's half.
            Src::Imm(k) => {
                let half = sgpr(EXEC.hw() + (k / 32) as u16);
                self.select_if(Op::SBitcmp1B32, Src::Reg(half), Src::Imm(k % 32), value)
            }
            // v_readlane_b32 and s_lshr_b64 both take the lane modulo 64: test EXEC's bit,
            // then the range.
            Src::Reg(l) => {
                let bits = self.salu(
                    Op::SLshrB64,
                    &[Src::Reg(EXEC), Src::Reg(l)],
                    RegClass::Float,
                );
                let low = self.half(bits, false);
                let active = self.select_if(Op::SBitcmp1B32, Src::Reg(low), Src::Imm(0), value);
                self.select_if(Op::SCmpLtU32, Src::Reg(l), Src::Imm(LANES), active)
            }
        }
    }

    /// `cmp(a, b) ? value : 0` in an SGPR.
    fn select_if(&mut self, cmp: Op, a: Src, b: Src, value: Reg) -> Reg {
        let dst = self.vreg(SGPR, RegClass::Int);
        self.emit(Inst::SCmpSelect {
            cmp,
            a,
            b,
            select: Op::SCselectB32,
            dst,
            t: Src::Reg(value),
            f: Src::Imm(0),
        });
        dst
    }

    /// `x` of lane `index` in each active lane, 0 where that lane is inactive or (when
    /// `ranged`) `index` is 64 or more.
    fn gather(&mut self, x: Value, index: Reg, ranged: bool) -> Reg {
        let x = self.value_reg(x);
        let x = self.vgpr_copy(x);
        if self.backend.generation < Gen::Gfx8 {
            let dst = self.vreg(VGPR, RegClass::Int);
            let inst = Inst::LaneGather {
                dst,
                src: x,
                index,
                tmp: self.vreg(VGPR, RegClass::Int),
                saved_exec: self.vreg(SGPR, RegClass::Float),
                lanes: [(); 3].map(|_| self.vreg(SGPR, RegClass::Int)),
                value: self.vreg(SGPR, RegClass::Int),
            };
            self.emit(inst);
            return dst;
        }
        let addr = self.valu(
            Op::VLshlrevB32,
            &[Src::Imm(2), Src::Reg(index)],
            RegClass::Int,
        );
        let read = self.lane_permute(Op::DsBpermuteB32, addr, Some(x), 0);
        if !ranged {
            return read;
        }
        let in_range = self.compare(Op::VCmpGtU32, Src::Imm(LANES), Src::Reg(index), true);
        self.cndmask(Src::Imm(0), Src::Reg(read), in_range)
    }

    /// A lane permute of the LDS unit (`Inst::Ds`).
    fn lane_permute(&mut self, op: Op, addr: Reg, data: Option<Reg>, offset: u16) -> Reg {
        let dst = self.vreg(VGPR, RegClass::Int);
        self.emit(Inst::Ds {
            op,
            dst,
            addr,
            data,
            offset,
        });
        dst
    }

    /// `v_mov_b32_dpp` of `x` with `ctrl`, an invalid source reading 0.
    fn dpp_mov(&mut self, x: Reg, ctrl: DppCtrl) -> Reg {
        let src = self.vgpr_copy(x);
        let dst = self.vreg(VGPR, RegClass::Int);
        let mut dpp = Dpp::new(ctrl);
        dpp.bound_ctrl = true;
        self.emit(Inst::ValuDpp {
            op: Op::VMovB32,
            dst,
            src,
            src1: None,
            dpp,
        });
        dst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_patterns_read_the_documented_lanes() {
        // Each pattern's source lane, checked against Shuffle::source for every lane.
        for kind in Shuffle::ALL {
            for k in [0u32, 1, 2, 3, 5, 7, 15, 31, 32, 63, 64, 1000, u32::MAX] {
                for dpp in [false, true] {
                    let Some(f) = fixed(kind, k, dpp) else {
                        continue;
                    };
                    for lane in 0..64usize {
                        let want = kind.source(lane as i64, k);
                        let got: Option<i64> = match f {
                            Fixed::Own => Some(lane as i64),
                            Fixed::Zero => None,
                            Fixed::Lane(l) => Some(l as i64),
                            Fixed::Quad(p) => Some((lane & !3 | p[lane & 3] as usize) as i64),
                            Fixed::Xor(x) => Some((lane ^ x as usize) as i64),
                            Fixed::Dpp(ctrl) => ctrl.source_lane(lane).map(|l| l as i64),
                        };
                        let want = (0..64).contains(&want).then_some(want);
                        assert_eq!(got, want, "{kind:?} by {k} (dpp {dpp}), lane {lane}");
                    }
                }
            }
        }
    }

    #[test]
    fn swizzle_offsets() {
        assert_eq!(quad_swizzle([1, 0, 3, 2]), 0x80b1);
        assert_eq!(xor_swizzle(16), 0x401f);
    }
}
