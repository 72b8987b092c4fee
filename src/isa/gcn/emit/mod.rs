//! Emission: allocated instructions to MC instructions (pseudo-instructions expanded), and
//! MC instructions to bytes.

mod fdiv_sqrt32;
mod fdiv_sqrt64;
mod lane_gather;
mod round64;
mod wave_scan;

use super::inst::{Callee, Inst, Op64, Src, without_carry, writes_carry};
use super::mc::{
    self, ExpTarget, Export, Gen, Interp, InterpParam, McInst, MubufAddr, Op, Operand,
    smem_offset_encodable, waitcnt_imm,
};
use super::regs::EXEC;
use super::regs::{SGPR, VGPR};
use super::relax_branches::{self, RelaxError};
use crate::machinst::{Reg, RegClass};

/// Turns allocated instructions into MC instructions.
pub fn lower_to_mc(insts: &[Inst], generation: Gen) -> Result<Vec<McInst>, String> {
    let mut out = Vec::with_capacity(insts.len() + insts.len() / 4);
    let mut e = Emitter {
        out: &mut out,
        generation,
        errors: Vec::new(),
    };
    for inst in insts {
        e.inst(inst)?;
    }
    if let Some(error) = e.errors.into_iter().next() {
        return Err(error);
    }
    for m in &out {
        mc::legal(m, generation)?;
    }
    Ok(out)
}

/// The scalar compare of a uniform conditional branch (`Inst::BrScc`), setting SCC.
pub fn scalar_compare(cmp: Op, a: Src, b: Src, generation: Gen) -> McInst {
    let mut literal = None;
    let e = Emitter {
        out: &mut Vec::new(),
        generation,
        errors: Vec::new(),
    };
    let (a, b) = (e.src(a, &mut literal), e.src(b, &mut literal));
    let mut m = mc_inst(cmp, generation);
    (m.src[0], m.src[1], m.literal) = (Some(a), Some(b), literal);
    m
}

/// An MC branch of `op` whose target is block `target` (resolved to an offset by
/// [`assemble`]).
pub fn branch_to_block(op: Op, target: usize, generation: Gen) -> McInst {
    let mut m = mc_inst(op, generation);
    m.imm = target as i32;
    m
}

/// Encodes MC instructions whose branches name target blocks (see [`super::lay_out_blocks`]),
/// resolving each branch to its offset in dwords from the next instruction, or to a long
/// jump through the SGPR pair at `scratch` where the target is out of reach
/// ([`relax_branches`]). Returns the code and whether the pair was used.
pub fn assemble(
    insts: &[McInst],
    block_starts: &[Option<usize>],
    generation: Gen,
    scratch: Option<u16>,
) -> Result<(Vec<u8>, bool), RelaxError> {
    let relaxed = relax_branches::run(insts, block_starts, generation, scratch)?;
    let code = encode(&relaxed.insts, generation).map_err(RelaxError::Internal)?;
    Ok((code, relaxed.uses_scratch))
}

/// An MC instruction of `op` in its native encoding with no operands yet.
fn mc_inst(op: Op, _generation: Gen) -> McInst {
    McInst::new(op, op.info().enc)
}

/// Encodes MC instructions.
pub fn encode(insts: &[McInst], generation: Gen) -> Result<Vec<u8>, String> {
    let mut code = Vec::with_capacity(insts.len() * 6);
    for inst in insts {
        mc::encode(inst, generation, &mut code)?;
    }
    Ok(code)
}

struct Emitter<'a> {
    out: &'a mut Vec<McInst>,
    generation: Gen,
    errors: Vec<String>,
}

/// The operand naming register `hw` (+ `offset`) of `r`'s file.
fn reg_operand(r: Reg, offset: u16) -> Operand {
    let hw = r.hw() + offset;
    match r.file() {
        VGPR => Operand::vgpr(hw as u8),
        _ => Operand(hw),
    }
}

