//! The encoder: [`McInst`] to little-endian dwords. Field layouts follow the "Microcode
//! Formats" chapters: GCN3 ISA manual (gfx8) ch. 12 (12.1 SOP2, 12.2 SOPK, 12.3 SOP1,
//! 12.4 SOPC, 12.5 SOPP, 12.6 SMEM, 12.7 VOP2/VOP1/VOPC/VOP3a/VOP3b, 12.12 FLAT); gfx6/gfx7
//! differences from the Southern/Sea Islands manuals (SMRD, VOP3 opcode at bit 17 and clamp
//! at bit 11; MUBUF, SI manual 12.5); gfx9 from the Vega manual (FLAT offset in bits 12:0,
//! GLOBAL as FLAT with SEG = 2); SDWA and DPP from the GCN3 and Vega manuals' "VOP_SDWA",
//! "VOP_SDWAB" (gfx9) and "VOP_DPP" formats; DS from SI 12.8 and GCN3 12.10.

use super::table::{Enc, FOUT, Form, KIMM, LANE_SELECT, OpInfo, SDST_OUT};
use super::{DstUnused, Gen, McInst, MubufAddr, Op, Operand, Sdwa, SdwaSel};

/// Appends the encoding of `inst` for `generation` to `out`: one or two dwords, then the
/// literal dword if a source is [`Operand::LITERAL`].
pub fn encode(inst: &McInst, generation: Gen, out: &mut Vec<u8>) -> Result<(), String> {
    let info = inst.op.info();
    let name = info.mnemonic(generation);
    if matches!(inst.enc, Enc::Sdwa | Enc::Dpp) {
        // Before the opcode lookup, so that gfx6/gfx7 get the reason, not a missing opcode.
        check_extension(inst, info, generation).map_err(|e| format!("{name}: {e}"))?;
    }
    let opcode = info
        .opcode_in(inst.enc, generation)
        .ok_or_else(|| format!("{name} has no {:?} encoding on {generation:?}", inst.enc))?;
    check_shape(inst, info).map_err(|e| format!("{name}: {e}"))?;
    let words =
        encode_words(inst, info, opcode as u32, generation).map_err(|e| format!("{name}: {e}"))?;
    for w in words.iter().flatten() {
        out.extend_from_slice(&w.to_le_bytes());
    }
    if inst.src.iter().flatten().any(|s| s.is_literal()) {
        if !literal_allowed(inst, info) {
            return Err(format!(
                "{name}: a literal is not allowed in {:?}",
                inst.enc
            ));
        }
        let lit = inst
            .literal
            .ok_or_else(|| format!("{name}: LITERAL source without a literal value"))?;
        out.extend_from_slice(&lit.to_le_bytes());
    } else if inst.literal.is_some() {
        return Err(format!("{name}: a literal value but no LITERAL source"));
    }
    Ok(())
}

/// Whether `inst`'s encoding can carry a literal dword, and in which sources. Scalar ALU
/// formats take one in any source; VOP1/VOP2/VOPC only in src0, except that K of
/// `v_madmk_f32`/`v_madak_f32` ([`KIMM`]) is the literal, in its own source; VOP3, SMEM
/// and FLAT never on gfx6–gfx9.
pub(crate) fn literal_allowed(inst: &McInst, info: &OpInfo) -> bool {
    match inst.enc {
        Enc::Sop1 | Enc::Sop2 | Enc::Sopc => true,
        Enc::Sopk => info.form == Form::SopkSetregImm32,
        Enc::Vop2 if info.flags & KIMM != 0 => {
            let k = kimm_source(inst.op);
            (0..3).all(|i| inst.src[i].is_some_and(|s| s.is_literal()) == (i == k))
        }
        Enc::Vop1 | Enc::Vop2 | Enc::Vopc => {
            inst.src[1..].iter().flatten().all(|s| !s.is_literal())
        }
        _ => false,
    }
}

/// The source that holds K in a [`KIMM`] operation: src1 of `v_madmk_f32` (written between
/// S0 and S1, as the assembler writes it), src2 of `v_madak_f32`.
pub(crate) fn kimm_source(op: Op) -> usize {
    if op == Op::VMadmkF32 { 1 } else { 2 }
}

