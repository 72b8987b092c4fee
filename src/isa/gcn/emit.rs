//! Emission: allocated instructions to MC instructions (pseudo-instructions expanded), and
//! MC instructions to bytes.

use super::inst::{Inst, Op64, Src, without_carry, writes_carry};
use super::mc::{self, Gen, McInst, Op, Operand, smem_offset_encodable, waitcnt_imm};
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

/// Turns the allocated code of each block (in layout order) into MC instructions, and
/// returns where each block starts (`None` for blocks that only forward to another and
/// emit nothing). Branch instructions carry their target block's index in `imm` until
/// [`assemble`] replaces it with the offset. A jump to the next block is omitted, and
/// branches to a block that is only a jump go to that jump's target directly.
pub fn lower_blocks(
    blocks: &[Vec<Inst>],
    generation: Gen,
) -> Result<(Vec<McInst>, Vec<Option<usize>>), String> {
    let forwards = |b: usize| match blocks[b].as_slice() {
        [Inst::Jump { target }] if b != 0 => Some(*target),
        _ => None,
    };
    let resolve = |mut b: usize| {
        for _ in 0..blocks.len() {
            match forwards(b) {
                Some(t) => b = t,
                None => break,
            }
        }
        b
    };
    let emitted: Vec<usize> = (0..blocks.len())
        .filter(|&b| forwards(b).is_none())
        .collect();
    let mut out = Vec::new();
    let mut starts = vec![None; blocks.len()];
    for (k, &b) in emitted.iter().enumerate() {
        starts[b] = Some(out.len());
        let next = emitted.get(k + 1).copied();
        let mut body = Vec::new();
        let mut branches = Vec::new();
        for inst in &blocks[b] {
            match *inst {
                Inst::Jump { target } => {
                    let t = resolve(target);
                    if Some(t) != next {
                        branches.push((Op::SBranch, t));
                    }
                }
                Inst::BrScc {
                    cmp,
                    a,
                    b: rhs,
                    taken,
                    not_taken,
                } => {
                    let mut literal = None;
                    let e = Emitter {
                        out: &mut Vec::new(),
                        generation,
                        errors: Vec::new(),
                    };
                    let (a, rhs) = (e.src(a, &mut literal), e.src(rhs, &mut literal));
                    let mut m = mc_inst(cmp, generation);
                    (m.src[0], m.src[1], m.literal) = (Some(a), Some(rhs), literal);
                    body.push(m);
                    let (t, f) = (resolve(taken), resolve(not_taken));
                    if Some(t) == next {
                        branches.push((Op::SCbranchScc0, f));
                    } else {
                        branches.push((Op::SCbranchScc1, t));
                        if Some(f) != next {
                            branches.push((Op::SBranch, f));
                        }
                    }
                }
                Inst::BrExecnz { taken, not_taken } => {
                    let (t, f) = (resolve(taken), resolve(not_taken));
                    if Some(t) == next {
                        branches.push((Op::SCbranchExecz, f));
                    } else {
                        branches.push((Op::SCbranchExecnz, t));
                        if Some(f) != next {
                            branches.push((Op::SBranch, f));
                        }
                    }
                }
                Inst::BrExecz { target } => branches.push((Op::SCbranchExecz, resolve(target))),
                _ => body.extend(lower_to_mc(std::slice::from_ref(inst), generation)?),
            }
        }
        out.extend(body);
        for (op, target) in branches {
            let mut m = mc_inst(op, generation);
            m.imm = target as i32;
            out.push(m);
        }
    }
    Ok((out, starts))
}

