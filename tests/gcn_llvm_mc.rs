//! Checks the GCN MC layer against LLVM: every row is encoded, decoded back (it must
//! round-trip), printed, and the bytes are disassembled by `llvm-mc-14` in one batch; LLVM's
//! text must equal ours. A sweep covers every table row in every encoding it has.
//!
//! `llvm-mc-14` must be installed (Debian's `llvm-14`); without it these tests fail unless
//! `WAVELIFT_SKIP_LLVM_MC=1` is set.

mod common;

use wavelift::isa::gcn::mc::*;

/// Builder methods for concise table rows.
trait Build: Sized {
    fn d(self, o: Operand) -> Self;
    fn sd(self, o: Operand) -> Self;
    fn s(self, srcs: &[Operand]) -> Self;
    fn lit(self, v: u32) -> Self;
    fn imm(self, v: i32) -> Self;
    fn mods(self, abs: u8, neg: u8, clamp: bool, omod: u8) -> Self;
    fn glc(self) -> Self;
    fn slc(self) -> Self;
}

impl Build for McInst {
    fn d(mut self, o: Operand) -> Self {
        self.dst = Some(o);
        self
    }
    fn sd(mut self, o: Operand) -> Self {
        self.sdst = Some(o);
        self
    }
    fn s(mut self, srcs: &[Operand]) -> Self {
        for (slot, &o) in self.src.iter_mut().zip(srcs) {
            *slot = Some(o);
        }
        self
    }
    fn lit(mut self, v: u32) -> Self {
        self.literal = Some(v);
        self
    }
    fn imm(mut self, v: i32) -> Self {
        self.imm = v;
        self
    }
    fn mods(mut self, abs: u8, neg: u8, clamp: bool, omod: u8) -> Self {
        (self.abs, self.neg, self.clamp, self.omod) = (abs, neg, clamp, omod);
        self
    }
    fn glc(mut self) -> Self {
        self.glc = true;
        self
    }
    fn slc(mut self) -> Self {
        self.slc = true;
        self
    }
}

fn s(n: u8) -> Operand {
    Operand::sgpr(n)
}
fn v(n: u8) -> Operand {
    Operand::vgpr(n)
}
fn i(x: i64) -> Operand {
    Operand::inline_int(x).unwrap()
}
fn f(x: f32) -> Operand {
    Operand::inline_f32(x.to_bits(), Gen::Gfx8).unwrap()
}
const VCC: Operand = Operand::VCC;
const EXEC: Operand = Operand::EXEC;
const M0: Operand = Operand::M0;
const LIT: Operand = Operand::LITERAL;

fn new(op: Op, enc: Enc) -> McInst {
    McInst::new(op, enc)
}
fn valu(op: Op, dst: Option<Operand>, sdst: Option<Operand>, srcs: &[Operand]) -> McInst {
    McInst::valu(op, Gen::Gfx8, dst, sdst, srcs).unwrap_or_else(|e| panic!("{op:?}: {e}"))
}

