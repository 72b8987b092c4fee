//! The one opcode table of the GCN MC layer: for every operation, its mnemonic, encodings,
//! opcode number per generation and operand signature. The encoder, the decoder and the
//! printer all read it (and nothing else) for opcode numbers and operand shapes.
//!
//! The opcode numbers were taken from `llvm-mc-14` (assembling every row for `tahiti`,
//! `bonaire`, `tonga` and `gfx900`) and agree with the opcode tables of the ISA manuals:
//! "Southern Islands Series ISA" ch. 12, "Sea Islands Series ISA" ch. 13, "GCN3 ISA"
//! (gfx8) ch. 12 and "Vega ISA" (gfx9) ch. 12, "Microcode Formats". `tests/gcn_llvm_mc.rs`
//! checks every row against llvm-mc again.

use super::Gen;

/// An instruction encoding (microcode format). GCN3 ISA manual, chapter 12.
///
/// [`Enc::Smem`] is scalar memory in general: gfx8/gfx9 encode it as SMEM (12.4), gfx6/gfx7
/// as SMRD (SI manual 12.3). [`Enc::Global`] is gfx9's FLAT encoding with SEG = global
/// (Vega ISA 12.12); [`Enc::Mubuf`] is MUBUF (SI manual 12.5, GCN3 12.6) in the addressing
/// [`super::MubufAddr`] says: `addr64` (gfx6/gfx7 global memory), `offen` and `off` (private
/// memory on every generation), and the operand-less cache controls of every generation. [`Enc::Sdwa`]
/// and [`Enc::Dpp`] are VOP1/VOP2/VOPC with an extension dword; they use the operation's
/// native opcode. [`Enc::Ds`] holds the LDS loads and stores of workgroup memory and the
/// cross-lane operations of the LDS unit. [`Enc::Vintrp`] and [`Enc::Exp`] are the
/// pixel and vertex shaders' parameter interpolation and exports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    /// VOP1/VOP2/VOPC with SRC0 = 0xF9 and a second dword of sub-dword operand selects
    /// (gfx8/gfx9; GCN3 ISA 12.7 "VOP_SDWA", Vega ISA 12.7 "VOP_SDWA"/"VOP_SDWAB").
    Sdwa,
    /// VOP1/VOP2 with SRC0 = 0xFA and a second dword reading src0 from another lane
    /// (gfx8/gfx9; "VOP_DPP").
    Dpp,
    Flat,
    Global,
    Mubuf,
    /// Local data share (SI manual 12.8, GCN3 12.10 "DS"): workgroup-memory loads and
    /// stores, and the lane permutes, which use the LDS hardware without reading or writing
    /// LDS memory.
    Ds,
    /// Parameter interpolation (SI ISA 12.11, GCN3 ISA 12.10 "VINTRP"): one dword, `110010`
    /// on gfx6/gfx7, `110101` on gfx8/gfx9.
    Vintrp,
    /// Export (SI ISA 12.12, GCN3 ISA 12.11 "EXP"): two dwords, `111110` on gfx6/gfx7,
    /// `110001` on gfx8/gfx9.
    Exp,
}

/// How an operation's operands map to instruction fields and to assembly text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `sdst, ssrc0`.
    Sop1,
    /// `sdst` only (`s_getpc_b64`).
    Sop1Dst,
    /// `ssrc0` only (`s_setpc_b64`).
    Sop1Src,
    /// `sdst, ssrc0, ssrc1`.
    Sop2,
    /// `ssrc0, ssrc1`, result in SCC.
    Sopc,
    /// `sdst, simm16` (the SDST field is both source and destination for `s_addk_i32`).
    SopkDst,
    /// `ssrc, simm16` (`s_cmpk_*`: the SDST field holds a source).
    SopkSrc,
    /// `sdst, hwreg(...)`.
    SopkGetreg,
    /// `hwreg(...), ssrc` (the SDST field holds the source).
    SopkSetreg,
    /// `hwreg(...), literal`.
    SopkSetregImm32,
    /// No operand.
    Sopp,
    /// `simm16` as an unsigned decimal (`s_nop`).
    SoppImm,
    /// `simm16` as a signed dword offset from the next instruction.
    SoppBranch,
    /// `vmcnt(..) expcnt(..) lgkmcnt(..)`.
    SoppWaitcnt,
    /// `sdata, sbase, offset`.
    SmemLoad,
    /// No operand (`s_dcache_wb`).
    SmemNone,
    /// Vector ALU: `vdst, [sdst,] src0, [src1, [src2]]` with VOP3 modifiers.
    Valu,
    /// `vdst, vaddr`; GLOBAL adds `, saddr` (McInst `src[1]`) or `, off`.
    FlatLoad,
    /// `vaddr, vdata`; GLOBAL adds `, saddr` (McInst `src[2]`) or `, off`.
    FlatStore,
    /// `vdata, vaddr, srsrc, 0 addr64`: McInst `dst` = vdata, `src` = [vaddr, srsrc]; SOFFSET
    /// is always the inline constant 0.
    MubufLoad,
    /// `vdata, vaddr, srsrc, 0 addr64`: McInst `src` = [vaddr, vdata, srsrc].
    MubufStore,
    /// A global-memory atomic, `[vdst,] vaddr, vdata` (GLOBAL adds `, saddr` or `, off`):
    /// McInst `src` = [vaddr, vdata, saddr]; `dst`, the old value (the table's `dst` width),
    /// is present exactly when `glc` is set (the returning form, SI ISA 12.5 / Vega ISA
    /// 12.12). `vdata` of `cmpswap` is the new value then the compared one.
    FlatAtomic,
    /// `vdata, vaddr, srsrc, 0 addr64`, an atomic: McInst `src` = [vaddr, vdata, srsrc]; with
    /// `glc` it returns the old value in the first registers of `vdata`, which McInst `dst`
    /// then names as well.
    MubufAtomic,
    /// A MUBUF operation without operands (the L1 cache invalidations): no ADDR64, every
    /// field 0, on every generation.
    MubufNone,
    /// `vdst, vaddr` with the 16-bit pattern in `imm`, printed as llvm-mc's
    /// `offset:swizzle(...)` (`ds_swizzle_b32`: the data is the ADDR field's VGPR).
    DsSwizzle,
    /// `vdst, vaddr, vdata` with the 16-bit byte offset in `imm` (`ds_permute_b32`,
    /// `ds_bpermute_b32`).
    DsPermute,
    /// `vdst, vaddr` with the 16-bit byte offset in `imm` (`ds_read_*`).
    DsRead,
    /// `vaddr, vdata` (McInst `src` = [vaddr, vdata]) with the 16-bit byte offset in `imm`
    /// (`ds_write_*`).
    DsWrite,
    /// `vdst, vaddr` with two 8-bit offsets in elements, OFFSET0 in `imm` bits 7:0 and
    /// OFFSET1 in bits 15:8 (`ds_read2_b32`; `ds_read2st64_b32` counts them in units of 64
    /// elements).
    DsRead2,
    /// `vaddr, vdata0, vdata1` (McInst `src` = [vaddr, vdata0, vdata1]) with the offsets
    /// of [`Form::DsRead2`] (`ds_write2_b32`, `ds_write2st64_b32`).
    DsWrite2,
    /// A workgroup-memory atomic, `[vdst,] vaddr, vdata0[, vdata1]` (McInst `src` = [vaddr,
    /// vdata0, vdata1]) with the 16-bit byte offset in `imm`: `vdst`, the old value, exactly
    /// in the `_rtn_` forms; `ds_cmpst_*` compares with `vdata0` and writes `vdata1`.
    DsAtomic,
    /// `vdst, vsrc, attrN.c` (`v_interp_p1_f32`, `v_interp_p2_f32`): `src[0]` is the
    /// barycentric I or J; `p2` also reads `vdst`, the value `p1` left there.
    Vintrp,
    /// `vdst, p0|p10|p20, attrN.c` (`v_interp_mov_f32`): the parameter is
    /// [`super::Interp::param`].
    VintrpMov,
    /// `exp target, v, v, v, v [done] [compr] [vm]`: everything is in [`super::Export`].
    Exp,
}

/// `OpInfo::flags`: source n takes the float input modifiers abs/neg (bit n); the others
/// take SDWA's integer `sext`.
pub const FSRC0: u16 = 1 << 0;
pub const FSRC1: u16 = 1 << 1;
pub const FSRC2: u16 = 1 << 2;
/// The result is a float: the VOP3 output modifier (omod) applies.
pub const FOUT: u16 = 1 << 3;
/// On gfx6/gfx7 this VOP3-only gfx8 operation also has a VOP2 form (we always use VOP3
/// there; llvm-mc then spells it with `_e64`).
pub const VOP2_GFX67: u16 = 1 << 4;
/// The VALU destination is an SGPR (`v_readlane_b32`, `v_readfirstlane_b32`).
pub const SDST_OUT: u16 = 1 << 5;
/// Source 0 must be a VGPR (the lane-access operations).
pub const SRC0_VGPR: u16 = 1 << 6;
/// Source 1 is a lane number, a scalar operand; the VOP2 form holds it in the 8-bit VSRC1
/// field, which names a VGPR for every other operation (`v_readlane_b32`,
/// `v_writelane_b32`: VOP2 on gfx6/gfx7 only, VOP3 only on gfx8/gfx9; SI manual 12.7.1).
pub const LANE_SELECT: u16 = 1 << 7;
/// No SDWA form on gfx9 although gfx8 has one (`v_mac_f32`: llvm-mc-14 "sdwa variant of
/// this instruction is not supported" for `gfx900`).
pub const NO_SDWA_GFX9: u16 = 1 << 8;
/// A VOP2 operation whose word is followed by a 32-bit constant K (`v_madmk_f32`,
/// `v_madak_f32`; SI manual 12.7.2, GCN3 ISA 12.7). K is a literal source: src1 of
/// `v_madmk_f32` (S0 * K + S1, S1 in VSRC1 and written third) or src2 of `v_madak_f32`
/// (S0 * S1 + K); src0 is never a literal. No VOP3, SDWA or DPP form.
pub const KIMM: u16 = 1 << 9;

/// One row of the table.
#[derive(Debug)]
pub struct OpInfo {
    pub op: Op,
    /// The gfx8 mnemonic, without `_e32`/`_e64` (see [`OpInfo::mnemonic`] for renames).
    pub name: &'static str,
    /// The native (shortest) encoding.
    pub enc: Enc,
    pub form: Form,
    /// Opcode in `enc`, per generation (gfx6, gfx7, gfx8, gfx9); `None`: not available.
    pub opcode: [Option<u16>; 4],
    /// Opcode of the VOP3 (`_e64`) form of a VOP1/VOP2/VOPC operation, per generation.
    pub vop3: [Option<u16>; 4],
    /// Widths in dwords (0: absent) of the destination, the VOP3b/VOPC scalar destination
    /// and each source.
    pub dst: u8,
    pub sdst: u8,
    pub src: [u8; 3],
    pub flags: u16,
}

