//! One warp: 32 threads' registers, the program counter, the running path's thread mask,
//! the per-thread states (active, broke out of a loop, returned, exited) and the
//! reconvergence stack, with the model of `docs/nv50.md` ("Control flow and
//! reconvergence"); operand reads, memory accesses and result writes.

use std::collections::BTreeSet;

use super::alu::{self, Out};
use super::graphics::Stage;
use super::program::Program;
use crate::isa::nv50::mc::{McInst, Mods, Op, Operand, SReg, Ty};
use crate::isa::nv50::regs::FIRST_CALLEE_SAVED_GPR;
use crate::sim::races::{Accessor, RaceCheck};
use crate::sim::{Memory, Options, SimError, Violation};

/// Threads of a warp.
pub(crate) const WARP_THREADS: usize = 32;
/// Entries of the control-flow stack (what nouveau allocates per warp: `docs/nv50.md`).
pub(crate) const STACK_ENTRIES: usize = 64;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// The other side of a divergent `bra`.
    Branch,
    /// `joinat`: the reconvergence point of a divergent region.
    Joinat,
    /// `breakaddr`: where the threads that `break` continue.
    Prebreak,
    /// `call`: the return address.
    Call,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    kind: Kind,
    pc: u32,
    mask: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    /// Stopped after a `bar` that waits, until every warp of the block has arrived.
    Barrier,
    Done,
}

/// What a warp runs against: global memory, its block's `s[]` and the `s[]` words its
/// warps have locked (`ld lock`), the options.
pub(crate) struct Env<'a> {
    pub memory: &'a mut Memory,
    pub shared: &'a mut [u8],
    /// The record of the block's `s[]` accesses, for the race check between its warps.
    pub races: &'a mut RaceCheck,
    pub locked: &'a mut BTreeSet<u32>,
    /// Bytes of `l[]` per thread: what the compiled code reports (`Nv50Info::local_size`).
    pub local_size: usize,
    pub options: &'a Options,
    /// A vertex or fragment program's `a[]`/`o[]` or `v[]` (`None` for compute).
    pub stage: Option<&'a mut Stage>,
}

pub(crate) struct Warp {
    /// `$r0`–`$r127`, each for 32 threads.
    pub r: Vec<[u32; WARP_THREADS]>,
    /// `$c0`–`$c3`: Z, S, C, O in bits 0–3.
    pub c: [[u8; WARP_THREADS]; 4],
    /// `$a0`–`$a7` (`$a0` stays 0).
    pub a: [[u16; WARP_THREADS]; 8],
    local: Vec<Vec<u8>>,
    pub pc: u32,
    /// The running path's threads.
    pub active: u32,
    pub exited: u32,
    /// The threads a fragment program's `discard` ended (also in `exited`).
    pub discarded: u32,
    broke: u32,
    returned: u32,
    stack: Vec<Entry>,
    /// For each call entry of the stack, the callee-saved registers (`$r16` up) at the
    /// `call`, which must come back (`docs/ir.md`, "Calls").
    saved: Vec<Vec<[u32; WARP_THREADS]>>,
    pub state: State,
    /// The `join` of the next instruction was done by the stack pop that resumed it.
    join_done: bool,
    /// A `ret` with no `call` entry ends its threads (a device function started as if
    /// called) rather than being an error.
    pub ret_ends_thread: bool,
    pub steps: u64,
    /// The `s[]` word this warp has locked (`ld lock`), at most one.
    pub lock: Option<u32>,
    /// The warp's index in its block: the warp field of `$physid` (bits 8–15) and its
    /// name in the race check.
    pub id: u32,
    /// The address of the instruction being executed.
    inst_pc: u32,
}

/// The word at byte `address` of `c{space}[]`: a graphics program's user data is `c0[]`
/// (`docs/ir.md`, "Shader stages"); no other constant buffer is simulated.
fn const_word(env: &Env, space: u8, address: u32, t: usize) -> Result<u32, Violation> {
    let user_data = match env.stage.as_deref() {
        Some(Stage::Fragment(f)) => Some(&f.user_data),
        Some(Stage::Vertex(v)) => Some(&v.user_data),
        None => None,
    };
    user_data
        .filter(|_| space == 0)
        .and_then(|words| words.get(address as usize / 4))
        .copied()
        .ok_or_else(|| Violation::Memory {
            lane: Some(t as u32),
            address: address as u64,
            message: format!(
                "c{space}[{address:#x}] is not bound (only a graphics program's user data, c0[], \
                 is simulated)"
            ),
        })
}

