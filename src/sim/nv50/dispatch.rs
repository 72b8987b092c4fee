//! Starting warps: a device-function call in one warp, and a kernel launch over a grid
//! with the state nouveau's compute launch sets up (`docs/nv50.md`, "The launch nouveau
//! performs", "At entry", "Shared memory: the system area and the arguments").

use std::collections::BTreeSet;

use super::graphics::Stage;
use super::program::Program;
use super::warp::{Env, State, WARP_THREADS, Warp};
use crate::isa::nv50::mc::{self, Variant};
use crate::isa::nv50::regs::FIRST_CALLEE_SAVED_GPR;
use crate::sim::races::RaceCheck;
use crate::sim::{Launch, Memory, Options, SimError, Stats, Violation};
use crate::{CompiledCode, FunctionKind};

/// Bytes of `s[]` per block: the hardware's maximum (`SHARED_SIZE` at most 0x4000).
pub(crate) const SHARED_BYTES: usize = 0x4000;
/// Where the kernel's parameters start in `s[]`.
pub(crate) const PARAMS_OFFSET: usize = 0x14;
/// At most 63 words of parameters (`USER_PARAM_COUNT` counts 64, one is the grid's z).
pub(crate) const MAX_PARAM_BYTES: usize = 252;

fn error(violation: Violation) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation,
    }
}

pub(crate) fn call_device(
    code: &[u8],
    variant: Variant,
    local_size: u32,
    args: &[Vec<u32>],
    result_dwords: usize,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<u32>>, Stats), SimError> {
    if args.len() > WARP_THREADS {
        return Err(error(Violation::Other(format!(
            "{} argument lists for a {WARP_THREADS}-thread warp",
            args.len()
        ))));
    }
    if result_dwords > 128 || args.iter().any(|a| a.len() > 128) {
        return Err(error(Violation::Other(
            "more than 128 words of arguments or results".into(),
        )));
    }
    let mut program = Program::new(code, variant, mc::Program::Compute);
    let mask = if args.len() == WARP_THREADS {
        !0
    } else {
        (1u32 << args.len()) - 1
    };
    let mut warp = Warp::new(mask, 0);
    // Started as if called: the `ret` that finds no `call` entry ends the thread.
    warp.ret_ends_thread = true;
    // The registers a call keeps: from `$r16`, past the arguments and results. Each holds
    // a value of its own, which must come back (`docs/ir.md`, "Calls").
    let words = args
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(result_dwords);
    let kept = (FIRST_CALLEE_SAVED_GPR as usize).max(words)..warp.r.len();
    for k in kept.clone() {
        for t in 0..WARP_THREADS {
            warp.r[k][t] = kept_pattern(k, t);
        }
    }
    for (t, list) in args.iter().enumerate() {
        for (k, &v) in list.iter().enumerate() {
            warp.r[k][t] = v;
        }
    }
    let mut shared = vec![0u8; SHARED_BYTES];
    let mut races = RaceCheck::new("s[]", "warp", SHARED_BYTES);
    let mut locked = BTreeSet::new();
    let mut env = Env {
        memory,
        shared: &mut shared,
        races: &mut races,
        locked: &mut locked,
        local_size: local_size as usize,
        options,
        stage: None,
    };
    loop {
        warp.run(&mut program, &mut env)?;
        match warp.state {
            // The only warp of its block passes every barrier.
            State::Barrier => warp.state = State::Running,
            _ => break,
        }
    }
    for k in kept {
        for t in 0..args.len() {
            if warp.r[k][t] != kept_pattern(k, t) {
                return Err(error(Violation::Other(format!(
                    "the device function changed `$r{k}` of thread {t} ({:#x} → {:#x}): a \
                     call keeps `$r16` and up (docs/ir.md, \"Calls\")",
                    kept_pattern(k, t),
                    warp.r[k][t]
                ))));
            }
        }
    }
    let results = (0..args.len())
        .map(|t| (0..result_dwords).map(|k| warp.r[k][t]).collect())
        .collect();
    Ok((
        results,
        Stats {
            waves: 1,
            instructions: warp.steps,
        },
    ))
}

