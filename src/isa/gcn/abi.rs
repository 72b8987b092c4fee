//! The GCN calling conventions.
//!
//! **Kernels** (CLIF call conv `system_v`, no results) follow the AMDHSA ABI: the
//! hardware initialises user and system SGPRs (AMDGPU LLVM docs, "Initial Kernel
//! Execution State") and v0–v2 with the work-item ids. Only the inputs a kernel uses are
//! enabled, in the ABI's order: the private segment buffer (a kernel with private memory:
//! stack slots or spills), dispatch pointer (for work-group sizes), kernarg segment
//! pointer, then the work-group ids x, y, z and the private segment wave offset. These
//! SGPRs form a reserved prefix the allocator never hands out. Arguments are read from the kernarg segment; each is aligned
//! to its size and at least 4 bytes (scalar loads address whole dwords).
//!
//! **Device functions** (call conv `fast` or `tail`): arguments and results are passed in
//! v0, v1, … (one VGPR per 32 bits, a 64-bit value in two consecutive VGPRs, low half
//! first); the return address is in `s[0:1]`, a reserved pair; a call returns with
//! `s_setpc_b64 s[0:1]`. The first [`FIXED_ABI_VGPRS`] of these VGPRs are fixed-register
//! constraints for the allocator; the ones above are moved into (out of) whatever registers
//! the allocator chose, by a parallel move that `Inst::Args` (`Inst::Ret`) expands into.
//! A device function with private memory also receives the scratch resource in `s[4:7]`
//! and its frame's offset in it in `s2` (bytes, scaled by the wave's 64 lanes: LLVM's
//! stack pointer); `s3` is not used.
//!
//! **Private memory** (`docs/ir.md`, "Memory spaces"): each lane's stack slots lie at fixed
//! byte offsets from 0 in its private segment (a frame), then the allocator's spill slots
//! ([`Frame::stack_size`] is where they start). The scratch resource swizzles the lanes
//! dword by dword, so an offset is the same number in every lane.

use super::regs::{SGPR, sgpr, sgpr_pair};
use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData};
use crate::machinst::{Reg, RegClass};

/// The hardware-initialised inputs a kernel enables (kernel descriptor fields).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelInputs {
    /// The dispatch packet's address in an SGPR pair (for the work-group sizes).
    pub dispatch_ptr: bool,
    /// The kernarg segment's address in an SGPR pair (for the kernel's arguments).
    pub kernarg_segment_ptr: bool,
    /// The work-group id along x, y, z, each in an SGPR.
    pub workgroup_id: [bool; 3],
    /// How many work-item id VGPRs are initialised: 1 (x), 2 (x, y) or 3.
    pub workitem_id_vgprs: u8,
    /// The private segment: its buffer resource in `s[0:3]` (the first user SGPRs) and the
    /// wave's byte offset in it (the last system SGPR). A device function with it receives
    /// the resource in `s[4:7]` and its frame offset in s2 instead.
    pub private_segment: bool,
    /// A fragment shader's inputs and exports, in place of a kernel's
    /// (`super::fragment`).
    pub pixel: Option<super::fragment::PixelInputs>,
    /// A vertex shader's inputs and exports, in place of a kernel's (`super::vertex`).
    pub vertex: Option<super::vertex::VertexInputs>,
}

