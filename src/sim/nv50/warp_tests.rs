//! Hand-built programs (encoded with the MC encoder) run on the simulator, with expected
//! values from the documented semantics: `docs/nv50.md`, envytools' `int.rst` and the
//! `nvhw/fp.c` model (`docs/targets.md`, f32), IEEE 754 for GT200's f64.

use super::float::{self, Mode};
use super::*;
use crate::isa::nv50::mc::{
    AtomOp, Cond, Form, McInst, Mods, Op, Operand, Pred, Program, Ty, Variant, decode_one, encode,
    samples,
};
use crate::sim::Violation;
use Operand::{Discard, Imm, R, Target};

fn assemble(insts: &[McInst], variant: Variant) -> Vec<u8> {
    let mut bytes = Vec::new();
    for inst in insts {
        for w in encode(inst, variant).unwrap_or_else(|e| panic!("{inst:?}: {e}")) {
            bytes.extend(w.to_le_bytes());
        }
    }
    bytes
}

fn long(op: Op, ty: Option<Ty>, dst: Option<Operand>, srcs: &[Operand]) -> McInst {
    McInst::with(op, Form::Long, ty, dst, srcs)
}

fn imm(op: Op, dst: u8, src: u8, value: u32) -> McInst {
    McInst::with(
        op,
        Form::Imm,
        Some(Ty::B32),
        Some(R(dst)),
        &[R(src), Imm(value)],
    )
}

fn mov_imm(dst: u8, value: u32) -> McInst {
    McInst::with(
        Op::Mov,
        Form::Imm,
        Some(Ty::B32),
        Some(R(dst)),
        &[Imm(value)],
    )
}

fn ctrl(op: Op, target: Option<u32>) -> McInst {
    let srcs: Vec<Operand> = target.into_iter().map(Target).collect();
    long(op, None, None, &srcs)
}

fn pred(mut inst: McInst, cond: Cond, reg: u8) -> McInst {
    inst.pred = Some(Pred { cond, reg });
    inst
}

/// `sub b32 $c{c} # a b`: the flags of a comparison.
fn compare(c: u8, a: u8, b: u8) -> McInst {
    let mut inst = long(Op::Sub, Some(Ty::B32), Some(Discard), &[R(a), R(b)]);
    inst.cdst = Some(c);
    inst
}

/// The `exit` carrier nouveau uses: `(never) nop` with the exit bit.
fn exit() -> McInst {
    let mut inst = long(Op::Nop, None, None, &[]);
    inst.pred = Some(Pred {
        cond: Cond::Never,
        reg: 0,
    });
    inst.exit = true;
    inst
}

fn join() -> McInst {
    let mut inst = long(Op::Nop, None, None, &[]);
    inst.join = true;
    inst
}

/// Runs `insts` as a device function in `args.len()` threads; the first `results`
/// registers of each.
fn call(insts: &[McInst], args: &[Vec<u32>], results: usize) -> Result<Vec<Vec<u32>>, SimError> {
    call_variant(insts, args, results, Variant::G200)
}

fn call_variant(
    insts: &[McInst],
    args: &[Vec<u32>],
    results: usize,
    variant: Variant,
) -> Result<Vec<Vec<u32>>, SimError> {
    let code = assemble(insts, variant);
    let mut memory = Memory::with_base(MEMORY_BASE);
    call_device(
        &code,
        variant,
        0,
        args,
        results,
        &mut memory,
        &Options::default(),
    )
    .map(|r| r.0)
}

/// One thread computing `inst` on `$r1`, `$r2`, `$r3` into `$r0`; also returns `$c0`.
fn one(mut inst: McInst, r1: u32, r2: u32, r3: u32) -> (u32, u32) {
    inst.cdst = inst.cdst.or(Some(0));
    let insts = [
        inst,
        long(Op::Mov, None, Some(R(4)), &[Operand::C(0)]),
        exit(),
    ];
    let r = call(&insts, &[vec![0, r1, r2, r3]], 5).unwrap();
    (r[0][0], r[0][4])
}

const Z: u32 = 1;
const S: u32 = 2;
const C: u32 = 4;
const O: u32 = 8;

/// `mov $c $r` takes the four flags from bits 0–3 of the register and `mov $r $c` gives
/// them back there (how the allocator spills a `$c` into a `$r`): every flag value makes the
/// round trip, the bits above are ignored, and conditions read the reloaded flags.
#[test]
fn flags_move_to_and_from_registers() {
    let one = |dst| long(Op::Mov, Some(Ty::B32), Some(R(dst)), &[R(4)]);
    let insts = [
        mov_imm(4, 1),
        long(Op::Mov, None, Some(Operand::C(2)), &[R(1)]),
        long(Op::Mov, None, Some(R(0)), &[Operand::C(2)]),
        mov_imm(2, 0),
        pred(one(2), Cond::E, 2),
        mov_imm(3, 0),
        pred(one(3), Cond::C, 2),
        exit(),
    ];
    // Thread t: flags t & 0xf, other bits above them.
    let args: Vec<Vec<u32>> = (0..32u32).map(|t| vec![0, t << 4 | t & 0xf]).collect();
    let r = call(&insts, &args, 4).unwrap();
    for (t, regs) in r.iter().enumerate() {
        let flags = t as u32 & 0xf;
        assert_eq!(regs[0], flags, "thread {t}");
        // `e`: Z and not S; `c`: C.
        assert_eq!(regs[2], u32::from(flags & (Z | S) == Z), "thread {t}");
        assert_eq!(regs[3], u32::from(flags & C != 0), "thread {t}");
    }
}

#[test]
fn integer_add_family_and_flags() {
    let add = |op, a, b| one(long(op, Some(Ty::B32), Some(R(0)), &[R(1), R(2)]), a, b, 0);
    assert_eq!(add(Op::Add, 1, 2), (3, 0));
    assert_eq!(add(Op::Add, 0xffff_ffff, 1), (0, Z | C));
    assert_eq!(add(Op::Add, 0x7fff_ffff, 1), (0x8000_0000, S | O));
    // `sub a b` is a + ~b + 1: C means no borrow.
    assert_eq!(add(Op::Sub, 5, 3), (2, C));
    assert_eq!(add(Op::Sub, 3, 5), (0xffff_fffe, S));
    assert_eq!(add(Op::Sub, 7, 7), (0, Z | C));
    assert_eq!(add(Op::Subr, 3, 5), (2, C));
    let mut sat = long(Op::Add, Some(Ty::B32), Some(R(0)), &[R(1), R(2)]);
    sat.mods |= Mods::SAT;
    assert_eq!(one(sat, 0x7fff_ffff, 5, 0).0, 0x7fff_ffff);
    // 16-bit: carry out of bit 15, the high half of the destination kept.
    let h = |reg, hi| Operand::H { reg, hi };
    let add16 = long(
        Op::Add,
        Some(Ty::B16),
        Some(h(0, false)),
        &[h(1, false), h(2, false)],
    );
    assert_eq!(one(add16, 0xffff, 0x0001, 0), (0, Z | C));
    // A 64-bit add: `add` sets the carry, `addc` consumes it.
    let mut lo = long(Op::Add, Some(Ty::B32), Some(R(0)), &[R(0), R(2)]);
    lo.cdst = Some(1);
    let hi = long(
        Op::Addc,
        Some(Ty::B32),
        Some(R(1)),
        &[R(1), R(3), Operand::C(1)],
    );
    let r = call(&[lo, hi, exit()], &[vec![0xffff_ffff, 1, 1, 2]], 2).unwrap();
    assert_eq!(r[0], vec![0, 4]);
}