fn fail(message: impl Into<String>) -> Violation {
    Violation::Other(message.into())
}

impl Warp {
    /// A warp whose threads in `mask` start at `pc`.
    pub fn new(mask: u32, pc: u32) -> Warp {
        Warp {
            r: vec![[0; WARP_THREADS]; 128],
            c: [[0; WARP_THREADS]; 4],
            a: [[0; WARP_THREADS]; 8],
            local: vec![Vec::new(); WARP_THREADS],
            pc,
            active: mask,
            exited: 0,
            discarded: 0,
            broke: 0,
            returned: 0,
            stack: Vec::new(),
            saved: Vec::new(),
            state: if mask == 0 {
                State::Done
            } else {
                State::Running
            },
            join_done: false,
            ret_ends_thread: false,
            steps: 0,
            lock: None,
            id: 0,
            inst_pc: pc,
        }
    }

    /// Threads that left the running paths: through `exit`, `break` or `ret`.
    fn left(&self) -> u32 {
        self.exited | self.broke | self.returned
    }

    /// Runs until the warp ends or waits at a barrier.
    pub fn run(&mut self, program: &mut Program, env: &mut Env) -> Result<(), SimError> {
        while self.state == State::Running {
            self.run_one(program, env)?;
        }
        Ok(())
    }

    /// Executes the next instruction.
    pub fn run_one(&mut self, program: &mut Program, env: &mut Env) -> Result<(), SimError> {
        let pc = self.pc;
        let (inst, words) = program.fetch(pc)?;
        self.steps += 1;
        if self.steps > env.options.max_steps {
            return Err(program.error(pc, Violation::StepLimit));
        }
        self.inst_pc = pc;
        // Waiting for another warp's lock: the instruction runs in a later round.
        if self.waits_for_lock(&inst, env) {
            return Ok(());
        }
        self.step(&inst, pc + 4 * words as u32, env)
            .map_err(|v| program.error(pc, v))?;
        if self.state == State::Done
            && let Some(word) = self.lock
        {
            return Err(program.error(
                pc,
                Violation::Memory {
                    lane: None,
                    address: word as u64,
                    message: "the warp ends holding the lock of this s[] word (`ld lock` \
                              without `st unlock`): the other warps would wait for it forever"
                        .into(),
                },
            ));
        }
        Ok(())
    }

    /// This warp as the race check names it.
    pub(super) fn accessor(&self) -> Accessor {
        Accessor {
            wave: self.id,
            pc: self.inst_pc,
        }
    }

    fn push(&mut self, kind: Kind, pc: u32, mask: u32) -> Result<(), Violation> {
        if self.stack.len() == STACK_ENTRIES {
            return Err(fail(format!(
                "control-flow stack overflow (more than {STACK_ENTRIES} entries): a \
                 divergent branch that never reconverges?"
            )));
        }
        self.stack.push(Entry { kind, pc, mask });
        Ok(())
    }

    /// The running path has no thread left: pop entries until one yields threads, or end
    /// the warp when the stack is empty. A call entry's threads come back with their
    /// callee-saved registers as they were, or it is a violation.
    fn resume(&mut self) -> Result<(), Violation> {
        while let Some(e) = self.stack.pop() {
            let mask = match e.kind {
                Kind::Branch => e.mask & !self.left(),
                Kind::Joinat => {
                    self.join_done = true;
                    e.mask & !self.left()
                }
                Kind::Prebreak => {
                    self.broke &= !e.mask;
                    e.mask & !self.left()
                }
                Kind::Call => {
                    self.returned &= !e.mask;
                    let mask = e.mask & !self.left();
                    self.check_saved(mask)?;
                    mask
                }
            };
            if mask != 0 {
                self.active = mask;
                self.pc = e.pc;
                return Ok(());
            }
            self.join_done = false;
        }
        self.active = 0;
        self.state = State::Done;
        Ok(())
    }

