use super::encode::select;
use super::table::rows;
use super::*;

/// Every row has a sample that encodes through it, so `samples()` (and with it the envydis
/// table) covers every form.
#[test]
fn every_row_is_sampled() {
    let samples = samples();
    for (i, row) in rows().iter().enumerate() {
        let hit = samples
            .iter()
            .any(|s| select(s, None).is_ok_and(|(r, _)| std::ptr::eq(r, row)));
        assert!(hit, "row {i} ({:?} {:?}) has no sample", row.op, row.form);
    }
}

/// Words nouveau's emitter (Mesa `nv50_ir_emit_nv50.cpp`) produces, checked against
/// envydis by hand: the decoder reads them and the encoder gives them back.
#[test]
fn nouveau_encodings() {
    for (words, variant, text) in [
        // `exit` and `join` are a `nop` with the flag, and no predicate (never).
        (
            &[0xf000_0001u32, 0xe000_0001][..],
            Variant::G80,
            "exit (never) nop",
        ),
        (
            &[0xf000_0001, 0xe000_0002],
            Variant::G80,
            "join (never) nop",
        ),
        // `bar sync 0`.
        (
            &[0x8600_0003, 0x0000_4000],
            Variant::G80,
            "bar inc wait 0x0 all",
        ),
        // `cvt rn f32 s32` (nouveau's F32 from S32: word 1 0x44014000).
        (
            &[0xa000_000d, 0x4401_4780],
            Variant::G80,
            "cvt rn f32 $r3 s32 $r0",
        ),
        // Load from `c1[]`, b32 into a full register.
        (
            &[0x1000_a001, 0x2440_c780],
            Variant::G80,
            "ld $r0 b32 c1[0x140]",
        ),
    ] {
        let (inst, n) = decode_one(words, variant, Program::Compute).unwrap();
        assert_eq!(n, words.len());
        assert_eq!(print(&inst), text);
        assert_eq!(encode(&inst, variant).unwrap(), words);
    }
}

#[test]
fn built_instructions() {
    let mut add = McInst::with(
        Op::Add,
        Form::Long,
        Some(Ty::B32),
        Some(Operand::R(1)),
        &[
            Operand::R(2),
            Operand::Const {
                space: 0,
                areg: 0,
                offset: 8,
            },
        ],
    );
    add.cdst = Some(0);
    add.pred = Some(Pred {
        cond: Cond::Lg,
        reg: 1,
    });
    assert_eq!(print(&add), "(lg $c1) add b32 $c0 $r1 $r2 c0[0x8]");
    // A short form has no predicate, and f64 needs GT200.
    add.form = Form::Short;
    assert!(encode(&add, Variant::G80).is_err());
    let dadd = McInst {
        round: Some(Round::Rn),
        ..McInst::with(
            Op::Add,
            Form::Long,
            Some(Ty::F64),
            Some(Operand::D(0)),
            &[Operand::D(2), Operand::D(4)],
        )
    };
    assert!(encode(&dadd, Variant::G84).is_err());
    assert_eq!(print(&dadd), "add rn f64 $r0d $r2d $r4d");
    assert!(encode(&dadd, Variant::G200).is_ok());
    // Misaligned pairs and out-of-range offsets are errors.
    let odd = McInst {
        round: Some(Round::Rn),
        ..McInst::with(
            Op::Add,
            Form::Long,
            Some(Ty::F64),
            Some(Operand::D(1)),
            &[Operand::D(2), Operand::D(4)],
        )
    };
    assert!(encode(&odd, Variant::G200).is_err());
    let far = McInst::with(
        Op::Mov,
        Form::Short,
        Some(Ty::B32),
        Some(Operand::R(1)),
        &[Operand::Shared {
            ty: Ty::B32,
            areg: 0,
            offset: 0x40,
        }],
    );
    assert!(encode(&far, Variant::G80).is_err());
}

/// Atomics and reductions need G84, their 64-bit forms, `ld lock`, `st unlock` and `vote`
/// GT200: the encoder refuses them before, and the decoder does not read their words.
#[test]
fn atomics_locks_and_vote_are_gated_by_variant() {
    let g = Operand::Global { space: 15, addr: 2 };
    let shared = Operand::Shared {
        ty: Ty::B32,
        areg: 0,
        offset: 8,
    };
    let add32 = McInst::with(
        Op::Atomic(AtomOp::Add),
        Form::Long,
        Some(Ty::U32),
        Some(Operand::R(1)),
        &[g, Operand::R(3)],
    );
    let cas64 = McInst::with(
        Op::Atomic(AtomOp::Cas),
        Form::Long,
        Some(Ty::B64),
        Some(Operand::D(4)),
        &[g, Operand::D(6), Operand::D(8)],
    );
    let red = McInst::with(
        Op::Red(AtomOp::Max),
        Form::Long,
        Some(Ty::S32),
        Some(g),
        &[Operand::R(1)],
    );
    let mut lock = McInst::with(Op::Ld, Form::Long, None, Some(Operand::R(1)), &[shared]);
    lock.mods = Mods::LOCK;
    lock.cdst = Some(2);
    let mut unlock = McInst::with(Op::St, Form::Long, None, Some(shared), &[Operand::R(1)]);
    unlock.mods = Mods::UNLOCK;
    let mut vote = McInst::new(Op::VoteAll, Form::Long);
    vote.cdst = Some(1);
    vote.pred = Some(Pred {
        cond: Cond::Lg,
        reg: 0,
    });
    for (inst, first, text) in [
        (&add32, Variant::G84, "ld add u32 $r1 g15[$r2] $r3"),
        (&red, Variant::G84, "red max s32 g15[$r2] $r1"),
        (&cas64, Variant::G200, "cas b64 $r4d g15[$r2] $r6d $r8d"),
        (&lock, Variant::G200, "ld lock $c2 $r1 b32 s[0x8]"),
        (&unlock, Variant::G200, "st unlock b32 s[0x8] $r1"),
        (&vote, Variant::G200, "(lg $c0) vote all $c1"),
    ] {
        assert_eq!(print(inst), text);
        let words = encode(inst, first).unwrap();
        assert_eq!(
            &decode_one(&words, first, Program::Compute).unwrap().0,
            inst
        );
        for v in Variant::ALL.into_iter().filter(|&v| v < first) {
            assert!(encode(inst, v).is_err(), "{text} on {v:?}");
            assert!(
                decode_one(&words, v, Program::Compute).is_err(),
                "{text} on {v:?}"
            );
        }
    }
    // `red` has no `exch`/`cas`; `inc` is unsigned only; only `add` has a 64-bit reduction.
    let mut bad = red.clone();
    bad.op = Op::Red(AtomOp::Exch);
    assert!(encode(&bad, Variant::G200).is_err());
    bad.op = Op::Red(AtomOp::Inc);
    assert!(encode(&bad, Variant::G200).is_err());
    bad.op = Op::Red(AtomOp::Min);
    bad.ty = Some(Ty::U64);
    bad.src[0] = Some(Operand::D(2));
    assert!(encode(&bad, Variant::G200).is_err());
    // The lock's `$c` output is not optional.
    lock.cdst = None;
    assert!(encode(&lock, Variant::G200).is_err());
}
