//! The decode cache: each program counter is decoded once (with the MC layer's decoder, the
//! same tables as the encoder and the disassembler) into a [`Decoded`] instruction that also
//! carries what the checkers need: its kind and the registers it reads and writes.

use crate::isa::gcn::mc::{self, DstUnused, Enc, Form, Gen, McInst, Op, OpInfo, Operand, SdwaSel};

use crate::sim::Violation;

/// A set of registers in the hardware's operand numbering (SGPRs, VCC, M0, EXEC: 0–127;
/// VGPRs: 256–511), plus one pseudo-register per hardware register (`s_getreg`/`s_setreg`
/// ids) from [`RegSet::HWREG`] on, so that every hazard rule is "these two sets overlap".
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RegSet([u64; 9]);

impl RegSet {
    pub const EMPTY: RegSet = RegSet([0; 9]);
    pub const ALL: RegSet = RegSet([!0; 9]);
    /// Bit of hardware register `id` (0–63).
    pub const HWREG: u16 = 512;

    pub fn range(first: u16, count: u16) -> RegSet {
        let mut s = RegSet::EMPTY;
        s.add(first, count);
        s
    }

    pub fn add(&mut self, first: u16, count: u16) {
        for r in first..(first + count).min(576) {
            self.0[r as usize / 64] |= 1 << (r % 64);
        }
    }

    pub fn union(self, other: RegSet) -> RegSet {
        let mut s = self;
        for (a, b) in s.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        s
    }

    pub fn intersect(self, other: RegSet) -> RegSet {
        let mut s = self;
        for (a, b) in s.0.iter_mut().zip(other.0) {
            *a &= b;
        }
        s
    }

    /// The registers of `self` not in `other`.
    pub fn without(self, other: RegSet) -> RegSet {
        let mut s = self;
        for (a, b) in s.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
        s
    }

    pub fn overlaps(self, other: RegSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    pub fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The scalar registers (operands 0–127) of the set.
    pub fn scalar(self) -> RegSet {
        let mut s = RegSet::EMPTY;
        s.0[..2].copy_from_slice(&self.0[..2]);
        s
    }

    /// The VGPRs of the set.
    pub fn vector(self) -> RegSet {
        let mut s = RegSet::EMPTY;
        s.0[4..8].copy_from_slice(&self.0[4..8]);
        s
    }

    /// The registers of the set as operand ranges `(first, count)`, in order.
    pub fn ranges(self) -> Vec<(u16, u16)> {
        let mut out: Vec<(u16, u16)> = Vec::new();
        for r in 0..576u16 {
            if self.0[r as usize / 64] >> (r % 64) & 1 == 0 {
                continue;
            }
            match out.last_mut() {
                Some((first, count)) if *first + *count == r => *count += 1,
                _ => out.push((r, 1)),
            }
        }
        out
    }
}

pub(crate) const VCC: RegSet = RegSet([0, 3 << (106 - 64), 0, 0, 0, 0, 0, 0, 0]);
pub(crate) const M0: RegSet = RegSet([0, 1 << (124 - 64), 0, 0, 0, 0, 0, 0, 0]);
pub(crate) const EXEC: RegSet = RegSet([0, 3 << (126 - 64), 0, 0, 0, 0, 0, 0, 0]);

/// What unit executes an instruction, for the checkers. Derived from the encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// SOP1, SOP2, SOPK, SOPC.
    Salu,
    /// SOPP: branches, `s_nop`, `s_waitcnt`, `s_barrier`, `s_endpgm`.
    Sopp,
    /// Scalar memory (SMEM; SMRD on gfx6/gfx7).
    Smem,
    /// Vector ALU (VOP1, VOP2, VOPC, VOP3, SDWA, DPP).
    Valu,
    /// Vector memory: FLAT, GLOBAL, MUBUF (later MTBUF, MIMG).
    Vmem,
    /// The LDS unit (DS): the lane permutes.
    Lds,
    /// Parameter interpolation (VINTRP): reads its parameters from LDS through M0.
    Interp,
    /// Exports (EXP).
    Export,
}