    /// Compares the callee-saved registers of the threads in `mask`, back from a call, with
    /// their values at the `call`.
    fn check_saved(&mut self, mask: u32) -> Result<(), Violation> {
        let Some(before) = self.saved.pop() else {
            return Err(fail("a call entry without its saved registers"));
        };
        for (k, regs) in before.iter().enumerate() {
            let r = FIRST_CALLEE_SAVED_GPR as usize + k;
            for t in lanes(mask) {
                if self.r[r][t] != regs[t] {
                    return Err(fail(format!(
                        "a callee changed `$r{r}` of thread {t} ({:#x} at the `call`, {:#x}                          after it): a call keeps `$r16` and up (docs/ir.md, \"Calls\")",
                        regs[t], self.r[r][t]
                    )));
                }
            }
        }
        Ok(())
    }

    /// The `join` bit: switch to a pending path of this region, or reconverge. Returns
    /// whether the instruction still executes (with the reconverged threads).
    fn join(&mut self) -> Result<bool, Violation> {
        loop {
            let Some(e) = self.stack.pop() else {
                return Err(fail("`join` with no `joinat` entry on the stack"));
            };
            let mask = e.mask & !self.left();
            match e.kind {
                Kind::Branch if mask != 0 => {
                    self.active = mask;
                    self.pc = e.pc;
                    return Ok(false);
                }
                Kind::Branch => {}
                Kind::Joinat if mask != 0 => {
                    self.active = mask;
                    return Ok(true);
                }
                Kind::Joinat => {
                    self.active = 0;
                    self.resume()?;
                    return Ok(false);
                }
                kind => {
                    return Err(fail(format!(
                        "`join` finds a {kind:?} entry where its `joinat` should be"
                    )));
                }
            }
        }
    }

    fn has_entry(&self, kind: Kind) -> bool {
        self.stack.iter().any(|e| e.kind == kind)
    }

    /// The threads of the running path where the instruction's predicate holds.
    pub(super) fn predicated(&self, inst: &McInst) -> u32 {
        let Some(pred) = inst.pred else {
            return self.active;
        };
        let mut mask = 0;
        for t in 0..WARP_THREADS {
            if self.active >> t & 1 == 1
                && alu::cond_holds(pred.cond, self.c[pred.reg as usize & 3][t])
            {
                mask |= 1 << t;
            }
        }
        mask
    }

    fn step(&mut self, inst: &McInst, next: u32, env: &mut Env) -> Result<(), Violation> {
        if inst.join && !self.join_done && !self.join()? {
            return Ok(());
        }
        self.join_done = false;
        let target = match inst.src[0] {
            Some(Operand::Target(t)) => t,
            _ => 0,
        };
        let mask = self.predicated(inst);
        self.pc = next;
        match inst.op {
            Op::Bra => {
                if mask == self.active {
                    self.pc = target;
                } else if mask != 0 {
                    self.push(Kind::Branch, next, self.active & !mask)?;
                    self.active = mask;
                    self.pc = target;
                }
            }
            Op::Call => {
                self.push(Kind::Call, next, self.active)?;
                self.saved
                    .push(self.r[FIRST_CALLEE_SAVED_GPR as usize..].to_vec());
                self.pc = target;
            }
            Op::Ret => {
                if self.has_entry(Kind::Call) {
                    self.returned |= mask;
                } else if self.ret_ends_thread {
                    self.exited |= mask;
                } else {
                    return Err(fail("`ret` with no `call` entry on the stack"));
                }
                self.active &= !mask;
            }
            Op::Breakaddr => self.push(Kind::Prebreak, target, self.active)?,
            Op::Break => {
                if !self.has_entry(Kind::Prebreak) {
                    return Err(fail("`break` with no `breakaddr` entry on the stack"));
                }
                self.broke |= mask;
                self.active &= !mask;
            }
            Op::Joinat => self.push(Kind::Joinat, target, self.active)?,
            Op::Bar => {
                if inst.mods.contains(Mods::WAIT) {
                    self.state = State::Barrier;
                }
            }
            Op::Trap => return Err(fail("`trap`")),
            // The threads end as at `exit`, without results.
            Op::Kill => {
                self.discarded |= mask;
                self.exited |= mask;
                self.active &= !mask;
            }
            Op::Nop => {}
            Op::Ld if inst.mods.contains(Mods::LOCK) => self.lock_load(inst, mask, env)?,
            Op::St if matches!(inst.dst, Some(Operand::Out { .. })) => {
                for t in lanes(mask) {
                    let Some(src) = inst.src[0] else {
                        return Err(fail("`st` without its data"));
                    };
                    let v = self.read(src, t, env)?;
                    self.write_result(inst.dst.expect("matched above"), t, v, env)?;
                }
            }
            Op::Ld | Op::St => {
                for t in lanes(mask) {
                    self.memory_op(inst, t, env)?;
                }
            }
            Op::Atomic(op) | Op::Red(op) => {
                for t in lanes(mask) {
                    self.atomic(inst, op, t, env)?;
                }
            }
            Op::VoteAny | Op::VoteAll => self.vote(inst, mask)?,
            Op::Interp => {
                for t in lanes(mask) {
                    self.interp(inst, t, env)?;
                }
            }
            _ => {
                for t in lanes(mask) {
                    let mut s = [0u64; 4];
                    for (k, src) in inst.src.iter().enumerate() {
                        if let Some(op) = *src {
                            s[k] = self.read(op, t, env)?;
                        }
                    }
                    let Out { value, flags } =
                        alu::exec(inst, &s).map_err(Violation::Unsupported)?;
                    if let Some(dst) = inst.dst {
                        self.write_result(dst, t, value, env)?;
                    }
                    if let Some(c) = inst.cdst {
                        self.c[c as usize & 3][t] = flags;
                    }
                }
            }
        }
        if inst.exit {
            self.exited |= self.active;
            self.active = 0;
        }
        if self.active == 0 && self.state != State::Done {
            let barrier = self.state == State::Barrier;
            self.resume()?;
            if barrier && self.state == State::Running {
                self.state = State::Barrier;
            }
        }
        Ok(())
    }

