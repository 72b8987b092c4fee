//! The machine-code layer of the GCN backend: instructions with physical operands, exactly as
//! the hardware encodes them. The encoder, the disassembler and the simulator's decoder all
//! work on [`McInst`] and share one opcode table per encoding, so they cannot drift apart.
//!
//! Operands use the hardware's own 9-bit source-operand numbering (GCN3 ISA manual,
//! section 12.1 "SOP2", table "SSRC0"; and the VOP "SRC0" field): SGPRs are 0–101, VCC is
//! 106/107, M0 is 124, EXEC is 126/127, inline integers are 128–208, inline floats 240–248,
//! the literal marker is 255 and VGPRs are 256–511.

mod decode;
mod encode;
mod fields;
mod print;
mod sdwa_dpp;
mod table;

pub use decode::{DecodeError, decode};
pub use encode::encode;
pub use fields::{
    decode_waitcnt, nop_wait_states_max, smem_offset_encodable, waitcnt_imm, waitcnt_max,
};
pub use print::print;
pub use sdwa_dpp::{Dpp, DppCtrl, DstUnused, Sdwa, SdwaSel};
pub use table::{
    Enc, FOUT, FSRC0, FSRC1, FSRC2, Form, KIMM, LANE_SELECT, NO_SDWA_GFX9, Op, OpInfo, SDST_OUT,
    SRC0_VGPR, VOP2_GFX67,
};

/// A GCN generation. Encodings, opcode numbers, wait-count fields and hazards differ by it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Gen {
    /// GCN 1.0, Southern Islands (gfx6).
    Gfx6,
    /// GCN 1.1, Sea Islands (gfx7).
    Gfx7,
    /// GCN 1.2, Volcanic Islands (gfx8).
    Gfx8,
    /// GCN 1.4, Vega (gfx9).
    Gfx9,
}

/// One source or destination operand, in the hardware's 9-bit operand numbering.
///
/// The width of a register operand (one register, a pair, a quad) is not stored here: it
/// comes from the opcode's signature in the table, just as in the hardware encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand(pub u16);

impl Operand {
    pub const VCC: Operand = Operand(106);
    pub const M0: Operand = Operand(124);
    pub const EXEC: Operand = Operand(126);
    pub const VCCZ: Operand = Operand(251);
    pub const EXECZ: Operand = Operand(252);
    pub const SCC: Operand = Operand(253);
    /// The operand value that says "a 32-bit literal follows the instruction".
    pub const LITERAL: Operand = Operand(255);

    pub const fn sgpr(n: u8) -> Operand {
        Operand(n as u16)
    }
    pub const fn vgpr(n: u8) -> Operand {
        Operand(256 + n as u16)
    }
    /// The inline integer constant `v` (-16..=64), if it has one.
    pub fn inline_int(v: i64) -> Option<Operand> {
        match v {
            0..=64 => Some(Operand(128 + v as u16)),
            -16..=-1 => Some(Operand((192 - v) as u16)),
            _ => None,
        }
    }
    /// The inline float constant for the f32 bit pattern `bits`, if it has one (0.0 is the
    /// integer constant 0; 1/(2π) exists from gfx8 on).
    pub fn inline_f32(bits: u32, generation: Gen) -> Option<Operand> {
        let code = match bits {
            0x0000_0000 => 128,
            0x3f00_0000 => 240,
            0xbf00_0000 => 241,
            0x3f80_0000 => 242,
            0xbf80_0000 => 243,
            0x4000_0000 => 244,
            0xc000_0000 => 245,
            0x4080_0000 => 246,
            0xc080_0000 => 247,
            0x3e22_f983 if generation >= Gen::Gfx8 => 248,
            _ => return None,
        };
        Some(Operand(code))
    }
    pub fn is_sgpr(self) -> bool {
        self.0 < 128 && self.0 != 125
    }
    pub fn is_vgpr(self) -> bool {
        self.0 >= 256
    }
    /// The register number of an SGPR or VGPR operand.
    pub fn reg_index(self) -> u8 {
        (self.0 & 0xff) as u8
    }
    pub fn is_literal(self) -> bool {
        self == Operand::LITERAL
    }
    /// Inline constants (integer or float).
    pub fn is_inline_constant(self) -> bool {
        (128..=208).contains(&self.0) || (240..=248).contains(&self.0)
    }
}