#[test]
fn shifts_multiplies_logic_and_set() {
    let shl = |n| {
        one(
            long(Op::Shl, Some(Ty::B32), Some(R(0)), &[R(1), R(2)]),
            0x8000_0001,
            n,
            0,
        )
    };
    assert_eq!(shl(1), (2, C | O));
    // Counts are not reduced modulo 32.
    assert_eq!(shl(32).0, 0);
    assert_eq!(shl(33).0, 0);
    let shr = |ty, x, n| one(long(Op::Shr, Some(ty), Some(R(0)), &[R(1), R(2)]), x, n, 0).0;
    assert_eq!(shr(Ty::S32, 0x8000_0000, 40), 0xffff_ffff);
    assert_eq!(shr(Ty::U32, 0x8000_0000, 40), 0);
    assert_eq!(shr(Ty::S32, 0x8000_0000, 4), 0xf800_0000);
    let shr_imm = long(Op::Shr, Some(Ty::S32), Some(R(0)), &[R(1), Imm(31)]);
    assert_eq!(one(shr_imm, 0x8000_0000, 0, 0).0, 0xffff_ffff);
    // 24-bit multiplies read the low 24 bits of each source.
    let mul = |ty, high, a, b| {
        let mut m = long(Op::Mul, Some(ty), Some(R(0)), &[R(1), R(2)]);
        if high {
            m.mods |= Mods::HIGH;
        }
        one(m, a, b, 0).0
    };
    assert_eq!(mul(Ty::U24, false, 0xff00_0003, 5), 15);
    // (2^24 − 1)^2 = 0xfffffe000001: bits 16–47.
    assert_eq!(mul(Ty::U24, true, 0xff_ffff, 0xff_ffff), 0xffff_fe00);
    assert_eq!(mul(Ty::S24, false, 0xff_ffff, 3), (-3i32) as u32);
    let mut mul16 = long(
        Op::Mul,
        Some(Ty::S16),
        Some(R(0)),
        &[
            Operand::H { reg: 1, hi: false },
            Operand::H { reg: 2, hi: true },
        ],
    );
    mul16.src_ty = Some(Ty::U16);
    assert_eq!(one(mul16, 0xffff, 0xffff_0000, 0).0, (-0xffff_i32) as u32);
    let mut andn = long(Op::And, Some(Ty::B32), Some(R(0)), &[R(1), R(2)]);
    andn.mods |= Mods::NOT1;
    assert_eq!(one(andn, 0xff, 0x0f, 0), (0xf0, 0));
    let mut set = long(Op::Set, Some(Ty::S32), Some(R(0)), &[R(1), R(2)]);
    set.cmp = Some(Cond::L);
    assert_eq!(one(set.clone(), (-1i32) as u32, 0, 0), (0xffff_ffff, S));
    set.ty = Some(Ty::U32);
    assert_eq!(one(set, (-1i32) as u32, 0, 0), (0, Z));
    // sad: |a − b| + c.
    let sad = long(Op::Sad, Some(Ty::S32), Some(R(0)), &[R(1), R(2), R(3)]);
    assert_eq!(one(sad, (-5i32) as u32, 7, 100).0, 112);
}

#[test]
fn conversions_saturate() {
    let cvt = |dty, sty, round, x| {
        let mut c = long(Op::Cvt, Some(dty), Some(R(0)), &[R(1)]);
        c.src_ty = Some(sty);
        c.round = round;
        one(c, x, 0, 0).0
    };
    use crate::isa::nv50::mc::Round;
    assert_eq!(
        cvt(Ty::S32, Ty::F32, Some(Round::Rzi), 3e9f32.to_bits()),
        0x7fff_ffff
    );
    assert_eq!(
        cvt(Ty::S32, Ty::F32, Some(Round::Rzi), (-2.7f32).to_bits()),
        (-2i32) as u32
    );
    assert_eq!(
        cvt(Ty::S32, Ty::F32, Some(Round::Rmi), (-2.2f32).to_bits()),
        (-3i32) as u32
    );
    assert_eq!(
        cvt(Ty::U32, Ty::F32, Some(Round::Rni), (-5.0f32).to_bits()),
        0
    );
    assert_eq!(cvt(Ty::S32, Ty::F32, Some(Round::Rni), 0x7fc0_0000), 0);
    assert_eq!(cvt(Ty::U8, Ty::S32, None, (-5i32) as u32), 0);
    assert_eq!(cvt(Ty::U8, Ty::S32, None, 300), 255);
    assert_eq!(
        cvt(Ty::S8, Ty::S32, None, (-300i32) as u32),
        (-128i32) as u32
    );
    assert_eq!(
        cvt(Ty::F32, Ty::S32, Some(Round::Rn), (-3i32) as u32),
        (-3.0f32).to_bits()
    );
    // 2^24 + 1 rounds to nearest even, up with rp.
    assert_eq!(
        cvt(Ty::F32, Ty::U32, Some(Round::Rn), 0x100_0001),
        16777216f32.to_bits()
    );
    assert_eq!(
        cvt(Ty::F32, Ty::U32, Some(Round::Rp), 0x100_0001),
        16777218f32.to_bits()
    );
}

