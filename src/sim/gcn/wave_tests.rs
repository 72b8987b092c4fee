//! Scalar ALU, program control and operand semantics, with values from the opcode tables
//! of the ISA manuals (GCN3 ISA ch. 12 "SOP2/SOPK/SOP1/SOPC/SOPP Instructions").

use super::*;
use crate::isa::gcn::mc::{Enc, McInst, encode};

const ALL: [Gen; 4] = [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9];

fn s(n: u8) -> Operand {
    Operand::sgpr(n)
}

fn int(v: i64) -> Operand {
    Operand::inline_int(v).unwrap()
}

/// A scalar instruction `op dst, srcs…` (a literal source takes `literal`).
fn sop(op: Op, dst: Option<Operand>, srcs: &[Operand], literal: Option<u32>) -> McInst {
    let mut m = McInst::new(op, op.info().enc);
    m.dst = dst;
    for (slot, &o) in m.src.iter_mut().zip(srcs) {
        *slot = Some(o);
    }
    m.literal = literal;
    m
}

fn mov(dst: u8, value: u32) -> McInst {
    match Operand::inline_int(value as i32 as i64) {
        Some(c) => sop(Op::SMovB32, Some(s(dst)), &[c], None),
        None => sop(Op::SMovB32, Some(s(dst)), &[Operand::LITERAL], Some(value)),
    }
}

fn sopk(op: Op, reg: u8, imm: i32) -> McInst {
    let mut m = McInst::new(op, Enc::Sopk);
    if op.info().form == Form::SopkSrc {
        m.src[0] = Some(s(reg));
    } else {
        m.dst = Some(s(reg));
    }
    m.imm = imm;
    m
}

fn sopp(op: Op, imm: i32) -> McInst {
    let mut m = McInst::new(op, Enc::Sopp);
    m.imm = imm;
    m
}

/// Runs `insts` then `s_endpgm` in one wave with all lanes active.
fn run(generation: Gen, insts: &[McInst]) -> Result<Wave, SimError> {
    let mut code = Vec::new();
    for i in insts.iter().chain([&McInst::new(Op::SEndpgm, Enc::Sopp)]) {
        encode(i, generation, &mut code).unwrap();
    }
    run_code(generation, &code)
}

/// Runs machine code in one wave with all lanes active.
fn run_code(generation: Gen, code: &[u8]) -> Result<Wave, SimError> {
    let mut program = Program::new(code, generation);
    let mut wave = Wave::new();
    wave.set_exec(!0);
    let mut memory = Memory::new();
    let options = Options::default();
    let mut lds = super::lds::Lds::new(0, generation);
    let mut env = Env {
        memory: &mut memory,
        options: &options,
        return_address: None,
        lds: &mut lds,
        wave: 0,
    };
    wave.run(&mut program, &mut env)?;
    Ok(wave)
}

/// `op s2, a, b` after `s_mov`s of a and b (and SCC set to `scc_in` by a compare);
/// returns (s2, scc).
fn sop2(generation: Gen, op: Op, a: u32, b: u32, scc_in: bool) -> (u32, bool) {
    let seq = [
        mov(0, a),
        mov(1, b),
        sop(
            Op::SCmpEqU32,
            None,
            &[int(0), int(if scc_in { 0 } else { 1 })],
            None,
        ),
        sop(op, Some(s(2)), &[s(0), s(1)], None),
    ];
    let w = run(generation, &seq).unwrap();
    (w.sgpr[2], w.scc)
}

#[test]
fn add_sub_carry_and_overflow() {
    use Op::*;
    for g in ALL {
        assert_eq!(sop2(g, SAddU32, 0xffff_ffff, 1, false), (0, true), "carry");
        assert_eq!(sop2(g, SAddU32, 1, 2, true), (3, false));
        assert_eq!(sop2(g, SSubU32, 1, 2, false), (0xffff_ffff, true), "borrow");
        assert_eq!(sop2(g, SSubU32, 2, 2, true), (0, false));
        assert_eq!(
            sop2(g, SAddI32, 0x7fff_ffff, 1, false),
            (0x8000_0000, true),
            "overflow"
        );
        assert_eq!(
            sop2(g, SAddI32, 0xffff_ffff, 1, true),
            (0, false),
            "-1 + 1: no overflow"
        );
        assert_eq!(sop2(g, SSubI32, 0x8000_0000, 1, false), (0x7fff_ffff, true));
        assert_eq!(sop2(g, SSubI32, 0, 1, true), (0xffff_ffff, false));
        assert_eq!(
            sop2(g, SAddcU32, 0xffff_ffff, 0, true),
            (0, true),
            "carry in and out"
        );
        assert_eq!(sop2(g, SAddcU32, 5, 6, true), (12, false));
        assert_eq!(
            sop2(g, SSubbU32, 0, 0, true),
            (0xffff_ffff, true),
            "borrow in and out"
        );
        assert_eq!(sop2(g, SSubbU32, 7, 3, true), (3, false));
        assert_eq!(sop2(g, SSubbU32, 3, 3, false), (0, false));
        assert_eq!(
            sop2(g, SMulI32, 0xffff_ffff, 7, true),
            (0xffff_fff9, true),
            "SCC kept"
        );
    }
}