impl KernelInputs {
    /// The registers the dispatcher initialises for these inputs, in the ABI's order (user
    /// SGPRs, then system SGPRs from the next; v0, v1, v2), each with what it holds — the
    /// layout `Frame::kernel` reads them from.
    pub fn registers(&self) -> Vec<(String, &'static str)> {
        if let Some(pixel) = self.pixel {
            return pixel.registers();
        }
        if let Some(vertex) = self.vertex {
            return vertex.registers();
        }
        let mut out = Vec::new();
        let mut next = 0;
        if self.private_segment {
            out.push(("s[0:3]".to_string(), "private segment buffer resource"));
            next = 4;
        }
        let mut pair = |what: &'static str, out: &mut Vec<(String, &'static str)>| {
            out.push((format!("s[{next}:{}]", next + 1), what));
            next += 2;
        };
        if self.dispatch_ptr {
            pair("dispatch packet address", &mut out);
        }
        if self.kernarg_segment_ptr {
            pair("kernarg segment address", &mut out);
        }
        let ids = ["work-group id x", "work-group id y", "work-group id z"];
        for (&enabled, what) in self.workgroup_id.iter().zip(ids) {
            if enabled {
                out.push((format!("s{next}"), what));
                next += 1;
            }
        }
        if self.private_segment {
            out.push((format!("s{next}"), "private segment wave offset"));
        }
        for (d, what) in ["work-item id x", "work-item id y", "work-item id z"]
            .into_iter()
            .enumerate()
            .take(self.workitem_id_vgprs.clamp(1, 3) as usize)
        {
            out.push((format!("v{d}"), what));
        }
        out
    }
}

/// Where each input lives, for a kernel or a device function.
#[derive(Clone, Debug)]
pub struct Frame {
    pub inputs: KernelInputs,
    pub dispatch_ptr: Option<Reg>,
    pub kernarg_ptr: Option<Reg>,
    pub workgroup_id: [Option<Reg>; 3],
    /// SGPRs `0..reserved_sgprs` hold inputs and are not allocatable.
    pub reserved_sgprs: u16,
    /// Device functions: the return-address pair.
    pub return_address: Option<Reg>,
    /// Kernel arguments: byte offset in the kernarg segment of each entry-block parameter.
    pub kernarg_offsets: Vec<u32>,
    pub kernarg_size: u32,
    /// Bytes of workgroup memory (LDS) the function uses (`intrinsics::workgroup_segment_size`).
    pub group_segment_size: u32,
    /// Where private memory is reached, when the function has any.
    pub scratch: Option<Scratch>,
    /// The byte offset of each stack slot (by index) in a lane's frame.
    pub stack_slots: Vec<u32>,
    /// The bytes the stack slots take in each lane's frame: where spill slots start.
    pub stack_size: u32,
    /// Whether the function calls device functions ([`crate::isa::calls_functions`]): it then has a
    /// private segment, and its registers are allocated around the calls' clobbers.
    pub calls: bool,
}

/// The registers through which a function reaches its private memory.
#[derive(Copy, Clone, Debug)]
pub struct Scratch {
    /// The SGPR quad holding the scratch buffer resource (kernels: its base moved to the
    /// wave's part at entry, as LLVM does).
    pub rsrc: Reg,
    /// Device functions: the SGPR with the frame's offset in the wave's scratch (bytes
    /// times 64), every access's SOFFSET; kernels use 0.
    pub frame_offset: Option<Reg>,
    /// Kernels: the private segment wave offset SGPR, added to the resource at entry.
    pub wave_offset: Option<Reg>,
}

/// The most bytes of private memory a lane may have: a wave's scratch is at most 8191 KiB
/// (COMPUTE_TMPRING_SIZE.WAVESIZE, 13 bits of 1 KiB units), shared by 64 lanes.
pub const MAX_PRIVATE_SEGMENT: u32 = 8191 * 1024 / 64;