/// Hand-written rows: the instruction and the text llvm-mc prints for it on gfx8.
fn rows() -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    vec![
        // SOP1/SOP2/SOPC, with SGPR pairs, VCC/EXEC, inline constants and literals.
        (new(SMovB32, Sop1).d(s(0)).s(&[s(1)]), "s_mov_b32 s0, s1"),
        (
            new(SMovB32, Sop1).d(s(0)).s(&[LIT]).lit(0x8000_0000),
            "s_mov_b32 s0, 0x80000000",
        ),
        (new(SMovB32, Sop1).d(M0).s(&[i(-1)]), "s_mov_b32 m0, -1"),
        (new(SMovB32, Sop1).d(s(0)).s(&[f(0.5)]), "s_mov_b32 s0, 0.5"),
        (
            new(SMovB64, Sop1).d(EXEC).s(&[s(2)]),
            "s_mov_b64 exec, s[2:3]",
        ),
        (new(SMovB64, Sop1).d(VCC).s(&[i(-1)]), "s_mov_b64 vcc, -1"),
        (
            new(SMovB64, Sop1).d(s(2)).s(&[LIT]).lit(0x12345),
            "s_mov_b64 s[2:3], 0x12345",
        ),
        (
            new(SAndSaveexecB64, Sop1).d(s(4)).s(&[VCC]),
            "s_and_saveexec_b64 s[4:5], vcc",
        ),
        (new(SGetpcB64, Sop1).d(s(0)), "s_getpc_b64 s[0:1]"),
        (new(SSetpcB64, Sop1).s(&[s(0)]), "s_setpc_b64 s[0:1]"),
        (
            new(SSwappcB64, Sop1).d(s(0)).s(&[s(2)]),
            "s_swappc_b64 s[0:1], s[2:3]",
        ),
        (
            new(SBcnt1I32B64, Sop1).d(s(0)).s(&[EXEC]),
            "s_bcnt1_i32_b64 s0, exec",
        ),
        (
            new(SAddU32, Sop2).d(s(0)).s(&[s(1), LIT]).lit(1000),
            "s_add_u32 s0, s1, 0x3e8",
        ),
        (
            new(SAddcU32, Sop2).d(s(1)).s(&[s(3), i(0)]),
            "s_addc_u32 s1, s3, 0",
        ),
        (
            new(SSwappcB64, Sop1).d(s(0)).s(&[s(0)]),
            "s_swappc_b64 s[0:1], s[0:1]",
        ),
        (
            new(SOrSaveexecB64, Sop1).d(s(8)).s(&[i(-1)]),
            "s_or_saveexec_b64 s[8:9], -1",
        ),
        (
            new(SAndB64, Sop2).d(EXEC).s(&[EXEC, VCC]),
            "s_and_b64 exec, exec, vcc",
        ),
        (
            new(SLshlB64, Sop2).d(s(2)).s(&[s(4), i(3)]),
            "s_lshl_b64 s[2:3], s[4:5], 3",
        ),
        (
            new(SCselectB64, Sop2).d(s(0)).s(&[i(-1), i(0)]),
            "s_cselect_b64 s[0:1], -1, 0",
        ),
        (
            new(SBfeU32, Sop2).d(s(0)).s(&[s(1), LIT]).lit(0x80008),
            "s_bfe_u32 s0, s1, 0x80008",
        ),
        (
            new(SCmpEqU64, Sopc).s(&[s(0), i(0)]),
            "s_cmp_eq_u64 s[0:1], 0",
        ),
        (
            new(SCmpLtI32, Sopc).s(&[s(0), i(-16)]),
            "s_cmp_lt_i32 s0, -16",
        ),
        (
            new(SBitcmp1B32, Sopc).s(&[s(0), i(3)]),
            "s_bitcmp1_b32 s0, 3",
        ),
        // SOPK and SOPP.
        (new(SMovkI32, Sopk).d(s(4)).imm(-1), "s_movk_i32 s4, 0xffff"),
        (new(SAddkI32, Sopk).d(s(4)).imm(5), "s_addk_i32 s4, 0x5"),
        (
            new(SCmpkEqU32, Sopk).s(&[s(4)]).imm(0x1234),
            "s_cmpk_eq_u32 s4, 0x1234",
        ),
        (
            new(SGetregB32, Sopk).d(s(4)).imm(0xf801),
            "s_getreg_b32 s4, hwreg(HW_REG_MODE)",
        ),
        (
            new(SGetregB32, Sopk).d(s(4)).imm(0x18c4),
            "s_getreg_b32 s4, hwreg(HW_REG_HW_ID, 3, 4)",
        ),
        (
            new(SSetregB32, Sopk).s(&[s(4)]).imm(0x1801),
            "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s4",
        ),
        (
            new(SSetregImm32B32, Sopk).s(&[LIT]).lit(0x1234).imm(0x1801),
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x1234",
        ),
        (new(SEndpgm, Sopp), "s_endpgm"),
        (new(SNop, Sopp).imm(3), "s_nop 3"),
        (new(SNop, Sopp).imm(15), "s_nop 15"),
        (
            new(SWaitcnt, Sopp).imm(0),
            "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
        ),
        (new(SWaitcnt, Sopp).imm(0xf70), "s_waitcnt vmcnt(0)"),
        (new(SWaitcnt, Sopp).imm(0x7f), "s_waitcnt lgkmcnt(0)"),
        (
            new(SWaitcnt, Sopp).imm(0x321),
            "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)",
        ),
        (new(SBranch, Sopp).imm(5), "s_branch 5"),
        (new(SBranch, Sopp).imm(-1), "s_branch 65535"),
        (new(SCbranchExecz, Sopp).imm(-100), "s_cbranch_execz 65436"),
        // Branch relaxation: the inverted branch over a long jump.
        (new(SCbranchExecnz, Sopp).imm(5), "s_cbranch_execnz 5"),
        (new(SCbranchScc0, Sopp).imm(5), "s_cbranch_scc0 5"),
        (
            new(SAddcU32, Sop2).d(s(101)).s(&[s(101), i(-1)]),
            "s_addc_u32 s101, s101, -1",
        ),
        // SMEM.
        (
            new(SLoadDword, Smem).d(s(0)).s(&[s(4)]),
            "s_load_dword s0, s[4:5], 0x0",
        ),
        (
            new(SLoadDword, Smem).d(s(0)).s(&[s(4)]).imm(0xfffff).glc(),
            "s_load_dword s0, s[4:5], 0xfffff glc",
        ),
        (
            new(SLoadDwordx8, Smem).d(s(8)).s(&[s(4)]).imm(0x10),
            "s_load_dwordx8 s[8:15], s[4:5], 0x10",
        ),
        // The offset in an SGPR (bytes).
        (
            new(SLoadDword, Smem).d(s(5)).s(&[s(2), s(4)]),
            "s_load_dword s5, s[2:3], s4",
        ),
        (
            new(SLoadDwordx2, Smem).d(s(6)).s(&[s(2), s(101)]),
            "s_load_dwordx2 s[6:7], s[2:3], s101",
        ),
        (
            new(SBufferLoadDword, Smem).d(s(0)).s(&[s(4)]).imm(0x10),
            "s_buffer_load_dword s0, s[4:7], 0x10",
        ),
        (new(SDcacheWb, Smem), "s_dcache_wb"),
        // VOP2/VOP1/VOPC picked by McInst::valu, and their VOP3 forms.
        (
            valu(VAddF32, Some(v(1)), None, &[v(2), v(3)]),
            "v_add_f32_e32 v1, v2, v3",
        ),
        (
            valu(VAddF32, Some(v(1)), None, &[f(1.0), v(3)]),
            "v_add_f32_e32 v1, 1.0, v3",
        ),
        (
            valu(VAddF32, Some(v(1)), None, &[LIT, v(3)]).lit(0x12345),
            "v_add_f32_e32 v1, 0x12345, v3",
        ),
        (
            valu(VAddF32, Some(v(1)), None, &[v(2), s(3)]),
            "v_add_f32_e64 v1, v2, s3",
        ),
        (
            valu(VAndB32, Some(v(1)), None, &[f(-4.0), v(3)]),
            "v_and_b32_e32 v1, -4.0, v3",
        ),
        (
            valu(VAndB32, Some(v(1)), None, &[Operand(248), v(3)]),
            "v_and_b32_e32 v1, 0.15915494, v3",
        ),
        (
            valu(VMovB32, Some(v(0)), None, &[M0]),
            "v_mov_b32_e32 v0, m0",
        ),
        (
            valu(VMovB32, Some(v(0)), None, &[Operand(107)]),
            "v_mov_b32_e32 v0, vcc_hi",
        ),
        (
            valu(VMovB32, Some(v(0)), None, &[Operand::SCC]),
            "v_mov_b32_e32 v0, src_scc",
        ),
        (
            valu(VReadfirstlaneB32, Some(s(0)), None, &[v(1)]),
            "v_readfirstlane_b32 s0, v1",
        ),
        (
            valu(VAddU32, Some(v(1)), Some(VCC), &[s(2), v(3)]),
            "v_add_u32_e32 v1, vcc, s2, v3",
        ),
        (
            valu(VAddU32, Some(v(1)), Some(s(0)), &[v(2), v(3)]),
            "v_add_u32_e64 v1, s[0:1], v2, v3",
        ),
        (
            valu(VAddcU32, Some(v(1)), Some(VCC), &[v(2), v(3), VCC]),
            "v_addc_u32_e32 v1, vcc, v2, v3, vcc",
        ),
        (
            valu(VAddcU32, Some(v(1)), Some(s(0)), &[v(2), i(0), s(4)]),
            "v_addc_u32_e64 v1, s[0:1], v2, 0, s[4:5]",
        ),
        (
            valu(VCndmaskB32, Some(v(0)), None, &[v(1), v(2), VCC]),
            "v_cndmask_b32_e32 v0, v1, v2, vcc",
        ),
        (
            valu(VCndmaskB32, Some(v(0)), None, &[v(1), v(2), s(0)]),
            "v_cndmask_b32_e64 v0, v1, v2, s[0:1]",
        ),
        (
            valu(VCmpEqU32, None, Some(VCC), &[v(0), v(1)]),
            "v_cmp_eq_u32_e32 vcc, v0, v1",
        ),
        (
            valu(VCmpEqU32, None, Some(s(0)), &[s(0), v(1)]),
            "v_cmp_eq_u32_e64 s[0:1], s0, v1",
        ),
        (
            valu(VCmpLtI64, None, Some(VCC), &[i(0), v(2)]),
            "v_cmp_lt_i64_e32 vcc, 0, v[2:3]",
        ),
        (
            valu(VCmpClassF32, None, Some(VCC), &[f(1.0), v(1)]),
            "v_cmp_class_f32_e32 vcc, 1.0, v1",
        ),
        (
            valu(VCmpClassF32, None, Some(s(0)), &[v(0), i(3)]).mods(0, 1, false, 0),
            "v_cmp_class_f32_e64 s[0:1], -v0, 3",
        ),
        (
            new(VCmpEqF32, Vop3)
                .sd(VCC)
                .s(&[v(0), v(1)])
                .mods(0, 1, false, 0),
            "v_cmp_eq_f32_e64 vcc, -v0, v1",
        ),
        (
            new(VAddF32, Vop3)
                .d(v(1))
                .s(&[v(2), v(3)])
                .mods(2, 1, true, 1),
            "v_add_f32_e64 v1, -v2, |v3| clamp mul:2",
        ),
        (
            new(VAddF32, Vop3)
                .d(v(1))
                .s(&[v(2), v(3)])
                .mods(1, 1, false, 3),
            "v_add_f32_e64 v1, -|v2|, v3 div:2",
        ),
        (
            new(VCvtF32I32, Vop3).d(v(0)).s(&[v(1)]).mods(0, 0, true, 2),
            "v_cvt_f32_i32_e64 v0, v1 clamp mul:4",
        ),
        (
            valu(VMacF32, Some(v(0)), None, &[v(1), v(2)]),
            "v_mac_f32_e32 v0, v1, v2",
        ),
        (
            valu(VCvtF64F32, Some(v(0)), None, &[v(2)]),
            "v_cvt_f64_f32_e32 v[0:1], v2",
        ),
        (
            valu(VRcpF64, Some(v(0)), None, &[f(2.0)]),
            "v_rcp_f64_e32 v[0:1], 2.0",
        ),
        (
            valu(VCvtF16F32, Some(v(0)), None, &[v(2)]),
            "v_cvt_f16_f32_e32 v0, v2",
        ),
        (
            valu(VCvtF32F16, Some(v(3)), None, &[s(4)]),
            "v_cvt_f32_f16_e32 v3, s4",
        ),
        (
            new(VCvtF32F16, Vop3)
                .d(v(0))
                .s(&[v(1)])
                .mods(1, 0, false, 0),
            "v_cvt_f32_f16_e64 v0, |v1|",
        ),
        // VOP3-only operations.
        (
            valu(VMadF32, Some(v(1)), None, &[v(2), v(3), v(4)]).mods(0, 0, true, 2),
            "v_mad_f32 v1, v2, v3, v4 clamp mul:4",
        ),
        (
            valu(VFmaF32, Some(v(1)), None, &[v(2), f(0.5), s(4)]),
            "v_fma_f32 v1, v2, 0.5, s4",
        ),
        (
            valu(VBfeU32, Some(v(0)), None, &[v(1), i(8), f(1.0)]),
            "v_bfe_u32 v0, v1, 8, 1.0",
        ),
        (
            valu(VMadU64U32, Some(v(0)), Some(s(0)), &[v(2), v(3), v(4)]),
            "v_mad_u64_u32 v[0:1], s[0:1], v2, v3, v[4:5]",
        ),
        (
            valu(VDivScaleF32, Some(v(0)), Some(VCC), &[v(1), v(2), v(3)]),
            "v_div_scale_f32 v0, vcc, v1, v2, v3",
        ),
        (
            valu(VLshlrevB64, Some(v(0)), None, &[i(1), v(2)]),
            "v_lshlrev_b64 v[0:1], 1, v[2:3]",
        ),
        (
            valu(VReadlaneB32, Some(s(0)), None, &[v(1), s(2)]),
            "v_readlane_b32 s0, v1, s2",
        ),
        (
            valu(VWritelaneB32, Some(v(0)), None, &[s(1), i(3)]),
            "v_writelane_b32 v0, s1, 3",
        ),
        (
            valu(VLdexpF32, Some(v(0)), None, &[f(1.0), i(2)]),
            "v_ldexp_f32 v0, 1.0, 2",
        ),
        (
            valu(VCvtPkrtzF16F32, Some(v(0)), None, &[s(1), v(2)]),
            "v_cvt_pkrtz_f16_f32 v0, s1, v2",
        ),
        (
            valu(VAddF64, Some(v(0)), None, &[f(1.0), v(2)]),
            "v_add_f64 v[0:1], 1.0, v[2:3]",
        ),
        (
            valu(VAddF64, Some(v(0)), None, &[Operand(248), v(2)]),
            "v_add_f64 v[0:1], 0.15915494309189532, v[2:3]",
        ),
        (
            valu(VMbcntLoU32B32, Some(v(0)), None, &[i(-1), i(0)]),
            "v_mbcnt_lo_u32_b32 v0, -1, 0",
        ),
        // FLAT.
        (
            new(FlatLoadDword, Flat).d(v(0)).s(&[v(0)]),
            "flat_load_dword v0, v[0:1]",
        ),
        (
            new(FlatLoadDword, Flat).d(v(0)).s(&[v(0)]).glc().slc(),
            "flat_load_dword v0, v[0:1] glc slc",
        ),
        (
            new(FlatLoadDwordx2, Flat).d(v(0)).s(&[v(0)]).slc(),
            "flat_load_dwordx2 v[0:1], v[0:1] slc",
        ),
        (
            new(FlatStoreDwordx4, Flat).s(&[v(0), v(2)]).glc(),
            "flat_store_dwordx4 v[0:1], v[2:5] glc",
        ),
        (
            new(FlatStoreByte, Flat).s(&[v(4), v(9)]),
            "flat_store_byte v[4:5], v9",
        ),
        // Atomics: the old value returned (glc, vdst) or not.
        (
            new(FlatAtomicAdd, Flat).d(v(0)).s(&[v(2), v(4)]).glc(),
            "flat_atomic_add v0, v[2:3], v4 glc",
        ),
        (
            new(FlatAtomicUmaxX2, Flat).s(&[v(2), v(4)]),
            "flat_atomic_umax_x2 v[2:3], v[4:5]",
        ),
        (
            new(FlatAtomicCmpswapX2, Flat)
                .d(v(6))
                .s(&[v(2), v(8)])
                .glc(),
            "flat_atomic_cmpswap_x2 v[6:7], v[2:3], v[8:11] glc",
        ),
        (
            new(FlatAtomicCmpswap, Flat).s(&[v(2), v(4)]).slc(),
            "flat_atomic_cmpswap v[2:3], v[4:5] slc",
        ),
        (new(BufferWbinvl1Vol, Mubuf), "buffer_wbinvl1_vol"),
        (new(BufferWbinvl1, Mubuf), "buffer_wbinvl1"),
        (new(SBarrier, Sopp), "s_barrier"),
        // DS: the lane permutes.
        (
            new(DsBpermuteB32, Ds).d(v(1)).s(&[v(2), v(3)]),
            "ds_bpermute_b32 v1, v2, v3",
        ),
        (
            new(DsBpermuteB32, Ds)
                .d(v(255))
                .s(&[v(0), v(254)])
                .imm(65535),
            "ds_bpermute_b32 v255, v0, v254 offset:65535",
        ),
        (
            new(DsPermuteB32, Ds).d(v(7)).s(&[v(8), v(9)]).imm(4),
            "ds_permute_b32 v7, v8, v9 offset:4",
        ),
    ]
}