/// Encodes MC instructions whose branches name target blocks (see [`lower_blocks`]),
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
            } => {
                let mut literal = None;
                let ops: Vec<Operand> = srcs.iter().map(|&s| self.src(s, &mut literal)).collect();
                let sdst = match sdst {
                    Some(r) => Some(reg_operand(*r, 0)),
                    None if writes_carry(*op) => Some(Operand::VCC),
                    None => None,
                };
                self.valu_mods(
                    *op,
                    dst.map(|d| reg_operand(d, 0)),
                    sdst,
                    &ops,
                    literal,
                    *neg,
                    *abs,
                    *clamp,
                );
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
            Inst::Combine { dst, lo, hi } => {
                self.mov32(
                    reg_operand(*dst, 0),
                    dst.file(),
                    reg_operand(*lo, 0),
                    lo.file(),
                );
                self.mov32(
                    reg_operand(*dst, 1),
                    dst.file(),
                    reg_operand(*hi, 0),
                    hi.file(),
                );
            }
            Inst::Half { dst, src, hi } => {
                self.mov32(
                    reg_operand(*dst, 0),
                    dst.file(),
                    reg_operand(*src, *hi as u16),
                    src.file(),
                );
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
            } => {
                let mut m = mc_inst(*op, self.generation);
                m.dst = Some(reg_operand(*dst, 0));
                m.src[0] = Some(reg_operand(*addr, 0));
                m.src[1] = sbase.map(|r| reg_operand(r, 0));
                m.imm = *offset;
                self.out.push(m);
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
                return Err("internal error: a branch outside `lower_blocks`".into());
            }
            Inst::Ret { ret_addr, results } => {
                self.parallel_move(results.iter().map(|&(v, abi)| (abi, v)));
                let mut m = mc_inst(Op::SSetpcB64, self.generation);
                m.src[0] = Some(reg_operand(*ret_addr, 0));
                self.out.push(m);
            }
        }
        Ok(())
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
        let mut lit = None;
        let b_lo = self.half_src(b, false, &mut lit);
        let b_hi = self.half_src(b, true, &mut lit);
        if lit.is_some() {
            return Err("internal error: literal in a 64-bit vector operation".into());
        }
        let vcc = Some(Operand::VCC);
        match op {
            Op64::Add => {
                self.valu(Op::VAddU32, Some(d(0)), vcc, &[b_lo, ah(0)], None);
                self.valu(
                    Op::VAddcU32,
                    Some(d(1)),
                    vcc,
                    &[b_hi, ah(1), Operand::VCC],
                    None,
                );
            }
            Op64::Sub => {
                self.valu(Op::VSubrevU32, Some(d(0)), vcc, &[b_lo, ah(0)], None);
                self.valu(
                    Op::VSubbrevU32,
                    Some(d(1)),
                    vcc,
                    &[b_hi, ah(1), Operand::VCC],
                    None,
                );
            }
            Op64::And | Op64::Or | Op64::Xor => {
                let op = match op {
                    Op64::And => Op::VAndB32,
                    Op64::Or => Op::VOrB32,
                    _ => Op::VXorB32,
                };
                self.valu(op, Some(d(0)), None, &[b_lo, ah(0)], None);
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
                self.valu(Op::VMulHiU32, Some(d(0)), None, &[ah(0), b_lo], None);
                self.add_u32(d(1), d(1), d(0));
                self.valu(Op::VMulLoU32, Some(d(0)), None, &[ah(0), b_lo], None);
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

/// f32 constants of the division and square-root sequences.
const F32_ONE: u32 = 0x3f80_0000;
const F32_2_POW_M96: u32 = 0x0f80_0000;
const F32_2_POW_32: u32 = 0x4f80_0000;
const F32_2_POW_M16: u32 = 0x3780_0000;
/// v_cmp_class_f32 mask bits (GCN3 ISA 6.4, V_CMP_CLASS_F32): -0, +0, +inf.
const CLASS_ZERO_OR_POS_INF: u32 = 1 << 5 | 1 << 6 | 1 << 9;

impl Emitter<'_> {
    /// `dst = num / den`, correctly rounded with denormals enabled: the algorithm of LLVM's
    /// `SITargetLowering::LowerFDIV32`. v_div_scale scales the operands by 2^±64 where the
    /// quotient or the reciprocal would leave the normal range (and sets VCC when the
    /// quotient must be scaled back), two Newton-Raphson steps refine v_rcp_f32's
    /// reciprocal and quotient, v_div_fmas does the last fma and undoes the scaling as VCC
    /// says, and v_div_fixup handles zeros, infinities, NaNs and overflow.
    ///
    /// Hazard (GCN3 ISA 4.5, "VALU writes VCC, then V_DIV_FMAS reads VCC: 4 wait states"):
    /// seven VALU instructions separate the second v_div_scale_f32 from v_div_fmas_f32.
    /// `src/sim/expansions/fdiv.rs` runs this exact expansion against Rust's `/`.
    fn fdiv32(&mut self, dst: Reg, num: Reg, den: Reg, tmp: &[Reg; 4]) {
        let (d, n, q) = (
            reg_operand(dst, 0),
            reg_operand(num, 0),
            reg_operand(den, 0),
        );
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let one = Operand::inline_f32(F32_ONE, self.generation).expect("1.0 is inline");
        let neg0 = 0b001;
        // The first flag is not needed; writing it to VCC too saves an SGPR pair.
        self.valu(Op::VDivScaleF32, Some(t0), vcc, &[q, q, n], None); // den'
        self.valu(Op::VDivScaleF32, Some(t1), vcc, &[n, q, n], None); // num', VCC: scale back
        self.valu(Op::VRcpF32, Some(t2), None, &[t0], None); // r ≈ 1/den'
        self.valu_neg(Op::VFmaF32, t3, &[t0, t2, one], neg0); // e = 1 - den'·r
        self.valu(Op::VFmaF32, Some(t2), None, &[t3, t2, t2], None); // r += e·r
        self.valu(Op::VMulF32, Some(t3), None, &[t1, t2], None); // q = num'·r
        self.valu_neg(Op::VFmaF32, d, &[t0, t3, t1], neg0); // e = num' - den'·q
        self.valu(Op::VFmaF32, Some(t3), None, &[d, t2, t3], None); // q += e·r
        self.valu_neg(Op::VFmaF32, t0, &[t0, t3, t1], neg0); // e = num' - den'·q
        self.valu(Op::VDivFmasF32, Some(t0), None, &[t0, t2, t3], None); // e·r + q, scaled back
        self.valu(Op::VDivFixupF32, Some(d), None, &[t0, q, n], None);
    }

    /// `dst = sqrt(src)`, correctly rounded: the algorithm of LLVM's
    /// `SITargetLowering::lowerFSQRTF32` for denormal mode. v_sqrt_f32 is only faithful
    /// (1 ulp), so its neighbours s⁻ and s⁺ are tested: x - s⁻·s ≤ 0 means the root is
    /// below the midpoint of s⁻ and s, x - s⁺·s > 0 that it is above that of s and s⁺
    /// (the fma residuals are exact in sign). Inputs below 2^-96 are scaled by 2^32 first
    /// (the root by 2^16) so that the residuals stay normal; ±0 and +inf pass through.
    /// `src/sim/expansions/fdiv.rs` runs this exact expansion against `f32::sqrt`.
    fn sqrt32(&mut self, dst: Reg, src: Reg, tmp: &[Reg; 4]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let zero = Operand::inline_int(0).unwrap();
        let (one, minus_one) = (
            Operand::inline_int(1).unwrap(),
            Operand::inline_int(-1).unwrap(),
        );
        self.valu(Op::VCmpGtF32, None, vcc, &[lit, x], Some(F32_2_POW_M96)); // tiny = x < 2^-96
        self.valu(Op::VMulF32, Some(t0), None, &[lit, x], Some(F32_2_POW_32));
        self.valu(
            Op::VCndmaskB32,
            Some(t0),
            None,
            &[x, t0, Operand::VCC],
            None,
        ); // x' = tiny ? x·2^32 : x
        self.valu(Op::VSqrtF32, Some(t1), None, &[t0], None); // s
        self.add_u32(t2, minus_one, t1); // s⁻ (bits - 1)
        self.valu_neg(Op::VFmaF32, t3, &[t2, t1, t0], 0b001); // x' - s⁻·s
        self.add_u32(d, one, t1); // s⁺ (bits + 1)
        self.valu_neg(Op::VFmaF32, t0, &[d, t1, t0], 0b001); // x' - s⁺·s
        self.valu(Op::VCmpGeF32, None, vcc, &[zero, t3], None);
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, t2, Operand::VCC],
            None,
        ); // x' - s⁻·s ≤ 0: s⁻
        self.valu(Op::VCmpLtF32, None, vcc, &[zero, t0], None);
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, d, Operand::VCC],
            None,
        ); // x' - s⁺·s > 0: s⁺
        self.valu(Op::VMulF32, Some(t2), None, &[lit, t1], Some(F32_2_POW_M16));
        self.valu(Op::VCmpGtF32, None, vcc, &[lit, x], Some(F32_2_POW_M96));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[t1, t2, Operand::VCC],
            None,
        ); // tiny: s·2^-16
        // x and x' agree in class for ±0 and +inf, and are then equal.
        self.valu(
            Op::VMovB32,
            Some(t2),
            None,
            &[lit],
            Some(CLASS_ZERO_OR_POS_INF),
        );
        self.valu(Op::VCmpClassF32, None, vcc, &[x, t2], None);
        self.valu(Op::VCndmaskB32, Some(d), None, &[t1, x, Operand::VCC], None);
    }
}

