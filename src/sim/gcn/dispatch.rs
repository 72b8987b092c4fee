//! Starting waves: a device-function call in one wave, and the dispatcher, which launches a
//! kernel over a grid with the initial state its kernel descriptor asks for, as the
//! hardware's does (AMDGPUUsage, "Initial Kernel Execution State"; the HSA
//! `hsa_kernel_dispatch_packet_t`). Wavelift's compiled kernels and the kernels of any code
//! object (llc-19's included) go through the same [`dispatch`]: a compiled kernel is
//! launched with the descriptor its code object would hold.

use super::lds::Lds;
use super::program::{Program, RegSet};
use super::wave::{Env, State, Wave, reg_name};
use crate::isa::gcn::GcnInfo;
use crate::isa::gcn::abi::{DEVICE_FRAME_OFFSET, DEVICE_SCRATCH_RSRC};
use crate::isa::gcn::code_object::descriptor::{
    KernelDescriptor, RegisterCounts, UserSgpr, WaveSetup,
};
use crate::isa::gcn::mc::Gen;
use crate::sim::{Launch, Memory, Options, SimError, Stats, Violation};
use crate::{CompiledCode, FunctionKind};

/// Bytes of LDS a device-function call gets (the gfx7–gfx9 maximum of a work-group; the
/// code of a device function does not say how much it uses).
const DEVICE_LDS_BYTES: u32 = 64 * 1024;

fn error(violation: Violation) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation,
    }
}

/// Calls device function `code`; `info` (its compiled form's) says whether it receives a
/// private frame.
pub(crate) fn call_device(
    code: &[u8],
    info: Option<&GcnInfo>,
    generation: Gen,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    if args.len() > 64 {
        return Err(error(Violation::Other(format!(
            "{} argument lists for a 64-lane wave",
            args.len()
        ))));
    }
    if result_dwords > 256 || args.iter().any(|a| a.len() > 256) {
        return Err(error(Violation::Other(
            "more than 256 dwords of arguments or results".into(),
        )));
    }
    let mut program = Program::new(code, generation);
    let mut wave = Wave::new();
    if let Some(info) = info
        && info.inputs.private_segment
    {
        give_device_frame(&mut wave, info, generation, memory)?;
    }
    let exec = if args.len() == 64 {
        !0
    } else {
        (1u64 << args.len()) - 1
    };
    wave.set_exec(exec);
    // The VGPRs a call keeps (docs/ir.md, "Calls") hold a caller's values in every lane,
    // active or not; a function that can be called (at most 32 VGPRs of arguments and of
    // results) must give them back.
    let callable = args.iter().all(|a| a.len() <= KEPT_FROM) && result_dwords <= KEPT_FROM;
    for (k, lanes) in wave.vgpr.iter_mut().enumerate().skip(KEPT_FROM) {
        for (lane, value) in lanes.iter_mut().enumerate() {
            *value = kept_value(k, lane);
        }
    }
    for (lane, list) in args.iter().enumerate() {
        for (k, &value) in list.iter().enumerate() {
            wave.vgpr[k][lane] = value;
        }
    }
    // The return address in s[0:1]: just past the code.
    let return_address = code.len().next_multiple_of(4) as u32;
    wave.sgpr[0] = return_address;
    wave.sgpr[1] = 0;
    let mut lds = Lds::new(DEVICE_LDS_BYTES, generation);
    let mut env = Env {
        memory,
        options,
        return_address: Some(return_address),
        lds: &mut lds,
        wave: 0,
    };
    loop {
        wave.run(&mut program, &mut env)?;
        match wave.state {
            // The only wave of its group passes every barrier.
            State::Barrier => wave.state = State::Running,
            _ => break,
        }
    }
    if wave.state == State::Returned {
        // The caller reads the results right after the return, and the calling convention
        // (docs/ir.md) leaves no memory operation outstanding across it.
        let results = RegSet::range(256, result_dwords as u16);
        let violation = match wave.outstanding.conflict(results) {
            Some((p, regs)) => {
                let names: Vec<String> = regs
                    .ranges()
                    .into_iter()
                    .map(|(f, c)| reg_name(f, c))
                    .collect();
                Some((p.pc, names.join(", ")))
            }
            None => wave.outstanding.oldest().map(|p| {
                (
                    p.pc,
                    "the return (a device function returns with no memory operation \
                     outstanding)"
                        .to_string(),
                )
            }),
        };
        if let Some((issued_at, register)) = violation {
            let return_pc = wave.last_pc;
            let mut text = |pc| {
                program
                    .fetch(pc)
                    .ok()
                    .map(|i| program.get(i).text(generation))
            };
            return Err(SimError {
                pc: return_pc,
                inst: text(return_pc),
                violation: Violation::Waitcnt {
                    register,
                    issued_at,
                    issued: text(issued_at).unwrap_or_default(),
                },
            });
        }
    }
    if wave.state == State::Returned && callable {
        let changed = (KEPT_FROM..wave.vgpr.len())
            .find(|&k| (0..64).any(|lane| wave.vgpr[k][lane] != kept_value(k, lane)));
        let violation = match changed {
            Some(k) => Some(format!(
                "v{k} changed by the call: a device function keeps v32–v255 in every lane \
                 (docs/ir.md, \"Calls\")"
            )),
            None if wave.exec() != exec => Some(format!(
                "EXEC {:#x} at the return, {exec:#x} at the call: a device function returns \
                 with EXEC as it was called",
                wave.exec()
            )),
            None => None,
        };
        if let Some(reason) = violation {
            return Err(SimError {
                pc: wave.last_pc,
                inst: None,
                violation: Violation::Other(reason),
            });
        }
    }
    let results = (0..args.len())
        .map(|lane| (0..result_dwords).map(|k| wave.vgpr[k][lane]).collect())
        .collect();
    Ok((
        results,
        Stats {
            waves: 1,
            instructions: wave.steps,
        },
    ))
}

