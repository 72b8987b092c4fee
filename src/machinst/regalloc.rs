//! The regalloc2 adapter. regalloc2 runs once per register file; inside a file its three
//! register classes stand for widths (`Int` 32-bit, `Float` aligned pairs, `Vector` aligned
//! quads), and the target partitions the file among them from the function's measured
//! demand ([`pressure`]), so no width holds registers another needs.

use super::{MachInst, OperandKind, Reg, RegClass, RegFile, VCode, class_width};
use regalloc2::{
    Allocation, Block, Edit, Function, Inst, InstRange, MachineEnv, Operand, OperandConstraint,
    OperandPos, PReg, PRegSet, ProgPoint, RegallocOptions, VReg,
};

/// The registers of one file offered to the allocator: for each class, the hardware
/// number of the first register of each regalloc2 `PReg`, and whether the allocator may
/// choose it (registers that are only ever named by fixed constraints or clobbers are
/// listed but not allocatable).
#[derive(Clone, Debug)]
pub struct FileEnv {
    pub file: RegFile,
    pub classes: [Vec<(u16, bool)>; 3],
    /// Registers `0..limit` exist in the file. The allocator's spill slots are placed in
    /// the ones above every register of `classes` (regalloc2 sees at most 63 registers per
    /// class, and it spills when fixed-register constraints conflict, not only when
    /// registers run out).
    pub limit: u16,
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
    /// More values of this file are live at once than it has registers.
    Exhausted { file: RegFile },
    /// regalloc2 rejected the input (an internal error of the backend).
    Internal(String),
    /// A fixed-register constraint names a register the partition does not offer.
    BadFixedRegister(Reg),
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
                        OperandKind::Use | OperandKind::UseFixed(_) | OperandKind::UseAny
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
                    set.add(env.preg_of(c).ok_or(AllocError::BadFixedRegister(c))?);
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

/// Allocates registers for every file in `envs` and rewrites the instructions, with
/// `gen_move` making the allocator's moves ([`MachInst::gen_move`], or a divergence
/// strategy's own: the whole-wave moves of linearized code).
///
/// With `spill_to_registers`, the allocator's spill slots go to the file's registers above
/// the ones in `envs` (see [`FileEnv::limit`]); without, any spill is
/// [`AllocError::Exhausted`], so that the caller can first try a larger partition.
pub fn allocate<I: MachInst>(
    vcode: &VCode<I>,
    envs: &[FileEnv],
    spill_to_registers: bool,
    gen_move: fn(Reg, Reg) -> I,
) -> Result<Allocated<I>, AllocError> {
    let mut insts = vcode.insts.clone();
    let mut edits: Vec<(ProgPoint, Reg, Reg)> = Vec::new();
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
        // Spill slots live in the registers above the allocator's, aligned as regalloc2
        // aligns slots (to their size, at most 4).
        let spill_base = env
            .classes
            .iter()
            .zip([1u16, 2, 4])
            .flat_map(|(class, width)| class.iter().map(move |&(hw, _)| (hw, width)))
            .filter(|&(hw, _)| hw < env.limit)
            .map(|(hw, width)| hw + width)
            .max()
            .unwrap_or(0)
            .next_multiple_of(4);
        if output.num_spillslots > 0 && !spill_to_registers
            || spill_base as usize + output.num_spillslots > env.limit as usize
        {
            return Err(AllocError::Exhausted { file: env.file });
        }
        let real = |alloc: Allocation, class: RegClass| -> Result<Reg, AllocError> {
            let hw = match (alloc.as_reg(), alloc.as_stack()) {
                (Some(preg), _) => {
                    debug_assert_eq!(preg.class(), class);
                    env.hw_of(preg)
                }
                (None, Some(slot)) => spill_base + slot.index() as u16,
                (None, None) => return Err(AllocError::Exhausted { file: env.file }),
            };
            Ok(Reg::Real {
                file: env.file,
                class,
                hw,
            })
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
        for (point, edit) in &output.edits {
            let Edit::Move { from, to } = edit;
            // regalloc2 routes stack-to-stack moves through a register.
            let class = from
                .as_reg()
                .or(to.as_reg())
                .map(|p| p.class())
                .ok_or_else(|| {
                    AllocError::Internal(format!("a move without a register: {edit:?}"))
                })?;
            edits.push((*point, real(*to, class)?, real(*from, class)?));
        }
    }
    edits.sort_by_key(|(point, _, _)| *point);

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
                let (_, dst, src) = edits[next_edit];
                out.push(gen_move(dst, src));
                next_edit += 1;
            }
            out.push(insts[index].clone());
            while next_edit < edits.len()
                && edits[next_edit].0 <= ProgPoint::after(Inst::new(index))
            {
                let (_, dst, src) = edits[next_edit];
                out.push(gen_move(dst, src));
                next_edit += 1;
            }
        }
    }
    Ok(Allocated {
        insts: out,
        block_starts,
    })
}
