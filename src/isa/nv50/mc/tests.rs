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
        let (inst, n) = decode_one(words, variant).unwrap();
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