impl Emitter<'_> {
    /// A source operand: a register, an inline constant or the literal marker.
    fn src(&self, s: Src, literal: &mut Option<u32>) -> Operand {
        match s {
            Src::Reg(r) => reg_operand(r, 0),
            Src::Imm(v) => self.imm(v, literal),
        }
    }

    fn imm(&self, v: u32, literal: &mut Option<u32>) -> Operand {
        if let Some(op) = Operand::inline_int(v as i32 as i64) {
            return op;
        }
        if let Some(op) = Operand::inline_f32(v, self.generation) {
            return op;
        }
        // An instruction has one literal dword; lowering keeps a second value out.
        assert!(
            literal.is_none_or(|l| l == v),
            "internal error: two literals {:#x} and {v:#x} in one instruction",
            literal.unwrap_or(0)
        );
        *literal = Some(v);
        Operand::LITERAL
    }

    /// The 32-bit half `hi` of a 64-bit source: a register of the pair, or the half of a
    /// sign-extended constant.
    fn half_src(&self, s: Src, hi: bool, literal: &mut Option<u32>) -> Operand {
        match s {
            Src::Reg(r) => reg_operand(r, hi as u16),
            Src::Imm(v) => {
                let value = if hi { ((v as i32) >> 31) as u32 } else { v };
                self.imm(value, literal)
            }
        }
    }

    fn salu(&mut self, op: Op, dst: Option<Operand>, srcs: &[Operand], literal: Option<u32>) {
        let mut m = mc_inst(op, self.generation);
        m.dst = dst;
        for (i, &s) in srcs.iter().enumerate() {
            m.src[i] = Some(s);
        }
        m.literal = literal;
        self.out.push(m);
    }

    fn valu(
        &mut self,
        op: Op,
        dst: Option<Operand>,
        sdst: Option<Operand>,
        srcs: &[Operand],
        literal: Option<u32>,
    ) {
        self.valu_mods(op, dst, sdst, srcs, literal, 0, 0, false);
    }

    /// A VALU instruction negating the sources in the bit mask `neg` (VOP3 input modifier).
    fn valu_neg(&mut self, op: Op, dst: Operand, srcs: &[Operand], neg: u8) {
        self.valu_mods(op, Some(dst), None, srcs, None, neg, 0, false);
    }

    #[allow(clippy::too_many_arguments)]
    fn valu_mods(
        &mut self,
        op: Op,
        dst: Option<Operand>,
        sdst: Option<Operand>,
        srcs: &[Operand],
        literal: Option<u32>,
        neg: u8,
        abs: u8,
        clamp: bool,
    ) {
        let mut m = mc_inst(op, self.generation);
        m.dst = dst;
        m.sdst = sdst;
        for (i, &s) in srcs.iter().enumerate() {
            m.src[i] = Some(s);
        }
        m.literal = literal;
        m.neg = neg;
        m.abs = abs;
        m.clamp = clamp;
        self.push_valu(m);
    }

    /// Emits a VALU instruction in its shortest legal encoding (SDWA when it has selects).
    fn push_valu(&mut self, mut m: McInst) {
        // Operands were legalised during lowering; a failure here is a backend bug.
        if let Err(e) = m.select_encoding(self.generation) {
            self.errors.push(e);
        }
        self.out.push(m);
    }

    /// `dst = a + b` without using the carry-out (gfx6–gfx8 still write it to VCC).
    fn add_u32(&mut self, dst: Operand, a: Operand, b: Operand) {
        let op = without_carry(Op::VAddU32, self.generation);
        let sdst = writes_carry(op).then_some(Operand::VCC);
        self.valu(op, Some(dst), sdst, &[a, b], None);
    }

    fn mov32(&mut self, dst: Operand, dst_file: u8, src: Operand, src_file: u8) {
        if dst == src {
            return;
        }
        match (dst_file, src_file) {
            (SGPR, SGPR) => self.salu(Op::SMovB32, Some(dst), &[src], None),
            (SGPR, _) => self.valu(Op::VReadfirstlaneB32, Some(dst), None, &[src], None),
            _ => self.valu(Op::VMovB32, Some(dst), None, &[src], None),
        }
    }

    fn copy(&mut self, dst: Reg, src: Reg) {
        if dst == src {
            return;
        }
        if dst.file() == SGPR && src.file() == SGPR && dst.class() == RegClass::Float {
            self.salu(
                Op::SMovB64,
                Some(reg_operand(dst, 0)),
                &[reg_operand(src, 0)],
                None,
            );
            return;
        }
        for k in 0..dst.width() {
            self.mov32(
                reg_operand(dst, k),
                dst.file(),
                reg_operand(src, k),
                src.file(),
            );
        }
    }

    /// Moves 32-bit registers (dst, src) all at once, as if every source were read before
    /// any destination is written: the ABI registers the allocator did not fix
    /// (`abi::FIXED_ABI_VGPRS`). A move waits while its destination is still to be read;
    /// what is left then are cycles, each broken by swapping two VGPRs with three
    /// `v_xor_b32` (no scratch register needed).
    fn parallel_move(&mut self, moves: impl Iterator<Item = (Reg, Reg)>) {
        let mut pending: Vec<(Reg, Reg)> = moves.filter(|(d, s)| d != s).collect();
        while !pending.is_empty() {
            let ready =
                (0..pending.len()).find(|&i| pending.iter().all(|&(_, s)| s != pending[i].0));
            if let Some(i) = ready {
                let (dst, src) = pending.remove(i);
                self.copy(dst, src);
                continue;
            }
            let (dst, src) = pending.remove(0);
            debug_assert!(
                dst.file() == VGPR && src.file() == VGPR,
                "ABI moves are VGPRs"
            );
            for (d, a, b) in [(dst, dst, src), (src, src, dst), (dst, dst, src)] {
                let ops = [reg_operand(a, 0), reg_operand(b, 0)];
                self.valu(Op::VXorB32, Some(reg_operand(d, 0)), None, &ops, None);
            }
            // `src` now holds what `dst` held.
            for (_, s) in &mut pending {
                if *s == dst {
                    *s = src;
                }
            }
            pending.retain(|(d, s)| d != s);
        }
    }

    /// `s_getpc_b64 pair`, `s_add_u32 pair.lo, pair.lo, 0`, `s_addc_u32 pair.hi, pair.hi,
    /// 0`: a symbol's address once linking has written its offset into the two literals.
    fn symbol_address(&mut self, pair: Operand) {
        let (lo, hi) = (pair, Operand(pair.0 + 1));
        let mut sop = |op: Op, dst: Operand, srcs: &[Operand]| {
            let mut m = mc_inst(op, self.generation);
            m.dst = Some(dst);
            for (k, &s) in srcs.iter().enumerate() {
                m.src[k] = Some(s);
            }
            if srcs.contains(&Operand::LITERAL) {
                m.literal = Some(0);
            }
            self.out.push(m);
        };
        sop(Op::SGetpcB64, lo, &[]);
        sop(Op::SAddU32, lo, &[lo, Operand::LITERAL]);
        sop(Op::SAddcU32, hi, &[hi, Operand::LITERAL]);
    }

    fn inst(&mut self, inst: &Inst) -> Result<(), String> {
        match inst {
            Inst::Args { defs } => self.parallel_move(defs.iter().map(|&(v, abi)| (v, abi))),
            Inst::Salu { op, dst, srcs } => {
                let mut literal = None;
                let ops: Vec<Operand> = srcs.iter().map(|&s| self.src(s, &mut literal)).collect();
                self.salu(*op, dst.map(|d| reg_operand(d, 0)), &ops, literal);
            }
            Inst::Valu {
                op,
                dst,
                sdst,
                srcs,
                neg,
                abs,
                clamp,
                mask_in_vcc: _,
                sdwa,
            } => {
                // The value an SDWA destination keeps bits of is its own register, not an
                // operand.
                let operands = inst.preserved().map_or(&srcs[..], |last| &srcs[..last]);
                let mut literal = None;
                let ops: Vec<Operand> = operands
                    .iter()
                    .map(|&s| self.src(s, &mut literal))
                    .collect();
                let sdst = match sdst {
                    Some(r) => Some(reg_operand(*r, 0)),
                    None if writes_carry(*op) => Some(Operand::VCC),
                    None => None,
                };
                let mut m = mc_inst(*op, self.generation);
                m.dst = dst.map(|d| reg_operand(d, 0));
                m.sdst = sdst;
                for (slot, s) in m.src.iter_mut().zip(ops) {
                    *slot = Some(s);
                }
                m.literal = literal;
                m.neg = *neg;
                m.abs = *abs;
                m.clamp = *clamp;
                m.sdwa = *sdwa;
                self.push_valu(m);
            }
            Inst::SCmpSelect {
                cmp,
                a,
                b,
                select,
                dst,
                t,
                f,
            } => {
                let mut literal = None;
                let (a, b) = (self.src(*a, &mut literal), self.src(*b, &mut literal));
                self.salu(*cmp, None, &[a, b], literal);
                let mut literal = None;
                let (t, f) = (self.src(*t, &mut literal), self.src(*f, &mut literal));
                self.salu(*select, Some(reg_operand(*dst, 0)), &[t, f], literal);
            }
            Inst::Alu64 { op, dst, a, b } => self.alu64(*op, *dst, *a, *b)?,
            Inst::FDiv32 { dst, num, den, tmp } => self.fdiv32(*dst, *num, *den, tmp),
            Inst::Sqrt32 { dst, src, tmp } => self.sqrt32(*dst, *src, tmp),
            Inst::WaveScan {
                op,
                kind,
                dst,
                src,
                tmp,
                shifted,
                saved_exec,
                lane,
                rows,
            } => self.wave_scan(
                *op,
                *kind,
                &wave_scan::WaveScanRegs {
                    dst: *dst,
                    src: *src,
                    tmp: *tmp,
                    shifted: *shifted,
                    saved_exec: *saved_exec,
                    lane: *lane,
                    rows,
                },
            ),
            Inst::ValuDpp {
                op,
                dst,
                src,
                src1,
                dpp,
            } => {
                let srcs: Vec<Operand> = [Some(*src), *src1]
                    .into_iter()
                    .flatten()
                    .map(|r| reg_operand(r, 0))
                    .collect();
                let carry = writes_carry(*op).then_some(Operand::VCC);
                self.valu_dpp(*op, reg_operand(*dst, 0), carry, &srcs, *dpp)
            }
            Inst::Ds {
                op,
                dst,
                addr,
                data,
                offset,
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.dst = Some(reg_operand(*dst, 0));
                m.src[0] = Some(reg_operand(*addr, 0));
                m.src[1] = data.map(|r| reg_operand(r, 0));
                m.imm = *offset as i32;
                self.out.push(m);
            }
            Inst::DsWrite {
                op,
                addr,
                data,
                data1,
                offset,
            } => self.ds_data(*op, None, *addr, *data, *data1, *offset),
            Inst::DsAtomic {
                op,
                dst,
                addr,
                data,
                data1,
                offset,
            } => self.ds_data(*op, *dst, *addr, *data, *data1, *offset),
            Inst::LdsBound => {
                let mut m = mc_inst(Op::SMovB32, self.generation);
                m.dst = Some(Operand::M0);
                m.src[0] = Operand::inline_int(-1);
                self.out.push(m);
            }
            Inst::Barrier => self.out.push(mc_inst(Op::SBarrier, self.generation)),
            Inst::SetM0 { src } => {
                let mut m = mc_inst(Op::SMovB32, self.generation);
                m.dst = Some(Operand::M0);
                m.src[0] = Some(reg_operand(*src, 0));
                self.out.push(m);
            }
            Inst::Interp {
                dst,
                i,
                j,
                attr,
                chan,
                ..
            } => {
                for (op, bary) in [(Op::VInterpP1F32, i), (Op::VInterpP2F32, j)] {
                    let mut m = mc_inst(op, self.generation);
                    m.dst = Some(reg_operand(*dst, 0));
                    m.src[0] = Some(reg_operand(*bary, 0));
                    m.interp = Some(Interp {
                        attr: *attr,
                        chan: *chan,
                        param: None,
                    });
                    self.out.push(m);
                }
            }
            Inst::InterpMov { dst, attr, chan } => {
                let mut m = mc_inst(Op::VInterpMovF32, self.generation);
                m.dst = Some(reg_operand(*dst, 0));
                m.interp = Some(Interp {
                    attr: *attr,
                    chan: *chan,
                    param: Some(InterpParam::P0),
                });
                self.out.push(m);
            }
            // The branch to the null-export tail is `lay_out_blocks`'s.
            Inst::Discard { live } => {
                self.inst(&Inst::Salu {
                    op: Op::SAndn2B64,
                    dst: Some(*live),
                    srcs: smallvec::smallvec![Src::Reg(*live), Src::Reg(EXEC)],
                })?;
                self.inst(&super::lower::linear::mov64(EXEC, Src::Imm(0)))?;
            }
            Inst::Export {
                target,
                src,
                done,
                compr,
            } => {
                let mut m = mc_inst(Op::Exp, self.generation);
                m.export = Some(Export {
                    target: *target,
                    src: src.map(|r| r.map(|r| reg_operand(r, 0))),
                    compr: *compr,
                    done: *done,
                    // Pixel exports are masked by EXEC as the valid mask; a vertex wave's
                    // position and parameters are not (LLVM and ACO set VM on pixel
                    // exports only).
                    vm: !matches!(target, ExpTarget::Pos(_) | ExpTarget::Param(_)),
                });
                self.out.push(m);
            }
            Inst::LaneGather {
                dst,
                src,
                index,
                tmp,
                saved_exec,
                lanes,
                value,
            } => self.lane_gather(&lane_gather::LaneGatherRegs {
                dst: *dst,
                src: *src,
                index: *index,
                tmp: *tmp,
                saved_exec: *saved_exec,
                lanes: *lanes,
                value: *value,
            }),
            Inst::FDiv64 { dst, num, den, tmp } => self.fdiv64(*dst, *num, *den, tmp),
            Inst::Sqrt64 { dst, src, tmp } => self.sqrt64(*dst, *src, tmp),
            Inst::RoundF64 { op, dst, src, tmp } => self.round64(*op, *dst, *src, tmp),
            Inst::Const64 { dst, value } => {
                let file = dst.file();
                if file == SGPR
                    && let Some(inline) = Operand::inline_int(*value as i64)
                {
                    self.salu(Op::SMovB64, Some(reg_operand(*dst, 0)), &[inline], None);
                } else {
                    for k in 0..2 {
                        let mut literal = None;
                        let half = (*value >> (32 * k)) as u32;
                        let src = self.imm(half, &mut literal);
                        let d = reg_operand(*dst, k as u16);
                        if file == SGPR {
                            self.salu(Op::SMovB32, Some(d), &[src], literal);
                        } else {
                            self.valu(Op::VMovB32, Some(d), None, &[src], literal);
                        }
                    }
                }
            }
            Inst::Combine { dst, parts } => {
                for (k, (part, j)) in parts
                    .iter()
                    .flat_map(|p| (0..p.width()).map(move |j| (p, j)))
                    .enumerate()
                {
                    self.mov32(
                        reg_operand(*dst, k as u16),
                        dst.file(),
                        reg_operand(*part, j),
                        part.file(),
                    );
                }
            }
            Inst::Half { dst, src, hi } => {
                for k in 0..dst.width() {
                    self.mov32(
                        reg_operand(*dst, k),
                        dst.file(),
                        reg_operand(*src, *hi as u16 * dst.width() + k),
                        src.file(),
                    );
                }
            }
            Inst::Copy { dst, src } => self.copy(*dst, *src),
            Inst::Undef { .. } => {}
            // Under EXEC a move does the same (the other lanes keep `old`, `dst`'s register).
            Inst::MaskedMove { dst, src, mask, .. } if *mask == EXEC => self.copy(*dst, *src),
            Inst::MaskedMove {
                dst,
                old,
                src,
                mask,
            } => {
                for k in 0..dst.width() {
                    self.valu(
                        Op::VCndmaskB32,
                        Some(reg_operand(*dst, k)),
                        None,
                        &[
                            reg_operand(*old, k),
                            reg_operand(*src, k),
                            reg_operand(*mask, 0),
                        ],
                        None,
                    );
                }
            }
            Inst::WaveCopy { .. } | Inst::BrExecnz { .. } | Inst::BrExecz { .. } => {
                return Err(format!("internal error: {inst:?} at emission"));
            }
            Inst::SLoad {
                op,
                dst,
                base,
                offset,
                soffset,
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.dst = Some(reg_operand(*dst, 0));
                m.src[0] = Some(reg_operand(*base, 0));
                match soffset {
                    Some(r) if *offset == 0 => m.src[1] = Some(reg_operand(*r, 0)),
                    Some(_) => return Err("internal error: two scalar-load offsets".into()),
                    None => m.imm = smem_offset(*offset, self.generation)?,
                }
                self.out.push(m);
            }
            Inst::Load {
                op,
                dst,
                addr,
                offset,
                sbase,
                glc,
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.dst = Some(reg_operand(*dst, 0));
                m.src[0] = Some(reg_operand(*addr, 0));
                m.src[1] = sbase.map(|r| reg_operand(r, 0));
                m.imm = *offset;
                m.glc = *glc;
                self.out.push(m);
            }
            Inst::ScratchLoad {
                op,
                dst,
                vaddr,
                offset,
                rsrc,
                soffset,
                ..
            } => {
                for k in 0..dst.width() {
                    let mut m = scratch_access(*op, *vaddr, *offset + 4 * k, *soffset);
                    m.dst = Some(reg_operand(*dst, k));
                    m.src[1] = Some(reg_operand(*rsrc, 0));
                    self.out.push(m);
                }
            }
            Inst::ScratchStore {
                op,
                data,
                vaddr,
                offset,
                rsrc,
                soffset,
                ..
            } => {
                for k in 0..data.width() {
                    let mut m = scratch_access(*op, *vaddr, *offset + 4 * k, *soffset);
                    m.src[1] = Some(reg_operand(*data, k));
                    m.src[2] = Some(reg_operand(*rsrc, 0));
                    self.out.push(m);
                }
            }
            Inst::Spill { .. } | Inst::Reload { .. } => {
                return Err("internal error: spill code left for emission".into());
            }
            Inst::Store {
                op,
                addr,
                offset,
                data,
                sbase,
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.src[0] = Some(reg_operand(*addr, 0));
                m.src[1] = Some(reg_operand(*data, 0));
                m.src[2] = sbase.map(|r| reg_operand(r, 0));
                m.imm = *offset;
                self.out.push(m);
            }
            Inst::Atomic {
                op,
                dst,
                addr,
                offset,
                data,
                sbase,
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.dst = dst.map(|r| reg_operand(r, 0));
                m.src[0] = Some(reg_operand(*addr, 0));
                m.src[1] = Some(reg_operand(*data, 0));
                m.src[2] = sbase.map(|r| reg_operand(r, 0));
                m.imm = *offset;
                m.glc = dst.is_some();
                self.out.push(m);
            }
            Inst::InvalidateL1 => {
                // gfx6 has no `_vol` form; it invalidates all of L1 (LLVM's
                // SIGfx6CacheControl::insertAcquire does the same).
                let op = match self.generation {
                    Gen::Gfx6 => Op::BufferWbinvl1,
                    _ => Op::BufferWbinvl1Vol,
                };
                self.out.push(mc_inst(op, self.generation));
            }
            Inst::Const128 { dst, value } => {
                for (k, pair) in value.chunks_exact(2).enumerate() {
                    let d = reg_operand(*dst, 2 * k as u16);
                    let both = pair[0] as u64 | (pair[1] as u64) << 32;
                    if let Some(inline) = Operand::inline_int(both as i64) {
                        self.salu(Op::SMovB64, Some(d), &[inline], None);
                        continue;
                    }
                    for (j, &v) in pair.iter().enumerate() {
                        let mut literal = None;
                        let src = self.imm(v, &mut literal);
                        let d = reg_operand(*dst, 2 * k as u16 + j as u16);
                        self.salu(Op::SMovB32, Some(d), &[src], literal);
                    }
                }
            }
            Inst::Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt,
            } => {
                let mut m = mc_inst(Op::SWaitcnt, self.generation);
                m.imm = waitcnt_imm(self.generation, *vmcnt, *expcnt, *lgkmcnt) as i32;
                self.out.push(m);
            }
            Inst::EndPgm => self.out.push(mc_inst(Op::SEndpgm, self.generation)),
            Inst::Jump { .. } | Inst::BrScc { .. } => {
                return Err("internal error: a branch outside `lay_out_blocks`".into());
            }
            Inst::Call { .. } => {
                return Err("internal error: a call left for emission".into());
            }
            Inst::Swappc { callee, .. } => {
                let address = match callee {
                    Callee::Symbol(_) => {
                        self.symbol_address(Operand(0));
                        Operand(0)
                    }
                    Callee::Address(address, _) => reg_operand(*address, 0),
                };
                let mut m = mc_inst(Op::SSwappcB64, self.generation);
                m.dst = Some(Operand(0));
                m.src[0] = Some(address);
                self.out.push(m);
            }
            Inst::FuncAddr { dst, .. } => self.symbol_address(reg_operand(*dst, 0)),
            Inst::Ret { ret_addr, results } => {
                self.parallel_move(results.iter().map(|&(v, abi)| (abi, v)));
                let mut m = mc_inst(Op::SSetpcB64, self.generation);
                m.src[0] = Some(reg_operand(*ret_addr, 0));
                self.out.push(m);
            }
        }
        Ok(())
    }

    /// A DS instruction with data operands (`ds_write*`, the DS atomics): ADDR, DATA0 and
    /// DATA1, the result (the atomics' `_rtn_` forms) and the offset field.
    fn ds_data(
        &mut self,
        op: Op,
        dst: Option<Reg>,
        addr: Reg,
        data: Reg,
        data1: Option<Reg>,
        offset: u16,
    ) {
        let mut m = mc_inst(op, self.generation);
        m.dst = dst.map(|r| reg_operand(r, 0));
        m.src = [
            Some(reg_operand(addr, 0)),
            Some(reg_operand(data, 0)),
            data1.map(|r| reg_operand(r, 0)),
        ];
        m.imm = offset as i32;
        self.out.push(m);
    }

    fn alu64(&mut self, op: Op64, dst: Reg, a: Reg, b: Src) -> Result<(), String> {
        let d = |k| reg_operand(dst, k);
        let ah = |k| reg_operand(a, k);
        if dst.file() == SGPR {
            let mut lit_lo = None;
            let mut lit_hi = None;
            let b_lo = self.half_src(b, false, &mut lit_lo);
            let b_hi = self.half_src(b, true, &mut lit_hi);
            let pair = |s: &Self| s.half_src(b, false, &mut None);
            let (lo_op, hi_op) = match op {
                Op64::Add => (Op::SAddU32, Op::SAddcU32),
                Op64::Sub => (Op::SSubU32, Op::SSubbU32),
                Op64::And | Op64::Or | Op64::Xor | Op64::AndNot | Op64::OrNot => {
                    let op = match op {
                        Op64::And => Op::SAndB64,
                        Op64::Or => Op::SOrB64,
                        Op64::Xor => Op::SXorB64,
                        Op64::AndNot => Op::SAndn2B64,
                        _ => Op::SOrn2B64,
                    };
                    let b = pair(self);
                    self.salu(op, Some(d(0)), &[ah(0), b], None);
                    return Ok(());
                }
                Op64::Mul => return Err("internal error: scalar 64-bit multiply".into()),
            };
            self.salu(lo_op, Some(d(0)), &[ah(0), b_lo], lit_lo);
            self.salu(hi_op, Some(d(1)), &[ah(1), b_hi], lit_hi);
            return Ok(());
        }
        // Lowering leaves a literal only in the low half of `b`, for the operations whose
        // first instruction is a VOP2 with `b` in src0.
        let (mut lit_lo, mut lit_hi) = (None, None);
        let b_lo = self.half_src(b, false, &mut lit_lo);
        let b_hi = self.half_src(b, true, &mut lit_hi);
        if lit_hi.is_some()
            || lit_lo.is_some() && matches!(op, Op64::AndNot | Op64::OrNot | Op64::Mul)
        {
            return Err("internal error: literal in a 64-bit vector operation".into());
        }
        // The carry-in of v_addc/v_subb is VCC, a constant-bus read of its own: an SGPR high
        // half of `b` is added (subtracted) by a third instruction instead, after the carry
        // (borrow) went into `a`'s high half.
        let b_hi_sgpr = matches!(b, Src::Reg(r) if r.file() == SGPR);
        let zero = Operand::inline_int(0).unwrap();
        let vcc = Some(Operand::VCC);
        match op {
            Op64::Add => {
                self.valu(Op::VAddU32, Some(d(0)), vcc, &[b_lo, ah(0)], lit_lo);
                let carried = if b_hi_sgpr { zero } else { b_hi };
                self.valu(
                    Op::VAddcU32,
                    Some(d(1)),
                    vcc,
                    &[carried, ah(1), Operand::VCC],
                    None,
                );
                if b_hi_sgpr {
                    self.add_u32(d(1), b_hi, d(1));
                }
            }
            Op64::Sub => {
                self.valu(Op::VSubrevU32, Some(d(0)), vcc, &[b_lo, ah(0)], lit_lo);
                let borrowed = if b_hi_sgpr { zero } else { b_hi };
                self.valu(
                    Op::VSubbrevU32,
                    Some(d(1)),
                    vcc,
                    &[borrowed, ah(1), Operand::VCC],
                    None,
                );
                if b_hi_sgpr {
                    let op = without_carry(Op::VSubrevU32, self.generation);
                    let sdst = writes_carry(op).then_some(Operand::VCC);
                    self.valu(op, Some(d(1)), sdst, &[b_hi, d(1)], None);
                }
            }
            Op64::And | Op64::Or | Op64::Xor => {
                let op = match op {
                    Op64::And => Op::VAndB32,
                    Op64::Or => Op::VOrB32,
                    _ => Op::VXorB32,
                };
                self.valu(op, Some(d(0)), None, &[b_lo, ah(0)], lit_lo);
                self.valu(op, Some(d(1)), None, &[b_hi, ah(1)], None);
            }
            Op64::AndNot => {
                for k in 0..2 {
                    let bk = if k == 0 { b_lo } else { b_hi };
                    self.valu(
                        Op::VBfiB32,
                        Some(d(k)),
                        None,
                        &[bk, Operand::inline_int(0).unwrap(), ah(k)],
                        None,
                    );
                }
            }
            Op64::OrNot => {
                for k in 0..2 {
                    let bk = if k == 0 { b_lo } else { b_hi };
                    self.valu(
                        Op::VBfiB32,
                        Some(d(k)),
                        None,
                        &[bk, ah(k), Operand::inline_int(-1).unwrap()],
                        None,
                    );
                }
            }
            Op64::Mul => {
                // dst is disjoint from a and b (an early def), so its halves serve as
                // temporaries: hi = lo(a.lo*b.hi) + lo(a.hi*b.lo) + hi(a.lo*b.lo).
                self.valu(Op::VMulLoU32, Some(d(1)), None, &[ah(0), b_hi], None);
                self.valu(Op::VMulLoU32, Some(d(0)), None, &[ah(1), b_lo], None);
                self.add_u32(d(1), d(1), d(0));
                if Op::VMadU64U32.info().available(self.generation) {
                    // gfx7+: the cross terms in the high half of a pair whose low half is
                    // zero, plus a.lo*b.lo in full (one instruction for mul_hi, mul_lo and
                    // the add).
                    self.valu(Op::VMovB32, Some(d(0)), None, &[zero], None);
                    self.valu(Op::VMadU64U32, Some(d(0)), vcc, &[ah(0), b_lo, d(0)], None);
                } else {
                    self.valu(Op::VMulHiU32, Some(d(0)), None, &[ah(0), b_lo], None);
                    self.add_u32(d(1), d(1), d(0));
                    self.valu(Op::VMulLoU32, Some(d(0)), None, &[ah(0), b_lo], None);
                }
            }
        }
        Ok(())
    }
}

