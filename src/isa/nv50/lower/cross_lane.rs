//! The cross-lane intrinsics on NV50 (`docs/ir.md`, "Cross-lane intrinsics";
//! `docs/nv50.md`, "Cross-lane intrinsics"). Tesla has no instruction that reads another
//! thread's register (`quadop` is an f32 operation of fragment programs, GT200's `vote`
//! answers any/all only), so the threads of a warp exchange values through a per-warp
//! scratch area of `s[]`: 32 value words and 32 flag bytes, at an offset chosen by the
//! warp's index on its multiprocessor (`$physid` bits 8–15: `isa.rst`), which no other warp
//! of the block shares. A warp's threads execute each `st` and `ld` together, in program
//! order, so what the active threads store is there for the next load of any of them.
//!
//! Every operation starts from the *active mask*: the active threads clear the flag bytes,
//! each sets its own, and all read the 32 bytes back and pack them into a word
//! ([`IsleContext::ballot_mask`]); the threads that do not run (inactive in divergent
//! code) leave their flag 0. A value is then read from the slot of an active thread only.

use super::isle::generated::Context as _;
use super::{InstOutput, IsleContext};
use crate::intrinsics::{Intrinsic, Shuffle, WaveOp};
use crate::ir::{self, Value};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Cond, Op, Round, SReg, Ty, Variant};
use crate::isa::nv50::regs::FLAG;
use crate::machinst::{Reg, RegClass};

/// Bytes of one warp's scratch area: 32 value words, then (in the flag part of the area,
/// [`flags_offset`]) 32 flag bytes.
const VALUE_BYTES: u32 = 128;
const FLAG_BYTES: u32 = 32;

/// Warps a multiprocessor holds at once: the range of `$physid`'s warp index (CUDA
/// programming guide, appendix A: 24 on compute capability 1.0 and 1.1, 32 on 1.3).
pub fn warps_per_mp(variant: Variant) -> u32 {
    match variant {
        Variant::G200 => 32,
        _ => 24,
    }
}

/// Bytes of `s[]` the scratch areas of a function with cross-lane intrinsics take.
pub fn scratch_size(variant: Variant) -> u32 {
    warps_per_mp(variant) * (VALUE_BYTES + FLAG_BYTES)
}

/// Whether `func` calls a cross-lane intrinsic that needs the scratch area.
pub fn uses_scratch(func: &ir::Function) -> bool {
    func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .any(|inst| match func.dfg.insts[inst] {
                ir::InstructionData::Call { func_ref, .. } => {
                    Intrinsic::from_func_ref(func, func_ref).is_some_and(|i| i.is_cross_lane())
                }
                _ => false,
            })
    })
}

/// The registers of one operation's view of its warp's area.
struct Area {
    /// The thread's index in its warp, 0–31.
    lane: Reg,
    /// The `s[]` address of the warp's 32 value words.
    values: Reg,
    /// The `s[]` address of its 32 flag bytes.
    flags: Reg,
}