/// One machine instruction with physical operands.
///
/// Which fields an opcode uses is given by its [`OpInfo`] signature; unused ones are `None`
/// or zero. `enc` is the encoding actually used (`_e32` VOP1/VOP2/VOPC or `_e64` VOP3 for a
/// VALU op that has both, or `_sdwa`/`_dpp`); [`McInst::valu`] picks the shortest legal one.
///
/// SDWA and DPP are operand modifiers like VOP3's: `sdwa` (`dpp`) is set exactly when `enc`
/// is [`Enc::Sdwa`] ([`Enc::Dpp`]); their source modifiers abs/neg and SDWA's clamp and omod
/// (gfx9) are the fields VOP3 uses.
#[derive(Clone, Debug, PartialEq)]
pub struct McInst {
    pub op: Op,
    pub enc: Enc,
    /// SDST of scalar ops, VDST of vector ops, VDATA of loads.
    pub dst: Option<Operand>,
    /// VOP3b's SDST (carry-out), or the SGPR-pair result of a VOPC compare in VOP3 form.
    pub sdst: Option<Operand>,
    /// Sources in assembler order (for memory ops: address, then data; for SMEM: sbase,
    /// then the SGPR holding the byte offset when the offset is not `imm`).
    pub src: [Option<Operand>; 3],
    /// The 32-bit literal when a source is [`Operand::LITERAL`].
    pub literal: Option<u32>,
    /// SOPK/SOPP simm16, SMEM and FLAT offsets, branch offsets in dwords.
    pub imm: i32,
    /// VOP3, SDWA and DPP input modifiers, one bit per source.
    pub abs: u8,
    pub neg: u8,
    pub clamp: bool,
    /// VOP3 (and gfx9 SDWA) output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2.
    pub omod: u8,
    /// SDWA operand selects, when `enc` is [`Enc::Sdwa`].
    pub sdwa: Option<Sdwa>,
    /// DPP lane controls, when `enc` is [`Enc::Dpp`].
    pub dpp: Option<Dpp>,
    /// Memory cache-policy bits.
    pub glc: bool,
    pub slc: bool,
    /// How a MUBUF instruction forms its address.
    pub mubuf: MubufAddr,
    /// MUBUF's SOFFSET (an SGPR or an inline constant): bytes added to the resource's base
    /// after the swizzle. The inline constant 0 unless a device function's stack offset.
    pub soffset: Operand,
    /// VINTRP's attribute and channel (and `v_interp_mov_f32`'s parameter), exactly when
    /// `enc` is [`Enc::Vintrp`].
    pub interp: Option<Interp>,
    /// EXP's target, channels and flags, exactly when `enc` is [`Enc::Exp`].
    pub export: Option<Export>,
}

/// The attribute a VINTRP instruction reads (SI ISA 12.11, GCN3 ISA 12.10 "VINTRP"):
/// `attr<attr>.<chan>` in assembly. The parameters it names are in LDS, where M0 says
/// (`docs/isa-notes.md`, "Parameter interpolation").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interp {
    /// The attribute, 0–63 (ATTR, bits 15:10).
    pub attr: u8,
    /// The channel, 0–3 for x, y, z, w (ATTRCHAN, bits 9:8).
    pub chan: u8,
    /// The parameter `v_interp_mov_f32` copies (its VSRC field); `None` for
    /// `v_interp_p1_f32`/`v_interp_p2_f32`, whose VSRC is the barycentric's VGPR.
    pub param: Option<InterpParam>,
}

