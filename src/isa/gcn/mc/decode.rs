//! The decoder: bytes to [`McInst`], the inverse of `encode.rs` over the same table. The
//! encoding is identified by its fixed high bits (GCN3 ISA manual 12, "Microcode Formats").

use std::fmt;

use super::table::{Enc, Form, KIMM, LANE_SELECT, OpInfo, SDST_OUT};
use super::{
    Dpp, DppCtrl, DstUnused, ExpTarget, Export, Gen, Interp, InterpParam, McInst, MubufAddr, Op,
    Operand, Sdwa, SdwaSel,
};

/// Why some bytes are not an instruction we know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than the instruction needs.
    Truncated { needed: usize, available: usize },
    /// The high bits name no encoding we decode.
    UnknownEncoding(u32),
    /// The encoding is known but the opcode is not in the table for this generation.
    UnknownOpcode {
        enc: Enc,
        opcode: u16,
        generation: Gen,
    },
    /// A field holds a value the operation cannot take.
    BadOperand(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { needed, available } => {
                write!(
                    f,
                    "truncated instruction: needs {needed} bytes, {available} available"
                )
            }
            DecodeError::UnknownEncoding(w) => write!(f, "unknown encoding {w:#010x}"),
            DecodeError::UnknownOpcode {
                enc,
                opcode,
                generation,
            } => {
                write!(f, "unknown {enc:?} opcode {opcode} on {generation:?}")
            }
            DecodeError::BadOperand(s) => write!(f, "bad operand: {s}"),
        }
    }
}

impl std::error::Error for DecodeError {}

fn dword(bytes: &[u8], index: usize) -> Result<u32, DecodeError> {
    let start = index * 4;
    match bytes.get(start..start + 4) {
        Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        None => Err(DecodeError::Truncated {
            needed: start + 4,
            available: bytes.len(),
        }),
    }
}

/// The VDST of a FLAT or GLOBAL instruction: a load's, or an atomic's when it returns the
/// old value (`glc`).
fn flat_dst(inst: &McInst, info: &OpInfo, w1: u32) -> Option<Operand> {
    let returns = info.form != Form::FlatAtomic || inst.glc;
    let dst = Operand(256 + bits(w1, 31, 24) as u16);
    (info.dst != 0 && returns).then_some(dst)
}

fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// The encoding of the instruction whose first dword is `w`.
fn encoding(w: u32, generation: Gen) -> Result<Enc, DecodeError> {
    let enc = match () {
        _ if w >> 23 == 0x17d => Enc::Sop1,
        _ if w >> 23 == 0x17e => Enc::Sopc,
        _ if w >> 23 == 0x17f => Enc::Sopp,
        _ if w >> 28 == 0b1011 => Enc::Sopk,
        _ if w >> 30 == 0b10 => Enc::Sop2,
        _ if w >> 25 == 0x3f => Enc::Vop1,
        _ if w >> 25 == 0x3e => Enc::Vopc,
        _ if w >> 31 == 0 => Enc::Vop2,
        _ if w >> 26 == 0b110100 => Enc::Vop3,
        // gfx9 FLAT's SEG field [15:14]: 0 flat, 2 global (1, scratch, is not in the table).
        _ if w >> 26 == 0b110111 && generation == Gen::Gfx9 && bits(w, 15, 14) == 2 => Enc::Global,
        _ if w >> 26 == 0b110111 && generation >= Gen::Gfx7 => Enc::Flat,
        _ if w >> 26 == 0b111000 => Enc::Mubuf,
        _ if w >> 26 == 0b110110 => Enc::Ds,
        // Before SMRD: gfx6/gfx7's SMRD prefix 11000 covers EXP's gfx8/gfx9 110001 too.
        _ if generation >= Gen::Gfx8 && w >> 26 == 0b110101 => Enc::Vintrp,
        _ if generation <= Gen::Gfx7 && w >> 26 == 0b110010 => Enc::Vintrp,
        _ if generation >= Gen::Gfx8 && w >> 26 == 0b110001 => Enc::Exp,
        _ if generation <= Gen::Gfx7 && w >> 26 == 0b111110 => Enc::Exp,
        _ if generation >= Gen::Gfx8 && w >> 26 == 0b110000 => Enc::Smem,
        _ if generation <= Gen::Gfx7 && w >> 27 == 0b11000 => Enc::Smem,
        _ => return Err(DecodeError::UnknownEncoding(w)),
    };
    Ok(enc)
}