impl IsleContext<'_, '_> {
    /// A cross-lane intrinsic `intrinsic` with arguments `args`.
    pub(super) fn cross_lane(&mut self, intrinsic: Intrinsic, args: &[Value]) -> InstOutput {
        let area = self.warp_area();
        let reg = match intrinsic {
            Intrinsic::Ballot => {
                let (c, cond) = self.condition(args[0]);
                let m = self.ballot_mask(&area, Some((c, cond)));
                let zero = self.mov_imm(0);
                self.combine(m, zero)
            }
            Intrinsic::VoteAny => {
                let (c, cond) = self.condition(args[0]);
                let m = self.ballot_mask(&area, Some((c, cond)));
                self.is_nonzero01(m, Cond::Lg)
            }
            // Every active thread's condition holds: no active thread's fails.
            Intrinsic::VoteAll => {
                let (c, cond) = self.condition(args[0]);
                let m = self.ballot_mask(&area, Some((c, cond.inverse())));
                self.is_nonzero01(m, Cond::E)
            }
            Intrinsic::ReadFirstLane => {
                let m = self.ballot_mask(&area, None);
                let x = self.put_in_reg(args[0]);
                self.store_own(&area, x);
                let first = self.first_active(m);
                self.load_slot(&area, first)
            }
            // `l` of the lowest active thread (all of them when it is uniform), then `x`
            // of thread `l mod 32`, or 0 where that thread is inactive.
            Intrinsic::ReadLane => {
                let m = self.ballot_mask(&area, None);
                let l = self.put_in_reg(args[1]);
                self.store_own(&area, l);
                let first = self.first_active(m);
                let l = self.load_slot(&area, first);
                let src = self.op2(Op::And, Ty::B32, Src::Reg(l), Src::Imm(31));
                let x = self.put_in_reg(args[0]);
                self.store_own(&area, x);
                self.read_active(&area, m, src)
            }
            Intrinsic::Shuffle(kind) => {
                let m = self.ballot_mask(&area, None);
                let k = self.put_in_reg(args[1]);
                let src = self.shuffle_source(&area, kind, k);
                let x = self.put_in_reg(args[0]);
                self.store_own(&area, x);
                self.read_active(&area, m, src)
            }
            Intrinsic::QuadBroadcast => {
                let m = self.ballot_mask(&area, None);
                let k = self.put_in_reg(args[1]);
                let quad = self.op2(Op::And, Ty::B32, Src::Reg(area.lane), Src::Imm(!3));
                let k = self.op2(Op::And, Ty::B32, Src::Reg(k), Src::Imm(3));
                let src = self.op2(Op::Or, Ty::B32, Src::Reg(quad), Src::Reg(k));
                let x = self.put_in_reg(args[0]);
                self.store_own(&area, x);
                self.read_active(&area, m, src)
            }
            Intrinsic::QuadSwap(d) => {
                let m = self.ballot_mask(&area, None);
                let src = self.op2(Op::Xor, Ty::B32, Src::Reg(area.lane), Src::Imm(d as u32));
                let x = self.put_in_reg(args[0]);
                self.store_own(&area, x);
                self.read_active(&area, m, src)
            }
            Intrinsic::Reduce(WaveOp::FAdd) => self.wave_fsum(&area, args[0], None),
            Intrinsic::InclusiveScan(WaveOp::FAdd) => self.wave_fsum(&area, args[0], Some(2)),
            Intrinsic::ExclusiveScan(WaveOp::FAdd) => self.wave_fsum(&area, args[0], Some(1)),
            Intrinsic::Reduce(op) => self.wave_scan(&area, op, args[0], None),
            Intrinsic::InclusiveScan(op) => self.wave_scan(&area, op, args[0], Some(2)),
            Intrinsic::ExclusiveScan(op) => self.wave_scan(&area, op, args[0], Some(1)),
            _ => {
                self.fail(format!(
                    "`{}` is not a cross-lane intrinsic",
                    intrinsic.name()
                ));
                return InstOutput::new();
            }
        };
        InstOutput::from_iter([reg])
    }

