//! Byte and word shapes: what the GCN backend folds into SDWA selects (gfx8, gfx9) and
//! `v_bfe` (`src/isa/gcn/lower/sub_dword.rs`), and near misses that must not fold, so that
//! the folds meet the interpreter on random inputs. Extracts (`ushr`/`sshr` by 8, 16, 24
//! with and without a mask, masks, `ishl` then a right shift, `ireduce` then an extension),
//! fields moved into place, inserts into cleared bits, and i8/i16 arithmetic on extracted
//! parts; every value is put in scope, so later instructions combine them.

use super::{Generator, Spec};
use crate::ir::types::{I8, I16, I32};
use crate::ir::{InstBuilder, Opcode, Value};
use arbitrary::Result;

/// One function instruction in this many is a byte or word shape.
pub(super) const SUB_DWORD_ODDS: u32 = 6;

/// Shift amounts: the byte and word boundaries, and misses.
const AMOUNTS: [i64; 6] = [8, 16, 24, 8, 9, 4];
/// Masks: a byte, a word, and a miss.
const MASKS: [i64; 3] = [0xff, 0xffff, 0x1ff];

impl Generator<'_, '_, '_> {
    fn konst(&mut self, value: i64) -> Value {
        let v = self.cursor().ins().iconst(I32, value);
        self.spec[v] = Spec::Exact;
        v
    }

    fn put(&mut self, v: Value) -> Value {
        self.define(v);
        v
    }

    /// One byte or word shape over i32 operands in scope.
    pub(super) fn sub_dword(&mut self) -> Result<()> {
        let x = self.exact_operand(I32)?;
        let k = self.u.choose(&AMOUNTS)?;
        let k = self.konst(*k);
        let mask = *self.u.choose(&MASKS)?;
        match self.u.int_in_range(0..=7)? {
            0 => {
                let v = if self.u.ratio(1, 2)? {
                    self.cursor().ins().ushr(x, k)
                } else {
                    self.cursor().ins().sshr(x, k)
                };
                self.put(v);
            }
            1 => {
                let m = self.konst(mask);
                let v = self.cursor().ins().band(x, m);
                self.put(v);
            }
            2 => {
                let s = self.cursor().ins().ushr(x, k);
                let s = self.put(s);
                let m = self.konst(mask);
                let v = self.cursor().ins().band(s, m);
                self.put(v);
            }
            3 => {
                let a = *self.u.choose(&[0i64, 8, 16, 24])?;
                let a = self.konst(a);
                let s = self.cursor().ins().ishl(x, a);
                let s = self.put(s);
                let v = if self.u.ratio(1, 2)? {
                    self.cursor().ins().sshr(s, k)
                } else {
                    self.cursor().ins().ushr(s, k)
                };
                self.put(v);
            }
            4 => {
                let s = self.cursor().ins().ushr(x, k);
                let s = self.put(s);
                let ty = *self.u.choose(&[I8, I16])?;
                let r = self.cursor().ins().ireduce(ty, s);
                let r = self.put(r);
                let v = if self.u.ratio(1, 2)? {
                    self.cursor().ins().uextend(I32, r)
                } else {
                    self.cursor().ins().sextend(I32, r)
                };
                self.put(v);
            }
            5 => {
                // bor(band(d, !(m << k)), ishl(band(v, m), k)), with k on a byte boundary.
                let d = self.exact_operand(I32)?;
                let at = *self.u.choose(&[0u32, 8, 16, 24])?;
                let m = mask as u32;
                let field = (m as u64) << at;
                let cleared = self.konst(!(field as u32) as i32 as i64);
                let kept = self.cursor().ins().band(d, cleared);
                let kept = self.put(kept);
                let mv = self.konst(mask);
                let part = self.cursor().ins().band(x, mv);
                let part = self.put(part);
                let shift = self.konst(at as i64);
                let placed = self.cursor().ins().ishl(part, shift);
                let placed = self.put(placed);
                let v = if self.u.ratio(1, 2)? {
                    self.cursor().ins().bor(kept, placed)
                } else {
                    self.cursor().ins().bor(placed, kept)
                };
                self.put(v);
            }
            6 => {
                let m = self.konst(mask);
                let part = self.cursor().ins().band(x, m);
                let part = self.put(part);
                let v = self.cursor().ins().ishl(part, k);
                self.put(v);
            }
            _ => {
                let y = self.exact_operand(I32)?;
                let ty = *self.u.choose(&[I8, I16])?;
                let s = self.cursor().ins().ushr(x, k);
                let s = self.put(s);
                let a = self.cursor().ins().ireduce(ty, s);
                let a = self.put(a);
                let b = self.cursor().ins().ireduce(ty, y);
                let b = self.put(b);
                let opcode = *self.u.choose(&[
                    Opcode::Iadd,
                    Opcode::Isub,
                    Opcode::Band,
                    Opcode::Bxor,
                    Opcode::Umin,
                    Opcode::Umax,
                    Opcode::Smin,
                    Opcode::Smax,
                ])?;
                let inst = self.cursor().ins().Binary(opcode, ty, a, b).0;
                let r = self.func.dfg.first_result(inst);
                let r = self.put(r);
                let v = if self.u.ratio(1, 2)? {
                    self.cursor().ins().uextend(I32, r)
                } else {
                    self.cursor().ins().sextend(I32, r)
                };
                self.put(v);
            }
        }
        Ok(())
    }
}