/// The workgroup-memory loads and stores: offsets at their limits, each of read2/write2's
/// two offsets alone, the highest VGPRs. The same text and bytes on every generation
/// (gfx6 lacks the 128-bit forms, which `ds_rows_gfx7_up` adds).
fn ds_rows() -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    vec![
        (new(DsReadB32, Ds).d(v(0)).s(&[v(1)]), "ds_read_b32 v0, v1"),
        (
            new(DsReadU8, Ds).d(v(255)).s(&[v(254)]).imm(65535),
            "ds_read_u8 v255, v254 offset:65535",
        ),
        (
            new(DsReadI16, Ds).d(v(3)).s(&[v(2)]).imm(2),
            "ds_read_i16 v3, v2 offset:2",
        ),
        (
            new(DsReadB64, Ds).d(v(254)).s(&[v(0)]).imm(8),
            "ds_read_b64 v[254:255], v0 offset:8",
        ),
        (
            new(DsRead2B32, Ds).d(v(2)).s(&[v(1)]).imm(1),
            "ds_read2_b32 v[2:3], v1 offset0:1",
        ),
        (
            new(DsRead2B32, Ds).d(v(2)).s(&[v(1)]).imm(64 << 8),
            "ds_read2_b32 v[2:3], v1 offset1:64",
        ),
        (
            new(DsRead2B32, Ds).d(v(6)).s(&[v(9)]),
            "ds_read2_b32 v[6:7], v9",
        ),
        (
            new(DsWriteB32, Ds).s(&[v(1), v(2)]).imm(4),
            "ds_write_b32 v1, v2 offset:4",
        ),
        (
            new(DsWriteB8, Ds).s(&[v(255), v(0)]),
            "ds_write_b8 v255, v0",
        ),
        (
            new(DsWriteB16, Ds).s(&[v(7), v(8)]).imm(65534),
            "ds_write_b16 v7, v8 offset:65534",
        ),
        (
            new(DsWriteB64, Ds).s(&[v(0), v(254)]),
            "ds_write_b64 v0, v[254:255]",
        ),
        (
            new(DsWrite2B32, Ds).s(&[v(1), v(2), v(3)]).imm(1 | 2 << 8),
            "ds_write2_b32 v1, v2, v3 offset0:1 offset1:2",
        ),
        (
            new(DsWrite2B32, Ds)
                .s(&[v(0), v(255), v(0)])
                .imm(255 | 255 << 8),
            "ds_write2_b32 v0, v255, v0 offset0:255 offset1:255",
        ),
        // The atomics, one of each shape (`sample` gives every one of them).
        (
            new(DsAddU32, Ds).s(&[v(1), v(2)]).imm(4),
            "ds_add_u32 v1, v2 offset:4",
        ),
        (
            new(DsAddRtnU32, Ds).d(v(0)).s(&[v(1), v(2)]),
            "ds_add_rtn_u32 v0, v1, v2",
        ),
        (
            new(DsCmpstRtnB32, Ds)
                .d(v(255))
                .s(&[v(1), v(2), v(3)])
                .imm(65535),
            "ds_cmpst_rtn_b32 v255, v1, v2, v3 offset:65535",
        ),
        (
            new(DsCmpstB64, Ds).s(&[v(1), v(2), v(4)]),
            "ds_cmpst_b64 v1, v[2:3], v[4:5]",
        ),
        (
            new(DsMaxRtnU64, Ds).d(v(254)).s(&[v(0), v(252)]).imm(8),
            "ds_max_rtn_u64 v[254:255], v0, v[252:253] offset:8",
        ),
    ]
}

/// The 128-bit loads and stores of gfx7 on.
fn ds_rows_gfx7_up() -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    vec![
        (
            new(DsReadB128, Ds).d(v(4)).s(&[v(1)]).imm(16),
            "ds_read_b128 v[4:7], v1 offset:16",
        ),
        (
            new(DsWriteB128, Ds).s(&[v(1), v(252)]),
            "ds_write_b128 v1, v[252:255]",
        ),
    ]
}

#[test]
fn ds_memory_gfx8_gfx9() {
    for (generation, cpu) in [(Gen::Gfx8, "tonga"), (Gen::Gfx9, "gfx900")] {
        let cases: Vec<_> = ds_rows()
            .into_iter()
            .chain(ds_rows_gfx7_up())
            .map(|(inst, text)| (inst, Some(text)))
            .collect();
        check(generation, cpu, &cases);
    }
}