#[test]
fn f32_model_matches_ieee_on_normal_values_and_deviates_as_documented() {
    let mut x = 0x1234_5678u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Exponents well inside the normal range.
        let e = 100 + (x >> 40) as u32 % 56;
        (x as u32 & 0x807f_ffff) | e << 23
    };
    for _ in 0..20000 {
        let (a, b) = (next(), next());
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let sum = (fa + fb).to_bits();
        if sum & 0x7f80_0000 != 0 {
            assert_eq!(float::f32_add(a, b, Mode::Rn), sum, "{fa} + {fb}");
        }
        assert_eq!(
            float::f32_mul(a, b, Mode::Rn),
            (fa * fb).to_bits(),
            "{fa} * {fb}"
        );
    }
    // Denormals read as zero and are flushed.
    assert_eq!(float::f32_add(1, 0, Mode::Rn), 0);
    assert_eq!(float::f32_mul(0x0080_0000, 0x3f00_0000, Mode::Rn), 0);
    // NaN results are 0x7fffffff; min/max ignore one NaN.
    assert_eq!(
        float::f32_add(0x7f80_0000, 0xff80_0000, Mode::Rn),
        0x7fff_ffff
    );
    assert_eq!(
        float::f32_minmax(0x7fc0_0000, 0x3f80_0000, true),
        0x3f80_0000
    );
    // The multiply-add truncates the product: (1 + 2^-23)^2 - 1 is 2^-22, not
    // 2^-22 + 2^-46.
    assert_eq!(
        float::f32_mad(0x3f80_0001, 0x3f80_0001, 0xbf80_0000),
        0x3480_0000
    );
    // rz: 1 + 2^-24 + 2^-25 rounds down.
    assert_eq!(
        float::f32_add(0x3f80_0000, 0x33c0_0000, Mode::Rz),
        0x3f80_0000
    );
    assert_eq!(
        float::f32_add(0x3f80_0000, 0x33c0_0000, Mode::Rn),
        0x3f80_0001
    );
}

#[test]
fn f64_is_ieee_with_rounding_modes() {
    let mut x = 0x9876_5432u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let e = 900 + (x >> 52) % 250;
        (x & 0x800f_ffff_ffff_ffff) | e << 52
    };
    for _ in 0..20000 {
        let (a, b, c) = (next(), next(), next());
        let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        assert_eq!(float::f64_add(a, b, Mode::Rn), (fa + fb).to_bits());
        assert_eq!(float::f64_mul(a, b, Mode::Rn), (fa * fb).to_bits());
        assert_eq!(
            float::f64_fma(a, b, c, Mode::Rn),
            fa.mul_add(fb, fc).to_bits()
        );
    }
    let one = 1f64.to_bits();
    let tiny = 2f64.powi(-60).to_bits();
    assert_eq!(float::f64_add(one, tiny, Mode::Rz), one);
    assert_eq!(float::f64_add(one, tiny, Mode::Rp), one + 1);
    // Denormals are kept.
    assert_eq!(float::f64_add(1, 1, Mode::Rn), 2);
    // Through the instruction, on GT200.
    let mut add = long(
        Op::Add,
        Some(Ty::F64),
        Some(Operand::D(0)),
        &[Operand::D(2), Operand::D(4)],
    );
    add.round = Some(crate::isa::nv50::mc::Round::Rn);
    let words = |v: f64| [v.to_bits() as u32, (v.to_bits() >> 32) as u32];
    let [a0, a1] = words(1.5);
    let [b0, b1] = words(2.25);
    let r = call(&[add, exit()], &[vec![0, 0, a0, a1, b0, b1]], 2).unwrap();
    assert_eq!(r[0], words(3.75).to_vec());
}

#[test]
fn predication_follows_the_flags_of_each_thread() {
    // $r0 = thread index, $r1 = 16: `(l $c0)` holds in threads 0–15.
    let insts = [
        compare(0, 0, 1),
        pred(
            long(Op::Mov, Some(Ty::B32), Some(R(2)), &[R(1)]),
            Cond::L,
            0,
        ),
        pred(
            long(Op::Mov, Some(Ty::B32), Some(R(3)), &[R(1)]),
            Cond::Ge,
            0,
        ),
        exit(),
    ];
    let args: Vec<Vec<u32>> = (0..32).map(|t| vec![t, 16, 0, 0]).collect();
    let r = call(&insts, &args, 4).unwrap();
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[2], if t < 16 { 16 } else { 0 });
        assert_eq!(regs[3], if t < 16 { 0 } else { 16 });
    }
    // Every condition against the documented table, through `set`'s flags: true sets S,
    // false Z.
    for (flags, cond, holds) in [
        (S, Cond::L, true),
        (Z, Cond::E, true),
        (Z | S, Cond::U, true),
        (Z | S, Cond::E, false),
        (C, Cond::A, true),
        (C | Z, Cond::A, false),
        (O, Cond::No, false),
    ] {
        assert_eq!(
            super::alu::cond_holds(cond, flags as u8),
            holds,
            "{cond:?} {flags}"
        );
    }
}

#[test]
fn divergent_if_else_reconverges_at_join() {
    // 0 compare; 8 joinat 0x30; 16 (l) bra 0x28; 24 else; 32 bra 0x30; 40 then;
    // 48 join nop; 56 add once per thread; 64 exit.
    let insts = [
        compare(0, 0, 1),
        ctrl(Op::Joinat, Some(0x30)),
        pred(ctrl(Op::Bra, Some(0x28)), Cond::L, 0),
        mov_imm(2, 200),
        ctrl(Op::Bra, Some(0x30)),
        mov_imm(2, 100),
        join(),
        imm(Op::Add, 2, 2, 1),
        exit(),
    ];
    let args: Vec<Vec<u32>> = (0..32).map(|t| vec![t, 16]).collect();
    let r = call(&insts, &args, 3).unwrap();
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[2], if t < 16 { 101 } else { 201 }, "thread {t}");
    }
}

#[test]
fn loop_with_breakaddr_and_break() {
    // Thread t loops t times.
    let insts = [
        mov_imm(2, 0),
        ctrl(Op::Breakaddr, Some(0x30)),
        compare(0, 0, 2),
        pred(ctrl(Op::Break, None), Cond::E, 0),
        imm(Op::Add, 2, 2, 1),
        ctrl(Op::Bra, Some(0x10)),
        imm(Op::Add, 3, 2, 1000),
        exit(),
    ];
    let args: Vec<Vec<u32>> = (0..32).map(|t| vec![t]).collect();
    let r = call(&insts, &args, 4).unwrap();
    for (t, regs) in r.iter().enumerate() {
        assert_eq!((regs[2], regs[3]), (t as u32, t as u32 + 1000));
    }
}

#[test]
fn call_and_ret() {
    let insts = [
        ctrl(Op::Call, Some(0x18)),
        imm(Op::Add, 1, 0, 5),
        exit(),
        long(Op::Add, Some(Ty::B32), Some(R(0)), &[R(0), R(0)]),
        ctrl(Op::Ret, None),
    ];
    let args: Vec<Vec<u32>> = (0..8).map(|t| vec![t]).collect();
    let r = call(&insts, &args, 2).unwrap();
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[1], 2 * t as u32 + 5);
    }
    // A device function ends with `ret`: with no call entry it ends the thread.
    let r = call(
        &[imm(Op::Add, 0, 0, 1), ctrl(Op::Ret, None)],
        &[vec![41]],
        1,
    )
    .unwrap();
    assert_eq!(r[0][0], 42);
}