/// The value `$r<k>` of thread `t` holds across a device call, distinct per register and
/// thread.
fn kept_pattern(k: usize, t: usize) -> u32 {
    0x5a00_0000 | (k as u32) << 8 | t as u32
}

/// What a graphics program's warp left: the first registers of every thread (a fragment
/// program's results: `docs/nv50.md`, "Graphics stages") and the threads its `discard`
/// ended.
#[derive(Debug)]
pub struct StageEnd {
    pub registers: Vec<Vec<u32>>,
    pub discarded: u32,
    /// Instructions the warp executed.
    pub steps: u64,
}

/// Runs a vertex or fragment program on one warp whose threads in `lanes` are live, against
/// `stage` (whose `o[]` words it writes): the first `result_words` registers of every thread
/// when it ends, and the threads discarded.
pub(crate) fn run_stage(
    code: &[u8],
    variant: Variant,
    stage: &mut Stage,
    lanes: u32,
    result_words: usize,
    options: &Options,
) -> Result<StageEnd, SimError> {
    let kind = match stage {
        Stage::Vertex(_) => mc::Program::Vertex,
        Stage::Fragment(_) => mc::Program::Fragment,
    };
    let mut program = Program::new(code, variant, kind);
    let mut warp = Warp::new(lanes, 0);
    let mut memory = Memory::new();
    let mut shared = Vec::new();
    let mut races = RaceCheck::new("s[]", "warp", 0);
    let mut locked = BTreeSet::new();
    let mut env = Env {
        memory: &mut memory,
        shared: &mut shared,
        races: &mut races,
        locked: &mut locked,
        local_size: 0,
        options,
        stage: Some(stage),
    };
    warp.run(&mut program, &mut env)?;
    if warp.state != State::Done {
        return Err(error(Violation::Other(
            "a graphics program stopped at a barrier".into(),
        )));
    }
    Ok(StageEnd {
        registers: (0..WARP_THREADS)
            .map(|t| (0..result_words).map(|k| warp.r[k][t]).collect())
            .collect(),
        discarded: warp.discarded,
        steps: warp.steps,
    })
}

/// Checks that `code` is a kernel before [`launch`] runs it.
pub(crate) fn launch_kernel(
    code: &CompiledCode,
    variant: Variant,
    launch_: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    if code.kind != FunctionKind::Kernel {
        return Err(error(Violation::Other(
            "only kernels can be launched; call device functions with `call_device`".into(),
        )));
    }
    let local_size = code.nv50().map_or(0, |info| info.local_size);
    launch(&code.code, variant, local_size, launch_, memory, options)
}