/// A parameter of an attribute's plane: `P0` (the value at vertex 0), `P10` and `P20`
/// (the differences to vertices 1 and 2), by their VSRC codes in `v_interp_mov_f32`
/// (llvm-mc-14: `p10` 0, `p20` 1, `p0` 2; 3 is invalid).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InterpParam {
    P10 = 0,
    P20 = 1,
    P0 = 2,
}

impl InterpParam {
    /// The parameter with VSRC code `code`, if it is one.
    pub fn from_code(code: u32) -> Option<InterpParam> {
        match code {
            0 => Some(InterpParam::P10),
            1 => Some(InterpParam::P20),
            2 => Some(InterpParam::P0),
            _ => None,
        }
    }

    /// llvm-mc's name: `p10`, `p20`, `p0`.
    pub fn name(self) -> &'static str {
        match self {
            InterpParam::P10 => "p10",
            InterpParam::P20 => "p20",
            InterpParam::P0 => "p0",
        }
    }
}

/// Where an export sends its data (EXP's TGT field; SI ISA 12.12, GCN3 ISA 12.11 "EXP").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExpTarget {
    /// A colour target, 0–7 (codes 0–7).
    Mrt(u8),
    /// Depth, stencil and sample mask (code 8).
    MrtZ,
    /// Nothing: a pixel shader's export that only ends it (code 9).
    Null,
    /// A vertex position, 0–3 (codes 12–15).
    Pos(u8),
    /// A vertex parameter, 0–31 (codes 32–63).
    Param(u8),
}

impl ExpTarget {
    /// The TGT code.
    pub fn code(self) -> u32 {
        match self {
            ExpTarget::Mrt(n) => n as u32,
            ExpTarget::MrtZ => 8,
            ExpTarget::Null => 9,
            ExpTarget::Pos(n) => 12 + n as u32,
            ExpTarget::Param(n) => 32 + n as u32,
        }
    }

    /// The target with TGT code `code`; `None` for the codes gfx6–gfx9 do not define (10,
    /// 11, 16–31; llvm-mc-14 prints them `invalid_target_N`).
    pub fn from_code(code: u32) -> Option<ExpTarget> {
        match code {
            0..=7 => Some(ExpTarget::Mrt(code as u8)),
            8 => Some(ExpTarget::MrtZ),
            9 => Some(ExpTarget::Null),
            12..=15 => Some(ExpTarget::Pos(code as u8 - 12)),
            32..=63 => Some(ExpTarget::Param(code as u8 - 32)),
            _ => None,
        }
    }

    /// Whether the index is in range (`Mrt` 0–7, `Pos` 0–3, `Param` 0–31).
    pub fn valid(self) -> bool {
        match self {
            ExpTarget::Mrt(n) => n < 8,
            ExpTarget::Pos(n) => n < 4,
            ExpTarget::Param(n) => n < 32,
            ExpTarget::MrtZ | ExpTarget::Null => true,
        }
    }

    /// llvm-mc's name: `mrt0`, `mrtz`, `null`, `pos0`, `param0`, ….
    pub fn name(self) -> String {
        match self {
            ExpTarget::Mrt(n) => format!("mrt{n}"),
            ExpTarget::MrtZ => "mrtz".to_string(),
            ExpTarget::Null => "null".to_string(),
            ExpTarget::Pos(n) => format!("pos{n}"),
            ExpTarget::Param(n) => format!("param{n}"),
        }
    }
}

/// An export's operands and flags. `src[k]` is channel k's VGPR, `None` for a channel not
/// written (`off`; EN bit k clear). Compressed (`compr`) exports carry two VGPRs of two
/// 16-bit halves each: channels 0 and 1 name the first (VSRC0), channels 2 and 3 the
/// second (VSRC1), so `src` is `[a, a, b, b]` with `a` and `b` each present or `off` — the
/// form llvm-mc-14 prints (`exp mrt0 v1, v1, v2, v2 compr`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Export {
    pub target: ExpTarget,
    pub src: [Option<Operand>; 4],
    /// Two 16-bit values per VGPR (COMPR).
    pub compr: bool,
    /// The last export of its kind: of a pixel shader, or the last position of a vertex
    /// shader (DONE).
    pub done: bool,
    /// EXEC is the valid mask of the pixels exported (VM): lanes outside EXEC are killed.
    pub vm: bool,
}