/// One decoded instruction and its register footprint.
#[derive(Clone, Debug)]
pub(crate) struct Decoded {
    pub inst: McInst,
    pub info: &'static OpInfo,
    pub len: u32,
    pub kind: Kind,
    /// Every register read, explicitly or implicitly (EXEC by vector instructions, VCC by
    /// `v_div_fmas_f32` and `s_cbranch_vcc*`, the `s_getreg` hardware register, …).
    pub reads: RegSet,
    /// Every register written (for `s_setreg`, the hardware register).
    pub writes: RegSet,
    /// A DPP instruction.
    pub dpp: bool,
    /// Reads M0 the way GDS/`s_sendmsg` (none yet), or interpolation, `s_movrel`, LDS
    /// add-TID/DMA and `lds_direct` (VINTRP) do.
    pub m0_gds_sendmsg: bool,
    pub m0_interp_movrel_lds: bool,
}

impl Decoded {
    pub fn new(inst: McInst, len: usize, generation: Gen) -> Decoded {
        let info = inst.op.info();
        let kind = match inst.enc {
            Enc::Sop1 | Enc::Sop2 | Enc::Sopk | Enc::Sopc => Kind::Salu,
            Enc::Sopp => Kind::Sopp,
            Enc::Smem => Kind::Smem,
            Enc::Vop1 | Enc::Vop2 | Enc::Vopc | Enc::Vop3 | Enc::Sdwa | Enc::Dpp => Kind::Valu,
            Enc::Flat | Enc::Global | Enc::Mubuf => Kind::Vmem,
            Enc::Ds => Kind::Lds,
            Enc::Vintrp => Kind::Interp,
            Enc::Exp => Kind::Export,
        };
        let (reads, writes) = footprint(&inst, info, kind, generation);
        let dpp = inst.enc == Enc::Dpp;
        Decoded {
            inst,
            info,
            len: len as u32,
            kind,
            reads,
            writes,
            dpp,
            m0_gds_sendmsg: false,
            m0_interp_movrel_lds: kind == Kind::Interp,
        }
    }

    /// The assembly text, for error messages.
    pub fn text(&self, generation: Gen) -> String {
        mc::print(&self.inst, generation)
    }

    /// The hardware register id, offset and size of `s_getreg`/`s_setreg*` (GCN3 ISA
    /// manual 4.8: simm16 = {size-1[15:11], offset[10:6], id[5:0]}).
    pub fn hwreg(&self) -> Option<(u16, u32, u32)> {
        match self.info.form {
            Form::SopkGetreg | Form::SopkSetreg | Form::SopkSetregImm32 => {
                let imm = self.inst.imm as u32;
                Some(((imm & 0x3f) as u16, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1))
            }
            _ => None,
        }
    }

    pub fn is_setreg(&self) -> bool {
        matches!(self.info.form, Form::SopkSetreg | Form::SopkSetregImm32)
    }
}

/// The registers an operand of `width` dwords names (nothing for constants).
fn operand_regs(o: Operand, width: u8) -> RegSet {
    match o.0 {
        0..=127 | 256..=511 => RegSet::range(o.0, width.max(1) as u16),
        251 => VCC,
        252 => EXEC,
        _ => RegSet::EMPTY,
    }
}