/// The first VGPR a call keeps.
const KEPT_FROM: usize = 32;

/// What `call_device` puts in VGPR `k` of `lane` to see that the callee keeps it.
fn kept_value(k: usize, lane: usize) -> u32 {
    (k as u32).wrapping_mul(0x9e37_79b9) ^ (lane as u32).wrapping_mul(0x85eb_ca6b) ^ 0x5bd1_e995
}

/// A device function's private memory (`abi`): one wave's scratch of its frame size, the
/// resource in s[4:7] and the frame offset 0 in s2.
fn give_device_frame(
    wave: &mut Wave,
    info: &GcnInfo,
    generation: Gen,
    memory: &mut Memory,
) -> Result<(), SimError> {
    let scratch = Scratch::new(info.private_segment_size, 1, memory)
        .map_err(|e| error(Violation::Other(e)))?;
    let first = DEVICE_SCRATCH_RSRC as usize;
    wave.sgpr[first..first + 4].copy_from_slice(&scratch.resource(1, generation));
    wave.sgpr[DEVICE_FRAME_OFFSET as usize] = 0;
    wave.scratch = Some(scratch.wave_part(0));
    Ok(())
}

/// Offsets in `hsa_kernel_dispatch_packet_t` (HSA Platform System Architecture
/// Specification 2.9.6; `hsa.h`).
mod packet {
    pub const HEADER: usize = 0;
    pub const SETUP: usize = 2;
    pub const WORKGROUP_SIZE: usize = 4; // x, y, z: u16
    pub const GRID_SIZE: usize = 12; // x, y, z: u32, in work-items
    pub const PRIVATE_SEGMENT_SIZE: usize = 24; // u32, bytes per work-item
    pub const GROUP_SEGMENT_SIZE: usize = 28; // u32, bytes per work-group
    pub const KERNEL_OBJECT: usize = 32; // u64, the kernel descriptor's address
    pub const KERNARG_ADDRESS: usize = 40; // u64
    pub const SIZE: usize = 64;
    /// HSA_PACKET_TYPE_KERNEL_DISPATCH in the header's type field.
    pub const KERNEL_DISPATCH: u16 = 2;
}

/// Bytes of the queue a dispatch comes from, as the queue pointer shows it: the HSA
/// `hsa_queue_t` and the AMD fields after it (`amd_queue_t`, 256 bytes), all zero — the
/// simulator models no aperture or doorbell a kernel could read there.
const QUEUE_BYTES: usize = 256;