impl Frame {
    /// A kernel's frame; `scratch` enables the private segment (stack slots or spills).
    pub fn kernel(func: &ir::Function, scratch: bool) -> Frame {
        let mut inputs = KernelInputs {
            workitem_id_vgprs: 1,
            private_segment: scratch,
            ..KernelInputs::default()
        };
        for intrinsic in used_intrinsics(func) {
            match intrinsic {
                Intrinsic::WorkgroupSize(_) => inputs.dispatch_ptr = true,
                Intrinsic::WorkgroupId(d) => inputs.workgroup_id[d as usize] = true,
                Intrinsic::WorkitemId(d) => {
                    inputs.workitem_id_vgprs = inputs.workitem_id_vgprs.max(d + 1)
                }
                _ => {}
            }
        }
        let (kernarg_offsets, kernarg_size) = crate::isa::kernel_param_layout(&func.signature);
        inputs.kernarg_segment_ptr = !kernarg_offsets.is_empty();

        let mut next = if scratch { 4 } else { 0 };
        let take_pair = |enabled: bool, next: &mut u16| {
            enabled.then(|| {
                let r = sgpr_pair(*next);
                *next += 2;
                r
            })
        };
        let dispatch_ptr = take_pair(inputs.dispatch_ptr, &mut next);
        let kernarg_ptr = take_pair(inputs.kernarg_segment_ptr, &mut next);
        let mut workgroup_id = [None; 3];
        for (reg, &enabled) in workgroup_id.iter_mut().zip(&inputs.workgroup_id) {
            if enabled {
                *reg = Some(sgpr(next));
                next += 1;
            }
        }
        let scratch = scratch.then(|| {
            let wave_offset = sgpr(next);
            next += 1;
            Scratch {
                rsrc: sgpr_quad(0),
                frame_offset: None,
                wave_offset: Some(wave_offset),
            }
        });
        let (stack_slots, stack_size) = crate::isa::stack_frame(func).unwrap_or_default();
        Frame {
            inputs,
            dispatch_ptr,
            kernarg_ptr,
            workgroup_id,
            // A call's sequence writes s2 and s[4:7] before its jump.
            reserved_sgprs: if calls_indirectly(func) {
                next.max(8)
            } else {
                next
            },
            return_address: None,
            kernarg_offsets,
            kernarg_size,
            group_segment_size: 0,
            scratch,
            stack_slots,
            stack_size,
            calls: crate::isa::calls_functions(func),
        }
    }

    /// A vertex or fragment shader's frame (`stage`): no kernel arguments, no work-item
    /// ids; `inputs` are the stage's and its user data the first `reserved_sgprs` SGPRs.
    /// Private memory and calls are refused: a shader's scratch comes from the driver's
    /// user data, which this ABI does not define yet.
    pub fn shader(
        func: &ir::Function,
        stage: crate::intrinsics::Stage,
        inputs: KernelInputs,
        reserved_sgprs: u16,
    ) -> Result<Frame, String> {
        let stage = stage.name();
        if crate::isa::stack_frame(func).is_some() {
            return Err(format!(
                "stack slots in {stage} shaders are not supported yet"
            ));
        }
        if crate::isa::calls_functions(func) {
            return Err(format!("calls from {stage} shaders are not supported yet"));
        }
        Ok(Frame {
            inputs,
            dispatch_ptr: None,
            kernarg_ptr: None,
            workgroup_id: [None; 3],
            reserved_sgprs,
            return_address: None,
            kernarg_offsets: Vec::new(),
            kernarg_size: 0,
            group_segment_size: 0,
            scratch: None,
            stack_slots: Vec::new(),
            stack_size: 0,
            calls: false,
        })
    }

    /// A device function's frame; `scratch`: it receives the scratch resource and its
    /// frame offset.
    pub fn device(func: &ir::Function, scratch: bool) -> Frame {
        let (stack_slots, stack_size) = crate::isa::stack_frame(func).unwrap_or_default();
        Frame {
            inputs: KernelInputs {
                private_segment: scratch,
                ..KernelInputs::default()
            },
            dispatch_ptr: None,
            kernarg_ptr: None,
            workgroup_id: [None; 3],
            reserved_sgprs: if scratch { 8 } else { 2 },
            return_address: Some(Reg::Real {
                file: SGPR,
                class: RegClass::Float,
                hw: 0,
            }),
            kernarg_offsets: Vec::new(),
            kernarg_size: 0,
            group_segment_size: 0,
            scratch: scratch.then(|| Scratch {
                rsrc: sgpr_quad(DEVICE_SCRATCH_RSRC),
                frame_offset: Some(sgpr(DEVICE_FRAME_OFFSET)),
                wave_offset: None,
            }),
            stack_slots,
            stack_size,
            calls: crate::isa::calls_functions(func),
        }
    }
}

