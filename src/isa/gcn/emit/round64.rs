//! The f64 roundings on gfx6, which has no `v_trunc_f64`/`v_rndne_f64`… (`Inst::RoundF64`).

use super::super::mc::{Op, Operand};
use super::{Emitter, reg_operand};
use crate::machinst::Reg;

impl Emitter<'_> {
    /// `dst = op(src)` for the f64 roundings without v_trunc_f64 and friends (gfx6), as
    /// LLVM's `LowerFTRUNC`, `LowerFFLOOR`, `LowerFCEIL` and `LowerFRINT` do for SI. trunc
    /// clears the fraction bits below the exponent e (x itself for e > 51, ±0 for e < 0);
    /// floor and ceil step the truncation by ∓1 where it moved the wrong way; rndne adds
    /// and subtracts 2^52 with x's sign (the additions round to nearest even), keeps x
    /// for |x| ≥ 2^52 and x's sign for a zero result. `src/sim/gcn/expansions/round64.rs` checks it.
    pub(super) fn round64(&mut self, op: Op, dst: Reg, src: Reg, tmp: &[Reg; 2]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1] = tmp.map(|r| reg_operand(r, 0));
        let hi = |o: Operand| Operand(o.0 + 1);
        let (a, b, c, e) = (t0, hi(t0), t1, hi(t1));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let int = |v: i64| Operand::inline_int(v).expect("an inline constant");
        let cnd = |s: &mut Self, dst: Operand, f: Operand, t: Operand| {
            s.valu(
                Op::VCndmaskB32,
                Some(dst),
                None,
                &[f, t, Operand::VCC],
                None,
            );
        };
        if op == Op::VRndneF64 {
            self.valu(Op::VMovB32, Some(c), None, &[int(0)], None);
            self.valu(Op::VAndB32, Some(e), None, &[lit, hi(x)], Some(0x8000_0000));
            self.valu(Op::VOrB32, Some(e), None, &[lit, e], Some(0x4330_0000)); // ±2^52
            self.valu(Op::VAddF64, Some(t0), None, &[x, t1], None);
            self.valu_mods(
                Op::VAddF64,
                Some(t0),
                None,
                &[t0, t1],
                None,
                0b010,
                0,
                false,
            );
            self.valu(Op::VAndB32, Some(e), None, &[lit, hi(x)], Some(0x8000_0000));
            self.valu(Op::VAndB32, Some(b), None, &[lit, b], Some(0x7fff_ffff));
            self.valu(Op::VOrB32, Some(b), None, &[e, b], None); // x's sign
            self.valu(Op::VBfeU32, Some(e), None, &[hi(x), int(20), int(11)], None);
            self.valu(Op::VCmpLtU32, None, vcc, &[lit, e], Some(0x432)); // |x| >= 2^52
            cnd(self, d, a, x);
            cnd(self, hi(d), b, hi(x));
            return;
        }
        // trunc into d.
        self.valu(Op::VBfeU32, Some(a), None, &[hi(x), int(20), int(11)], None);
        self.valu(Op::VAddU32, Some(a), vcc, &[lit, a], Some(-1023i32 as u32)); // e
        self.valu(Op::VMovB32, Some(b), None, &[lit], Some(0x000f_ffff));
        self.valu(Op::VLshrrevB32, Some(b), None, &[a, b], None); // high fraction mask
        self.valu(Op::VAddU32, Some(c), vcc, &[lit, a], Some(-20i32 as u32));
        self.valu(Op::VLshrrevB32, Some(c), None, &[c, int(-1)], None); // low fraction mask
        self.valu(Op::VCmpGtI32, None, vcc, &[int(20), a], None); // e < 20
        cnd(self, c, c, int(-1));
        cnd(self, b, int(0), b);
        self.valu(Op::VBfiB32, Some(d), None, &[c, int(0), x], None);
        self.valu(Op::VBfiB32, Some(hi(d)), None, &[b, int(0), hi(x)], None);
        self.valu(Op::VCmpGtI32, None, vcc, &[int(0), a], None); // e < 0: ±0
        self.valu(Op::VAndB32, Some(b), None, &[lit, hi(x)], Some(0x8000_0000));
        cnd(self, d, d, int(0));
        cnd(self, hi(d), hi(d), b);
        self.valu(Op::VCmpLtI32, None, vcc, &[int(51), a], None); // e > 51: x
        cnd(self, d, d, x);
        cnd(self, hi(d), hi(d), hi(x));
        let (one_hi, cmp) = match op {
            Op::VFloorF64 => (0xbff0_0000, Op::VCmpGtF64), // trunc > x: trunc - 1
            Op::VCeilF64 => (0x3ff0_0000, Op::VCmpLtF64),  // trunc < x: trunc + 1
            _ => return,
        };
        self.valu(Op::VMovB32, Some(c), None, &[int(0)], None);
        self.valu(Op::VMovB32, Some(e), None, &[lit], Some(one_hi));
        self.valu(Op::VAddF64, Some(t0), None, &[d, t1], None);
        self.valu(cmp, None, vcc, &[d, x], None);
        cnd(self, d, d, a);
        cnd(self, hi(d), hi(d), b);
    }
}
