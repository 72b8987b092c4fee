//! The GCN machine instruction (VCode level): ordinary SALU/VALU/memory instructions are
//! one MC opcode with typed operands; a few pseudo-instructions stand for short fixed
//! sequences (64-bit arithmetic, scalar compare-and-select) that emission expands.

use super::mc::{Dpp, DstUnused, Enc, ExpTarget, Gen, Op, Sdwa, SdwaSel};
use super::regs::{EXEC, SGPR, VCC, VGPR};
use crate::intrinsics::WaveOp;
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use smallvec::SmallVec;

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Src {
    Reg(Reg),
    /// A 32-bit constant: emission encodes it as an inline constant when one exists and as
    /// a literal otherwise.
    Imm(u32),
}

impl Src {
    pub fn reg(self) -> Option<Reg> {
        match self {
            Src::Reg(r) => Some(r),
            Src::Imm(_) => None,
        }
    }
    pub fn is_vgpr(self) -> bool {
        matches!(self, Src::Reg(r) if r.file() == super::regs::VGPR)
    }
}

/// What a wave scan computes (`Inst::WaveScan`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScanKind {
    /// The value over all active lanes, in an SGPR.
    Reduce,
    Inclusive,
    Exclusive,
}

/// A 64-bit operation that emission splits into 32-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op64 {
    Add,
    Sub,
    And,
    Or,
    Xor,
    AndNot,
    OrNot,
    Mul,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// Function entry: defines each virtual register (first) from the real register the
    /// hardware or the caller fills (second): in place below `abi::FIXED_ABI_VGPRS`, else
    /// by a parallel move at emission.
    Args { defs: Vec<(Reg, Reg)> },
    /// One SALU instruction (SOP1/SOP2/SOPK/SOPC). Writes SCC, which never holds a value
    /// across instructions.
    Salu {
        op: Op,
        dst: Option<Reg>,
        srcs: SmallVec<[Src; 2]>,
    },
    /// One VALU instruction. `sdst` is the lane-mask result of a compare, the carry-out of
    /// VOP3b ops, or the SGPR result of `v_readfirstlane_b32`.
    Valu {
        op: Op,
        dst: Option<Reg>,
        sdst: Option<Reg>,
        srcs: SmallVec<[Src; 3]>,
        neg: u8,
        abs: u8,
        clamp: bool,
        /// `sdst` is defined in VCC: a compare whose lane mask is read next to it, which
        /// then takes the VOPC encoding (see `sdst_constraint`).
        mask_in_vcc: bool,
        /// SDWA operand selects (gfx8/gfx9): the instruction is emitted in its SDWA form.
        /// With `dst_unused: Preserve` the last source is not an operand of the operation
        /// but the value whose other bits the destination keeps, and `dst` is written in
        /// its register (see [`Inst::preserved`]).
        sdwa: Option<Sdwa>,
    },
    /// A scalar compare then select: `dst = cmp(a, b) ? t : f`.
    SCmpSelect {
        cmp: Op,
        a: Src,
        b: Src,
        select: Op,
        dst: Reg,
        t: Src,
        f: Src,
    },
    /// A 64-bit operation on register pairs (scalar when `dst` is an SGPR pair).
    Alu64 { op: Op64, dst: Reg, a: Reg, b: Src },
    /// IEEE-correct f32 division `dst = num / den` (denormals on): the v_div_scale,
    /// v_rcp, v_fma, v_div_fmas, v_div_fixup sequence emission expands. It writes VCC (the
    /// scale flag v_div_fmas reads) and its temporaries while still reading the sources,
    /// so `dst` and `tmp` are early defs.
    FDiv32 {
        dst: Reg,
        num: Reg,
        den: Reg,
        tmp: [Reg; 4],
    },
    /// Correctly rounded f32 square root: v_sqrt_f32 corrected by testing its neighbours
    /// with fma residuals. Writes VCC; `dst` and `tmp` are early defs, as for `FDiv32`.
    Sqrt32 { dst: Reg, src: Reg, tmp: [Reg; 4] },
    /// IEEE-correct f64 division (the v_div_scale_f64, v_rcp_f64, v_fma_f64,
    /// v_div_fmas_f64, v_div_fixup_f64 sequence); like `FDiv32`, with VGPR pairs.
    FDiv64 {
        dst: Reg,
        num: Reg,
        den: Reg,
        tmp: [Reg; 4],
    },
    /// Correctly rounded f64 square root (v_rsq_f64 refined by fma steps, tiny inputs
    /// rescaled); like `Sqrt32`, with VGPR pairs.
    Sqrt64 { dst: Reg, src: Reg, tmp: [Reg; 4] },
    /// An f64 rounding to integral value (`op` is v_trunc_f64, v_floor_f64, v_ceil_f64 or
    /// v_rndne_f64) expanded into 32-bit integer and f64 arithmetic, for gfx6, which lacks
    /// those four. Writes VCC; `dst` and `tmp` (pairs) are early defs.
    RoundF64 {
        op: Op,
        dst: Reg,
        src: Reg,
        tmp: [Reg; 2],
    },
    /// A wave reduction or scan of `src` over the active lanes (`docs/ir.md`,
    /// "Cross-lane intrinsics"), expanded at emission (`emit/wave_scan.rs`): `dst` is an
    /// SGPR for a reduction, a VGPR for a scan. It sets EXEC to all lanes and back (the
    /// caller's in `saved_exec`) and writes every lane of `tmp`, `shifted`, `rows`
    /// and a scan's `dst` (so `dst` must never be a masked move's destination); all but
    /// `src` are early defs.
    WaveScan {
        op: WaveOp,
        kind: ScanKind,
        dst: Reg,
        src: Reg,
        tmp: Reg,
        /// A VGPR for gfx8's sum scans and gfx6/gfx7's f32 operations.
        shifted: Reg,
        saved_exec: Reg,
        /// An SGPR: a pair for f32 min/max scans (their NaN mask).
        lane: Reg,
        /// VGPRs: 15 for gfx6/gfx7's f32 sum scans (the transposed wave), else none.
        rows: Vec<Reg>,
    },
    /// A VOP1 or VOP2 operation whose first source is read from another lane through DPP
    /// (gfx8/gfx9; `v_mov_b32_dpp` for the shuffles, `lower/shuffles.rs`, and a VOP2 that
    /// consumes a shuffle, `src1` its second source, a VGPR). With `bound_ctrl` and full
    /// row and bank masks every active lane writes `dst`.
    ValuDpp {
        op: Op,
        dst: Reg,
        src: Reg,
        src1: Option<Reg>,
        dpp: Dpp,
    },
    /// An instruction of the LDS unit with a result (DS encoding): a lane permute
    /// (`ds_swizzle_b32`, `ds_bpermute_b32`) or a workgroup-memory load (`ds_read_*` from
    /// `addr + offset`; `ds_read2_b32`'s `offset` holds its two dword offsets, OFFSET1 in
    /// the high byte). `addr` is the ADDR field's VGPR (the data itself for
    /// `ds_swizzle_b32`), `data` the DATA0 field's. Its result returns through LGKM_CNT
    /// (`insert_waitcnt`).
    Ds {
        op: Op,
        dst: Reg,
        addr: Reg,
        data: Option<Reg>,
        offset: u16,
    },
    /// A workgroup-memory store (`ds_write_*`) of `data` to `addr + offset`; with
    /// `ds_write2_b32`, `data` and `data1` to the two dword offsets `offset` holds (as in
    /// `Ds`). Counts in LGKM_CNT until done.
    DsWrite {
        op: Op,
        addr: Reg,
        data: Reg,
        data1: Option<Reg>,
        offset: u16,
    },
    /// A workgroup-memory atomic (`ds_*_u32`, `ds_*_rtn_*`, `ds_cmpst_*`) on `addr +
    /// offset` with `data` (and `data1`, the value `ds_cmpst_*` writes); `dst`, the old
    /// value, with the `_rtn_` forms only. Counts in LGKM_CNT until done.
    DsAtomic {
        op: Op,
        dst: Option<Reg>,
        addr: Reg,
        data: Reg,
        data1: Option<Reg>,
        offset: u16,
    },
    /// `s_mov_b32 m0, -1` at entry on gfx6–gfx8, whose DS instructions check their address
    /// against M0, the bytes of LDS the wave may access (the LDS chapter of the SI and GCN3
    /// ISA manuals): -1 leaves the bound to the work-group's allocation, as LLVM does.
    LdsBound,
    /// `s_barrier`: `insert_waitcnt` waits for every memory access in flight before it.
    Barrier,
    /// `s_mov_b32 m0, src`: a fragment shader's primitive mask, which parameter
    /// interpolation reads from M0 (`docs/ir.md`, "Fragment-shader ABI"). Nothing else
    /// writes M0 in a fragment shader (workgroup memory is refused there).
    SetM0 { src: Reg },
    /// `v_interp_p1_f32 dst, i, attr.chan` then `v_interp_p2_f32 dst, j, attr.chan`:
    /// `P0 + i·P10 + j·P20` of the attribute's channel. `dst` is written before `j` is
    /// read, so it never shares `j`'s register; it shares `i`'s only where `reuse_i` says
    /// the CPU allows it (not on parts with 16 LDS banks).
    Interp {
        dst: Reg,
        i: Reg,
        j: Reg,
        attr: u8,
        chan: u8,
        reuse_i: bool,
    },
    /// `v_interp_mov_f32 dst, p0, attr.chan`: a flat input, the provoking vertex's value.
    InterpMov { dst: Reg, attr: u8, chan: u8 },
    /// `exp target src…`, `done` on a pixel shader's last export and a vertex shader's
    /// last position export; pixel targets with `vm` (EXEC is the mask of the pixels
    /// exported), positions and parameters without. Exports come last, right before `s_endpgm`, so no
    /// VGPR they read is written while they are in flight (EXP_CNT). `compr`: each source
    /// holds two f16 channels (channels 0 and 1 name one VGPR, 2 and 3 another).
    Export {
        target: ExpTarget,
        src: [Option<Reg>; 4],
        done: bool,
        compr: bool,
    },
    /// gfx6/gfx7: `dst` = `src` of lane `index` in each active lane, 0 where `index` is 64
    /// or more or names an inactive lane (`docs/ir.md`, the shuffles), expanded at emission
    /// (`emit/lane_gather.rs`) into lane reads and writes. It sets EXEC to all lanes and
    /// back (the caller's in `saved_exec`), writes every lane of `tmp` and `dst`, and VCC;
    /// all but the sources are early defs.
    LaneGather {
        dst: Reg,
        src: Reg,
        index: Reg,
        /// A VGPR: the source with inactive lanes at 0.
        tmp: Reg,
        saved_exec: Reg,
        /// SGPRs: the lane numbers read ahead (three, so that each is written four wait
        /// states before `v_readlane_b32` selects a lane with it) and one lane's value.
        lanes: [Reg; 3],
        value: Reg,
    },
    /// A 64-bit constant into a register pair.
    Const64 { dst: Reg, value: u64 },
    /// Builds a tuple from consecutive parts of the same file (a pair from two singles, a
    /// quad from four singles or two pairs).
    Combine { dst: Reg, parts: SmallVec<[Reg; 4]> },
    /// Reads the low or high half of a pair (a single) or of a quad (a pair).
    Half { dst: Reg, src: Reg, hi: bool },
    /// A register copy of any width. From the VGPR to the SGPR file it reads the first
    /// active lane (`v_readfirstlane_b32`), which is only correct for uniform values.
    Copy { dst: Reg, src: Reg },
    /// Scalar memory load from `base + offset` (kernel arguments), or from `base` plus the
    /// byte offset in the SGPR `soffset` (then `offset` is 0): offsets beyond the immediate
    /// field (gfx6: 1020 bytes).
    SLoad {
        op: Op,
        dst: Reg,
        base: Reg,
        offset: u32,
        soffset: Option<Reg>,
    },
    /// Global-memory load from `addr + offset`: FLAT, GLOBAL or MUBUF `addr64` as `op`
    /// says. `addr` is a VGPR pair, except with GLOBAL's SGPR base.
    Load {
        op: Op,
        dst: Reg,
        addr: Reg,
        offset: i32,
        /// The scalar operand: MUBUF's buffer resource (an SGPR quad), or GLOBAL's SGPR-pair
        /// base (saddr, Vega ISA 12.12), to which the hardware adds `addr`, then one VGPR
        /// holding an unsigned 32-bit offset.
        sbase: Option<Reg>,
        /// Reads past the wave's L1 cache (an `atomic_load`).
        glc: bool,
    },
    /// Global-memory store to `addr + offset`, in the same forms.
    Store {
        op: Op,
        addr: Reg,
        offset: i32,
        data: Reg,
        sbase: Option<Reg>,
    },
    /// A global-memory atomic at `addr + offset` in the same forms as `Load` (`op` a FLAT,
    /// GLOBAL or MUBUF atomic): `data` is the operand, for `cmpswap` a pair (quad) of the
    /// new value then the compared one. With `dst` the atomic returns the old value (`glc`):
    /// FLAT and GLOBAL in `dst`; MUBUF in the registers of `data`, so there `dst` has the
    /// width of `data` and reuses its register (the old value is its first dwords). Like a
    /// load, a returned value arrives through VM_CNT (`insert_waitcnt`).
    Atomic {
        op: Op,
        dst: Option<Reg>,
        addr: Reg,
        offset: i32,
        data: Reg,
        sbase: Option<Reg>,
    },
    /// A private-memory load (`docs/ir.md`, "Memory spaces"): one MUBUF load `op` per
    /// dword of `dst` (a byte or short `op` for a narrower value), from the frame offsets
    /// `vaddr + offset`, `+ 4`, … (`vaddr` a VGPR: `offen`; none: `off`) through the
    /// scratch resource `rsrc`, SOFFSET `soffset` (none: 0). The resource swizzles the lanes
    /// a dword apart, so a wide value is its dwords' accesses (LLVM's private element size
    /// of 4 on gfx6–gfx9). `whole_wave`: a spill's reload in linearized code, run with EXEC
    /// set to the function's lanes (`expand_wave_copies`): the register holds values of
    /// lanes outside the block's EXEC.
    ScratchLoad {
        op: Op,
        dst: Reg,
        vaddr: Option<Reg>,
        offset: u16,
        rsrc: Reg,
        soffset: Option<Reg>,
        whole_wave: bool,
    },
    /// A private-memory store of `data`, in the same forms.
    ScratchStore {
        op: Op,
        data: Reg,
        vaddr: Option<Reg>,
        offset: u16,
        rsrc: Reg,
        soffset: Option<Reg>,
        whole_wave: bool,
    },
    /// The allocator's spill of `src` into its file's spill slot `slot` (in registers, a
    /// pair at an even slot): expanded after allocation (`place_spills`) into lane writes
    /// of a VGPR (SGPRs) or scratch stores (VGPRs).
    Spill { slot: u32, src: Reg },
    /// The allocator's reload of `dst` from spill slot `slot`, as `Spill`.
    Reload { dst: Reg, slot: u32 },
    /// Invalidates the vector L1 cache (`buffer_wbinvl1_vol`; gfx6 `buffer_wbinvl1`), so
    /// that later loads read what other waves wrote: the acquire half of an atomic's
    /// ordering (`docs/ir.md`, "Atomics").
    InvalidateL1,
    /// Four 32-bit constants into an SGPR quad (a buffer resource).
    Const128 { dst: Reg, value: [u32; 4] },
    /// `s_waitcnt`; inserted after allocation. `None` leaves a counter unconstrained.
    Waitcnt {
        vmcnt: Option<u8>,
        expcnt: Option<u8>,
        lgkmcnt: Option<u8>,
    },
    /// `s_branch` to VCode block `target` (nothing when the target comes next).
    Jump { target: usize },
    /// A uniform two-way branch: `s_cmp` `cmp` a, b, then `s_cbranch_scc1` to `taken`,
    /// else on to `not_taken`. SCC lives only inside it.
    BrScc {
        cmp: Op,
        a: Src,
        b: Src,
        taken: usize,
        not_taken: usize,
    },
    /// Linearized code: a two-way branch on EXEC, `s_cbranch_execnz` to `taken`, else on
    /// to `not_taken` (a loop latch, after EXEC is set to the lanes that continue).
    BrExecnz { taken: usize, not_taken: usize },
    /// Linearized code: `s_cbranch_execz` to `target`, over instructions that do nothing
    /// when no lane is on (inserted after allocation, `skip.rs`).
    BrExecz { target: usize },
    /// Linearized code: a register with no defined value, the first version of a value
    /// collected from several edges by `MaskedMove`s. Emits nothing.
    Undef { dst: Reg },
    /// Linearized code: `dst` is `old` with `src` in the lanes of `mask` (`v_cndmask_b32`
    /// per dword, `v_mov_b32` if `mask` is EXEC), written in `old`'s register so that the
    /// lanes that are off keep it.
    MaskedMove {
        dst: Reg,
        old: Reg,
        src: Reg,
        mask: Reg,
    },
    /// Linearized code: an allocator's VGPR move, copying every lane the function runs
    /// for; expanded after allocation, when the registers holding EXEC are known.
    WaveCopy { dst: Reg, src: Reg },
    /// A fragment shader's `wavelift_discard`: `s_andn2_b64 live, live, exec` takes the
    /// lanes of EXEC out of the live lanes (SCC: whether any is left), `s_mov_b64 exec, 0`
    /// stops them (SCC stays), and `s_cbranch_scc0` ends the wave at the function's
    /// null-export tail when none is left (`lay_out_blocks`; `docs/ir.md`,
    /// "Fragment-shader ABI").
    Discard { live: Reg },
    /// End of a kernel.
    EndPgm,
    /// Return from a device function: the results (first) in their ABI registers
    /// (second; those from `abi::FIXED_ABI_VGPRS` on by a parallel move at emission), then
    /// `s_setpc_b64` to the return address.
    Ret {
        results: Vec<(Reg, Reg)>,
        ret_addr: Reg,
    },
    /// A call of the device function `callee` (its symbol: the CLIF name without `%`), the
    /// arguments (first) in their ABI VGPRs (second), the results defined from theirs;
    /// `clobbers` are the registers the calling convention lets the callee overwrite (every
    /// SGPR, v0–v31) but the results. `place_calls` replaces it after allocation with the
    /// sequence around an [`Inst::Swappc`].
    Call {
        callee: Callee,
        args: Vec<(Reg, Reg)>,
        results: Vec<(Reg, Reg)>,
        clobbers: Vec<Reg>,
    },
    /// The jump to `callee` with the return address in `s[0:1]`: of a symbol, `s_getpc_b64
    /// s[0:1]`, `s_add_u32 s0, s0, lo`, `s_addc_u32 s1, s1, hi`, `s_swappc_b64 s[0:1],
    /// s[0:1]`, the two literals the callee's offset from the end of the `s_getpc_b64`, 0
    /// until linking patches them (`link`); of an address, `s_swappc_b64 s[0:1]` with it.
    /// `uses`: s2 and `s[4:7]`, which the callee reads, and the address.
    Swappc { callee: Callee, uses: Vec<Reg> },
    /// `func_addr`: `s_getpc_b64 dst`, `s_add_u32 dst.lo, dst.lo, lo`, `s_addc_u32 dst.hi,
    /// dst.hi, hi`, the literals `callee`'s offset as in [`Inst::Swappc`].
    FuncAddr {
        dst: Reg,
        callee: String,
        signature: String,
    },
}