fn footprint(inst: &McInst, info: &OpInfo, kind: Kind, generation: Gen) -> (RegSet, RegSet) {
    let mut reads = RegSet::EMPTY;
    let mut writes = RegSet::EMPTY;
    for (src, width) in inst.src.iter().zip(inst.src_widths()) {
        if let Some(o) = src {
            reads = reads.union(operand_regs(*o, width));
        }
    }
    if let Some(d) = inst.dst {
        writes = writes.union(operand_regs(d, info.dst));
    }
    if let Some(s) = inst.sdst {
        writes = writes.union(operand_regs(s, 2));
    }
    if matches!(
        kind,
        Kind::Valu | Kind::Vmem | Kind::Lds | Kind::Interp | Kind::Export
    ) {
        reads = reads.union(EXEC);
    }
    // VINTRP reads M0 (the primitive mask and the parameters' LDS offset); `p2` adds to
    // what `p1` left in its destination.
    if kind == Kind::Interp {
        reads = reads.union(M0);
        if inst.op == Op::VInterpP2F32
            && let Some(d) = inst.dst
        {
            reads = reads.union(operand_regs(d, 1));
        }
    }
    if let Some(exp) = inst.export {
        for v in exp.src.into_iter().flatten() {
            reads = reads.union(operand_regs(v, 1));
        }
    }
    // SDWA keeps the destination's other bits with dst_unused:UNUSED_PRESERVE: it reads them.
    if let (Some(sel), Some(d)) = (inst.sdwa, inst.dst)
        && sel.dst_unused == DstUnused::Preserve
        && sel.dst_sel != SdwaSel::Dword
    {
        reads = reads.union(operand_regs(d, info.dst));
    }
    match inst.op {
        // `s_addk_i32`/`s_mulk_i32` read their destination; SOPK `s_movk_i32` does not.
        Op::SAddkI32 | Op::SMulkI32 => reads = reads.union(writes),
        Op::SAndSaveexecB64
        | Op::SOrSaveexecB64
        | Op::SXorSaveexecB64
        | Op::SAndn2SaveexecB64
        | Op::SOrn2SaveexecB64 => {
            reads = reads.union(EXEC);
            writes = writes.union(EXEC);
        }
        Op::VDivFmasF32 | Op::SCbranchVccz | Op::SCbranchVccnz => reads = reads.union(VCC),
        Op::SCbranchExecz | Op::SCbranchExecnz => reads = reads.union(EXEC),
        _ => {}
    }
    if let Form::SopkGetreg | Form::SopkSetreg | Form::SopkSetregImm32 = info.form {
        let id = (inst.imm & 0x3f) as u16;
        let hw = RegSet::range(RegSet::HWREG + id, 1);
        if info.form == Form::SopkGetreg {
            reads = reads.union(hw);
        } else {
            writes = writes.union(hw);
        }
    }
    let _ = generation;
    (reads, writes)
}

/// Decodes each program counter once.
pub(crate) struct Program<'c> {
    code: &'c [u8],
    pub generation: Gen,
    /// Per dword of code: 0 if not decoded yet, else 1 + the index in `decoded`.
    slots: Vec<u32>,
    decoded: Vec<Decoded>,
}

impl<'c> Program<'c> {
    pub fn new(code: &'c [u8], generation: Gen) -> Program<'c> {
        Program {
            code,
            generation,
            slots: vec![0; code.len().div_ceil(4)],
            decoded: Vec::new(),
        }
    }

    /// The index of the instruction at `pc`, decoding it on first use.
    pub fn fetch(&mut self, pc: u32) -> Result<u32, Violation> {
        if !pc.is_multiple_of(4) || pc as usize >= self.code.len() {
            return Err(Violation::BadPc(format!(
                "{pc:#x} is outside the code (0..{:#x}) or not dword-aligned",
                self.code.len()
            )));
        }
        let slot = self.slots[pc as usize / 4];
        if slot != 0 {
            return Ok(slot - 1);
        }
        let (inst, len) = mc::decode(&self.code[pc as usize..], self.generation)
            .map_err(|e| Violation::Decode(e.to_string()))?;
        self.decoded.push(Decoded::new(inst, len, self.generation));
        let index = self.decoded.len() as u32 - 1;
        self.slots[pc as usize / 4] = index + 1;
        Ok(index)
    }

    pub fn get(&self, index: u32) -> &Decoded {
        &self.decoded[index as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regset_named_registers() {
        assert_eq!(VCC, RegSet::range(106, 2));
        assert_eq!(M0, RegSet::range(124, 1));
        assert_eq!(EXEC, RegSet::range(126, 2));
        let v = RegSet::range(258, 3);
        assert_eq!(v.ranges(), vec![(258, 3)]);
        assert!(v.vector().overlaps(RegSet::range(260, 1)));
        assert!(v.scalar().is_empty());
    }
}