#[test]
fn min_max_scc_is_the_comparison() {
    use Op::*;
    let g = Gen::Gfx8;
    assert_eq!(sop2(g, SMinI32, 0xffff_ffff, 1, false), (0xffff_ffff, true));
    assert_eq!(sop2(g, SMinU32, 0xffff_ffff, 1, true), (1, false));
    assert_eq!(sop2(g, SMaxI32, 0xffff_ffff, 1, true), (1, false));
    assert_eq!(sop2(g, SMaxU32, 0xffff_ffff, 1, false), (0xffff_ffff, true));
    assert_eq!(sop2(g, SMaxI32, 4, 4, true), (4, false), "equal: S1, SCC 0");
}

#[test]
fn logic_and_shifts_set_scc_to_result_nonzero() {
    use Op::*;
    for g in ALL {
        assert_eq!(sop2(g, SAndB32, 0xf0, 0x0f, true), (0, false));
        assert_eq!(sop2(g, SOrB32, 0xf0, 0x0f, false), (0xff, true));
        assert_eq!(sop2(g, SXorB32, 5, 5, true), (0, false));
        assert_eq!(sop2(g, SAndn2B32, 0xff, 0x0f, false), (0xf0, true));
        assert_eq!(sop2(g, SOrn2B32, 0, 0xffff_fffe, false), (1, true));
        assert_eq!(
            sop2(g, SNandB32, 0xffff_ffff, 0xffff_ffff, true),
            (0, false)
        );
        assert_eq!(sop2(g, SNorB32, 0, 0, false), (0xffff_ffff, true));
        assert_eq!(sop2(g, SXnorB32, 1, 0, false), (0xffff_fffe, true));
        assert_eq!(
            sop2(g, SLshlB32, 1, 33, false),
            (2, true),
            "shift amount masked to 5 bits"
        );
        assert_eq!(sop2(g, SLshlB32, 0x8000_0000, 1, true), (0, false));
        assert_eq!(sop2(g, SLshrB32, 0x8000_0000, 63, false), (1, true));
        assert_eq!(
            sop2(g, SAshrI32, 0x8000_0000, 31, false),
            (0xffff_ffff, true)
        );
        assert_eq!(
            sop2(g, SBfeU32, 0x1234_5678, 8 | 8 << 16, false),
            (0x56, true)
        );
        assert_eq!(
            sop2(g, SBfeU32, 0x1234_5678, 8, true),
            (0, false),
            "width 0"
        );
        assert_eq!(
            sop2(g, SBfeI32, 0x8000, 12 | 4 << 16, false),
            (0xffff_fff8, true)
        );
        assert_eq!(sop2(g, SCselectB32, 1, 2, true), (1, true));
        assert_eq!(sop2(g, SCselectB32, 1, 2, false), (2, false));
    }
}