#[test]
fn ds_memory_gfx6_gfx7_by_assembling() {
    check_by_assembling(Gen::Gfx6, "tahiti", &ds_rows());
    let gfx7: Vec<_> = ds_rows().into_iter().chain(ds_rows_gfx7_up()).collect();
    check_by_assembling(Gen::Gfx7, "bonaire", &gfx7);
}

/// `ds_swizzle_b32` rows: the patterns wavelift emits (quad permutes, xor masks) and the
/// other forms llvm-mc prints by name or number. All are canonical: the text assembles
/// back to the same offset (see [`canonical_swizzle`]).
fn swizzle_rows() -> Vec<(McInst, &'static str)> {
    let swizzle = |offset: i32| {
        new(Op::DsSwizzleB32, Enc::Ds)
            .d(v(1))
            .s(&[v(2)])
            .imm(offset)
    };
    vec![
        (swizzle(0), "ds_swizzle_b32 v1, v2"),
        (
            swizzle(0x80b1),
            "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,1,0,3,2)",
        ),
        (
            swizzle(0x80aa),
            "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,2,2,2,2)",
        ),
        (
            swizzle(0x1f | 4 << 10),
            "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,4)",
        ),
        (
            swizzle(0x1f | 7 << 10),
            "ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,8)",
        ),
        (
            swizzle(0x1f | 5 << 10),
            "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"ppipi\")",
        ),
        (
            swizzle(0x1c | 2 << 5),
            "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,4,2)",
        ),
        (swizzle(0x8100), "ds_swizzle_b32 v1, v2 offset:33024"),
    ]
}

/// Whether llvm-mc's text of a `ds_swizzle_b32` offset assembles back to it. The 32-lane
/// mode's text gives each source-lane bit as kept, inverted or forced, and a forced bit
/// assembles as the or-mask alone: a pattern that forces a bit with the xor-mask, or
/// with the or-mask where the and-mask keeps it, prints like the canonical one.
fn canonical_swizzle(offset: i32) -> bool {
    let (and, or, xor) = (offset & 0x1f, offset >> 5 & 0x1f, offset >> 10 & 0x1f);
    offset & 0x8000 != 0 || (or & and == 0 && xor & !and == 0)
}

/// Every `ds_swizzle_b32` offset class: all xor masks, a sweep of quad permutes and of the
/// 32-lane mode's masks, the modes printed as numbers.
fn swizzle_sweep() -> Vec<McInst> {
    let mut offsets: Vec<i32> = (0..32).map(|k| 0x1f | k << 10).collect();
    offsets.extend((0..256).step_by(7).map(|q| 0x8000 | q));
    offsets.extend((0..0x8000).step_by(97));
    offsets.extend([0x7fff, 0x8100, 0xc000, 0xe01f, 0xffff]);
    offsets
        .into_iter()
        .map(|o| new(Op::DsSwizzleB32, Enc::Ds).d(v(3)).s(&[v(4)]).imm(o))
        .collect()
}

/// A VINTRP instruction: `v_interp_p1_f32`/`_p2_f32` with the barycentric in `src`, or
/// `v_interp_mov_f32` with `param`.
fn interp(op: Op, dst: u8, src: Option<u8>, attr: u8, chan: u8) -> McInst {
    let mut inst = McInst::new(op, Enc::Vintrp);
    inst.dst = Some(v(dst));
    inst.src[0] = src.map(v);
    inst.interp = Some(Interp {
        attr,
        chan,
        param: None,
    });
    inst
}

fn interp_mov(dst: u8, param: InterpParam, attr: u8, chan: u8) -> McInst {
    let mut inst = McInst::new(Op::VInterpMovF32, Enc::Vintrp);
    inst.dst = Some(v(dst));
    inst.interp = Some(Interp {
        attr,
        chan,
        param: Some(param),
    });
    inst
}

/// An export of `src` (`None`: `off`) to `target`; `flags` is "done", "compr", "vm" as a
/// string of those words.
fn export(target: ExpTarget, src: [Option<u8>; 4], flags: &str) -> McInst {
    let mut inst = McInst::new(Op::Exp, Enc::Exp);
    inst.export = Some(Export {
        target,
        src: src.map(|r| r.map(v)),
        compr: flags.contains("compr"),
        done: flags.contains("done"),
        vm: flags.contains("vm"),
    });
    inst
}

/// The interpolation and export rows: the text llvm-mc-14 prints on `generation` (VINTRP
/// takes `_e32` on gfx8/gfx9, which also have a VOP3 form). Every field at its extremes:
/// attributes 0–63, every channel and parameter, VGPRs 0 and 255, every kind of export
/// target and flag, compressed pairs.
fn shader_io_rows(generation: Gen) -> Vec<(McInst, String)> {
    use ExpTarget::*;
    use Op::*;
    let e32 = if generation >= Gen::Gfx8 { "_e32" } else { "" };
    let vintrp = [
        (
            interp(VInterpP1F32, 1, Some(2), 3, 1),
            "v_interp_p1_f32{} v1, v2, attr3.y",
        ),
        (
            interp(VInterpP2F32, 1, Some(2), 31, 3),
            "v_interp_p2_f32{} v1, v2, attr31.w",
        ),
        (
            interp(VInterpP1F32, 255, Some(254), 0, 0),
            "v_interp_p1_f32{} v255, v254, attr0.x",
        ),
        (
            interp(VInterpP2F32, 0, Some(255), 63, 2),
            "v_interp_p2_f32{} v0, v255, attr63.z",
        ),
        (
            interp_mov(1, InterpParam::P10, 0, 0),
            "v_interp_mov_f32{} v1, p10, attr0.x",
        ),
        (
            interp_mov(255, InterpParam::P20, 32, 2),
            "v_interp_mov_f32{} v255, p20, attr32.z",
        ),
        (
            interp_mov(0, InterpParam::P0, 63, 3),
            "v_interp_mov_f32{} v0, p0, attr63.w",
        ),
    ];
    let exports = [
        (
            export(Mrt(0), [Some(0), Some(1), Some(2), Some(3)], "done vm"),
            "exp mrt0 v0, v1, v2, v3 done vm",
        ),
        (
            export(MrtZ, [Some(0), None, None, None], ""),
            "exp mrtz v0, off, off, off",
        ),
        (
            export(Pos(0), [Some(1), Some(2), Some(3), Some(4)], "done"),
            "exp pos0 v1, v2, v3, v4 done",
        ),
        (
            export(Pos(3), [Some(1), Some(2), Some(3), Some(4)], ""),
            "exp pos3 v1, v2, v3, v4",
        ),
        (
            export(Param(31), [Some(1), None, Some(3), None], ""),
            "exp param31 v1, off, v3, off",
        ),
        (
            export(Param(0), [Some(255), Some(254), Some(253), Some(252)], ""),
            "exp param0 v255, v254, v253, v252",
        ),
        (
            export(Mrt(7), [Some(1), Some(1), Some(2), Some(2)], "compr"),
            "exp mrt7 v1, v1, v2, v2 compr",
        ),
        (
            export(Mrt(1), [Some(1), Some(1), None, None], "done compr vm"),
            "exp mrt1 v1, v1, off, off done compr vm",
        ),
        (
            export(Mrt(5), [None, None, None, None], ""),
            "exp mrt5 off, off, off, off",
        ),
        (
            export(Null, [None, None, None, None], "done vm"),
            "exp null off, off, off, off done vm",
        ),
        (
            export(Mrt(0), [None, None, None, Some(9)], "vm"),
            "exp mrt0 off, off, off, v9 vm",
        ),
    ];
    vintrp
        .into_iter()
        .map(|(inst, text)| (inst, text.replace("{}", e32)))
        .chain(
            exports
                .into_iter()
                .map(|(inst, text)| (inst, text.to_string())),
        )
        .collect()
}

#[test]
fn shader_io_gfx8_gfx9() {
    for (generation, cpu) in [(Gen::Gfx8, "tonga"), (Gen::Gfx9, "gfx900")] {
        let cases: Vec<_> = shader_io_rows(generation)
            .into_iter()
            .map(|(inst, text)| (inst, Some(text)))
            .collect();
        let cases: Vec<(McInst, Option<&str>)> = cases
            .iter()
            .map(|(inst, text)| (inst.clone(), text.as_deref()))
            .collect();
        check(generation, cpu, &cases);
    }
}

