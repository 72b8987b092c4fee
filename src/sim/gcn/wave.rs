//! One wavefront: its registers, fetch/decode/dispatch, and the scalar ALU, scalar memory,
//! branches, FLAT memory and the VALU lane loop (the per-lane semantics are in `valu.rs`).
//!
//! Operand numbering and semantics follow the GCN3 ISA manual (chapter 5 "Scalar ALU
//! Operations", 6 "Vector ALU Operations", 7 "Scalar Memory Operations", 10 "Flat Memory
//! Instructions", 12 "Instructions" for each opcode's pseudo-code), with the SI, CI and
//! Vega manuals for the other generations.

use super::atomics;
use super::dpp::{self, Fetch};
use super::hazard::History;
use super::interp::{self, Exported};
use super::lds;
use super::program::{Decoded, Kind, Program, RegSet};
use super::valu::{self, LaneInputs};
use super::waitcnt::{Outstanding, Payload, Pending};
use crate::isa::gcn::mc::{self, Enc, Form, Gen, MubufAddr, Op, OpInfo, Operand};
use crate::sim::{Memory, Options, SimError, Violation};

/// MODE at wave start, as the kernel descriptor's `compute_pgm_rsrc1` sets it for wavelift
/// code (docs/ir.md): round to nearest even (FP_ROUND [3:0] = 0), FP32 and FP64/FP16
/// denormals on (FP_DENORM [7:4] = 0xf), DX10_CLAMP [8] and IEEE [9] on.
pub(crate) const MODE_DEFAULT: u32 = 0x3f0;
/// MODE.VSKIP: vector instructions are skipped while it is set.
const MODE_VSKIP: u32 = 1 << 28;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    /// Waiting at `s_barrier` for the other waves of the work-group.
    Barrier,
    /// Executed `s_endpgm`.
    Ended,
    /// Reached the return address of a device-function call.
    Returned,
}

/// What a wave runs against.
pub(crate) struct Env<'a> {
    pub memory: &'a mut Memory,
    pub options: &'a Options,
    /// A device-function call ends when the program counter reaches this address.
    pub return_address: Option<u32>,
    /// The work-group's LDS.
    pub lds: &'a mut lds::Lds,
    /// The index of the running wave in its work-group (for the LDS race check).
    pub wave: u32,
}

pub(crate) struct Wave {
    /// The scalar registers in operand numbering: SGPRs, FLAT_SCRATCH, XNACK_MASK, VCC
    /// (106–107), trap registers, M0 (124), EXEC (126–127).
    pub sgpr: [u32; 128],
    /// `vgpr[register][lane]`.
    pub vgpr: Vec<[u32; 64]>,
    pub scc: bool,
    pub pc: u32,
    /// Address of the last instruction issued.
    pub last_pc: u32,
    pub mode: u32,
    trapsts: u32,
    pub state: State,
    /// Instructions issued.
    pub steps: u64,
    pub outstanding: Outstanding,
    history: History,
    /// Registers holding bits no manual defines (see [`Wave::left_undefined`]), and the
    /// instruction that left them so: reading one is an error, writing one defines it.
    undefined: RegSet,
    /// The program counter and decoded index of that instruction.
    undefined_by: (u32, u32),
    /// What the instruction being executed leaves undefined: the carry-out of a DPP lane
    /// that does not write (docs/isa-notes.md, "DPP"), which LLVM's code never reads.
    left_undefined: RegSet,
    /// The addresses of this wave's part of the scratch memory, which its private-memory
    /// accesses must stay in (`dispatch.rs`, `scratch.rs`).
    pub scratch: Option<std::ops::Range<u64>>,
    /// The exports issued, in order (`interp.rs`).
    pub exports: Vec<Exported>,
}

/// A register range by its assembler name.
pub(crate) fn reg_name(first: u16, count: u16) -> String {
    let range = |prefix: &str, n: u16| {
        if count == 1 {
            format!("{prefix}{n}")
        } else {
            format!("{prefix}[{n}:{}]", n + count - 1)
        }
    };
    match (first, count) {
        (106, 2) => "vcc".into(),
        (106, 1) => "vcc_lo".into(),
        (107, 1) => "vcc_hi".into(),
        (124, 1) => "m0".into(),
        (126, 2) => "exec".into(),
        (126, 1) => "exec_lo".into(),
        (127, 1) => "exec_hi".into(),
        (256.., _) => range("v", first - 256),
        _ => range("s", first),
    }
}

fn set_names(set: RegSet) -> String {
    let names: Vec<String> = set
        .ranges()
        .into_iter()
        .map(|(first, count)| reg_name(first, count))
        .collect();
    names.join(", ")
}

/// A source operand of a VALU instruction, resolved once per instruction.
#[derive(Copy, Clone)]
enum Src {
    Scalar(u64),
    Vgpr(usize, u8),
}

fn bit_mask(bits: u32) -> u64 {
    if bits >= 64 { !0 } else { (1u64 << bits) - 1 }
}

/// Bit-field extract of an N-bit value (S_BFE_*: offset, then width bits, sign-extended
/// from the top bit of the field for the signed forms; width 0 gives 0).
/// A 32-bit scalar compare (`s_cmp_*`, `s_cmpk_*` with its constant already extended):
/// signed for the `_i32` forms, unsigned for the `_u32` ones.
fn scalar_compare(op: Op, a: u32, b: u32) -> bool {
    use Op::*;
    use std::cmp::Ordering::*;
    let order = match op {
        SCmpGtI32 | SCmpGeI32 | SCmpLtI32 | SCmpLeI32 | SCmpkGtI32 | SCmpkGeI32 | SCmpkLtI32
        | SCmpkLeI32 => (a as i32).cmp(&(b as i32)),
        _ => a.cmp(&b),
    };
    match op {
        SCmpEqI32 | SCmpEqU32 | SCmpkEqI32 | SCmpkEqU32 => order == Equal,
        SCmpLgI32 | SCmpLgU32 | SCmpkLgI32 | SCmpkLgU32 => order != Equal,
        SCmpGtI32 | SCmpGtU32 | SCmpkGtI32 | SCmpkGtU32 => order == Greater,
        SCmpGeI32 | SCmpGeU32 | SCmpkGeI32 | SCmpkGeU32 => order != Less,
        SCmpLtI32 | SCmpLtU32 | SCmpkLtI32 | SCmpkLtU32 => order == Less,
        SCmpLeI32 | SCmpLeU32 | SCmpkLeI32 | SCmpkLeU32 => order != Greater,
        _ => unreachable!("{op:?} is not a 32-bit scalar compare"),
    }
}