#[test]
fn sop1_results() {
    use Op::*;
    let one = |g: Gen, op: Op, a: u32| {
        let seq = [
            mov(0, a),
            sop(Op::SCmpEqU32, None, &[int(0), int(1)], None),
            sop(op, Some(s(2)), &[s(0)], None),
        ];
        let w = run(g, &seq).unwrap();
        (w.sgpr[2], w.scc)
    };
    for g in ALL {
        assert_eq!(one(g, SNotB32, 0xffff_ffff), (0, false));
        assert_eq!(one(g, SNotB32, 0), (0xffff_ffff, true));
        assert_eq!(one(g, SBrevB32, 1), (0x8000_0000, false), "no SCC");
        assert_eq!(one(g, SBcnt1I32B32, 0xf0f0), (8, true));
        assert_eq!(one(g, SBcnt1I32B32, 0), (0, false));
        assert_eq!(one(g, SFf1I32B32, 0x100), (8, false));
        assert_eq!(one(g, SFf1I32B32, 0), (0xffff_ffff, false));
        assert_eq!(one(g, SFlbitI32B32, 1), (31, false));
        assert_eq!(one(g, SFlbitI32B32, 0), (0xffff_ffff, false));
        assert_eq!(one(g, SFlbitI32, 0x4000_0000), (1, false));
        assert_eq!(one(g, SFlbitI32, 0xc000_0000), (2, false));
        assert_eq!(one(g, SFlbitI32, 0xffff_ffff), (0xffff_ffff, false));
        assert_eq!(one(g, SSextI32I8, 0x180), (0xffff_ff80, false));
        assert_eq!(one(g, SSextI32I16, 0x7fff), (0x7fff, false));
        assert_eq!(one(g, SAbsI32, 0xffff_fffb), (5, true));
        assert_eq!(one(g, SAbsI32, 0x8000_0000), (0x8000_0000, true));
        assert_eq!(one(g, SAbsI32, 0), (0, false));
    }
}

