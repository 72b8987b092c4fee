//! Register allocation for every target: the driver ([`run`]) and the regalloc2 adapter
//! under it.
//!
//! A target describes each of its register files ([`RegisterFile`]: the registers the
//! allocator may hand out, the alignment of each class, the special registers it offers
//! besides, and where values spill). regalloc2 runs once per file; inside a file its three
//! register classes stand for widths (`Int` one register, `Float` a pair, `Vector` a quad),
//! and the driver partitions the file among them from the function's measured demand
//! ([`pressure`]), so no width holds registers another needs. When the allocator asks for
//! more, the class grows and allocation runs again; when no class can grow, values spill as
//! the file's [`Spill`] says. Running out is [`AllocError::Exhausted`], a value the target
//! matches to retry with other policies or to word its error; a file that spills to memory
//! never runs out (only an operand the allocator would leave in memory cannot be placed).

use super::{MachInst, OperandKind, Reg, RegClass, RegFile, VCode, class_width};
use regalloc2::{
    Allocation, Block, Edit, Function, Inst, InstRange, MachineEnv, Operand, OperandConstraint,
    OperandPos, PReg, PRegSet, ProgPoint, RegallocOptions, VReg,
};
use std::fmt;

/// regalloc2 offers at most 63 registers per class (index 63 of `Int` is its invalid
/// marker).
const MAX_PER_CLASS: usize = 63;

/// One register file of a target, as the allocation driver ([`run`]) sees it.
#[derive(Clone, Debug)]
pub struct RegisterFile {
    pub file: RegFile,
    /// The allocator hands out registers `first..limit`; the ones below `first` are
    /// reserved (the target names them as real registers: its ABI's inputs, lane masks).
    /// Fixed-register constraints naming a register of this range are met by singles: the
    /// partition's `Int` registers reach past the highest such register.
    pub first: u16,
    pub limit: u16,
    /// The alignment, in registers, of each class (indexed by [`RegClass`]); a class's
    /// width is [`class_width`]. GCN: `[1, 2, 4]` (aligned pairs and quads).
    pub alignment: [u16; 3],
    /// Registers outside `first..limit` offered too, with whether the allocator may choose
    /// them (GCN's VCC pair: lane masks and carries prefer it) or only fixed constraints and
    /// clobbers name them.
    pub special: Vec<(Reg, bool)>,
    /// Where values go when the registers of the partition run out.
    pub spill: Spill,
}

/// Where the allocator puts a value it cannot keep in the registers of its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spill {
    /// Into the file's own registers above the partition (up to `limit`): regalloc2's spill
    /// slots become registers, a spill a register move (GCN's SGPRs and VGPRs).
    SpareRegisters,
    /// Into registers of another file `file`, which is allocated first (it comes earlier in
    /// the list given to [`run`]): the spill slots become registers of that file above all
    /// it uses and below `limit` (which may lie above that file's own range: registers kept
    /// out of its allocation for these), a spill or reload a move between the files
    /// (NV50's four `$c` flag registers spill into `$r`: `mov $r $c`, `mov $c $r`). Such a
    /// file holds singles only, all its registers in one class (it has too few to
    /// partition), and has no moves of its own: a move between two of its registers goes
    /// through one more register of the other file (`$c` to `$r` to `$c`). The slots start
    /// at `from` or above: the ones below may not hold a value across every instruction
    /// (NV50's calls clobber `$r0`–`$r15`).
    IntoFile {
        file: RegFile,
        from: u16,
        limit: u16,
    },
    /// Into the file's spare registers above the partition as [`Spill::SpareRegisters`]
    /// while they last, then into memory slots: the target's [`Moves::memory`] makes each
    /// spill and reload, naming the slot by its index among the memory slots of the file
    /// (in registers: a pair takes two, a quad four, each aligned to its width), and places
    /// the slots after allocation (GCN: SGPRs into lanes of a VGPR, VGPRs into scratch).
    /// The spare registers start at `spare_from` or above: the ones below may not hold a
    /// value across every instruction (GCN's calls clobber v0–v31 and every SGPR,
    /// `docs/ir.md`); with `spare_from` at the file's limit, values spill straight to
    /// memory.
    Memory { spare_from: u16 },
}

/// The instructions the allocator inserts.
pub struct Moves<I> {
    /// A move between two registers (of one file, or of a file and the one it spills into).
    pub between: fn(Reg, Reg) -> I,
    /// For files that spill to memory: the spill and reload instructions.
    pub memory: Option<MemoryMoves<I>>,
}

/// A spill of a register into a memory slot (`spill(slot, src)`) and its reload
/// (`reload(dst, slot)`).
pub struct MemoryMoves<I> {
    pub spill: fn(u32, Reg) -> I,
    pub reload: fn(Reg, u32) -> I,
}

impl<I> Clone for MemoryMoves<I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I> Copy for MemoryMoves<I> {}

impl<I> Clone for Moves<I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I> Copy for Moves<I> {}

impl RegisterFile {
    /// Partitions `first..limit` among singles, pairs and quads for the given demand
    /// (registers per class). Singles come first, so that the fixed registers of an ABI (v0,
    /// v1, … for arguments and work-item ids) are singles; quads, then pairs, follow, each
    /// aligned. `None` when the demand does not fit.
    fn partition(&self, demand: [usize; 3], min_singles: usize) -> Option<FileEnv> {
        let counts = [demand[0].max(min_singles), demand[1], demand[2]];
        if counts.iter().any(|&n| n > MAX_PER_CLASS) {
            return None;
        }
        // The wide classes, widest first, start at the first register after the singles
        // aligned for the widest in use; the alignment gap goes to the singles, where it
        // costs nothing.
        let wide = [RegClass::Vector, RegClass::Float];
        let alignment = wide
            .iter()
            .filter(|&&c| counts[c as usize] > 0)
            .map(|&c| self.alignment[c as usize])
            .max()
            .unwrap_or(1);
        let wide_start = (self.first + counts[0] as u16).div_ceil(alignment) * alignment;
        let singles = ((wide_start - self.first) as usize).min(MAX_PER_CLASS);
        let mut classes: [Vec<(u16, bool)>; 3] = Default::default();
        classes[RegClass::Int as usize] = (0..singles as u16)
            .map(|i| (self.first + i, true))
            .collect();
        let mut next = wide_start;
        for class in wide {
            let count = counts[class as usize] as u16;
            if count == 0 {
                continue;
            }
            let (align, width) = (self.alignment[class as usize], class_width(class));
            let start = next.div_ceil(align) * align;
            classes[class as usize] = (0..count).map(|i| (start + width * i, true)).collect();
            next = start + width * count;
        }
        if next > self.limit {
            return None;
        }
        for &(reg, allocatable) in &self.special {
            if let Reg::Real { class, hw, .. } = reg {
                classes[class as usize].push((hw, allocatable));
            }
        }
        if classes.iter().any(|c| c.len() > MAX_PER_CLASS) {
            return None;
        }
        Some(FileEnv {
            file: self.file,
            classes,
            limit: self.limit,
            spill: self.spill,
            whole: next == self.limit && wide_start == self.limit,
        })
    }