/// The operands present must be exactly those of the signature.
fn check_shape(inst: &McInst, info: &OpInfo) -> Result<(), String> {
    let check = |what: &str, present: bool, width: u8| {
        if present != (width != 0) {
            let want = if width != 0 {
                "required"
            } else {
                "not allowed"
            };
            return Err(format!("{what} is {want}"));
        }
        Ok(())
    };
    // An atomic's destination, its old value, is there only in the returning form (glc).
    let atomic = matches!(info.form, Form::FlatAtomic | Form::MubufAtomic);
    let dst_width = if atomic && !inst.glc { 0 } else { info.dst };
    check("dst", inst.dst.is_some(), dst_width)?;
    check("sdst", inst.sdst.is_some(), info.sdst)?;
    for (i, (src, width)) in inst.src.iter().zip(inst.src_widths()).enumerate() {
        check(&format!("src{i}"), src.is_some(), width)?;
    }
    match inst.enc {
        // `encode` has checked the modifiers of these forms with `check_extension`.
        Enc::Sdwa | Enc::Dpp => {}
        _ if inst.sdwa.is_some() || inst.dpp.is_some() => {
            return Err("SDWA selects and DPP controls need the SDWA and DPP encodings".into());
        }
        _ => {
            let is_vop3 = inst.enc == Enc::Vop3;
            if (inst.abs | inst.neg) & !info.float_srcs() != 0
                || (!is_vop3 && (inst.abs | inst.neg) != 0)
            {
                return Err("abs/neg only apply to float sources in VOP3".into());
            }
            if inst.omod > 3 || (inst.omod != 0 && (!is_vop3 || info.flags & FOUT == 0)) {
                return Err("omod only applies to float results in VOP3".into());
            }
            if inst.clamp && !is_vop3 {
                return Err("clamp needs VOP3".into());
            }
        }
    }
    if inst.interp.is_some() != (inst.enc == Enc::Vintrp) {
        return Err("an attribute operand exactly on VINTRP".into());
    }
    if let Some(interp) = inst.interp
        && interp.param.is_some() != (info.form == Form::VintrpMov)
    {
        return Err("a parameter (p0, p10, p20) exactly on v_interp_mov_f32".into());
    }
    if inst.export.is_some() != (inst.enc == Enc::Exp) {
        return Err("export operands exactly on EXP".into());
    }
    let vmem = matches!(inst.enc, Enc::Flat | Enc::Global | Enc::Mubuf);
    if (inst.glc && !vmem && inst.enc != Enc::Smem) || (inst.slc && !vmem) {
        return Err("glc/slc only apply to memory instructions".into());
    }
    if info.form == Form::MubufAtomic && inst.dst.is_some_and(|d| Some(d) != inst.src[1]) {
        return Err("a MUBUF atomic returns its old value in its data registers".into());
    }
    Ok(())
}

/// An 8-bit scalar source field (SALU formats cannot address VGPRs).
fn ssrc(op: Option<Operand>) -> Result<u32, String> {
    match op {
        None => Ok(0),
        Some(o) if o.0 < 256 => Ok(o.0 as u32),
        Some(o) => Err(format!("scalar operand expected, got {o:?}")),
    }
}

/// A 7-bit scalar destination field (SGPRs, VCC, M0, EXEC, trap registers).
fn sdst(op: Option<Operand>) -> Result<u32, String> {
    match op {
        None => Ok(0),
        Some(o) if o.0 < 128 => Ok(o.0 as u32),
        Some(o) => Err(format!("scalar destination expected, got {o:?}")),
    }
}

/// The SRC0 values that announce an SDWA or DPP dword (GCN3 ISA 12.7, "SRC0": 249, 250).
const SDWA_MARKER: u32 = 0xf9;
const DPP_MARKER: u32 = 0xfa;

/// A 9-bit vector-ALU source field. The SDWA and DPP markers are not operands.
fn src9(op: Option<Operand>) -> Result<u32, String> {
    match op {
        None => Ok(0),
        Some(o) if o.0 as u32 == SDWA_MARKER || o.0 as u32 == DPP_MARKER => {
            Err(format!("operand {} is the SDWA or DPP marker", o.0))
        }
        Some(o) if o.0 < 512 => Ok(o.0 as u32),
        Some(o) => Err(format!("bad operand {o:?}")),
    }
}

/// Whether gfx9's SDWA can read `o` from its 8-bit source field with the S bit set: an
/// SGPR, VCC, a trap temporary, M0, EXEC, an inline constant or `src_vccz`/`src_execz`/
/// `src_scc` (never a literal).
fn sdwa_scalar(o: Operand) -> bool {
    (o.0 <= 127 && o.0 != 125) || o.is_inline_constant() || (251..=253).contains(&o.0)
}

/// The 8-bit source field of an SDWA source and its S bit (gfx9: 1 = not a VGPR).
fn sdwa_src(op: Option<Operand>) -> (u32, u32) {
    match op {
        None => (0, 0),
        Some(o) if o.is_vgpr() => (o.reg_index() as u32, 0),
        Some(o) => (o.0 as u32, 1),
    }
}