#[test]
fn sixty_four_bit_operations() {
    use Op::*;
    for g in ALL {
        let seq = [
            mov(0, 1),
            mov(1, 0),
            mov(20, 66),
            sop(SLshlB64, Some(s(2)), &[s(0), s(20)], None),
            sop(SLshlB64, Some(s(4)), &[s(0), int(63)], None),
            sop(SAshrI64, Some(s(6)), &[s(4), int(62)], None),
            sop(SLshrB64, Some(s(8)), &[s(4), int(63)], None),
            sop(SNotB64, Some(s(10)), &[s(0)], None),
            sop(SBcnt1I32B64, Some(s(12)), &[s(10)], None),
            sop(SFf1I32B64, Some(s(13)), &[s(4)], None),
            sop(SFlbitI32B64, Some(s(14)), &[s(0)], None),
            // A bit index of 32 in a 64-bit operand is a result, not "none".
            mov(22, 0),
            mov(23, 1),
            sop(SFf1I32B64, Some(s(24)), &[s(22)], None),
            sop(SFlbitI32B64, Some(s(25)), &[s(22)], None),
            mov(26, 0),
            mov(27, 0),
            sop(SFf1I32B64, Some(s(28)), &[s(26)], None),
            sop(SFlbitI32B64, Some(s(29)), &[s(26)], None),
            sop(
                SBfeI64,
                Some(s(16)),
                &[s(4), Operand::LITERAL],
                Some(60 | 4 << 16),
            ),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!((w.sgpr[2], w.sgpr[3]), (4, 0), "shift masked to 6 bits");
        assert_eq!((w.sgpr[4], w.sgpr[5]), (0, 0x8000_0000));
        assert_eq!((w.sgpr[6], w.sgpr[7]), (0xffff_fffe, 0xffff_ffff));
        assert_eq!((w.sgpr[8], w.sgpr[9]), (1, 0));
        assert_eq!((w.sgpr[10], w.sgpr[11]), (0xffff_fffe, 0xffff_ffff));
        assert_eq!(w.sgpr[12], 63);
        assert_eq!(w.sgpr[13], 63);
        assert_eq!(w.sgpr[14], 63);
        assert_eq!((w.sgpr[24], w.sgpr[25]), (32, 31), "bit 32 of s[22:23]");
        assert_eq!((w.sgpr[28], w.sgpr[29]), (!0, !0), "no bit: -1");
        assert_eq!((w.sgpr[16], w.sgpr[17]), (0xffff_fff8, 0xffff_ffff));
    }
}

#[test]
fn constants_for_64_bit_operands() {
    use Op::*;
    for g in ALL {
        let seq = [
            sop(SMovB64, Some(s(0)), &[int(-2)], None),
            sop(SMovB64, Some(s(2)), &[Operand(242)], None),
            sop(SMovB32, Some(s(4)), &[Operand(242)], None),
            sop(SMovB64, Some(s(6)), &[Operand::LITERAL], Some(0xffff_fff0)),
            sop(
                SAshrI64,
                Some(s(8)),
                &[Operand::LITERAL, int(4)],
                Some(0x8000_0000),
            ),
            sop(
                SAndB64,
                Some(s(10)),
                &[int(-1), Operand::LITERAL],
                Some(0x8000_0001),
            ),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!(
            (w.sgpr[0], w.sgpr[1]),
            (0xffff_fffe, 0xffff_ffff),
            "inline ints sign-extend"
        );
        assert_eq!((w.sgpr[2], w.sgpr[3]), (0, 0x3ff0_0000), "1.0 as f64");
        assert_eq!(w.sgpr[4], 0x3f80_0000, "1.0 as f32");
        assert_eq!(
            (w.sgpr[6], w.sgpr[7]),
            (0xffff_fff0, 0),
            "b64 literal zero-extends"
        );
        assert_eq!(
            (w.sgpr[8], w.sgpr[9]),
            (0xf800_0000, 0xffff_ffff),
            "i64 literal sign-extends"
        );
        assert_eq!((w.sgpr[10], w.sgpr[11]), (0x8000_0001, 0));
    }
    // 1/(2*pi) exists from gfx8 on.
    let seq = [sop(SMovB32, Some(s(0)), &[Operand(248)], None)];
    assert_eq!(run(Gen::Gfx8, &seq).unwrap().sgpr[0], 0x3e22_f983);
    assert!(run(Gen::Gfx7, &seq).is_err());
}

#[test]
fn compares() {
    use Op::*;
    let cmp = |g: Gen, op: Op, a: u32, b: u32| {
        let seq = [mov(0, a), mov(1, b), sop(op, None, &[s(0), s(1)], None)];
        run(g, &seq).unwrap().scc
    };
    for g in ALL {
        assert!(cmp(g, SCmpLtI32, 0xffff_ffff, 0));
        assert!(!cmp(g, SCmpLtU32, 0xffff_ffff, 0));
        assert!(cmp(g, SCmpGeU32, 3, 3));
        assert!(!cmp(g, SCmpGtI32, 3, 3));
        assert!(cmp(g, SCmpLeI32, 0x8000_0000, 0x7fff_ffff));
        assert!(cmp(g, SCmpLgU32, 1, 2));
        assert!(cmp(g, SBitcmp1B32, 0x10, 36), "bit index masked");
        assert!(cmp(g, SBitcmp0B32, 0x10, 3));
    }
    for g in [Gen::Gfx8, Gen::Gfx9] {
        let seq = [
            sop(SMovB64, Some(s(0)), &[int(-1)], None),
            mov(2, 0xffff_ffff),
            mov(3, 0xffff_ffff),
            sop(SCmpEqU64, None, &[s(0), s(2)], None),
        ];
        assert!(run(g, &seq).unwrap().scc);
    }
}

#[test]
fn sopk_immediates() {
    use Op::*;
    for g in ALL {
        let seq = [
            sopk(SMovkI32, 0, -0x8000),
            mov(1, 0x7fff_ffff),
            sopk(SAddkI32, 1, 1),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!(w.sgpr[0], 0xffff_8000, "sign-extended");
        assert_eq!((w.sgpr[1], w.scc), (0x8000_0000, true), "signed overflow");
        let seq = [
            mov(1, 3),
            sopk(SMulkI32, 1, -2),
            mov(2, 0xffff),
            sopk(SCmpkEqU32, 2, -1),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!(w.sgpr[1], 0xffff_fffa);
        assert!(w.scc, "s_cmpk_eq_u32 zero-extends simm16");
    }
}

#[test]
fn hardware_registers() {
    use Op::*;
    let hwreg = |id: i32, offset: i32, size: i32| id | offset << 6 | (size - 1) << 11;
    for g in ALL {
        let mut set = sop(SSetregImm32B32, None, &[Operand::LITERAL], Some(0x3));
        set.imm = hwreg(1, 0, 4);
        let mut get = McInst::new(SGetregB32, Enc::Sopk);
        get.dst = Some(s(0));
        get.imm = hwreg(1, 0, 32);
        let mut get_denorm = get.clone();
        (get_denorm.dst, get_denorm.imm) = (Some(s(1)), hwreg(1, 4, 4));
        let seq = [set, sopp(SNop, 1), get, get_denorm];
        let w = run(g, &seq).unwrap();
        assert_eq!(w.sgpr[0], MODE_DEFAULT & !0xf | 3);
        assert_eq!(w.sgpr[1], 0xf);
        assert_eq!(w.mode & 0xf, 3);
    }
}

#[test]
fn exec_and_pc() {
    use Op::*;
    for g in ALL {
        let seq = [
            mov(4, 0x0f),
            mov(5, 0),
            sop(SAndSaveexecB64, Some(s(6)), &[s(4)], None),
            sop(SGetpcB64, Some(s(8)), &[], None),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!(w.exec(), 0x0f);
        assert_eq!((w.sgpr[6], w.sgpr[7]), (!0, !0), "the old EXEC");
        assert!(w.scc);
        assert_eq!(
            (w.sgpr[8], w.sgpr[9]),
            (16, 0),
            "the address after s_getpc_b64"
        );
        let seq = [
            mov(4, 0),
            mov(5, 0),
            sop(SOrSaveexecB64, Some(s(6)), &[s(4)], None),
        ];
        assert!(run(g, &seq).unwrap().scc);
        let seq = [
            mov(4, 0),
            mov(5, 0),
            sop(SAndSaveexecB64, Some(s(6)), &[s(4)], None),
        ];
        assert!(!run(g, &seq).unwrap().scc);
    }
}

#[test]
fn branches() {
    use Op::*;
    for g in ALL {
        // s0 = 0; s1 = 5; do { s0 += 3; s1 -= 1 } while s1 != 0
        let seq = [
            mov(0, 0),
            mov(1, 5),
            sop(SAddU32, Some(s(0)), &[s(0), int(3)], None),
            sop(SSubU32, Some(s(1)), &[s(1), int(1)], None),
            sop(SCmpLgU32, None, &[s(1), int(0)], None),
            sopp(SCbranchScc1, -4),
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!((w.sgpr[0], w.sgpr[1]), (15, 0));
        assert_eq!(w.steps, 2 + 5 * 4 + 1);
        // Each conditional branch over an `s_mov_b32 s2, 1`.
        for (op, setup, taken) in [
            (
                SCbranchScc0,
                sop(SCmpEqU32, None, &[int(0), int(1)], None),
                true,
            ),
            (
                SCbranchScc1,
                sop(SCmpEqU32, None, &[int(0), int(1)], None),
                false,
            ),
            (
                SCbranchVccz,
                sop(SMovB64, Some(Operand::VCC), &[int(0)], None),
                true,
            ),
            (
                SCbranchVccnz,
                sop(SMovB64, Some(Operand::VCC), &[int(0)], None),
                false,
            ),
            (
                SCbranchExecz,
                sop(SMovB64, Some(Operand::EXEC), &[int(0)], None),
                true,
            ),
            (
                SCbranchExecnz,
                sop(SMovB64, Some(Operand::EXEC), &[int(0)], None),
                false,
            ),
            (SBranch, sopp(SNop, 0), true),
        ] {
            let seq = [mov(2, 0), setup, sopp(op, 1), mov(2, 1)];
            let w = run(g, &seq).unwrap();
            assert_eq!(w.sgpr[2] == 0, taken, "{op:?}");
        }
        // s_swappc_b64 to an address computed from s_getpc_b64, then s_setpc_b64 back.
        let seq = [
            sop(SGetpcB64, Some(s(0)), &[], None), // 0: s[0:1] = 4
            sop(SAddU32, Some(s(0)), &[s(0), int(16)], None), // 4: s0 = 20
            sop(SSwappcB64, Some(s(2)), &[s(0)], None), // 8: s[2:3] = 12, jump 20
            mov(4, 7),                             // 12 (after the return)
            sopp(SBranch, 1),                      // 16: over the callee
            sop(SSetpcB64, None, &[s(2)], None),   // 20: return
        ];
        let w = run(g, &seq).unwrap();
        assert_eq!((w.sgpr[2], w.sgpr[4]), (12, 7));
    }
}

#[test]
fn bad_programs_fail() {
    use Op::*;
    let g = Gen::Gfx8;
    let err = run(g, &[sopp(SBranch, -1)]).err().unwrap();
    assert_eq!(err.violation, Violation::StepLimit);
    let err = run(g, &[sopp(SBranch, 100)]).err().unwrap();
    assert!(matches!(err.violation, Violation::BadPc(_)), "{err}");
    let err = run(g, &[mov(0, 3), sop(SSetpcB64, None, &[s(0)], None)])
        .err()
        .unwrap();
    assert!(matches!(err.violation, Violation::BadPc(_)), "{err}");
    let err = run(g, &[sop(SMovB32, Some(Operand(125)), &[int(0)], None)])
        .err()
        .unwrap();
    assert!(matches!(err.violation, Violation::Other(_)), "{err}");
}

/// `s_nop`'s count is 3 bits on gfx6/gfx7 and 4 from gfx8 (`mc::nop_wait_states_max`):
/// `s_nop 8` would be `s_nop 0` on gfx6/gfx7 hardware, so the simulator refuses it there
/// rather than count 9 wait states.
#[test]
fn s_nop_count_is_3_bits_before_gfx8() {
    let endpgm = 0xbf81_0000u32.to_le_bytes();
    let code = |n: u32| [(0xbf80_0000 | n).to_le_bytes(), endpgm].concat();
    for g in ALL {
        run_code(g, &code(7)).unwrap();
        let r = run_code(g, &code(8));
        if g >= Gen::Gfx8 {
            r.unwrap();
            run_code(g, &code(15)).unwrap();
            assert!(run_code(g, &code(16)).is_err(), "{g:?}");
        } else {
            let err = r.err().unwrap();
            assert!(
                matches!(err.violation, Violation::Decode(_)),
                "{g:?}: {err}"
            );
        }
    }
}

/// SDWA through the wave core: gfx9 reads an SGPR and an inline constant through the
/// selects, `dst_unused:UNUSED_PRESERVE` keeps the destination's other bits in every lane,
/// and gfx6–gfx8 have no such forms (SDWA, then scalar SDWA sources, are refused).
#[test]
fn sdwa_in_the_wave() {
    use crate::isa::gcn::mc::{DstUnused, Sdwa, SdwaSel};
    let v = Operand::vgpr;
    let sdwa = |generation, src: Operand, sel: Sdwa| {
        let mut m = McInst::valu(Op::VMovB32, generation, Some(v(1)), None, &[src]).unwrap();
        m.sdwa = Some(sel);
        m.select_encoding(generation).map(|()| m)
    };
    let byte0_to_byte2 = Sdwa {
        dst_sel: SdwaSel::Byte2,
        dst_unused: DstUnused::Preserve,
        src_sel: [SdwaSel::Byte0, SdwaSel::Dword],
        sext: 0,
    };
    let mut old = McInst::valu(
        Op::VMovB32,
        Gen::Gfx9,
        Some(v(1)),
        None,
        &[Operand::LITERAL],
    )
    .unwrap();
    old.literal = Some(0x1122_3344);
    let insts = [
        old,
        mov(0, 0xaabb_ccdd),
        sdwa(Gen::Gfx9, s(0), byte0_to_byte2).unwrap(),
    ];
    let w = run(Gen::Gfx9, &insts).unwrap();
    assert!(w.vgpr[1].iter().all(|&x| x == 0x11dd_3344));
    // -1's word 1, zero-extended.
    let word1 = Sdwa {
        src_sel: [SdwaSel::Word1, SdwaSel::Dword],
        ..Sdwa::default()
    };
    let w = run(Gen::Gfx9, &[sdwa(Gen::Gfx9, int(-1), word1).unwrap()]).unwrap();
    assert!(w.vgpr[1].iter().all(|&x| x == 0xffff));
    assert!(sdwa(Gen::Gfx8, s(0), word1).is_err());
    for g in [Gen::Gfx6, Gen::Gfx7] {
        let err = sdwa(g, v(2), word1).unwrap_err();
        assert!(err.contains("SDWA needs gfx8 or later"), "{err}");
    }
}

/// `v_add_u32_dpp v1, vcc, v1, v1 row_bcast:15 row_mask:0xa` (LLVM's wave reduction on
/// gfx8): rows 0 and 2 do not write, and no manual says what their carry-out bits are. VCC
/// is undefined until written again: reading it is an error, writing it first is not.
#[test]
fn dpp_carry_out_of_lanes_that_do_not_write_is_undefined_until_written() {
    use crate::isa::gcn::mc::{Dpp, DppCtrl};
    let mut add = McInst::new(Op::VAddU32, Enc::Dpp);
    add.dst = Some(Operand::vgpr(1));
    add.sdst = Some(Operand::VCC);
    add.src = [Some(Operand::vgpr(1)), Some(Operand::vgpr(1)), None];
    add.dpp = Some(Dpp {
        ctrl: DppCtrl::RowBcast15,
        row_mask: 0xa,
        bank_mask: 0xf,
        bound_ctrl: false,
    });
    let read_vcc = sop(Op::SMovB64, Some(s(0)), &[Operand::VCC], None);
    let Err(err) = run(Gen::Gfx8, &[add.clone(), read_vcc.clone()]) else {
        panic!("reading the undefined VCC ran");
    };
    assert!(
        matches!(&err.violation, Violation::Undefined { register, written_at: 0, written }
            if register == "vcc" && written.starts_with("v_add_u32_dpp")),
        "{err}"
    );
    assert_eq!(err.pc, 8);
    let define = sop(Op::SMovB64, Some(Operand::VCC), &[int(0)], None);
    if let Err(e) = run(Gen::Gfx8, &[add.clone(), define, read_vcc]) {
        panic!("VCC written again: {e}");
    }
    // Writing half of VCC leaves the other half undefined.
    let define_lo = sop(Op::SMovB32, Some(Operand(106)), &[int(0)], None);
    let read_hi = sop(Op::SMovB32, Some(s(0)), &[Operand(107)], None);
    let Err(err) = run(Gen::Gfx8, &[add, define_lo, read_hi]) else {
        panic!("reading the undefined vcc_hi ran");
    };
    assert!(
        matches!(&err.violation, Violation::Undefined { register, .. } if register == "vcc_hi"),
        "{err}"
    );
}

/// The attribute values of the interpolation test at vertex `vertex` (0–2) of primitive
/// `prim`, attribute `attr`, channel `chan`: small integers, so that every interpolated
/// value below is exact.
fn vertex_value(prim: u32, attr: u8, chan: u8, vertex: u32) -> f32 {
    (prim * 7 + attr as u32 * 5 + chan as u32 * 3) as f32 + [0.0, 8.0, -4.0][vertex as usize]
}

/// A pixel-shader wave on its own: three primitives packed in the wave (quads 1 and 5
/// start new ones), the parameters in LDS from byte 16, lane 5 inactive. It interpolates
/// attribute 1's z with barycentrics (I, J) in v0, v1, moves attribute 0's w at vertex 0
/// (flat), and exports both to mrt0 with `done vm`. The reference is computed from the
/// vertex values (`vertex_value`), not from the parameters: A0 + I·(A1 − A0) + J·(A2 − A0),
/// each lane's primitive counted quad by quad.
#[test]
fn interpolation_and_export() {
    let mask: u32 = 1 << 0 | 1 << 4; // quads 1 and 5 start primitives 1 and 2
    let (m0, base) = (mask << 16 | 16, 16u32);
    let prims = 3u32;
    for generation in ALL {
        let mut program: Vec<McInst> = vec![sop(Op::SMovB32, Some(Operand::M0), &[s(0)], None)];
        if generation == Gen::Gfx9 {
            program.push(sopp(Op::SNop, 0));
        }
        let interp = |op, dst: u8, src: Option<u8>, attr, chan, param| {
            let mut m = McInst::new(op, Enc::Vintrp);
            m.dst = Some(Operand::vgpr(dst));
            m.src[0] = src.map(Operand::vgpr);
            m.interp = Some(mc::Interp { attr, chan, param });
            m
        };
        program.push(interp(Op::VInterpP1F32, 2, Some(0), 1, 2, None));
        program.push(interp(Op::VInterpP2F32, 2, Some(1), 1, 2, None));
        let flat = Some(mc::InterpParam::P0);
        program.push(interp(Op::VInterpMovF32, 3, None, 0, 3, flat));
        let mut exp = McInst::new(Op::Exp, Enc::Exp);
        exp.export = Some(mc::Export {
            target: mc::ExpTarget::Mrt(0),
            src: [Some(Operand::vgpr(2)), Some(Operand::vgpr(3)), None, None],
            compr: false,
            done: true,
            vm: true,
        });
        program.push(exp);
        program.push(McInst::new(Op::SEndpgm, Enc::Sopp));
        let mut code = Vec::new();
        for inst in &program {
            encode(inst, generation, &mut code).unwrap();
        }
        let mut lds = super::lds::Lds::new(1024, generation);
        for prim in 0..prims {
            for attr in 0..2u8 {
                for chan in 0..4u8 {
                    let a = |v| vertex_value(prim, attr, chan, v);
                    for (param, value) in [
                        (mc::InterpParam::P0, a(0)),
                        (mc::InterpParam::P10, a(1) - a(0)),
                        (mc::InterpParam::P20, a(2) - a(0)),
                    ] {
                        let address = interp::param_address(m0, attr, chan, prim, param);
                        lds.fill(address, &value.to_bits().to_le_bytes());
                    }
                }
            }
        }
        assert_eq!(
            interp::param_address(m0, 0, 0, 0, mc::InterpParam::P0),
            base
        );
        let mut wave = Wave::new();
        let exec = !(1u64 << 5);
        wave.set_exec(exec);
        wave.sgpr[0] = m0;
        for lane in 0..64 {
            wave.vgpr[0][lane] = ((lane % 8) as f32 / 8.0).to_bits();
            wave.vgpr[1][lane] = ((lane / 8) as f32 / 8.0).to_bits();
            wave.vgpr[2][lane] = 0xdead;
        }
        let mut memory = Memory::new();
        let options = Options::default();
        let mut env = Env {
            memory: &mut memory,
            options: &options,
            return_address: None,
            lds: &mut lds,
            wave: 0,
        };
        wave.run(&mut Program::new(&code, generation), &mut env)
            .unwrap_or_else(|e| panic!("{generation:?}: {e:?}"));
        let [exported] = wave.exports.as_slice() else {
            panic!("{generation:?}: one export, got {:?}", wave.exports);
        };
        assert_eq!(exported.target, mc::ExpTarget::Mrt(0));
        assert!(exported.done && exported.vm && !exported.compr);
        assert_eq!(exported.exec, exec);
        assert!(exported.channels[2].is_none() && exported.channels[3].is_none());
        let (z, w) = (exported.channels[0].unwrap(), exported.channels[1].unwrap());
        for lane in (0..64).filter(|&l| exec >> l & 1 != 0) {
            // Primitive boundaries counted quad by quad.
            let prim = (1..=lane / 4).filter(|&q| mask >> (q - 1) & 1 != 0).count() as u32;
            let (i, j) = ((lane % 8) as f64 / 8.0, (lane / 8) as f64 / 8.0);
            let a = |v| vertex_value(prim, 1, 2, v) as f64;
            let want = a(0) + i * (a(1) - a(0)) + j * (a(2) - a(0));
            assert_eq!(
                f32::from_bits(z[lane]) as f64,
                want,
                "{generation:?} lane {lane}"
            );
            assert_eq!(f32::from_bits(w[lane]), vertex_value(prim, 0, 3, 0));
        }
        assert_eq!(wave.vgpr[2][5], 0xdead, "the inactive lane keeps its value");
    }
}

/// gfx9 needs a wait state between an SALU write of M0 and VINTRP; an export's VGPRs may
/// not be overwritten before `s_waitcnt expcnt(0)`.
#[test]
fn interpolation_hazard_and_export_wait() {
    let interp = {
        let mut m = McInst::new(Op::VInterpMovF32, Enc::Vintrp);
        m.dst = Some(Operand::vgpr(1));
        m.interp = Some(mc::Interp {
            attr: 0,
            chan: 0,
            param: Some(mc::InterpParam::P10),
        });
        m
    };
    let set_m0 = sop(Op::SMovB32, Some(Operand::M0), &[int(0)], None);
    for generation in ALL {
        let hazard = run(generation, &[set_m0.clone(), interp.clone()]).err();
        match generation {
            Gen::Gfx9 => assert!(
                matches!(hazard, Some(SimError { ref violation, .. }) if matches!(violation, Violation::Hazard { .. })),
                "{hazard:?}"
            ),
            // Reading LDS byte 4 of a zero-sized allocation: past the hazard check.
            _ => assert!(
                matches!(hazard, Some(SimError { ref violation, .. }) if matches!(violation, Violation::Memory { .. })),
                "{generation:?}: {hazard:?}"
            ),
        }
    }
    let mut exp = McInst::new(Op::Exp, Enc::Exp);
    exp.export = Some(mc::Export {
        target: mc::ExpTarget::Param(3),
        src: [Some(Operand::vgpr(4)), None, None, None],
        compr: false,
        done: false,
        vm: false,
    });
    let mut overwrite = McInst::new(Op::VMovB32, Enc::Vop1);
    overwrite.dst = Some(Operand::vgpr(4));
    overwrite.src[0] = Some(int(1));
    let wait = sopp(
        Op::SWaitcnt,
        mc::waitcnt_imm(Gen::Gfx8, None, Some(0), None) as i32,
    );
    for generation in [Gen::Gfx8, Gen::Gfx9] {
        let early = run(generation, &[exp.clone(), overwrite.clone()]).err();
        assert!(
            matches!(early, Some(SimError { ref violation, .. }) if matches!(violation, Violation::Waitcnt { .. })),
            "{early:?}"
        );
        let wave = run(generation, &[exp.clone(), wait.clone(), overwrite.clone()]).unwrap();
        assert_eq!(wave.exports.len(), 1);
        assert_eq!(wave.exports[0].target, mc::ExpTarget::Param(3));
    }
}