    /// The thread's lane and its warp's area (6 instructions): `$physid` bits 0–4 and the
    /// warp index in bits 8–15, scaled to the value and flag parts.
    fn warp_area(&mut self) -> Area {
        let base = self.backend.scratch_base;
        let slots = warps_per_mp(self.backend.variant);
        let p = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(p),
            &[Src::SReg(SReg::Physid)],
        )));
        let lane = self.op2(Op::And, Ty::B32, Src::Reg(p), Src::Imm(31));
        let warp = self.op2(Op::Shr, Ty::U32, Src::Reg(p), Src::Imm(8));
        let warp = self.op2(Op::And, Ty::B32, Src::Reg(warp), Src::Imm(0xff));
        let v = self.op2(Op::Shl, Ty::B32, Src::Reg(warp), Src::Imm(7));
        let values = self.op2(Op::Add, Ty::B32, Src::Reg(v), Src::Imm(base));
        let f = self.op2(Op::Shl, Ty::B32, Src::Reg(warp), Src::Imm(5));
        let flags = self.op2(
            Op::Add,
            Ty::B32,
            Src::Reg(f),
            Src::Imm(base + slots * VALUE_BYTES),
        );
        Area {
            lane,
            values,
            flags,
        }
    }

    /// The mask of the active threads where `cond` holds on its `$c` (all of them without
    /// one), the same word in every active thread: the flag bytes cleared (8 `st b32`), each
    /// active thread's byte set where the condition holds (0 where not), the eight words read
    /// back (8 `ld`) and or-ed together. Thread t's byte is byte t / 8 of word t mod 8 and
    /// holds `1 << (t mod 8)`, so the or of the words has bit t for thread t.
    fn ballot_mask(&mut self, area: &Area, cond: Option<(Reg, Cond)>) -> Reg {
        let zero = self.mov_imm(0);
        self.emit(Inst::SetSharedAddr { addr: area.flags });
        for k in 0..FLAG_BYTES / 4 {
            self.emit(Inst::SharedStore {
                ty: Ty::B32,
                data: zero,
                addr: None,
                offset: 4 * k,
                via_a3: true,
            });
        }
        let one = self.mov_imm(1);
        let k = self.op2(Op::And, Ty::B32, Src::Reg(area.lane), Src::Imm(7));
        let mut bit = self.op2(Op::Shl, Ty::B32, Src::Reg(one), Src::Reg(k));
        if let Some((c, cond)) = cond {
            bit = self.select_on(c, cond, bit, zero);
        }
        let word = self.op2(Op::Shl, Ty::B32, Src::Reg(k), Src::Imm(2));
        let byte = self.op2(Op::Shr, Ty::U32, Src::Reg(area.lane), Src::Imm(3));
        let at = self.op2(Op::Add, Ty::B32, Src::Reg(area.flags), Src::Reg(word));
        let at = self.op2(Op::Add, Ty::B32, Src::Reg(at), Src::Reg(byte));
        self.emit(Inst::SharedStore {
            ty: Ty::B8,
            data: bit,
            addr: Some(at),
            offset: 0,
            via_a3: false,
        });
        self.emit(Inst::SetSharedAddr { addr: area.flags });
        let words: Vec<Reg> = (0..FLAG_BYTES / 4)
            .map(|k| {
                let dst = self.vreg(RegClass::Int);
                self.emit(Inst::SharedLoad {
                    ty: Ty::B32,
                    dst,
                    addr: None,
                    offset: 4 * k,
                    via_a3: true,
                });
                dst
            })
            .collect();
        let (first, rest) = words.split_first().expect("eight words");
        rest.iter().fold(*first, |acc, &w| {
            self.op2(Op::Or, Ty::B32, Src::Reg(acc), Src::Reg(w))
        })
    }

    /// Stores `x` to this thread's value word (3 instructions with the address).
    fn store_own(&mut self, area: &Area, x: Reg) {
        let off = self.op2(Op::Shl, Ty::B32, Src::Reg(area.lane), Src::Imm(2));
        let at = self.op2(Op::Add, Ty::B32, Src::Reg(area.values), Src::Reg(off));
        self.emit(Inst::SharedStore {
            ty: Ty::B32,
            data: x,
            addr: Some(at),
            offset: 0,
            via_a3: false,
        });
    }

    /// The value word of thread `src` (0–31).
    fn load_slot(&mut self, area: &Area, src: Reg) -> Reg {
        let off = self.op2(Op::Shl, Ty::B32, Src::Reg(src), Src::Imm(2));
        let at = self.op2(Op::Add, Ty::B32, Src::Reg(area.values), Src::Reg(off));
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::SharedLoad {
            ty: Ty::B32,
            dst,
            addr: Some(at),
            offset: 0,
            via_a3: false,
        });
        dst
    }

    /// The value of thread `src` where it is below 32 and active in `mask`, else 0.
    fn read_active(&mut self, area: &Area, mask: Reg, src: Reg) -> Reg {
        let lane = self.op2(Op::And, Ty::B32, Src::Reg(src), Src::Imm(31));
        let bits = self.op2(Op::Shr, Ty::U32, Src::Reg(mask), Src::Reg(lane));
        let bit = self.op2(Op::And, Ty::B32, Src::Reg(bits), Src::Imm(1));
        let inside = self.set_reg(Cond::L, Ty::U32, Src::Reg(src), Src::Imm(32));
        let ok = self.op2(Op::And, Ty::B32, Src::Reg(bit), Src::Reg(inside));
        let c = self.flags_of(ok);
        let v = self.load_slot(area, lane);
        let zero = self.mov_imm(0);
        self.select_on(c, Cond::Lg, v, zero)
    }

    /// The source thread of a shuffle, at least 32 where there is none (`lane − k` below
    /// 0, `lane + k` past 31, `k` or `lane ^ k` from 32 on).
    fn shuffle_source(&mut self, area: &Area, kind: Shuffle, k: Reg) -> Reg {
        let lane = Src::Reg(area.lane);
        match kind {
            Shuffle::Index => k,
            Shuffle::Xor => self.op2(Op::Xor, Ty::B32, lane, Src::Reg(k)),
            Shuffle::Up | Shuffle::Down => {
                // Up: none where k > lane; down: none where k > 31 − lane.
                let (src, limit) = if kind == Shuffle::Up {
                    (self.op2(Op::Sub, Ty::B32, lane, Src::Reg(k)), area.lane)
                } else {
                    let limit = self.op2(Op::Subr, Ty::B32, lane, Src::Imm(31));
                    (self.op2(Op::Add, Ty::B32, lane, Src::Reg(k)), limit)
                };
                let out = self.set_reg(Cond::G, Ty::U32, Src::Reg(k), Src::Reg(limit));
                let far = self.op2(Op::And, Ty::B32, Src::Reg(out), Src::Imm(32));
                self.op2(Op::Or, Ty::B32, Src::Reg(src), Src::Reg(far))
            }
        }
    }

    /// The index of the lowest set bit of the non-zero `mask` (5 instructions): the bit
    /// alone (`mask & −mask`), converted to f32 (exact: a power of two), its exponent.
    fn first_active(&mut self, mask: Reg) -> Reg {
        let neg = self.op2(Op::Subr, Ty::B32, Src::Reg(mask), Src::Imm(0));
        let low = self.op2(Op::And, Ty::B32, Src::Reg(mask), Src::Reg(neg));
        let f = self.vreg(RegClass::Int);
        let mut cvt = Alu::new(Op::Cvt, Some(Ty::F32), Some(f), &[Src::Reg(low)]);
        cvt.src_ty = Some(Ty::U32);
        cvt.round = Some(Round::Rn);
        self.emit(Inst::Alu(cvt));
        let e = self.op2(Op::Shr, Ty::U32, Src::Reg(f), Src::Imm(23));
        self.op2(Op::Sub, Ty::B32, Src::Reg(e), Src::Imm(127))
    }

    /// 1 where `cond` holds on the flags of `r`, else 0.
    fn is_nonzero01(&mut self, r: Reg, cond: Cond) -> Reg {
        let c = self.flags_of(r);
        let one = self.mov_imm(1);
        let zero = self.mov_imm(0);
        self.select_on(c, cond, one, zero)
    }

    /// A reduction (`below` `None`) or a scan over the active threads: each thread combines,
    /// in thread order from the identity, the value words of the active threads in the mask
    /// it selects — all of them, or those below `below << lane` (2: inclusive, 1: exclusive).
    /// Per word: a load, a shift putting its mask bit in the sign flag, the operation, and a
    /// select on the flag (2).
    fn wave_scan(&mut self, area: &Area, op: WaveOp, x: Value, below: Option<u32>) -> Reg {
        let m = self.ballot_mask(area, None);
        let x = self.put_in_reg(x);
        self.store_own(area, x);
        let sel = match below {
            None => m,
            Some(first) => {
                let one = self.mov_imm(first);
                let t = self.op2(Op::Shl, Ty::B32, Src::Reg(one), Src::Reg(area.lane));
                let t = self.op2(Op::Sub, Ty::B32, Src::Reg(t), Src::Imm(1));
                self.op2(Op::And, Ty::B32, Src::Reg(m), Src::Reg(t))
            }
        };
        self.emit(Inst::SetSharedAddr { addr: area.values });
        let mut acc = self.mov_imm(op.identity());
        for j in 0..32u32 {
            let t = self.vreg(RegClass::Int);
            self.emit(Inst::SharedLoad {
                ty: Ty::B32,
                dst: t,
                addr: None,
                offset: 4 * j,
                via_a3: true,
            });
            let c = self.lower.new_vreg(FLAG, RegClass::Int);
            let mut test = Alu::new(
                Op::Shl,
                Some(Ty::B32),
                None,
                &[Src::Reg(sel), Src::Imm(31 - j)],
            );
            test.cdst = Some(c);
            self.emit(Inst::Alu(test));
            let r = self.wave_op(op, acc, t);
            acc = self.select_on(c, Cond::S, r, acc);
        }
        acc
    }

    /// The f32 sum across the warp in the association order of `docs/ir.md` (W = 32), for
    /// a reduction (`below` `None`) or a scan (`below` as in [`Self::wave_scan`]). Thread i's
    /// result is s[j] of that order, j = 31, i or i − 1: after step 2, s[j] is the balanced
    /// tree of the 16 positions j − 15 … j, those before j's row and the inactive ones
    /// holding −0.0 (the row clipping of step 2 adds −0.0 trees, which change nothing), and
    /// step 3 adds the tree of row 0 to the positions of row 1. So every thread sums two
    /// trees of 16 leaves read from the area, the first over row 0 (all −0.0 where j < 16),
    /// the second over its window, and adds them: 31 exact adds, the same in every thread,
    /// without loops or divergence (`docs/decisions.md`, "The f32 sum across lanes on
    /// NV50").
    fn wave_fsum(&mut self, area: &Area, x: Value, below: Option<u32>) -> Reg {
        let m = self.ballot_mask(area, None);
        let x = self.put_in_reg(x);
        self.store_own(area, x);
        // `sel`: the active positions up to j.
        let (sel, j) = match below {
            None => (m, self.mov_imm(31)),
            Some(first) => {
                let one = self.mov_imm(first);
                let t = self.op2(Op::Shl, Ty::B32, Src::Reg(one), Src::Reg(area.lane));
                let t = self.op2(Op::Sub, Ty::B32, Src::Reg(t), Src::Imm(1));
                let sel = self.op2(Op::And, Ty::B32, Src::Reg(m), Src::Reg(t));
                let j = match first {
                    2 => area.lane,
                    _ => self.op2(Op::Sub, Ty::B32, Src::Reg(area.lane), Src::Imm(1)),
                };
                (sel, j)
            }
        };
        let neg_zero = self.mov_imm(0x8000_0000);

        // Row 0's tree: leaf t is position t, active and j in row 1.
        let row1 = self.set_reg(Cond::Ge, Ty::S32, Src::Reg(j), Src::Imm(16));
        let low = self.op2(Op::And, Ty::B32, Src::Reg(m), Src::Imm(0xffff));
        let row0 = self.op2(Op::And, Ty::B32, Src::Reg(low), Src::Reg(row1));
        self.emit(Inst::SetSharedAddr { addr: area.values });
        let first = self.fsum_tree(|this, t| {
            let v = this.vreg(RegClass::Int);
            this.emit(Inst::SharedLoad {
                ty: Ty::B32,
                dst: v,
                addr: None,
                offset: 4 * t,
                via_a3: true,
            });
            this.leaf_if_bit(row0, t, v, neg_zero)
        });

        // j's window: leaf t is position j − 15 + t of j's row, the bits of `sel` in that
        // row shifted so that bit t is leaf t's (0 before the row). A leaf before the row
        // reads the row's first word instead, to stay inside the warp's area.
        let o = self.op2(Op::And, Ty::B32, Src::Reg(j), Src::Imm(15));
        let row = self.op2(Op::And, Ty::B32, Src::Reg(j), Src::Imm(16));
        let bits = self.op2(Op::Shr, Ty::U32, Src::Reg(sel), Src::Reg(row));
        let bits = self.op2(Op::And, Ty::B32, Src::Reg(bits), Src::Imm(0xffff));
        let bits = self.op2(Op::Shl, Ty::B32, Src::Reg(bits), Src::Imm(15));
        let window = self.op2(Op::Shr, Ty::U32, Src::Reg(bits), Src::Reg(o));
        let row_at = self.op2(Op::Shl, Ty::B32, Src::Reg(row), Src::Imm(2));
        let row_at = self.op2(Op::Add, Ty::B32, Src::Reg(area.values), Src::Reg(row_at));
        let o_at = self.op2(Op::Shl, Ty::B32, Src::Reg(o), Src::Imm(2));
        let start = self.op2(Op::Add, Ty::B32, Src::Reg(row_at), Src::Reg(o_at));
        let start = self.op2(Op::Sub, Ty::B32, Src::Reg(start), Src::Imm(60));
        let second = self.fsum_tree(|this, t| {
            let at = this.op2(Op::Add, Ty::B32, Src::Reg(start), Src::Imm(4 * t));
            let at = this.op2(Op::Max, Ty::S32, Src::Reg(at), Src::Reg(row_at));
            let v = this.vreg(RegClass::Int);
            this.emit(Inst::SharedLoad {
                ty: Ty::B32,
                dst: v,
                addr: Some(at),
                offset: 0,
                via_a3: false,
            });
            this.leaf_if_bit(window, t, v, neg_zero)
        });
        self.fadd32(first, second)
    }

    /// `v` where bit `t` of `bits` is set, else `other`: the bit shifted into the sign flag.
    fn leaf_if_bit(&mut self, bits: Reg, t: u32, v: Reg, other: Reg) -> Reg {
        let c = self.lower.new_vreg(FLAG, RegClass::Int);
        let mut test = Alu::new(
            Op::Shl,
            Some(Ty::B32),
            None,
            &[Src::Reg(bits), Src::Imm(31 - t)],
        );
        test.cdst = Some(c);
        self.emit(Inst::Alu(test));
        self.select_on(c, Cond::S, v, other)
    }

    /// The balanced tree of f32 sums over the 16 leaves `leaf(0)`, …, `leaf(15)` (pairs
    /// first, then pairs of pairs, …), evaluated leaf by leaf so that at most five partial
    /// sums are live.
    fn fsum_tree(&mut self, mut leaf: impl FnMut(&mut Self, u32) -> Reg) -> Reg {
        let mut stack: Vec<Reg> = Vec::new();
        for t in 0..16u32 {
            let mut v = leaf(self, t);
            let mut n = t;
            while n & 1 == 1 {
                let left = stack.pop().expect("a left subtree per trailing one");
                v = self.fadd32(left, v);
                n >>= 1;
            }
            stack.push(v);
        }
        let sum = stack.pop().expect("the whole tree");
        debug_assert!(stack.is_empty());
        sum
    }

    /// `a op b` for the operations of the integer reductions and f32 min/max.
    fn wave_op(&mut self, op: WaveOp, a: Reg, b: Reg) -> Reg {
        let (a, b) = (Src::Reg(a), Src::Reg(b));
        match op {
            WaveOp::Add => self.op2(Op::Add, Ty::B32, a, b),
            WaveOp::SMin => self.op2(Op::Min, Ty::S32, a, b),
            WaveOp::SMax => self.op2(Op::Max, Ty::S32, a, b),
            WaveOp::UMin => self.op2(Op::Min, Ty::U32, a, b),
            WaveOp::UMax => self.op2(Op::Max, Ty::U32, a, b),
            WaveOp::And => self.op2(Op::And, Ty::B32, a, b),
            WaveOp::Or => self.op2(Op::Or, Ty::B32, a, b),
            WaveOp::Xor => self.op2(Op::Xor, Ty::B32, a, b),
            WaveOp::FMin | WaveOp::FMax => {
                let (Src::Reg(a), Src::Reg(b)) = (a, b) else {
                    unreachable!("registers above")
                };
                self.fminmax32_regs(op == WaveOp::FMax, a, b)
            }
            WaveOp::FAdd => unreachable!("the f32 sum is `wave_fsum`"),
        }
    }
}