/// A callee must give back `$r16` and up (`docs/ir.md`, "Calls on NV50"): one that
/// changes `$r17` fails at the return from its `call`, and a device function run alone
/// that changes `$r20` fails when it ends; `$r0`–`$r15` are the callee's.
#[test]
fn calls_keep_r16_and_up() {
    let clobbers = |r: u8| {
        vec![
            ctrl(Op::Call, Some(0x18)),
            imm(Op::Add, 1, 0, 5),
            exit(),
            imm(Op::Add, r, 0, 1),
            ctrl(Op::Ret, None),
        ]
    };
    assert!(call(&clobbers(15), &[vec![1]], 2).is_ok());
    let err = call(&clobbers(17), &[vec![1]], 2).unwrap_err();
    assert!(
        err.to_string().contains("changed `$r17` of thread 0"),
        "{err}"
    );
    let err = call(
        &[imm(Op::Add, 20, 0, 1), ctrl(Op::Ret, None)],
        &[vec![1]],
        1,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("changed `$r20` of thread 0"),
        "{err}"
    );
}

#[test]
fn global_local_and_shared_memory() {
    let variant = Variant::G200;
    let mut memory = Memory::with_base(MEMORY_BASE);
    let buf = memory.alloc(&[1, 0, 0, 0, 0xfe, 0xff, 0, 0]);
    assert!(buf < 1 << 32);
    let g = |space, addr| Operand::Global { space, addr };
    let local = Operand::Local {
        areg: 0,
        offset: 0x10,
    };
    let shared = Operand::Shared {
        ty: Ty::B32,
        areg: 0,
        offset: 0x40,
    };
    let insts = [
        long(Op::Ld, Some(Ty::B32), Some(R(1)), &[g(15, 0)]),
        imm(Op::Add, 2, 0, 4),
        long(Op::Ld, Some(Ty::S16), Some(R(3)), &[g(15, 2)]),
        long(Op::St, Some(Ty::B32), Some(local), &[R(3)]),
        long(Op::Ld, Some(Ty::B32), Some(R(4)), &[local]),
        long(Op::St, None, Some(shared), &[R(1)]),
        long(Op::Ld, None, Some(R(5)), &[shared]),
        imm(Op::Add, 6, 5, 10),
        long(Op::St, Some(Ty::B32), Some(g(15, 0)), &[R(6)]),
        exit(),
    ];
    let code = assemble(&insts, variant);
    let args = vec![vec![buf as u32]];
    let (r, stats) = call_device(
        &code,
        variant,
        0x20,
        &args,
        7,
        &mut memory,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(r[0][1], 1);
    assert_eq!(r[0][3], 0xffff_fffe, "s16 sign-extends");
    assert_eq!(r[0][4], 0xffff_fffe);
    assert_eq!(r[0][5], 1);
    assert_eq!(memory.read(buf, 4), Some(&11u32.to_le_bytes()[..]));
    assert_eq!(stats.instructions, 10);
    // Only g15[] is bound; misaligned and unmapped accesses fault.
    for (inst, address) in [
        (long(Op::Ld, Some(Ty::B32), Some(R(1)), &[g(0, 0)]), buf),
        (
            long(Op::Ld, Some(Ty::B32), Some(R(1)), &[g(15, 0)]),
            buf + 2,
        ),
        (long(Op::Ld, Some(Ty::B32), Some(R(1)), &[g(15, 0)]), 0x100),
    ] {
        let code = assemble(&[inst, exit()], variant);
        let err = call_device(
            &code,
            variant,
            0,
            &[vec![address as u32]],
            1,
            &mut memory,
            &Options::default(),
        )
        .unwrap_err();
        assert!(matches!(err.violation, Violation::Memory { .. }), "{err}");
    }
}

/// `l[]` holds the bytes the code reports per thread: an access within them works (each
/// thread its own), one reaching past them or misaligned faults, and without local memory
/// every access does.
#[test]
fn local_memory_is_bounded_by_the_reported_size() {
    let variant = Variant::G84;
    let mut memory = Memory::with_base(MEMORY_BASE);
    let local = |areg, offset| Operand::Local { areg, offset };
    let run = |inst: McInst, size: u32, memory: &mut Memory| {
        let code = assemble(&[inst, exit()], variant);
        call_device(
            &code,
            variant,
            size,
            &[vec![7]],
            1,
            memory,
            &Options::default(),
        )
    };
    let store = |offset, ty: Ty| {
        let data = if ty == Ty::B64 { Operand::D(0) } else { R(0) };
        long(Op::St, Some(ty), Some(local(0, offset)), &[data])
    };
    for (inst, size) in [
        (store(0x1c, Ty::B32), 0x20),
        (store(0x18, Ty::B64), 0x20),
        (store(0x1f, Ty::U8), 0x20),
    ] {
        assert!(run(inst, size, &mut memory).is_ok());
    }
    for (inst, size) in [
        (store(0x20, Ty::B32), 0x20),
        (store(0x1c, Ty::B64), 0x20),
        (store(0x1e, Ty::B32), 0x40),
        (store(0x0, Ty::U8), 0),
    ] {
        let err = run(inst, size, &mut memory).unwrap_err();
        assert!(matches!(err.violation, Violation::Memory { .. }), "{err}");
    }
    // Through `$a`: each thread's own bytes.
    let insts = [
        long(Op::Shl, Some(Ty::B32), Some(R(0)), &[R(0), Operand::Imm(2)]),
        long(Op::Shl, None, Some(Operand::A(3)), &[R(0), Operand::Imm(0)]),
        long(Op::St, Some(Ty::B32), Some(local(3, 4)), &[R(0)]),
        long(Op::Ld, Some(Ty::B32), Some(R(1)), &[local(3, 4)]),
        exit(),
    ];
    let code = assemble(&insts, variant);
    let args: Vec<Vec<u32>> = (0..4).map(|t| vec![t]).collect();
    let (r, _) = call_device(
        &code,
        variant,
        0x20,
        &args,
        2,
        &mut memory,
        &Options::default(),
    )
    .unwrap();
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[1], 4 * t as u32);
    }
    let args: Vec<Vec<u32>> = (0..8).map(|t| vec![t]).collect();
    let err = call_device(
        &code,
        variant,
        0x20,
        &args,
        2,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err.violation, Violation::Memory { lane: Some(7), .. }),
        "{err}"
    );
}