/// The rules of the SDWA and DPP forms beyond their signature, as llvm-mc-14 applies them
/// (`tests/gcn_sdwa_dpp_llvm_mc.rs` checks that it accepts every form these allow):
/// - gfx8/gfx9 only, for the operations [`OpInfo::sdwa_on`]/[`OpInfo::dpp_on`] name;
/// - sources are VGPRs, except that gfx9's SDWA also reads SGPRs and inline constants;
///   carries and masks are VCC, and so is a compare's result except in gfx9's SDWA (any
///   SGPR pair);
/// - abs/neg on float sources only; SDWA's `sext` on integer sources only;
/// - SDWA: clamp except in gfx9's VOPC (its bits hold SDST); omod on gfx9 float results
///   only; VOPC has no `dst_sel`/`dst_unused` and VOP1 no `src1_sel`; `v_mac_f32` writes
///   whole dwords only (its accumulator is the destination);
/// - DPP: no clamp or omod; `dpp_ctrl` a defined pattern, masks of 4 bits.
pub(super) fn check_extension(inst: &McInst, info: &OpInfo, generation: Gen) -> Result<(), String> {
    let sdwa = inst.enc == Enc::Sdwa;
    let kind = if sdwa { "SDWA" } else { "DPP" };
    if generation < Gen::Gfx8 {
        return Err(format!(
            "{kind} needs gfx8 or later (GCN 1.2); {generation:?} has none"
        ));
    }
    let available = if sdwa {
        info.sdwa_on(generation)
    } else {
        info.dpp_on(generation)
    };
    if !available {
        return Err(format!("no {kind} form on {generation:?}"));
    }
    let scalar_sources = sdwa && generation >= Gen::Gfx9;
    for (i, src) in inst.src[..2].iter().enumerate() {
        if let Some(o) = *src
            && !o.is_vgpr()
            && !(scalar_sources && sdwa_scalar(o))
        {
            let allowed = if scalar_sources {
                "a VGPR, an SGPR or an inline constant"
            } else {
                "a VGPR"
            };
            return Err(format!("{kind} src{i} must be {allowed}, got {o:?}"));
        }
    }
    require_vcc(inst.src[2], "src2")?;
    let compare = info.enc == Enc::Vopc;
    if compare && scalar_sources {
        // VOP_SDWAB: any SGPR pair (SD = 1), or VCC (SD = 0).
        if let Some(o) = inst.sdst
            && (o.0 >= 128 || o.0 % 2 != 0 || o == Operand::M0)
        {
            return Err(format!(
                "the compare result must be an SGPR pair, got {o:?}"
            ));
        }
    } else {
        require_vcc(inst.sdst, "the compare result or carry-out")?;
    }
    if (inst.abs | inst.neg) & !info.float_srcs() != 0 {
        return Err("abs/neg only apply to float sources".into());
    }
    match (inst.enc, inst.sdwa, inst.dpp) {
        (Enc::Sdwa, Some(sel), None) => check_sdwa(inst, info, sel, generation),
        (Enc::Dpp, None, Some(dpp)) => {
            if inst.clamp || inst.omod != 0 {
                return Err("DPP has no clamp or omod".into());
            }
            if dpp.ctrl.code().is_none() {
                return Err(format!("dpp_ctrl {:?} is out of range", dpp.ctrl));
            }
            if dpp.row_mask > 0xf || dpp.bank_mask > 0xf {
                return Err("row_mask and bank_mask have 4 bits".into());
            }
            Ok(())
        }
        _ => Err(format!(
            "the {kind} encoding needs its own modifiers (and not the other's)"
        )),
    }
}

/// The SDWA part of [`check_extension`].
fn check_sdwa(inst: &McInst, info: &OpInfo, sel: Sdwa, generation: Gen) -> Result<(), String> {
    let compare = info.enc == Enc::Vopc;
    let present = if info.src[1] != 0 { 0b11 } else { 0b01 };
    if sel.sext & !(present & !info.float_srcs()) != 0 {
        return Err("sext only applies to integer sources".into());
    }
    if info.src[1] == 0 && sel.src_sel[1] != SdwaSel::Dword {
        return Err("src1_sel without src1".into());
    }
    if compare && (sel.dst_sel != SdwaSel::Dword || sel.dst_unused != DstUnused::Preserve) {
        return Err("a compare has no dst_sel or dst_unused".into());
    }
    if inst.op == Op::VMacF32 && sel.dst_sel != SdwaSel::Dword {
        return Err("v_mac_f32 writes whole dwords only (dst_sel:DWORD)".into());
    }
    if inst.clamp && compare && generation >= Gen::Gfx9 {
        return Err("gfx9's compares have no clamp in SDWA".into());
    }
    if inst.omod > 3
        || (inst.omod != 0 && (generation < Gen::Gfx9 || info.flags & FOUT == 0 || compare))
    {
        return Err("omod only applies to float results in gfx9's SDWA".into());
    }
    Ok(())
}