impl Export {
    /// The EN field: bit k set when channel k is written.
    pub fn enable_mask(&self) -> u32 {
        (0..4)
            .filter(|&k| self.src[k].is_some())
            .map(|k| 1 << k)
            .sum()
    }
}

/// The address of a MUBUF access (SI ISA 8.1.5 "Buffer addressing"; GCN3 ISA 8.1.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MubufAddr {
    /// gfx6/gfx7 `addr64`: a 64-bit VADDR pair added to the resource's base (global memory).
    Addr64,
    /// `offen`: a VGPR offset plus the instruction offset, swizzled with the lane id by a
    /// scratch resource (private memory).
    Offen,
    /// `off`: the instruction offset alone (private memory at a constant offset).
    Off,
}

impl McInst {
    /// An instruction of `op` in encoding `enc` with no operands, modifiers or immediates.
    pub fn new(op: Op, enc: Enc) -> McInst {
        McInst {
            op,
            enc,
            dst: None,
            sdst: None,
            src: [None; 3],
            literal: None,
            imm: 0,
            abs: 0,
            neg: 0,
            clamp: false,
            omod: 0,
            sdwa: None,
            dpp: None,
            glc: false,
            slc: false,
            mubuf: MubufAddr::Addr64,
            soffset: Operand(128),
            interp: None,
            export: None,
        }
    }

    /// The source slot of GLOBAL's SGPR-pair base (SADDR, Vega ISA 12.12): the slot after
    /// the address and data, `src[1]` of a load and `src[2]` of a store or an atomic, where MUBUF has its
    /// buffer resource. Empty, the instruction is the `off` form: a 64-bit VGPR address.
    pub fn saddr_slot(&self) -> Option<usize> {
        (self.enc == Enc::Global).then(|| {
            if self.op.info().form == Form::FlatLoad {
                1
            } else {
                2
            }
        })
    }

    /// GLOBAL's SGPR-pair base, when the instruction has one.
    pub fn saddr(&self) -> Option<Operand> {
        self.saddr_slot().and_then(|i| self.src[i])
    }

    /// The widths in dwords (0: absent) of this instruction's sources: the table's
    /// signature, except that GLOBAL with an SGPR base has a one-VGPR offset as its address
    /// and the SGPR pair in [`McInst::saddr_slot`], and a scalar load may take its offset
    /// from an SGPR (`src[1]`).
    pub fn src_widths(&self) -> [u8; 3] {
        let mut widths = self.op.info().src;
        if self.op.info().form == Form::SmemLoad && self.src[1].is_some() {
            widths[1] = 1;
        }
        if self.enc == Enc::Mubuf && self.op.info().form != Form::MubufNone {
            widths[0] = match self.mubuf {
                MubufAddr::Addr64 => 2,
                MubufAddr::Offen => 1,
                MubufAddr::Off => 0,
            };
        }
        if let Some(slot) = self.saddr_slot()
            && self.src[slot].is_some()
        {
            widths[0] = 1;
            widths[slot] = 2;
        }
        widths
    }

    /// A vector-ALU instruction in the shortest legal encoding (see
    /// [`McInst::select_encoding`]). A literal source is passed as [`Operand::LITERAL`] and
    /// its value set with `literal` afterwards (the choice does not depend on the value).
    pub fn valu(
        op: Op,
        generation: Gen,
        dst: Option<Operand>,
        sdst: Option<Operand>,
        srcs: &[Operand],
    ) -> Result<McInst, String> {
        if srcs.len() > 3 {
            return Err(format!("{}: more than three sources", op.info().name));
        }
        let mut inst = McInst::new(op, op.info().enc);
        inst.dst = dst;
        inst.sdst = sdst;
        for (slot, &s) in inst.src.iter_mut().zip(srcs) {
            *slot = Some(s);
        }
        inst.select_encoding(generation)?;
        Ok(inst)
    }