/// A kernel the dispatcher can start: code and where in it the kernel begins, and its
/// descriptor.
pub struct Kernel<'a> {
    /// The code: a code object's whole `.text` (the kernel and the device functions it
    /// calls), or one compiled kernel.
    pub code: &'a [u8],
    /// Byte offset of the kernel's first instruction in `code`.
    pub entry: u32,
    pub descriptor: KernelDescriptor,
}

/// A dispatch: the HSA packet's grid, in work-items, and the kernarg segment.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// Work-items per work-group in x, y, z: each at most 65535, 1 to 1024 in all.
    pub workgroup_size: [u32; 3],
    /// Work-items in x, y, z, each at least 1. Where a size is not a multiple of the
    /// work-group's, the last work-group along it is partial: it has only the work-items
    /// up to the grid's edge, and its waves fewer lanes.
    pub grid_size: [u32; 3],
    /// The kernarg segment's bytes: at least the descriptor's `kernarg_size` (hidden
    /// arguments included, which the caller lays out).
    pub kernarg: Vec<u8>,
}

/// Runs the compiled kernel `code` over the grid of `launch`, through [`dispatch`] with
/// the descriptor wavelift's code object gives it.
pub(crate) fn launch(
    code: &CompiledCode,
    generation: Gen,
    launch: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    if code.kind != FunctionKind::Kernel {
        return Err(error(Violation::Other(
            "only kernels can be launched; call device functions with `call_device`".into(),
        )));
    }
    let Some(info) = code.gcn() else {
        return Err(error(Violation::Other(
            "the code was not compiled for GCN".into(),
        )));
    };
    let registers = RegisterCounts::new(info, None).map_err(|e| error(Violation::Other(e)))?;
    let kernel = Kernel {
        code: &code.code,
        entry: 0,
        descriptor: KernelDescriptor::new(info, registers),
    };
    let mut grid_size = [0; 3];
    for (d, grid) in grid_size.iter_mut().enumerate() {
        let size = launch.workgroup_size[d] as u64 * launch.groups[d] as u64;
        *grid = u32::try_from(size)
            .map_err(|_| error(Violation::Other("grid larger than 2^32 work-items".into())))?;
    }
    let dispatch_ = Dispatch {
        workgroup_size: launch.workgroup_size,
        grid_size,
        kernarg: launch.params.clone(),
    };
    dispatch(&kernel, generation, &dispatch_, memory, options)
}