/// Whether GLOBAL's SADDR field can name `o`: an even SGPR or VCC (the 64-bit scalar
/// registers the backend allocates).
pub(crate) fn is_saddr(o: Operand) -> bool {
    (o.0 <= 100 && o.0.is_multiple_of(2)) || o == Operand::VCC
}

/// An 8-bit VGPR field (VDST, VSRC1, FLAT ADDR/DATA/VDST).
fn vgpr(op: Option<Operand>) -> Result<u32, String> {
    match op {
        None => Ok(0),
        Some(o) if o.is_vgpr() => Ok(o.reg_index() as u32),
        Some(o) => Err(format!("VGPR expected, got {o:?}")),
    }
}

/// The 16-bit immediate of SOPK/SOPP: signed for branches and `s_*k_i32`, unsigned for
/// wait counts, `s_nop` and hardware-register descriptors. Only the canonical range is
/// accepted so that decoding gives back the same value.
fn simm16(inst: &McInst, info: &OpInfo) -> Result<u32, String> {
    let signed = matches!(info.form, Form::SoppBranch | Form::SopkDst | Form::SopkSrc);
    let ok = if signed {
        i16::try_from(inst.imm).is_ok()
    } else {
        u16::try_from(inst.imm).is_ok()
    };
    if !ok {
        return Err(format!("immediate {} out of range", inst.imm));
    }
    Ok(inst.imm as u32 & 0xffff)
}

/// VCC, the only operand the VOP2/VOPC encodings can name for an implicit carry or mask.
fn require_vcc(op: Option<Operand>, what: &str) -> Result<(), String> {
    match op {
        None | Some(Operand::VCC) => Ok(()),
        Some(o) => Err(format!(
            "{what} must be VCC in the 32-bit encoding, got {o:?}"
        )),
    }
}

/// The VDST field of a VALU instruction: a VGPR, or an SGPR for `v_readlane_b32`-like ops.
fn vdst(inst: &McInst, info: &OpInfo) -> Result<u32, String> {
    if info.flags & SDST_OUT != 0 {
        sdst(inst.dst)
    } else {
        vgpr(inst.dst)
    }
}

/// The 32-bit word of `info`'s native VOP1, VOP2 or VOPC encoding (GCN3 ISA 12.7.1–12.7.3)
/// with `src0` in SRC0 and `vsrc1` in VSRC1; SDWA and DPP put their marker in SRC0.
///   VOP2: 0 | OP[30:25] | VDST[24:17] | VSRC1[16:9] | SRC0[8:0]
///   VOP1: 0111111 | VDST[24:17] | OP[16:9] | SRC0[8:0]
///   VOPC: 0111110 | OP[24:17] | VSRC1[16:9] | SRC0[8:0] (the result goes to VCC or, in
///   gfx9's SDWA, to SDST)
fn vop32(inst: &McInst, info: &OpInfo, op: u32, src0: u32, vsrc1: u32) -> Result<u32, String> {
    // The VOP2 form of a VOP3-native operation on gfx6/gfx7 (`VOP2_GFX67`) is VOP2 too.
    let enc = if inst.enc == Enc::Vop2 {
        Enc::Vop2
    } else {
        info.enc
    };
    match enc {
        Enc::Vop2 => {
            if info.flags & KIMM == 0 {
                require_vcc(inst.src[2], "src2")?;
            }
            Ok(op << 25 | vdst(inst, info)? << 17 | vsrc1 << 9 | src0)
        }
        Enc::Vop1 => Ok(0x3f << 25 | vdst(inst, info)? << 17 | op << 9 | src0),
        Enc::Vopc => Ok(0x3e << 25 | op << 17 | vsrc1 << 9 | src0),
        enc => Err(format!("{enc:?} is not a 32-bit VALU encoding")),
    }
}