    /// How many registers of the range the function's fixed-register constraints reach:
    /// the partition's singles must cover them.
    fn fixed_singles<I: MachInst>(&self, vcode: &VCode<I>) -> usize {
        let mut singles = 0;
        for inst in &vcode.insts {
            inst.clone().visit_operands(&mut |_, kind| {
                if let OperandKind::DefFixed(r) | OperandKind::UseFixed(r) = kind
                    && r.file() == self.file
                    && (self.first..self.limit).contains(&r.hw())
                {
                    singles = singles.max((r.hw() - self.first) as usize + 1);
                }
            });
        }
        singles
    }
}

/// Allocates registers in every file of `files` (a target's description of each) and
/// rewrites the instructions, with `moves` making the allocator's moves
/// ([`MachInst::gen_move`], or a divergence strategy's own: the whole-wave moves of
/// linearized code).
///
/// Each file is partitioned among the classes from the measured demand ([`pressure`]);
/// while the allocator wants more registers of a file, its classes grow (by a quarter) and
/// allocation runs again. When they cannot grow (a class holds at most 63 registers, the
/// file ends, or 16 attempts passed), the measured partition is tried once more with spills
/// placed as each file's [`Spill`] says, then the grown ones in turn: the measure can fall
/// short in a class that needs no spill slots (an expansion's early defs live alongside its
/// operands: an f64 `fdiv` needs seven pairs at once) while the class that does could not
/// grow. The smallest partition leaves the most room for spill slots.
pub fn run<I: MachInst>(
    vcode: &VCode<I>,
    files: &[RegisterFile],
    moves: Moves<I>,
) -> Result<Allocated<I>, AllocError> {
    if files
        .iter()
        .any(|f| matches!(f.spill, Spill::Memory { .. }))
        && moves.memory.is_none()
    {
        return Err(AllocError::Internal(
            "a file spills to memory but no spill instructions were given".into(),
        ));
    }
    let mut demand = Vec::with_capacity(files.len());
    for f in files {
        let measured = pressure(vcode, f.file);
        demand.push(match f.spill {
            Spill::IntoFile { .. } if measured[1] > 0 || measured[2] > 0 => {
                return Err(AllocError::Internal(format!(
                    "file {} spills into another file but has values wider than one register",
                    f.file
                )));
            }
            _ => measured,
        });
    }
    let min_singles: Vec<usize> = files.iter().map(|f| f.fixed_singles(vcode)).collect();
    // A file that spills to memory starts from a partition that fits in it: the measured
    // demand, each class shrunk by an eighth until it does (the rest is spilled).
    for (i, f) in files.iter().enumerate() {
        while matches!(f.spill, Spill::Memory { .. })
            && f.partition(demand[i].map(|d| d.min(MAX_PER_CLASS)), min_singles[i])
                .is_none()
            && demand[i].iter().any(|&d| d > 0)
        {
            for d in demand[i].iter_mut() {
                *d -= (*d).div_ceil(8);
            }
        }
    }
    // A file that spills into another grows up to its size, then spills.
    let capped = |i: usize, demand: [usize; 3]| match files[i].spill {
        Spill::IntoFile { .. } => [
            demand[0].min((files[i].limit - files[i].first) as usize),
            0,
            0,
        ],
        _ => demand.map(|d| d.min(MAX_PER_CLASS)),
    };
    // Each file's partition for `demand`, or the first file none fits.
    let envs_of = |demand: &[[usize; 3]]| -> Result<Vec<FileEnv>, RegFile> {
        files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.partition(capped(i, demand[i]), min_singles[i])
                    .ok_or(f.file)
            })
            .collect()
    };
    // Grows the demand of `file`, which ran out, by a quarter (and one); false when the cap
    // leaves it as it was.
    let grow = |demand: &mut [[usize; 3]], file: RegFile| -> Result<bool, AllocError> {
        let Some(i) = files.iter().position(|f| f.file == file) else {
            return Err(AllocError::Internal(format!(
                "file {file} ran out, not described"
            )));
        };
        let before = capped(i, demand[i]);
        for d in demand[i].iter_mut() {
            if *d > 0 {
                *d += 1 + *d / 4;
            }
        }
        Ok(capped(i, demand[i]) != before)
    };
    let initial = demand.clone();
    let mut tried = Vec::new();
    // The file that ran out last (the error names it when nothing works).
    let mut exhausted = files.first().map_or(0, |f| f.file);
    for _attempt in 0..16 {
        let envs = match envs_of(&demand) {
            Ok(envs) => envs,
            Err(file) => {
                exhausted = file;
                break;
            }
        };
        let file = match allocate(vcode, &envs, false, moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { file }) => file,
            Err(e) => return Err(e),
        };
        exhausted = file;
        tried.push(envs);
        if !grow(&mut demand, file)? {
            break;
        }
    }
    for envs in &tried {
        match allocate(vcode, envs, true, moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { file }) => exhausted = file,
            Err(e) => return Err(e),
        }
    }
    // A file that cannot avoid spilling (in a function that calls, no SGPR holds a value
    // across a call) runs out in every attempt above, so only its partition grew, never
    // that of another file too small for one instruction (an early-defined VGPR pair
    // beside two more): grow whichever file runs out, with spilling allowed.
    let mut demand = initial;
    for _attempt in 0..16 {
        let envs = match envs_of(&demand) {
            Ok(envs) => envs,
            Err(file) => {
                exhausted = file;
                break;
            }
        };
        match allocate(vcode, &envs, true, moves) {
            Ok(allocated) => return Ok(allocated),
            Err(AllocError::Exhausted { file }) => {
                exhausted = file;
                if !grow(&mut demand, file)? {
                    break;
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(AllocError::Exhausted { file: exhausted })
}

/// One past the highest register of `file` below `limit` that an instruction names (what
/// a target reports as the registers a function uses; the special registers above `limit`
/// are not counted).
pub fn registers_used<I: MachInst>(insts: &[I], file: RegFile, limit: u16) -> u32 {
    let mut used = 0u32;
    for inst in insts {
        inst.clone().visit_operands(&mut |r, _| {
            if let Reg::Real { file: f, hw, .. } = *r
                && f == file
                && hw < limit
            {
                used = used.max((hw + r.width()) as u32);
            }
        });
    }
    used
}

/// The registers of one file offered to the allocator: for each class, the hardware
/// number of the first register of each regalloc2 `PReg`, and whether the allocator may
/// choose it (registers that are only ever named by fixed constraints or clobbers are
/// listed but not allocatable).
#[derive(Clone, Debug)]
struct FileEnv {
    file: RegFile,
    classes: [Vec<(u16, bool)>; 3],
    /// Registers `0..limit` exist in the file. With [`Spill::SpareRegisters`], the
    /// allocator's spill slots are placed in the ones above every register of `classes`
    /// (regalloc2 sees at most 63 registers per class, and it spills when fixed-register
    /// constraints conflict, not only when registers run out).
    limit: u16,
    spill: Spill,
    /// Every register of the range is a single: a file that spills into another spills
    /// only then.
    whole: bool,
}

impl FileEnv {
    fn preg_of(&self, reg: Reg) -> Option<PReg> {
        let Reg::Real { class, hw, .. } = reg else {
            return None;
        };
        let index = self.classes[class as usize]
            .iter()
            .position(|&(h, _)| h == hw)?;
        Some(PReg::new(index, class))
    }

    /// Adds to `set` every register of every class that overlaps `reg` (a clobbered
    /// register clobbers the pairs and quads it is part of); registers the partition does
    /// not offer hold no value to protect.
    fn add_overlapping(&self, reg: Reg, set: &mut PRegSet) {
        let (start, end) = (reg.hw(), reg.hw() + reg.width());
        for class in [RegClass::Int, RegClass::Float, RegClass::Vector] {
            let width = class_width(class);
            for (index, &(hw, _)) in self.classes[class as usize].iter().enumerate() {
                if hw < end && start < hw + width {
                    set.add(PReg::new(index, class));
                }
            }
        }
    }

    fn hw_of(&self, preg: PReg) -> u16 {
        self.classes[preg.class() as usize][preg.hw_enc()].0
    }

    fn machine_env(&self) -> MachineEnv {
        let mut preferred = [PRegSet::empty(); 3];
        for class in [RegClass::Int, RegClass::Float, RegClass::Vector] {
            for (index, &(_, allocatable)) in self.classes[class as usize].iter().enumerate() {
                if allocatable {
                    preferred[class as usize].add(PReg::new(index, class));
                }
            }
        }
        MachineEnv {
            preferred_regs_by_class: preferred,
            non_preferred_regs_by_class: [PRegSet::empty(); 3],
            scratch_by_class: [None; 3],
            fixed_stack_slots: Vec::new(),
        }
    }
}

/// Why allocation failed.
#[derive(Clone, Debug)]
pub enum AllocError {
    /// More values of this file are live at once than it has registers (and places to
    /// spill them): the one failure a target may answer by allocating again differently.
    Exhausted { file: RegFile },
    /// regalloc2 rejected the input (an internal error of the backend).
    Internal(String),
    /// A fixed-register constraint names a register the partition does not offer.
    BadFixedRegister(Reg),
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::Exhausted { file } => {
                write!(f, "register exhaustion in register file {file}")
            }
            AllocError::Internal(reason) => {
                write!(f, "internal register-allocation error: {reason}")
            }
            AllocError::BadFixedRegister(r) => {
                write!(f, "internal error: fixed register {r:?} is not allocatable")
            }
        }
    }
}

/// The most values of each class of `file` live at one point, a lower bound of the
/// registers each class needs.
pub fn pressure<I: MachInst>(vcode: &VCode<I>, file: RegFile) -> [usize; 3] {
    let operands = FileOperands::new(vcode, file);
    let live_in = live_in_sets(vcode, file, &operands);
    let mut max = [0usize; 3];
    // One dense set reused by every block, cleared through the list of what was set.
    let mut live = vec![false; vcode.num_vregs()];
    let mut touched = Vec::new();
    for block in &vcode.blocks {
        let mut count = [0usize; 3];
        let mut add = |v: usize, live: &mut Vec<bool>, count: &mut [usize; 3]| {
            if !live[v] {
                live[v] = true;
                touched.push(v);
                count[vcode.vreg_classes[v] as usize] += 1;
            }
        };
        // Live out: the successors' live-ins (which never hold their parameters) and the
        // branch arguments.
        for &s in &block.succs {
            for &v in &live_in[s] {
                add(v as usize, &mut live, &mut count);
            }
        }
        for args in &block.branch_args {
            for a in args {
                if let Some(v) = vreg_in_file(a, file) {
                    add(v, &mut live, &mut count);
                }
            }
        }
        let mut report = |count: [usize; 3]| {
            for c in 0..3 {
                max[c] = max[c].max(count[c]);
            }
        };
        report(count);
        for index in block.insts.clone().rev() {
            let ops = operands.of(index);
            // Defs are counted together with what lives through the instruction.
            let mut at = count;
            for &(v, def) in ops {
                if def && !live[v as usize] {
                    at[vcode.vreg_classes[v as usize] as usize] += 1;
                }
            }
            report(at);
            for &(v, def) in ops {
                if def && live[v as usize] {
                    live[v as usize] = false;
                    count[vcode.vreg_classes[v as usize] as usize] -= 1;
                }
            }
            for &(v, def) in ops {
                if !def {
                    add(v as usize, &mut live, &mut count);
                }
            }
            report(count);
        }
        for v in touched.drain(..) {
            live[v] = false;
        }
    }
    max
}

fn vreg_in_file(r: &Reg, file: RegFile) -> Option<usize> {
    match r {
        Reg::Virtual { file: f, vreg } if *f == file => Some(vreg.vreg()),
        _ => None,
    }
}

/// The virtual registers of one file each instruction uses and defines, in operand
/// order: `(vreg, is_def)`.
struct FileOperands {
    operands: Vec<(u32, bool)>,
    offsets: Vec<usize>,
}

impl FileOperands {
    fn new<I: MachInst>(vcode: &VCode<I>, file: RegFile) -> Self {
        let mut operands = Vec::new();
        let mut offsets = Vec::with_capacity(vcode.insts.len() + 1);
        for inst in &vcode.insts {
            offsets.push(operands.len());
            inst.clone().visit_operands(&mut |r, kind| {
                if let Some(v) = vreg_in_file(r, file) {
                    let use_ = matches!(
                        kind,
                        OperandKind::Use
                            | OperandKind::LateUse
                            | OperandKind::UseFixed(_)
                            | OperandKind::UseAny
                    );
                    operands.push((v as u32, !use_));
                }
            });
        }
        offsets.push(operands.len());
        FileOperands { operands, offsets }
    }

    fn of(&self, inst: usize) -> &[(u32, bool)] {
        &self.operands[self.offsets[inst]..self.offsets[inst + 1]]
    }
}

/// Each block's live-in virtual registers of `file`, sorted (block parameters are defined
/// at the block's start, branch arguments used at its end). Sparse: each register is
/// followed back from its upward-exposed uses through the predecessors until the blocks
/// that define it, so the work is the size of the result.
fn live_in_sets<I: MachInst>(
    vcode: &VCode<I>,
    file: RegFile,
    operands: &FileOperands,
) -> Vec<Vec<u32>> {
    let n = vcode.num_vregs();
    let blocks = vcode.blocks.len();
    // Upward-exposed uses as (vreg, block), and each block's defs, sorted.
    let mut exposed: Vec<(u32, u32)> = Vec::new();
    let mut defs: Vec<Vec<u32>> = vec![Vec::new(); blocks];
    // The block that last defined each register.
    let mut defined_in = vec![u32::MAX; n];
    let define = |defined_in: &mut [u32], v: usize, b: u32, defs: &mut Vec<u32>| {
        if defined_in[v] != b {
            defined_in[v] = b;
            defs.push(v as u32);
        }
    };
    for (b, block) in vcode.blocks.iter().enumerate() {
        let defs = &mut defs[b];
        let b = b as u32;
        for p in &block.params {
            if let Some(v) = vreg_in_file(p, file) {
                define(&mut defined_in, v, b, defs);
            }
        }
        for index in block.insts.clone() {
            let ops = operands.of(index);
            for &(v, def) in ops {
                if !def && defined_in[v as usize] != b {
                    exposed.push((v, b));
                }
            }
            for &(v, def) in ops {
                if def {
                    define(&mut defined_in, v as usize, b, defs);
                }
            }
        }
        for args in &block.branch_args {
            for a in args {
                if let Some(v) = vreg_in_file(a, file)
                    && defined_in[v] != b
                {
                    exposed.push((v as u32, b));
                }
            }
        }
        defs.sort_unstable();
    }
    exposed.sort_unstable();
    exposed.dedup();
    // The predecessors as the successor lists say (liveness flows back along them).
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); blocks];
    for (b, block) in vcode.blocks.iter().enumerate() {
        for &s in &block.succs {
            preds[s].push(b);
        }
    }
    let mut live_in: Vec<Vec<u32>> = vec![Vec::new(); blocks];
    // The register whose walk last reached each block.
    let mut reached = vec![u32::MAX; blocks];
    let mut work = Vec::new();
    for &(v, b) in &exposed {
        work.push(b as usize);
        while let Some(b) = work.pop() {
            if reached[b] == v {
                continue;
            }
            reached[b] = v;
            live_in[b].push(v);
            for &p in &preds[b] {
                if reached[p] != v && defs[p].binary_search(&v).is_err() {
                    work.push(p);
                }
            }
        }
    }
    live_in
}