    /// A source operand's value in thread `t` (a `$c` as its flags).
    pub(super) fn read(&self, op: Operand, t: usize, env: &mut Env) -> Result<u64, Violation> {
        Ok(match op {
            Operand::R(n) => self.r[n as usize][t] as u64,
            Operand::H { reg, hi } => {
                (self.r[reg as usize][t] >> if hi { 16 } else { 0 } & 0xffff) as u64
            }
            Operand::D(n) => {
                self.r[n as usize][t] as u64 | (self.r[n as usize + 1][t] as u64) << 32
            }
            Operand::Imm(v) => v as u64,
            Operand::C(n) => self.c[n as usize & 3][t] as u64,
            Operand::A(n) => self.a[n as usize & 7][t] as u64,
            // `isa.rst`, `$physid`: the thread in bits 0–7, the warp in 8–15 (the simulator
            // numbers a block's warps from 0, as if it ran alone on its MP).
            Operand::SReg(SReg::Physid) => (t as u32 | self.id << 8) as u64,
            Operand::SReg(SReg::Clock) => self.steps & 0xffff_ffff,
            Operand::SReg(_) => 0,
            Operand::Shared { ty, areg, offset } => {
                let address = self.a[areg as usize & 7][t] as u32 + offset;
                let range = shared_range(env.shared.len(), address, ty.bytes(), t)?;
                env.races
                    .read(address, ty.bytes() as usize, self.accessor())?;
                let v = le(&env.shared[range]);
                match ty {
                    Ty::S16 => v as u16 as i16 as i32 as u32 as u64,
                    _ => v,
                }
            }
            Operand::Const {
                space,
                areg,
                offset,
            } => {
                let address = self.a[areg as usize & 7][t] as u32 + offset;
                const_word(env, space, address, t)? as u64
            }
            Operand::Attr { offset } => match env.stage.as_deref() {
                Some(Stage::Vertex(v)) => v.attr(offset, t).map_err(fail)? as u64,
                _ => return Err(fail("a[] outside a vertex program")),
            },
            other => {
                return Err(fail(format!(
                    "{other:?} is not a source the simulator reads"
                )));
            }
        })
    }