    /// Sets `enc` to the shortest legal encoding of this VALU instruction: SDWA or DPP when
    /// `sdwa` or `dpp` is set (an error where that form does not exist or the operands do
    /// not fit it); otherwise VOP1/VOP2/VOPC (`_e32`) when src1 is a VGPR, there are no
    /// modifiers, the compare result or carry-out and carry-in go to VCC and a literal
    /// appears only in src0; VOP3 (`_e64`, no literal on gfx6–gfx9) otherwise. Then checks
    /// the constant-bus limit with [`legal`]. Commuting sources to make src1 a VGPR is the
    /// caller's job.
    pub fn select_encoding(&mut self, generation: Gen) -> Result<(), String> {
        let info = self.op.info();
        let name = info.mnemonic(generation);
        if info.form != table::Form::Valu {
            return Err(format!("{name} is not a vector-ALU operation"));
        }
        if !info.available(generation) {
            return Err(format!("{name} does not exist on {generation:?}"));
        }
        if self.sdwa.is_some() || self.dpp.is_some() {
            self.enc = if self.sdwa.is_some() {
                Enc::Sdwa
            } else {
                Enc::Dpp
            };
            encode::check_extension(self, info, generation).map_err(|e| format!("{name}: {e}"))?;
            return legal(self, generation);
        }
        // VSRC1 names a VGPR, or the lane number of the lane-access operations.
        let vsrc1 = |s: Operand| match info.flags & LANE_SELECT {
            0 => s.is_vgpr(),
            _ => !s.is_vgpr(),
        };
        let short = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
            && info.opcode_in(info.enc, generation).is_some()
            && self.abs == 0
            && self.neg == 0
            && !self.clamp
            && self.omod == 0
            && self.src[1].is_none_or(vsrc1)
            && self.src[2].is_none_or(|s| s == Operand::VCC)
            && self.sdst.is_none_or(|s| s == Operand::VCC)
            && self.src[1..].iter().flatten().all(|s| !s.is_literal());
        self.enc = if short {
            info.enc
        } else if info.opcode_in(Enc::Vop3, generation).is_some() {
            if self.src.iter().flatten().any(|s| s.is_literal()) {
                return Err(format!("{name}: VOP3 takes no literal on {generation:?}"));
            }
            Enc::Vop3
        } else {
            return Err(format!(
                "{name}: operands need VOP3, which it does not have"
            ));
        };
        legal(self, generation)
    }
}