fn opcode(w: u32, enc: Enc, generation: Gen) -> u16 {
    let gfx8plus = generation >= Gen::Gfx8;
    (match enc {
        Enc::Sop2 => bits(w, 29, 23),
        Enc::Sopk => bits(w, 27, 23),
        Enc::Sop1 => bits(w, 15, 8),
        Enc::Sopc | Enc::Sopp => bits(w, 22, 16),
        Enc::Smem if gfx8plus => bits(w, 25, 18),
        Enc::Smem => bits(w, 26, 22),
        Enc::Vop2 => bits(w, 30, 25),
        Enc::Vop1 => bits(w, 16, 9),
        Enc::Vopc => bits(w, 24, 17),
        Enc::Vop3 if gfx8plus => bits(w, 25, 16),
        Enc::Vop3 => bits(w, 25, 17),
        Enc::Flat | Enc::Global | Enc::Mubuf => bits(w, 24, 18),
        Enc::Ds if gfx8plus => bits(w, 24, 17),
        Enc::Ds => bits(w, 25, 18),
        Enc::Vintrp => bits(w, 17, 16),
        // EXP has one operation.
        Enc::Exp => 0,
        // Found by their VOP1/VOP2/VOPC word.
        Enc::Sdwa | Enc::Dpp => unreachable!("encoding() never returns SDWA or DPP"),
    }) as u16
}