fn encode_words(
    inst: &McInst,
    info: &OpInfo,
    op: u32,
    generation: Gen,
) -> Result<[Option<u32>; 2], String> {
    let gfx8plus = generation >= Gen::Gfx8;
    let [s0, s1, s2] = inst.src;
    let one = |w: u32| Ok([Some(w), None]);
    match inst.enc {
        // 12.1 SOP2: 10 | OP[29:23] | SDST[22:16] | SSRC1[15:8] | SSRC0[7:0]
        Enc::Sop2 => {
            one(0b10 << 30 | op << 23 | sdst(inst.dst)? << 16 | ssrc(s1)? << 8 | ssrc(s0)?)
        }
        // 12.2 SOPK: 1011 | OP[27:23] | SDST[22:16] | SIMM16[15:0]
        Enc::Sopk => {
            let field = match info.form {
                Form::SopkSrc | Form::SopkSetreg => sdst(s0)?,
                Form::SopkSetregImm32 => 0,
                _ => sdst(inst.dst)?,
            };
            one(0b1011 << 28 | op << 23 | field << 16 | simm16(inst, info)?)
        }
        // 12.3 SOP1: 1011_1110_1 | SDST[22:16] | OP[15:8] | SSRC0[7:0]
        Enc::Sop1 => one(0x17d << 23 | sdst(inst.dst)? << 16 | op << 8 | ssrc(s0)?),
        // 12.4 SOPC: 1011_1111_0 | OP[22:16] | SSRC1[15:8] | SSRC0[7:0]
        Enc::Sopc => one(0x17e << 23 | op << 16 | ssrc(s1)? << 8 | ssrc(s0)?),
        // 12.5 SOPP: 1011_1111_1 | OP[22:16] | SIMM16[15:0]
        Enc::Sopp => {
            if inst.op == Op::SNop && inst.imm as u32 >= super::nop_wait_states_max(generation) {
                return Err(format!(
                    "s_nop {} out of range on {generation:?} (at most s_nop {})",
                    inst.imm,
                    super::nop_wait_states_max(generation) - 1
                ));
            }
            one(0x17f << 23 | op << 16 | simm16(inst, info)?)
        }
        Enc::Smem => {
            let sbase = match s0 {
                None => 0,
                Some(o) if o.is_sgpr() && o.0 % 2 == 0 => o.0 as u32 >> 1,
                Some(o) => Err(format!("sbase must be an even SGPR, got {o:?}"))?,
            };
            let data = sdst(inst.dst)?;
            let load = info.form == Form::SmemLoad;
            // An SGPR offset (IMM = 0): the OFFSET field names the SGPR holding a byte
            // offset (SI manual 12.3, GCN3 12.6).
            let soffset = match s1 {
                None => None,
                Some(o) if o.is_sgpr() || o == Operand::M0 => {
                    if inst.imm != 0 || inst.glc {
                        return Err("an SGPR offset takes no immediate offset or glc".into());
                    }
                    Some(o.0 as u32)
                }
                Some(o) => Err(format!("the offset register must be an SGPR, got {o:?}"))?,
            };
            if gfx8plus {
                // 12.6 SMEM: 110000 | OP[25:18] | IMM[17] | GLC[16] | SDATA[12:6] | SBASE[5:0];
                // OFFSET[19:0] (gfx9: [20:0]) in the second dword.
                let max = if generation == Gen::Gfx9 {
                    0x1f_ffff
                } else {
                    0xf_ffff
                };
                if !(0..=max).contains(&inst.imm) {
                    return Err(format!("offset {:#x} out of range", inst.imm));
                }
                let imm = load && soffset.is_none();
                let w0 = 0b110000 << 26
                    | op << 18
                    | (imm as u32) << 17
                    | (inst.glc as u32) << 16
                    | data << 6
                    | sbase;
                Ok([Some(w0), Some(soffset.unwrap_or(inst.imm as u32))])
            } else {
                // SI/CI SMRD: 11000 | OP[26:22] | SDST[21:15] | SBASE[14:9] | IMM[8] | OFFSET[7:0]
                // (the offset counts dwords). Sea Islands adds a 32-bit literal offset:
                // IMM = 0 with OFFSET = 255, the literal in the next dword (CI ISA 12.3).
                let w0 = 0b11000 << 27 | op << 22 | data << 15 | sbase << 9;
                match inst.imm {
                    _ if inst.glc => Err("SMRD takes no glc".into()),
                    _ if let Some(reg) = soffset => one(w0 | reg),
                    0..=0xff => one(w0 | 1 << 8 | inst.imm as u32),
                    0x100.. if generation == Gen::Gfx7 => {
                        Ok([Some(w0 | 0xff), Some(inst.imm as u32)])
                    }
                    _ => Err(format!("dword offset {:#x} out of range", inst.imm)),
                }
            }
        }
        // VSRC1 holds the scalar lane number of v_readlane/v_writelane (gfx6/gfx7).
        // K follows as the literal dword; VSRC1 is the VGPR source that is not K.
        Enc::Vop2 if info.flags & KIMM != 0 => {
            let vsrc1 = inst.src[3 - kimm_source(inst.op)];
            if s0.is_some_and(|s| s.is_literal()) {
                return Err("src0 cannot be a literal besides K".into());
            }
            one(vop32(inst, info, op, src9(s0)?, vgpr(vsrc1)?)?)
        }
        Enc::Vop2 | Enc::Vop1 | Enc::Vopc => {
            require_vcc(inst.sdst, "the compare result or carry-out")?;
            let vsrc1 = match info.flags & LANE_SELECT {
                0 => vgpr(s1)?,
                _ => ssrc(s1)?,
            };
            one(vop32(inst, info, op, src9(s0)?, vsrc1)?)
        }
        // VOP_SDWA: SRC0[7:0] | DST_SEL[10:8] | DST_UNUSED[12:11] | CLAMP[13] | OMOD[15:14]
        // (gfx9) | SRC0_SEL[18:16] | SRC0_SEXT[19] | SRC0_NEG[20] | SRC0_ABS[21] | S0[23]
        // (gfx9) | SRC1_SEL[26:24] | SRC1_SEXT[27] | SRC1_NEG[28] | SRC1_ABS[29] | S1[31]
        // (gfx9). gfx9's VOPC (VOP_SDWAB) has SDST[14:8] | SD[15] in place of DST_SEL..OMOD;
        // gfx8's VOPC leaves DST_SEL and DST_UNUSED zero; VOP1 leaves bits 31:24 zero.
        Enc::Sdwa => {
            let Some(sel) = inst.sdwa else {
                return Err("SDWA without its selects".into());
            };
            let (src0, s0_scalar) = sdwa_src(s0);
            let (vsrc1, s1_scalar) = sdwa_src(s1);
            let w0 = vop32(inst, info, op, SDWA_MARKER, vsrc1)?;
            let dst_bits = match info.enc {
                Enc::Vopc if generation >= Gen::Gfx9 => match inst.sdst {
                    None | Some(Operand::VCC) => 0,
                    Some(o) => 1 << 7 | o.0 as u32,
                },
                Enc::Vopc => (inst.clamp as u32) << 5,
                _ => {
                    sel.dst_sel.code()
                        | sel.dst_unused.code() << 3
                        | (inst.clamp as u32) << 5
                        | (inst.omod as u32) << 6
                }
            };
            let src_bits = |i: usize, scalar: u32| {
                sel.src_sel[i].code()
                    | (sel.sext as u32 >> i & 1) << 3
                    | (inst.neg as u32 >> i & 1) << 4
                    | (inst.abs as u32 >> i & 1) << 5
                    | scalar << 7
            };
            let src1_bits = if info.src[1] != 0 {
                src_bits(1, s1_scalar)
            } else {
                0
            };
            let w1 = src0 | dst_bits << 8 | src_bits(0, s0_scalar) << 16 | src1_bits << 24;
            Ok([Some(w0), Some(w1)])
        }
        // VOP_DPP: SRC0[7:0] | DPP_CTRL[16:8] | BOUND_CTRL[19] | SRC0_NEG[20] | SRC0_ABS[21]
        // | SRC1_NEG[22] | SRC1_ABS[23] | BANK_MASK[27:24] | ROW_MASK[31:28].
        Enc::Dpp => {
            let Some(dpp) = inst.dpp else {
                return Err("DPP without its controls".into());
            };
            let ctrl = dpp
                .ctrl
                .code()
                .ok_or_else(|| format!("dpp_ctrl {:?} out of range", dpp.ctrl))?;
            let w0 = vop32(inst, info, op, DPP_MARKER, vgpr(s1)?)?;
            let w1 = vgpr(s0)?
                | ctrl << 8
                | (dpp.bound_ctrl as u32) << 19
                | (inst.neg as u32 & 1) << 20
                | (inst.abs as u32 & 1) << 21
                | (inst.neg as u32 >> 1 & 1) << 22
                | (inst.abs as u32 >> 1 & 1) << 23
                | (dpp.bank_mask as u32) << 24
                | (dpp.row_mask as u32) << 28;
            Ok([Some(w0), Some(w1)])
        }
        // 12.7.4 VOP3a: 110100 | OP[25:16] | CLAMP[15] | ABS[10:8] | VDST[7:0]
        //        VOP3b: 110100 | OP[25:16] | CLAMP[15] | SDST[14:8] | VDST[7:0]
        //        second dword: NEG[31:29] | OMOD[28:27] | SRC2[26:18] | SRC1[17:9] | SRC0[8:0]
        // gfx6/gfx7: OP[25:17], VOP3a CLAMP[11], VOP3b without clamp.
        Enc::Vop3 => {
            let vop3b = info.dst != 0 && info.sdst != 0;
            let (low, mid) = if info.dst == 0 {
                // A VOPC compare: its SGPR-pair result sits in VDST.
                (sdst(inst.sdst)?, inst.abs as u32)
            } else if vop3b {
                (vdst(inst, info)?, sdst(inst.sdst)?)
            } else {
                (vdst(inst, info)?, inst.abs as u32)
            };
            let w0 = if gfx8plus {
                0b110100 << 26 | op << 16 | (inst.clamp as u32) << 15 | mid << 8 | low
            } else {
                if vop3b && inst.clamp {
                    return Err("VOP3b has no clamp on gfx6/gfx7".into());
                }
                0b110100 << 26 | op << 17 | (inst.clamp as u32) << 11 | mid << 8 | low
            };
            let w1 = (inst.neg as u32) << 29
                | (inst.omod as u32) << 27
                | src9(s2)? << 18
                | src9(s1)? << 9
                | src9(s0)?;
            Ok([Some(w0), Some(w1)])
        }
        // 12.12 FLAT: 110111 | OP[24:18] | SLC[17] | GLC[16] | (gfx9: OFFSET[12:0]);
        // second dword: VDST[31:24] | TFE[23] | DATA[15:8] | ADDR[7:0]
        Enc::Flat => {
            let max = if generation == Gen::Gfx9 { 0xfff } else { 0 };
            if !(0..=max).contains(&inst.imm) {
                return Err(format!(
                    "offset {} not encodable on {generation:?}",
                    inst.imm
                ));
            }
            let (addr, data) = (vgpr(s0)?, vgpr(s1)?);
            let w0 = 0b110111 << 26
                | op << 18
                | (inst.slc as u32) << 17
                | (inst.glc as u32) << 16
                | inst.imm as u32;
            Ok([Some(w0), Some(vgpr(inst.dst)? << 24 | data << 8 | addr)])
        }
        // Vega 12.12 FLAT with SEG = 2 (global): OFFSET[12:0] signed; SADDR[22:16] of the
        // second dword is an SGPR pair (the address is it plus the 32-bit VADDR, zero-
        // extended) or 0x7f ("off": the address is the 64-bit VADDR alone).
        Enc::Global => {
            if !(-4096..=4095).contains(&inst.imm) {
                return Err(format!(
                    "offset {} out of the signed 13-bit range",
                    inst.imm
                ));
            }
            let saddr = match inst.saddr() {
                None => 0x7f,
                Some(o) if is_saddr(o) => o.0 as u32,
                Some(o) => Err(format!("saddr must be an SGPR pair or VCC, got {o:?}"))?,
            };
            let data = if info.form == Form::FlatLoad {
                0
            } else {
                vgpr(s1)?
            };
            let addr = vgpr(s0)?;
            let w0 = 0b110111 << 26
                | op << 18
                | (inst.slc as u32) << 17
                | (inst.glc as u32) << 16
                | 2 << 14
                | (inst.imm as u32 & 0x1fff);
            Ok([
                Some(w0),
                Some(vgpr(inst.dst)? << 24 | saddr << 16 | data << 8 | addr),
            ])
        }
        // SI 12.8 DS: 110110 | OP[25:18] | GDS[17] | OFFSET1[15:8] | OFFSET0[7:0]; GCN3
        // 12.10 (and Vega): 110110 | OP[24:17] | GDS[16] | OFFSET1 | OFFSET0; second dword:
        // VDST[31:24] | DATA1[23:16] | DATA0[15:8] | ADDR[7:0]. Never GDS; `imm` is the
        // 16-bit field whole (one byte offset, or read2/write2's two element offsets).
        // Fields an operation does not have are 0, as llvm-mc encodes them.
        Enc::Ds => {
            let offset = u16::try_from(inst.imm)
                .map_err(|_| format!("offset {} out of the unsigned 16-bit range", inst.imm))?;
            let op_shift = if gfx8plus { 17 } else { 18 };
            let w0 = 0b110110 << 26 | op << op_shift | offset as u32;
            Ok([
                Some(w0),
                Some(vgpr(inst.dst)? << 24 | vgpr(s2)? << 16 | vgpr(s1)? << 8 | vgpr(s0)?),
            ])
        }
        // SI 12.11 VINTRP: 110010 | VDST[25:18] | OP[17:16] | ATTR[15:10] | ATTRCHAN[9:8] |
        // VSRC[7:0]; GCN3 12.10 the same fields under 110101. VSRC is the barycentric's
        // VGPR, or v_interp_mov_f32's parameter code.
        Enc::Vintrp => {
            let interp = inst.interp.ok_or("no attribute operand")?;
            if interp.attr > 63 || interp.chan > 3 {
                return Err(format!(
                    "attr{}.{} is out of range (attr0–attr63, channels x–w)",
                    interp.attr, interp.chan
                ));
            }
            let vsrc = match interp.param {
                Some(param) => param as u32,
                None => vgpr(s0)?,
            };
            let prefix: u32 = if gfx8plus { 0b110101 } else { 0b110010 };
            one(prefix << 26
                | vgpr(inst.dst)? << 18
                | op << 16
                | (interp.attr as u32) << 10
                | (interp.chan as u32) << 8
                | vsrc)
        }
        // SI 12.12 EXP: 111110 | VM[12] | DONE[11] | COMPR[10] | TGT[9:4] | EN[3:0]; second
        // dword VSRC3[31:24] | VSRC2[23:16] | VSRC1[15:8] | VSRC0[7:0]. GCN3 12.11 the same
        // under 110001. A channel not written has EN clear and its VSRC 0 (as llvm-mc
        // encodes `off`); compressed, VSRC0 and VSRC1 hold channels 0–1 and 2–3 and EN
        // enables them in pairs.
        Enc::Exp => {
            let exp = inst.export.ok_or("no export operands")?;
            if !exp.target.valid() {
                return Err(format!("export target {:?} is out of range", exp.target));
            }
            let mut vsrc = [0u32; 4];
            if exp.compr {
                for (pair, (field, channels)) in vsrc.iter_mut().zip(exp.src.chunks(2)).enumerate()
                {
                    if channels[0] != channels[1] {
                        return Err(format!(
                            "compressed channels {} and {} must name one VGPR or both be off",
                            2 * pair,
                            2 * pair + 1
                        ));
                    }
                    if channels[0].is_some() {
                        *field = vgpr(channels[0])?;
                    }
                }
            } else {
                for (field, src) in vsrc.iter_mut().zip(exp.src) {
                    if src.is_some() {
                        *field = vgpr(src)?;
                    }
                }
            }
            let prefix: u32 = if gfx8plus { 0b110001 } else { 0b111110 };
            let w0 = prefix << 26
                | (exp.vm as u32) << 12
                | (exp.done as u32) << 11
                | (exp.compr as u32) << 10
                | exp.target.code() << 4
                | exp.enable_mask();
            Ok([
                Some(w0),
                Some(vsrc[3] << 24 | vsrc[2] << 16 | vsrc[1] << 8 | vsrc[0]),
            ])
        }
        // SI 12.5 MUBUF: 111000 | OP[24:18] | LDS[16] | ADDR64[15] | GLC[14] | IDXEN[13] |
        // OFFEN[12] | OFFSET[11:0]; second dword: SOFFSET[31:24] | TFE[23] | SLC[22] |
        // SRSRC[20:16] (in quads of SGPRs) | VDATA[15:8] | VADDR[7:0]. GCN3 12.6 moves SLC
        // to bit 17 of the first dword and drops ADDR64. IDXEN, LDS and TFE stay 0.
        // The cache controls (`buffer_wbinvl1`, `buffer_wbinvl1_vol`): every field 0, as
        // llvm-mc-14 encodes them.
        Enc::Mubuf if info.form == Form::MubufNone => {
            if inst.imm != 0 || inst.glc || inst.slc || inst.src.iter().any(Option::is_some) {
                return Err(format!("{} takes no operands", info.name));
            }
            Ok([Some(0b111000 << 26 | op << 18), Some(0)])
        }
        Enc::Mubuf => {
            if !(0..=0xfff).contains(&inst.imm) {
                return Err(format!(
                    "offset {} out of the unsigned 12-bit range",
                    inst.imm
                ));
            }
            let store = matches!(info.form, Form::MubufStore | Form::MubufAtomic);
            let (vaddr, vdata, rsrc) = if store {
                (s0, s1, s2)
            } else {
                (s0, inst.dst, s1)
            };
            let srsrc = match rsrc {
                Some(o) if o.is_sgpr() && o.0 % 4 == 0 => o.0 as u32 / 4,
                other => Err(format!("srsrc must be an SGPR quad, got {other:?}"))?,
            };
            let soffset = match inst.soffset {
                o if o.0 < 104 || o == Operand::M0 || o.0 == 128 => o.0 as u32,
                o => Err(format!("soffset must be an SGPR, M0 or 0, got {o:?}"))?,
            };
            let (addr64, offen) = match inst.mubuf {
                MubufAddr::Addr64 if gfx8plus => Err("addr64 needs gfx6 or gfx7")?,
                MubufAddr::Addr64 => (1, 0),
                MubufAddr::Offen => (0, 1),
                MubufAddr::Off => (0, 0),
            };
            let (slc0, slc1) = if gfx8plus {
                (inst.slc as u32, 0)
            } else {
                (0, inst.slc as u32)
            };
            let w0 = 0b111000 << 26
                | op << 18
                | slc0 << 17
                | addr64 << 15
                | (inst.glc as u32) << 14
                | offen << 12
                | inst.imm as u32;
            let w1 = soffset << 24 | slc1 << 22 | srsrc << 16 | vgpr(vdata)? << 8 | vgpr(vaddr)?;
            Ok([Some(w0), Some(w1)])
        }
    }
}
