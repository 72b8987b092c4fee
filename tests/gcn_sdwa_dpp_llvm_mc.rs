//! Checks the SDWA and DPP forms of the GCN MC layer against LLVM, for gfx8 (`gfx803`) and
//! gfx9 (`gfx900`).
//!
//! Candidate forms are generated for every operation of the table: each value of each
//! field (`dst_sel`, `dst_unused`, `src0_sel`/`src1_sel`, `sext`, abs/neg, clamp, omod, every
//! `dpp_ctrl`, `row_mask`, `bank_mask`, `bound_ctrl`, gfx9's scalar sources and compare
//! destinations) with every operation that has the form, then random combinations from a
//! fixed seed. The MC layer accepts some and refuses others. Every accepted form is
//! encoded, decoded back (it must round-trip) and printed; `llvm-mc-14 -disassemble` must
//! print our text for our bytes, and `llvm-mc-14` must assemble our text to our bytes.
//! Every refused form must be refused by llvm-mc too (its printed text), except the few
//! listed in [`refused_though_llvm_assembles`]. gfx6/gfx7 refuse SDWA and DPP altogether.
//!
//! Like `gcn_llvm_mc.rs`, this fails without `llvm-mc-14` unless `WAVELIFT_SKIP_LLVM_MC=1`.

mod common;

use wavelift::isa::gcn::mc::*;

fn v(n: u8) -> Operand {
    Operand::vgpr(n)
}
const VCC: Operand = Operand::VCC;

/// A small deterministic generator (xorshift64*), so that the random sample is the same
/// on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The VOP1/VOP2/VOPC operations of the table that exist on `generation` in their native
/// encoding: those that might have SDWA and DPP forms.
fn vop_ops(generation: Gen) -> Vec<Op> {
    Op::all()
        .filter(|op| {
            let info = op.info();
            info.form == Form::Valu
                && matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
                && info.opcode_in(info.enc, generation).is_some()
        })
        .collect()
}

/// `op` in `enc` (SDWA or DPP) with default modifiers: v1 = op v2, v3; VCC for the carry,
/// the mask and the compare result (wider operands get register ranges, for the
/// operations that have no such form).
fn base(op: Op, enc: Enc) -> McInst {
    let info = op.info();
    let mut m = McInst::new(op, enc);
    if info.dst != 0 {
        m.dst = Some(if info.flags & SDST_OUT != 0 {
            Operand::sgpr(4)
        } else {
            v(1)
        });
    }
    if info.sdst != 0 {
        m.sdst = Some(VCC);
    }
    m.src[0] = Some(v(2));
    if info.src[1] != 0 {
        m.src[1] = Some(if info.flags & LANE_SELECT != 0 {
            Operand::sgpr(3)
        } else {
            v(4)
        });
    }
    if info.src[2] != 0 {
        m.src[2] = Some(VCC);
    }
    match enc {
        Enc::Sdwa => m.sdwa = Some(Sdwa::default()),
        _ => m.dpp = Some(Dpp::new(DppCtrl::QuadPerm([0, 1, 2, 3]))),
    }
    m
}

/// gfx9's SDWA scalar sources: SGPRs at both ends, the named registers, integer and float
/// inline constants, `src_*`.
fn scalar_sources() -> Vec<Operand> {
    let mut out: Vec<Operand> = [
        0u16, 1, 57, 101, 102, 104, 106, 107, 108, 123, 124, 126, 127,
    ]
    .into_iter()
    .map(Operand)
    .collect();
    out.extend([0, 1, 64, -1, -16].map(|x| Operand::inline_int(x).unwrap()));
    out.extend((240..=248).map(Operand));
    out.extend([251, 252, 253].map(Operand));
    out
}

/// gfx9's SDWA compare destinations.
fn compare_destinations() -> Vec<Operand> {
    [0u16, 2, 100, 102, 104, 106, 108, 122, 126]
        .into_iter()
        .map(Operand)
        .collect()
}

fn set_sdwa(m: &mut McInst, f: impl FnOnce(&mut Sdwa)) {
    f(m.sdwa.as_mut().expect("an SDWA form"));
}

fn set_dpp(m: &mut McInst, f: impl FnOnce(&mut Dpp)) {
    f(m.dpp.as_mut().expect("a DPP form"));
}