fn bfe(value: u64, bits: u32, offset: u32, width: u32, signed: bool) -> u64 {
    let shifted = if signed {
        let wide = ((value << (64 - bits)) as i64) >> (64 - bits);
        (wide >> offset) as u64
    } else {
        value >> offset
    };
    if width == 0 {
        return 0;
    }
    if width >= bits {
        return shifted & bit_mask(bits);
    }
    let field = shifted & bit_mask(width);
    if signed && field >> (width - 1) & 1 != 0 {
        (field | !bit_mask(width)) & bit_mask(bits)
    } else {
        field
    }
}

/// The bytes a vector-memory operation moves per lane, and whether a narrow load
/// sign-extends.
pub(super) fn access_size(op: Op, info: &OpInfo) -> (usize, bool) {
    use Op::*;
    match op {
        FlatLoadUbyte | GlobalLoadUbyte | BufferLoadUbyte => (1, false),
        FlatLoadSbyte | GlobalLoadSbyte | BufferLoadSbyte => (1, true),
        FlatLoadUshort | GlobalLoadUshort | BufferLoadUshort => (2, false),
        FlatLoadSshort | GlobalLoadSshort | BufferLoadSshort => (2, true),
        FlatStoreByte | GlobalStoreByte | BufferStoreByte => (1, false),
        FlatStoreShort | GlobalStoreShort | BufferStoreShort => (2, false),
        _ if info.dst != 0 => (4 * info.dst as usize, false),
        _ => (4 * info.src[1] as usize, false),
    }
}

fn memory_fault(lane: Option<u32>, address: u64, len: usize) -> Violation {
    Violation::Memory {
        lane,
        address,
        message: format!("{len}-byte access outside every allocated region"),
    }
}

impl Wave {
    pub fn new() -> Wave {
        Wave {
            sgpr: [0; 128],
            vgpr: vec![[0; 64]; 256],
            scc: false,
            pc: 0,
            last_pc: 0,
            mode: MODE_DEFAULT,
            trapsts: 0,
            state: State::Running,
            steps: 0,
            outstanding: Outstanding::default(),
            undefined: RegSet::EMPTY,
            undefined_by: (0, 0),
            left_undefined: RegSet::EMPTY,
            history: History::default(),
            scratch: None,
            exports: Vec::new(),
        }
    }

    pub fn exec(&self) -> u64 {
        self.sgpr[126] as u64 | (self.sgpr[127] as u64) << 32
    }

    pub fn set_exec(&mut self, exec: u64) {
        self.sgpr[126] = exec as u32;
        self.sgpr[127] = (exec >> 32) as u32;
    }

    fn vcc(&self) -> u64 {
        self.sgpr[106] as u64 | (self.sgpr[107] as u64) << 32
    }

    /// Runs until the wave ends, returns, or waits at a barrier.
    pub fn run(&mut self, program: &mut Program, env: &mut Env) -> Result<(), SimError> {
        while self.state == State::Running {
            if Some(self.pc) == env.return_address {
                self.state = State::Returned;
                break;
            }
            self.step(program, env)?;
        }
        Ok(())
    }

    /// Fetches, checks and executes one instruction.
    pub fn step(&mut self, program: &mut Program, env: &mut Env) -> Result<(), SimError> {
        let pc = self.pc;
        let index = program.fetch(pc).map_err(|violation| SimError {
            pc,
            inst: None,
            violation,
        })?;
        let program: &Program = program;
        let d = program.get(index);
        self.last_pc = pc;
        self.issue(d, index, program, env)
            .map_err(|violation| SimError {
                pc,
                inst: Some(d.text(program.generation)),
                violation,
            })
    }

    fn issue(
        &mut self,
        d: &Decoded,
        index: u32,
        program: &Program,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let generation = program.generation;
        self.steps += 1;
        if self.steps > env.options.max_steps {
            return Err(Violation::StepLimit);
        }
        if let Some((p, regs)) = self.outstanding.conflict(d.reads.union(d.writes)) {
            return Err(Violation::Waitcnt {
                register: set_names(regs),
                issued_at: p.pc,
                issued: program.get(p.index).text(generation),
            });
        }
        if let Some((p, regs)) = self.outstanding.data_conflict(d.writes) {
            return Err(Violation::Waitcnt {
                register: set_names(regs),
                issued_at: p.pc,
                issued: program.get(p.index).text(generation),
            });
        }
        if self.undefined.overlaps(d.reads) {
            return Err(Violation::Undefined {
                register: set_names(self.undefined.intersect(d.reads)),
                written_at: self.undefined_by.0,
                written: program.get(self.undefined_by.1).text(generation),
            });
        }
        if env.options.check_hazards {
            if let Some(b) = self.history.check(d, generation, |i| program.get(i)) {
                return Err(Violation::Hazard {
                    rule: format!("{} [{}]", b.rule.name, b.rule.source),
                    earlier_at: b.earlier_pc,
                    earlier: program.get(b.earlier).text(generation),
                });
            }
            self.history.issue(d, index, self.pc);
        }
        let pc = self.pc;
        self.pc = pc + d.len;
        let vskip = self.mode & MODE_VSKIP != 0;
        match d.kind {
            Kind::Salu => self.salu(d, generation, pc),
            Kind::Sopp => self.sopp(d, generation),
            Kind::Smem => self.smem(d, index, pc, generation, env),
            Kind::Valu if vskip => Ok(()),
            Kind::Valu => self.valu(d, generation),
            Kind::Vmem if vskip => Ok(()),
            Kind::Vmem => self.vmem(d, index, pc, generation, env),
            Kind::Lds if vskip => Ok(()),
            Kind::Lds => self.lds(d, index, pc, generation, env),
            Kind::Interp => self.interp(d, pc, env),
            Kind::Export => self.export(d, index, pc, env),
        }?;
        // What the instruction wrote is defined again, except what it left undefined.
        self.undefined = self.undefined.without(d.writes);
        if !self.left_undefined.is_empty() {
            self.undefined = self.undefined.union(self.left_undefined);
            self.undefined_by = (pc, index);
            self.left_undefined = RegSet::EMPTY;
        }
        Ok(())
    }

    // ---- operands ----

    pub(super) fn sreg_index(n: u16, width: u8) -> Result<usize, Violation> {
        for r in n..n + width.max(1) as u16 {
            if r == 125 || r > 127 {
                return Err(Violation::Other(format!(
                    "operand {} is not a scalar register",
                    reg_name(n, width as u16)
                )));
            }
        }
        Ok(n as usize)
    }