/// The result of allocating every file: instructions on real registers with the
/// allocator's moves inserted, and where each block starts.
pub struct Allocated<I> {
    pub insts: Vec<I>,
    pub block_starts: Vec<usize>,
}

struct FileView<'a, I> {
    vcode: &'a VCode<I>,
    operands: Vec<Operand>,
    offsets: Vec<usize>,
    clobbers: Vec<PRegSet>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    params: Vec<Vec<VReg>>,
    branch_args: Vec<Vec<Vec<VReg>>>,
    terminators: Vec<(bool, bool)>,
}

fn vreg_of(r: Reg) -> Option<VReg> {
    match r {
        Reg::Virtual { vreg, .. } => Some(vreg),
        Reg::Real { .. } => None,
    }
}

impl<'a, I: MachInst> FileView<'a, I> {
    fn new(vcode: &'a VCode<I>, env: &FileEnv) -> Result<Self, AllocError> {
        let file = env.file;
        let mut operands = Vec::new();
        let mut offsets = Vec::with_capacity(vcode.insts.len() + 1);
        let mut clobbers = Vec::with_capacity(vcode.insts.len());
        let mut terminators = Vec::with_capacity(vcode.insts.len());
        for inst in &vcode.insts {
            offsets.push(operands.len());
            let mut inst = inst.clone();
            // Operand indices of this file, to remap `DefReuse` indices.
            let mut file_index = Vec::new();
            let mut pending = Vec::new();
            let mut error = None;
            inst.visit_operands(&mut |r, kind| {
                if r.file() != file {
                    file_index.push(None);
                    return;
                }
                file_index.push(Some(pending.len()));
                pending.push((*r, kind));
            });
            for (r, kind) in pending {
                let Some(vreg) = vreg_of(r) else {
                    continue;
                };
                let fixed = |reg: Reg| env.preg_of(reg).ok_or(AllocError::BadFixedRegister(reg));
                let op = match kind {
                    OperandKind::Use => Operand::reg_use(vreg),
                    OperandKind::Def => Operand::reg_def(vreg),
                    OperandKind::UseAny => Operand::any_use(vreg),
                    OperandKind::LateUse => Operand::new(
                        vreg,
                        OperandConstraint::Reg,
                        regalloc2::OperandKind::Use,
                        OperandPos::Late,
                    ),
                    OperandKind::DefAny => Operand::any_def(vreg),
                    OperandKind::EarlyDef => Operand::new(
                        vreg,
                        OperandConstraint::Reg,
                        regalloc2::OperandKind::Def,
                        OperandPos::Early,
                    ),
                    OperandKind::UseFixed(reg) => match fixed(reg) {
                        Ok(p) => Operand::reg_fixed_use(vreg, p),
                        Err(e) => {
                            error = Some(e);
                            continue;
                        }
                    },
                    OperandKind::DefFixed(reg) => match fixed(reg) {
                        Ok(p) => Operand::reg_fixed_def(vreg, p),
                        Err(e) => {
                            error = Some(e);
                            continue;
                        }
                    },
                    OperandKind::DefReuse(n) => match file_index.get(n).copied().flatten() {
                        Some(idx) => Operand::reg_reuse_def(vreg, idx),
                        None => {
                            return Err(AllocError::Internal(format!(
                                "reuse of operand {n} of another file in {inst:?}"
                            )));
                        }
                    },
                };
                operands.push(op);
            }
            if let Some(e) = error {
                return Err(e);
            }
            let mut set = PRegSet::empty();
            for &c in inst.clobbers() {
                if c.file() == file {
                    env.add_overlapping(c, &mut set);
                }
            }
            clobbers.push(set);
            terminators.push((inst.is_return(), inst.is_branch()));
        }
        offsets.push(operands.len());
        let filter = |regs: &[Reg]| -> Vec<VReg> {
            regs.iter()
                .filter(|r| r.file() == file)
                .filter_map(|r| vreg_of(*r))
                .collect()
        };
        let params = vcode.blocks.iter().map(|b| filter(&b.params)).collect();
        let branch_args = vcode
            .blocks
            .iter()
            .map(|b| b.branch_args.iter().map(|a| filter(a)).collect())
            .collect();
        let blocks = |list: &[usize]| list.iter().map(|&b| Block::new(b)).collect();
        Ok(FileView {
            vcode,
            succs: vcode.blocks.iter().map(|b| blocks(&b.succs)).collect(),
            preds: vcode.blocks.iter().map(|b| blocks(&b.preds)).collect(),
            operands,
            offsets,
            clobbers,
            params,
            branch_args,
            terminators,
        })
    }
}