    /// Writes an instruction's result: a register, or a vertex program's `o[]` word.
    fn write_result(
        &mut self,
        dst: Operand,
        t: usize,
        v: u64,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let Operand::Out { areg, offset } = dst else {
            return self.write(dst, t, v);
        };
        let offset = self.a[areg as usize & 7][t] as u32 + offset;
        match env.stage.as_deref_mut() {
            Some(Stage::Vertex(vs)) => vs.write(offset, t, v as u32).map_err(fail),
            _ => Err(fail("o[] outside a vertex program")),
        }
    }

    /// `interp` in thread `t` (`docs/nv50.md`, "Graphics stages").
    fn interp(&mut self, inst: &McInst, t: usize, env: &mut Env) -> Result<(), Violation> {
        let (Some(Operand::Varying { areg, offset }), Some(dst)) = (inst.src[0], inst.dst) else {
            return Err(fail("`interp` without its operands"));
        };
        let times = match inst.src[1] {
            Some(src) => {
                let w = self.read(src, t, env)? as u32;
                Some(if inst.mods.contains(Mods::NEG1) {
                    w ^ 0x8000_0000
                } else {
                    w
                })
            }
            None => None,
        };
        let offset = self.a[areg as usize & 7][t] as u32 + offset;
        let Some(Stage::Fragment(f)) = env.stage.as_deref() else {
            return Err(fail("`interp` outside a fragment program"));
        };
        let v = f
            .interp(
                offset,
                t,
                inst.mods.contains(Mods::CENT),
                inst.mods.contains(Mods::FLAT),
                times,
            )
            .map_err(fail)?;
        self.write(dst, t, v as u64)
    }

    pub(super) fn write(&mut self, dst: Operand, t: usize, v: u64) -> Result<(), Violation> {
        match dst {
            Operand::R(n) => self.r[n as usize][t] = v as u32,
            Operand::H { reg, hi } => {
                let r = &mut self.r[reg as usize][t];
                let shift = if hi { 16 } else { 0 };
                *r = (*r & !(0xffff << shift)) | (v as u32 & 0xffff) << shift;
            }
            Operand::D(n) => {
                self.r[n as usize][t] = v as u32;
                self.r[n as usize + 1][t] = (v >> 32) as u32;
            }
            Operand::Discard => {}
            Operand::C(n) => self.c[n as usize & 3][t] = v as u8 & 0xf,
            Operand::A(n) => {
                if n != 0 {
                    self.a[n as usize & 7][t] = v as u16;
                }
            }
            other => return Err(fail(format!("{other:?} is not a destination"))),
        }
        Ok(())
    }

    /// The byte address of thread `t`'s `size`-byte access to `g{space}[$r{addr}]`: only
    /// `g15[]` is bound, and accesses are naturally aligned.
    pub(super) fn global_address(
        &self,
        space: u8,
        addr: u8,
        size: usize,
        t: usize,
    ) -> Result<u64, Violation> {
        let address = self.r[addr as usize][t] as u64;
        let fault = |message: String| Violation::Memory {
            lane: Some(t as u32),
            address,
            message,
        };
        if space != 15 {
            return Err(fault(format!(
                "g{space}[] is not bound (only g15[], the first 4 GiB, is)"
            )));
        }
        if !address.is_multiple_of(size as u64) {
            return Err(fault(format!("misaligned {size}-byte access")));
        }
        Ok(address)
    }