/// Decodes one instruction at the start of `bytes`; returns it and its length in bytes.
pub fn decode(bytes: &[u8], generation: Gen) -> Result<(McInst, usize), DecodeError> {
    let w0 = dword(bytes, 0)?;
    let enc = encoding(w0, generation)?;
    if matches!(enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
        && matches!(bits(w0, 8, 0), SDWA_MARKER | DPP_MARKER)
        && generation < Gen::Gfx8
    {
        let kind = if bits(w0, 8, 0) == SDWA_MARKER {
            "SDWA"
        } else {
            "DPP"
        };
        return Err(DecodeError::BadOperand(format!(
            "{kind} needs gfx8 or later; {generation:?} has none"
        )));
    }
    let opc = opcode(w0, enc, generation);
    let op = Op::from_opcode(enc, opc, generation).ok_or(DecodeError::UnknownOpcode {
        enc,
        opcode: opc,
        generation,
    })?;
    let info = op.info();
    let mut inst = McInst::new(op, enc);
    let mut len = 4;
    let some = |width: u8, o: u32| (width != 0).then_some(Operand(o as u16));
    match enc {
        Enc::Sop2 => {
            inst.dst = some(info.dst, bits(w0, 22, 16));
            inst.src[0] = some(info.src[0], bits(w0, 7, 0));
            inst.src[1] = some(info.src[1], bits(w0, 15, 8));
        }
        Enc::Sop1 => {
            inst.dst = some(info.dst, bits(w0, 22, 16));
            inst.src[0] = some(info.src[0], bits(w0, 7, 0));
        }
        Enc::Sopc => {
            inst.src[0] = some(info.src[0], bits(w0, 7, 0));
            inst.src[1] = some(info.src[1], bits(w0, 15, 8));
        }
        Enc::Sopk => {
            let field = bits(w0, 22, 16);
            let simm = bits(w0, 15, 0);
            match info.form {
                Form::SopkSrc | Form::SopkSetreg => inst.src[0] = Some(Operand(field as u16)),
                Form::SopkSetregImm32 => inst.src[0] = Some(Operand::LITERAL),
                _ => inst.dst = Some(Operand(field as u16)),
            }
            inst.imm = if info.form == Form::SopkDst || info.form == Form::SopkSrc {
                simm as u16 as i16 as i32
            } else {
                simm as i32
            };
        }
        Enc::Sopp => {
            let simm = bits(w0, 15, 0);
            if op == Op::SNop && simm >= super::nop_wait_states_max(generation) {
                // The hardware would read only the count's low bits: not what was meant.
                return Err(DecodeError::BadOperand(format!(
                    "s_nop {simm}: the count has {} bits on {generation:?}",
                    super::nop_wait_states_max(generation).trailing_zeros()
                )));
            }
            inst.imm = if info.form == Form::SoppBranch {
                simm as u16 as i16 as i32
            } else {
                simm as i32
            };
        }
        Enc::Smem => {
            let load = info.form == Form::SmemLoad;
            if generation >= Gen::Gfx8 {
                let w1 = dword(bytes, 1)?;
                len = 8;
                inst.glc = bits(w0, 16, 16) != 0;
                if load && bits(w0, 17, 17) == 0 {
                    // IMM = 0: the offset field names the SGPR holding a byte offset.
                    if w1 > 0x7f {
                        return Err(DecodeError::BadOperand(format!(
                            "SMEM offset register {w1:#x}"
                        )));
                    }
                    inst.src[1] = Some(Operand(w1 as u16));
                } else {
                    inst.imm = bits(w1, 20, 0) as i32;
                }
                if load {
                    inst.dst = Some(Operand(bits(w0, 12, 6) as u16));
                    inst.src[0] = Some(Operand((bits(w0, 5, 0) << 1) as u16));
                }
            } else {
                if bits(w0, 8, 8) != 0 {
                    inst.imm = bits(w0, 7, 0) as i32;
                } else if generation == Gen::Gfx7 && bits(w0, 7, 0) == 0xff {
                    // Sea Islands' 32-bit literal dword offset.
                    inst.imm = dword(bytes, 1)? as i32;
                    len = 8;
                } else if bits(w0, 7, 0) < 0x80 {
                    // IMM = 0: OFFSET names the SGPR holding a byte offset.
                    inst.src[1] = Some(Operand(bits(w0, 7, 0) as u16));
                } else {
                    return Err(DecodeError::BadOperand(format!(
                        "SMRD offset register {:#x}",
                        bits(w0, 7, 0)
                    )));
                }
                inst.dst = Some(Operand(bits(w0, 21, 15) as u16));
                inst.src[0] = Some(Operand((bits(w0, 14, 9) << 1) as u16));
            }
        }
        Enc::Vop2 | Enc::Vop1 | Enc::Vopc if matches!(bits(w0, 8, 0), SDWA_MARKER | DPP_MARKER) => {
            return decode_extension(bytes, w0, op, generation);
        }
        Enc::Vop2 | Enc::Vop1 | Enc::Vopc => {
            inst.dst = match enc {
                Enc::Vopc => None,
                _ => valu_dst(info, bits(w0, 24, 17)),
            };
            inst.sdst = (info.sdst != 0).then_some(Operand::VCC);
            inst.src[0] = some(info.src[0], bits(w0, 8, 0));
            // VSRC1: a VGPR, or the scalar lane number of v_readlane/v_writelane.
            let vsrc1 = bits(w0, 16, 9);
            inst.src[1] = match info.flags & LANE_SELECT {
                0 => some(info.src[1], 256 + vsrc1),
                _ => some(info.src[1], vsrc1),
            };
            // VOP2's third source (carry-in, cndmask's mask) is always VCC.
            inst.src[2] = (info.src[2] != 0).then_some(Operand::VCC);
            if info.flags & KIMM != 0 {
                // K, the literal dword, is one source; VSRC1 the other.
                if inst.src[0].is_some_and(|s| s.is_literal()) {
                    return Err(DecodeError::BadOperand(format!(
                        "{}: src0 is a literal besides K",
                        info.name
                    )));
                }
                let k = super::encode::kimm_source(op);
                inst.src[3 - k] = inst.src[1];
                inst.src[k] = Some(Operand::LITERAL);
            }
        }
        Enc::Vop3 => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            let low = bits(w0, 7, 0);
            let vop3b = info.dst != 0 && info.sdst != 0;
            if info.dst == 0 {
                inst.sdst = Some(Operand(low as u16));
            } else {
                inst.dst = valu_dst(info, low);
            }
            if vop3b {
                inst.sdst = Some(Operand(bits(w0, 14, 8) as u16));
            } else {
                inst.abs = bits(w0, 10, 8) as u8;
            }
            inst.clamp = if generation >= Gen::Gfx8 {
                bits(w0, 15, 15)
            } else if vop3b {
                0
            } else {
                bits(w0, 11, 11)
            } != 0;
            inst.neg = bits(w1, 31, 29) as u8;
            inst.omod = bits(w1, 28, 27) as u8;
            inst.src[0] = some(info.src[0], bits(w1, 8, 0));
            inst.src[1] = some(info.src[1], bits(w1, 17, 9));
            inst.src[2] = some(info.src[2], bits(w1, 26, 18));
        }
        Enc::Flat => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            inst.slc = bits(w0, 17, 17) != 0;
            inst.glc = bits(w0, 16, 16) != 0;
            if generation >= Gen::Gfx9 {
                // SEG [15:14]: 0 is FLAT; 1 scratch and 2 global are not in the table yet.
                if bits(w0, 15, 14) != 0 {
                    return Err(DecodeError::UnknownEncoding(w0));
                }
                inst.imm = bits(w0, 11, 0) as i32;
            }
            inst.dst = flat_dst(&inst, info, w1);
            inst.src[0] = Some(Operand(256 + bits(w1, 7, 0) as u16));
            inst.src[1] = some(info.src[1], 256 + bits(w1, 15, 8));
        }
        Enc::Global => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            inst.slc = bits(w0, 17, 17) != 0;
            inst.glc = bits(w0, 16, 16) != 0;
            inst.imm = ((bits(w0, 12, 0) << 19) as i32) >> 19;
            inst.dst = flat_dst(&inst, info, w1);
            inst.src[0] = Some(Operand(256 + bits(w1, 7, 0) as u16));
            inst.src[1] = some(info.src[1], 256 + bits(w1, 15, 8));
            match bits(w1, 22, 16) {
                0x7f => {}
                saddr if super::encode::is_saddr(Operand(saddr as u16)) => {
                    let slot = inst.saddr_slot().expect("GLOBAL has a saddr slot");
                    inst.src[slot] = Some(Operand(saddr as u16));
                }
                saddr => {
                    return Err(DecodeError::BadOperand(format!(
                        "GLOBAL saddr {saddr} is not an SGPR pair or VCC"
                    )));
                }
            }
        }
        Enc::Sdwa | Enc::Dpp => unreachable!("encoding() never returns SDWA or DPP"),
        Enc::Ds => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            inst.imm = bits(w0, 15, 0) as i32;
            inst.dst = some(info.dst, 256 + bits(w1, 31, 24));
            inst.src[0] = Some(Operand(256 + bits(w1, 7, 0) as u16));
            inst.src[1] = some(info.src[1], 256 + bits(w1, 15, 8));
            inst.src[2] = some(info.src[2], 256 + bits(w1, 23, 16));
            // GDS, the gfx6/gfx7 reserved bit and unused register fields are never set by
            // the encoder: encoding again must give the same bytes.
            let mut again = Vec::new();
            super::encode(&inst, generation, &mut again).map_err(DecodeError::BadOperand)?;
            if again != bytes[..8] {
                return Err(DecodeError::BadOperand(format!(
                    "DS word {w0:#010x} {w1:#010x} of {} sets bits the encoder never sets",
                    info.name
                )));
            }
        }
        Enc::Vintrp => {
            inst.dst = Some(Operand::vgpr(bits(w0, 25, 18) as u8));
            let vsrc = bits(w0, 7, 0);
            let param = if info.form == Form::VintrpMov {
                let param = InterpParam::from_code(vsrc).ok_or_else(|| {
                    DecodeError::BadOperand(format!("v_interp_mov_f32 parameter code {vsrc}"))
                })?;
                Some(param)
            } else {
                inst.src[0] = Some(Operand::vgpr(vsrc as u8));
                None
            };
            inst.interp = Some(Interp {
                attr: bits(w0, 15, 10) as u8,
                chan: bits(w0, 9, 8) as u8,
                param,
            });
        }
        Enc::Exp => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            let code = bits(w0, 9, 4);
            let target = ExpTarget::from_code(code).ok_or_else(|| {
                DecodeError::BadOperand(format!("export target {code} is not defined"))
            })?;
            let (en, compr) = (bits(w0, 3, 0), bits(w0, 10, 10) != 0);
            let mut src = [None; 4];
            for (k, slot) in src.iter_mut().enumerate() {
                // Compressed, channels 2k and 2k + 1 read VSRCk.
                let field = if compr { k / 2 } else { k } as u32;
                if en >> k & 1 != 0 {
                    *slot = Some(Operand::vgpr(bits(w1, 8 * field + 7, 8 * field) as u8));
                }
            }
            inst.export = Some(Export {
                target,
                src,
                compr,
                done: bits(w0, 11, 11) != 0,
                vm: bits(w0, 12, 12) != 0,
            });
            // Reserved bits, VSRC fields of channels not written, half-enabled compressed
            // pairs: the encoder never writes them, so encoding again must give the bytes.
            let mut again = Vec::new();
            super::encode(&inst, generation, &mut again).map_err(DecodeError::BadOperand)?;
            if again != bytes[..8] {
                return Err(DecodeError::BadOperand(format!(
                    "EXP word {w0:#010x} {w1:#010x} sets bits the encoder never sets"
                )));
            }
        }
        Enc::Mubuf if info.form == Form::MubufNone => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            if bits(w0, 17, 0) != 0 || bits(w0, 25, 25) != 0 || w1 != 0 {
                return Err(DecodeError::BadOperand(format!(
                    "{} with fields set",
                    info.name
                )));
            }
        }
        Enc::Mubuf => {
            let w1 = dword(bytes, 1)?;
            len = 8;
            // The forms the encoder writes: `addr64` (gfx6/gfx7) with SOFFSET 0, `offen` and
            // `off`; no IDXEN, LDS or TFE.
            let gfx8plus = generation >= Gen::Gfx8;
            let addr64 = !gfx8plus && bits(w0, 15, 15) == 1;
            let offen = bits(w0, 12, 12) == 1;
            inst.mubuf = match (addr64, offen) {
                (true, false) => MubufAddr::Addr64,
                (false, true) => MubufAddr::Offen,
                (false, false) => MubufAddr::Off,
                (true, true) => {
                    return Err(DecodeError::BadOperand(
                        "MUBUF with addr64 and offen".into(),
                    ));
                }
            };
            inst.soffset = Operand(bits(w1, 31, 24) as u16);
            if bits(w0, 13, 13) != 0
                || bits(w0, 16, 16) != 0
                || bits(w1, 23, 23) != 0
                || (addr64 && inst.soffset.0 != 128)
                || (gfx8plus && (bits(w0, 15, 15) != 0 || bits(w1, 22, 22) != 0))
                || !(inst.soffset.0 < 104 || inst.soffset == Operand::M0 || inst.soffset.0 == 128)
            {
                return Err(DecodeError::BadOperand(
                    "MUBUF other than `addr64`, `offen` or `off` with an SGPR or 0 soffset".into(),
                ));
            }
            inst.glc = bits(w0, 14, 14) != 0;
            inst.slc = if gfx8plus {
                bits(w0, 17, 17) != 0
            } else {
                bits(w1, 22, 22) != 0
            };
            inst.imm = bits(w0, 11, 0) as i32;
            let vaddr =
                (inst.mubuf != MubufAddr::Off).then(|| Operand(256 + bits(w1, 7, 0) as u16));
            let vdata = Operand(256 + bits(w1, 15, 8) as u16);
            let srsrc = Operand((bits(w1, 20, 16) * 4) as u16);
            if matches!(info.form, Form::MubufStore | Form::MubufAtomic) {
                inst.src = [vaddr, Some(vdata), Some(srsrc)];
                if info.form == Form::MubufAtomic && inst.glc {
                    inst.dst = Some(vdata);
                }
            } else {
                inst.dst = Some(vdata);
                inst.src = [vaddr, Some(srsrc), None];
            }
        }
    }
    if inst.src.iter().flatten().any(|s| s.is_literal()) {
        if !super::encode::literal_allowed(&inst, info) {
            return Err(DecodeError::BadOperand(format!(
                "literal in {enc:?} {}",
                info.name
            )));
        }
        inst.literal = Some(dword(bytes, len / 4)?);
        len += 4;
    }
    validate(&inst, info)?;
    Ok((inst, len))
}