impl OpInfo {
    /// The opcode number of this operation in encoding `enc` on `generation`.
    /// SDWA and DPP use the native VOP1/VOP2/VOPC opcode.
    pub fn opcode_in(&self, enc: Enc, generation: Gen) -> Option<u16> {
        let g = generation as usize;
        match enc {
            _ if enc == self.enc => self.opcode[g],
            Enc::Vop3 => self.vop3[g],
            // The VOP2 form gfx6/gfx7 give some VOP3-only gfx8 operations: VOP3 opcodes
            // 256..320 are the VOP2 ones there (SI manual 12.7.3).
            Enc::Vop2 if self.flags & VOP2_GFX67 != 0 && generation <= Gen::Gfx7 => {
                self.opcode[g].map(|o| o - 256)
            }
            Enc::Sdwa if self.sdwa_on(generation) => self.opcode[g],
            Enc::Dpp if self.dpp_on(generation) => self.opcode[g],
            _ => None,
        }
    }

    /// Whether the operation has an SDWA form on `generation`: gfx8 and gfx9 give one to
    /// every VOP1/VOP2/VOPC operation whose operands are all 32-bit (VOP2's carry and mask
    /// being VCC), except the lane accesses and gfx9's `v_mac_f32` ([`NO_SDWA_GFX9`]).
    /// Checked against llvm-mc-14 for every row by `tests/gcn_sdwa_dpp_llvm_mc.rs`.
    pub fn sdwa_on(&self, generation: Gen) -> bool {
        self.extensible_on(generation)
            && !(generation == Gen::Gfx9 && self.flags & NO_SDWA_GFX9 != 0)
    }

    /// Whether the operation has a DPP form on `generation`: as SDWA, but no VOPC (llvm-mc-14
    /// on gfx8/gfx9: "dpp variant of this instruction is not supported").
    pub fn dpp_on(&self, generation: Gen) -> bool {
        self.extensible_on(generation) && self.enc != Enc::Vopc
    }

    fn extensible_on(&self, generation: Gen) -> bool {
        let lane_mask = self.src[2] == 2 && self.dst == 1;
        generation >= Gen::Gfx8
            && matches!(self.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)
            && self.opcode[generation as usize].is_some()
            && self.dst <= 1
            && self.src[0] == 1
            && self.src[1] <= 1
            && (self.src[2] == 0 || lane_mask)
            && self.flags & (SDST_OUT | LANE_SELECT | KIMM) == 0
    }

    /// The sources that take the float modifiers abs/neg (bit n: source n).
    pub fn float_srcs(&self) -> u8 {
        (self.flags & (FSRC0 | FSRC1 | FSRC2)) as u8
    }

    /// Whether the operation exists on `generation` at all (in its native encoding, or
    /// only as VOP3 like the lane-access operations on gfx8/gfx9).
    pub fn available(&self, generation: Gen) -> bool {
        let g = generation as usize;
        self.opcode[g].is_some() || self.vop3[g].is_some()
    }

    /// The number of sources.
    pub fn num_srcs(&self) -> usize {
        self.src.iter().take_while(|&&w| w != 0).count()
    }

    /// The mnemonic on `generation`. The carry-out integer adds are called `v_add_i32`
    /// etc. on gfx6/gfx7 and `v_add_co_u32` etc. on gfx9 (gfx9 reuses `v_add_u32` for an
    /// add without carry-out).
    pub fn mnemonic(&self, generation: Gen) -> &'static str {
        use Op::*;
        match (generation, self.op) {
            (Gen::Gfx6 | Gen::Gfx7, VAddU32) => "v_add_i32",
            (Gen::Gfx6 | Gen::Gfx7, VSubU32) => "v_sub_i32",
            (Gen::Gfx6 | Gen::Gfx7, VSubrevU32) => "v_subrev_i32",
            (Gen::Gfx9, VAddU32) => "v_add_co_u32",
            (Gen::Gfx9, VSubU32) => "v_sub_co_u32",
            (Gen::Gfx9, VSubrevU32) => "v_subrev_co_u32",
            (Gen::Gfx9, VAddcU32) => "v_addc_co_u32",
            (Gen::Gfx9, VSubbU32) => "v_subb_co_u32",
            (Gen::Gfx9, VSubbrevU32) => "v_subbrev_co_u32",
            _ => self.name,
        }
    }
}

impl Op {
    /// This operation's table row.
    pub fn info(self) -> &'static OpInfo {
        &OPS[self as usize]
    }

    /// All operations, in table order.
    pub fn all() -> impl Iterator<Item = Op> {
        OPS.iter().map(|info| info.op)
    }

    /// The operation with `opcode` in encoding `enc` on `generation` (VOP3 also finds the
    /// `_e64` forms of VOP1/VOP2/VOPC operations). SDWA and DPP reuse the opcodes of
    /// VOP1, VOP2 and VOPC, which overlap: look those up in the base encoding.
    pub fn from_opcode(enc: Enc, opcode: u16, generation: Gen) -> Option<Op> {
        OPS.iter()
            .find(|info| info.opcode_in(enc, generation) == Some(opcode))
            .map(|info| info.op)
    }
}

macro_rules! opc {
    (-) => {
        None
    };
    ($n:literal) => {
        Some($n)
    };
}

macro_rules! table {
    ($($variant:ident $name:literal $enc:ident $form:ident
       [$o6:tt $o7:tt $o8:tt $o9:tt] [$e6:tt $e7:tt $e8:tt $e9:tt]
       $dst:literal $sdst:literal [$s0:literal $s1:literal $s2:literal] $flags:expr;)*) => {
        /// A GCN operation, named after its gfx8 mnemonic without `_e32`/`_e64`.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $($variant,)*
        }

        static OPS: &[OpInfo] = &[$(OpInfo {
            op: Op::$variant,
            name: $name,
            enc: Enc::$enc,
            form: Form::$form,
            opcode: [opc!($o6), opc!($o7), opc!($o8), opc!($o9)],
            vop3: [opc!($e6), opc!($e7), opc!($e8), opc!($e9)],
            dst: $dst,
            sdst: $sdst,
            src: [$s0, $s1, $s2],
            flags: $flags,
        },)*];
    };
}