/// The dispatcher: places the dispatch packet, the kernarg segment, a queue and the
/// private segment in `memory`, and runs every work-group of the grid, each wave started
/// with the registers and MODE the kernel's descriptor enables (see [`start_wave`]).
pub fn dispatch(
    kernel: &Kernel,
    generation: Gen,
    dispatch: &Dispatch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    let other = |m: String| error(Violation::Other(m));
    let kd = &kernel.descriptor;
    let setup = kd.wave_setup().map_err(other)?;
    let size = dispatch.workgroup_size;
    let items_per_group: u64 = size.iter().map(|&s| s as u64).product();
    if items_per_group == 0 || items_per_group > 1024 || size.iter().any(|&s| s > 0xffff) {
        return Err(other(format!(
            "work-group size {size:?}: each at most 65535, 1 to 1024 work-items in all"
        )));
    }
    let grid = dispatch.grid_size;
    if grid.contains(&0) {
        return Err(other(format!("grid size {grid:?}: each at least 1")));
    }
    if (dispatch.kernarg.len() as u64) < kd.kernarg_size as u64 {
        return Err(other(format!(
            "the kernel reads {} bytes of arguments, the launch gives {}",
            kd.kernarg_size,
            dispatch.kernarg.len()
        )));
    }
    if setup.user_sgprs.contains(&UserSgpr::FlatScratchInit) && generation == Gen::Gfx6 {
        return Err(other("flat_scratch_init on gfx6, which has no FLAT".into()));
    }
    if kernel.entry as usize >= kernel.code.len() || !kernel.entry.is_multiple_of(4) {
        return Err(other(format!(
            "kernel entry {:#x} outside the code",
            kernel.entry
        )));
    }

    let kernarg_address = memory.alloc(&dispatch.kernarg);
    let descriptor_address = memory.alloc(&kd.to_bytes());
    let mut p = [0u8; packet::SIZE];
    let mut put = |at: usize, field: &[u8]| p[at..at + field.len()].copy_from_slice(field);
    put(packet::HEADER, &packet::KERNEL_DISPATCH.to_le_bytes());
    let dims: u16 = if grid[2] > 1 {
        3
    } else if grid[1] > 1 {
        2
    } else {
        1
    };
    put(packet::SETUP, &dims.to_le_bytes());
    for d in 0..3 {
        put(
            packet::WORKGROUP_SIZE + 2 * d,
            &(size[d] as u16).to_le_bytes(),
        );
        put(packet::GRID_SIZE + 4 * d, &grid[d].to_le_bytes());
    }
    put(
        packet::PRIVATE_SEGMENT_SIZE,
        &kd.private_segment_fixed_size.to_le_bytes(),
    );
    put(
        packet::GROUP_SEGMENT_SIZE,
        &kd.group_segment_fixed_size.to_le_bytes(),
    );
    put(packet::KERNEL_OBJECT, &descriptor_address.to_le_bytes());
    put(packet::KERNARG_ADDRESS, &kernarg_address.to_le_bytes());
    let packet_address = memory.alloc(&p);
    let queue_address = if setup.user_sgprs.contains(&UserSgpr::QueuePtr) {
        memory.alloc_zeroed(QUEUE_BYTES)
    } else {
        0
    };

    let groups: [u32; 3] = [0, 1, 2].map(|d| grid[d].div_ceil(size[d]));
    let waves_per_group = items_per_group.div_ceil(64);
    let total_waves = groups.iter().map(|&g| g as u64).product::<u64>() * waves_per_group;
    let scratch =
        Scratch::new(kd.private_segment_fixed_size, total_waves, memory).map_err(other)?;
    let global = GlobalInputs {
        setup,
        generation,
        entry: kernel.entry,
        total_waves,
        packet_address,
        queue_address,
        kernarg_address,
        scratch,
    };

    let mut program = Program::new(kernel.code, generation);
    let mut stats = Stats::default();
    let mut first_wave = 0u64;
    for z in 0..groups[2] {
        for y in 0..groups[1] {
            for x in 0..groups[0] {
                let id = [x, y, z];
                // A partial work-group has the work-items up to the grid's edge.
                let items = [0, 1, 2].map(|d| size[d].min(grid[d] - id[d] * size[d]));
                let group = GroupStart {
                    id,
                    size: items,
                    first_wave,
                };
                run_group(
                    kernel,
                    &global,
                    &group,
                    &mut program,
                    generation,
                    memory,
                    options,
                    &mut stats,
                )?;
                first_wave += waves_per_group;
            }
        }
    }
    Ok(stats)
}

/// Writes the hidden arguments `args` lists (the code object's metadata) into the kernarg
/// segment of `dispatch`, grown to `kernarg_size` bytes if shorter, as the ROCm runtime
/// does for code object version 5 (AMDGPUUsage, "Code Object V5 Metadata", hidden
/// arguments): the work-group counts of full work-groups, the work-group size and the
/// work-items of the partial work-group (the remainder) per dimension, the grid's
/// dimensions; global offsets 0. Every other hidden argument — the pointers (queue,
/// hostcall and printf buffers, heap, default queue, completion action, multigrid sync),
/// the aperture bases, the dynamic LDS size — is 0: the simulator models none of them, and a
/// null pointer faults where it is used.
pub(crate) fn write_hidden_arguments(
    args: &[crate::isa::gcn::code_object::read::ObjectArg],
    kernarg_size: u32,
    dispatch: &mut Dispatch,
) -> Result<(), String> {
    let kernarg = &mut dispatch.kernarg;
    if kernarg.len() < kernarg_size as usize {
        kernarg.resize(kernarg_size as usize, 0);
    }
    let size = dispatch.workgroup_size;
    let grid = dispatch.grid_size;
    if size.contains(&0) {
        return Err(format!("work-group size {size:?}: each at least 1"));
    }
    let dims = if grid[2] > 1 {
        3
    } else if grid[1] > 1 {
        2
    } else {
        1
    };
    for arg in args {
        let Some(kind) = arg.value_kind.strip_prefix("hidden_") else {
            continue;
        };
        let dim = |k: &str| kind.strip_prefix(k).and_then(|d| "xyz".find(d));
        let value: u64 = if let Some(d) = dim("block_count_") {
            (grid[d] / size[d]).into()
        } else if let Some(d) = dim("group_size_") {
            size[d].into()
        } else if let Some(d) = dim("remainder_") {
            (grid[d] % size[d]).into()
        } else if kind == "grid_dims" {
            dims
        } else {
            0
        };
        let (at, len) = (arg.offset as usize, arg.size as usize);
        let field = kernarg
            .get_mut(at..at + len)
            .filter(|_| len <= 8)
            .ok_or_else(|| {
                format!(
                    "hidden argument {} ({len} bytes at {at}) outside the {}-byte kernarg segment",
                    arg.value_kind, kernarg_size
                )
            })?;
        field.copy_from_slice(&value.to_le_bytes()[..len]);
    }
    Ok(())
}