/// Runs the kernel `code` over the grid of `launch`, each thread with `local_size` bytes
/// of `l[]`.
pub(crate) fn launch(
    code: &[u8],
    variant: Variant,
    local_size: u32,
    launch: &Launch,
    memory: &mut Memory,
    options: &Options,
) -> Result<Stats, SimError> {
    let [bx, by, bz] = launch.workgroup_size;
    let [gx, gy, gz] = launch.groups;
    let threads = bx as u64 * by as u64 * bz as u64;
    // nouveau's compute caps (`nv50_screen.c`): 512 × 512 × 64, 512 in all; the grid is
    // 16 bits per dimension (`GRIDDIM`, and `USER_PARAM(0)` for z).
    if threads == 0 || threads > 512 || bx > 512 || by > 512 || bz > 64 {
        return Err(error(Violation::Other(format!(
            "block of {bx} × {by} × {bz} threads (at most 512 × 512 × 64, 512 in all)"
        ))));
    }
    if [gx, gy, gz].iter().any(|&g| g == 0 || g > 0xffff) {
        return Err(error(Violation::Other(format!(
            "grid of {gx} × {gy} × {gz} blocks (1 to 65535 per dimension)"
        ))));
    }
    if launch.params.len() > MAX_PARAM_BYTES {
        return Err(error(Violation::Other(format!(
            "{} bytes of parameters (at most {MAX_PARAM_BYTES})",
            launch.params.len()
        ))));
    }
    let mut program = Program::new(code, variant, mc::Program::Compute);
    let mut stats = Stats::default();
    let threads = threads as u32;
    let warps = threads.div_ceil(WARP_THREADS as u32);
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let mut shared = vec![0u8; SHARED_BYTES];
                for (offset, value) in [
                    (0x02, bx),
                    (0x04, by),
                    (0x06, bz),
                    (0x08, gx),
                    (0x0a, gy),
                    (0x0c, x),
                    (0x0e, y),
                    // USER_PARAM(0): grid_z | z << 16.
                    (0x10, gz),
                    (0x12, z),
                ] {
                    shared[offset..offset + 2].copy_from_slice(&(value as u16).to_le_bytes());
                }
                shared[PARAMS_OFFSET..PARAMS_OFFSET + launch.params.len()]
                    .copy_from_slice(&launch.params);
                let mut block: Vec<Warp> = (0..warps)
                    .map(|w| {
                        let first = w * WARP_THREADS as u32;
                        let n = (threads - first).min(WARP_THREADS as u32);
                        let mask = if n == 32 { !0 } else { (1u32 << n) - 1 };
                        let mut warp = Warp::new(mask, 0);
                        warp.id = w;
                        for t in 0..n as usize {
                            let id = first + t as u32;
                            let (tx, ty, tz) = (id % bx, id / bx % by, id / (bx * by));
                            warp.r[0][t] = tx | ty << 16 | tz << 26;
                        }
                        warp
                    })
                    .collect();
                let mut races = RaceCheck::new("s[]", "warp", SHARED_BYTES);
                let mut locked = BTreeSet::new();
                let mut env = Env {
                    memory,
                    shared: &mut shared,
                    races: &mut races,
                    locked: &mut locked,
                    local_size: local_size as usize,
                    options,
                    stage: None,
                };
                run_block(&mut block, &mut program, &mut env)?;
                for warp in &block {
                    stats.waves += 1;
                    stats.instructions += warp.steps;
                }
            }
        }
    }
    Ok(stats)
}

/// How many rounds of one instruction per warp warp w + 1 starts after warp w, at the
/// start of a block and after each barrier: a deterministic skew that makes a warp read
/// what a later warp writes before it is written when no barrier orders them (as the GCN
/// simulator skews waves).
const SKEW: u32 = 16;

/// Runs the warps of a block interleaved, one instruction each in turn after the [`SKEW`],
/// so that a missing barrier shows as a wrong value or a reported race on `s[]`; a barrier
/// opens when every warp that has not ended waits at it.
fn run_block(block: &mut [Warp], program: &mut Program, env: &mut Env) -> Result<(), SimError> {
    let skew = |w: usize| SKEW * w as u32;
    let mut delay: Vec<u32> = (0..block.len()).map(skew).collect();
    loop {
        let mut ran = false;
        for (w, warp) in block.iter_mut().enumerate() {
            if warp.state != State::Running {
                continue;
            }
            ran = true;
            if delay[w] > 0 {
                delay[w] -= 1;
                continue;
            }
            warp.run_one(program, env)?;
        }
        if ran {
            continue;
        }
        if block.iter().all(|w| w.state == State::Done) {
            return Ok(());
        }
        // Every warp that has not ended waits at the barrier: release it, and start a new
        // interval for the race check.
        env.races.epoch += 1;
        for (w, warp) in block.iter_mut().enumerate() {
            if warp.state == State::Barrier {
                warp.state = State::Running;
                delay[w] = skew(w);
            }
        }
    }
}
