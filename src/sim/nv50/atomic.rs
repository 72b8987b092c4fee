//! How the threads of a warp cooperate through memory and votes: global atomics and
//! reductions (G84+), GT200's lockable `s[]` words (`ld lock`, `st unlock`) and `vote`.
//!
//! Atomic results follow envytools' hardware tests `hwtest/g80_atom32.cc` and
//! `g80_atom64.cc`. The threads of a warp apply their atomics one after another in thread
//! order (the hardware's order is not documented; every order gives the same final value
//! for the commutative operations, and distinct old values). The lock follows `isa.rst`
//! ("every warp can have one locked location in s[], and all other warps will block when
//! trying to access this location") and `data.rst` (a locked word "can't be locked by any
//! other thread until it is unlocked"): see `docs/simulator.md`.

use super::alu::{S, Z};
use super::warp::{Env, Warp, lanes, le, shared_range};
use crate::isa::nv50::mc::{AtomOp, McInst, Mods, Op, Operand, Ty};
use crate::sim::Violation;

/// The flags `vote` and `ld lock` write for "true": those of `set`'s all-ones true result
/// (S), so `l`, `lg` and `s` hold, as nouveau tests a lock with `l`.
pub(crate) const TRUE: u8 = S;
/// The flags for "false": those of `set`'s zero (Z), so `e` and `geu` hold.
pub(crate) const FALSE: u8 = Z;

/// The new memory value of atomic `op` on `old` with operand `b` (and `cas`'s new value
/// `c`), as `hwtest/g80_atom32.cc` and `g80_atom64.cc` compute it for the types envydis
/// names.
pub(crate) fn combine(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let wide = ty.bytes() == 8;
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (old, b, c) = (old & mask, b & mask, c & mask);
    let signed = |v: u64| v as u32 as i32;
    let new = match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::Inc => {
            let e = (old + 1) & mask;
            if e > b { 0 } else { e }
        }
        AtomOp::Dec => {
            let e = old.wrapping_sub(1) & mask;
            if e > b { b } else { e }
        }
        AtomOp::Max if ty == Ty::S32 => signed(old).max(signed(b)) as u32 as u64,
        AtomOp::Min if ty == Ty::S32 => signed(old).min(signed(b)) as u32 as u64,
        AtomOp::Max => old.max(b),
        AtomOp::Min => old.min(b),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
    };
    new & mask
}

fn fail(message: impl Into<String>) -> Violation {
    Violation::Other(message.into())
}

impl Warp {
    /// `ld <op>`/`exch`/`cas` (old value to the destination) or `red` in thread `t`.
    pub(super) fn atomic(
        &mut self,
        inst: &McInst,
        op: AtomOp,
        t: usize,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let reduction = matches!(inst.op, Op::Red(_));
        let (mem, b, c) = if reduction {
            (inst.dst, inst.src[0], None)
        } else {
            (inst.src[0], inst.src[1], inst.src[2])
        };
        let (Some(Operand::Global { space, addr }), Some(b), Some(ty)) = (mem, b, inst.ty) else {
            return Err(fail("an atomic without its g[] operand, operand or type"));
        };
        let size = ty.bytes() as usize;
        let address = self.global_address(space, addr, size, t)?;
        let fault = || Violation::Memory {
            lane: Some(t as u32),
            address,
            message: "outside every allocated region".into(),
        };
        let old = le(env.memory.read(address, size).ok_or_else(fault)?);
        let b = self.read(b, t, env)?;
        let c = match c {
            Some(c) => self.read(c, t, env)?,
            None => 0,
        };
        let new = combine(op, ty, old, b, c);
        env.memory
            .write(address, &new.to_le_bytes()[..size])
            .ok_or_else(fault)?;
        match inst.dst {
            Some(dst) if !reduction => self.write(dst, t, old),
            _ => Ok(()),
        }
    }

    /// `ld lock` in the threads of `mask`: the first of them (in thread order) locks its
    /// word and loads it if the warp holds no lock and no other warp of the block holds that
    /// word; the others fail, keep their destination and get "false" in `$c` (and retry, as
    /// nouveau's loop does, while the holder runs on: the warps of a block interleave).
    pub(super) fn lock_load(
        &mut self,
        inst: &McInst,
        mask: u32,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let (Some(dst), Some(Operand::Shared { areg, offset, .. }), Some(c)) =
            (inst.dst, inst.src[0], inst.cdst)
        else {
            return Err(fail("`ld lock` without its operands"));
        };
        for t in lanes(mask) {
            let address = self.a[areg as usize & 7][t] as u32 + offset;
            let range = shared_range(env.shared.len(), address, 4, t)?;
            let held_elsewhere = env.locked.contains(&(address & !3)) && self.lock != Some(address);
            let locked = self.lock.is_none() && !held_elsewhere;
            if locked {
                self.lock = Some(address);
                env.locked.insert(address);
                let value = le(&env.shared[range]);
                self.write(dst, t, value)?;
            }
            self.c[c as usize & 3][t] = if locked { TRUE } else { FALSE };
        }
        Ok(())
    }

    /// After `st unlock` stored to the word at `address`: release the warp's lock on it.
    pub(super) fn unlock(&mut self, address: u32, env: &mut Env) -> Result<(), Violation> {
        if self.lock != Some(address) {
            return Err(fail(format!(
                "`st unlock` of s[{address:#x}], which this warp has not locked"
            )));
        }
        self.lock = None;
        env.locked.remove(&address);
        Ok(())
    }

    /// Whether `inst` waits for a lock: a plain access, in a thread that runs it, to an
    /// `s[]` word another warp of the block has locked. On the hardware the warp waits
    /// until that one unlocks it (`isa.rst`: "all other warps will block when trying to
    /// access this location"); here it tries again in the next round. `ld lock` does not
    /// wait (it fails, and nouveau's loop tries again), and `st unlock` stores to the
    /// warp's own locked word.
    pub(super) fn waits_for_lock(&self, inst: &McInst, env: &Env) -> bool {
        if env.locked.is_empty() || inst.mods.contains(Mods::LOCK) {
            return false;
        }
        let mask = self.predicated(inst);
        inst.src
            .iter()
            .chain(std::iter::once(&inst.dst))
            .flatten()
            .any(|operand| {
                let Operand::Shared { areg, offset, .. } = *operand else {
                    return false;
                };
                lanes(mask).any(|t| {
                    let word = (self.a[areg as usize & 7][t] as u32 + offset) & !3;
                    env.locked.contains(&word) && self.lock != Some(word)
                })
            })
    }

    /// `vote any`/`vote all`: the predicate holds in the threads of `mask` out of the
    /// running path's; every thread of the path gets the answer in `$c`.
    pub(super) fn vote(&mut self, inst: &McInst, mask: u32) -> Result<(), Violation> {
        let Some(c) = inst.cdst else {
            return Err(fail("`vote` without its $c output"));
        };
        let yes = match inst.op {
            Op::VoteAny => mask != 0,
            _ => mask == self.active,
        };
        for t in lanes(self.active) {
            self.c[c as usize & 3][t] = if yes { TRUE } else { FALSE };
        }
        Ok(())
    }
}