/// The private (scratch) segment of a dispatch: `bytes_per_lane` for each lane of every
/// wave, one region per wave in wave order.
struct Scratch {
    base: u64,
    bytes_per_lane: u32,
}

impl Scratch {
    fn new(bytes_per_lane: u32, waves: u64, memory: &mut Memory) -> Result<Scratch, String> {
        let bytes_per_lane = bytes_per_lane.next_multiple_of(4);
        if bytes_per_lane == 0 {
            return Ok(Scratch {
                base: 0,
                bytes_per_lane,
            });
        }
        let total = waves * 64 * bytes_per_lane as u64;
        if total > 1 << 30 {
            return Err(format!(
                "{total} bytes of scratch ({bytes_per_lane} per work-item): more than the \
                 simulator allocates"
            ));
        }
        Ok(Scratch {
            base: memory.alloc_zeroed(total as usize),
            bytes_per_lane,
        })
    }

    /// Bytes of one wave's region: its 64 lanes' private segments, interleaved dword by
    /// dword (see [`Scratch::resource`]).
    fn wave_bytes(&self) -> u32 {
        64 * self.bytes_per_lane
    }

    /// The private segment buffer resource (a V#, GCN3 ISA 8.1.8 "Buffer Resource";
    /// AMDGPUUsage, "Private Segment Buffer"): the scratch base; swizzled (SWIZZLE_ENABLE)
    /// with stride 0, so that dword k of lane t of a wave lies at
    /// `base + wave offset + k * 256 + t * 4` (ADD_TID_ENABLE adds the lane to the index,
    /// INDEX_STRIDE 3 = 64 lanes, ELEMENT_SIZE 1 = 4 bytes); NUM_RECORDS the whole
    /// segment. The kernel adds its wave offset (the system SGPR) to the base or passes it
    /// as SOFFSET.
    /// gfx6/gfx7 treat DATA_FORMAT 0 as invalid (every access out of range) even for
    /// untyped accesses, so there it is 1 (8 bits, ignored), as Mesa's radeonsi sets it
    /// (`si_setup_user_sgprs_co_v2`: "BUF_DATA_FORMAT is ignored, but it cannot be
    /// BUF_DATA_FORMAT_INVALID").
    fn resource(&self, waves: u64, generation: Gen) -> [u32; 4] {
        const SWIZZLE_ENABLE: u32 = 1 << 31;
        const ELEMENT_SIZE_4: u32 = 1 << 19;
        const INDEX_STRIDE_64: u32 = 3 << 21;
        const ADD_TID_ENABLE: u32 = 1 << 23;
        const DATA_FORMAT_8: u32 = 1 << 15;
        let records = (waves * self.wave_bytes() as u64).min(u32::MAX as u64) as u32;
        let data_format = if generation < Gen::Gfx8 {
            DATA_FORMAT_8
        } else {
            0
        };
        [
            self.base as u32,
            (self.base >> 32) as u32 & 0xffff | SWIZZLE_ENABLE,
            records,
            ELEMENT_SIZE_4 | INDEX_STRIDE_64 | ADD_TID_ENABLE | data_format,
        ]
    }