    /// The value of a scalar source (SGPRs, VCC, M0, EXEC, constants, the literal) as
    /// `width` dwords. Inline integers are sign-extended to 64 bits; inline floats are the
    /// f64 values for 64-bit operands (GCN3 ISA 4.6.1 / LLVM's inline-constant rules); the
    /// 32-bit literal is the high half of an f64 operand, sign-extended for a signed 64-bit
    /// integer operand and zero-extended otherwise.
    pub(super) fn read_scalar(
        &self,
        o: Operand,
        width: u8,
        float: bool,
        signed: bool,
        literal: Option<u32>,
        generation: Gen,
    ) -> Result<u64, Violation> {
        let wide = width >= 2;
        Ok(match o.0 {
            0..=127 => {
                let i = Self::sreg_index(o.0, width)?;
                if wide {
                    self.sgpr[i] as u64 | (self.sgpr[i + 1] as u64) << 32
                } else {
                    self.sgpr[i] as u64
                }
            }
            128..=192 => (o.0 - 128) as u64,
            193..=208 => (-((o.0 - 192) as i64)) as u64,
            240..=248 => {
                if o.0 == 248 && generation < Gen::Gfx8 {
                    return Err(Violation::Other(
                        "inline constant 1/(2*pi) needs gfx8 or later".into(),
                    ));
                }
                const F: [f64; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
                match (o.0, wide) {
                    (248, true) => 0x3fc4_5f30_6dc9_c882,
                    (248, false) => 0x3e22_f983,
                    (n, true) => F[n as usize - 240].to_bits(),
                    (n, false) => (F[n as usize - 240] as f32).to_bits() as u64,
                }
            }
            251 => (self.vcc() == 0) as u64,
            252 => (self.exec() == 0) as u64,
            253 => self.scc as u64,
            255 => {
                let lit = literal
                    .ok_or_else(|| Violation::Other("literal operand without a literal".into()))?;
                match (wide, float, signed) {
                    (false, ..) => lit as u64,
                    (true, true, _) => (lit as u64) << 32,
                    (true, false, true) => lit as i32 as i64 as u64,
                    (true, false, false) => lit as u64,
                }
            }
            n => {
                return Err(Violation::Other(format!(
                    "operand {n} is not a scalar source"
                )));
            }
        })
    }

    fn write_scalar(&mut self, o: Operand, width: u8, value: u64) -> Result<(), Violation> {
        if o.0 >= 128 {
            return Err(Violation::Other(format!(
                "operand {} is not a scalar destination",
                o.0
            )));
        }
        let i = Self::sreg_index(o.0, width)?;
        self.sgpr[i] = value as u32;
        if width >= 2 {
            self.sgpr[i + 1] = (value >> 32) as u32;
        }
        Ok(())
    }

    /// Source `i` of a scalar instruction as its table width says.
    fn salu_src(&self, d: &Decoded, i: usize, generation: Gen) -> Result<u64, Violation> {
        match d.inst.src[i] {
            Some(o) => self.read_scalar(
                o,
                d.info.src[i],
                false,
                d.info.name.ends_with("_i64"),
                d.inst.literal,
                generation,
            ),
            None => Ok(0),
        }
    }

    pub(super) fn vgpr_index(o: Operand, width: u8) -> Result<usize, Violation> {
        let r = o.reg_index() as usize;
        if !o.is_vgpr() || r + width.max(1) as usize > 256 {
            return Err(Violation::Other(format!(
                "{} is not a VGPR range",
                reg_name(o.0, width as u16)
            )));
        }
        Ok(r)
    }

    // ---- scalar ALU ----

    fn salu(&mut self, d: &Decoded, generation: Gen, pc: u32) -> Result<(), Violation> {
        use Op::*;
        let inst = &d.inst;
        let a = self.salu_src(d, 0, generation)?;
        let b = self.salu_src(d, 1, generation)?;
        let (a32, b32) = (a as u32, b as u32);
        let next = pc + d.len;
        let mut scc = self.scc;
        let nz32 = |r: u32, scc: &mut bool| {
            *scc = r != 0;
            r as u64
        };
        let nz64 = |r: u64, scc: &mut bool| {
            *scc = r != 0;
            r
        };
        // The bit index found, or -1 when the operand (of `bits` bits) has none.
        let first_one = |r: u32, bits: u32| if r == bits { !0u32 } else { r };
        let result: Option<u64> = match inst.op {
            SMovB32 | SMovB64 => Some(a),
            SNotB32 => Some(nz32(!a32, &mut scc)),
            SNotB64 => Some(nz64(!a, &mut scc)),
            SBrevB32 => Some(a32.reverse_bits() as u64),
            SBcnt1I32B32 => Some(nz32(a32.count_ones(), &mut scc)),
            SBcnt1I32B64 => Some(nz32(a.count_ones(), &mut scc)),
            SFf1I32B32 => Some(first_one(a32.trailing_zeros(), 32) as u64),
            SFf1I32B64 => Some(first_one(a.trailing_zeros(), 64) as u64),
            SFlbitI32B32 => Some(first_one(a32.leading_zeros(), 32) as u64),
            SFlbitI32B64 => Some(first_one(a.leading_zeros(), 64) as u64),
            SFlbitI32 => {
                let r = if a32 == 0 || a32 == !0 {
                    !0
                } else if (a32 as i32) < 0 {
                    (!a32).leading_zeros()
                } else {
                    a32.leading_zeros()
                };
                Some(r as u64)
            }
            SSextI32I8 => Some(a32 as u8 as i8 as i32 as u32 as u64),
            SSextI32I16 => Some(a32 as u16 as i16 as i32 as u32 as u64),
            SAbsI32 => Some(nz32((a32 as i32).wrapping_abs() as u32, &mut scc)),
            SGetpcB64 => Some(next as u64),
            SSetpcB64 => {
                self.pc = Self::target(a)?;
                None
            }
            SSwappcB64 => {
                self.pc = Self::target(a)?;
                Some(next as u64)
            }
            // D = EXEC; EXEC = S0 op EXEC (GCN3 ISA, SOP1 opcodes 32-36).
            SAndSaveexecB64 | SOrSaveexecB64 | SXorSaveexecB64 | SAndn2SaveexecB64
            | SOrn2SaveexecB64 => {
                let old = self.exec();
                let new = match inst.op {
                    SAndSaveexecB64 => a & old,
                    SOrSaveexecB64 => a | old,
                    SXorSaveexecB64 => a ^ old,
                    SAndn2SaveexecB64 => a & !old,
                    _ => a | !old,
                };
                self.write_scalar(inst.dst.unwrap_or(Operand(0)), 2, old)?;
                self.set_exec(new);
                scc = new != 0;
                None
            }
            SAddU32 => {
                let (r, c) = a32.overflowing_add(b32);
                scc = c;
                Some(r as u64)
            }
            SSubU32 => {
                let (r, c) = a32.overflowing_sub(b32);
                scc = c;
                Some(r as u64)
            }
            SAddI32 => {
                let (r, o) = (a32 as i32).overflowing_add(b32 as i32);
                scc = o;
                Some(r as u32 as u64)
            }
            SSubI32 => {
                let (r, o) = (a32 as i32).overflowing_sub(b32 as i32);
                scc = o;
                Some(r as u32 as u64)
            }
            SAddcU32 => {
                let t = a32 as u64 + b32 as u64 + self.scc as u64;
                scc = t >> 32 != 0;
                Some(t as u32 as u64)
            }
            SSubbU32 => {
                let borrow_in = self.scc as u64;
                scc = b32 as u64 + borrow_in > a32 as u64;
                Some(a32.wrapping_sub(b32).wrapping_sub(borrow_in as u32) as u64)
            }
            SMinI32 | SMinU32 | SMaxI32 | SMaxU32 => {
                let pick_a = match inst.op {
                    SMinI32 => (a32 as i32) < (b32 as i32),
                    SMinU32 => a32 < b32,
                    SMaxI32 => (a32 as i32) > (b32 as i32),
                    _ => a32 > b32,
                };
                scc = pick_a;
                Some(if pick_a { a32 } else { b32 } as u64)
            }
            SCselectB32 | SCselectB64 => Some(if self.scc { a } else { b }),
            SAndB32 => Some(nz32(a32 & b32, &mut scc)),
            SOrB32 => Some(nz32(a32 | b32, &mut scc)),
            SXorB32 => Some(nz32(a32 ^ b32, &mut scc)),
            SAndn2B32 => Some(nz32(a32 & !b32, &mut scc)),
            SOrn2B32 => Some(nz32(a32 | !b32, &mut scc)),
            SNandB32 => Some(nz32(!(a32 & b32), &mut scc)),
            SNorB32 => Some(nz32(!(a32 | b32), &mut scc)),
            SXnorB32 => Some(nz32(!(a32 ^ b32), &mut scc)),
            SAndB64 => Some(nz64(a & b, &mut scc)),
            SOrB64 => Some(nz64(a | b, &mut scc)),
            SXorB64 => Some(nz64(a ^ b, &mut scc)),
            SAndn2B64 => Some(nz64(a & !b, &mut scc)),
            SOrn2B64 => Some(nz64(a | !b, &mut scc)),
            // Shift amounts use the low 5 (32-bit) or 6 (64-bit) bits.
            SLshlB32 => Some(nz32(a32 << (b32 & 31), &mut scc)),
            SLshrB32 => Some(nz32(a32 >> (b32 & 31), &mut scc)),
            SAshrI32 => Some(nz32(((a32 as i32) >> (b32 & 31)) as u32, &mut scc)),
            SLshlB64 => Some(nz64(a << (b32 & 63), &mut scc)),
            SLshrB64 => Some(nz64(a >> (b32 & 63), &mut scc)),
            SAshrI64 => Some(nz64(((a as i64) >> (b32 & 63)) as u64, &mut scc)),
            SMulI32 => Some(a32.wrapping_mul(b32) as u64),
            SMulHiU32 => Some((a32 as u64 * b32 as u64) >> 32),
            SMulHiI32 => Some(((a32 as i32 as i64 * b32 as i32 as i64) >> 32) as u32 as u64),
            // Offset in S1[4:0] (64-bit: [5:0]), width in S1[22:16].
            SBfeU32 | SBfeI32 => {
                let r = bfe(
                    a32 as u64,
                    32,
                    b32 & 31,
                    b32 >> 16 & 0x7f,
                    inst.op == SBfeI32,
                );
                Some(nz32(r as u32, &mut scc))
            }
            SBfeU64 | SBfeI64 => {
                let r = bfe(a, 64, b32 & 63, b32 >> 16 & 0x7f, inst.op == SBfeI64);
                Some(nz64(r, &mut scc))
            }
            SCmpEqI32 | SCmpEqU32 | SCmpLgI32 | SCmpLgU32 | SCmpGtI32 | SCmpGeI32 | SCmpLtI32
            | SCmpLeI32 | SCmpGtU32 | SCmpGeU32 | SCmpLtU32 | SCmpLeU32 => {
                scc = scalar_compare(inst.op, a32, b32);
                None
            }
            SCmpEqU64 => {
                scc = a == b;
                None
            }
            SCmpLgU64 => {
                scc = a != b;
                None
            }
            SBitcmp0B32 => {
                scc = a32 >> (b32 & 31) & 1 == 0;
                None
            }
            SBitcmp1B32 => {
                scc = a32 >> (b32 & 31) & 1 == 1;
                None
            }
            // SOPK: the signed forms sign-extend simm16 (decode already did), the unsigned
            // compares zero-extend it.
            SMovkI32 => Some(inst.imm as u32 as u64),
            SAddkI32 | SMulkI32 => {
                let dst = inst.dst.unwrap_or(Operand(0));
                let old = self.read_scalar(dst, 1, false, false, None, generation)? as u32;
                if inst.op == SAddkI32 {
                    let (r, o) = (old as i32).overflowing_add(inst.imm);
                    scc = o;
                    Some(r as u32 as u64)
                } else {
                    Some((old as i32).wrapping_mul(inst.imm) as u32 as u64)
                }
            }
            // The 16-bit constant sign-extended for the signed forms, zero-extended for
            // the unsigned ones.
            SCmpkEqI32 | SCmpkLgI32 | SCmpkGtI32 | SCmpkGeI32 | SCmpkLtI32 | SCmpkLeI32 => {
                scc = scalar_compare(inst.op, a32, inst.imm as u32);
                None
            }
            SCmpkEqU32 | SCmpkLgU32 | SCmpkGtU32 | SCmpkGeU32 | SCmpkLtU32 | SCmpkLeU32 => {
                scc = scalar_compare(inst.op, a32, inst.imm as u16 as u32);
                None
            }
            SGetregB32 => {
                let (id, offset, size) = d.hwreg().unwrap_or((0, 0, 32));
                let value = self.hwreg_read(id)?;
                Some((value as u64 >> offset) & bit_mask(size))
            }
            SSetregB32 | SSetregImm32B32 => {
                let (id, offset, size) = d.hwreg().unwrap_or((0, 0, 32));
                let value = if inst.op == SSetregB32 {
                    a32
                } else {
                    inst.literal.unwrap_or(0)
                };
                let mask = bit_mask(size) << offset;
                let old = self.hwreg_read(id)? as u64;
                self.hwreg_write(
                    id,
                    ((old & !mask) | ((value as u64) << offset & mask)) as u32,
                )?;
                None
            }
            other => {
                return Err(Violation::Unsupported(format!(
                    "{} is not a scalar ALU operation",
                    other.info().name
                )));
            }
        };
        if let Some(r) = result {
            let dst = inst
                .dst
                .ok_or_else(|| Violation::Other("missing destination".into()))?;
            self.write_scalar(dst, d.info.dst, r)?;
        }
        self.scc = scc;
        Ok(())
    }

    fn target(address: u64) -> Result<u32, Violation> {
        u32::try_from(address)
            .map_err(|_| Violation::BadPc(format!("jump to {address:#x}, outside the code")))
    }

    /// Hardware registers (GCN3 ISA 4.8): MODE and TRAPSTS are modelled, STATUS shows SCC,
    /// EXECZ and VCCZ, the identification registers read 0.
    fn hwreg_read(&self, id: u16) -> Result<u32, Violation> {
        Ok(match id {
            1 => self.mode,
            2 => {
                self.scc as u32
                    | ((self.exec() == 0) as u32) << 9
                    | ((self.vcc() == 0) as u32) << 10
            }
            3 => self.trapsts,
            4..=7 => 0,
            _ => {
                return Err(Violation::Unsupported(format!(
                    "hardware register {id} is not modelled"
                )));
            }
        })
    }

    fn hwreg_write(&mut self, id: u16, value: u32) -> Result<(), Violation> {
        match id {
            1 => self.mode = value,
            3 => self.trapsts = value,
            _ => {
                return Err(Violation::Unsupported(format!(
                    "writing hardware register {id} is not modelled"
                )));
            }
        }
        Ok(())
    }

    // ---- program control ----

    fn sopp(&mut self, d: &Decoded, generation: Gen) -> Result<(), Violation> {
        use Op::*;
        let inst = &d.inst;
        let taken = match inst.op {
            SNop => return Ok(()),
            SEndpgm => {
                // Stores are already in memory; load results nobody waited for are lost.
                self.outstanding.drain();
                self.state = State::Ended;
                return Ok(());
            }
            // The barrier makes the accesses before it visible to the work-group only once
            // they are complete: the code waits for every one of them first (LLVM does
            // on gfx6–gfx9, whose `s_barrier` does not wait by itself).
            SBarrier => {
                if let Some(p) = self.outstanding.oldest() {
                    return Err(Violation::Waitcnt {
                        register: "`s_barrier` (every memory access completes before it)".into(),
                        issued_at: p.pc,
                        issued: "a memory access".into(),
                    });
                }
                self.state = State::Barrier;
                return Ok(());
            }
            SWaitcnt => {
                let (vm, exp, lgkm) = mc::decode_waitcnt(inst.imm as u16, generation);
                for done in self.outstanding.wait(vm, exp, lgkm) {
                    self.deliver(done);
                }
                return Ok(());
            }
            SBranch => true,
            SCbranchScc0 => !self.scc,
            SCbranchScc1 => self.scc,
            SCbranchVccz => self.vcc() == 0,
            SCbranchVccnz => self.vcc() != 0,
            SCbranchExecz => self.exec() == 0,
            SCbranchExecnz => self.exec() != 0,
            other => {
                return Err(Violation::Unsupported(format!(
                    "{} is not a program-control operation",
                    other.info().name
                )));
            }
        };
        if taken {
            // A signed dword offset from the next instruction.
            let target = self.pc as i64 + 4 * inst.imm as i64;
            self.pc = u32::try_from(target)
                .map_err(|_| Violation::BadPc(format!("branch to {target:#x}")))?;
        }
        Ok(())
    }

    /// Writes a completed load's value to its registers.
    fn deliver(&mut self, done: Pending) {
        match done.payload {
            Payload::Scalar { first, values } => {
                for (k, v) in values.into_iter().enumerate() {
                    self.sgpr[first as usize + k] = v;
                }
            }
            Payload::Vector {
                first,
                lanes,
                values,
            } => {
                for (k, lane_values) in values.iter().enumerate() {
                    let reg = &mut self.vgpr[first as usize - 256 + k];
                    for lane in 0..64 {
                        if lanes >> lane & 1 != 0 {
                            reg[lane] = lane_values[lane];
                        }
                    }
                }
            }
            Payload::None => {}
        }
    }

    pub(super) fn complete_or_queue(&mut self, op: Pending, env: &Env) {
        if env.options.check_waitcnt {
            self.outstanding.issue(op);
        } else {
            self.deliver(op);
        }
    }

    // ---- scalar memory ----

    fn smem(
        &mut self,
        d: &Decoded,
        index: u32,
        pc: u32,
        generation: Gen,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let inst = &d.inst;
        let mut pending = Pending::lds(index, pc);
        if d.info.form == Form::SmemLoad {
            let base_op = inst.src[0].ok_or_else(|| Violation::Other("missing sbase".into()))?;
            let dst = inst
                .dst
                .ok_or_else(|| Violation::Other("missing sdata".into()))?;
            let count = d.info.dst as usize;
            Self::sreg_index(dst.0, d.info.dst)?;
            // gfx8/gfx9 SMEM offsets count bytes, gfx6/gfx7 SMRD offsets dwords; an offset
            // register holds bytes on all of them.
            let offset = if let Some(soffset) = inst.src[1] {
                self.read_scalar(soffset, 1, false, false, None, generation)? as u32 as u64
            } else if generation >= Gen::Gfx8 {
                inst.imm as u32 as u64
            } else {
                inst.imm as u32 as u64 * 4
            };
            let mut values = vec![0u32; count];
            if inst.op == Op::SBufferLoadDword {
                // A buffer resource (V#): base [47:0], stride [61:48], num_records in dword 2.
                let b = Self::sreg_index(base_op.0, 4)?;
                let desc = &self.sgpr[b..b + 4];
                let base = desc[0] as u64 | ((desc[1] & 0xffff) as u64) << 32;
                let stride = (desc[1] >> 16 & 0x3fff) as u64;
                let records = desc[2] as u64;
                let limit = if stride == 0 {
                    records
                } else {
                    records * stride
                };
                for (k, v) in values.iter_mut().enumerate() {
                    let off = (offset & !3) + 4 * k as u64;
                    // Out-of-range dwords read 0.
                    if off + 4 <= limit {
                        *v = Self::load_dword(env.memory, base.wrapping_add(off), None)?;
                    }
                }
            } else {
                let base = self.read_scalar(base_op, 2, false, false, None, generation)?;
                // SMEM ignores the two low address bits.
                let address = base.wrapping_add(offset) & !3;
                for (k, v) in values.iter_mut().enumerate() {
                    *v = Self::load_dword(env.memory, address + 4 * k as u64, None)?;
                }
            }
            pending.dst = RegSet::range(dst.0, count as u16);
            pending.payload = Payload::Scalar {
                first: dst.0,
                values,
            };
        }
        self.complete_or_queue(pending, env);
        Ok(())
    }

    fn load_dword(memory: &Memory, address: u64, lane: Option<u32>) -> Result<u32, Violation> {
        let bytes = memory
            .read(address, 4)
            .ok_or_else(|| memory_fault(lane, address, 4))?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    // ---- the LDS unit ----

    /// A lane permute (`lds.rs`): its result, for the active lanes, returns through
    /// LGKM_CNT like an LDS load.
    fn lds(
        &mut self,
        d: &Decoded,
        index: u32,
        pc: u32,
        generation: Gen,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let inst = &d.inst;
        let exec = self.exec();
        let missing = |what: &str| Violation::Other(format!("missing {what}"));
        if matches!(
            d.info.form,
            Form::DsRead | Form::DsRead2 | Form::DsWrite | Form::DsWrite2 | Form::DsAtomic
        ) {
            return self.lds_memory(d, index, pc, generation, env);
        }
        let addr = self.vgpr[Self::vgpr_index(inst.src[0].ok_or_else(|| missing("addr"))?, 1)?];
        let data = match inst.src[1] {
            Some(o) => self.vgpr[Self::vgpr_index(o, 1)?],
            None => [0; 64],
        };
        let dst = inst.dst.ok_or_else(|| missing("vdst"))?;
        Self::vgpr_index(dst, 1)?;
        let values = lds::permute(inst.op, inst.imm as u16, &addr, &data, exec, generation)?;
        let pending = Pending {
            index,
            pc,
            vm: false,
            lgkm: true,
            exp: false,
            dst: RegSet::range(dst.0, 1),
            data: RegSet::EMPTY,
            payload: Payload::Vector {
                first: dst.0,
                lanes: exec,
                values: vec![values],
            },
        };
        self.complete_or_queue(pending, env);
        Ok(())
    }

    /// A VINTRP instruction (`interp.rs`): it reads LDS and writes its VGPR at once, with
    /// no wait counter (the SI ISA's "Parameter interpolation": interpolation is a VALU
    /// operation reading LDS directly).
    fn interp(&mut self, d: &Decoded, pc: u32, env: &mut Env) -> Result<(), Violation> {
        let inst = &d.inst;
        let missing = |what: &str| Violation::Other(format!("missing {what}"));
        let interp = inst.interp.ok_or_else(|| missing("attribute"))?;
        let dst = Self::vgpr_index(inst.dst.ok_or_else(|| missing("vdst"))?, 1)?;
        let src = match inst.src[0] {
            Some(o) => self.vgpr[Self::vgpr_index(o, 1)?],
            None => [0; 64],
        };
        let by = lds::Accessor { wave: env.wave, pc };
        let exec = self.exec();
        self.vgpr[dst] = interp::interpolate(
            env.lds,
            inst.op,
            interp,
            self.sgpr[124],
            &src,
            &self.vgpr[dst],
            exec,
            by,
        )?;
        Ok(())
    }

    /// An export: its channels are read now and recorded with EXEC; the instruction counts
    /// in EXP_CNT, and overwriting a VGPR it reads before `s_waitcnt expcnt` retires it is
    /// a violation (the hardware reads them after issue; SI ISA 4.4).
    fn export(&mut self, d: &Decoded, index: u32, pc: u32, env: &mut Env) -> Result<(), Violation> {
        let exp = d
            .inst
            .export
            .ok_or_else(|| Violation::Other("EXP without its operands".into()))?;
        let mut channels = [None; 4];
        for (channel, src) in channels.iter_mut().zip(exp.src) {
            if let Some(v) = src {
                *channel = Some(self.vgpr[Self::vgpr_index(v, 1)?]);
            }
        }
        self.exports.push(Exported {
            target: exp.target,
            exec: self.exec(),
            channels,
            compr: exp.compr,
            done: exp.done,
            vm: exp.vm,
        });
        let mut pending = Pending::vector_memory(index, pc);
        (pending.vm, pending.exp) = (false, true);
        pending.data = d.reads.vector();
        self.complete_or_queue(pending, env);
        Ok(())
    }

    /// A workgroup-memory load or store (`lds.rs`): a load's result returns through
    /// LGKM_CNT, a store counts in it until done. gfx6–gfx8 bound the addresses by M0 too.
    fn lds_memory(
        &mut self,
        d: &Decoded,
        index: u32,
        pc: u32,
        generation: Gen,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let inst = &d.inst;
        let info = d.info;
        let missing = |what: &str| Violation::Other(format!("missing {what}"));
        let addr = self.vgpr[Self::vgpr_index(inst.src[0].ok_or_else(|| missing("addr"))?, 1)?];
        let mut data = Vec::new();
        for slot in 1..3 {
            if let Some(o) = inst.src[slot] {
                let first = Self::vgpr_index(o, info.src[slot])?;
                data.extend((0..info.src[slot] as usize).map(|k| self.vgpr[first + k]));
            }
        }
        let bound = match generation {
            Gen::Gfx9 => env.lds.size(),
            _ => env.lds.size().min(self.sgpr[124]),
        };
        let by = lds::Accessor { wave: env.wave, pc };
        let exec = self.exec();
        let access = if info.form == Form::DsAtomic {
            lds::atomic
        } else {
            lds::access
        };
        let values = access(
            env.lds,
            inst.op,
            inst.imm as u16,
            &addr,
            &data,
            exec,
            bound,
            by,
        )?;
        let mut pending = Pending::lds(index, pc);
        if let Some(dst) = inst.dst {
            Self::vgpr_index(dst, info.dst)?;
            pending.dst = RegSet::range(dst.0, info.dst as u16);
            pending.payload = Payload::Vector {
                first: dst.0,
                lanes: exec,
                values,
            };
        }
        self.complete_or_queue(pending, env);
        Ok(())
    }

    // ---- vector memory ----

    /// FLAT, GLOBAL and MUBUF `addr64` loads and stores against global memory, EXEC-masked.
    /// The address of a lane is its 64-bit VADDR plus the instruction offset (FLAT: gfx9
    /// only, unsigned; GLOBAL: signed) and, for MUBUF, the buffer resource's base (SI ISA
    /// 8.1.5: ADDR64 adds VADDR to the base; no range check applies to it, as LLVM's own
    /// `addr64` descriptors, with NUM_RECORDS = 0, rely on). Misaligned addresses are
    /// allowed, as the hardware allows them for global memory in the unaligned mode the
    /// HSA runtime sets.
    fn vmem(
        &mut self,
        d: &Decoded,
        index: u32,
        pc: u32,
        generation: Gen,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let inst = &d.inst;
        // The L1 invalidations: no cache is modelled, memory is always coherent.
        if d.info.form == Form::MubufNone {
            return Ok(());
        }
        // Private memory: MUBUF `offen`/`off` through a (swizzled) buffer resource.
        if inst.enc == Enc::Mubuf && inst.mubuf != MubufAddr::Addr64 {
            return self.buffer_access(d, index, pc, generation, env);
        }
        let exec = self.exec();
        let addr_op = inst.src[0].ok_or_else(|| Violation::Other("missing vaddr".into()))?;
        let wide_vaddr = inst.src_widths()[0] == 2;
        let a = Self::vgpr_index(addr_op, if wide_vaddr { 2 } else { 1 })?;
        let atomic = matches!(d.info.form, Form::FlatAtomic | Form::MubufAtomic);
        let store = matches!(d.info.form, Form::FlatStore | Form::MubufStore) || atomic;
        let base = match inst.enc {
            Enc::Flat if generation >= Gen::Gfx9 => inst.imm as u32 as u64,
            Enc::Flat => 0,
            // With an SGPR base (Vega ISA 12.12), the address is the pair plus the
            // zero-extended 32-bit VADDR plus the offset.
            Enc::Global => match inst.saddr() {
                Some(saddr) => {
                    let b = Self::sreg_index(saddr.0, 2)?;
                    let pair = self.sgpr[b] as u64 | (self.sgpr[b + 1] as u64) << 32;
                    pair.wrapping_add(inst.imm as i64 as u64)
                }
                None => inst.imm as i64 as u64,
            },
            _ => {
                let rsrc = inst.src[if store { 2 } else { 1 }]
                    .ok_or_else(|| Violation::Other("missing srsrc".into()))?;
                let b = Self::sreg_index(rsrc.0, 4)?;
                let desc = &self.sgpr[b..b + 4];
                // V# dword 3: DATA_FORMAT [18:15]; 0 (invalid) makes every access
                // out of range on gfx6/gfx7 (SI ISA 8.1.5; Mesa: "BUF_DATA_FORMAT is
                // ignored, but it cannot be BUF_DATA_FORMAT_INVALID" before gfx8), which
                // compiled code never wants.
                if generation < Gen::Gfx8 && desc[3] >> 15 & 0xf == 0 {
                    return Err(Violation::Other(format!(
                        "buffer resource s[{b}:{}] has DATA_FORMAT 0 (invalid)",
                        b + 3
                    )));
                }
                let base = desc[0] as u64 | ((desc[1] & 0xffff) as u64) << 32;
                base.wrapping_add(inst.imm as u64)
            }
        };
        let address = |wave: &Wave, lane: usize| {
            let high = if wide_vaddr {
                wave.vgpr[a + 1][lane]
            } else {
                0
            };
            (wave.vgpr[a][lane] as u64 | (high as u64) << 32).wrapping_add(base)
        };
        let (size, signed) = access_size(inst.op, d.info);
        // A FLAT access waits in LGKM_CNT only for lanes that reach LDS; every FLAT address
        // here is global memory (the LDS aperture is not modelled), so like GLOBAL and MUBUF
        // it counts in VM_CNT alone (waitcnt.rs).
        let mut pending = Pending::vector_memory(index, pc);
        if atomic {
            let data_op = inst.src[1].ok_or_else(|| Violation::Other("missing vdata".into()))?;
            let width = d.info.src[1] as usize;
            let data = Self::vgpr_index(data_op, d.info.src[1])?;
            // The old value's width: half the data for cmpswap (new value, compared value).
            let count = d.info.dst as usize;
            let bytes = 4 * count;
            let dword_pair = |wave: &Wave, first: usize, lane: usize| {
                (0..count).fold(0u64, |v, k| {
                    v | (wave.vgpr[first + k][lane] as u64) << (32 * k)
                })
            };
            let mut values = vec![[0u32; 64]; count];
            // Lanes in ascending order, each read-modify-write whole before the next.
            #[allow(clippy::needless_range_loop)] // `lane` indexes registers and results
            for lane in 0..64 {
                if exec >> lane & 1 == 0 {
                    continue;
                }
                let addr = address(self, lane);
                if !addr.is_multiple_of(bytes as u64) {
                    return Err(Violation::Memory {
                        lane: Some(lane as u32),
                        address: addr,
                        message: format!("a {bytes}-byte atomic must be aligned to {bytes} bytes"),
                    });
                }
                let fault = || memory_fault(Some(lane as u32), addr, bytes);
                let old_bytes = env.memory.read(addr, bytes).ok_or_else(fault)?;
                let old = old_bytes.iter().rev().fold(0u64, |v, &b| v << 8 | b as u64);
                let src = dword_pair(self, data, lane);
                let cmp = if width > count {
                    dword_pair(self, data + count, lane)
                } else {
                    0
                };
                let new = atomics::apply(d.info, old, src, cmp, bytes)?;
                env.memory
                    .write(addr, &new.to_le_bytes()[..bytes])
                    .ok_or_else(fault)?;
                for (k, v) in values.iter_mut().enumerate() {
                    v[lane] = (old >> (32 * k)) as u32;
                }
            }
            // With glc the old values return like a load's data; without, the atomic
            // counts like a store.
            if let Some(dst) = inst.dst {
                let first = Self::vgpr_index(dst, d.info.dst)?;
                pending.dst = RegSet::range(256 + first as u16, count as u16);
                pending.payload = Payload::Vector {
                    first: 256 + first as u16,
                    lanes: exec,
                    values,
                };
            }
            // gfx6 (MUBUF): the atomic holds EXP_CNT until it has read its data VGPRs.
            if generation == Gen::Gfx6 {
                pending.exp = true;
                pending.data = RegSet::range(data_op.0, width as u16);
            }
        } else if !store {
            let dst = inst
                .dst
                .ok_or_else(|| Violation::Other("missing vdst".into()))?;
            let count = d.info.dst as usize;
            let first = Self::vgpr_index(dst, d.info.dst)?;
            let mut values = vec![[0u32; 64]; count];
            #[allow(clippy::needless_range_loop)] // `lane` indexes registers and results
            for lane in 0..64 {
                if exec >> lane & 1 == 0 {
                    continue;
                }
                let addr = address(self, lane);
                let bytes = env
                    .memory
                    .read(addr, size)
                    .ok_or_else(|| memory_fault(Some(lane as u32), addr, size))?;
                match (size, signed) {
                    (1, false) => values[0][lane] = bytes[0] as u32,
                    (1, true) => values[0][lane] = bytes[0] as i8 as i32 as u32,
                    (2, false) => values[0][lane] = u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
                    (2, true) => {
                        values[0][lane] = i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32
                    }
                    _ => {
                        for (k, chunk) in bytes.chunks_exact(4).enumerate() {
                            values[k][lane] =
                                u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                        }
                    }
                }
            }
            pending.dst = RegSet::range(256 + first as u16, count as u16);
            pending.payload = Payload::Vector {
                first: 256 + first as u16,
                lanes: exec,
                values,
            };
        } else {
            let data_op = inst.src[1].ok_or_else(|| Violation::Other("missing vdata".into()))?;
            let width = d.info.src[1];
            let data = Self::vgpr_index(data_op, width)?;
            let mut buf = [0u8; 16];
            for lane in 0..64 {
                if exec >> lane & 1 == 0 {
                    continue;
                }
                for k in 0..width as usize {
                    buf[4 * k..4 * k + 4].copy_from_slice(&self.vgpr[data + k][lane].to_le_bytes());
                }
                let addr = address(self, lane);
                env.memory
                    .write(addr, &buf[..size])
                    .ok_or_else(|| memory_fault(Some(lane as u32), addr, size))?;
            }
            // gfx6: the store holds EXP_CNT until it has read its data VGPRs.
            if generation == Gen::Gfx6 {
                pending.exp = true;
                pending.data = RegSet::range(data_op.0, width as u16);
            }
        }
        self.complete_or_queue(pending, env);
        Ok(())
    }

    // ---- vector ALU ----

    fn valu(&mut self, d: &Decoded, generation: Gen) -> Result<(), Violation> {
        let inst = &d.inst;
        let info = d.info;
        let scalar = |wave: &Wave, i: usize| -> Result<u64, Violation> {
            let o = inst.src[i].unwrap_or(Operand(128));
            // A 16-bit operation reads a float inline constant as an f16 value, which
            // nothing emits and the simulator does not model.
            if info.name.ends_with("16") && (240..=248).contains(&o.0) {
                return Err(Violation::Other(format!(
                    "{}: f16 inline constants are not simulated",
                    info.name
                )));
            }
            wave.read_scalar(
                o,
                info.src[i],
                info.flags >> i & 1 != 0,
                info.name.ends_with("_i64"),
                inst.literal,
                generation,
            )
        };
        match inst.op {
            // The lane-crossing operations ignore EXEC (GCN3 ISA 6.5 / opcode table).
            Op::VReadlaneB32 => {
                let lane = (scalar(self, 1)? & 63) as usize;
                let v = Self::vgpr_index(inst.src[0].unwrap_or(Operand(0)), 1)?;
                let value = self.vgpr[v][lane];
                return self.write_scalar(inst.dst.unwrap_or(Operand(0)), 1, value as u64);
            }
            Op::VReadfirstlaneB32 => {
                let exec = self.exec();
                let lane = if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                let src = inst.src[0].unwrap_or(Operand(0));
                let value = if src.is_vgpr() {
                    self.vgpr[Self::vgpr_index(src, 1)?][lane] as u64
                } else {
                    scalar(self, 0)?
                };
                return self.write_scalar(inst.dst.unwrap_or(Operand(0)), 1, value);
            }
            Op::VWritelaneB32 => {
                let value = scalar(self, 0)? as u32;
                let lane = (scalar(self, 1)? & 63) as usize;
                let v = Self::vgpr_index(inst.dst.unwrap_or(Operand(0)), 1)?;
                self.vgpr[v][lane] = value;
                return Ok(());
            }
            _ => {}
        }
        let mut srcs = [Src::Scalar(0); 3];
        for (i, slot) in srcs.iter_mut().enumerate() {
            let Some(o) = inst.src[i] else { continue };
            *slot = if o.is_vgpr() {
                Src::Vgpr(Self::vgpr_index(o, info.src[i])?, info.src[i])
            } else {
                Src::Scalar(scalar(self, i)?)
            };
        }
        // The lane-mask operand: src2 of a 32-bit-result op with a 64-bit src2 (carry-in,
        // v_cndmask_b32's selector), or VCC for v_div_fmas.
        let mask = if info.src[2] == 2 && info.dst == 1 {
            match srcs[2] {
                Src::Scalar(m) => m,
                Src::Vgpr(..) => {
                    return Err(Violation::Other("a lane mask must be scalar".into()));
                }
            }
        } else if matches!(inst.op, Op::VDivFmasF32 | Op::VDivFmasF64) {
            self.vcc()
        } else {
            0
        };
        let dst = match inst.dst {
            Some(o) => Some(Self::vgpr_index(o, info.dst)?),
            None => None,
        };
        let exec = self.exec();
        let mut sdst_bits = 0u64;
        // Every lane reads its DPP source before any lane writes: the destination may be
        // the source (`v_add_u32_dpp v0, v0, v0 row_shr:1`, a scan step).
        let dpp_column = match (&inst.dpp, srcs[0]) {
            (Some(_), Src::Vgpr(r, _)) => Some(self.vgpr[r]),
            _ => None,
        };
        for lane in 0..64 {
            if exec >> lane & 1 == 0 {
                continue;
            }
            // DPP's src0 comes from another lane, or is 0, or the lane does not write.
            let fetched = match (&inst.dpp, &dpp_column) {
                (Some(d), Some(column)) => match dpp::fetch(d, lane, exec) {
                    Fetch::Lane(from) => Some(column[from] as u64),
                    Fetch::Zero => Some(0),
                    Fetch::NoWrite => {
                        // The manuals say which lanes write the VGPR, not what a lane that
                        // does not writes into a carry-out: the carry-out is undefined
                        // until written again (its bit here 0), an error if read.
                        if let Some(sdst) = inst.sdst {
                            self.left_undefined = RegSet::range(sdst.0, 2);
                        }
                        continue;
                    }
                },
                _ => None,
            };
            let mut input = LaneInputs {
                src: [0; 3],
                dst_old: 0,
                mask_in: mask >> lane & 1 != 0,
                lane: lane as u32,
            };
            for (value, src) in input.src.iter_mut().zip(&srcs) {
                *value = match *src {
                    Src::Scalar(v) => v,
                    Src::Vgpr(r, w) => {
                        let lo = self.vgpr[r][lane] as u64;
                        if w >= 2 {
                            lo | (self.vgpr[r + 1][lane] as u64) << 32
                        } else {
                            lo
                        }
                    }
                };
            }
            if let Some(value) = fetched {
                input.src[0] = value;
            }
            if let Some(r) = dst {
                input.dst_old = self.vgpr[r][lane] as u64;
                if info.dst >= 2 {
                    input.dst_old |= (self.vgpr[r + 1][lane] as u64) << 32;
                }
            }
            let out = valu::exec(inst, generation, &input).map_err(|e| {
                Violation::Unsupported(format!("{}: {e}", info.mnemonic(generation)))
            })?;
            if let Some(r) = dst {
                self.vgpr[r][lane] = out.dst as u32;
                if info.dst >= 2 {
                    self.vgpr[r + 1][lane] = (out.dst >> 32) as u32;
                }
            }
            sdst_bits |= (out.sdst as u64) << lane;
        }
        // Compare results and carries are 0 in inactive lanes.
        if let Some(s) = inst.sdst {
            self.write_scalar(s, 2, sdst_bits)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_field_extract() {
        assert_eq!(bfe(0xabcd_1234, 32, 8, 8, false), 0x12);
        assert_eq!(bfe(0x0000_8000, 32, 12, 4, true), 0xffff_fff8);
        assert_eq!(bfe(0x0000_8000, 32, 12, 5, true), 0x8);
        assert_eq!(bfe(0xffff_ffff, 32, 0, 0, false), 0);
        assert_eq!(bfe(0x8000_0000, 32, 4, 40, true), 0xf800_0000);
        assert_eq!(bfe(0x8000_0000, 32, 4, 40, false), 0x0800_0000);
        assert_eq!(bfe(0xf000_0000_0000_0000, 64, 60, 3, true), !0u64);
    }

    #[test]
    fn register_names() {
        assert_eq!(reg_name(4, 2), "s[4:5]");
        assert_eq!(reg_name(106, 2), "vcc");
        assert_eq!(reg_name(257, 1), "v1");
        assert_eq!(reg_name(258, 4), "v[2:5]");
    }
}

#[cfg(test)]
#[path = "wave_tests.rs"]
mod salu_tests;