/// Each field's every value once with `op` in SDWA (one field changed from [`base`] at a
/// time, plus registers across the file).
fn systematic_sdwa(op: Op, generation: Gen) -> Vec<McInst> {
    let info = op.info();
    let b = base(op, Enc::Sdwa);
    let with = |f: &dyn Fn(&mut McInst)| {
        let mut m = b.clone();
        f(&mut m);
        m
    };
    let srcs = if info.src[1] != 0 { 2 } else { 1 };
    let mut out = vec![b.clone()];
    if info.enc != Enc::Vopc {
        for dst_sel in SdwaSel::ALL {
            for unused in DstUnused::ALL {
                out.push(with(&|m| {
                    set_sdwa(m, |s| (s.dst_sel, s.dst_unused) = (dst_sel, unused))
                }));
            }
        }
        out.push(with(&|m| m.dst = Some(v(255))));
    }
    for i in 0..srcs {
        for sel in SdwaSel::ALL {
            for sext in [false, true] {
                out.push(with(&|m| {
                    set_sdwa(m, |s| {
                        s.src_sel[i] = sel;
                        s.sext = (sext as u8) << i;
                    })
                }));
            }
        }
        for (abs, neg) in [(1, 0), (0, 1), (1, 1)] {
            out.push(with(&|m| (m.abs, m.neg) = (abs << i, neg << i)));
        }
        out.push(with(&|m| m.src[i] = Some(v(255))));
        out.push(with(&|m| m.src[i] = Some(v(0))));
        if generation >= Gen::Gfx9 {
            for o in scalar_sources() {
                out.push(with(&|m| m.src[i] = Some(o)));
            }
        }
    }
    out.push(with(&|m| m.clamp = true));
    for omod in 1..=3 {
        out.push(with(&|m| m.omod = omod));
    }
    if info.enc == Enc::Vopc && generation >= Gen::Gfx9 {
        for o in compare_destinations() {
            out.push(with(&|m| m.sdst = Some(o)));
        }
    }
    out
}

/// Every DPP control with `op` when `all_ctrls` (one operation of each class), one of
/// each kind otherwise; every row and bank mask, `bound_ctrl`, abs/neg.
fn systematic_dpp(op: Op, all_ctrls: bool) -> Vec<McInst> {
    let info = op.info();
    let b = base(op, Enc::Dpp);
    let with = |f: &dyn Fn(&mut McInst)| {
        let mut m = b.clone();
        f(&mut m);
        m
    };
    let ctrls: Vec<DppCtrl> = if all_ctrls {
        (0..0x200).filter_map(DppCtrl::from_code).collect()
    } else {
        vec![
            DppCtrl::QuadPerm([3, 2, 1, 0]),
            DppCtrl::RowShl(1),
            DppCtrl::RowShl(15),
            DppCtrl::RowShr(8),
            DppCtrl::RowRor(4),
            DppCtrl::WaveShl1,
            DppCtrl::WaveRol1,
            DppCtrl::WaveShr1,
            DppCtrl::WaveRor1,
            DppCtrl::RowMirror,
            DppCtrl::RowHalfMirror,
            DppCtrl::RowBcast15,
            DppCtrl::RowBcast31,
        ]
    };
    let mut out = vec![b.clone()];
    for ctrl in ctrls {
        out.push(with(&|m| set_dpp(m, |d| d.ctrl = ctrl)));
    }
    for mask in 0..16 {
        out.push(with(&|m| set_dpp(m, |d| d.row_mask = mask)));
        out.push(with(&|m| set_dpp(m, |d| d.bank_mask = mask)));
    }
    out.push(with(&|m| set_dpp(m, |d| d.bound_ctrl = true)));
    let srcs = if info.src[1] != 0 { 2 } else { 1 };
    for i in 0..srcs {
        for (abs, neg) in [(1, 0), (0, 1), (1, 1)] {
            out.push(with(&|m| (m.abs, m.neg) = (abs << i, neg << i)));
        }
        out.push(with(&|m| m.src[i] = Some(v(255))));
        // A scalar source: DPP reads VGPRs only.
        out.push(with(&|m| m.src[i] = Some(Operand::sgpr(2))));
    }
    out.push(with(&|m| m.dst = Some(v(0))));
    out.push(with(&|m| m.clamp = true));
    out
}