impl<I: MachInst> Function for FileView<'_, I> {
    fn num_insts(&self) -> usize {
        self.vcode.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.vcode.blocks.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, block: Block) -> InstRange {
        let r = &self.vcode.blocks[block.index()].insts;
        InstRange::new(Inst::new(r.start), Inst::new(r.end))
    }
    fn block_succs(&self, block: Block) -> &[Block] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: Block) -> &[Block] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: Block) -> &[VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, insn: Inst) -> bool {
        self.terminators[insn.index()].0
    }
    fn is_branch(&self, insn: Inst) -> bool {
        self.terminators[insn.index()].1
    }
    fn branch_blockparams(&self, block: Block, _insn: Inst, succ_idx: usize) -> &[VReg] {
        &self.branch_args[block.index()][succ_idx]
    }
    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.operands[self.offsets[insn.index()]..self.offsets[insn.index() + 1]]
    }
    fn inst_clobbers(&self, insn: Inst) -> PRegSet {
        self.clobbers[insn.index()]
    }
    fn num_vregs(&self) -> usize {
        self.vcode.num_vregs()
    }
    fn spillslot_size(&self, regclass: RegClass) -> usize {
        class_width(regclass) as usize
    }
}

/// Where the spill slots of one file's allocation live: registers of its own file above
/// the partition ([`Spill::SpareRegisters`], and [`Spill::Memory`] while they last) or of
/// the file it spills into ([`Spill::IntoFile`]), which also gives the scratch register of
/// its moves; with [`Spill::Memory`], the slots beyond are memory slots.
struct SlotPlace {
    file: RegFile,
    base: u16,
    /// The file spilled into and one past the last register taken there.
    into: Option<(RegFile, u16)>,
    /// The register of the other file a move within the file goes through.
    scratch: Option<Reg>,
    /// [`Spill::Memory`]: how many slots (in registers) are registers; the ones from here
    /// are memory slots, numbered from 0.
    in_registers: Option<u16>,
}