/// SRC0 values of VOP1/VOP2/VOPC that announce an SDWA or DPP dword.
const SDWA_MARKER: u32 = 0xf9;
const DPP_MARKER: u32 = 0xfa;

/// An SDWA or DPP instruction, whose first dword `w0` is the VOP1/VOP2/VOPC word of `op`
/// with the marker in SRC0. Field layouts as in `encode.rs`. Only what the encoder
/// produces is accepted (checked by encoding the result again), so that reserved bits,
/// modifiers an operand does not take or VCC spelled as an SGPR pair are errors, not
/// instructions that print or execute differently from their bytes.
fn decode_extension(
    bytes: &[u8],
    w0: u32,
    op: Op,
    generation: Gen,
) -> Result<(McInst, usize), DecodeError> {
    let info = op.info();
    let sdwa = bits(w0, 8, 0) == SDWA_MARKER;
    let kind = if sdwa { "SDWA" } else { "DPP" };
    let w1 = dword(bytes, 1)?;
    let mut inst = McInst::new(op, if sdwa { Enc::Sdwa } else { Enc::Dpp });
    if info.enc != Enc::Vopc {
        inst.dst = valu_dst(info, bits(w0, 24, 17));
    }
    inst.sdst = (info.sdst != 0).then_some(Operand::VCC);
    inst.src[2] = (info.src[2] != 0).then_some(Operand::VCC);
    let vsrc1 = bits(w0, 16, 9);
    let two_sources = info.src[1] != 0;
    if sdwa {
        let sel = |code: u32| {
            SdwaSel::from_code(code)
                .ok_or_else(|| DecodeError::BadOperand(format!("SDWA select {code} is reserved")))
        };
        // gfx9's S bit: the field names an SGPR or a constant, not a VGPR.
        let source = |field: u32, scalar: u32| Operand((field + 256 * (1 - scalar)) as u16);
        let mut selects = Sdwa::default();
        let fields = [bits(w1, 23, 16), bits(w1, 31, 24)];
        let registers = [bits(w1, 7, 0), vsrc1];
        for i in 0..if two_sources { 2 } else { 1 } {
            let f = fields[i];
            inst.src[i] = Some(source(registers[i], f >> 7 & 1));
            selects.src_sel[i] = sel(f & 7)?;
            selects.sext |= ((f >> 3 & 1) << i) as u8;
            inst.neg |= ((f >> 4 & 1) << i) as u8;
            inst.abs |= ((f >> 5 & 1) << i) as u8;
        }
        let dst = bits(w1, 15, 8);
        match info.enc {
            Enc::Vopc if generation >= Gen::Gfx9 => {
                if dst >> 7 != 0 {
                    inst.sdst = Some(Operand((dst & 0x7f) as u16));
                }
            }
            Enc::Vopc => inst.clamp = dst >> 5 & 1 != 0,
            _ => {
                selects.dst_sel = sel(dst & 7)?;
                selects.dst_unused = DstUnused::from_code(dst >> 3 & 3).ok_or_else(|| {
                    DecodeError::BadOperand("SDWA dst_unused 3 is reserved".into())
                })?;
                inst.clamp = dst >> 5 & 1 != 0;
                inst.omod = (dst >> 6) as u8;
            }
        }
        inst.sdwa = Some(selects);
    } else {
        let ctrl = DppCtrl::from_code(bits(w1, 16, 8)).ok_or_else(|| {
            DecodeError::BadOperand(format!("dpp_ctrl {:#x} is reserved", bits(w1, 16, 8)))
        })?;
        inst.src[0] = Some(Operand::vgpr(bits(w1, 7, 0) as u8));
        if two_sources {
            inst.src[1] = Some(Operand::vgpr(vsrc1 as u8));
        }
        inst.neg = (bits(w1, 20, 20) | bits(w1, 22, 22) << 1) as u8;
        inst.abs = (bits(w1, 21, 21) | bits(w1, 23, 23) << 1) as u8;
        inst.dpp = Some(Dpp {
            ctrl,
            row_mask: bits(w1, 31, 28) as u8,
            bank_mask: bits(w1, 27, 24) as u8,
            bound_ctrl: bits(w1, 19, 19) != 0,
        });
    }
    let mut again = Vec::new();
    super::encode(&inst, generation, &mut again).map_err(DecodeError::BadOperand)?;
    if again != bytes[..8] {
        return Err(DecodeError::BadOperand(format!(
            "{kind} word {w1:#010x} of {} sets bits the encoder never sets",
            info.name
        )));
    }
    Ok((inst, 8))
}

/// The VDST field of a VALU op: a VGPR, or an SGPR for the lane-reading ops.
fn valu_dst(info: &OpInfo, field: u32) -> Option<Operand> {
    if info.dst == 0 {
        None
    } else if info.flags & SDST_OUT != 0 {
        Some(Operand(field as u16))
    } else {
        Some(Operand(256 + field as u16))
    }
}

/// Rejects field values the encoder would not produce (modifiers on integer sources,
/// VGPRs read by scalar formats), so that decode(encode(x)) == x and encode(decode(b)) == b.
fn validate(inst: &McInst, info: &OpInfo) -> Result<(), DecodeError> {
    if (inst.abs | inst.neg) & !info.float_srcs() != 0 {
        return Err(DecodeError::BadOperand(format!(
            "abs/neg on a non-float source of {}",
            info.name
        )));
    }
    if inst.omod != 0 && info.flags & super::table::FOUT == 0 {
        return Err(DecodeError::BadOperand(format!("omod on {}", info.name)));
    }
    Ok(())
}