    /// The addresses of wave `index`'s part, which its private accesses must stay in.
    fn wave_part(&self, index: u64) -> std::ops::Range<u64> {
        let start = self.base + index * self.wave_bytes() as u64;
        start..start + self.wave_bytes() as u64
    }
}

/// What every wave of a dispatch starts with.
struct GlobalInputs {
    setup: WaveSetup,
    generation: Gen,
    /// The kernel's first instruction.
    entry: u32,
    /// Waves in the whole dispatch.
    total_waves: u64,
    packet_address: u64,
    queue_address: u64,
    kernarg_address: u64,
    scratch: Scratch,
}

struct GroupStart {
    id: [u32; 3],
    /// Work-items of this work-group in x, y, z (fewer than the work-group size in a
    /// partial work-group).
    size: [u32; 3],
    /// The dispatch-wide index of the group's first wave (its scratch region).
    first_wave: u64,
}

/// The initial state of wave `w` of a work-group, as the descriptor enables it
/// (AMDGPUUsage, "Initial Kernel Execution State"): the user SGPRs in the ABI's order
/// from s0, then the system SGPRs (work-group ids x, y, z, work-group info, private
/// segment wave offset); v0/v1/v2 the work-item ids x/y/z (x fastest over the
/// work-group's actual size; GFX6–GFX9 do not pack them); EXEC the lanes that have a
/// work-item; MODE the descriptor's float mode.
fn start_wave(global: &GlobalInputs, group: &GroupStart, w: u32) -> Wave {
    let setup = &global.setup;
    let mut wave = Wave::new();
    wave.mode = setup.mode;
    let wave_index = group.first_wave + w as u64;
    let wave_offset = (wave_index * global.scratch.wave_bytes() as u64) as u32;
    let mut sgprs: Vec<u32> = Vec::new();
    let pair = |v: u64| [v as u32, (v >> 32) as u32];
    for input in &setup.user_sgprs {
        match input {
            UserSgpr::PrivateSegmentBuffer => {
                sgprs.extend(
                    global
                        .scratch
                        .resource(global.total_waves, global.generation),
                );
            }
            UserSgpr::DispatchPtr => sgprs.extend(pair(global.packet_address)),
            UserSgpr::QueuePtr => sgprs.extend(pair(global.queue_address)),
            UserSgpr::KernargSegmentPtr => sgprs.extend(pair(global.kernarg_address)),
            // The first dispatch of the queue.
            UserSgpr::DispatchId => sgprs.extend(pair(0)),
            // GFX9: the 64-bit address of the queue's scratch, to which the kernel adds its
            // wave offset; GFX7/GFX8: that address as an offset from a private aperture
            // base of 0, and the bytes per work-item (AMDGPUUsage, "Flat Scratch").
            UserSgpr::FlatScratchInit => sgprs.extend(match global.generation {
                Gen::Gfx9 => pair(global.scratch.base),
                _ => [global.scratch.base as u32, global.scratch.bytes_per_lane],
            }),
            UserSgpr::PrivateSegmentSize => sgprs.push(global.scratch.bytes_per_lane),
        }
    }
    for d in 0..3 {
        if setup.workgroup_id[d] {
            sgprs.push(group.id[d]);
        }
    }
    if setup.workgroup_info {
        // {first_wave [31], ordered-append term [16:6] = 0, waves in the work-group [5:0]}.
        let waves = group.size.iter().product::<u32>().div_ceil(64);
        sgprs.push(u32::from(w == 0) << 31 | waves & 0x3f);
    }
    if setup.private_segment_wave_offset {
        sgprs.push(wave_offset);
    }
    wave.sgpr[..sgprs.len()].copy_from_slice(&sgprs);
    if global.scratch.bytes_per_lane > 0 {
        wave.scratch = Some(global.scratch.wave_part(wave_index));
    }

    let [sx, sy, _] = group.size;
    let items = group.size.iter().product::<u32>();
    let mut exec = 0u64;
    for lane in 0..64u32 {
        let i = w * 64 + lane;
        if i >= items {
            break;
        }
        exec |= 1 << lane;
        let ids = [i % sx, i / sx % sy, i / (sx * sy)];
        for (d, &id) in ids.iter().enumerate().take(setup.workitem_id_dims as usize) {
            wave.vgpr[d][lane as usize] = id;
        }
    }
    wave.set_exec(exec);
    wave.pc = global.entry;
    wave
}