/// Random combinations: any operation of the table in SDWA or DPP, every field random
/// (modifiers an operand does not take included, for the refusal check).
fn random(generation: Gen, count: usize, seed: u64) -> Vec<McInst> {
    let mut rng = Rng(seed);
    let ops = vop_ops(generation);
    let scalars = scalar_sources();
    let mut out = Vec::new();
    for _ in 0..count {
        let op = rng.pick(&ops);
        let info = op.info();
        let sdwa = rng.below(2) == 0;
        let mut m = base(op, if sdwa { Enc::Sdwa } else { Enc::Dpp });
        if info.dst == 1 && info.flags & SDST_OUT == 0 {
            m.dst = Some(v(rng.below(256) as u8));
        }
        let srcs = if info.src[1] != 0 { 2 } else { 1 };
        for i in 0..srcs {
            if info.src[i] == 1 {
                m.src[i] = Some(match rng.below(8) {
                    0 if generation >= Gen::Gfx9 && sdwa => rng.pick(&scalars),
                    _ => v(rng.below(256) as u8),
                });
            }
        }
        // Modifiers of sources the operation does not have would not show in the text.
        let present = if srcs == 2 { 3 } else { 1 };
        m.abs = rng.below(4) as u8 & present & (rng.below(2) as u8 * 3);
        m.neg = rng.below(4) as u8 & present & (rng.below(2) as u8 * 3);
        if sdwa {
            let compare = info.enc == Enc::Vopc;
            m.clamp = rng.below(4) == 0;
            m.omod = if rng.below(4) == 0 {
                rng.below(4) as u8
            } else {
                0
            };
            if compare && generation >= Gen::Gfx9 {
                m.sdst = Some(rng.pick(&compare_destinations()));
            }
            let sel = SdwaSel::ALL;
            set_sdwa(&mut m, |s| {
                if !compare {
                    s.dst_sel = rng.pick(&sel);
                    s.dst_unused = rng.pick(&DstUnused::ALL);
                }
                s.src_sel[0] = rng.pick(&sel);
                if srcs == 2 {
                    s.src_sel[1] = rng.pick(&sel);
                }
                s.sext = rng.below(4) as u8 & present;
            });
        } else {
            let ctrl = loop {
                if let Some(c) = DppCtrl::from_code(rng.below(0x144) as u32) {
                    break c;
                }
            };
            set_dpp(&mut m, |d| {
                d.ctrl = ctrl;
                d.row_mask = rng.below(16) as u8;
                d.bank_mask = rng.below(16) as u8;
                d.bound_ctrl = rng.below(2) == 0;
            });
        }
        out.push(m);
    }
    out
}

/// Every candidate form for `generation`: systematic per operation, then random.
fn candidates(generation: Gen) -> Vec<McInst> {
    let ops = vop_ops(generation);
    let mut out = Vec::new();
    // One operation of each DPP class gets every `dpp_ctrl`: VOP1, VOP2 float, VOP2 with a
    // carry, VOP2 with a mask.
    let all_ctrls = [Op::VMovB32, Op::VAddF32, Op::VAddU32, Op::VCndmaskB32];
    for &op in &ops {
        out.extend(systematic_sdwa(op, generation));
        out.extend(systematic_dpp(op, all_ctrls.contains(&op)));
    }
    out.extend(random(generation, 4000, 0x5eed_0000 + generation as u64));
    out
}

/// Forms the MC layer refuses although llvm-mc-14 assembles their text, and why.
fn refused_though_llvm_assembles(inst: &McInst) -> Option<&'static str> {
    // Its sources are integers: llvm-mc's disassembler refuses these bits ("invalid
    // instruction encoding") although its assembler sets them.
    (inst.sdwa.is_some() && inst.op == Op::VCndmaskB32 && (inst.abs | inst.neg) != 0)
        .then_some("abs/neg on v_cndmask_b32")
}

struct Outcome {
    accepted: usize,
    /// Refused by us, assembled by llvm-mc, for a reason of [`refused_though_llvm_assembles`].
    excepted: usize,
    failures: Vec<String>,
}