/// What a call jumps to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A device function of the module, by symbol (its CLIF name without `%`).
    Symbol(String),
    /// The address in an SGPR pair (`call_indirect`), and which functions it may be.
    Address(Reg, super::link::IndirectCall),
}

/// Whether a VALU operation writes a carry-out (VCC in its short encoding, and where
/// lowering names no lane mask for it: `v_mad_u64_u32`'s, which nothing reads).
pub fn writes_carry(op: Op) -> bool {
    matches!(
        op,
        Op::VAddU32
            | Op::VSubU32
            | Op::VSubrevU32
            | Op::VAddcU32
            | Op::VSubbU32
            | Op::VSubbrevU32
            | Op::VMadU64U32
    )
}

/// The form of a 32-bit add or subtract that `generation` does best when its carry-out is
/// not used: gfx9's `v_add_u32`/`v_sub_u32`/`v_subrev_u32` write no carry, which leaves VCC
/// free (Vega ISA 12.7, VOP2 opcodes 52–54); earlier generations only have the carry forms.
pub fn without_carry(op: Op, generation: Gen) -> Op {
    match (generation, op) {
        (Gen::Gfx9, Op::VAddU32) => Op::VAddNcU32,
        (Gen::Gfx9, Op::VSubU32) => Op::VSubNcU32,
        (Gen::Gfx9, Op::VSubrevU32) => Op::VSubrevNcU32,
        _ => op,
    }
}

