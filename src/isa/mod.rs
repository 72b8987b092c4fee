//! The targets, and [`Backend`]: what the rest of the crate (`compile`, `disassemble`,
//! the harness, the differential tester, clif-util) asks of one, so that a new target
//! plugs in with an `impl Backend` and an arm in [`backend`].

pub mod barriers;
pub mod gcn;
pub mod nv50;

use crate::ir::Opcode;
use crate::machinst::TargetFacts;
use crate::{Arch, CompileError, CompiledCode, DisasmLine, Target, ir};

/// A target's backend, for one [`Arch`] (a GCN generation, say).
pub trait Backend {
    /// What `machinst::prepare` applies before the function is optimised: which CLIF types
    /// the target compiles, which atomics it has instructions for (the others become
    /// compare-and-swap loops, `machinst::expand_atomics`), and the workgroup base when it
    /// is a constant.
    fn facts(&self) -> TargetFacts;

    /// Compiles a function `machinst::prepare` has checked and optimised.
    fn compile(&self, func: &ir::Function) -> Result<CompiledCode, CompileError>;

    /// Disassembles code bytes; undecodable bytes end the listing with a line that says so.
    fn disassemble(&self, code: &[u8]) -> Vec<DisasmLine>;

    /// Disassembles compiled code, as the kind of program it is where the target's words
    /// decode differently per kind (NV50's program types).
    fn disassemble_compiled(&self, code: &CompiledCode) -> Vec<DisasmLine> {
        self.disassemble(&code.code)
    }

    /// Writes compiled functions into one object file of the target's format (GCN: an
    /// AMDGPU HSA code object).
    fn write_object(
        &self,
        target: &Target,
        functions: &[ObjectFunction],
    ) -> Result<Vec<u8>, CompileError>;
}

/// A compiled function of a module, what the object writer places and describes.
pub struct ObjectFunction {
    /// Its symbol name: the CLIF name without the `%`.
    pub name: String,
    /// Its CLIF signature, for the kernel-argument metadata.
    pub signature: ir::Signature,
    /// What each parameter is, for the kernel-argument metadata.
    pub args: Vec<crate::ArgKind>,
    pub compiled: CompiledCode,
}

/// The backend of `arch`: the one place that names each target's.
pub fn backend(arch: Arch) -> Box<dyn Backend> {
    match arch {
        Arch::Gcn(generation) => Box::new(gcn::GcnBackend { generation }),
        Arch::Nv50(chip) => Box::new(nv50::Nv50Backend {
            variant: chip.variant(),
        }),
    }
}

/// Where a kernel's arguments live in its parameter block, the same bytes on every target
/// (GCN's kernarg segment; NV50 copies them to `s[0x14]`): the byte offset of each
/// parameter (aligned to its size, at least 4 bytes, since GCN's scalar loads read whole
/// dwords) and the block's size.
pub fn kernel_param_layout(signature: &ir::Signature) -> (Vec<u32>, u32) {
    let mut offsets = Vec::new();
    let mut offset = 0u32;
    for param in &signature.params {
        let size = param.value_type.bytes().max(4);
        offset = offset.next_multiple_of(size);
        offsets.push(offset);
        offset += size;
    }
    (offsets, offset)
}

/// The frame of `func`'s stack slots, the same layout on every target (GCN's scratch,
/// NV50's `l[]`): each slot's offset (at its alignment, and at least a
/// dword's, so that no dword access straddles two slots) and the total, a whole number of
/// dwords; `None` when the function uses no stack slot. Dynamic stack slots are rejected
/// by the lowering (`stack_addr` of a dynamic slot has no rule).
pub fn stack_frame(func: &ir::Function) -> Option<(Vec<u32>, u32)> {
    let used = func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .any(|i| func.dfg.insts[i].opcode() == Opcode::StackAddr)
    });
    if !used {
        return None;
    }
    let mut offsets = Vec::new();
    let mut next = 0u64;
    for (_, slot) in func.sized_stack_slots.iter() {
        let align = (1u64 << slot.align_shift.min(31)).max(4);
        let at = next.next_multiple_of(align);
        offsets.push(at.min(u32::MAX as u64) as u32);
        next = (at + slot.size as u64).next_multiple_of(4);
    }
    Some((offsets, next.min(u32::MAX as u64) as u32))
}

/// Whether `func` calls a function that is not an intrinsic (`call`, `return_call`,
/// `call_indirect`; `try_call` is rejected by the lowerings).
pub fn calls_functions(func: &ir::Function) -> bool {
    func.layout.blocks().any(|block| {
        func.layout
            .block_insts(block)
            .any(|inst| match func.dfg.insts[inst] {
                ir::InstructionData::Call { func_ref, .. } => {
                    crate::intrinsics::Intrinsic::from_func_ref(func, func_ref).is_none()
                }
                ir::InstructionData::CallIndirect { .. } => true,
                _ => false,
            })
    })
}