/// Runs the checks of the file header on `cases` for `generation` (llvm-mc `cpu`).
fn check(generation: Gen, cpu: &str, cases: &[McInst]) -> Outcome {
    let mut failures = Vec::new();
    let mut accepted: Vec<(&McInst, Vec<u8>, String)> = Vec::new();
    let mut refused: Vec<(&McInst, String, String)> = Vec::new();
    for inst in cases {
        let mut bytes = Vec::new();
        let text = print(inst, generation);
        match legal(inst, generation).and_then(|()| encode(inst, generation, &mut bytes)) {
            Ok(()) => {
                match decode(&bytes, generation) {
                    Ok((back, len)) if back == *inst && len == bytes.len() => {}
                    other => failures.push(format!(
                        "`{text}` [{}]: decodes to {other:?}",
                        common::hex(&bytes)
                    )),
                }
                accepted.push((inst, bytes, text));
            }
            Err(e) => refused.push((inst, text, e)),
        }
    }
    let rows: Vec<Vec<u8>> = accepted.iter().map(|(_, b, _)| b.clone()).collect();
    let texts: Vec<String> = accepted.iter().map(|(_, _, t)| t.clone()).collect();
    let refused_texts: Vec<String> = refused.iter().map(|(_, t, _)| t.clone()).collect();
    let (Some(disassembled), Some(assembled), Some(refused_assembled)) = (
        common::llvm_disassemble(cpu, &rows),
        common::llvm_assemble(cpu, &texts),
        common::llvm_assemble(cpu, &refused_texts),
    ) else {
        return Outcome {
            accepted: accepted.len(),
            excepted: 0,
            failures,
        };
    };
    for (((_, bytes, ours), theirs), encoding) in accepted.iter().zip(disassembled).zip(assembled) {
        let bytes = common::hex(bytes);
        if theirs.as_deref() != Some(ours.as_str()) {
            failures.push(format!(
                "[{bytes}]: ours `{ours}`, llvm-mc-14 -mcpu={cpu} -disassemble `{}`",
                theirs.as_deref().unwrap_or("<did not decode>")
            ));
        }
        if encoding.as_deref() != Some(bytes.as_str()) {
            failures.push(format!(
                "`{ours}`: ours [{bytes}], llvm-mc-14 -mcpu={cpu} [{}]",
                encoding.as_deref().unwrap_or("<rejected>")
            ));
        }
    }
    let mut excepted = 0;
    for ((inst, text, why), theirs) in refused.iter().zip(refused_assembled) {
        let Some(encoding) = theirs else { continue };
        if refused_though_llvm_assembles(inst).is_some() {
            excepted += 1;
        } else {
            failures.push(format!(
                "`{text}`: we refuse it ({why}), llvm-mc-14 -mcpu={cpu} assembles [{encoding}]"
            ));
        }
    }
    Outcome {
        accepted: accepted.len(),
        excepted,
        failures,
    }
}

fn check_generation(generation: Gen, cpu: &str) {
    let cases = candidates(generation);
    let outcome = check(generation, cpu, &cases);
    eprintln!(
        "{cpu}: {} SDWA/DPP forms verified; {} candidates refused, by llvm-mc too except {}",
        outcome.accepted,
        cases.len() - outcome.accepted,
        outcome.excepted
    );
    let failures = outcome.failures;
    assert!(
        failures.is_empty(),
        "{} mismatches (first 50):\n{}",
        failures.len(),
        failures[..failures.len().min(50)].join("\n")
    );
    // Every operation with a form must have been verified in it, with every modifier.
    for op in vop_ops(generation) {
        let info = op.info();
        for (enc, has) in [
            (Enc::Sdwa, info.sdwa_on(generation)),
            (Enc::Dpp, info.dpp_on(generation)),
        ] {
            let mut m = base(op, enc);
            assert_eq!(
                encode(&m.clone(), generation, &mut Vec::new()).is_ok(),
                has,
                "{op:?} {enc:?}"
            );
            if has {
                m.select_encoding(generation).unwrap();
                assert_eq!(m.enc, enc);
            }
        }
    }
}

#[test]
fn sdwa_and_dpp_gfx8() {
    check_generation(Gen::Gfx8, "gfx803");
}

#[test]
fn sdwa_and_dpp_gfx9() {
    check_generation(Gen::Gfx9, "gfx900");
}