#[test]
fn launch_writes_the_system_area_and_parameters() {
    use crate::isa::nv50::mc::Ty::{B32, U16};
    let variant = Variant::G84;
    let s = |ty, offset| Operand::Shared {
        ty,
        areg: 0,
        offset,
    };
    let shl = |dst, src, n| long(Op::Shl, Some(B32), Some(R(dst)), &[R(src), Imm(n)]);
    let add = |dst, a, b| long(Op::Add, Some(B32), Some(R(dst)), &[R(a), R(b)]);
    let insts = [
        long(Op::Ld, None, Some(R(1)), &[s(B32, 0x14)]),
        long(Op::Ld, None, Some(R(2)), &[s(U16, 0x0c)]),
        McInst::with(
            Op::And,
            Form::Imm,
            Some(B32),
            Some(R(3)),
            &[R(0), Imm(0xffff)],
        ),
        shl(4, 2, 5),
        add(4, 4, 3),
        shl(5, 4, 2),
        add(5, 5, 1),
        // The value: index | ntid.x << 16 | nctaid.z << 24 | ctaid.z << 28.
        long(Op::Ld, None, Some(R(6)), &[s(U16, 0x02)]),
        shl(6, 6, 16),
        add(7, 4, 6),
        long(Op::Ld, None, Some(R(6)), &[s(U16, 0x10)]),
        shl(6, 6, 24),
        add(7, 7, 6),
        long(Op::Ld, None, Some(R(6)), &[s(U16, 0x12)]),
        shl(6, 6, 28),
        add(7, 7, 6),
        long(
            Op::St,
            Some(B32),
            Some(Operand::Global { space: 15, addr: 5 }),
            &[R(7)],
        ),
        exit(),
    ];
    let code = assemble(&insts, variant);
    let sim = Nv50Simulator { variant };
    let mut memory = sim.memory();
    let out = memory.alloc_zeroed(4 * 64);
    let grid = Launch {
        workgroup_size: [32, 1, 1],
        groups: [2, 1, 1],
        params: (out as u32).to_le_bytes().to_vec(),
    };
    let stats =
        dispatch::launch(&code, variant, 0, &grid, &mut memory, &Options::default()).unwrap();
    assert_eq!(stats.waves, 2);
    let bytes = memory.read(out, 4 * 64).unwrap();
    for i in 0..64u32 {
        let v = u32::from_le_bytes(bytes[4 * i as usize..][..4].try_into().unwrap());
        assert_eq!(v, i | 32 << 16 | 1 << 24, "thread {i}");
    }
}

/// Two warps of a block: each thread writes its id to `s[0x110 + 4 tid]`, then (after a
/// `bar sync 0` when `barrier`) reads the word of the thread 32 further on, the other
/// warp's, and stores it to `out[tid]`.
fn exchange_between_warps(barrier: bool) -> Result<Vec<u32>, SimError> {
    use crate::isa::nv50::mc::Ty::B32;
    let variant = Variant::G84;
    let mut insts = vec![
        McInst::with(
            Op::And,
            Form::Imm,
            Some(B32),
            Some(R(1)),
            &[R(0), Imm(0xffff)],
        ),
        long(Op::Shl, Some(B32), Some(R(2)), &[R(1), Imm(2)]),
        long(Op::Shl, None, Some(Operand::A(3)), &[R(2), Imm(0)]),
        long(
            Op::St,
            None,
            Some(Operand::Shared {
                ty: B32,
                areg: 3,
                offset: 0x110,
            }),
            &[R(1)],
        ),
    ];
    if barrier {
        let mut bar = long(Op::Bar, None, None, &[Imm(0)]);
        bar.mods = Mods::INC | Mods::WAIT;
        insts.push(bar);
    }
    insts.extend([
        McInst::with(
            Op::Xor,
            Form::Imm,
            Some(B32),
            Some(R(3)),
            &[R(2), Imm(0x80)],
        ),
        long(Op::Shl, None, Some(Operand::A(3)), &[R(3), Imm(0)]),
        long(
            Op::Ld,
            None,
            Some(R(4)),
            &[Operand::Shared {
                ty: B32,
                areg: 3,
                offset: 0x110,
            }],
        ),
        long(
            Op::Ld,
            None,
            Some(R(5)),
            &[Operand::Shared {
                ty: B32,
                areg: 0,
                offset: 0x14,
            }],
        ),
        long(Op::Add, Some(B32), Some(R(5)), &[R(5), R(2)]),
        long(
            Op::St,
            Some(B32),
            Some(Operand::Global { space: 15, addr: 5 }),
            &[R(4)],
        ),
        exit(),
    ]);
    let code = assemble(&insts, variant);
    let sim = Nv50Simulator { variant };
    let mut memory = sim.memory();
    let out = memory.alloc_zeroed(4 * 64);
    let grid = Launch {
        workgroup_size: [64, 1, 1],
        groups: [1, 1, 1],
        params: (out as u32).to_le_bytes().to_vec(),
    };
    dispatch::launch(&code, variant, 0, &grid, &mut memory, &Options::default())?;
    let bytes = memory.read(out, 4 * 64).unwrap();
    Ok((0..64).map(|i| word(bytes, i)).collect())
}

#[test]
fn warps_of_a_block_interleave_and_races_on_shared_memory_are_reported() {
    let out = exchange_between_warps(true).unwrap();
    assert_eq!(out, (0..64).map(|i| i ^ 32).collect::<Vec<u32>>());
    // Without the barrier the warps interleave: warp 0 reads warp 1's words before warp 1
    // (started later) has written them, which the race check reports.
    let err = exchange_between_warps(false).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("data race on s[] byte") && message.contains("warp"),
        "{message}"
    );
}

#[test]
fn failures_are_errors_not_hangs() {
    // An undecodable word.
    let bad = [0xffff_ffffu32, 0xffff_ffff];
    assert!(decode_one(&bad, Variant::G200, Program::Compute).is_err());
    let mut code: Vec<u8> = assemble(&[mov_imm(1, 1)], Variant::G200);
    code.extend(bad.iter().flat_map(|w| w.to_le_bytes()));
    let mut memory = Memory::with_base(MEMORY_BASE);
    let err = call_device(
        &code,
        Variant::G200,
        0,
        &[vec![0]],
        1,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err.violation, Violation::Decode(_)), "{err}");
    assert_eq!(err.pc, 8);
    // A divergent branch that never reconverges: the running path loops, the other one
    // waits on the stack for ever; the step limit ends it.
    let insts = [
        compare(0, 0, 1),
        pred(ctrl(Op::Bra, Some(0x18)), Cond::L, 0),
        ctrl(Op::Bra, Some(0)),
        ctrl(Op::Bra, Some(0)),
    ];
    let args: Vec<Vec<u32>> = (0..32).map(|t| vec![t, 16]).collect();
    let err = call(&insts, &args, 1).unwrap_err();
    assert_eq!(err.violation, Violation::StepLimit);
    // A region entered once per iteration and never joined overflows the 64 entries.
    let insts = [ctrl(Op::Joinat, Some(0x10)), ctrl(Op::Bra, Some(0)), exit()];
    let err = call(&insts, &[vec![0]], 1).unwrap_err();
    assert!(err.to_string().contains("stack overflow"), "{err}");
    // Running past the end of the code.
    let err = call(&[mov_imm(1, 1)], &[vec![0]], 1).unwrap_err();
    assert!(matches!(err.violation, Violation::BadPc(_)), "{err}");
    // A join without its joinat.
    let err = call(&[join(), exit()], &[vec![0]], 1).unwrap_err();
    assert!(err.to_string().contains("joinat"), "{err}");
    // An infinite uniform loop meets the step limit.
    let err = call(&[ctrl(Op::Bra, Some(0))], &[vec![0]], 1).unwrap_err();
    assert_eq!(err.violation, Violation::StepLimit);
}