#[test]
fn shader_io_gfx6_gfx7_by_assembling() {
    for (generation, cpu) in [(Gen::Gfx6, "tahiti"), (Gen::Gfx7, "bonaire")] {
        let rows = shader_io_rows(generation);
        let rows: Vec<(McInst, &str)> = rows
            .iter()
            .map(|(inst, text)| (inst.clone(), text.as_str()))
            .collect();
        check_by_assembling(generation, cpu, &rows);
    }
}

/// What the decoder refuses: the encodings llvm-mc-14 prints as invalid, and fields the
/// encoder never sets (so that encoding what was decoded gives the same bytes).
#[test]
fn shader_io_bad_encodings() {
    for generation in [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
        let (vintrp, exp): (u32, u32) = if generation >= Gen::Gfx8 {
            (0xd400_0000, 0xc400_0000)
        } else {
            (0xc800_0000, 0xf800_0000)
        };
        // v_interp_mov_f32 with parameter code 3 (llvm-mc: `invalid_param_3`).
        let bad_param = (vintrp | 2 << 16 | 3).to_le_bytes();
        assert!(decode(&bad_param, generation).is_err(), "{generation:?}");
        let two = |w0: u32, w1: u32| [w0.to_le_bytes(), w1.to_le_bytes()].concat();
        // Targets 10, 11 and 16–31 are not defined (llvm-mc: `invalid_target_N`).
        for target in [10, 11, 16, 31] {
            let bytes = two(exp | target << 4 | 0xf, 0x0403_0201);
            assert!(decode(&bytes, generation).is_err(), "target {target}");
        }
        // A VSRC field of a channel that is off; a half-enabled compressed pair.
        assert!(decode(&two(exp | 0x1, 0x0000_0201), generation).is_err());
        assert!(decode(&two(exp | 1 << 10 | 0x1, 0x0000_0001), generation).is_err());
        // The same without the stray bits decode.
        assert!(decode(&two(exp | 0x1, 0x0000_0001), generation).is_ok());
        assert!(decode(&two(exp | 1 << 10 | 0x3, 0x0000_0001), generation).is_ok());
        // Reserved bits 25:13 of EXP.
        assert!(decode(&two(exp | 1 << 13 | 0x1, 0x0000_0001), generation).is_err());
    }
    // The encodings do not carry over between generation groups: gfx8's EXP prefix is
    // gfx6's SMRD.
    let gfx8_exp = [0x0f, 0x18, 0x00, 0xc4, 0x00, 0x01, 0x02, 0x03];
    assert_ne!(
        decode(&gfx8_exp, Gen::Gfx6).map(|(inst, _)| inst.op),
        Ok(Op::Exp)
    );
}

/// A generated instance of `op` in `enc` (for the sweep): v1/v2/v3, s4/s8/s12, VCC for the
/// implicit operands of the 32-bit forms.
fn sample(op: Op, enc: Enc) -> McInst {
    let info = op.info();
    let mut inst = McInst::new(op, enc);
    let e32 = enc != Enc::Vop3;
    let sreg = |k: u8, w: u8| s(k * 4 * w.max(1).div_ceil(4).max(1) + if w == 8 { 8 } else { 0 });
    match info.form {
        Form::Valu => {
            let sdst_out = info.flags & SDST_OUT != 0;
            if info.dst != 0 {
                inst.dst = Some(if sdst_out { s(5) } else { v(1) });
            }
            if info.sdst != 0 {
                inst.sdst = Some(if e32 { VCC } else { s(6) });
            }
            for k in 0..info.num_srcs() {
                inst.src[k] = Some(match (k, e32) {
                    (2, true) if info.src[2] == 2 => VCC,
                    (2, false) if info.src[2] == 2 && info.dst == 1 => s(8),
                    _ => v(2 + k as u8 * 2),
                });
            }
            match op {
                Op::VReadlaneB32 => inst.src[1] = Some(s(7)),
                Op::VWritelaneB32 => inst.src = [Some(s(7)), Some(i(3)), None],
                // K, the literal: v_madmk_f32's src1, v_madak_f32's src2.
                Op::VMadmkF32 => inst.src[1] = Some(LIT),
                Op::VMadakF32 => inst.src[2] = Some(LIT),
                _ => {}
            }
            if info.flags & KIMM != 0 {
                inst.literal = Some(0x4120_0000);
            }
        }
        Form::FlatLoad => {
            inst.dst = Some(v(1));
            inst.src[0] = Some(v(2));
        }
        Form::FlatStore => inst.src = [Some(v(2)), Some(v(4)), None],
        // The `offen` form, which every generation has (`rows_gfx67` has `addr64`).
        Form::MubufLoad => {
            inst.dst = Some(v(1));
            inst.src = [Some(v(2)), Some(s(8)), None];
            inst.imm = 16;
            inst.mubuf = MubufAddr::Offen;
        }
        Form::MubufStore => {
            inst.src = [Some(v(2)), Some(v(4)), Some(s(8))];
            inst.mubuf = MubufAddr::Offen;
        }
        // The returning forms; the hand-written rows have the others.
        Form::FlatAtomic => {
            inst.dst = Some(v(1));
            inst.src = [Some(v(2)), Some(v(4)), None];
            inst.glc = true;
        }
        Form::MubufAtomic => {
            inst.dst = Some(v(4));
            inst.src = [Some(v(2)), Some(v(4)), Some(s(8))];
            inst.imm = 16;
            inst.glc = true;
        }
        Form::DsSwizzle => {
            inst.dst = Some(v(1));
            inst.src[0] = Some(v(2));
            inst.imm = 0x80b1;
        }
        Form::DsPermute => {
            inst.dst = Some(v(1));
            inst.src = [Some(v(2)), Some(v(3)), None];
            inst.imm = 8;
        }
        Form::DsRead => {
            inst.dst = Some(v(4));
            inst.src[0] = Some(v(1));
            inst.imm = 12;
        }
        Form::DsWrite => {
            inst.src = [Some(v(1)), Some(v(4)), None];
            inst.imm = 65532;
        }
        Form::DsRead2 => {
            inst.dst = Some(v(4));
            inst.src[0] = Some(v(1));
            inst.imm = 3 | 9 << 8;
        }
        Form::DsWrite2 => {
            inst.src = [Some(v(1)), Some(v(4)), Some(v(7))];
            inst.imm = 255 << 8;
        }
        Form::DsAtomic => {
            if info.dst != 0 {
                inst.dst = Some(v(10));
            }
            inst.src = [Some(v(1)), Some(v(4)), (info.src[2] != 0).then(|| v(7))];
            inst.imm = 40;
        }
        Form::SmemLoad => {
            inst.dst = Some(sreg(2, info.dst));
            inst.src[0] = Some(s(4));
            inst.imm = 0x10;
        }
        Form::SopkDst => {
            inst.dst = Some(s(4));
            inst.imm = 0x1234;
        }
        Form::SopkSrc | Form::SopkSetreg => {
            inst.src[0] = Some(s(4));
            inst.imm = 0x1234;
        }
        Form::SopkGetreg => {
            inst.dst = Some(s(4));
            inst.imm = 0x1234;
        }
        Form::SopkSetregImm32 => {
            inst.src[0] = Some(LIT);
            inst.literal = Some(0xabcd);
            inst.imm = 0x1234;
        }
        Form::Vintrp => {
            inst.dst = Some(v(1));
            inst.src[0] = Some(v(2));
            inst.interp = Some(Interp {
                attr: 5,
                chan: 2,
                param: None,
            });
        }
        Form::VintrpMov => {
            inst.dst = Some(v(1));
            inst.interp = Some(Interp {
                attr: 5,
                chan: 2,
                param: Some(InterpParam::P20),
            });
        }
        Form::Exp => {
            inst.export = Some(Export {
                target: ExpTarget::Param(4),
                src: [Some(v(1)), Some(v(2)), None, Some(v(4))],
                compr: false,
                done: true,
                vm: false,
            });
        }
        Form::SoppImm | Form::SoppBranch => inst.imm = 1,
        Form::SoppWaitcnt => inst.imm = 0x70,
        _ => {
            if info.dst != 0 {
                inst.dst = Some(sreg(1, info.dst));
            }
            for k in 0..info.num_srcs() {
                inst.src[k] = Some(sreg(2 + k as u8, info.src[k]));
            }
        }
    }
    inst
}