/// The 64-bit shift of gfx6/gfx7, which takes the value first and the amount second
/// (`v_lshl_b64 vdst, value, amount`), for the reversed gfx8+ form `op` when `generation`
/// lacks it.
pub fn shift64_value_first(op: Op, generation: Gen) -> Option<Op> {
    if op.info().available(generation) {
        return None;
    }
    match op {
        Op::VLshlrevB64 => Some(Op::VLshlB64),
        Op::VLshrrevB64 => Some(Op::VLshrB64),
        Op::VAshrrevI64 => Some(Op::VAshrI64),
        _ => None,
    }
}

/// Whether SDWA selects write part of the destination and keep its other bits.
fn keeps_other_bits(sdwa: Option<Sdwa>) -> bool {
    sdwa.is_some_and(|sel| sel.dst_unused == DstUnused::Preserve && sel.dst_sel != SdwaSel::Dword)
}

static VCC_CLOBBER: [Reg; 1] = [VCC];

/// The constraint of an ABI register operand: `fixed` for the first VGPRs, a plain operand
/// (moved at emission) for the others, which the allocator's classes cannot all hold.
fn abi_constraint(abi: Reg, fixed: OperandKind) -> OperandKind {
    match (abi, fixed) {
        (Reg::Real { file: VGPR, hw, .. }, OperandKind::DefFixed(_))
            if hw >= super::abi::FIXED_ABI_VGPRS =>
        {
            OperandKind::DefAny
        }
        (Reg::Real { file: VGPR, hw, .. }, OperandKind::UseFixed(_))
            if hw >= super::abi::FIXED_ABI_VGPRS =>
        {
            OperandKind::UseAny
        }
        _ => fixed,
    }
}