#[test]
fn every_encodable_form_runs_or_fails_cleanly() {
    // Each sample of the MC table, in one thread with zeroed registers, followed by exit:
    // the simulator either runs it or reports an error; it never panics.
    for inst in samples() {
        let mut code = assemble(std::slice::from_ref(&inst), Variant::G200);
        if code.len() == 4 {
            code.extend(assemble(
                &[McInst::with(
                    Op::Mov,
                    Form::Short,
                    Some(Ty::B32),
                    Some(R(0)),
                    &[R(0)],
                )],
                Variant::G200,
            ));
        }
        code.extend(assemble(&[exit()], Variant::G200));
        let mut memory = Memory::with_base(MEMORY_BASE);
        let options = Options {
            max_steps: 100,
            ..Options::default()
        };
        let _ = call_device(
            &code,
            Variant::G200,
            0,
            &[vec![0; 8]],
            1,
            &mut memory,
            &options,
        );
    }
}

/// Runs `insts` in `threads` threads with a buffer holding `init`: thread `t` gets the
/// buffer's address in `$r0` and `args(t)` after it. Each thread's first `results`
/// registers, and the buffer afterwards.
fn with_buffer(
    insts: &[McInst],
    variant: Variant,
    threads: u32,
    init: &[u8],
    args: impl Fn(u32) -> Vec<u32>,
    results: usize,
) -> Result<(Vec<Vec<u32>>, Vec<u8>), SimError> {
    let code = assemble(insts, variant);
    let mut memory = Memory::with_base(MEMORY_BASE);
    let buf = memory.alloc(init);
    let args: Vec<Vec<u32>> = (0..threads)
        .map(|t| {
            let mut list = vec![buf as u32];
            list.extend(args(t));
            list
        })
        .collect();
    let (r, _) = call_device(
        &code,
        variant,
        0,
        &args,
        results,
        &mut memory,
        &Options::default(),
    )?;
    Ok((r, memory.read(buf, init.len()).unwrap().to_vec()))
}

/// `op ty dst g15[$r0] srcs…`: an atomic (a reduction when `dst` is `None`).
fn atom(op: AtomOp, ty: Ty, dst: Option<Operand>, srcs: &[Operand]) -> McInst {
    let g = Operand::Global { space: 15, addr: 0 };
    match dst {
        Some(dst) => {
            let mut all = vec![g];
            all.extend(srcs);
            long(Op::Atomic(op), Some(ty), Some(dst), &all)
        }
        None => long(Op::Red(op), Some(ty), Some(g), srcs),
    }
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
}

#[test]
fn atomics_compute_what_the_hardware_tests_check() {
    use AtomOp::*;
    // (op, type, memory before, operand, cas's new value, memory after): the formulas of
    // `hwtest/g80_atom32.cc`; the old value comes back.
    let m = 0x8000_0005u32;
    for (op, ty, old, b, c, new) in [
        (Add, Ty::U32, 0xffff_fff0, 0x20, 0, 0x10),
        (Inc, Ty::U32, 6, 7, 0, 7),
        (Inc, Ty::U32, 7, 7, 0, 0),
        (Inc, Ty::U32, 9, 7, 0, 0),
        (Inc, Ty::U32, 0xffff_ffff, 0xffff_ffff, 0, 0),
        (Dec, Ty::U32, 5, 7, 0, 4),
        (Dec, Ty::U32, 0, 7, 0, 7),
        (Dec, Ty::U32, 9, 7, 0, 7),
        (Max, Ty::U32, m, 5, 0, m),
        (Max, Ty::S32, m, 5, 0, 5),
        (Min, Ty::U32, m, 5, 0, 5),
        (Min, Ty::S32, m, 5, 0, m),
        (And, Ty::B32, 0xff0f, 0x0ff0, 0, 0x0f00),
        (Or, Ty::B32, 0xff0f, 0x0ff0, 0, 0xffff),
        (Xor, Ty::B32, 0xff0f, 0x0ff0, 0, 0xf0ff),
        (Exch, Ty::B32, 1, 2, 0, 2),
        (Cas, Ty::B32, 1, 1, 9, 9),
        (Cas, Ty::B32, 1, 2, 9, 1),
    ] {
        let srcs: &[Operand] = if op == Cas { &[R(1), R(2)] } else { &[R(1)] };
        let insts = [atom(op, ty, Some(R(3)), srcs), exit()];
        let (r, mem) = with_buffer(
            &insts,
            Variant::G84,
            1,
            &old.to_le_bytes(),
            |_| vec![b, c],
            4,
        )
        .unwrap();
        assert_eq!(
            (r[0][3], word(&mem, 0)),
            (old, new),
            "{op:?} {ty:?} {old:#x} {b:#x}"
        );
        if !matches!(op, Exch | Cas) {
            let insts = [atom(op, ty, None, &[R(1)]), exit()];
            let init = old.to_le_bytes();
            let (_, mem) = with_buffer(&insts, Variant::G84, 1, &init, |_| vec![b], 1).unwrap();
            assert_eq!(word(&mem, 0), new, "red {op:?} {ty:?}");
        }
    }
    // GT200's 64-bit forms: the add carries into the high word, `cas` compares all 64 bits.
    let d = |n| Operand::D(n);
    let old = 0x0000_0001_ffff_ffffu64;
    let insts = [atom(Add, Ty::U64, Some(d(4)), &[d(2)]), exit()];
    let (r, mem) = with_buffer(
        &insts,
        Variant::G200,
        1,
        &old.to_le_bytes(),
        |_| vec![0, 1, 0],
        6,
    )
    .unwrap();
    assert_eq!((r[0][4], r[0][5]), (0xffff_ffff, 1));
    assert_eq!(mem, 0x0000_0002_0000_0000u64.to_le_bytes());
    let insts = [atom(Cas, Ty::B64, Some(d(4)), &[d(2), d(6)]), exit()];
    for (compare, new) in [(old, 7u64), (old & 0xffff_ffff, old)] {
        let args = move |_| vec![0, compare as u32, (compare >> 32) as u32, 0, 0, 7, 0];
        let (r, mem) = with_buffer(&insts, Variant::G200, 1, &old.to_le_bytes(), args, 6).unwrap();
        assert_eq!((r[0][4], r[0][5]), (old as u32, (old >> 32) as u32));
        assert_eq!(mem, new.to_le_bytes());
    }
}