// Columns: variant, gfx8 mnemonic, native encoding, operand form,
// opcode in the native encoding [gfx6 gfx7 gfx8 gfx9], VOP3 opcode of the _e64 form
// [gfx6 gfx7 gfx8 gfx9], widths in dwords of dst, sdst, [src0 src1 src2], flags.
// `-`: the generation does not have it (the MUBUF atomics are used in the `addr64` form
// only, which gfx8 removed; v_readlane/v_writelane are VOP2 only on gfx6/gfx7 and VOP3 only on gfx8/gfx9).
table! {
    SMovB32              "s_mov_b32"            Sop1  Sop1             [3 3 0 0]          [- - - -]          1 0 [1 0 0] 0;
    SMovB64              "s_mov_b64"            Sop1  Sop1             [4 4 1 1]          [- - - -]          2 0 [2 0 0] 0;
    SNotB32              "s_not_b32"            Sop1  Sop1             [7 7 4 4]          [- - - -]          1 0 [1 0 0] 0;
    SNotB64              "s_not_b64"            Sop1  Sop1             [8 8 5 5]          [- - - -]          2 0 [2 0 0] 0;
    SBrevB32             "s_brev_b32"           Sop1  Sop1             [11 11 8 8]        [- - - -]          1 0 [1 0 0] 0;
    SBcnt1I32B32         "s_bcnt1_i32_b32"      Sop1  Sop1             [15 15 12 12]      [- - - -]          1 0 [1 0 0] 0;
    SBcnt1I32B64         "s_bcnt1_i32_b64"      Sop1  Sop1             [16 16 13 13]      [- - - -]          1 0 [2 0 0] 0;
    SFf1I32B32           "s_ff1_i32_b32"        Sop1  Sop1             [19 19 16 16]      [- - - -]          1 0 [1 0 0] 0;
    SFf1I32B64           "s_ff1_i32_b64"        Sop1  Sop1             [20 20 17 17]      [- - - -]          1 0 [2 0 0] 0;
    SFlbitI32B32         "s_flbit_i32_b32"      Sop1  Sop1             [21 21 18 18]      [- - - -]          1 0 [1 0 0] 0;
    SFlbitI32B64         "s_flbit_i32_b64"      Sop1  Sop1             [22 22 19 19]      [- - - -]          1 0 [2 0 0] 0;
    SFlbitI32            "s_flbit_i32"          Sop1  Sop1             [23 23 20 20]      [- - - -]          1 0 [1 0 0] 0;
    SSextI32I8           "s_sext_i32_i8"        Sop1  Sop1             [25 25 22 22]      [- - - -]          1 0 [1 0 0] 0;
    SSextI32I16          "s_sext_i32_i16"       Sop1  Sop1             [26 26 23 23]      [- - - -]          1 0 [1 0 0] 0;
    SAbsI32              "s_abs_i32"            Sop1  Sop1             [52 52 48 48]      [- - - -]          1 0 [1 0 0] 0;
    SGetpcB64            "s_getpc_b64"          Sop1  Sop1Dst          [31 31 28 28]      [- - - -]          2 0 [0 0 0] 0;
    SSetpcB64            "s_setpc_b64"          Sop1  Sop1Src          [32 32 29 29]      [- - - -]          0 0 [2 0 0] 0;
    SSwappcB64           "s_swappc_b64"         Sop1  Sop1             [33 33 30 30]      [- - - -]          2 0 [2 0 0] 0;
    SAndSaveexecB64      "s_and_saveexec_b64"   Sop1  Sop1             [36 36 32 32]      [- - - -]          2 0 [2 0 0] 0;
    SOrSaveexecB64       "s_or_saveexec_b64"    Sop1  Sop1             [37 37 33 33]      [- - - -]          2 0 [2 0 0] 0;
    SXorSaveexecB64      "s_xor_saveexec_b64"   Sop1  Sop1             [38 38 34 34]      [- - - -]          2 0 [2 0 0] 0;
    SAndn2SaveexecB64    "s_andn2_saveexec_b64" Sop1  Sop1             [39 39 35 35]      [- - - -]          2 0 [2 0 0] 0;
    SOrn2SaveexecB64     "s_orn2_saveexec_b64"  Sop1  Sop1             [40 40 36 36]      [- - - -]          2 0 [2 0 0] 0;
    SAddU32              "s_add_u32"            Sop2  Sop2             [0 0 0 0]          [- - - -]          1 0 [1 1 0] 0;
    SSubU32              "s_sub_u32"            Sop2  Sop2             [1 1 1 1]          [- - - -]          1 0 [1 1 0] 0;
    SAddI32              "s_add_i32"            Sop2  Sop2             [2 2 2 2]          [- - - -]          1 0 [1 1 0] 0;
    SSubI32              "s_sub_i32"            Sop2  Sop2             [3 3 3 3]          [- - - -]          1 0 [1 1 0] 0;
    SAddcU32             "s_addc_u32"           Sop2  Sop2             [4 4 4 4]          [- - - -]          1 0 [1 1 0] 0;
    SSubbU32             "s_subb_u32"           Sop2  Sop2             [5 5 5 5]          [- - - -]          1 0 [1 1 0] 0;
    SMinI32              "s_min_i32"            Sop2  Sop2             [6 6 6 6]          [- - - -]          1 0 [1 1 0] 0;
    SMinU32              "s_min_u32"            Sop2  Sop2             [7 7 7 7]          [- - - -]          1 0 [1 1 0] 0;
    SMaxI32              "s_max_i32"            Sop2  Sop2             [8 8 8 8]          [- - - -]          1 0 [1 1 0] 0;
    SMaxU32              "s_max_u32"            Sop2  Sop2             [9 9 9 9]          [- - - -]          1 0 [1 1 0] 0;
    SCselectB32          "s_cselect_b32"        Sop2  Sop2             [10 10 10 10]      [- - - -]          1 0 [1 1 0] 0;
    SCselectB64          "s_cselect_b64"        Sop2  Sop2             [11 11 11 11]      [- - - -]          2 0 [2 2 0] 0;
    SAndB32              "s_and_b32"            Sop2  Sop2             [14 14 12 12]      [- - - -]          1 0 [1 1 0] 0;
    SAndB64              "s_and_b64"            Sop2  Sop2             [15 15 13 13]      [- - - -]          2 0 [2 2 0] 0;
    SOrB32               "s_or_b32"             Sop2  Sop2             [16 16 14 14]      [- - - -]          1 0 [1 1 0] 0;
    SOrB64               "s_or_b64"             Sop2  Sop2             [17 17 15 15]      [- - - -]          2 0 [2 2 0] 0;
    SXorB32              "s_xor_b32"            Sop2  Sop2             [18 18 16 16]      [- - - -]          1 0 [1 1 0] 0;
    SXorB64              "s_xor_b64"            Sop2  Sop2             [19 19 17 17]      [- - - -]          2 0 [2 2 0] 0;
    SAndn2B32            "s_andn2_b32"          Sop2  Sop2             [20 20 18 18]      [- - - -]          1 0 [1 1 0] 0;
    SAndn2B64            "s_andn2_b64"          Sop2  Sop2             [21 21 19 19]      [- - - -]          2 0 [2 2 0] 0;
    SOrn2B32             "s_orn2_b32"           Sop2  Sop2             [22 22 20 20]      [- - - -]          1 0 [1 1 0] 0;
    SOrn2B64             "s_orn2_b64"           Sop2  Sop2             [23 23 21 21]      [- - - -]          2 0 [2 2 0] 0;
    SNandB32             "s_nand_b32"           Sop2  Sop2             [24 24 22 22]      [- - - -]          1 0 [1 1 0] 0;
    SNorB32              "s_nor_b32"            Sop2  Sop2             [26 26 24 24]      [- - - -]          1 0 [1 1 0] 0;
    SXnorB32             "s_xnor_b32"           Sop2  Sop2             [28 28 26 26]      [- - - -]          1 0 [1 1 0] 0;
    SLshlB32             "s_lshl_b32"           Sop2  Sop2             [30 30 28 28]      [- - - -]          1 0 [1 1 0] 0;
    SLshlB64             "s_lshl_b64"           Sop2  Sop2             [31 31 29 29]      [- - - -]          2 0 [2 1 0] 0;
    SLshrB32             "s_lshr_b32"           Sop2  Sop2             [32 32 30 30]      [- - - -]          1 0 [1 1 0] 0;
    SLshrB64             "s_lshr_b64"           Sop2  Sop2             [33 33 31 31]      [- - - -]          2 0 [2 1 0] 0;
    SAshrI32             "s_ashr_i32"           Sop2  Sop2             [34 34 32 32]      [- - - -]          1 0 [1 1 0] 0;
    SAshrI64             "s_ashr_i64"           Sop2  Sop2             [35 35 33 33]      [- - - -]          2 0 [2 1 0] 0;
    SMulI32              "s_mul_i32"            Sop2  Sop2             [38 38 36 36]      [- - - -]          1 0 [1 1 0] 0;
    SMulHiU32            "s_mul_hi_u32"         Sop2  Sop2             [- - - 44]         [- - - -]          1 0 [1 1 0] 0;
    SMulHiI32            "s_mul_hi_i32"         Sop2  Sop2             [- - - 45]         [- - - -]          1 0 [1 1 0] 0;
    SBfeU32              "s_bfe_u32"            Sop2  Sop2             [39 39 37 37]      [- - - -]          1 0 [1 1 0] 0;
    SBfeI32              "s_bfe_i32"            Sop2  Sop2             [40 40 38 38]      [- - - -]          1 0 [1 1 0] 0;
    SBfeU64              "s_bfe_u64"            Sop2  Sop2             [41 41 39 39]      [- - - -]          2 0 [2 1 0] 0;
    SBfeI64              "s_bfe_i64"            Sop2  Sop2             [42 42 40 40]      [- - - -]          2 0 [2 1 0] 0;
    SCmpEqI32            "s_cmp_eq_i32"         Sopc  Sopc             [0 0 0 0]          [- - - -]          0 0 [1 1 0] 0;
    SCmpLgI32            "s_cmp_lg_i32"         Sopc  Sopc             [1 1 1 1]          [- - - -]          0 0 [1 1 0] 0;
    SCmpGtI32            "s_cmp_gt_i32"         Sopc  Sopc             [2 2 2 2]          [- - - -]          0 0 [1 1 0] 0;
    SCmpGeI32            "s_cmp_ge_i32"         Sopc  Sopc             [3 3 3 3]          [- - - -]          0 0 [1 1 0] 0;
    SCmpLtI32            "s_cmp_lt_i32"         Sopc  Sopc             [4 4 4 4]          [- - - -]          0 0 [1 1 0] 0;
    SCmpLeI32            "s_cmp_le_i32"         Sopc  Sopc             [5 5 5 5]          [- - - -]          0 0 [1 1 0] 0;
    SCmpEqU32            "s_cmp_eq_u32"         Sopc  Sopc             [6 6 6 6]          [- - - -]          0 0 [1 1 0] 0;
    SCmpLgU32            "s_cmp_lg_u32"         Sopc  Sopc             [7 7 7 7]          [- - - -]          0 0 [1 1 0] 0;
    SCmpGtU32            "s_cmp_gt_u32"         Sopc  Sopc             [8 8 8 8]          [- - - -]          0 0 [1 1 0] 0;
    SCmpGeU32            "s_cmp_ge_u32"         Sopc  Sopc             [9 9 9 9]          [- - - -]          0 0 [1 1 0] 0;
    SCmpLtU32            "s_cmp_lt_u32"         Sopc  Sopc             [10 10 10 10]      [- - - -]          0 0 [1 1 0] 0;
    SCmpLeU32            "s_cmp_le_u32"         Sopc  Sopc             [11 11 11 11]      [- - - -]          0 0 [1 1 0] 0;
    SCmpEqU64            "s_cmp_eq_u64"         Sopc  Sopc             [- - 18 18]        [- - - -]          0 0 [2 2 0] 0;
    SCmpLgU64            "s_cmp_lg_u64"         Sopc  Sopc             [- - 19 19]        [- - - -]          0 0 [2 2 0] 0;
    SBitcmp0B32          "s_bitcmp0_b32"        Sopc  Sopc             [12 12 12 12]      [- - - -]          0 0 [1 1 0] 0;
    SBitcmp1B32          "s_bitcmp1_b32"        Sopc  Sopc             [13 13 13 13]      [- - - -]          0 0 [1 1 0] 0;
    SMovkI32             "s_movk_i32"           Sopk  SopkDst          [0 0 0 0]          [- - - -]          1 0 [0 0 0] 0;
    SAddkI32             "s_addk_i32"           Sopk  SopkDst          [15 15 14 14]      [- - - -]          1 0 [0 0 0] 0;
    SMulkI32             "s_mulk_i32"           Sopk  SopkDst          [16 16 15 15]      [- - - -]          1 0 [0 0 0] 0;
    SCmpkEqI32           "s_cmpk_eq_i32"        Sopk  SopkSrc          [3 3 2 2]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkLgI32           "s_cmpk_lg_i32"        Sopk  SopkSrc          [4 4 3 3]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkGtI32           "s_cmpk_gt_i32"        Sopk  SopkSrc          [5 5 4 4]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkGeI32           "s_cmpk_ge_i32"        Sopk  SopkSrc          [6 6 5 5]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkLtI32           "s_cmpk_lt_i32"        Sopk  SopkSrc          [7 7 6 6]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkLeI32           "s_cmpk_le_i32"        Sopk  SopkSrc          [8 8 7 7]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkEqU32           "s_cmpk_eq_u32"        Sopk  SopkSrc          [9 9 8 8]          [- - - -]          0 0 [1 0 0] 0;
    SCmpkLgU32           "s_cmpk_lg_u32"        Sopk  SopkSrc          [10 10 9 9]        [- - - -]          0 0 [1 0 0] 0;
    SCmpkGtU32           "s_cmpk_gt_u32"        Sopk  SopkSrc          [11 11 10 10]      [- - - -]          0 0 [1 0 0] 0;
    SCmpkGeU32           "s_cmpk_ge_u32"        Sopk  SopkSrc          [12 12 11 11]      [- - - -]          0 0 [1 0 0] 0;
    SCmpkLtU32           "s_cmpk_lt_u32"        Sopk  SopkSrc          [13 13 12 12]      [- - - -]          0 0 [1 0 0] 0;
    SCmpkLeU32           "s_cmpk_le_u32"        Sopk  SopkSrc          [14 14 13 13]      [- - - -]          0 0 [1 0 0] 0;
    SGetregB32           "s_getreg_b32"         Sopk  SopkGetreg       [18 18 17 17]      [- - - -]          1 0 [0 0 0] 0;
    SSetregB32           "s_setreg_b32"         Sopk  SopkSetreg       [19 19 18 18]      [- - - -]          0 0 [1 0 0] 0;
    SSetregImm32B32      "s_setreg_imm32_b32"   Sopk  SopkSetregImm32  [21 21 20 20]      [- - - -]          0 0 [1 0 0] 0;
    SNop                 "s_nop"                Sopp  SoppImm          [0 0 0 0]          [- - - -]          0 0 [0 0 0] 0;
    SEndpgm              "s_endpgm"             Sopp  Sopp             [1 1 1 1]          [- - - -]          0 0 [0 0 0] 0;
    SBranch              "s_branch"             Sopp  SoppBranch       [2 2 2 2]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchScc0         "s_cbranch_scc0"       Sopp  SoppBranch       [4 4 4 4]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchScc1         "s_cbranch_scc1"       Sopp  SoppBranch       [5 5 5 5]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchVccz         "s_cbranch_vccz"       Sopp  SoppBranch       [6 6 6 6]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchVccnz        "s_cbranch_vccnz"      Sopp  SoppBranch       [7 7 7 7]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchExecz        "s_cbranch_execz"      Sopp  SoppBranch       [8 8 8 8]          [- - - -]          0 0 [0 0 0] 0;
    SCbranchExecnz       "s_cbranch_execnz"     Sopp  SoppBranch       [9 9 9 9]          [- - - -]          0 0 [0 0 0] 0;
    SBarrier             "s_barrier"            Sopp  Sopp             [10 10 10 10]      [- - - -]          0 0 [0 0 0] 0;
    SWaitcnt             "s_waitcnt"            Sopp  SoppWaitcnt      [12 12 12 12]      [- - - -]          0 0 [0 0 0] 0;
    SLoadDword           "s_load_dword"         Smem  SmemLoad         [0 0 0 0]          [- - - -]          1 0 [2 0 0] 0;
    SLoadDwordx2         "s_load_dwordx2"       Smem  SmemLoad         [1 1 1 1]          [- - - -]          2 0 [2 0 0] 0;
    SLoadDwordx4         "s_load_dwordx4"       Smem  SmemLoad         [2 2 2 2]          [- - - -]          4 0 [2 0 0] 0;
    SLoadDwordx8         "s_load_dwordx8"       Smem  SmemLoad         [3 3 3 3]          [- - - -]          8 0 [2 0 0] 0;
    SBufferLoadDword     "s_buffer_load_dword"  Smem  SmemLoad         [8 8 8 8]          [- - - -]          1 0 [4 0 0] 0;
    SDcacheWb            "s_dcache_wb"          Smem  SmemNone         [- - 33 33]        [- - - -]          0 0 [0 0 0] 0;
    VMovB32              "v_mov_b32"            Vop1  Valu             [1 1 1 1]          [385 385 321 321]  1 0 [1 0 0] 0;
    VReadfirstlaneB32    "v_readfirstlane_b32"  Vop1  Valu             [2 2 2 2]          [- - - -]          1 0 [1 0 0] SDST_OUT|SRC0_VGPR;
    VNotB32              "v_not_b32"            Vop1  Valu             [55 55 43 43]      [439 439 363 363]  1 0 [1 0 0] 0;
    VBfrevB32            "v_bfrev_b32"          Vop1  Valu             [56 56 44 44]      [440 440 364 364]  1 0 [1 0 0] 0;
    VFfbhU32             "v_ffbh_u32"           Vop1  Valu             [57 57 45 45]      [441 441 365 365]  1 0 [1 0 0] 0;
    VFfblB32             "v_ffbl_b32"           Vop1  Valu             [58 58 46 46]      [442 442 366 366]  1 0 [1 0 0] 0;
    VFfbhI32             "v_ffbh_i32"           Vop1  Valu             [59 59 47 47]      [443 443 367 367]  1 0 [1 0 0] 0;
    VCvtF32I32           "v_cvt_f32_i32"        Vop1  Valu             [5 5 5 5]          [389 389 325 325]  1 0 [1 0 0] FOUT;
    VCvtF32U32           "v_cvt_f32_u32"        Vop1  Valu             [6 6 6 6]          [390 390 326 326]  1 0 [1 0 0] FOUT;
    VCvtU32F32           "v_cvt_u32_f32"        Vop1  Valu             [7 7 7 7]          [391 391 327 327]  1 0 [1 0 0] FSRC0;
    VCvtI32F32           "v_cvt_i32_f32"        Vop1  Valu             [8 8 8 8]          [392 392 328 328]  1 0 [1 0 0] FSRC0;
    VCvtF32Ubyte0        "v_cvt_f32_ubyte0"     Vop1  Valu             [17 17 17 17]      [401 401 337 337]  1 0 [1 0 0] FOUT;
    VCvtF32Ubyte1        "v_cvt_f32_ubyte1"     Vop1  Valu             [18 18 18 18]      [402 402 338 338]  1 0 [1 0 0] FOUT;
    VCvtF32Ubyte2        "v_cvt_f32_ubyte2"     Vop1  Valu             [19 19 19 19]      [403 403 339 339]  1 0 [1 0 0] FOUT;
    VCvtF32Ubyte3        "v_cvt_f32_ubyte3"     Vop1  Valu             [20 20 20 20]      [404 404 340 340]  1 0 [1 0 0] FOUT;
    VCvtF64F32           "v_cvt_f64_f32"        Vop1  Valu             [16 16 16 16]      [400 400 336 336]  2 0 [1 0 0] FSRC0|FOUT;
    VCvtF32F64           "v_cvt_f32_f64"        Vop1  Valu             [15 15 15 15]      [399 399 335 335]  1 0 [2 0 0] FSRC0|FOUT;
    VCvtF16F32           "v_cvt_f16_f32"        Vop1  Valu             [10 10 10 10]      [394 394 330 330]  1 0 [1 0 0] FSRC0|FOUT;
    VCvtF32F16           "v_cvt_f32_f16"        Vop1  Valu             [11 11 11 11]      [395 395 331 331]  1 0 [1 0 0] FSRC0|FOUT;
    VFractF32            "v_fract_f32"          Vop1  Valu             [32 32 27 27]      [416 416 347 347]  1 0 [1 0 0] FSRC0|FOUT;
    VTruncF32            "v_trunc_f32"          Vop1  Valu             [33 33 28 28]      [417 417 348 348]  1 0 [1 0 0] FSRC0|FOUT;
    VCeilF32             "v_ceil_f32"           Vop1  Valu             [34 34 29 29]      [418 418 349 349]  1 0 [1 0 0] FSRC0|FOUT;
    VRndneF32            "v_rndne_f32"          Vop1  Valu             [35 35 30 30]      [419 419 350 350]  1 0 [1 0 0] FSRC0|FOUT;
    VFloorF32            "v_floor_f32"          Vop1  Valu             [36 36 31 31]      [420 420 351 351]  1 0 [1 0 0] FSRC0|FOUT;
    VRcpF32              "v_rcp_f32"            Vop1  Valu             [42 42 34 34]      [426 426 354 354]  1 0 [1 0 0] FSRC0|FOUT;
    VRcpIflagF32         "v_rcp_iflag_f32"      Vop1  Valu             [43 43 35 35]      [427 427 355 355]  1 0 [1 0 0] FSRC0|FOUT;
    VRsqF32              "v_rsq_f32"            Vop1  Valu             [46 46 36 36]      [430 430 356 356]  1 0 [1 0 0] FSRC0|FOUT;
    VSqrtF32             "v_sqrt_f32"           Vop1  Valu             [51 51 39 39]      [435 435 359 359]  1 0 [1 0 0] FSRC0|FOUT;
    VRcpF64              "v_rcp_f64"            Vop1  Valu             [47 47 37 37]      [431 431 357 357]  2 0 [2 0 0] FSRC0|FOUT;
    VCvtI32F64           "v_cvt_i32_f64"        Vop1  Valu             [3 3 3 3]          [387 387 323 323]  1 0 [2 0 0] FSRC0;
    VCvtF64I32           "v_cvt_f64_i32"        Vop1  Valu             [4 4 4 4]          [388 388 324 324]  2 0 [1 0 0] FOUT;
    VCvtU32F64           "v_cvt_u32_f64"        Vop1  Valu             [21 21 21 21]      [405 405 341 341]  1 0 [2 0 0] FSRC0;
    VCvtF64U32           "v_cvt_f64_u32"        Vop1  Valu             [22 22 22 22]      [406 406 342 342]  2 0 [1 0 0] FOUT;
    VTruncF64            "v_trunc_f64"          Vop1  Valu             [- 23 23 23]       [- 407 343 343]    2 0 [2 0 0] FSRC0|FOUT;
    VCeilF64             "v_ceil_f64"           Vop1  Valu             [- 24 24 24]       [- 408 344 344]    2 0 [2 0 0] FSRC0|FOUT;
    VRndneF64            "v_rndne_f64"          Vop1  Valu             [- 25 25 25]       [- 409 345 345]    2 0 [2 0 0] FSRC0|FOUT;
    VFloorF64            "v_floor_f64"          Vop1  Valu             [- 26 26 26]       [- 410 346 346]    2 0 [2 0 0] FSRC0|FOUT;
    VRsqF64              "v_rsq_f64"            Vop1  Valu             [49 49 38 38]      [433 433 358 358]  2 0 [2 0 0] FSRC0|FOUT;
    VFrexpExpI32F32      "v_frexp_exp_i32_f32"  Vop1  Valu             [63 63 51 51]      [447 447 371 371]  1 0 [1 0 0] FSRC0;
    VFrexpMantF32        "v_frexp_mant_f32"     Vop1  Valu             [64 64 52 52]      [448 448 372 372]  1 0 [1 0 0] FSRC0|FOUT;
    VCndmaskB32          "v_cndmask_b32"        Vop2  Valu             [0 0 0 0]          [256 256 256 256]  1 0 [1 1 2] 0;
    VAddF32              "v_add_f32"            Vop2  Valu             [3 3 1 1]          [259 259 257 257]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VSubF32              "v_sub_f32"            Vop2  Valu             [4 4 2 2]          [260 260 258 258]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VSubrevF32           "v_subrev_f32"         Vop2  Valu             [5 5 3 3]          [261 261 259 259]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMulF32              "v_mul_f32"            Vop2  Valu             [8 8 5 5]          [264 264 261 261]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMulI32I24           "v_mul_i32_i24"        Vop2  Valu             [9 9 6 6]          [265 265 262 262]  1 0 [1 1 0] 0;
    VMulU32U24           "v_mul_u32_u24"        Vop2  Valu             [11 11 8 8]        [267 267 264 264]  1 0 [1 1 0] 0;
    VMinLegacyF32        "v_min_legacy_f32"     Vop2  Valu             [13 13 - -]        [269 269 - -]      1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMaxLegacyF32        "v_max_legacy_f32"     Vop2  Valu             [14 14 - -]        [270 270 - -]      1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMinF32              "v_min_f32"            Vop2  Valu             [15 15 10 10]      [271 271 266 266]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMaxF32              "v_max_f32"            Vop2  Valu             [16 16 11 11]      [272 272 267 267]  1 0 [1 1 0] FSRC0|FSRC1|FOUT;
    VMinI32              "v_min_i32"            Vop2  Valu             [17 17 12 12]      [273 273 268 268]  1 0 [1 1 0] 0;
    VMaxI32              "v_max_i32"            Vop2  Valu             [18 18 13 13]      [274 274 269 269]  1 0 [1 1 0] 0;
    VMinU32              "v_min_u32"            Vop2  Valu             [19 19 14 14]      [275 275 270 270]  1 0 [1 1 0] 0;
    VMaxU32              "v_max_u32"            Vop2  Valu             [20 20 15 15]      [276 276 271 271]  1 0 [1 1 0] 0;
    VLshrrevB32          "v_lshrrev_b32"        Vop2  Valu             [22 22 16 16]      [278 278 272 272]  1 0 [1 1 0] 0;
    VAshrrevI32          "v_ashrrev_i32"        Vop2  Valu             [24 24 17 17]      [280 280 273 273]  1 0 [1 1 0] 0;
    VLshlrevB32          "v_lshlrev_b32"        Vop2  Valu             [26 26 18 18]      [282 282 274 274]  1 0 [1 1 0] 0;
    VAndB32              "v_and_b32"            Vop2  Valu             [27 27 19 19]      [283 283 275 275]  1 0 [1 1 0] 0;
    VOrB32               "v_or_b32"             Vop2  Valu             [28 28 20 20]      [284 284 276 276]  1 0 [1 1 0] 0;
    VXorB32              "v_xor_b32"            Vop2  Valu             [29 29 21 21]      [285 285 277 277]  1 0 [1 1 0] 0;
    VMadmkF32            "v_madmk_f32"          Vop2  Valu             [32 32 23 23]      [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT|KIMM;
    VMadakF32            "v_madak_f32"          Vop2  Valu             [33 33 24 24]      [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT|KIMM;
    VMacF32              "v_mac_f32"            Vop2  Valu             [31 31 22 22]      [287 287 278 278]  1 0 [1 1 0] FSRC0|FSRC1|FOUT|NO_SDWA_GFX9;
    VAddU32              "v_add_u32"            Vop2  Valu             [37 37 25 25]      [293 293 281 281]  1 2 [1 1 0] 0;
    VSubU32              "v_sub_u32"            Vop2  Valu             [38 38 26 26]      [294 294 282 282]  1 2 [1 1 0] 0;
    VSubrevU32           "v_subrev_u32"         Vop2  Valu             [39 39 27 27]      [295 295 283 283]  1 2 [1 1 0] 0;
    VAddcU32             "v_addc_u32"           Vop2  Valu             [40 40 28 28]      [296 296 284 284]  1 2 [1 1 2] 0;
    VSubbU32             "v_subb_u32"           Vop2  Valu             [41 41 29 29]      [297 297 285 285]  1 2 [1 1 2] 0;
    VSubbrevU32          "v_subbrev_u32"        Vop2  Valu             [42 42 30 30]      [298 298 286 286]  1 2 [1 1 2] 0;
    VAddNcU32            "v_add_u32"            Vop2  Valu             [- - - 52]         [- - - 308]        1 0 [1 1 0] 0;
    VSubNcU32            "v_sub_u32"            Vop2  Valu             [- - - 53]         [- - - 309]        1 0 [1 1 0] 0;
    VSubrevNcU32         "v_subrev_u32"         Vop2  Valu             [- - - 54]         [- - - 310]        1 0 [1 1 0] 0;
    VAddU16              "v_add_u16"            Vop2  Valu             [- - 38 38]        [- - 294 294]      1 0 [1 1 0] 0;
    VSubU16              "v_sub_u16"            Vop2  Valu             [- - 39 39]        [- - 295 295]      1 0 [1 1 0] 0;
    VSubrevU16           "v_subrev_u16"         Vop2  Valu             [- - 40 40]        [- - 296 296]      1 0 [1 1 0] 0;
    VMulLoU16            "v_mul_lo_u16"         Vop2  Valu             [- - 41 41]        [- - 297 297]      1 0 [1 1 0] 0;
    VLshlrevB16          "v_lshlrev_b16"        Vop2  Valu             [- - 42 42]        [- - 298 298]      1 0 [1 1 0] 0;
    VLshrrevB16          "v_lshrrev_b16"        Vop2  Valu             [- - 43 43]        [- - 299 299]      1 0 [1 1 0] 0;
    VAshrrevI16          "v_ashrrev_i16"        Vop2  Valu             [- - 44 44]        [- - 300 300]      1 0 [1 1 0] 0;
    VMaxU16              "v_max_u16"            Vop2  Valu             [- - 47 47]        [- - 303 303]      1 0 [1 1 0] 0;
    VMaxI16              "v_max_i16"            Vop2  Valu             [- - 48 48]        [- - 304 304]      1 0 [1 1 0] 0;
    VMinU16              "v_min_u16"            Vop2  Valu             [- - 49 49]        [- - 305 305]      1 0 [1 1 0] 0;
    VMinI16              "v_min_i16"            Vop2  Valu             [- - 50 50]        [- - 306 306]      1 0 [1 1 0] 0;
    VReadlaneB32         "v_readlane_b32"       Vop2  Valu             [1 1 - -]          [- - 649 649]      1 0 [1 1 0] SDST_OUT|SRC0_VGPR|LANE_SELECT;
    VWritelaneB32        "v_writelane_b32"      Vop2  Valu             [2 2 - -]          [- - 650 650]      1 0 [1 1 0] LANE_SELECT;
    VMulLoU32            "v_mul_lo_u32"         Vop3  Valu             [361 361 645 645]  [- - - -]          1 0 [1 1 0] 0;
    VMulHiU32            "v_mul_hi_u32"         Vop3  Valu             [362 362 646 646]  [- - - -]          1 0 [1 1 0] 0;
    VMulHiI32            "v_mul_hi_i32"         Vop3  Valu             [364 364 647 647]  [- - - -]          1 0 [1 1 0] 0;
    VMadU64U32           "v_mad_u64_u32"        Vop3  Valu             [- 374 488 488]    [- - - -]          2 2 [1 1 2] 0;
    VMadI64I32           "v_mad_i64_i32"        Vop3  Valu             [- 375 489 489]    [- - - -]          2 2 [1 1 2] 0;
    VLshlrevB64          "v_lshlrev_b64"        Vop3  Valu             [- - 655 655]      [- - - -]          2 0 [1 2 0] 0;
    VLshrrevB64          "v_lshrrev_b64"        Vop3  Valu             [- - 656 656]      [- - - -]          2 0 [1 2 0] 0;
    VAshrrevI64          "v_ashrrev_i64"        Vop3  Valu             [- - 657 657]      [- - - -]          2 0 [1 2 0] 0;
    VLshlB64             "v_lshl_b64"           Vop3  Valu             [353 353 - -]      [- - - -]          2 0 [2 1 0] 0;
    VLshrB64             "v_lshr_b64"           Vop3  Valu             [354 354 - -]      [- - - -]          2 0 [2 1 0] 0;
    VAshrI64             "v_ashr_i64"           Vop3  Valu             [355 355 - -]      [- - - -]          2 0 [2 1 0] 0;
    VBcntU32B32          "v_bcnt_u32_b32"       Vop3  Valu             [290 290 651 651]  [- - - -]          1 0 [1 1 0] VOP2_GFX67;
    VBfeU32              "v_bfe_u32"            Vop3  Valu             [328 328 456 456]  [- - - -]          1 0 [1 1 1] 0;
    VBfeI32              "v_bfe_i32"            Vop3  Valu             [329 329 457 457]  [- - - -]          1 0 [1 1 1] 0;
    VBfiB32              "v_bfi_b32"            Vop3  Valu             [330 330 458 458]  [- - - -]          1 0 [1 1 1] 0;
    VAlignbitB32         "v_alignbit_b32"       Vop3  Valu             [334 334 462 462]  [- - - -]          1 0 [1 1 1] 0;
    VPermB32             "v_perm_b32"           Vop3  Valu             [- - 493 493]      [- - - -]          1 0 [1 1 1] 0;
    VXadU32              "v_xad_u32"            Vop3  Valu             [- - - 499]        [- - - -]          1 0 [1 1 1] 0;
    VLshlAddU32          "v_lshl_add_u32"       Vop3  Valu             [- - - 509]        [- - - -]          1 0 [1 1 1] 0;
    VAddLshlU32          "v_add_lshl_u32"       Vop3  Valu             [- - - 510]        [- - - -]          1 0 [1 1 1] 0;
    VAdd3U32             "v_add3_u32"           Vop3  Valu             [- - - 511]        [- - - -]          1 0 [1 1 1] 0;
    VLshlOrB32           "v_lshl_or_b32"        Vop3  Valu             [- - - 512]        [- - - -]          1 0 [1 1 1] 0;
    VAndOrB32            "v_and_or_b32"         Vop3  Valu             [- - - 513]        [- - - -]          1 0 [1 1 1] 0;
    VOr3B32              "v_or3_b32"            Vop3  Valu             [- - - 514]        [- - - -]          1 0 [1 1 1] 0;
    VMadF32              "v_mad_f32"            Vop3  Valu             [321 321 449 449]  [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VFmaF32              "v_fma_f32"            Vop3  Valu             [331 331 459 459]  [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VMed3F32             "v_med3_f32"           Vop3  Valu             [343 343 470 470]  [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VDivScaleF32         "v_div_scale_f32"      Vop3  Valu             [365 365 480 480]  [- - - -]          1 2 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VDivFmasF32          "v_div_fmas_f32"       Vop3  Valu             [367 367 482 482]  [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VDivFixupF32         "v_div_fixup_f32"      Vop3  Valu             [351 351 478 478]  [- - - -]          1 0 [1 1 1] FSRC0|FSRC1|FSRC2|FOUT;
    VLdexpF32            "v_ldexp_f32"          Vop3  Valu             [299 299 648 648]  [- - - -]          1 0 [1 1 0] FSRC0|FOUT|VOP2_GFX67;
    VCvtPkrtzF16F32      "v_cvt_pkrtz_f16_f32"  Vop3  Valu             [303 303 662 662]  [- - - -]          1 0 [1 1 0] FSRC0|FSRC1|VOP2_GFX67;
    VMbcntLoU32B32       "v_mbcnt_lo_u32_b32"   Vop3  Valu             [291 291 652 652]  [- - - -]          1 0 [1 1 0] VOP2_GFX67;
    VMbcntHiU32B32       "v_mbcnt_hi_u32_b32"   Vop3  Valu             [292 292 653 653]  [- - - -]          1 0 [1 1 0] VOP2_GFX67;
    VAddF64              "v_add_f64"            Vop3  Valu             [356 356 640 640]  [- - - -]          2 0 [2 2 0] FSRC0|FSRC1|FOUT;
    VMulF64              "v_mul_f64"            Vop3  Valu             [357 357 641 641]  [- - - -]          2 0 [2 2 0] FSRC0|FSRC1|FOUT;
    VFmaF64              "v_fma_f64"            Vop3  Valu             [332 332 460 460]  [- - - -]          2 0 [2 2 2] FSRC0|FSRC1|FSRC2|FOUT;
    VMinF64              "v_min_f64"            Vop3  Valu             [358 358 642 642]  [- - - -]          2 0 [2 2 0] FSRC0|FSRC1|FOUT;
    VMaxF64              "v_max_f64"            Vop3  Valu             [359 359 643 643]  [- - - -]          2 0 [2 2 0] FSRC0|FSRC1|FOUT;
    VLdexpF64            "v_ldexp_f64"          Vop3  Valu             [360 360 644 644]  [- - - -]          2 0 [2 1 0] FSRC0|FOUT;
    VDivScaleF64         "v_div_scale_f64"      Vop3  Valu             [366 366 481 481]  [- - - -]          2 2 [2 2 2] FSRC0|FSRC1|FSRC2|FOUT;
    VDivFmasF64          "v_div_fmas_f64"       Vop3  Valu             [368 368 483 483]  [- - - -]          2 0 [2 2 2] FSRC0|FSRC1|FSRC2|FOUT;
    VDivFixupF64         "v_div_fixup_f64"      Vop3  Valu             [352 352 479 479]  [- - - -]          2 0 [2 2 2] FSRC0|FSRC1|FSRC2|FOUT;
    VCmpClassF32         "v_cmp_class_f32"      Vopc  Valu             [136 136 16 16]    [136 136 16 16]    0 2 [1 1 0] FSRC0;
    FlatLoadUbyte        "flat_load_ubyte"      Flat  FlatLoad         [- 8 16 16]        [- - - -]          1 0 [2 0 0] 0;
    FlatLoadSbyte        "flat_load_sbyte"      Flat  FlatLoad         [- 9 17 17]        [- - - -]          1 0 [2 0 0] 0;
    FlatLoadUshort       "flat_load_ushort"     Flat  FlatLoad         [- 10 18 18]       [- - - -]          1 0 [2 0 0] 0;
    FlatLoadSshort       "flat_load_sshort"     Flat  FlatLoad         [- 11 19 19]       [- - - -]          1 0 [2 0 0] 0;
    FlatLoadDword        "flat_load_dword"      Flat  FlatLoad         [- 12 20 20]       [- - - -]          1 0 [2 0 0] 0;
    FlatLoadDwordx2      "flat_load_dwordx2"    Flat  FlatLoad         [- 13 21 21]       [- - - -]          2 0 [2 0 0] 0;
    FlatLoadDwordx4      "flat_load_dwordx4"    Flat  FlatLoad         [- 14 23 23]       [- - - -]          4 0 [2 0 0] 0;
    FlatStoreByte        "flat_store_byte"      Flat  FlatStore        [- 24 24 24]       [- - - -]          0 0 [2 1 0] 0;
    FlatStoreShort       "flat_store_short"     Flat  FlatStore        [- 26 26 26]       [- - - -]          0 0 [2 1 0] 0;
    FlatStoreDword       "flat_store_dword"     Flat  FlatStore        [- 28 28 28]       [- - - -]          0 0 [2 1 0] 0;
    FlatStoreDwordx2     "flat_store_dwordx2"   Flat  FlatStore        [- 29 29 29]       [- - - -]          0 0 [2 2 0] 0;
    FlatStoreDwordx4     "flat_store_dwordx4"   Flat  FlatStore        [- 30 31 31]       [- - - -]          0 0 [2 4 0] 0;
    GlobalLoadUbyte      "global_load_ubyte"    Global FlatLoad        [- - - 16]         [- - - -]          1 0 [2 0 0] 0;
    GlobalLoadSbyte      "global_load_sbyte"    Global FlatLoad        [- - - 17]         [- - - -]          1 0 [2 0 0] 0;
    GlobalLoadUshort     "global_load_ushort"   Global FlatLoad        [- - - 18]         [- - - -]          1 0 [2 0 0] 0;
    GlobalLoadSshort     "global_load_sshort"   Global FlatLoad        [- - - 19]         [- - - -]          1 0 [2 0 0] 0;
    GlobalLoadDword      "global_load_dword"    Global FlatLoad        [- - - 20]         [- - - -]          1 0 [2 0 0] 0;
    GlobalLoadDwordx2    "global_load_dwordx2"  Global FlatLoad        [- - - 21]         [- - - -]          2 0 [2 0 0] 0;
    GlobalLoadDwordx4    "global_load_dwordx4"  Global FlatLoad        [- - - 23]         [- - - -]          4 0 [2 0 0] 0;
    GlobalStoreByte      "global_store_byte"    Global FlatStore       [- - - 24]         [- - - -]          0 0 [2 1 0] 0;
    GlobalStoreShort     "global_store_short"   Global FlatStore       [- - - 26]         [- - - -]          0 0 [2 1 0] 0;
    GlobalStoreDword     "global_store_dword"   Global FlatStore       [- - - 28]         [- - - -]          0 0 [2 1 0] 0;
    GlobalStoreDwordx2   "global_store_dwordx2" Global FlatStore       [- - - 29]         [- - - -]          0 0 [2 2 0] 0;
    GlobalStoreDwordx4   "global_store_dwordx4" Global FlatStore       [- - - 31]         [- - - -]          0 0 [2 4 0] 0;
    BufferLoadUbyte      "buffer_load_ubyte"    Mubuf MubufLoad        [8 8 16 16]        [- - - -]          1 0 [2 4 0] 0;
    BufferLoadSbyte      "buffer_load_sbyte"    Mubuf MubufLoad        [9 9 17 17]        [- - - -]          1 0 [2 4 0] 0;
    BufferLoadUshort     "buffer_load_ushort"   Mubuf MubufLoad        [10 10 18 18]      [- - - -]          1 0 [2 4 0] 0;
    BufferLoadSshort     "buffer_load_sshort"   Mubuf MubufLoad        [11 11 19 19]      [- - - -]          1 0 [2 4 0] 0;
    BufferLoadDword      "buffer_load_dword"    Mubuf MubufLoad        [12 12 20 20]      [- - - -]          1 0 [2 4 0] 0;
    BufferLoadDwordx2    "buffer_load_dwordx2"  Mubuf MubufLoad        [13 13 21 21]      [- - - -]          2 0 [2 4 0] 0;
    BufferLoadDwordx4    "buffer_load_dwordx4"  Mubuf MubufLoad        [14 14 23 23]      [- - - -]          4 0 [2 4 0] 0;
    BufferStoreByte      "buffer_store_byte"    Mubuf MubufStore       [24 24 24 24]      [- - - -]          0 0 [2 1 4] 0;
    BufferStoreShort     "buffer_store_short"   Mubuf MubufStore       [26 26 26 26]      [- - - -]          0 0 [2 1 4] 0;
    BufferStoreDword     "buffer_store_dword"   Mubuf MubufStore       [28 28 28 28]      [- - - -]          0 0 [2 1 4] 0;
    BufferStoreDwordx2   "buffer_store_dwordx2" Mubuf MubufStore       [29 29 29 29]      [- - - -]          0 0 [2 2 4] 0;
    BufferStoreDwordx4   "buffer_store_dwordx4" Mubuf MubufStore       [30 30 31 31]      [- - - -]          0 0 [2 4 4] 0;
    FlatAtomicSwap           "flat_atomic_swap"          Flat   FlatAtomic    [- 48 64 64]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicCmpswap        "flat_atomic_cmpswap"       Flat   FlatAtomic    [- 49 65 65]       [- - - -]          1 0 [2 2 0] 0;
    FlatAtomicAdd            "flat_atomic_add"           Flat   FlatAtomic    [- 50 66 66]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicSub            "flat_atomic_sub"           Flat   FlatAtomic    [- 51 67 67]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicSmin           "flat_atomic_smin"          Flat   FlatAtomic    [- 53 68 68]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicUmin           "flat_atomic_umin"          Flat   FlatAtomic    [- 54 69 69]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicSmax           "flat_atomic_smax"          Flat   FlatAtomic    [- 55 70 70]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicUmax           "flat_atomic_umax"          Flat   FlatAtomic    [- 56 71 71]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicAnd            "flat_atomic_and"           Flat   FlatAtomic    [- 57 72 72]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicOr             "flat_atomic_or"            Flat   FlatAtomic    [- 58 73 73]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicXor            "flat_atomic_xor"           Flat   FlatAtomic    [- 59 74 74]       [- - - -]          1 0 [2 1 0] 0;
    FlatAtomicSwapX2         "flat_atomic_swap_x2"       Flat   FlatAtomic    [- 80 96 96]       [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicCmpswapX2      "flat_atomic_cmpswap_x2"    Flat   FlatAtomic    [- 81 97 97]       [- - - -]          2 0 [2 4 0] 0;
    FlatAtomicAddX2          "flat_atomic_add_x2"        Flat   FlatAtomic    [- 82 98 98]       [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicSubX2          "flat_atomic_sub_x2"        Flat   FlatAtomic    [- 83 99 99]       [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicSminX2         "flat_atomic_smin_x2"       Flat   FlatAtomic    [- 85 100 100]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicUminX2         "flat_atomic_umin_x2"       Flat   FlatAtomic    [- 86 101 101]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicSmaxX2         "flat_atomic_smax_x2"       Flat   FlatAtomic    [- 87 102 102]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicUmaxX2         "flat_atomic_umax_x2"       Flat   FlatAtomic    [- 88 103 103]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicAndX2          "flat_atomic_and_x2"        Flat   FlatAtomic    [- 89 104 104]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicOrX2           "flat_atomic_or_x2"         Flat   FlatAtomic    [- 90 105 105]     [- - - -]          2 0 [2 2 0] 0;
    FlatAtomicXorX2          "flat_atomic_xor_x2"        Flat   FlatAtomic    [- 91 106 106]     [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicSwap         "global_atomic_swap"        Global FlatAtomic    [- - - 64]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicCmpswap      "global_atomic_cmpswap"     Global FlatAtomic    [- - - 65]         [- - - -]          1 0 [2 2 0] 0;
    GlobalAtomicAdd          "global_atomic_add"         Global FlatAtomic    [- - - 66]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicSub          "global_atomic_sub"         Global FlatAtomic    [- - - 67]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicSmin         "global_atomic_smin"        Global FlatAtomic    [- - - 68]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicUmin         "global_atomic_umin"        Global FlatAtomic    [- - - 69]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicSmax         "global_atomic_smax"        Global FlatAtomic    [- - - 70]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicUmax         "global_atomic_umax"        Global FlatAtomic    [- - - 71]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicAnd          "global_atomic_and"         Global FlatAtomic    [- - - 72]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicOr           "global_atomic_or"          Global FlatAtomic    [- - - 73]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicXor          "global_atomic_xor"         Global FlatAtomic    [- - - 74]         [- - - -]          1 0 [2 1 0] 0;
    GlobalAtomicSwapX2       "global_atomic_swap_x2"     Global FlatAtomic    [- - - 96]         [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicCmpswapX2    "global_atomic_cmpswap_x2"  Global FlatAtomic    [- - - 97]         [- - - -]          2 0 [2 4 0] 0;
    GlobalAtomicAddX2        "global_atomic_add_x2"      Global FlatAtomic    [- - - 98]         [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicSubX2        "global_atomic_sub_x2"      Global FlatAtomic    [- - - 99]         [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicSminX2       "global_atomic_smin_x2"     Global FlatAtomic    [- - - 100]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicUminX2       "global_atomic_umin_x2"     Global FlatAtomic    [- - - 101]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicSmaxX2       "global_atomic_smax_x2"     Global FlatAtomic    [- - - 102]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicUmaxX2       "global_atomic_umax_x2"     Global FlatAtomic    [- - - 103]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicAndX2        "global_atomic_and_x2"      Global FlatAtomic    [- - - 104]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicOrX2         "global_atomic_or_x2"       Global FlatAtomic    [- - - 105]        [- - - -]          2 0 [2 2 0] 0;
    GlobalAtomicXorX2        "global_atomic_xor_x2"      Global FlatAtomic    [- - - 106]        [- - - -]          2 0 [2 2 0] 0;
    BufferAtomicSwap         "buffer_atomic_swap"        Mubuf  MubufAtomic   [48 48 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicCmpswap      "buffer_atomic_cmpswap"     Mubuf  MubufAtomic   [49 49 - -]        [- - - -]          1 0 [2 2 4] 0;
    BufferAtomicAdd          "buffer_atomic_add"         Mubuf  MubufAtomic   [50 50 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicSub          "buffer_atomic_sub"         Mubuf  MubufAtomic   [51 51 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicSmin         "buffer_atomic_smin"        Mubuf  MubufAtomic   [53 53 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicUmin         "buffer_atomic_umin"        Mubuf  MubufAtomic   [54 54 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicSmax         "buffer_atomic_smax"        Mubuf  MubufAtomic   [55 55 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicUmax         "buffer_atomic_umax"        Mubuf  MubufAtomic   [56 56 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicAnd          "buffer_atomic_and"         Mubuf  MubufAtomic   [57 57 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicOr           "buffer_atomic_or"          Mubuf  MubufAtomic   [58 58 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicXor          "buffer_atomic_xor"         Mubuf  MubufAtomic   [59 59 - -]        [- - - -]          1 0 [2 1 4] 0;
    BufferAtomicSwapX2       "buffer_atomic_swap_x2"     Mubuf  MubufAtomic   [80 80 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicCmpswapX2    "buffer_atomic_cmpswap_x2"  Mubuf  MubufAtomic   [81 81 - -]        [- - - -]          2 0 [2 4 4] 0;
    BufferAtomicAddX2        "buffer_atomic_add_x2"      Mubuf  MubufAtomic   [82 82 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicSubX2        "buffer_atomic_sub_x2"      Mubuf  MubufAtomic   [83 83 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicSminX2       "buffer_atomic_smin_x2"     Mubuf  MubufAtomic   [85 85 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicUminX2       "buffer_atomic_umin_x2"     Mubuf  MubufAtomic   [86 86 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicSmaxX2       "buffer_atomic_smax_x2"     Mubuf  MubufAtomic   [87 87 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicUmaxX2       "buffer_atomic_umax_x2"     Mubuf  MubufAtomic   [88 88 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicAndX2        "buffer_atomic_and_x2"      Mubuf  MubufAtomic   [89 89 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicOrX2         "buffer_atomic_or_x2"       Mubuf  MubufAtomic   [90 90 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferAtomicXorX2        "buffer_atomic_xor_x2"      Mubuf  MubufAtomic   [91 91 - -]        [- - - -]          2 0 [2 2 4] 0;
    BufferWbinvl1            "buffer_wbinvl1"            Mubuf  MubufNone     [113 113 62 62]    [- - - -]          0 0 [0 0 0] 0;
    BufferWbinvl1Vol         "buffer_wbinvl1_vol"        Mubuf  MubufNone     [- 112 63 63]      [- - - -]          0 0 [0 0 0] 0;
    VCmpFI32             "v_cmp_f_i32"          Vopc  Valu             [128 128 192 192]  [128 128 192 192]  0 2 [1 1 0] 0;
    VCmpLtI32            "v_cmp_lt_i32"         Vopc  Valu             [129 129 193 193]  [129 129 193 193]  0 2 [1 1 0] 0;
    VCmpEqI32            "v_cmp_eq_i32"         Vopc  Valu             [130 130 194 194]  [130 130 194 194]  0 2 [1 1 0] 0;
    VCmpLeI32            "v_cmp_le_i32"         Vopc  Valu             [131 131 195 195]  [131 131 195 195]  0 2 [1 1 0] 0;
    VCmpGtI32            "v_cmp_gt_i32"         Vopc  Valu             [132 132 196 196]  [132 132 196 196]  0 2 [1 1 0] 0;
    VCmpNeI32            "v_cmp_ne_i32"         Vopc  Valu             [133 133 197 197]  [133 133 197 197]  0 2 [1 1 0] 0;
    VCmpGeI32            "v_cmp_ge_i32"         Vopc  Valu             [134 134 198 198]  [134 134 198 198]  0 2 [1 1 0] 0;
    VCmpTI32             "v_cmp_t_i32"          Vopc  Valu             [135 135 199 199]  [135 135 199 199]  0 2 [1 1 0] 0;
    VCmpFU32             "v_cmp_f_u32"          Vopc  Valu             [192 192 200 200]  [192 192 200 200]  0 2 [1 1 0] 0;
    VCmpLtU32            "v_cmp_lt_u32"         Vopc  Valu             [193 193 201 201]  [193 193 201 201]  0 2 [1 1 0] 0;
    VCmpEqU32            "v_cmp_eq_u32"         Vopc  Valu             [194 194 202 202]  [194 194 202 202]  0 2 [1 1 0] 0;
    VCmpLeU32            "v_cmp_le_u32"         Vopc  Valu             [195 195 203 203]  [195 195 203 203]  0 2 [1 1 0] 0;
    VCmpGtU32            "v_cmp_gt_u32"         Vopc  Valu             [196 196 204 204]  [196 196 204 204]  0 2 [1 1 0] 0;
    VCmpNeU32            "v_cmp_ne_u32"         Vopc  Valu             [197 197 205 205]  [197 197 205 205]  0 2 [1 1 0] 0;
    VCmpGeU32            "v_cmp_ge_u32"         Vopc  Valu             [198 198 206 206]  [198 198 206 206]  0 2 [1 1 0] 0;
    VCmpTU32             "v_cmp_t_u32"          Vopc  Valu             [199 199 207 207]  [199 199 207 207]  0 2 [1 1 0] 0;
    VCmpFI64             "v_cmp_f_i64"          Vopc  Valu             [160 160 224 224]  [160 160 224 224]  0 2 [2 2 0] 0;
    VCmpLtI64            "v_cmp_lt_i64"         Vopc  Valu             [161 161 225 225]  [161 161 225 225]  0 2 [2 2 0] 0;
    VCmpEqI64            "v_cmp_eq_i64"         Vopc  Valu             [162 162 226 226]  [162 162 226 226]  0 2 [2 2 0] 0;
    VCmpLeI64            "v_cmp_le_i64"         Vopc  Valu             [163 163 227 227]  [163 163 227 227]  0 2 [2 2 0] 0;
    VCmpGtI64            "v_cmp_gt_i64"         Vopc  Valu             [164 164 228 228]  [164 164 228 228]  0 2 [2 2 0] 0;
    VCmpNeI64            "v_cmp_ne_i64"         Vopc  Valu             [165 165 229 229]  [165 165 229 229]  0 2 [2 2 0] 0;
    VCmpGeI64            "v_cmp_ge_i64"         Vopc  Valu             [166 166 230 230]  [166 166 230 230]  0 2 [2 2 0] 0;
    VCmpTI64             "v_cmp_t_i64"          Vopc  Valu             [167 167 231 231]  [167 167 231 231]  0 2 [2 2 0] 0;
    VCmpFU64             "v_cmp_f_u64"          Vopc  Valu             [224 224 232 232]  [224 224 232 232]  0 2 [2 2 0] 0;
    VCmpLtU64            "v_cmp_lt_u64"         Vopc  Valu             [225 225 233 233]  [225 225 233 233]  0 2 [2 2 0] 0;
    VCmpEqU64            "v_cmp_eq_u64"         Vopc  Valu             [226 226 234 234]  [226 226 234 234]  0 2 [2 2 0] 0;
    VCmpLeU64            "v_cmp_le_u64"         Vopc  Valu             [227 227 235 235]  [227 227 235 235]  0 2 [2 2 0] 0;
    VCmpGtU64            "v_cmp_gt_u64"         Vopc  Valu             [228 228 236 236]  [228 228 236 236]  0 2 [2 2 0] 0;
    VCmpNeU64            "v_cmp_ne_u64"         Vopc  Valu             [229 229 237 237]  [229 229 237 237]  0 2 [2 2 0] 0;
    VCmpGeU64            "v_cmp_ge_u64"         Vopc  Valu             [230 230 238 238]  [230 230 238 238]  0 2 [2 2 0] 0;
    VCmpTU64             "v_cmp_t_u64"          Vopc  Valu             [231 231 239 239]  [231 231 239 239]  0 2 [2 2 0] 0;
    VCmpFF32             "v_cmp_f_f32"          Vopc  Valu             [0 0 64 64]        [0 0 64 64]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpLtF32            "v_cmp_lt_f32"         Vopc  Valu             [1 1 65 65]        [1 1 65 65]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpEqF32            "v_cmp_eq_f32"         Vopc  Valu             [2 2 66 66]        [2 2 66 66]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpLeF32            "v_cmp_le_f32"         Vopc  Valu             [3 3 67 67]        [3 3 67 67]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpGtF32            "v_cmp_gt_f32"         Vopc  Valu             [4 4 68 68]        [4 4 68 68]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpLgF32            "v_cmp_lg_f32"         Vopc  Valu             [5 5 69 69]        [5 5 69 69]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpGeF32            "v_cmp_ge_f32"         Vopc  Valu             [6 6 70 70]        [6 6 70 70]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpOF32             "v_cmp_o_f32"          Vopc  Valu             [7 7 71 71]        [7 7 71 71]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpUF32             "v_cmp_u_f32"          Vopc  Valu             [8 8 72 72]        [8 8 72 72]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNgeF32           "v_cmp_nge_f32"        Vopc  Valu             [9 9 73 73]        [9 9 73 73]        0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNlgF32           "v_cmp_nlg_f32"        Vopc  Valu             [10 10 74 74]      [10 10 74 74]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNgtF32           "v_cmp_ngt_f32"        Vopc  Valu             [11 11 75 75]      [11 11 75 75]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNleF32           "v_cmp_nle_f32"        Vopc  Valu             [12 12 76 76]      [12 12 76 76]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNeqF32           "v_cmp_neq_f32"        Vopc  Valu             [13 13 77 77]      [13 13 77 77]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpNltF32           "v_cmp_nlt_f32"        Vopc  Valu             [14 14 78 78]      [14 14 78 78]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpTruF32           "v_cmp_tru_f32"        Vopc  Valu             [15 15 79 79]      [15 15 79 79]      0 2 [1 1 0] FSRC0|FSRC1;
    VCmpFF64             "v_cmp_f_f64"          Vopc  Valu             [32 32 96 96]      [32 32 96 96]      0 2 [2 2 0] FSRC0|FSRC1;
    VCmpLtF64            "v_cmp_lt_f64"         Vopc  Valu             [33 33 97 97]      [33 33 97 97]      0 2 [2 2 0] FSRC0|FSRC1;
    VCmpEqF64            "v_cmp_eq_f64"         Vopc  Valu             [34 34 98 98]      [34 34 98 98]      0 2 [2 2 0] FSRC0|FSRC1;
    VCmpLeF64            "v_cmp_le_f64"         Vopc  Valu             [35 35 99 99]      [35 35 99 99]      0 2 [2 2 0] FSRC0|FSRC1;
    VCmpGtF64            "v_cmp_gt_f64"         Vopc  Valu             [36 36 100 100]    [36 36 100 100]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpLgF64            "v_cmp_lg_f64"         Vopc  Valu             [37 37 101 101]    [37 37 101 101]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpGeF64            "v_cmp_ge_f64"         Vopc  Valu             [38 38 102 102]    [38 38 102 102]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpOF64             "v_cmp_o_f64"          Vopc  Valu             [39 39 103 103]    [39 39 103 103]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpUF64             "v_cmp_u_f64"          Vopc  Valu             [40 40 104 104]    [40 40 104 104]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNgeF64           "v_cmp_nge_f64"        Vopc  Valu             [41 41 105 105]    [41 41 105 105]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNlgF64           "v_cmp_nlg_f64"        Vopc  Valu             [42 42 106 106]    [42 42 106 106]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNgtF64           "v_cmp_ngt_f64"        Vopc  Valu             [43 43 107 107]    [43 43 107 107]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNleF64           "v_cmp_nle_f64"        Vopc  Valu             [44 44 108 108]    [44 44 108 108]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNeqF64           "v_cmp_neq_f64"        Vopc  Valu             [45 45 109 109]    [45 45 109 109]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpNltF64           "v_cmp_nlt_f64"        Vopc  Valu             [46 46 110 110]    [46 46 110 110]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpTruF64           "v_cmp_tru_f64"        Vopc  Valu             [47 47 111 111]    [47 47 111 111]    0 2 [2 2 0] FSRC0|FSRC1;
    VCmpClassF64         "v_cmp_class_f64"      Vopc  Valu             [168 168 18 18]    [168 168 18 18]    0 2 [2 1 0] FSRC0;
    DsSwizzleB32         "ds_swizzle_b32"       Ds    DsSwizzle        [53 53 61 61]      [- - - -]          1 0 [1 0 0] 0;
    DsPermuteB32         "ds_permute_b32"       Ds    DsPermute        [- - 62 62]        [- - - -]          1 0 [1 1 0] 0;
    DsBpermuteB32        "ds_bpermute_b32"      Ds    DsPermute        [- - 63 63]        [- - - -]          1 0 [1 1 0] 0;
    DsWriteB32           "ds_write_b32"         Ds    DsWrite          [13 13 13 13]      [- - - -]          0 0 [1 1 0] 0;
    DsWrite2B32          "ds_write2_b32"        Ds    DsWrite2         [14 14 14 14]      [- - - -]          0 0 [1 1 1] 0;
    DsWrite2st64B32      "ds_write2st64_b32"    Ds    DsWrite2         [15 15 15 15]      [- - - -]          0 0 [1 1 1] 0;
    DsWriteB8            "ds_write_b8"          Ds    DsWrite          [30 30 30 30]      [- - - -]          0 0 [1 1 0] 0;
    DsWriteB16           "ds_write_b16"         Ds    DsWrite          [31 31 31 31]      [- - - -]          0 0 [1 1 0] 0;
    DsWriteB64           "ds_write_b64"         Ds    DsWrite          [77 77 77 77]      [- - - -]          0 0 [1 2 0] 0;
    DsWriteB128          "ds_write_b128"        Ds    DsWrite          [- 223 223 223]    [- - - -]          0 0 [1 4 0] 0;
    DsReadB32            "ds_read_b32"          Ds    DsRead           [54 54 54 54]      [- - - -]          1 0 [1 0 0] 0;
    DsRead2B32           "ds_read2_b32"         Ds    DsRead2          [55 55 55 55]      [- - - -]          2 0 [1 0 0] 0;
    DsRead2st64B32       "ds_read2st64_b32"     Ds    DsRead2          [56 56 56 56]      [- - - -]          2 0 [1 0 0] 0;
    DsReadI8             "ds_read_i8"           Ds    DsRead           [57 57 57 57]      [- - - -]          1 0 [1 0 0] 0;
    DsReadU8             "ds_read_u8"           Ds    DsRead           [58 58 58 58]      [- - - -]          1 0 [1 0 0] 0;
    DsReadI16            "ds_read_i16"          Ds    DsRead           [59 59 59 59]      [- - - -]          1 0 [1 0 0] 0;
    DsReadU16            "ds_read_u16"          Ds    DsRead           [60 60 60 60]      [- - - -]          1 0 [1 0 0] 0;
    DsReadB64            "ds_read_b64"          Ds    DsRead           [118 118 118 118]  [- - - -]          2 0 [1 0 0] 0;
    DsReadB128           "ds_read_b128"         Ds    DsRead           [- 255 255 255]    [- - - -]          4 0 [1 0 0] 0;
    DsAddU32             "ds_add_u32"           Ds    DsAtomic         [0 0 0 0]          [- - - -]          0 0 [1 1 0] 0;
    DsAddRtnU32          "ds_add_rtn_u32"       Ds    DsAtomic         [32 32 32 32]      [- - - -]          1 0 [1 1 0] 0;
    DsSubU32             "ds_sub_u32"           Ds    DsAtomic         [1 1 1 1]          [- - - -]          0 0 [1 1 0] 0;
    DsSubRtnU32          "ds_sub_rtn_u32"       Ds    DsAtomic         [33 33 33 33]      [- - - -]          1 0 [1 1 0] 0;
    DsMinI32             "ds_min_i32"           Ds    DsAtomic         [5 5 5 5]          [- - - -]          0 0 [1 1 0] 0;
    DsMinRtnI32          "ds_min_rtn_i32"       Ds    DsAtomic         [37 37 37 37]      [- - - -]          1 0 [1 1 0] 0;
    DsMaxI32             "ds_max_i32"           Ds    DsAtomic         [6 6 6 6]          [- - - -]          0 0 [1 1 0] 0;
    DsMaxRtnI32          "ds_max_rtn_i32"       Ds    DsAtomic         [38 38 38 38]      [- - - -]          1 0 [1 1 0] 0;
    DsMinU32             "ds_min_u32"           Ds    DsAtomic         [7 7 7 7]          [- - - -]          0 0 [1 1 0] 0;
    DsMinRtnU32          "ds_min_rtn_u32"       Ds    DsAtomic         [39 39 39 39]      [- - - -]          1 0 [1 1 0] 0;
    DsMaxU32             "ds_max_u32"           Ds    DsAtomic         [8 8 8 8]          [- - - -]          0 0 [1 1 0] 0;
    DsMaxRtnU32          "ds_max_rtn_u32"       Ds    DsAtomic         [40 40 40 40]      [- - - -]          1 0 [1 1 0] 0;
    DsAndB32             "ds_and_b32"           Ds    DsAtomic         [9 9 9 9]          [- - - -]          0 0 [1 1 0] 0;
    DsAndRtnB32          "ds_and_rtn_b32"       Ds    DsAtomic         [41 41 41 41]      [- - - -]          1 0 [1 1 0] 0;
    DsOrB32              "ds_or_b32"            Ds    DsAtomic         [10 10 10 10]      [- - - -]          0 0 [1 1 0] 0;
    DsOrRtnB32           "ds_or_rtn_b32"        Ds    DsAtomic         [42 42 42 42]      [- - - -]          1 0 [1 1 0] 0;
    DsXorB32             "ds_xor_b32"           Ds    DsAtomic         [11 11 11 11]      [- - - -]          0 0 [1 1 0] 0;
    DsXorRtnB32          "ds_xor_rtn_b32"       Ds    DsAtomic         [43 43 43 43]      [- - - -]          1 0 [1 1 0] 0;
    DsWrxchgRtnB32       "ds_wrxchg_rtn_b32"    Ds    DsAtomic         [45 45 45 45]      [- - - -]          1 0 [1 1 0] 0;
    DsCmpstB32           "ds_cmpst_b32"         Ds    DsAtomic         [16 16 16 16]      [- - - -]          0 0 [1 1 1] 0;
    DsCmpstRtnB32        "ds_cmpst_rtn_b32"     Ds    DsAtomic         [48 48 48 48]      [- - - -]          1 0 [1 1 1] 0;
    DsAddU64             "ds_add_u64"           Ds    DsAtomic         [64 64 64 64]      [- - - -]          0 0 [1 2 0] 0;
    DsAddRtnU64          "ds_add_rtn_u64"       Ds    DsAtomic         [96 96 96 96]      [- - - -]          2 0 [1 2 0] 0;
    DsSubU64             "ds_sub_u64"           Ds    DsAtomic         [65 65 65 65]      [- - - -]          0 0 [1 2 0] 0;
    DsSubRtnU64          "ds_sub_rtn_u64"       Ds    DsAtomic         [97 97 97 97]      [- - - -]          2 0 [1 2 0] 0;
    DsMinI64             "ds_min_i64"           Ds    DsAtomic         [69 69 69 69]      [- - - -]          0 0 [1 2 0] 0;
    DsMinRtnI64          "ds_min_rtn_i64"       Ds    DsAtomic         [101 101 101 101]  [- - - -]          2 0 [1 2 0] 0;
    DsMaxI64             "ds_max_i64"           Ds    DsAtomic         [70 70 70 70]      [- - - -]          0 0 [1 2 0] 0;
    DsMaxRtnI64          "ds_max_rtn_i64"       Ds    DsAtomic         [102 102 102 102]  [- - - -]          2 0 [1 2 0] 0;
    DsMinU64             "ds_min_u64"           Ds    DsAtomic         [71 71 71 71]      [- - - -]          0 0 [1 2 0] 0;
    DsMinRtnU64          "ds_min_rtn_u64"       Ds    DsAtomic         [103 103 103 103]  [- - - -]          2 0 [1 2 0] 0;
    DsMaxU64             "ds_max_u64"           Ds    DsAtomic         [72 72 72 72]      [- - - -]          0 0 [1 2 0] 0;
    DsMaxRtnU64          "ds_max_rtn_u64"       Ds    DsAtomic         [104 104 104 104]  [- - - -]          2 0 [1 2 0] 0;
    DsAndB64             "ds_and_b64"           Ds    DsAtomic         [73 73 73 73]      [- - - -]          0 0 [1 2 0] 0;
    DsAndRtnB64          "ds_and_rtn_b64"       Ds    DsAtomic         [105 105 105 105]  [- - - -]          2 0 [1 2 0] 0;
    DsOrB64              "ds_or_b64"            Ds    DsAtomic         [74 74 74 74]      [- - - -]          0 0 [1 2 0] 0;
    DsOrRtnB64           "ds_or_rtn_b64"        Ds    DsAtomic         [106 106 106 106]  [- - - -]          2 0 [1 2 0] 0;
    DsXorB64             "ds_xor_b64"           Ds    DsAtomic         [75 75 75 75]      [- - - -]          0 0 [1 2 0] 0;
    DsXorRtnB64          "ds_xor_rtn_b64"       Ds    DsAtomic         [107 107 107 107]  [- - - -]          2 0 [1 2 0] 0;
    DsWrxchgRtnB64       "ds_wrxchg_rtn_b64"    Ds    DsAtomic         [109 109 109 109]  [- - - -]          2 0 [1 2 0] 0;
    DsCmpstB64           "ds_cmpst_b64"         Ds    DsAtomic         [80 80 80 80]      [- - - -]          0 0 [1 2 2] 0;
    DsCmpstRtnB64        "ds_cmpst_rtn_b64"     Ds    DsAtomic         [112 112 112 112]  [- - - -]          2 0 [1 2 2] 0;
    VInterpP1F32         "v_interp_p1_f32"      Vintrp Vintrp          [0 0 0 0]          [- - - -]          1 0 [1 0 0] 0;
    VInterpP2F32         "v_interp_p2_f32"      Vintrp Vintrp          [1 1 1 1]          [- - - -]          1 0 [1 0 0] 0;
    VInterpMovF32        "v_interp_mov_f32"     Vintrp VintrpMov       [2 2 2 2]          [- - - -]          1 0 [0 0 0] 0;
    Exp                  "exp"                  Exp   Exp              [0 0 0 0]          [- - - -]          0 0 [0 0 0] 0;
}