/// How many rounds of one instruction per wave wave w + 1 starts after wave w, at the
/// start of a work-group and after each barrier: a deterministic skew that makes a wave
/// read what a later wave writes before it is written when no barrier orders them.
const SKEW: u32 = 16;

/// Runs the waves of one work-group to their ends, interleaved one instruction each in
/// turn after the [`SKEW`], so that a missing barrier shows as a wrong value (and, in LDS,
/// as a reported race: `lds.rs`), and releases a barrier when every wave that has not
/// ended is waiting at it. The LDS is the kernel's group segment, in whole allocation
/// granules.
#[allow(clippy::too_many_arguments)]
fn run_group(
    kernel: &Kernel,
    global: &GlobalInputs,
    group: &GroupStart,
    program: &mut Program,
    generation: Gen,
    memory: &mut Memory,
    options: &Options,
    stats: &mut Stats,
) -> Result<(), SimError> {
    let items = group.size.iter().product::<u32>();
    let mut waves: Vec<Wave> = (0..items.div_ceil(64))
        .map(|w| start_wave(global, group, w))
        .collect();
    let mut lds = Lds::new(kernel.descriptor.group_segment_fixed_size, generation);
    let mut env = Env {
        memory,
        options,
        return_address: None,
        lds: &mut lds,
        wave: 0,
    };
    // Rounds each wave sits out before it runs: at the start and after each barrier, wave w
    // starts `SKEW * w` rounds after wave 0.
    let skew = |w: usize| SKEW * w as u32;
    let mut delay: Vec<u32> = (0..waves.len()).map(skew).collect();
    loop {
        let mut ran = false;
        for (w, wave) in waves.iter_mut().enumerate() {
            if wave.state != State::Running {
                continue;
            }
            ran = true;
            if delay[w] > 0 {
                delay[w] -= 1;
                continue;
            }
            env.wave = w as u32;
            wave.step(program, &mut env)?;
        }
        if ran {
            continue;
        }
        if waves.iter().all(|w| w.state == State::Ended) {
            break;
        }
        // Every wave that has not ended waits at the barrier: release it, and start a
        // new interval for the race check.
        env.lds.races.epoch += 1;
        for (w, wave) in waves.iter_mut().enumerate() {
            if wave.state == State::Barrier {
                wave.state = State::Running;
                delay[w] = skew(w);
            }
        }
    }
    stats.waves += waves.len() as u64;
    stats.instructions += waves.iter().map(|w| w.steps).sum::<u64>();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor enabling every input: all seven user SGPRs (4 + 2 + 2 + 2 + 2 + 2 + 1
    /// = 15), the work-group ids y and z but not x, work-group info, the scratch wave
    /// offset, three work-item id VGPRs; round toward zero for f32, f64 denormals flushed,
    /// DX10 clamp off, IEEE on.
    fn everything() -> KernelDescriptor {
        KernelDescriptor {
            group_segment_fixed_size: 0,
            private_segment_fixed_size: 20,
            kernarg_size: 0,
            compute_pgm_rsrc1: 3 << 12 | 3 << 16 | 1 << 23,
            compute_pgm_rsrc2: 1 | 15 << 1 | 1 << 8 | 1 << 9 | 1 << 10 | 2 << 11,
            kernel_code_properties: 0x7f,
        }
    }

    #[test]
    fn inputs_in_the_abis_order() {
        let setup = everything().wave_setup().unwrap();
        assert_eq!(setup.mode, 0x3 | 0x3 << 4 | 1 << 9);
        let mut memory = Memory::new();
        let scratch = Scratch::new(20, 6, &mut memory).unwrap();
        let base = scratch.base;
        let global = GlobalInputs {
            setup,
            generation: Gen::Gfx9,
            entry: 0x100,
            total_waves: 6,
            packet_address: 0x1111_0000_2222,
            queue_address: 0x3333_0000_4444,
            kernarg_address: 0x5555_0000_6666,
            scratch,
        };
        // The second wave of a partial 10 x 9 x 1 work-group (90 work-items: 64 + 26) whose
        // first wave is the dispatch's fourth.
        let group = GroupStart {
            id: [7, 8, 9],
            size: [10, 9, 1],
            first_wave: 3,
        };
        let wave = start_wave(&global, &group, 1);
        let resource = [
            base as u32,
            (base >> 32) as u32 | 1 << 31,
            6 * 64 * 20,
            1 << 19 | 3 << 21 | 1 << 23,
        ];
        let mut expected = resource.to_vec();
        expected.extend([0x2222, 0x1111, 0x4444, 0x3333, 0x6666, 0x5555, 0, 0]);
        expected.extend([base as u32, (base >> 32) as u32, 20]);
        // Work-group ids y and z, the info (not the first wave; 2 waves), the offset of the
        // dispatch's fifth wave.
        expected.extend([8, 9, 2, 4 * 64 * 20]);
        assert_eq!(&wave.sgpr[..expected.len()], &expected[..]);
        assert_eq!(wave.pc, 0x100);
        assert_eq!(wave.mode, 0x233);
        assert_eq!(
            wave.exec(),
            (1 << 26) - 1,
            "26 work-items in the second wave"
        );
        // Work-item 64 + 25 = 89 of a 10 x 9 work-group: x 9, y 8.
        assert_eq!(
            [wave.vgpr[0][25], wave.vgpr[1][25], wave.vgpr[2][25]],
            [9, 8, 0]
        );
        assert_eq!([wave.vgpr[0][0], wave.vgpr[1][0]], [4, 6]);
    }

    /// The hidden arguments of a 100 x 7 x 3 grid in 64 x 4 x 1 work-groups, at the
    /// offsets llc-19's metadata gives them after 12 bytes of explicit arguments.
    #[test]
    fn hidden_arguments_as_the_runtime_fills_them() {
        use crate::isa::gcn::code_object::read::ObjectArg;
        let arg = |kind: &str, offset, size| ObjectArg {
            offset,
            size,
            value_kind: format!("hidden_{kind}"),
        };
        let args = [
            arg("block_count_x", 16, 4),
            arg("block_count_y", 20, 4),
            arg("block_count_z", 24, 4),
            arg("group_size_x", 28, 2),
            arg("group_size_y", 30, 2),
            arg("remainder_x", 34, 2),
            arg("remainder_y", 36, 2),
            arg("global_offset_x", 56, 8),
            arg("grid_dims", 80, 2),
            arg("queue_ptr", 120, 8),
        ];
        let mut dispatch = Dispatch {
            workgroup_size: [64, 4, 1],
            grid_size: [100, 7, 3],
            kernarg: vec![0xee; 12],
        };
        write_hidden_arguments(&args, 272, &mut dispatch).unwrap();
        let k = &dispatch.kernarg;
        assert_eq!(k.len(), 272);
        assert_eq!(k[..12], [0xee; 12], "explicit arguments kept");
        let word = |at: usize| u32::from_le_bytes(k[at..at + 4].try_into().unwrap());
        let half = |at: usize| u16::from_le_bytes([k[at], k[at + 1]]);
        assert_eq!([word(16), word(20), word(24)], [1, 1, 3]);
        assert_eq!([half(28), half(30)], [64, 4]);
        assert_eq!([half(34), half(36)], [36, 3]);
        assert_eq!(half(80), 3);
        assert!(k[56..64].iter().chain(&k[120..128]).all(|&b| b == 0));
        let outside = [arg("grid_dims", 271, 2)];
        assert!(write_hidden_arguments(&outside, 272, &mut dispatch).is_err());
    }

    #[test]
    fn descriptors_the_dispatcher_refuses() {
        let mut kd = everything();
        kd.compute_pgm_rsrc2 &= !(0x1f << 1);
        assert!(
            kd.wave_setup()
                .unwrap_err()
                .contains("USER_SGPR_COUNT is 0")
        );
        let mut kd = everything();
        kd.kernel_code_properties |= 1 << 10;
        assert!(kd.wave_setup().unwrap_err().contains("wave32"));
    }
}