#[test]
fn a_warp_of_atomics_on_one_address() {
    // 32 threads add t + 1 to one word: the sum lands, and each thread gets a distinct old
    // value: the simulator applies them in thread order (`docs/simulator.md`).
    let insts = [atom(AtomOp::Add, Ty::U32, Some(R(2)), &[R(1)]), exit()];
    let (r, mem) = with_buffer(
        &insts,
        Variant::G84,
        32,
        &1000u32.to_le_bytes(),
        |t| vec![t + 1],
        3,
    )
    .unwrap();
    assert_eq!(word(&mem, 0), 1000 + 32 * 33 / 2);
    for (t, regs) in r.iter().enumerate() {
        let t = t as u32;
        assert_eq!(regs[2], 1000 + t * (t + 1) / 2, "thread {t}");
    }
    // `inc` wraps at its operand: 32 increments with a bound of 9 count 0..9 round.
    let insts = [atom(AtomOp::Inc, Ty::U32, Some(R(2)), &[R(1)]), exit()];
    let (r, mem) = with_buffer(&insts, Variant::G84, 32, &[0; 4], |_| vec![9], 3).unwrap();
    assert_eq!(word(&mem, 0), 32 % 10);
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[2], t as u32 % 10);
    }
    // `cas` succeeds only for the thread whose compare value is the current one: thread 5
    // swaps in 105; those before it see 5, those after 105.
    let insts = [
        atom(AtomOp::Cas, Ty::B32, Some(R(3)), &[R(1), R(2)]),
        exit(),
    ];
    let (r, mem) = with_buffer(
        &insts,
        Variant::G84,
        32,
        &5u32.to_le_bytes(),
        |t| vec![t, 100 + t],
        4,
    )
    .unwrap();
    assert_eq!(word(&mem, 0), 105);
    for (t, regs) in r.iter().enumerate() {
        assert_eq!(regs[3], if t <= 5 { 5 } else { 105 }, "thread {t}");
    }
    // Only the threads of the running path take part: a reduction under a predicate.
    let insts = [
        compare(0, 1, 2),
        pred(atom(AtomOp::Add, Ty::U32, None, &[R(3)]), Cond::L, 0),
        exit(),
    ];
    let (_, mem) = with_buffer(&insts, Variant::G84, 32, &[0; 4], |t| vec![t, 10, 1], 1).unwrap();
    assert_eq!(word(&mem, 0), 10);
}

#[test]
fn atomics_need_g84_and_64_bit_ones_gt200() {
    let insts = [atom(AtomOp::Add, Ty::U32, Some(R(2)), &[R(1)]), exit()];
    let code = assemble(&insts, Variant::G84);
    let mut memory = Memory::with_base(MEMORY_BASE);
    let buf = memory.alloc(&[0; 8]);
    let err = call_device(
        &code,
        Variant::G80,
        0,
        &[vec![buf as u32, 1]],
        1,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err.violation, Violation::Decode(_)), "{err}");
    let insts = [
        atom(AtomOp::Exch, Ty::B64, Some(Operand::D(2)), &[Operand::D(4)]),
        exit(),
    ];
    let code = assemble(&insts, Variant::G200);
    let err = call_device(
        &code,
        Variant::G84,
        0,
        &[vec![buf as u32]],
        1,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err.violation, Violation::Decode(_)), "{err}");
    // Misaligned and unbound addresses fault as plain accesses do.
    let insts = [atom(AtomOp::Add, Ty::U32, Some(R(2)), &[R(1)]), exit()];
    let code = assemble(&insts, Variant::G84);
    let err = call_device(
        &code,
        Variant::G84,
        0,
        &[vec![buf as u32 + 2, 1]],
        1,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err.violation, Violation::Memory { .. }), "{err}");
}

fn shared_word(offset: u32) -> Operand {
    Operand::Shared {
        ty: Ty::B32,
        areg: 0,
        offset,
    }
}

fn lock_load(c: u8, dst: u8, offset: u32) -> McInst {
    let mut inst = long(Op::Ld, None, Some(R(dst)), &[shared_word(offset)]);
    inst.mods = Mods::LOCK;
    inst.cdst = Some(c);
    inst
}

fn unlock_store(offset: u32, src: u8) -> McInst {
    let mut inst = long(Op::St, None, Some(shared_word(offset)), &[R(src)]);
    inst.mods = Mods::UNLOCK;
    inst
}

#[test]
fn shared_atomic_add_with_ld_lock_and_st_unlock() {
    // nouveau's lowering of a shared-memory atomic on GT200 (`handleSharedATOM`): try to
    // lock, and where `l` says it worked add and store-unlock; retry where `geu`.
    let add = |dst, a, b| long(Op::Add, Some(Ty::B32), Some(R(dst)), &[R(a), R(b)]);
    let insts = [
        ctrl(Op::Joinat, Some(0x28)),
        lock_load(0, 1, 0x40),
        pred(add(3, 1, 0), Cond::L, 0),
        pred(unlock_store(0x40, 3), Cond::L, 0),
        pred(ctrl(Op::Bra, Some(0x08)), Cond::Geu, 0),
        join(),
        long(Op::Ld, None, Some(R(4)), &[shared_word(0x40)]),
        exit(),
    ];
    let args: Vec<Vec<u32>> = (0..32).map(|t| vec![t + 1]).collect();
    let r = call(&insts, &args, 5).unwrap();
    for (t, regs) in r.iter().enumerate() {
        let t = t as u32;
        // One thread locks per try, in thread order.
        assert_eq!(regs[1], t * (t + 1) / 2, "thread {t}'s old value");
        assert_eq!(regs[4], 32 * 33 / 2);
    }
    // A failed lock: "false" in `$c` (Z: `e` and `geu` hold) and the destination kept; the
    // first thread gets "true" (S: `l` holds) and the word.
    let insts = [
        mov_imm(1, 0x77),
        mov_imm(2, 0x1234),
        long(Op::St, None, Some(shared_word(0x40)), &[R(2)]),
        lock_load(2, 1, 0x40),
        long(Op::Mov, None, Some(R(3)), &[Operand::C(2)]),
        pred(unlock_store(0x40, 1), Cond::L, 2),
        exit(),
    ];
    let r = call(&insts, &[vec![0], vec![0]], 4).unwrap();
    assert_eq!((r[0][1], r[0][3]), (0x1234, S));
    assert_eq!((r[1][1], r[1][3]), (0x77, Z));
    // One lock per warp: a second word cannot be locked before the first is unlocked.
    let insts = [
        lock_load(0, 1, 0x40),
        lock_load(1, 1, 0x80),
        long(Op::Mov, None, Some(R(2)), &[Operand::C(1)]),
        pred(unlock_store(0x40, 1), Cond::L, 0),
        exit(),
    ];
    assert_eq!(call(&insts, &[vec![0]], 3).unwrap()[0][2], Z);
    // Unlocking a word the warp has not locked is an error.
    let err = call(&[unlock_store(0x40, 0), exit()], &[vec![0]], 1).unwrap_err();
    assert!(err.to_string().contains("not locked"), "{err}");
    // A lock needs GT200.
    let code = assemble(&[lock_load(0, 1, 0x40), exit()], Variant::G200);
    let mut memory = Memory::with_base(MEMORY_BASE);
    let err = call_device(
        &code,
        Variant::G84,
        0,
        &[vec![0]],
        1,
        &mut memory,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err.violation, Violation::Decode(_)), "{err}");
}