/// High words of f64 constants of the f64 division and square-root sequences.
const F64_ONE_HI: u32 = 0x3ff0_0000;
const F64_HALF_HI: u32 = 0x3fe0_0000;
const F64_2_POW_M767_HI: u32 = 0x1000_0000;
/// v_cmp_class_f64 mask bits: -0, +0, +inf.
const CLASS64_ZERO_OR_POS_INF: u32 = 1 << 5 | 1 << 6 | 1 << 9;

impl Emitter<'_> {
    /// The f64 constant whose low word is 0 and high word `hi`, into the pair `dst`.
    fn f64_const(&mut self, dst: Operand, hi: u32) {
        let zero = Operand::inline_int(0).unwrap();
        self.valu(Op::VMovB32, Some(dst), None, &[zero], None);
        let hi_dst = Operand(dst.0 + 1);
        let mut literal = None;
        let src = self.imm(hi, &mut literal);
        self.valu(Op::VMovB32, Some(hi_dst), None, &[src], literal);
    }

    /// `dst = num / den` in f64, correctly rounded with denormals: LLVM's
    /// `SITargetLowering::lowerFDIV64`. As in `fdiv32`, v_div_scale_f64 scales the operands
    /// by 2^±128 where the quotient or the reciprocal would leave the normal range and
    /// says in VCC whether v_div_fmas_f64 must scale back; two Newton-Raphson steps refine
    /// v_rcp_f64, one the quotient. On gfx6 the VCC output of v_div_scale is unusable
    /// (LLVM's `hasUsableDivScaleConditionOutput`): the condition is recomputed as "exactly
    /// one of numerator and denominator was scaled" from their high words. The hazard
    /// pass separates the VCC write from v_div_fmas_f64. `src/sim/expansions/fdiv64.rs` checks it.
    fn fdiv64(&mut self, dst: Reg, num: Reg, den: Reg, tmp: &[Reg; 4]) {
        let (d, n, q) = (
            reg_operand(dst, 0),
            reg_operand(num, 0),
            reg_operand(den, 0),
        );
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let hi = |o: Operand| Operand(o.0 + 1);
        let vcc = Some(Operand::VCC);
        let neg0 = 0b001;
        self.valu(Op::VDivScaleF64, Some(t0), vcc, &[q, q, n], None); // den'
        self.valu(Op::VRcpF64, Some(t1), None, &[t0], None); // r ≈ 1/den'
        self.f64_const(t3, F64_ONE_HI);
        self.valu_neg(Op::VFmaF64, t2, &[t0, t1, t3], neg0); // e = 1 - den'·r
        self.valu(Op::VFmaF64, Some(t1), None, &[t1, t2, t1], None); // r += r·e
        self.valu_neg(Op::VFmaF64, t2, &[t0, t1, t3], neg0); // e = 1 - den'·r
        self.valu(Op::VDivScaleF64, Some(t3), vcc, &[n, q, n], None); // num', VCC: scale back
        self.valu(Op::VFmaF64, Some(t1), None, &[t1, t2, t1], None); // r += r·e
        self.valu(Op::VMulF64, Some(t2), None, &[t3, t1], None); // q = num'·r
        self.valu_neg(Op::VFmaF64, d, &[t0, t2, t3], neg0); // e = num' - den'·q
        if self.generation == Gen::Gfx6 {
            let (zero, one) = (
                Operand::inline_int(0).unwrap(),
                Operand::inline_int(1).unwrap(),
            );
            self.valu(Op::VCmpEqU32, None, vcc, &[hi(q), hi(t0)], None);
            self.valu(
                Op::VCndmaskB32,
                Some(t0),
                None,
                &[zero, one, Operand::VCC],
                None,
            );
            self.valu(Op::VCmpEqU32, None, vcc, &[hi(n), hi(t3)], None);
            self.valu(
                Op::VCndmaskB32,
                Some(hi(t0)),
                None,
                &[zero, one, Operand::VCC],
                None,
            );
            self.valu(Op::VCmpNeU32, None, vcc, &[t0, hi(t0)], None);
        }
        self.valu(Op::VDivFmasF64, Some(d), None, &[d, t1, t2], None); // e·r + q, scaled back
        self.valu(Op::VDivFixupF64, Some(d), None, &[d, q, n], None);
    }

    /// `dst = sqrt(src)` in f64, correctly rounded: LLVM's
    /// `SITargetLowering::lowerFSQRTF64`. Inputs below 2^-767 are scaled by 2^256 (the root
    /// by 2^128 after); from y = v_rsq_f64(x), s = x·y and h = y/2 are refined together by
    /// one Goldschmidt step (r = 1/2 - h·s), then s by two Newton-Raphson steps on the fma
    /// residual x - s². ±0 and +inf pass through. `src/sim/expansions/fdiv64.rs` checks it.
    fn sqrt64(&mut self, dst: Reg, src: Reg, tmp: &[Reg; 4]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1, t2, t3] = tmp.map(|r| reg_operand(r, 0));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let zero = Operand::inline_int(0).unwrap();
        let neg0 = 0b001;
        self.f64_const(t0, F64_2_POW_M767_HI);
        self.valu(Op::VCmpGtF64, None, vcc, &[t0, x], None); // tiny = x < 2^-767
        self.valu(Op::VMovB32, Some(t1), None, &[lit], Some(256));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[zero, t1, Operand::VCC],
            None,
        );
        self.valu(Op::VLdexpF64, Some(t0), None, &[x, t1], None); // x' = tiny ? x·2^256 : x
        self.valu(Op::VRsqF64, Some(t2), None, &[t0], None); // y ≈ 1/√x'
        self.valu(Op::VMulF64, Some(t3), None, &[t0, t2], None); // s = x'·y
        let minus_one = Operand::inline_int(-1).unwrap();
        self.valu(Op::VLdexpF64, Some(t2), None, &[t2, minus_one], None); // h = y/2
        self.f64_const(t1, F64_HALF_HI);
        self.valu_neg(Op::VFmaF64, d, &[t2, t3, t1], neg0); // r = 1/2 - h·s
        self.valu(Op::VFmaF64, Some(t2), None, &[t2, d, t2], None); // h += h·r
        self.valu(Op::VFmaF64, Some(t3), None, &[t3, d, t3], None); // s += s·r
        self.valu_neg(Op::VFmaF64, d, &[t3, t3, t0], neg0); // e = x' - s²
        self.valu(Op::VFmaF64, Some(t3), None, &[d, t2, t3], None); // s += e·h
        self.valu_neg(Op::VFmaF64, d, &[t3, t3, t0], neg0); // e = x' - s²
        self.valu(Op::VFmaF64, Some(t3), None, &[d, t2, t3], None); // s += e·h
        self.valu(Op::VMovB32, Some(t1), None, &[lit], Some(-128i32 as u32));
        self.valu(
            Op::VCndmaskB32,
            Some(t1),
            None,
            &[zero, t1, Operand::VCC],
            None,
        );
        self.valu(Op::VLdexpF64, Some(t3), None, &[t3, t1], None); // tiny: s·2^-128
        self.valu(
            Op::VMovB32,
            Some(t1),
            None,
            &[lit],
            Some(CLASS64_ZERO_OR_POS_INF),
        );
        // x and x' agree in class for ±0 and +inf, and are then equal.
        self.valu(Op::VCmpClassF64, None, vcc, &[t0, t1], None);
        let hi = |o: Operand| Operand(o.0 + 1);
        self.valu(
            Op::VCndmaskB32,
            Some(d),
            None,
            &[t3, t0, Operand::VCC],
            None,
        );
        self.valu(
            Op::VCndmaskB32,
            Some(hi(d)),
            None,
            &[hi(t3), hi(t0), Operand::VCC],
            None,
        );
    }
}