/// Checks that the operation exists on `generation`, and the rules of operand use that the
/// encoding cannot express (GCN3 ISA manual 6.1.2 "SGPR and constant-bus reads" / 4.4, and
/// 3.2 for register alignment):
/// - a VALU instruction reads at most one scalar value over the constant bus: an SGPR (or a
///   pair), VCC, M0, EXEC or a literal, where reading the same one twice (at the same width)
///   counts once and the implicit VCC read of VOP2 carry-in/`v_cndmask_b32` counts too;
/// - at most one literal value per instruction;
/// - 64-bit SGPR operands start at an even SGPR, wider ones at a multiple of 4.
pub fn legal(inst: &McInst, generation: Gen) -> Result<(), String> {
    let info = inst.op.info();
    let name = info.mnemonic(generation);
    if !info.available(generation) {
        return Err(format!("{name} does not exist on {generation:?}"));
    }
    let scalar_operands = [(inst.dst, info.dst), (inst.sdst, info.sdst)]
        .into_iter()
        .chain(inst.src.iter().zip(inst.src_widths()).map(|(&s, w)| (s, w)));
    for (o, width) in scalar_operands {
        let Some(o) = o else { continue };
        if o.0 <= 101 && width >= 2 && o.0 % (width.min(4) as u16) != 0 {
            return Err(format!(
                "{name}: s{} is not aligned for a {width}-dword operand",
                o.0
            ));
        }
    }
    if info.form == table::Form::Valu {
        // gfx9's SDWA reads scalar sources, but llvm-mc-14 refuses a float inline constant
        // for a 16-bit integer operation (nothing emits one).
        if inst.sdwa.is_some()
            && ["_u16", "_i16", "_b16"]
                .iter()
                .any(|t| info.name.ends_with(t))
            && inst
                .src
                .iter()
                .flatten()
                .any(|s| (240..=248).contains(&s.0))
        {
            return Err(format!(
                "{name}: a float inline constant in a 16-bit integer SDWA operation"
            ));
        }
        if info.flags & SRC0_VGPR != 0 && inst.src[0].is_some_and(|s| !s.is_vgpr()) {
            return Err(format!("{name}: src0 must be a VGPR"));
        }
        // A 64-bit src2 of a 32-bit result is a lane mask (carry-in, v_cndmask_b32): SGPRs.
        if info.src[2] == 2 && info.dst == 1 && inst.src[2].is_some_and(|s| !s.is_sgpr()) {
            return Err(format!(
                "{name}: the lane mask in src2 must be an SGPR pair or VCC"
            ));
        }
        // The same register read at another width is another value (llvm-mc-14 refuses
        // `v_cndmask_b32_e64 v1, s0, v2, s[0:1]` and `vcc_lo` beside an implicit `vcc`).
        let mut reads: Vec<(Operand, u8)> = Vec::new();
        for (s, width) in inst.src.iter().zip(inst.src_widths()) {
            let Some(s) = *s else { continue };
            let bus = s.is_literal() || (s.0 < 128 && s.0 != 125) || (s.0 >= 251 && s.0 <= 253);
            // VOP2's VCC carry-in/mask (src2) is read implicitly, still over the bus.
            if bus && !reads.contains(&(s, width)) {
                reads.push((s, width));
            }
        }
        if reads.len() > 1 {
            let list: Vec<String> = reads
                .iter()
                .map(|&(r, width)| print::operand(Some(r), width, inst.literal, generation))
                .collect();
            return Err(format!(
                "{name}: {} scalar values ({}) but the constant bus allows one",
                reads.len(),
                list.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodings printed by `llvm-mc-14 -arch=amdgcn -mcpu=tonga -show-encoding` (and read
    /// back by its `-disassemble`, which prints gfx8's VOPC SDWA without `_sdwa`).
    fn known() -> Vec<(McInst, Vec<u8>, &'static str)> {
        let v = Operand::vgpr;
        let s = Operand::sgpr;
        let mut waitcnt = McInst::new(Op::SWaitcnt, Enc::Sopp);
        waitcnt.imm = 0xf70;
        let mut load = McInst::new(Op::SLoadDword, Enc::Smem);
        (load.dst, load.src[0]) = (Some(s(0)), Some(s(4)));
        let mut flat = McInst::new(Op::FlatLoadDword, Enc::Flat);
        (flat.dst, flat.src[0], flat.glc, flat.slc) = (Some(v(0)), Some(v(0)), true, true);
        let mut cmp = McInst::valu(
            Op::VCmpEqF32,
            Gen::Gfx8,
            None,
            Some(Operand::VCC),
            &[v(0), v(1)],
        )
        .unwrap();
        cmp.neg = 1;
        cmp.select_encoding(Gen::Gfx8).unwrap();
        let mut sdwa =
            McInst::valu(Op::VAddF32, Gen::Gfx8, Some(v(1)), None, &[v(2), v(3)]).unwrap();
        sdwa.sdwa = Some(Sdwa {
            dst_sel: SdwaSel::Word1,
            dst_unused: DstUnused::Sext,
            src_sel: [SdwaSel::Byte2, SdwaSel::Word0],
            sext: 0,
        });
        sdwa.select_encoding(Gen::Gfx8).unwrap();
        let mut sdwa_cmp = McInst::valu(
            Op::VCmpEqF32,
            Gen::Gfx8,
            None,
            Some(Operand::VCC),
            &[v(1), v(2)],
        )
        .unwrap();
        sdwa_cmp.sdwa = Some(Sdwa {
            src_sel: [SdwaSel::Byte0, SdwaSel::Dword],
            ..Sdwa::default()
        });
        sdwa_cmp.select_encoding(Gen::Gfx8).unwrap();
        let mut dpp = McInst::valu(Op::VMovB32, Gen::Gfx8, Some(v(1)), None, &[v(2)]).unwrap();
        dpp.dpp = Some(Dpp {
            ctrl: DppCtrl::RowShl(1),
            row_mask: 0xa,
            bank_mask: 0x5,
            bound_ctrl: true,
        });
        dpp.select_encoding(Gen::Gfx8).unwrap();
        vec![
            (
                sdwa,
                vec![0xf9, 0x06, 0x02, 0x02, 0x02, 0x0d, 0x02, 0x04],
                "v_add_f32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT \
                 src0_sel:BYTE_2 src1_sel:WORD_0",
            ),
            (
                sdwa_cmp,
                vec![0xf9, 0x04, 0x84, 0x7c, 0x01, 0x00, 0x00, 0x06],
                "v_cmp_eq_f32 vcc, v1, v2 src0_sel:BYTE_0 src1_sel:DWORD",
            ),
            (
                dpp,
                vec![0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x09, 0xa5],
                "v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xa bank_mask:0x5 bound_ctrl:1",
            ),
            (
                McInst::valu(Op::VAddF32, Gen::Gfx8, Some(v(1)), None, &[v(2), v(3)]).unwrap(),
                vec![0x02, 0x07, 0x02, 0x02],
                "v_add_f32_e32 v1, v2, v3",
            ),
            (
                McInst::valu(
                    Op::VCndmaskB32,
                    Gen::Gfx8,
                    Some(v(0)),
                    None,
                    &[v(1), v(2), s(0)],
                )
                .unwrap(),
                vec![0x00, 0x00, 0x00, 0xd1, 0x01, 0x05, 0x02, 0x00],
                "v_cndmask_b32_e64 v0, v1, v2, s[0:1]",
            ),
            (
                cmp,
                vec![0x6a, 0x00, 0x42, 0xd0, 0x00, 0x03, 0x02, 0x20],
                "v_cmp_eq_f32_e64 vcc, -v0, v1",
            ),
            (waitcnt, vec![0x70, 0x0f, 0x8c, 0xbf], "s_waitcnt vmcnt(0)"),
            (
                load,
                vec![0x02, 0x00, 0x02, 0xc0, 0x00, 0x00, 0x00, 0x00],
                "s_load_dword s0, s[4:5], 0x0",
            ),
            (
                flat,
                vec![0x00, 0x00, 0x53, 0xdc, 0x00, 0x00, 0x00, 0x00],
                "flat_load_dword v0, v[0:1] glc slc",
            ),
            (
                McInst::new(Op::SEndpgm, Enc::Sopp),
                vec![0x00, 0x00, 0x81, 0xbf],
                "s_endpgm",
            ),
        ]
    }

    #[test]
    fn known_encodings_round_trip() {
        for (inst, bytes, text) in known() {
            let mut out = Vec::new();
            encode(&inst, Gen::Gfx8, &mut out).unwrap();
            assert_eq!(out, bytes, "{text}");
            assert_eq!(
                decode(&bytes, Gen::Gfx8),
                Ok((inst.clone(), bytes.len())),
                "{text}"
            );
            assert_eq!(print(&inst, Gen::Gfx8), text);
        }
    }

    #[test]
    fn bad_bytes_are_errors() {
        assert!(matches!(
            decode(&[0x02, 0x07], Gen::Gfx8),
            Err(DecodeError::Truncated { .. })
        ));
        // VOP3 needs its second dword; a literal needs its dword.
        assert!(decode(&[0x00, 0x00, 0x00, 0xd1], Gen::Gfx8).is_err());
        assert!(decode(&[0xff, 0x06, 0x02, 0x02], Gen::Gfx8).is_err());
        // An opcode the table does not have.
        assert!(matches!(
            decode(&[0, 0, 0x8d, 0xbf], Gen::Gfx8),
            Err(DecodeError::UnknownOpcode { .. })
        ));
        for w in [0xffff_ffffu32, 0xf800_0000, 0xe000_0000] {
            assert!(decode(&w.to_le_bytes(), Gen::Gfx8).is_err(), "{w:#x}");
        }
        // ds_bpermute_b32 v1, v2, v3 decodes; with GDS set, or a DATA1 register, it is
        // not what the encoder writes; ds_swizzle_b32 has no DATA0.
        let bpermute = [0x00, 0x00, 0x7e, 0xd8, 0x02, 0x03, 0x00, 0x01];
        assert!(decode(&bpermute, Gen::Gfx8).is_ok());
        let mut gds = bpermute;
        gds[2] |= 1;
        assert!(decode(&gds, Gen::Gfx8).is_err());
        let mut data1 = bpermute;
        data1[6] = 5;
        assert!(decode(&data1, Gen::Gfx8).is_err());
        let swizzle_data0 = [0x00, 0x00, 0x7a, 0xd8, 0x02, 0x03, 0x00, 0x01];
        assert!(decode(&swizzle_data0, Gen::Gfx8).is_err());
        // gfx6's reserved bit 16.
        assert!(decode(&[0x00, 0x00, 0xd5, 0xd8, 0x02, 0x00, 0x00, 0x01], Gen::Gfx6).is_err());
        assert!(decode(&[0x00, 0x00, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x01], Gen::Gfx6).is_ok());
    }

    #[test]
    fn constant_bus() {
        let (v, s) = (Operand::vgpr, Operand::sgpr);
        let ok = |srcs: &[Operand]| McInst::valu(Op::VFmaF32, Gen::Gfx8, Some(v(0)), None, srcs);
        assert!(
            ok(&[s(1), s(1), v(2)]).is_ok(),
            "the same SGPR twice is one read"
        );
        assert!(ok(&[s(1), s(2), v(2)]).is_err());
        assert!(ok(&[Operand::M0, Operand::inline_int(5).unwrap(), v(2)]).is_ok());
        let add = |srcs: &[Operand]| {
            McInst::valu(
                Op::VAddcU32,
                Gen::Gfx8,
                Some(v(0)),
                Some(Operand::VCC),
                srcs,
            )
        };
        assert!(
            add(&[s(0), v(1), Operand::VCC]).is_err(),
            "implicit VCC carry-in uses the bus"
        );
        let mask =
            |srcs: &[Operand]| McInst::valu(Op::VCndmaskB32, Gen::Gfx8, Some(v(0)), None, srcs);
        assert!(
            mask(&[s(0), v(1), s(0)]).is_err(),
            "s0 and s[0:1] are two values (llvm-mc-14 refuses it too)"
        );
        assert!(
            mask(&[Operand::VCC, v(1), Operand::VCC]).is_err(),
            "vcc_lo beside vcc"
        );
        assert!(mask(&[Operand::inline_int(1).unwrap(), v(1), s(0)]).is_ok());
        let mut lit = McInst::valu(
            Op::VAddF32,
            Gen::Gfx8,
            Some(v(0)),
            None,
            &[Operand::LITERAL, v(1)],
        )
        .unwrap();
        assert_eq!(lit.enc, Enc::Vop2);
        lit.clamp = true;
        assert!(
            lit.select_encoding(Gen::Gfx8).is_err(),
            "VOP3 has no literal on gfx8"
        );
        let e64 = McInst::valu(Op::VAddF32, Gen::Gfx8, Some(v(0)), None, &[v(1), s(2)]).unwrap();
        assert_eq!(e64.enc, Enc::Vop3);
    }
}