#[test]
fn a_plain_access_to_a_word_another_warp_locked_waits_for_its_unlock() {
    // Thread 0 of warp 0 locks s[0x40], holds it through 24 `nop`s, then stores 7 and
    // unlocks it; every thread reads the word right after the lock and writes what it read
    // to out[tid]. Warp 0 (which holds the lock) reads 0; warp 1, 16 rounds behind, reaches
    // the read while the word is locked and waits, so it reads 7.
    let variant = Variant::G200;
    let mut insts = vec![
        mov_imm(5, 32),
        compare(1, 0, 5),
        pred(lock_load(0, 1, 0x40), Cond::L, 1),
        long(Op::Ld, None, Some(R(3)), &[shared_word(0x40)]),
    ];
    insts.extend((0..24).map(|_| long(Op::Nop, None, None, &[])));
    insts.extend([
        mov_imm(6, 7),
        pred(unlock_store(0x40, 6), Cond::L, 0),
        long(
            Op::Ld,
            None,
            Some(R(4)),
            &[Operand::Shared {
                ty: Ty::B32,
                areg: 0,
                offset: 0x14,
            }],
        ),
        long(Op::Shl, Some(Ty::B32), Some(R(7)), &[R(0), Imm(2)]),
        long(Op::Add, Some(Ty::B32), Some(R(7)), &[R(7), R(4)]),
        long(
            Op::St,
            Some(Ty::B32),
            Some(Operand::Global { space: 15, addr: 7 }),
            &[R(3)],
        ),
        exit(),
    ]);
    let code = assemble(&insts, variant);
    let sim = Nv50Simulator { variant };
    let mut memory = sim.memory();
    let out = memory.alloc_zeroed(4 * 64);
    let grid = Launch {
        workgroup_size: [64, 1, 1],
        groups: [1, 1, 1],
        params: (out as u32).to_le_bytes().to_vec(),
    };
    dispatch::launch(&code, variant, 0, &grid, &mut memory, &Options::default()).unwrap();
    let bytes = memory.read(out, 4 * 64).unwrap();
    for t in 0..64usize {
        let v = u32::from_le_bytes(bytes[4 * t..][..4].try_into().unwrap());
        assert_eq!(v, if t < 32 { 0 } else { 7 }, "thread {t}");
    }
}

#[test]
fn a_warp_that_ends_holding_a_lock_is_an_error() {
    let variant = Variant::G200;
    let code = assemble(&[lock_load(0, 1, 0x40), exit()], variant);
    let mut memory = Memory::with_base(MEMORY_BASE);
    let grid = Launch {
        workgroup_size: [64, 1, 1],
        groups: [1, 1, 1],
        params: Vec::new(),
    };
    let err =
        dispatch::launch(&code, variant, 0, &grid, &mut memory, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("ends holding the lock"), "{err}");
    // Two warps that unlock are fine.
    let insts = [
        lock_load(0, 1, 0x40),
        pred(unlock_store(0x40, 1), Cond::L, 0),
        exit(),
    ];
    let code = assemble(&insts, variant);
    dispatch::launch(&code, variant, 0, &grid, &mut memory, &Options::default()).unwrap();
}

#[test]
fn vote_over_the_running_threads_of_a_divergent_region() {
    // Threads t < 16 take the `then` path, the others the `else` path; each path votes on
    // `t < limit` with limit 8 in the `then` threads and 100 in the `else` ones. The
    // predicate is the vote's input: threads where it fails still get the answer.
    let vote = |op, c, cond: Option<Cond>| {
        let mut inst = long(op, None, None, &[]);
        inst.cdst = Some(c);
        inst.pred = cond.map(|cond| Pred { cond, reg: 1 });
        inst
    };
    let mov_c = |dst, c| long(Op::Mov, None, Some(R(dst)), &[Operand::C(c)]);
    let insts = [
        compare(0, 0, 1),
        compare(1, 0, 2),
        ctrl(Op::Joinat, Some(0x48)),
        pred(ctrl(Op::Bra, Some(0x38)), Cond::L, 0),
        vote(Op::VoteAll, 2, Some(Cond::L)),
        vote(Op::VoteAny, 3, Some(Cond::G)),
        ctrl(Op::Bra, Some(0x48)),
        vote(Op::VoteAll, 2, Some(Cond::L)),
        vote(Op::VoteAny, 3, Some(Cond::L)),
        join(),
        mov_c(3, 2),
        mov_c(4, 3),
        vote(Op::VoteAll, 2, Some(Cond::L)),
        vote(Op::VoteAny, 3, None),
        mov_c(5, 2),
        mov_c(6, 3),
        exit(),
    ];
    // 24 threads: the `else` path is partial too.
    let args: Vec<Vec<u32>> = (0..24)
        .map(|t| vec![t, 16, if t < 16 { 8 } else { 100 }])
        .collect();
    let r = call(&insts, &args, 7).unwrap();
    let (yes, no) = (S, Z);
    for (t, regs) in r.iter().enumerate() {
        let path = if t < 16 {
            // Some of 0..15 are below 8, not all.
            (no, yes)
        } else {
            // All of 16..23 are below 100, none above.
            (yes, no)
        };
        assert_eq!((regs[3], regs[4]), path, "thread {t}");
        // Reconverged: not all 24 are below their limit; with no predicate, any is true.
        assert_eq!((regs[5], regs[6]), (no, yes), "thread {t}");
    }
}