/// A device function's scratch resource (an SGPR quad from here) and frame offset SGPR.
pub const DEVICE_SCRATCH_RSRC: u16 = 4;
pub const DEVICE_FRAME_OFFSET: u16 = 2;

fn sgpr_quad(hw: u16) -> Reg {
    Reg::Real {
        file: SGPR,
        class: RegClass::Vector,
        hw,
    }
}

/// Whether `func` calls through an address (`call_indirect`): the address then lives
/// in an SGPR pair above the eight a call's sequence writes (`place_calls`).
fn calls_indirectly(func: &ir::Function) -> bool {
    func.layout.blocks().any(|block| {
        func.layout
            .block_insts(block)
            .any(|inst| matches!(func.dfg.insts[inst], InstructionData::CallIndirect { .. }))
    })
}

/// The most user-data SGPRs a graphics shader has (`SPI_SHADER_USER_DATA_PS_0..15`,
/// `_VS_0..15`).
const MAX_USER_SGPRS: u16 = 16;

/// The SGPRs of user data a `stage` shader's parameters take from s0: one per i32 or
/// f32, two per i64 (any pair: the entry copies it into an aligned one; `docs/ir.md`,
/// "Shader stages").
pub fn shader_user_sgprs(func: &ir::Function, stage: &str) -> Result<u16, String> {
    let entry = func.layout.entry_block().expect("a function has an entry");
    let user_sgprs: u16 = func
        .dfg
        .block_params(entry)
        .iter()
        .map(|&param| match func.dfg.value_type(param).bytes() {
            1..=4 => 1,
            _ => 2,
        })
        .sum();
    if user_sgprs > MAX_USER_SGPRS {
        return Err(format!(
            "the parameters of a {stage} shader take {user_sgprs} SGPRs of user data; GCN \
             has {MAX_USER_SGPRS}"
        ));
    }
    Ok(user_sgprs)
}

/// The intrinsics `func` calls.
pub fn used_intrinsics(func: &ir::Function) -> Vec<Intrinsic> {
    let mut used = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst]
                && let Some(i) = Intrinsic::from_func_ref(func, func_ref)
                && !used.contains(&i)
            {
                used.push(i);
            }
        }
    }
    used
}

/// ABI VGPRs below this number are fixed-register constraints of `Inst::Args`/`Inst::Ret`;
/// the others are plain operands, moved from (to) the ABI register at emission. regalloc2
/// offers at most 63 registers per class, so the singles class cannot hold 64 or more
/// fixed registers (`docs/decisions.md`, "Device functions with many arguments").
pub const FIXED_ABI_VGPRS: u16 = 32;

/// The VGPRs (first register, count) of each parameter or result of a device function,
/// in order.
pub fn device_value_vgprs(types: impl Iterator<Item = ir::Type>) -> Vec<(u16, u16)> {
    let mut next = 0u16;
    types
        .map(|ty| {
            let count = (ty.bytes().max(4) / 4) as u16;
            let at = next;
            next += count;
            (at, count)
        })
        .collect()
}

/// The VGPRs a device function of signature `sig` receives its arguments or returns its
/// results in, whichever are more: the ones from v32 on among them are not callee-saved.
pub fn device_abi_vgprs(sig: &ir::Signature) -> u16 {
    let end = |types: Vec<(u16, u16)>| types.last().map_or(0, |&(at, n)| at + n);
    let params = device_value_vgprs(sig.params.iter().map(|p| p.value_type));
    let returns = device_value_vgprs(sig.returns.iter().map(|p| p.value_type));
    end(params).max(end(returns))
}