/// Where one spill slot is.
enum SlotHome {
    Register(Reg),
    Memory(u32),
}

impl SlotPlace {
    /// Places `count` slots of `env`'s file (and a scratch register when `moves_within`);
    /// `tops` holds each file allocated before and one past the highest register it uses.
    /// Spills where the file may not spill (see [`allocate`]), or past the end of the file
    /// they go to, are [`AllocError::Exhausted`].
    fn new(
        env: &FileEnv,
        tops: &[(RegFile, u16)],
        spill: bool,
        count: usize,
        moves_within: bool,
    ) -> Result<SlotPlace, AllocError> {
        let exhausted = Err(AllocError::Exhausted { file: env.file });
        // Above the allocator's registers, aligned as regalloc2 aligns slots (to their size,
        // at most 4).
        let spare_base = || {
            env.classes
                .iter()
                .zip([1u16, 2, 4])
                .flat_map(|(class, width)| class.iter().map(move |&(hw, _)| (hw, width)))
                .filter(|&(hw, _)| hw < env.limit)
                .map(|(hw, width)| hw + width)
                .max()
                .unwrap_or(0)
                .max(match env.spill {
                    Spill::Memory { spare_from } => spare_from.min(env.limit),
                    _ => 0,
                })
                .next_multiple_of(4)
        };
        let own = |base, in_registers| SlotPlace {
            file: env.file,
            base,
            into: None,
            scratch: None,
            in_registers,
        };
        match env.spill {
            Spill::SpareRegisters => {
                let base = spare_base();
                if count > 0 && !spill || base as usize + count > env.limit as usize {
                    return exhausted;
                }
                Ok(own(base, None))
            }
            // Whole quads of spare registers, so that no slot straddles the boundary.
            Spill::Memory { .. } => {
                let base = spare_base();
                if count > 0 && !spill {
                    return exhausted;
                }
                Ok(own(base, Some(env.limit.saturating_sub(base) / 4 * 4)))
            }
            Spill::IntoFile {
                file: into,
                from,
                limit,
            } => {
                if count > 0 && !env.whole {
                    return exhausted;
                }
                let Some(&(_, top)) = tops.iter().find(|(f, _)| *f == into) else {
                    return Err(AllocError::Internal(format!(
                        "file {} spills into file {into}, which is not allocated before it",
                        env.file
                    )));
                };
                let base = top.max(from);
                // The slots, then the scratch register.
                let end = base as usize + count + usize::from(moves_within);
                if end > limit as usize {
                    return exhausted;
                }
                Ok(SlotPlace {
                    file: into,
                    base,
                    into: Some((into, end as u16)),
                    scratch: moves_within.then_some(Reg::Real {
                        file: into,
                        class: RegClass::Int,
                        hw: base + count as u16,
                    }),
                    in_registers: None,
                })
            }
        }
    }

    /// Where slot `index` is.
    fn home(&self, index: usize, class: RegClass) -> SlotHome {
        match self.in_registers {
            Some(registers) if index >= registers as usize => {
                SlotHome::Memory((index - registers as usize) as u32)
            }
            _ => SlotHome::Register(Reg::Real {
                file: self.file,
                class,
                hw: self.base + index as u16,
            }),
        }
    }
}

/// One move the allocator inserts, at a program point.
#[derive(Copy, Clone, Debug)]
enum AllocEdit {
    Move { to: Reg, from: Reg },
    Spill { slot: u32, from: Reg },
    Reload { to: Reg, slot: u32 },
}