impl Emitter<'_> {
    /// `dst = op(src)` for the f64 roundings without v_trunc_f64 and friends (gfx6), as
    /// LLVM's `LowerFTRUNC`, `LowerFFLOOR`, `LowerFCEIL` and `LowerFRINT` do for SI. trunc
    /// clears the fraction bits below the exponent e (x itself for e > 51, ±0 for e < 0);
    /// floor and ceil step the truncation by ∓1 where it moved the wrong way; rndne adds
    /// and subtracts 2^52 with x's sign (the additions round to nearest even), keeps x
    /// for |x| ≥ 2^52 and x's sign for a zero result. `src/sim/expansions/round64.rs` checks it.
    fn round64(&mut self, op: Op, dst: Reg, src: Reg, tmp: &[Reg; 2]) {
        let (d, x) = (reg_operand(dst, 0), reg_operand(src, 0));
        let [t0, t1] = tmp.map(|r| reg_operand(r, 0));
        let hi = |o: Operand| Operand(o.0 + 1);
        let (a, b, c, e) = (t0, hi(t0), t1, hi(t1));
        let vcc = Some(Operand::VCC);
        let lit = Operand::LITERAL;
        let int = |v: i64| Operand::inline_int(v).expect("an inline constant");
        let cnd = |s: &mut Self, dst: Operand, f: Operand, t: Operand| {
            s.valu(
                Op::VCndmaskB32,
                Some(dst),
                None,
                &[f, t, Operand::VCC],
                None,
            );
        };
        if op == Op::VRndneF64 {
            self.valu(Op::VMovB32, Some(c), None, &[int(0)], None);
            self.valu(Op::VAndB32, Some(e), None, &[lit, hi(x)], Some(0x8000_0000));
            self.valu(Op::VOrB32, Some(e), None, &[lit, e], Some(0x4330_0000)); // ±2^52
            self.valu(Op::VAddF64, Some(t0), None, &[x, t1], None);
            self.valu_mods(
                Op::VAddF64,
                Some(t0),
                None,
                &[t0, t1],
                None,
                0b010,
                0,
                false,
            );
            self.valu(Op::VAndB32, Some(e), None, &[lit, hi(x)], Some(0x8000_0000));
            self.valu(Op::VAndB32, Some(b), None, &[lit, b], Some(0x7fff_ffff));
            self.valu(Op::VOrB32, Some(b), None, &[e, b], None); // x's sign
            self.valu(Op::VBfeU32, Some(e), None, &[hi(x), int(20), int(11)], None);
            self.valu(Op::VCmpLtU32, None, vcc, &[lit, e], Some(0x432)); // |x| >= 2^52
            cnd(self, d, a, x);
            cnd(self, hi(d), b, hi(x));
            return;
        }
        // trunc into d.
        self.valu(Op::VBfeU32, Some(a), None, &[hi(x), int(20), int(11)], None);
        self.valu(Op::VAddU32, Some(a), vcc, &[lit, a], Some(-1023i32 as u32)); // e
        self.valu(Op::VMovB32, Some(b), None, &[lit], Some(0x000f_ffff));
        self.valu(Op::VLshrrevB32, Some(b), None, &[a, b], None); // high fraction mask
        self.valu(Op::VAddU32, Some(c), vcc, &[lit, a], Some(-20i32 as u32));
        self.valu(Op::VLshrrevB32, Some(c), None, &[c, int(-1)], None); // low fraction mask
        self.valu(Op::VCmpGtI32, None, vcc, &[int(20), a], None); // e < 20
        cnd(self, c, c, int(-1));
        cnd(self, b, int(0), b);
        self.valu(Op::VBfiB32, Some(d), None, &[c, int(0), x], None);
        self.valu(Op::VBfiB32, Some(hi(d)), None, &[b, int(0), hi(x)], None);
        self.valu(Op::VCmpGtI32, None, vcc, &[int(0), a], None); // e < 0: ±0
        self.valu(Op::VAndB32, Some(b), None, &[lit, hi(x)], Some(0x8000_0000));
        cnd(self, d, d, int(0));
        cnd(self, hi(d), hi(d), b);
        self.valu(Op::VCmpLtI32, None, vcc, &[int(51), a], None); // e > 51: x
        cnd(self, d, d, x);
        cnd(self, hi(d), hi(d), hi(x));
        let (one_hi, cmp) = match op {
            Op::VFloorF64 => (0xbff0_0000, Op::VCmpGtF64), // trunc > x: trunc - 1
            Op::VCeilF64 => (0x3ff0_0000, Op::VCmpLtF64),  // trunc < x: trunc + 1
            _ => return,
        };
        self.valu(Op::VMovB32, Some(c), None, &[int(0)], None);
        self.valu(Op::VMovB32, Some(e), None, &[lit], Some(one_hi));
        self.valu(Op::VAddF64, Some(t0), None, &[d, t1], None);
        self.valu(cmp, None, vcc, &[d, x], None);
        cnd(self, d, d, a);
        cnd(self, hi(d), hi(d), b);
    }
}