/// The offset field of a scalar load of `base + offset` bytes: SMEM (gfx8/gfx9) counts
/// bytes, SMRD (gfx6/gfx7) dwords (Southern Islands ISA 12.3). Lowering keeps offsets
/// encodable ([`smem_offset_encodable`]).
fn smem_offset(offset: u32, generation: Gen) -> Result<i32, String> {
    if !smem_offset_encodable(offset, generation) {
        return Err(format!(
            "scalar-load offset {offset:#x} is not encodable on {generation:?}"
        ));
    }
    Ok(if generation >= Gen::Gfx8 {
        offset as i32
    } else {
        (offset / 4) as i32
    })
}

/// A MUBUF private-memory access of `op` at frame offset `vaddr + offset` (`off` without
/// `vaddr`), SOFFSET `soffset` or 0; the caller fills the data and resource operands.
fn scratch_access(op: Op, vaddr: Option<Reg>, offset: u16, soffset: Option<Reg>) -> McInst {
    let mut m = McInst::new(op, op.info().enc);
    m.mubuf = match vaddr {
        Some(_) => MubufAddr::Offen,
        None => MubufAddr::Off,
    };
    m.src[0] = vaddr.map(|r| reg_operand(r, 0));
    m.soffset = soffset.map_or(Operand(128), |r| reg_operand(r, 0));
    m.imm = offset as i32;
    m
}