    /// `ld` and `st` in thread `t`.
    fn memory_op(&mut self, inst: &McInst, t: usize, env: &mut Env) -> Result<(), Violation> {
        let store = inst.op == Op::St;
        let (mem, reg) = if store {
            (inst.dst, inst.src[0])
        } else {
            (inst.src[0], inst.dst)
        };
        let (Some(mem), Some(reg)) = (mem, reg) else {
            return Err(fail("a memory instruction without its operands"));
        };
        let (ty, size) = match (mem, inst.ty) {
            (Operand::Shared { ty, .. }, _) => (ty, ty.bytes() as usize),
            (_, Some(ty)) => (ty, ty.bytes() as usize),
            _ => return Err(fail("a memory access without a type")),
        };
        let data = if store {
            let mut bytes = Vec::with_capacity(16);
            for k in 0..size.div_ceil(4) {
                let w = match reg {
                    Operand::D(n) | Operand::Q(n) => self.r[n as usize + k][t],
                    other => self.read(other, t, env)? as u32,
                };
                bytes.extend(w.to_le_bytes());
            }
            bytes.truncate(size);
            Some(bytes)
        } else {
            None
        };
        let loaded: Vec<u8> = match mem {
            Operand::Global { space, addr } => {
                let address = self.global_address(space, addr, size, t)?;
                let fault = |message: String| Violation::Memory {
                    lane: Some(t as u32),
                    address,
                    message,
                };
                match &data {
                    Some(bytes) => {
                        env.memory
                            .write(address, bytes)
                            .ok_or_else(|| fault("outside every allocated region".into()))?;
                        Vec::new()
                    }
                    None => env
                        .memory
                        .read(address, size)
                        .ok_or_else(|| fault("outside every allocated region".into()))?
                        .to_vec(),
                }
            }
            Operand::Shared { areg, offset, .. } => {
                let address = self.a[areg as usize & 7][t] as u32 + offset;
                let range = shared_range(env.shared.len(), address, size as u32, t)?;
                // A locked word is the lock's to order (`ld lock` .. `st unlock`).
                let unlock = inst.mods.contains(Mods::UNLOCK);
                match (&data, unlock) {
                    (Some(_), false) => env.races.write(address, size, self.accessor())?,
                    (None, _) => env.races.read(address, size, self.accessor())?,
                    (Some(_), true) => {}
                }
                let cell = &mut env.shared[range];
                match &data {
                    Some(bytes) => {
                        cell.copy_from_slice(bytes);
                        if unlock {
                            self.unlock(address, env)?;
                        }
                        Vec::new()
                    }
                    None => cell.to_vec(),
                }
            }
            Operand::Local { areg, offset } => {
                let address = self.a[areg as usize & 7][t] as usize + offset as usize;
                let local_size = env.local_size;
                if address + size > local_size || !address.is_multiple_of(size) {
                    return Err(Violation::Memory {
                        lane: Some(t as u32),
                        address: address as u64,
                        message: format!(
                            "l[] access of {size} bytes outside the {local_size} bytes per \
                             thread the code reports, or misaligned"
                        ),
                    });
                }
                let local = &mut self.local[t];
                if local.len() < local_size {
                    local.resize(local_size, 0);
                }
                let cell = &mut local[address..address + size];
                match &data {
                    Some(bytes) => {
                        cell.copy_from_slice(bytes);
                        Vec::new()
                    }
                    None => cell.to_vec(),
                }
            }
            Operand::Const {
                space,
                areg,
                offset,
            } if data.is_none() => {
                let address = self.a[areg as usize & 7][t] as u32 + offset;
                let mut bytes = Vec::new();
                for k in (0..size as u32).step_by(4) {
                    bytes.extend(const_word(env, space, address + k, t)?.to_le_bytes());
                }
                bytes.truncate(size);
                bytes
            }
            other => return Err(fail(format!("{other:?} is not a memory operand"))),
        };
        if store {
            return Ok(());
        }
        match reg {
            Operand::D(n) | Operand::Q(n) => {
                for (k, w) in loaded.chunks(4).enumerate() {
                    self.r[n as usize + k][t] = le(w) as u32;
                }
            }
            _ => {
                let v = le(&loaded);
                let v = match ty {
                    Ty::S8 => v as u8 as i8 as i32 as u32,
                    Ty::S16 => v as u16 as i16 as i32 as u32,
                    _ => v as u32,
                };
                self.write(reg, t, v as u64)?;
            }
        }
        Ok(())
    }
}

/// The threads of `mask`.
pub(super) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_THREADS).filter(move |t| mask >> t & 1 == 1)
}

pub(super) fn le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, &b| acc << 8 | b as u64)
}

/// Where the `size` bytes of `s[]` at `address` are (naturally aligned, inside the
/// block's `len` bytes).
pub(super) fn shared_range(
    len: usize,
    address: u32,
    size: u32,
    t: usize,
) -> Result<std::ops::Range<usize>, Violation> {
    let (a, n) = (address as usize, size as usize);
    if a + n > len || !a.is_multiple_of(n) {
        return Err(Violation::Memory {
            lane: Some(t as u32),
            address: address as u64,
            message: format!(
                "s[] access of {size} bytes outside the block's {len} bytes, or misaligned"
            ),
        });
    }
    Ok(a..a + n)
}