/// Allocates registers for every file in `envs` (one partition each) and rewrites the
/// instructions, with `moves` making the allocator's moves.
///
/// With `spill`, the allocator's spill slots of a file that spills to spare registers or
/// memory go to its registers above the ones in `envs` (see [`FileEnv::limit`]) and then,
/// for memory, to memory slots; without, any such spill is [`AllocError::Exhausted`], so
/// that [`run`] can first try a larger partition. A file that spills into another may once
/// all its registers are in the partition.
fn allocate<I: MachInst>(
    vcode: &VCode<I>,
    envs: &[FileEnv],
    spill: bool,
    moves: Moves<I>,
) -> Result<Allocated<I>, AllocError> {
    let mut insts = vcode.insts.clone();
    let mut edits: Vec<(ProgPoint, AllocEdit)> = Vec::new();
    // Each file allocated so far and one past the highest register it uses.
    let mut tops: Vec<(RegFile, u16)> = Vec::new();
    for env in envs {
        let view = FileView::new(vcode, env)?;
        let options = RegallocOptions {
            verbose_log: false,
            validate_ssa: cfg!(debug_assertions),
            algorithm: regalloc2::Algorithm::Ion,
        };
        let output = regalloc2::run(&view, &env.machine_env(), &options).map_err(|e| match e {
            regalloc2::RegAllocError::TooManyLiveRegs => AllocError::Exhausted { file: env.file },
            other => AllocError::Internal(format!("{other:?}")),
        })?;
        let moves_within = output
            .edits
            .iter()
            .any(|(_, Edit::Move { from, to })| from.as_reg().is_some() && to.as_reg().is_some());
        let slots = SlotPlace::new(env, &tops, spill, output.num_spillslots, moves_within)?;
        let home = |alloc: Allocation, class: RegClass| -> Result<SlotHome, AllocError> {
            match (alloc.as_reg(), alloc.as_stack()) {
                (Some(preg), _) => {
                    debug_assert_eq!(preg.class(), class);
                    Ok(SlotHome::Register(Reg::Real {
                        file: env.file,
                        class,
                        hw: env.hw_of(preg),
                    }))
                }
                (None, Some(slot)) => Ok(slots.home(slot.index(), class)),
                (None, None) => Err(AllocError::Exhausted { file: env.file }),
            }
        };
        // An operand must be in a register: regalloc2 leaves one in a slot only where its
        // constraint allows any location (`UseAny`, `DefAny`).
        let real = |alloc: Allocation, class: RegClass| match home(alloc, class)? {
            SlotHome::Register(reg) => Ok(reg),
            SlotHome::Memory(_) => Err(AllocError::Exhausted { file: env.file }),
        };
        for (index, inst) in insts.iter_mut().enumerate() {
            let allocs = output.inst_allocs(Inst::new(index));
            let mut k = 0;
            let mut result = Ok(());
            inst.visit_operands(&mut |r, _| {
                if r.file() != env.file || !r.is_virtual() {
                    return;
                }
                match real(allocs[k], r.class()) {
                    Ok(reg) => *r = reg,
                    Err(e) => result = Err(e),
                }
                k += 1;
            });
            result?;
        }
        let first_edit = edits.len();
        for (point, edit) in &output.edits {
            let Edit::Move { from, to } = edit;
            // regalloc2 routes stack-to-stack moves through a register (in a file that
            // spills into another, slots hold singles).
            let class = match from.as_reg().or(to.as_reg()) {
                Some(p) => p.class(),
                None if slots.into.is_some() => RegClass::Int,
                None => {
                    return Err(AllocError::Internal(format!(
                        "a move without a register: {edit:?}"
                    )));
                }
            };
            let edit = match (home(*to, class)?, home(*from, class)?) {
                (SlotHome::Register(to), SlotHome::Register(from)) => AllocEdit::Move { to, from },
                (SlotHome::Memory(slot), SlotHome::Register(from)) => {
                    AllocEdit::Spill { slot, from }
                }
                (SlotHome::Register(to), SlotHome::Memory(slot)) => AllocEdit::Reload { to, slot },
                (SlotHome::Memory(_), SlotHome::Memory(_)) => {
                    return Err(AllocError::Internal(format!(
                        "a move between memory slots: {edit:?}"
                    )));
                }
            };
            match (slots.scratch, edit) {
                // No move within the file: through a register of the other one.
                (Some(scratch), AllocEdit::Move { to, from })
                    if to.file() == env.file && from.file() == env.file =>
                {
                    edits.push((*point, AllocEdit::Move { to: scratch, from }));
                    edits.push((*point, AllocEdit::Move { to, from: scratch }));
                }
                _ => edits.push((*point, edit)),
            }
        }
        let mut top = 0;
        let mut raise = |r: &Reg| {
            if let Reg::Real { file, hw, .. } = *r
                && file == env.file
                && hw < env.limit
            {
                top = top.max(hw + r.width());
            }
        };
        for inst in &insts {
            inst.clone().visit_operands(&mut |r, _| raise(r));
        }
        for (_, edit) in &edits[first_edit..] {
            match edit {
                AllocEdit::Move { to, from } => {
                    raise(to);
                    raise(from);
                }
                AllocEdit::Spill { from: reg, .. } | AllocEdit::Reload { to: reg, .. } => {
                    raise(reg)
                }
            }
        }
        tops.push((env.file, top));
        if let Some((into, end)) = slots.into {
            for (file, top) in tops.iter_mut() {
                if *file == into {
                    *top = (*top).max(end);
                }
            }
        }
    }
    edits.sort_by_key(|(point, _)| *point);

    let make = |edit: AllocEdit| -> Result<I, AllocError> {
        match (edit, moves.memory) {
            (AllocEdit::Move { to, from }, _) => Ok((moves.between)(to, from)),
            (AllocEdit::Spill { slot, from }, Some(memory)) => Ok((memory.spill)(slot, from)),
            (AllocEdit::Reload { to, slot }, Some(memory)) => Ok((memory.reload)(to, slot)),
            (_, None) => Err(AllocError::Internal(
                "a memory spill without spill instructions".into(),
            )),
        }
    };
    // Interleave the moves with the instructions, block by block.
    let mut out = Vec::with_capacity(insts.len() + edits.len());
    let mut block_starts = Vec::with_capacity(vcode.blocks.len());
    let mut next_edit = 0;
    for block in &vcode.blocks {
        block_starts.push(out.len());
        for index in block.insts.clone() {
            while next_edit < edits.len()
                && edits[next_edit].0 <= ProgPoint::before(Inst::new(index))
            {
                out.push(make(edits[next_edit].1)?);
                next_edit += 1;
            }
            out.push(insts[index].clone());
            while next_edit < edits.len()
                && edits[next_edit].0 <= ProgPoint::after(Inst::new(index))
            {
                out.push(make(edits[next_edit].1)?);
                next_edit += 1;
            }
        }
    }
    Ok(Allocated {
        insts: out,
        block_starts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machinst::VBlock;
    use std::collections::BTreeSet;

    /// An instruction that is only its operands.
    #[derive(Clone, Debug)]
    struct TestInst {
        operands: Vec<(Reg, OperandKind)>,
        ret: bool,
        /// Made by `gen_move` (the allocator's).
        is_move: bool,
        /// A spill (`true`) or reload of its one operand to or from a memory slot.
        memory: Option<(u32, bool)>,
    }

    fn moves() -> Moves<TestInst> {
        Moves {
            between: TestInst::gen_move,
            memory: Some(MemoryMoves {
                spill: |slot, src| TestInst {
                    operands: vec![(src, OperandKind::Use)],
                    ret: false,
                    is_move: false,
                    memory: Some((slot, true)),
                },
                reload: |dst, slot| TestInst {
                    operands: vec![(dst, OperandKind::Def)],
                    ret: false,
                    is_move: false,
                    memory: Some((slot, false)),
                },
            }),
        }
    }

    impl MachInst for TestInst {
        fn visit_operands(&mut self, visit: &mut dyn FnMut(&mut Reg, OperandKind)) {
            for (r, kind) in &mut self.operands {
                visit(r, *kind);
            }
        }
        fn has_side_effects(&self) -> bool {
            self.ret
        }
        fn is_return(&self) -> bool {
            self.ret
        }
        fn is_branch(&self) -> bool {
            false
        }
        fn gen_move(dst: Reg, src: Reg) -> Self {
            TestInst {
                operands: vec![(dst, OperandKind::Def), (src, OperandKind::Use)],
                ret: false,
                is_move: true,
                memory: None,
            }
        }
        fn gen_jump(_: usize) -> Self {
            unreachable!("one block")
        }
    }

    /// One block defining `n` singles of `file`, then reading each: all are live at once.
    fn live_at_once(file: RegFile, n: usize) -> VCode<TestInst> {
        live_of_class(file, n, RegClass::Int)
    }

    /// `live_at_once` with values of `class`.
    fn live_of_class(file: RegFile, n: usize, class: RegClass) -> VCode<TestInst> {
        let mut vcode = VCode::new();
        let regs: Vec<Reg> = (0..n).map(|_| vcode.new_vreg(file, class)).collect();
        let defs = regs.iter().map(|&r| inst(vec![(r, OperandKind::Def)]));
        let uses = regs.iter().map(|&r| inst(vec![(r, OperandKind::Use)]));
        one_block(vcode, defs.chain(uses).collect())
    }

    fn inst(operands: Vec<(Reg, OperandKind)>) -> TestInst {
        TestInst {
            operands,
            ret: false,
            is_move: false,
            memory: None,
        }
    }

    /// `vcode` with `insts` and a return as its one block.
    fn one_block(mut vcode: VCode<TestInst>, insts: Vec<TestInst>) -> VCode<TestInst> {
        vcode.insts = insts;
        vcode.insts.push(TestInst {
            operands: Vec::new(),
            ret: true,
            is_move: false,
            memory: None,
        });
        vcode.blocks.push(VBlock {
            insts: 0..vcode.insts.len(),
            ..VBlock::default()
        });
        vcode
    }

    /// Runs the allocated one-block code of `vcode`: each def writes its virtual register's
    /// number to the register it was given, each move copies, each spill stores into its
    /// memory slot and each reload loads, and each use must find the number of its virtual
    /// register. Returns the registers of each file the code names.
    fn check_values(vcode: &VCode<TestInst>, allocated: &Allocated<TestInst>) -> Vec<Reg> {
        let mut held: std::collections::HashMap<(RegFile, u16), usize> = Default::default();
        let mut memory: std::collections::HashMap<(RegFile, u32), usize> = Default::default();
        let mut original = vcode.insts.iter();
        let mut named = Vec::new();
        for inst in &allocated.insts {
            for (r, _) in &inst.operands {
                assert!(!r.is_virtual(), "{inst:?}");
                named.push(*r);
            }
            let key = |r: &Reg| (r.file(), r.hw());
            if let Some((slot, store)) = inst.memory {
                let r = inst.operands[0].0;
                // A wide value's slots are aligned to its width and do not overlap another's.
                assert_eq!(slot % r.width() as u32, 0, "{inst:?}");
                if store {
                    let value = held.get(&key(&r)).copied().expect("a spill of a value");
                    for k in 0..r.width() as u32 {
                        memory.insert((r.file(), slot + k), value);
                    }
                } else {
                    let value = memory.get(&(r.file(), slot)).copied();
                    for k in 1..r.width() as u32 {
                        assert_eq!(memory.get(&(r.file(), slot + k)).copied(), value);
                    }
                    held.insert(key(&r), value.expect("a reload of a spilled value"));
                }
                continue;
            }
            if inst.is_move {
                let [(dst, _), (src, _)] = inst.operands.as_slice() else {
                    unreachable!("a move")
                };
                let value = held.get(&key(src)).copied();
                held.insert(key(dst), value.expect("a move of a value"));
                continue;
            }
            let before = original.next().expect("as many instructions");
            for ((r, kind), (v, _)) in inst.operands.iter().zip(&before.operands) {
                let Reg::Virtual { vreg, .. } = v else {
                    continue;
                };
                match kind {
                    OperandKind::Def | OperandKind::DefFixed(_) => {
                        held.insert(key(r), vreg.vreg());
                    }
                    _ => assert_eq!(held.get(&key(r)), Some(&vreg.vreg()), "{r:?}"),
                }
            }
        }
        named
    }

    fn file(file: RegFile, first: u16, limit: u16, spill: Spill) -> RegisterFile {
        RegisterFile {
            file,
            first,
            limit,
            alignment: [1, 2, 4],
            special: Vec::new(),
            spill,
        }
    }

    fn hw(env: &FileEnv, class: RegClass) -> Vec<u16> {
        env.classes[class as usize]
            .iter()
            .map(|&(hw, _)| hw)
            .collect()
    }

    /// Singles from `first`, then quads and pairs, each aligned, with the gap to the
    /// singles; special registers after a class's own.
    #[test]
    fn partition_aligns_the_wide_classes_after_the_singles() {
        let vcc = Reg::Real {
            file: 0,
            class: RegClass::Float,
            hw: 106,
        };
        let sgprs = RegisterFile {
            special: vec![(vcc, true)],
            ..file(0, 10, 104, Spill::SpareRegisters)
        };
        let env = sgprs.partition([3, 2, 1], 0).unwrap();
        assert_eq!(hw(&env, RegClass::Int), [10, 11, 12, 13, 14, 15]);
        assert_eq!(hw(&env, RegClass::Vector), [16]);
        assert_eq!(hw(&env, RegClass::Float), [20, 22, 106]);
        // No quads: the pairs are aligned to 2, not to 4 (a class without registers asks
        // for no alignment).
        let env = sgprs.partition([0, 1, 0], 0).unwrap();
        assert_eq!(hw(&env, RegClass::Int), [] as [u16; 0]);
        assert_eq!(hw(&env, RegClass::Float), [10, 106]);
        // Fixed registers below `first + min_singles` are singles.
        let env = sgprs.partition([1, 1, 0], 3).unwrap();
        assert_eq!(hw(&env, RegClass::Int), [10, 11, 12, 13]);
        assert_eq!(hw(&env, RegClass::Float), [14, 106]);
        // The demand must fit below the limit and in regalloc2's 63 per class.
        assert!(sgprs.partition([0, 48, 0], 0).is_none());
        assert!(sgprs.partition([64, 0, 0], 0).is_none());
    }

    /// Values beyond the 63 registers of a class spill into the spare registers above the
    /// partition; a file that spills into memory (not implemented) runs out instead, and
    /// the error names it.
    #[test]
    fn spills_go_as_the_file_says() {
        let vcode = live_at_once(1, 70);
        let files = [
            file(0, 0, 100, Spill::SpareRegisters),
            file(1, 0, 100, Spill::SpareRegisters),
        ];
        let allocated = run(&vcode, &files, moves()).unwrap();
        // The 63 singles, then the spill slots from the next multiple of 4.
        let mut used = 0;
        for inst in &allocated.insts {
            inst.clone()
                .visit_operands(&mut |r, _| used = used.max(r.hw() + 1));
        }
        assert!((64 + 7..=100).contains(&used), "{used}");
        // Spilling to memory, the spare registers serve first, as they would.
        let files = [
            files[0].clone(),
            file(1, 0, 100, Spill::Memory { spare_from: 0 }),
        ];
        let allocated = run(&vcode, &files, moves()).unwrap();
        check_values(&vcode, &allocated);
        assert!(allocated.insts.iter().all(|i| i.memory.is_none()));
        // The file ends before the spill slots do.
        let files = [files[0].clone(), file(1, 0, 66, Spill::SpareRegisters)];
        assert!(matches!(
            run(&vcode, &files, moves()),
            Err(AllocError::Exhausted { file: 1 })
        ));
    }

    /// A file of four singles spilling into another: the values beyond four live in
    /// registers of the other file above those it uses, and every value arrives where it
    /// is used.
    #[test]
    fn spills_into_another_file_go_above_its_registers() {
        let mut vcode = VCode::new();
        let flags: Vec<Reg> = (0..9).map(|_| vcode.new_vreg(1, RegClass::Int)).collect();
        let gprs: Vec<Reg> = (0..3).map(|_| vcode.new_vreg(0, RegClass::Int)).collect();
        let mut insts: Vec<TestInst> = gprs
            .iter()
            .chain(&flags)
            .map(|&r| inst(vec![(r, OperandKind::Def)]))
            .collect();
        insts.extend(
            flags
                .iter()
                .chain(&gprs)
                .map(|&r| inst(vec![(r, OperandKind::Use)])),
        );
        let vcode = one_block(vcode, insts);
        let files = [
            file(0, 0, 16, Spill::SpareRegisters),
            RegisterFile {
                alignment: [1, 1, 1],
                ..file(
                    1,
                    0,
                    4,
                    Spill::IntoFile {
                        file: 0,
                        from: 0,
                        limit: 16,
                    },
                )
            },
        ];
        let allocated = run(&vcode, &files, moves()).unwrap();
        let named = check_values(&vcode, &allocated);
        // File 0's three values take 0–2; five flags live above them.
        let spilled: BTreeSet<u16> = named
            .iter()
            .filter(|r| r.file() == 0 && r.hw() >= 3)
            .map(|r| r.hw())
            .collect();
        assert_eq!(spilled, (3..8).collect());
        assert!(named.iter().all(|r| r.file() == 0 || r.hw() < 4));
        // The slots may go past the other file's own range, up to the limit the spilling
        // file names: the same registers.
        let own = file(0, 0, 6, Spill::SpareRegisters);
        let allocated = run(&vcode, &[own.clone(), files[1].clone()], moves()).unwrap();
        let named = check_values(&vcode, &allocated);
        assert!(named.iter().any(|r| r.file() == 0 && r.hw() >= 6));
        // Below that limit there is no room for the slots: exhausted.
        let narrow = RegisterFile {
            spill: Spill::IntoFile {
                file: 0,
                from: 0,
                limit: 6,
            },
            ..files[1].clone()
        };
        assert!(matches!(
            run(&vcode, &[own, narrow], moves()),
            Err(AllocError::Exhausted { file: 1 })
        ));
    }

    /// A move the allocator needs within a file that spills into another (a value defined
    /// in one fixed register and used in another) goes through a register of the other
    /// file: out of one, into the other.
    #[test]
    fn moves_within_a_file_that_spills_go_through_the_other() {
        let mut vcode = VCode::new();
        let flag = vcode.new_vreg(1, RegClass::Int);
        let gpr = vcode.new_vreg(0, RegClass::Int);
        let real = |file, hw| Reg::Real {
            file,
            class: RegClass::Int,
            hw,
        };
        let insts = vec![
            inst(vec![(gpr, OperandKind::Def)]),
            inst(vec![(flag, OperandKind::DefFixed(real(1, 0)))]),
            inst(vec![(flag, OperandKind::UseFixed(real(1, 2)))]),
            inst(vec![(gpr, OperandKind::Use)]),
        ];
        let vcode = one_block(vcode, insts);
        let files = [
            file(0, 0, 16, Spill::SpareRegisters),
            RegisterFile {
                alignment: [1, 1, 1],
                ..file(
                    1,
                    0,
                    4,
                    Spill::IntoFile {
                        file: 0,
                        from: 0,
                        limit: 16,
                    },
                )
            },
        ];
        let allocated = run(&vcode, &files, moves()).unwrap();
        check_values(&vcode, &allocated);
        let moves: Vec<(Reg, Reg)> = allocated
            .insts
            .iter()
            .filter(|i| i.is_move)
            .map(|i| (i.operands[0].0, i.operands[1].0))
            .collect();
        // The scratch register is the first above file 0's one value.
        assert_eq!(moves, [(real(0, 1), real(1, 0)), (real(1, 2), real(0, 1))]);
    }

    /// Without spare registers, a file that spills to memory spills there: singles, pairs
    /// and quads, each value found where it is read, no register named past the file.
    #[test]
    fn spills_to_memory_keep_every_value() {
        for class in [RegClass::Int, RegClass::Float, RegClass::Vector] {
            let vcode = live_of_class(1, 80, class);
            let width = class_width(class);
            let limit = (63 * width).next_multiple_of(4) + 2;
            let files = [
                file(0, 0, 16, Spill::SpareRegisters),
                file(1, 0, limit, Spill::Memory { spare_from: 0 }),
            ];
            let allocated = run(&vcode, &files, moves()).unwrap();
            let named = check_values(&vcode, &allocated);
            assert!(named.iter().all(|r| r.hw() + r.width() <= limit));
            let spills = allocated
                .insts
                .iter()
                .filter(|i| i.memory.is_some())
                .count();
            assert!(spills >= 2 * (80 - 63), "{class:?}: {spills}");
            // The same file with no memory spill instructions is an internal error.
            let bare = Moves {
                between: TestInst::gen_move,
                memory: None,
            };
            assert!(matches!(
                run(&vcode, &files, bare),
                Err(AllocError::Internal(_))
            ));
        }
    }

    /// A file spilling to memory too small for the partition its values measure (80 live
    /// pairs and 80 live quads in 64 registers) starts from a smaller one and spills the
    /// rest: every value still arrives.
    #[test]
    fn spills_to_memory_start_from_a_partition_that_fits() {
        let mut vcode = VCode::new();
        let regs: Vec<Reg> = [RegClass::Float, RegClass::Vector]
            .into_iter()
            .flat_map(|class| (0..80).map(move |_| class))
            .map(|class| vcode.new_vreg(1, class))
            .collect();
        let defs = regs.iter().map(|&r| inst(vec![(r, OperandKind::Def)]));
        let uses = regs.iter().map(|&r| inst(vec![(r, OperandKind::Use)]));
        let vcode = one_block(vcode, defs.chain(uses).collect());
        let files = [
            file(0, 0, 16, Spill::SpareRegisters),
            file(1, 0, 64, Spill::Memory { spare_from: 0 }),
        ];
        let allocated = run(&vcode, &files, moves()).unwrap();
        let named = check_values(&vcode, &allocated);
        assert!(named.iter().all(|r| r.hw() + r.width() <= 64));
        assert!(allocated.insts.iter().any(|i| i.memory.is_some()));
    }

    /// The registers counted are those below the limit (special registers above it are a
    /// target's own business).
    #[test]
    fn registers_used_counts_below_the_limit() {
        let real = |hw, class| Reg::Real { file: 0, class, hw };
        let insts = [
            TestInst::gen_move(real(4, RegClass::Float), real(0, RegClass::Int)),
            TestInst::gen_move(real(106, RegClass::Float), real(8, RegClass::Vector)),
        ];
        assert_eq!(registers_used(&insts, 0, 104), 12);
        assert_eq!(registers_used(&insts, 1, 104), 0);
    }
}