/// gfx6 and gfx7 have neither: encoding and encoding selection refuse them with the reason,
/// the decoder refuses their bytes, and llvm-mc refuses their text.
#[test]
fn gfx6_and_gfx7_refuse_sdwa_and_dpp() {
    let forms: Vec<McInst> = [Op::VMovB32, Op::VAddF32, Op::VAddU32, Op::VCmpEqU32]
        .into_iter()
        .flat_map(|op| [base(op, Enc::Sdwa), base(op, Enc::Dpp)])
        .filter(|m| encode(m, Gen::Gfx8, &mut Vec::new()).is_ok())
        .collect();
    assert_eq!(forms.len(), 7, "VOPC has SDWA only");
    for (generation, cpu) in [(Gen::Gfx6, "tahiti"), (Gen::Gfx7, "bonaire")] {
        for m in &forms {
            let kind = if m.enc == Enc::Sdwa { "SDWA" } else { "DPP" };
            let err = encode(m, generation, &mut Vec::new()).unwrap_err();
            assert!(
                err.contains(&format!("{kind} needs gfx8 or later")),
                "{generation:?}: {err}"
            );
            let mut chosen = m.clone();
            chosen.enc = m.op.info().enc;
            let err = chosen.select_encoding(generation).unwrap_err();
            assert!(err.contains("needs gfx8 or later"), "{err}");
            let mut bytes = Vec::new();
            encode(m, Gen::Gfx8, &mut bytes).unwrap();
            let err = decode(&bytes, generation).unwrap_err().to_string();
            assert!(err.contains("needs gfx8 or later"), "{err}");
        }
        let texts: Vec<String> = forms.iter().map(|m| print(m, Gen::Gfx8)).collect();
        if let Some(theirs) = common::llvm_assemble(cpu, &texts) {
            for (text, encoding) in texts.iter().zip(theirs) {
                assert_eq!(encoding, None, "llvm-mc-14 -mcpu={cpu} assembles `{text}`");
            }
        }
    }
}

/// The decoder takes only what the encoder produces: reserved field values, bits no field
/// uses and modifiers an operand does not take are errors, not instructions.
#[test]
fn non_canonical_bytes_are_errors() {
    let bytes = |w0: u32, w1: u32| [w0.to_le_bytes(), w1.to_le_bytes()].concat();
    // v_add_f32_sdwa v1, v2, v3 (gfx8 and gfx9) and v_mov_b32_dpp v1, v2 row_shl:1.
    let add = 0x0206_06f9;
    let add_w1 = 0x0606_1602;
    let mov = 0x7e02_02fa;
    let mov_w1 = 0xff00_0102;
    for g in [Gen::Gfx8, Gen::Gfx9] {
        assert!(decode(&bytes(add, add_w1), g).is_ok());
        assert!(decode(&bytes(mov, mov_w1), g).is_ok());
        for (w1, what) in [
            (add_w1 | 7 << 16, "src0_sel 7"),
            (add_w1 | 7 << 8, "dst_sel 7"),
            (add_w1 | 3 << 11, "dst_unused 3"),
            (add_w1 | 1 << 22, "bit 22"),
            (add_w1 | 1 << 30, "bit 30"),
            (add_w1 | 1 << 19, "sext on a float source"),
        ] {
            assert!(decode(&bytes(add, w1), g).is_err(), "{g:?}: {what}");
        }
        for (w1, what) in [
            (mov_w1 & !0x1ff00 | 0x100 << 8, "dpp_ctrl 0x100"),
            (mov_w1 & !0x1ff00 | 0x131 << 8, "dpp_ctrl 0x131"),
            (mov_w1 & !0x1ff00 | 0x144 << 8, "dpp_ctrl 0x144"),
            (mov_w1 | 1 << 18, "bit 18"),
            (mov_w1 | 1 << 20, "neg on an integer source"),
            (mov_w1 | 1 << 22, "neg on a missing source"),
        ] {
            assert!(decode(&bytes(mov, w1), g).is_err(), "{g:?}: {what}");
        }
        // VOP1 has no src1 select; gfx8 has no S bits or omod.
        assert!(decode(&bytes(0x7e02_02f9, 0x0600_1602), g).is_err());
    }
    assert!(decode(&bytes(add, add_w1 | 1 << 23), Gen::Gfx8).is_err());
    assert!(decode(&bytes(add, add_w1 | 1 << 14), Gen::Gfx8).is_err());
    // gfx9's VOPC result: VCC is SD = 0, never SD = 1 with SDST = 106.
    let cmp = 0x7c84_04f9;
    assert!(decode(&bytes(cmp, 0x0606_8201), Gen::Gfx9).is_ok());
    assert!(decode(&bytes(cmp, 0x0606_ea01), Gen::Gfx9).is_err());
    assert!(decode(&bytes(cmp, 0x0606_0501), Gen::Gfx9).is_err());
    // gfx8's VOPC leaves DST_SEL/DST_UNUSED zero.
    assert!(decode(&bytes(cmp, 0x0606_0001), Gen::Gfx8).is_ok());
    assert!(decode(&bytes(cmp, 0x0606_1601), Gen::Gfx8).is_err());
    // A DPP VOPC does not exist.
    assert!(decode(&bytes(0x7c84_04fa, mov_w1), Gen::Gfx8).is_err());
}