/// A compare lowered next to the one instruction that reads its lane mask (a
/// `v_cndmask_b32`, a branch's EXEC update) writes the mask to VCC, where the VOPC
/// encoding (half VOP3's size, and taking a literal or an SGPR as its first source) names
/// it implicitly; should VCC be overwritten before the read, the allocator moves the mask
/// to another pair. Masks read across carries (the division expansions) go to any pair.
fn sdst_constraint(mask_in_vcc: bool) -> OperandKind {
    if mask_in_vcc {
        OperandKind::DefFixed(VCC)
    } else {
        OperandKind::Def
    }
}

impl Inst {
    /// The index in `srcs` of the value an SDWA `UNUSED_PRESERVE` destination keeps the
    /// other bits of (always the last source), for a VALU instruction that has one.
    pub fn preserved(&self) -> Option<usize> {
        match self {
            Inst::Valu { sdwa, srcs, .. } if keeps_other_bits(*sdwa) => Some(srcs.len() - 1),
            _ => None,
        }
    }

    /// Whether the instruction writes EXEC (or a half of it).
    pub fn writes_exec(&self) -> bool {
        matches!(self, Inst::Salu { dst: Some(Reg::Real { file: SGPR, hw, .. }), .. }
            if (EXEC.hw()..EXEC.hw() + 2).contains(hw))
            || matches!(self, Inst::Discard { .. })
    }