/// Every (op, encoding) pair the table has on `generation`, as generated instances.
fn sweep(generation: Gen) -> Vec<McInst> {
    let mut out = Vec::new();
    for op in Op::all() {
        let info = op.info();
        // The native encoding, the VOP3 form, and the VOP2 form some VOP3-only gfx8
        // operations have on gfx6/gfx7.
        let mut encs = vec![info.enc, Enc::Vop3];
        if info.flags & VOP2_GFX67 != 0 {
            encs.push(Enc::Vop2);
        }
        encs.dedup();
        for enc in encs {
            if info.opcode_in(enc, generation).is_some() {
                out.push(sample(op, enc));
            }
        }
    }
    out
}

/// Encodes, round-trips and prints every instance, then compares with llvm-mc.
fn check(generation: Gen, cpu: &str, cases: &[(McInst, Option<&str>)]) {
    let mut failures = Vec::new();
    let mut encoded = Vec::new();
    for (k, (inst, expected)) in cases.iter().enumerate() {
        let mut bytes = Vec::new();
        if let Err(e) = encode(inst, generation, &mut bytes) {
            failures.push(format!("row {k}: {inst:?}: encode failed: {e}"));
            encoded.push(Vec::new());
            continue;
        }
        match decode(&bytes, generation) {
            Ok((back, len)) if back == *inst && len == bytes.len() => {}
            Ok((back, len)) => failures.push(format!(
                "row {k}: round trip differs ({len} of {} bytes [{}]):\n  ours  {inst:?}\n  back  {back:?}",
                bytes.len(),
                common::hex(&bytes)
            )),
            Err(e) => failures.push(format!("row {k}: decode of [{}] failed: {e}", common::hex(&bytes))),
        }
        let text = print(inst, generation);
        if let Some(want) = expected
            && text != *want
        {
            failures.push(format!(
                "row {k}: printed `{text}`, the table expects `{want}`"
            ));
        }
        encoded.push(bytes);
    }
    if let Some(llvm) = common::llvm_disassemble(cpu, &encoded) {
        for (k, ((inst, _), theirs)) in cases.iter().zip(&llvm).enumerate() {
            let ours = print(inst, generation);
            if theirs.as_deref() != Some(ours.as_str()) {
                failures.push(format!(
                    "row {k}: ours `{ours}`, llvm-mc-14 -mcpu={cpu} `{}`, bytes [{}]",
                    theirs.as_deref().unwrap_or("<did not decode>"),
                    common::hex(&encoded[k])
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Hand-written rows for what differs on gfx9: GLOBAL with its signed offset, the adds
/// without carry-out, the renamed carry forms.
fn rows_gfx9() -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    let valu9 = |op, dst, sdst, srcs: &[Operand]| {
        McInst::valu(op, Gen::Gfx9, dst, sdst, srcs).unwrap_or_else(|e| panic!("{op:?}: {e}"))
    };
    vec![
        (
            new(GlobalLoadDword, Global).d(v(0)).s(&[v(2)]),
            "global_load_dword v0, v[2:3], off",
        ),
        (
            new(GlobalLoadSshort, Global).d(v(0)).s(&[v(2)]).imm(-8),
            "global_load_sshort v0, v[2:3], off offset:-8",
        ),
        (
            new(GlobalLoadDwordx4, Global)
                .d(v(4))
                .s(&[v(2)])
                .imm(4095)
                .glc(),
            "global_load_dwordx4 v[4:7], v[2:3], off offset:4095 glc",
        ),
        (
            new(GlobalStoreDwordx2, Global)
                .s(&[v(2), v(4)])
                .imm(-4096)
                .glc()
                .slc(),
            "global_store_dwordx2 v[2:3], v[4:5], off offset:-4096 glc slc",
        ),
        (
            new(GlobalStoreByte, Global).s(&[v(2), v(1)]),
            "global_store_byte v[2:3], v1, off",
        ),
        // GLOBAL with an SGPR base (saddr): a one-VGPR offset, the SGPR pair after it.
        (
            new(GlobalLoadDword, Global)
                .d(v(1))
                .s(&[v(0), s(2)])
                .imm(16),
            "global_load_dword v1, v0, s[2:3] offset:16",
        ),
        (
            new(GlobalAtomicSwap, Global)
                .d(v(1))
                .s(&[v(0), v(2), s(4)])
                .imm(-16)
                .glc(),
            "global_atomic_swap v1, v0, v2, s[4:5] offset:-16 glc",
        ),
        (
            new(GlobalAtomicSminX2, Global)
                .s(&[v(0), v(2), s(4)])
                .imm(8),
            "global_atomic_smin_x2 v0, v[2:3], s[4:5] offset:8",
        ),
        (
            new(GlobalAtomicXor, Global).s(&[v(2), v(4)]).imm(4095),
            "global_atomic_xor v[2:3], v4, off offset:4095",
        ),
        (
            new(GlobalAtomicCmpswap, Global)
                .d(v(0))
                .s(&[v(2), v(4)])
                .glc(),
            "global_atomic_cmpswap v0, v[2:3], v[4:5], off glc",
        ),
        (
            new(GlobalStoreDword, Global).s(&[v(0), v(1), s(4)]),
            "global_store_dword v0, v1, s[4:5]",
        ),
        (
            new(GlobalLoadDwordx2, Global)
                .d(v(2))
                .s(&[v(0), s(2)])
                .imm(-8),
            "global_load_dwordx2 v[2:3], v0, s[2:3] offset:-8",
        ),
        (
            new(GlobalLoadDwordx4, Global)
                .d(v(4))
                .s(&[v(1), s(100)])
                .imm(4095)
                .glc(),
            "global_load_dwordx4 v[4:7], v1, s[100:101] offset:4095 glc",
        ),
        (
            new(GlobalStoreDwordx4, Global)
                .s(&[v(0), v(4), s(6)])
                .imm(-4096)
                .slc(),
            "global_store_dwordx4 v0, v[4:7], s[6:7] offset:-4096 slc",
        ),
        (
            new(GlobalStoreDwordx2, Global).s(&[v(3), v(4), s(0)]),
            "global_store_dwordx2 v3, v[4:5], s[0:1]",
        ),
        (
            new(GlobalStoreDword, Global).s(&[v(0), v(1), VCC]),
            "global_store_dword v0, v1, vcc",
        ),
        (
            new(GlobalLoadUbyte, Global).d(v(1)).s(&[v(0), s(2)]),
            "global_load_ubyte v1, v0, s[2:3]",
        ),
        (
            new(GlobalLoadSbyte, Global).d(v(1)).s(&[v(0), s(2)]).imm(1),
            "global_load_sbyte v1, v0, s[2:3] offset:1",
        ),
        (
            new(GlobalLoadUshort, Global).d(v(1)).s(&[v(0), s(2)]),
            "global_load_ushort v1, v0, s[2:3]",
        ),
        (
            new(GlobalLoadSshort, Global)
                .d(v(1))
                .s(&[v(0), s(2)])
                .imm(-2),
            "global_load_sshort v1, v0, s[2:3] offset:-2",
        ),
        (
            new(GlobalStoreByte, Global).s(&[v(0), v(1), s(2)]),
            "global_store_byte v0, v1, s[2:3]",
        ),
        (
            new(GlobalStoreShort, Global).s(&[v(0), v(1), s(2)]).imm(2),
            "global_store_short v0, v1, s[2:3] offset:2",
        ),
        (
            new(FlatLoadDword, Flat).d(v(0)).s(&[v(2)]).imm(4095),
            "flat_load_dword v0, v[2:3] offset:4095",
        ),
        (
            valu9(VAddNcU32, Some(v(0)), None, &[s(2), v(1)]),
            "v_add_u32_e32 v0, s2, v1",
        ),
        (
            valu9(VSubrevNcU32, Some(v(0)), None, &[v(1), s(2)]),
            "v_subrev_u32_e64 v0, v1, s2",
        ),
        (
            valu9(VAddU32, Some(v(0)), Some(VCC), &[i(1), v(1)]),
            "v_add_co_u32_e32 v0, vcc, 1, v1",
        ),
        (new(SWaitcnt, Sopp).imm(0xc07f), "s_waitcnt lgkmcnt(0)"),
        (new(SWaitcnt, Sopp).imm(0x4f72), "s_waitcnt vmcnt(18)"),
        (
            new(SLoadDwordx2, Smem).d(s(6)).s(&[s(2), M0]),
            "s_load_dwordx2 s[6:7], s[2:3], m0",
        ),
    ]
}

/// Hand-written rows for gfx6/gfx7: MUBUF `addr64`, SMRD dword offsets (and gfx7's literal
/// one), the value-first 64-bit shifts, `expcnt`.
fn rows_gfx67(generation: Gen) -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    let mut rows = vec![
        (
            new(SLoadDword, Smem).d(s(5)).s(&[s(2), s(4)]),
            "s_load_dword s5, s[2:3], s4",
        ),
        (
            new(SLoadDwordx2, Smem).d(s(6)).s(&[s(2), s(103)]),
            "s_load_dwordx2 s[6:7], s[2:3], s103",
        ),
        (
            new(BufferLoadDword, Mubuf).d(v(0)).s(&[v(2), s(8)]),
            "buffer_load_dword v0, v[2:3], s[8:11], 0 addr64",
        ),
        (
            new(BufferLoadSbyte, Mubuf)
                .d(v(0))
                .s(&[v(2), s(4)])
                .imm(4095)
                .glc(),
            "buffer_load_sbyte v0, v[2:3], s[4:7], 0 addr64 offset:4095 glc",
        ),
        (
            new(BufferLoadDwordx4, Mubuf)
                .d(v(4))
                .s(&[v(0), s(12)])
                .slc(),
            "buffer_load_dwordx4 v[4:7], v[0:1], s[12:15], 0 addr64 slc",
        ),
        (
            new(BufferStoreDwordx2, Mubuf)
                .s(&[v(2), v(4), s(8)])
                .imm(16),
            "buffer_store_dwordx2 v[4:5], v[2:3], s[8:11], 0 addr64 offset:16",
        ),
        (
            new(BufferStoreShort, Mubuf).s(&[v(2), v(9), s(0)]),
            "buffer_store_short v9, v[2:3], s[0:3], 0 addr64",
        ),
        (
            new(BufferAtomicAdd, Mubuf).s(&[v(2), v(9), s(4)]),
            "buffer_atomic_add v9, v[2:3], s[4:7], 0 addr64",
        ),
        (
            new(BufferAtomicSubX2, Mubuf)
                .d(v(4))
                .s(&[v(2), v(4), s(8)])
                .imm(8)
                .glc(),
            "buffer_atomic_sub_x2 v[4:5], v[2:3], s[8:11], 0 addr64 offset:8 glc",
        ),
        (
            new(BufferAtomicCmpswapX2, Mubuf)
                .d(v(4))
                .s(&[v(0), v(4), s(0)])
                .glc(),
            "buffer_atomic_cmpswap_x2 v[4:7], v[0:1], s[0:3], 0 addr64 glc",
        ),
        (new(BufferWbinvl1, Mubuf), "buffer_wbinvl1"),
        (
            new(SLoadDword, Smem).d(s(0)).s(&[s(4)]).imm(0xff),
            "s_load_dword s0, s[4:5], 0xff",
        ),
        (
            McInst::valu(VLshlB64, generation, Some(v(0)), None, &[v(2), i(3)]).unwrap(),
            "v_lshl_b64 v[0:1], v[2:3], 3",
        ),
        (
            McInst::valu(VAshrI64, generation, Some(v(0)), None, &[v(2), s(4)]).unwrap(),
            "v_ashr_i64 v[0:1], v[2:3], s4",
        ),
        (new(SWaitcnt, Sopp).imm(0xf0f), "s_waitcnt expcnt(0)"),
        // The lane accesses exist only in VOP2 here: the lane number sits in VSRC1.
        (
            McInst::valu(VReadlaneB32, generation, Some(s(5)), None, &[v(1), s(4)]).unwrap(),
            "v_readlane_b32 s5, v1, s4",
        ),
        (
            McInst::valu(
                VReadlaneB32,
                generation,
                Some(Operand(107)),
                None,
                &[v(255), i(63)],
            )
            .unwrap(),
            "v_readlane_b32 vcc_hi, v255, 63",
        ),
        (
            McInst::valu(VReadlaneB32, generation, Some(s(101)), None, &[v(7), M0]).unwrap(),
            "v_readlane_b32 s101, v7, m0",
        ),
        (
            McInst::valu(VWritelaneB32, generation, Some(v(1)), None, &[s(5), i(62)]).unwrap(),
            "v_writelane_b32 v1, s5, 62",
        ),
        (
            McInst::valu(VWritelaneB32, generation, Some(v(200)), None, &[i(0), s(9)]).unwrap(),
            "v_writelane_b32 v200, 0, s9",
        ),
        (
            McInst::valu(VWritelaneB32, generation, Some(v(3)), None, &[VCC, i(1)]).unwrap(),
            "v_writelane_b32 v3, vcc_lo, 1",
        ),
        // A long jump through the last SGPR pair, which gfx6/gfx7 have (gfx8: flat_scratch).
        (new(SGetpcB64, Sop1).d(s(102)), "s_getpc_b64 s[102:103]"),
        (
            new(SAddU32, Sop2)
                .d(s(102))
                .s(&[s(102), LIT])
                .lit(0xfffd_fff4),
            "s_add_u32 s102, s102, 0xfffdfff4",
        ),
        (
            new(SAddcU32, Sop2).d(s(103)).s(&[s(103), i(-1)]),
            "s_addc_u32 s103, s103, -1",
        ),
        (new(SSetpcB64, Sop1).s(&[s(102)]), "s_setpc_b64 s[102:103]"),
        (new(SNop, Sopp).imm(7), "s_nop 7"),
        // The LDS bound of workgroup-memory accesses, and the barrier.
        (new(SMovB32, Sop1).d(M0).s(&[i(-1)]), "s_mov_b32 m0, -1"),
        (new(SBarrier, Sopp), "s_barrier"),
    ];
    if generation == Gen::Gfx7 {
        rows.push((
            new(SLoadDwordx2, Smem).d(s(0)).s(&[s(4)]).imm(0x12345),
            "s_load_dwordx2 s[0:1], s[4:5], 0x12345",
        ));
    }
    rows
}

/// `s_nop`'s count field is SIMM16[2:0] on gfx6/gfx7 and SIMM16[3:0] from gfx8 (the SI/CI
/// and GCN3/Vega manuals). llvm-mc-14 assembles any 16-bit count on every CPU (`s_nop 8`
/// for `tahiti` is `08 00 80 bf`, which that hardware reads as `s_nop 0`), so the rows
/// above check the encodings of `s_nop 7` and `s_nop 15` against it and this test checks
/// that nothing beyond the field is encoded.
#[test]
fn s_nop_count_stays_in_its_field() {
    let nop = |n| new(Op::SNop, Enc::Sopp).imm(n);
    for (g, max) in [
        (Gen::Gfx6, 7),
        (Gen::Gfx7, 7),
        (Gen::Gfx8, 15),
        (Gen::Gfx9, 15),
    ] {
        let mut bytes = Vec::new();
        encode(&nop(max), g, &mut bytes).unwrap();
        assert_eq!(bytes, [max as u8, 0, 0x80, 0xbf]);
        assert!(encode(&nop(max + 1), g, &mut bytes).is_err(), "{g:?}");
        assert!(decode(&[max as u8 + 1, 0, 0x80, 0xbf], g).is_err(), "{g:?}");
    }
}

#[test]
fn table_rows_gfx9() {
    let cases: Vec<_> = rows_gfx9()
        .into_iter()
        .map(|(inst, text)| (inst, Some(text)))
        .collect();
    check(Gen::Gfx9, "gfx900", &cases);
}

#[test]
fn ds_swizzle_gfx8_gfx9() {
    for (generation, cpu) in [(Gen::Gfx8, "tonga"), (Gen::Gfx9, "gfx900")] {
        let mut cases: Vec<_> = swizzle_rows()
            .into_iter()
            .map(|(inst, text)| (inst, Some(text)))
            .collect();
        let swizzle = new(Op::DsSwizzleB32, Enc::Ds).d(v(1)).s(&[v(2)]);
        cases.push((
            swizzle.imm(0x18 | 7 << 5 | 3 << 10),
            Some("ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"pp100\")"),
        ));
        cases.extend(swizzle_sweep().into_iter().map(|inst| (inst, None)));
        check(generation, cpu, &cases);
    }
}

#[test]
fn ds_swizzle_gfx6_gfx7_by_assembling() {
    for (generation, cpu) in [(Gen::Gfx6, "tahiti"), (Gen::Gfx7, "bonaire")] {
        check_by_assembling(generation, cpu, &swizzle_rows());
        let sweep: Vec<(McInst, String)> = swizzle_sweep()
            .into_iter()
            .filter(|inst| canonical_swizzle(inst.imm))
            .map(|inst| {
                let text = print(&inst, generation);
                (inst, text)
            })
            .collect();
        let rows: Vec<(McInst, &str)> =
            sweep.iter().map(|(i, t)| (i.clone(), t.as_str())).collect();
        check_by_assembling(generation, cpu, &rows);
    }
}

#[test]
fn table_rows_gfx6_by_assembling() {
    check_by_assembling(Gen::Gfx6, "tahiti", &rows_gfx67(Gen::Gfx6));
}

#[test]
fn table_rows_gfx7_by_assembling() {
    check_by_assembling(Gen::Gfx7, "bonaire", &rows_gfx67(Gen::Gfx7));
}

/// Private-memory accesses (MUBUF `offen` and `off` through a scratch resource, SOFFSET an
/// SGPR or 0) and the SGPR spills' lane writes and reads, as wavelift emits them.
fn scratch_rows() -> Vec<(McInst, &'static str)> {
    use Enc::*;
    use Op::*;
    let offen = |mut inst: McInst, soffset: Operand| {
        inst.mubuf = MubufAddr::Offen;
        inst.soffset = soffset;
        inst
    };
    // `off` has no VADDR: the sources given to `s` start at the one after it.
    let off = |mut inst: McInst, soffset: Operand| {
        inst.mubuf = MubufAddr::Off;
        inst.soffset = soffset;
        inst.src = [None, inst.src[0], inst.src[1]];
        inst
    };
    let zero = i(0);
    vec![
        (
            offen(new(BufferLoadDword, Mubuf).d(v(1)).s(&[v(2), s(0)]), zero).imm(4),
            "buffer_load_dword v1, v2, s[0:3], 0 offen offset:4",
        ),
        (
            off(new(BufferLoadDword, Mubuf).d(v(1)).s(&[s(4)]), s(2)).imm(4095),
            "buffer_load_dword v1, off, s[4:7], s2 offset:4095",
        ),
        (
            offen(new(BufferStoreDword, Mubuf).s(&[v(2), v(1), s(0)]), s(2)).imm(12),
            "buffer_store_dword v1, v2, s[0:3], s2 offen offset:12",
        ),
        (
            off(new(BufferStoreByte, Mubuf).s(&[v(1), s(0)]), zero),
            "buffer_store_byte v1, off, s[0:3], 0",
        ),
        (
            offen(new(BufferStoreShort, Mubuf).s(&[v(7), v(1), s(4)]), zero).imm(2),
            "buffer_store_short v1, v7, s[4:7], 0 offen offset:2",
        ),
        (
            offen(new(BufferLoadSshort, Mubuf).d(v(9)).s(&[v(2), s(0)]), zero),
            "buffer_load_sshort v9, v2, s[0:3], 0 offen",
        ),
        (
            off(new(BufferLoadUbyte, Mubuf).d(v(255)).s(&[s(0)]), zero).imm(4092),
            "buffer_load_ubyte v255, off, s[0:3], 0 offset:4092",
        ),
    ]
}

#[test]
fn scratch_accesses_gfx8_gfx9() {
    for (generation, cpu) in [(Gen::Gfx8, "tonga"), (Gen::Gfx9, "gfx900")] {
        let cases: Vec<_> = scratch_rows()
            .into_iter()
            .map(|(inst, text)| (inst, Some(text)))
            .collect();
        check(generation, cpu, &cases);
    }
}

#[test]
fn scratch_accesses_gfx6_gfx7_by_assembling() {
    check_by_assembling(Gen::Gfx6, "tahiti", &scratch_rows());
    check_by_assembling(Gen::Gfx7, "bonaire", &scratch_rows());
}

#[test]
fn table_rows_gfx8() {
    let cases: Vec<_> = rows()
        .into_iter()
        .map(|(inst, text)| (inst, Some(text)))
        .collect();
    check(Gen::Gfx8, "tonga", &cases);
}

#[test]
fn sweep_gfx8() {
    let cases: Vec<_> = sweep(Gen::Gfx8)
        .into_iter()
        .map(|inst| (inst, None))
        .collect();
    check(Gen::Gfx8, "tonga", &cases);
}

#[test]
fn sweep_gfx9() {
    let cases: Vec<_> = sweep(Gen::Gfx9)
        .into_iter()
        .map(|inst| (inst, None))
        .collect();
    check(Gen::Gfx9, "gfx900", &cases);
}

/// gfx6/gfx7: llvm-mc-14 cannot disassemble them, so check the other way: assemble our text
/// and compare the bytes with ours.
fn check_by_assembling(generation: Gen, cpu: &str, rows: &[(McInst, &str)]) {
    let cases: Vec<McInst> = if rows.is_empty() {
        sweep(generation)
    } else {
        rows.iter().map(|(inst, _)| inst.clone()).collect()
    };
    let mut failures = Vec::new();
    for (inst, want) in rows {
        let text = print(inst, generation);
        if text != *want {
            failures.push(format!("printed `{text}`, the table expects `{want}`"));
        }
    }
    let mut encoded = Vec::new();
    for (k, inst) in cases.iter().enumerate() {
        let mut bytes = Vec::new();
        match encode(inst, generation, &mut bytes) {
            Ok(()) => match decode(&bytes, generation) {
                Ok((back, len)) if back == *inst && len == bytes.len() => {}
                other => failures.push(format!("row {k}: {inst:?} round trip gave {other:?}")),
            },
            Err(e) => failures.push(format!("row {k}: {inst:?}: encode failed: {e}")),
        }
        encoded.push(bytes);
    }
    let texts: Vec<String> = cases.iter().map(|inst| print(inst, generation)).collect();
    let Some(theirs) = common::llvm_assemble(cpu, &texts) else {
        return;
    };
    for (k, (text, theirs)) in texts.iter().zip(theirs).enumerate() {
        match theirs {
            None => failures.push(format!(
                "row {k}: llvm-mc-14 -mcpu={cpu} rejects our `{text}`"
            )),
            Some(theirs) if theirs != common::hex(&encoded[k]) => failures.push(format!(
                "row {k}: `{text}`: ours [{}], llvm-mc-14 -mcpu={cpu} [{theirs}]",
                common::hex(&encoded[k])
            )),
            Some(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn sweep_gfx6_by_assembling() {
    check_by_assembling(Gen::Gfx6, "tahiti", &[]);
}

#[test]
fn sweep_gfx7_by_assembling() {
    check_by_assembling(Gen::Gfx7, "bonaire", &[]);
}

/// A call site's literals (the callee's offset, patched by linking) may hold a value an
/// inline constant has; llvm-mc prints such a literal as that constant. (The table rows
/// cannot show it: they match llvm-mc's lines by the encoding it would choose, the inline
/// one.)
#[test]
fn literals_of_inline_values_print_as_llvm_mc_prints_them() {
    use Op::*;
    let lit = |op, d, v| new(op, Enc::Sop2).d(s(d)).s(&[s(d), LIT]).lit(v);
    let cases = [
        lit(SAddU32, 0, 0),
        lit(SAddcU32, 1, u32::MAX),
        lit(SAddU32, 0, 0x3f80_0000),
        lit(SAddU32, 0, 0x3e22_f983),
        lit(SAddU32, 0, 65),
        lit(SAddcU32, 1, (-16i32) as u32),
    ];
    // llvm-mc-14 disassembles gfx8 and gfx9 only.
    for (generation, cpu) in [(Gen::Gfx8, "tonga"), (Gen::Gfx9, "gfx900")] {
        let mut input = String::new();
        for inst in &cases {
            let mut bytes = Vec::new();
            encode(inst, generation, &mut bytes).expect("encodes");
            input += &(common::hex(&bytes) + "\n");
        }
        let Some(out) = common::llvm_mc(cpu, &["-disassemble"], &input) else {
            return;
        };
        let theirs: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .map(str::to_string)
            .collect();
        let ours: Vec<String> = cases.iter().map(|i| print(i, generation)).collect();
        assert_eq!(ours, theirs, "{cpu}");
    }
}
