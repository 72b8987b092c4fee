//! Starting waves: a device-function call in one wave, and a kernel launch over a grid with
//! the initial state the AMDHSA ABI defines (AMDGPU LLVM docs, "Initial Kernel Execution
//! State"; the HSA `hsa_kernel_dispatch_packet_t`).

use super::lds::Lds;
use super::program::{Program, RegSet};
use super::scratch::{ScratchWaves, scratch_resource};
use super::wave::{Env, State, Wave, reg_name};
use crate::isa::gcn::GcnInfo;
use crate::isa::gcn::abi::{DEVICE_FRAME_OFFSET, DEVICE_SCRATCH_RSRC};
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
        give_device_frame(&mut wave, info, generation, memory);
    }
    let exec = if args.len() == 64 {
        !0
    } else {
        (1u64 << args.len()) - 1
    };
    wave.set_exec(exec);
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

/// A device function's private memory (`abi`): a wave's scratch of its frame size, the
/// resource in s[4:7] and the frame offset 0 in s2.
fn give_device_frame(wave: &mut Wave, info: &GcnInfo, generation: Gen, memory: &mut Memory) {
    let scratch = ScratchWaves::new(memory, info.private_segment_size, 1);
    let rsrc = scratch_resource(scratch.base, generation);
    let first = DEVICE_SCRATCH_RSRC as usize;
    wave.sgpr[first..first + 4].copy_from_slice(&rsrc);
    wave.sgpr[DEVICE_FRAME_OFFSET as usize] = 0;
    wave.scratch = Some(scratch.parts[0].1.clone());
}

/// Offsets in `hsa_kernel_dispatch_packet_t` (HSA Platform System Architecture
/// Specification 2.9.6; `hsa.h`).
mod packet {
    pub const HEADER: usize = 0;
    pub const SETUP: usize = 2;
    pub const WORKGROUP_SIZE: usize = 4; // x, y, z: u16
    pub const GRID_SIZE: usize = 12; // x, y, z: u32, in work-items
    pub const KERNARG_ADDRESS: usize = 40; // u64
    pub const SIZE: usize = 64;
    /// HSA_PACKET_TYPE_KERNEL_DISPATCH in the header's type field.
    pub const KERNEL_DISPATCH: u16 = 2;
}

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
    let size = launch.workgroup_size;
    let items_per_group: u64 = size.iter().map(|&s| s as u64).product();
    if items_per_group == 0 || items_per_group > 1024 || size.iter().any(|&s| s > 0xffff) {
        return Err(error(Violation::Other(format!(
            "work-group size {size:?}: each at most 65535, 1 to 1024 work-items in all"
        ))));
    }
    let grid: Vec<u64> = (0..3)
        .map(|d| size[d] as u64 * launch.groups[d] as u64)
        .collect();
    if grid.iter().any(|&g| g > u32::MAX as u64) {
        return Err(error(Violation::Other(
            "grid larger than 2^32 work-items".into(),
        )));
    }
    let Some(info) = code.gcn() else {
        return Err(error(Violation::Other(
            "the code was not compiled for GCN".into(),
        )));
    };
    if (launch.params.len() as u32) < info.kernarg_size {
        return Err(error(Violation::Other(format!(
            "the kernel reads {} bytes of arguments, the launch gives {}",
            info.kernarg_size,
            launch.params.len()
        ))));
    }

    let kernarg_address = memory.alloc(&launch.params);
    let mut p = [0u8; packet::SIZE];
    p[packet::HEADER..][..2].copy_from_slice(&packet::KERNEL_DISPATCH.to_le_bytes());
    let dims: u16 = if grid[2] > 1 {
        3
    } else if grid[1] > 1 {
        2
    } else {
        1
    };
    p[packet::SETUP..][..2].copy_from_slice(&dims.to_le_bytes());
    for d in 0..3 {
        p[packet::WORKGROUP_SIZE + 2 * d..][..2].copy_from_slice(&(size[d] as u16).to_le_bytes());
        p[packet::GRID_SIZE + 4 * d..][..4].copy_from_slice(&(grid[d] as u32).to_le_bytes());
    }
    p[packet::KERNARG_ADDRESS..][..8].copy_from_slice(&kernarg_address.to_le_bytes());
    let packet_address = memory.alloc(&p);

    let mut program = Program::new(&code.code, generation);
    let mut stats = Stats::default();
    // Scratch for the waves of one work-group at a time, reused by the next, as the
    // hardware reuses a finished wave's scratch.
    let scratch = info.inputs.private_segment.then(|| {
        let waves = items_per_group.div_ceil(64) as usize;
        ScratchWaves::new(memory, info.private_segment_size, waves)
    });
    let [gx, gy, gz] = launch.groups;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let group = GroupStart {
                    id: [x, y, z],
                    size,
                    packet_address,
                    kernarg_address,
                    scratch: scratch.as_ref(),
                    generation,
                };
                run_group(
                    info,
                    &group,
                    &mut program,
                    generation,
                    memory,
                    options,
                    &mut stats,
                )?;
            }
        }
    }
    Ok(stats)
}

struct GroupStart<'a> {
    id: [u32; 3],
    size: [u32; 3],
    packet_address: u64,
    kernarg_address: u64,
    /// The waves' scratch, when the kernel enables the private segment.
    scratch: Option<&'a ScratchWaves>,
    generation: Gen,
}

/// The initial state of wave `w` of a work-group: user SGPRs (private segment buffer,
/// dispatch pointer, kernarg pointer), then the system SGPRs for the work-group ids and the
/// private segment wave offset, in the ABI's order and only those enabled; v0/v1/v2 the
/// work-item ids x/y/z (x fastest); EXEC the lanes that have a work-item.
fn start_wave(info: &GcnInfo, group: &GroupStart, w: u32) -> Wave {
    let mut wave = Wave::new();
    let inputs = &info.inputs;
    let mut next = 0usize;
    let scratch = group.scratch.map(|s| (s, &s.parts[w as usize]));
    if let Some((waves, _)) = scratch {
        wave.sgpr[..4].copy_from_slice(&scratch_resource(waves.base, group.generation));
        next = 4;
    }
    let mut pair = |wave: &mut Wave, value: u64| {
        wave.sgpr[next] = value as u32;
        wave.sgpr[next + 1] = (value >> 32) as u32;
        next += 2;
    };
    if inputs.dispatch_ptr {
        pair(&mut wave, group.packet_address);
    }
    if inputs.kernarg_segment_ptr {
        pair(&mut wave, group.kernarg_address);
    }
    for d in 0..3 {
        if inputs.workgroup_id[d] {
            wave.sgpr[next] = group.id[d];
            next += 1;
        }
    }
    if let Some((_, (offset, part))) = scratch {
        wave.sgpr[next] = *offset;
        wave.scratch = Some(part.clone());
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
        for (d, &id) in ids
            .iter()
            .enumerate()
            .take(inputs.workitem_id_vgprs.clamp(1, 3) as usize)
        {
            wave.vgpr[d][lane as usize] = id;
        }
    }
    wave.set_exec(exec);
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
    info: &GcnInfo,
    group: &GroupStart,
    program: &mut Program,
    generation: Gen,
    memory: &mut Memory,
    options: &Options,
    stats: &mut Stats,
) -> Result<(), SimError> {
    let items = group.size.iter().product::<u32>();
    let mut waves: Vec<Wave> = (0..items.div_ceil(64))
        .map(|w| start_wave(info, group, w))
        .collect();
    let mut lds = Lds::new(info.group_segment_size, generation);
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
        env.lds.epoch += 1;
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