    /// Whether executing the instruction overwrites VCC beyond its named operands.
    fn writes_vcc(&self) -> bool {
        match self {
            // A carry named by `sdst` is a definition, wherever the allocator puts it.
            Inst::Valu { op, sdst, .. } => writes_carry(*op) && sdst.is_none(),
            Inst::ValuDpp { op, .. } => writes_carry(*op),
            Inst::Alu64 { dst, op, .. } => {
                dst.file() != SGPR && matches!(op, Op64::Add | Op64::Sub | Op64::Mul)
            }
            Inst::FDiv32 { .. }
            | Inst::Sqrt32 { .. }
            | Inst::FDiv64 { .. }
            | Inst::Sqrt64 { .. }
            | Inst::RoundF64 { .. } => true,
            // gfx8's v_add_u32 writes its carry; the f32 min/max NaN test its mask.
            Inst::WaveScan { op, .. } => {
                matches!(op, WaveOp::Add | WaveOp::FMin | WaveOp::FMax)
            }
            // Its last step tests the index's range into VCC.
            Inst::LaneGather { .. } => true,
            _ => false,
        }
    }
}

impl MachInst for Inst {
    fn visit_operands(&mut self, visit: &mut dyn FnMut(&mut Reg, OperandKind)) {
        let src = |s: &mut Src, visit: &mut dyn FnMut(&mut Reg, OperandKind)| {
            if let Src::Reg(r) = s {
                visit(r, OperandKind::Use);
            }
        };
        match self {
            Inst::Args { defs } => {
                for (vreg, real) in defs {
                    visit(vreg, abi_constraint(*real, OperandKind::DefFixed(*real)));
                }
            }
            Inst::Salu { dst, srcs, .. } => {
                for s in srcs.iter_mut() {
                    src(s, visit);
                }
                if let Some(d) = dst {
                    visit(d, OperandKind::Def);
                }
            }
            Inst::Valu {
                dst,
                sdst,
                srcs,
                mask_in_vcc,
                sdwa,
                ..
            } => {
                for s in srcs.iter_mut() {
                    src(s, visit);
                }
                // An SDWA destination that keeps the bits outside its select is written in
                // the register of the value it keeps (the last source, a register).
                let preserve = keeps_other_bits(*sdwa);
                if let Some(d) = dst {
                    let kind = if preserve {
                        let uses = srcs.iter().filter(|s| matches!(s, Src::Reg(_))).count();
                        OperandKind::DefReuse(uses - 1)
                    } else {
                        OperandKind::Def
                    };
                    visit(d, kind);
                }
                if let Some(d) = sdst {
                    visit(d, sdst_constraint(*mask_in_vcc));
                }
            }
            Inst::SCmpSelect {
                a, b, dst, t, f, ..
            } => {
                src(a, visit);
                src(b, visit);
                src(t, visit);
                src(f, visit);
                visit(dst, OperandKind::Def);
            }
            Inst::Alu64 { op, dst, a, b } => {
                visit(a, OperandKind::Use);
                match b {
                    // The VALU add, subtract and multiply read an SGPR `b` again after
                    // an instruction of theirs wrote VCC (a carry), so `b` must not be
                    // in VCC.
                    Src::Reg(r)
                        if r.file() == SGPR
                            && dst.file() != SGPR
                            && matches!(op, Op64::Add | Op64::Sub | Op64::Mul) =>
                    {
                        visit(r, OperandKind::LateUse)
                    }
                    _ => src(b, visit),
                }
                // The multiply writes its result halves while still reading the sources.
                let kind = if *op == Op64::Mul {
                    OperandKind::EarlyDef
                } else {
                    OperandKind::Def
                };
                visit(dst, kind);
            }
            Inst::FDiv32 { dst, num, den, tmp } | Inst::FDiv64 { dst, num, den, tmp } => {
                visit(num, OperandKind::Use);
                visit(den, OperandKind::Use);
                visit(dst, OperandKind::EarlyDef);
                for t in tmp {
                    visit(t, OperandKind::EarlyDef);
                }
            }
            Inst::WaveScan {
                dst,
                src: s,
                tmp,
                shifted,
                saved_exec,
                lane,
                rows,
                ..
            } => {
                visit(s, OperandKind::Use);
                for r in [dst, tmp, shifted, saved_exec, lane]
                    .into_iter()
                    .chain(rows)
                {
                    visit(r, OperandKind::EarlyDef);
                }
            }
            Inst::ValuDpp {
                dst, src: s, src1, ..
            } => {
                visit(s, OperandKind::Use);
                if let Some(r) = src1 {
                    visit(r, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::Ds {
                dst, addr, data, ..
            } => {
                visit(addr, OperandKind::Use);
                if let Some(r) = data {
                    visit(r, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::DsWrite {
                addr, data, data1, ..
            } => {
                visit(addr, OperandKind::Use);
                visit(data, OperandKind::Use);
                if let Some(r) = data1 {
                    visit(r, OperandKind::Use);
                }
            }
            Inst::DsAtomic {
                dst,
                addr,
                data,
                data1,
                ..
            } => {
                visit(addr, OperandKind::Use);
                visit(data, OperandKind::Use);
                if let Some(r) = data1 {
                    visit(r, OperandKind::Use);
                }
                if let Some(d) = dst {
                    visit(d, OperandKind::Def);
                }
            }
            Inst::LdsBound | Inst::Barrier => {}
            Inst::SetM0 { src } => visit(src, OperandKind::Use),
            Inst::Interp {
                dst, i, j, reuse_i, ..
            } => {
                visit(i, OperandKind::Use);
                if *reuse_i {
                    visit(j, OperandKind::LateUse);
                    visit(dst, OperandKind::Def);
                } else {
                    visit(j, OperandKind::Use);
                    visit(dst, OperandKind::EarlyDef);
                }
            }
            Inst::InterpMov { dst, .. } => visit(dst, OperandKind::Def),
            Inst::Export { src, .. } => {
                for r in src.iter_mut().flatten() {
                    visit(r, OperandKind::Use);
                }
            }
            Inst::LaneGather {
                dst,
                src: s,
                index,
                tmp,
                saved_exec,
                lanes,
                value,
            } => {
                visit(s, OperandKind::Use);
                visit(index, OperandKind::Use);
                for r in [dst, tmp, saved_exec, value].into_iter().chain(lanes) {
                    visit(r, OperandKind::EarlyDef);
                }
            }
            Inst::Sqrt32 { dst, src: s, tmp } | Inst::Sqrt64 { dst, src: s, tmp } => {
                visit(s, OperandKind::Use);
                visit(dst, OperandKind::EarlyDef);
                for t in tmp {
                    visit(t, OperandKind::EarlyDef);
                }
            }
            Inst::RoundF64 {
                dst, src: s, tmp, ..
            } => {
                visit(s, OperandKind::Use);
                visit(dst, OperandKind::EarlyDef);
                for t in tmp {
                    visit(t, OperandKind::EarlyDef);
                }
            }
            Inst::Const64 { dst, .. } => visit(dst, OperandKind::Def),
            Inst::Combine { dst, parts } => {
                for part in parts {
                    visit(part, OperandKind::Use);
                }
                visit(dst, OperandKind::EarlyDef);
            }
            Inst::Half { dst, src: s, .. } | Inst::Copy { dst, src: s } => {
                visit(s, OperandKind::Use);
                visit(dst, OperandKind::Def);
            }
            Inst::SLoad {
                dst, base, soffset, ..
            } => {
                visit(base, OperandKind::Use);
                if let Some(r) = soffset {
                    visit(r, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::Load {
                dst, addr, sbase, ..
            } => {
                visit(addr, OperandKind::Use);
                if let Some(r) = sbase {
                    visit(r, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::Store {
                addr, data, sbase, ..
            } => {
                visit(addr, OperandKind::Use);
                visit(data, OperandKind::Use);
                if let Some(r) = sbase {
                    visit(r, OperandKind::Use);
                }
            }
            Inst::Atomic {
                op,
                dst,
                addr,
                data,
                sbase,
                ..
            } => {
                visit(addr, OperandKind::Use);
                visit(data, OperandKind::Use);
                if let Some(r) = sbase {
                    visit(r, OperandKind::Use);
                }
                // MUBUF returns the old value in its data registers (the second use).
                let kind = if op.info().enc == Enc::Mubuf {
                    OperandKind::DefReuse(1)
                } else {
                    OperandKind::Def
                };
                if let Some(d) = dst {
                    visit(d, kind);
                }
            }
            Inst::ScratchLoad {
                dst,
                vaddr,
                rsrc,
                soffset,
                ..
            } => {
                if let Some(r) = vaddr {
                    visit(r, OperandKind::Use);
                }
                visit(rsrc, OperandKind::Use);
                if let Some(r) = soffset {
                    visit(r, OperandKind::Use);
                }
                visit(dst, OperandKind::Def);
            }
            Inst::ScratchStore {
                data,
                vaddr,
                rsrc,
                soffset,
                ..
            } => {
                visit(data, OperandKind::Use);
                if let Some(r) = vaddr {
                    visit(r, OperandKind::Use);
                }
                visit(rsrc, OperandKind::Use);
                if let Some(r) = soffset {
                    visit(r, OperandKind::Use);
                }
            }
            Inst::Spill { src: s, .. } => visit(s, OperandKind::Use),
            Inst::Reload { dst, .. } => visit(dst, OperandKind::Def),
            Inst::Const128 { dst, .. } => visit(dst, OperandKind::Def),
            Inst::Ret { results, ret_addr } => {
                for (vreg, real) in results {
                    visit(vreg, abi_constraint(*real, OperandKind::UseFixed(*real)));
                }
                let _ = ret_addr;
            }
            Inst::Call {
                callee,
                args,
                results,
                ..
            } => {
                if let Callee::Address(address, _) = callee {
                    visit(address, OperandKind::Use);
                }
                for (vreg, real) in args {
                    visit(vreg, OperandKind::UseFixed(*real));
                }
                for (vreg, real) in results {
                    visit(vreg, OperandKind::DefFixed(*real));
                }
            }
            Inst::BrScc { a, b, .. } => {
                src(a, visit);
                src(b, visit);
            }
            Inst::Undef { dst } => visit(dst, OperandKind::Def),
            Inst::Discard { live } => {
                visit(live, OperandKind::Use);
                visit(live, OperandKind::Def);
            }
            Inst::MaskedMove {
                dst,
                old,
                src: s,
                mask,
            } => {
                visit(old, OperandKind::Use);
                visit(s, OperandKind::Use);
                visit(mask, OperandKind::Use);
                visit(dst, OperandKind::DefReuse(0));
            }
            Inst::WaveCopy { dst, src: s } => {
                visit(s, OperandKind::Use);
                visit(dst, OperandKind::Def);
            }
            Inst::Waitcnt { .. }
            | Inst::InvalidateL1
            | Inst::EndPgm
            | Inst::Jump { .. }
            | Inst::BrExecnz { .. }
            | Inst::BrExecz { .. } => {}
            Inst::Swappc { uses, .. } => {
                for r in uses {
                    visit(r, OperandKind::Use);
                }
            }
            Inst::FuncAddr { dst, .. } => visit(dst, OperandKind::Def),
        }
    }

    fn clobbers(&self) -> &[Reg] {
        match self {
            Inst::Call { clobbers, .. } => clobbers,
            _ if self.writes_vcc() => &VCC_CLOBBER,
            _ => &[],
        }
    }

    fn has_side_effects(&self) -> bool {
        matches!(
            self,
            Inst::Store { .. }
                | Inst::ScratchStore { .. }
                | Inst::Spill { .. }
                | Inst::Atomic { .. }
                | Inst::InvalidateL1
                | Inst::DsWrite { .. }
                | Inst::DsAtomic { .. }
                | Inst::LdsBound
                | Inst::Barrier
                | Inst::SetM0 { .. }
                | Inst::Export { .. }
                | Inst::Discard { .. }
                | Inst::Waitcnt { .. }
                | Inst::EndPgm
                | Inst::Ret { .. }
                | Inst::Args { .. }
                | Inst::Call { .. }
                | Inst::Swappc { .. }
        )
    }

    fn is_return(&self) -> bool {
        matches!(self, Inst::EndPgm | Inst::Ret { .. })
    }

    fn is_branch(&self) -> bool {
        matches!(
            self,
            Inst::Jump { .. } | Inst::BrScc { .. } | Inst::BrExecnz { .. } | Inst::BrExecz { .. }
        )
    }

    fn gen_jump(target: usize) -> Self {
        Inst::Jump { target }
    }

    fn gen_move(dst: Reg, src: Reg) -> Self {
        debug_assert_eq!(dst.class(), src.class());
        debug_assert!(dst.class() != RegClass::Vector || dst.file() == src.file());
        Inst::Copy { dst, src }
    }
}
