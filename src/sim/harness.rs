//! Running CLIF functions on a simulator and checking them against Cranelift's reference
//! semantics: argument and result conversion between [`DataValue`]s and the register
//! dwords of the calling conventions, kernel-argument segments, the comparison rule for
//! results, and `cranelift-interpreter` as the reference.
//!
//! Used by `clif-util run`, `test run` filetests and the differential tester.

use super::{
    Color, FragmentOutputs, Memory, Options, Scene, SimError, Stats, VertexLaunch, VertexOutputs,
    Violation, simulator,
};
use crate::analysis::cfg::Cfg;
use crate::intrinsics::{InterpMode, Intrinsic, WaveOp};
use crate::machinst::divergence::linear_layout::Layout;
use crate::{CompiledCode, FunctionKind, Target, ir};
use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::immediates::{Ieee16, Ieee32, Ieee64};
use cranelift_codegen::ir::{ExternalName, FuncRef, GlobalValue, MemFlagsData, StackSlot};
use cranelift_interpreter::address::{Address, AddressRegion, AddressSize};
use cranelift_interpreter::environment::FunctionStore;
use cranelift_interpreter::frame::Frame;
use cranelift_interpreter::instruction::DfgInstructionContext;
use cranelift_interpreter::interpreter::{Interpreter, InterpreterState, LibCallHandler};
use cranelift_interpreter::state::{InterpreterFunctionRef, MemoryError, State};
use cranelift_interpreter::step::{ControlFlow, step};

/// Appends the register dwords of `value` (low dword first). An `i8`/`i16` fills the
/// upper bits of its dword from `junk`, and so does an `f16`: the calling conventions leave them unspecified, and
/// filling them with garbage checks that compiled code does not depend on them.
pub fn push_dwords(value: &DataValue, junk: u32, out: &mut Vec<u32>) -> Result<(), String> {
    match *value {
        DataValue::I8(v) => out.push(v as u8 as u32 | junk & !0xff),
        DataValue::I16(v) => out.push(v as u16 as u32 | junk & !0xffff),
        DataValue::F16(v) => out.push(v.bits() as u32 | junk & !0xffff),
        DataValue::I32(v) => out.push(v as u32),
        DataValue::F32(v) => out.push(v.bits()),
        DataValue::I64(v) => out.extend([v as u32, (v >> 32) as u32]),
        DataValue::F64(v) => out.extend([v.bits() as u32, (v.bits() >> 32) as u32]),
        ref other => return Err(format!("values of type {} are not supported", other.ty())),
    }
    Ok(())
}

/// How many dwords a value of type `ty` occupies.
pub fn dwords_of(ty: ir::Type) -> usize {
    (ty.bytes() as usize).div_ceil(4)
}

/// The value of type `ty` held in `dwords` (only the low bits of a narrow integer count).
pub fn value_from_dwords(ty: ir::Type, dwords: &[u32]) -> DataValue {
    let wide = || dwords[0] as u64 | (dwords[1] as u64) << 32;
    match ty {
        ir::types::I8 => DataValue::I8(dwords[0] as i8),
        ir::types::I16 => DataValue::I16(dwords[0] as i16),
        ir::types::F16 => DataValue::F16(Ieee16::with_bits(dwords[0] as u16)),
        ir::types::I32 => DataValue::I32(dwords[0] as i32),
        ir::types::F32 => DataValue::F32(Ieee32::with_bits(dwords[0])),
        ir::types::I64 => DataValue::I64(wide() as i64),
        ir::types::F64 => DataValue::F64(Ieee64::with_bits(wide())),
        _ => unreachable!("push_dwords rejected {ty}"),
    }
}

/// Whether `actual` is an acceptable result where `expected` was expected: the same bits,
/// except that any NaN matches any NaN (CLIF does not define the sign and payload of a NaN
/// produced by arithmetic; run lines that care compare bit patterns through `bitcast`).
pub fn same_value(expected: &DataValue, actual: &DataValue) -> bool {
    match (expected, actual) {
        (DataValue::F16(a), DataValue::F16(b)) => a.bits() == b.bits() || a.is_nan() && b.is_nan(),
        (DataValue::F32(a), DataValue::F32(b)) => a.bits() == b.bits() || a.is_nan() && b.is_nan(),
        (DataValue::F64(a), DataValue::F64(b)) => a.bits() == b.bits() || a.is_nan() && b.is_nan(),
        (a, b) => a == b,
    }
}

/// Whether two result lists match value by value (see [`same_value`]).
pub fn same_values(expected: &[DataValue], actual: &[DataValue]) -> bool {
    expected.len() == actual.len() && expected.iter().zip(actual).all(|(e, a)| same_value(e, a))
}

/// Formats values as a run line writes them: `1, 2.0`, or `[1, 2]` for several.
pub fn format_values(values: &[DataValue]) -> String {
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    match list.len() {
        1 => list[0].clone(),
        _ => format!("[{}]", list.join(", ")),
    }
}

/// What the reference interpreter made of a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    Returned(Vec<DataValue>),
    /// The call traps in CLIF (division by zero, a failed conversion, …). A GPU cannot
    /// trap; the backend defines a result instead (docs/ir.md).
    Trapped(String),
    /// The interpreter cannot run the function (for example it calls a GPU intrinsic).
    Unavailable(String),
}

/// Calls `func` with `args` in `cranelift-interpreter`.
pub fn interpret(func: &ir::Function, args: &[DataValue]) -> Reference {
    interpret_in(func, &[], args)
}

/// Calls `func` with `args` in `cranelift-interpreter`, the functions of `module` (a
/// multi-function file) there for it to call by name.
pub fn interpret_in(func: &ir::Function, module: &[ir::Function], args: &[DataValue]) -> Reference {
    if let Some(why) = std::iter::once(func)
        .chain(module)
        .find_map(beyond_the_interpreter)
    {
        return Reference::Unavailable(why);
    }
    let fixed = with_exact_signed_carries(func);
    let func = fixed.as_ref().unwrap_or(func);
    let fixed_module: Vec<Option<ir::Function>> =
        module.iter().map(with_exact_signed_carries).collect();
    let mut store = FunctionStore::default();
    for (original, fixed) in module.iter().zip(&fixed_module) {
        if original.name != func.name {
            let f = fixed.as_ref().unwrap_or(original);
            store.add(f.name.to_string(), f);
        }
    }
    store.add(func.name.to_string(), func);
    let state = InterpreterState::default().with_function_store(store);
    let mut interpreter = Interpreter::new(state).with_fuel(Some(1_000_000));
    // The interpreter panics on some operations it does not implement (`iconcat` below
    // i64, for one): that is "unavailable", not a failure of the code under test.
    let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        interpreter.call_by_name(&func.name.to_string(), args)
    }));
    let Ok(call) = call else {
        return Reference::Unavailable("cranelift-interpreter panicked".into());
    };
    match call {
        Ok(ControlFlow::Return(values)) => Reference::Returned(values.into_vec()),
        Ok(ControlFlow::Trap(trap)) => Reference::Trapped(trap.to_string()),
        Ok(_) => Reference::Unavailable("the interpreter stopped unexpectedly".into()),
        Err(e) => Reference::Unavailable(e.to_string()),
    }
}

/// Runs `func` for a wave whose active lanes are `lanes` (lane `i` called with
/// `lanes[i]`; the wave has `wave_size` lanes, those past `lanes.len()` inactive) in
/// `cranelift-interpreter`, with the cross-lane intrinsics combining the lanes that
/// execute them together: the reference for run lines of functions calling intrinsics
/// (`docs/testing.md`, "The wave reference").
///
/// The lanes run in lockstep by blocks: at each step, the lanes whose next block comes
/// first in the linear layout (a reverse postorder in which every loop is contiguous,
/// `machinst::divergence::linear_layout`) run that block together, instruction by
/// instruction; an intrinsic call sees those lanes as the active ones. Lanes whose paths
/// split wait at their blocks until the order reaches them, so they meet again at joins
/// and after loops, as a wave running masked code does. Returns one result per lane.
pub fn interpret_wave(
    func: &ir::Function,
    lanes: &[Vec<DataValue>],
    wave_size: usize,
) -> Vec<Reference> {
    let unavailable = |why: String| vec![Reference::Unavailable(why); lanes.len()];
    if let Some(why) = beyond_the_interpreter(func) {
        return unavailable(why);
    }
    if lanes.len() > wave_size {
        return unavailable(format!("{} lanes in a wave of {wave_size}", lanes.len()));
    }
    let fixed = with_exact_signed_carries(func);
    let func = fixed.as_ref().unwrap_or(func);
    let cfg = match Cfg::new(func) {
        Ok(cfg) => cfg,
        Err(why) => return unavailable(why),
    };
    let layout = Layout::new(&cfg);
    let position = |block: ir::Block| {
        (0..cfg.len())
            .find(|&b| cfg.order[b] == block)
            .map(|b| layout.pos[b])
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let Some(entry) = func.layout.entry_block() else {
            return unavailable("no entry block".into());
        };
        let mut states: Vec<InterpreterState> = lanes
            .iter()
            .map(|args| {
                let mut state = InterpreterState::default();
                state.push_frame(func);
                state
                    .current_frame_mut()
                    .set_all(func.dfg.block_params(entry), args.clone());
                state
            })
            .collect();
        let mut at: Vec<Option<ir::Block>> = vec![Some(entry); lanes.len()];
        let mut results: Vec<Option<Reference>> = vec![None; lanes.len()];
        let mut fuel = WORK_ITEM_FUEL;
        loop {
            let next = at
                .iter()
                .flatten()
                .filter_map(|&b| position(b).map(|p| (p, b)))
                .min();
            let Some((_, block)) = next else {
                break;
            };
            let group: Vec<usize> = (0..lanes.len()).filter(|&l| at[l] == Some(block)).collect();
            for inst in func.layout.block_insts(block) {
                fuel = match fuel.checked_sub(1) {
                    Some(fuel) => fuel,
                    None => return unavailable("out of fuel".into()),
                };
                let live: Vec<usize> = group
                    .iter()
                    .copied()
                    .filter(|&l| results[l].is_none())
                    .collect();
                if let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] {
                    let Some(intrinsic) = Intrinsic::from_func_ref(func, func_ref) else {
                        return unavailable("calls a function that is not an intrinsic".into());
                    };
                    let args: Vec<Vec<DataValue>> = live
                        .iter()
                        .map(|&l| states[l].current_frame().get_all(func.dfg.inst_args(inst)))
                        .collect();
                    let values = match wave_intrinsic(intrinsic, &live, &args, wave_size) {
                        Ok(values) => values,
                        Err(why) => return unavailable(why),
                    };
                    for (&l, value) in live.iter().zip(values) {
                        states[l]
                            .current_frame_mut()
                            .set_all(func.dfg.inst_results(inst), vec![value]);
                    }
                    continue;
                }
                for &l in &live {
                    let state = &mut states[l];
                    let flow = match step(state, DfgInstructionContext::new(inst, &func.dfg)) {
                        Ok(flow) => flow,
                        Err(e) => return unavailable(e.to_string()),
                    };
                    match flow {
                        ControlFlow::Assign(values) => state
                            .current_frame_mut()
                            .set_all(func.dfg.inst_results(inst), values.into_vec()),
                        ControlFlow::Continue => {}
                        ControlFlow::ContinueAt(target, values) => {
                            state
                                .current_frame_mut()
                                .set_all(func.dfg.block_params(target), values.into_vec());
                            at[l] = Some(target);
                        }
                        ControlFlow::Return(values) => {
                            results[l] = Some(Reference::Returned(values.into_vec()));
                            at[l] = None;
                        }
                        ControlFlow::Trap(trap) => {
                            results[l] = Some(Reference::Trapped(trap.to_string()));
                            at[l] = None;
                        }
                        ControlFlow::Call(..) | ControlFlow::ReturnCall(..) => {
                            return unavailable("calls a function".into());
                        }
                    }
                }
            }
            if group
                .iter()
                .any(|&l| at[l] == Some(block) && results[l].is_none())
            {
                return unavailable("fell off the end of a block".into());
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Reference::Unavailable("did not return".into())))
            .collect()
    }));
    run.unwrap_or_else(|_| unavailable("cranelift-interpreter panicked".into()))
}

/// The results of one call of `intrinsic` by the lanes `active` (ascending), with their
/// arguments `args`, in a wave of `wave_size` lanes: `docs/ir.md`, "Cross-lane
/// intrinsics", line by line.
fn wave_intrinsic(
    intrinsic: Intrinsic,
    active: &[usize],
    args: &[Vec<DataValue>],
    wave_size: usize,
) -> Result<Vec<DataValue>, String> {
    let bits = |v: &DataValue| match *v {
        DataValue::I8(x) => x as u8 as u32,
        DataValue::I32(x) => x as u32,
        DataValue::F32(x) => x.bits(),
        _ => 0,
    };
    // Each wave lane's first argument's bits, for the active lanes.
    let mut x: Vec<Option<u32>> = vec![None; wave_size];
    for (&l, a) in active.iter().zip(args) {
        x[l] = a.first().map(bits);
    }
    let from_lane = |src: i64| -> u32 {
        usize::try_from(src)
            .ok()
            .and_then(|s| x.get(s).copied().flatten())
            .unwrap_or(0)
    };
    let each = |f: &dyn Fn(usize, &[DataValue]) -> DataValue| {
        active.iter().zip(args).map(|(&l, a)| f(l, a)).collect()
    };
    let typed = |op: WaveOp, v: u32| match op.is_float() {
        true => DataValue::F32(Ieee32::with_bits(v)),
        false => DataValue::I32(v as i32),
    };
    let i32v = |v: u32| DataValue::I32(v as i32);
    let all = |v: DataValue| vec![v; active.len()];
    Ok(match intrinsic {
        Intrinsic::LaneId => each(&|l, _| i32v(l as u32)),
        Intrinsic::WaveSize => all(i32v(wave_size as u32)),
        Intrinsic::ReadFirstLane => all(i32v(from_lane(active[0] as i64))),
        Intrinsic::ReadLane => {
            let lane = bits(&args[0][1]) as usize % wave_size;
            all(i32v(from_lane(lane as i64)))
        }
        Intrinsic::Ballot | Intrinsic::VoteAny | Intrinsic::VoteAll => {
            let mask = active
                .iter()
                .filter(|&&l| x[l] != Some(0))
                .fold(0u64, |m, &l| m | 1 << l);
            let active_mask = active.iter().fold(0u64, |m, &l| m | 1 << l);
            all(match intrinsic {
                Intrinsic::Ballot => DataValue::I64(mask as i64),
                Intrinsic::VoteAny => DataValue::I8((mask != 0) as i8),
                _ => DataValue::I8((mask == active_mask) as i8),
            })
        }
        Intrinsic::Reduce(op) => all(typed(op, scan(op, &x)[wave_size - 1])),
        Intrinsic::InclusiveScan(op) => {
            let s = scan(op, &x);
            each(&|l, _| typed(op, s[l]))
        }
        Intrinsic::ExclusiveScan(op) => {
            let s = scan(op, &x);
            each(&|l, _| typed(op, if l == 0 { op.identity() } else { s[l - 1] }))
        }
        Intrinsic::Shuffle(kind) => {
            each(&|l, a| i32v(from_lane(kind.source(l as i64, bits(&a[1])))))
        }
        Intrinsic::QuadBroadcast => {
            each(&|l, a| i32v(from_lane((l & !3 | bits(&a[1]) as usize & 3) as i64)))
        }
        Intrinsic::QuadSwap(mask) => each(&|l, _| i32v(from_lane((l ^ mask as usize) as i64))),
        other => {
            return Err(format!("`{}` is only available in kernels", other.name()));
        }
    })
}

/// The inclusive scan of `x` (`None`: an inactive lane, which contributes the identity) in
/// the association order `docs/ir.md` fixes: within each row of 16 lanes, lane i adds lane
/// i − d for d = 1, 2, 4, 8 (while i − d is in the row); then rows 1 and 3 add lane 15 and
/// 47 (the end of the row before), then rows 2 and 3 add lane 31. Each step reads the
/// values of the step before.
pub fn scan(op: WaveOp, x: &[Option<u32>]) -> Vec<u32> {
    let mut s: Vec<u32> = x.iter().map(|v| v.unwrap_or(op.identity())).collect();
    for d in [1, 2, 4, 8] {
        let before = s.clone();
        for i in 0..s.len() {
            if i % 16 >= d {
                s[i] = op.apply(before[i - d], before[i]);
            }
        }
    }
    for (rows, lane) in [([1, 3], None), ([2, 3], Some(31))] {
        let before = s.clone();
        for row in rows {
            let from = lane.unwrap_or(16 * row - 1);
            for i in 16 * row..(16 * row + 16).min(s.len()) {
                s[i] = op.apply(before[from], before[i]);
            }
        }
    }
    s
}

/// What the reference interpreter made of a kernel launch.
#[derive(Debug)]
pub enum LaunchReference {
    /// Every work-item returned: the memory as they left it.
    Completed(Memory),
    /// A work-item traps in CLIF (out-of-bounds access, division by zero, …); the message
    /// names it.
    Trapped(String),
    /// The interpreter cannot run the kernel (it calls a function that is not an
    /// intrinsic, uses an operation the interpreter lacks, runs out of fuel, …).
    Unavailable(String),
}

/// Instructions one work-item may run in [`interpret_launch`].
const WORK_ITEM_FUEL: u64 = 1_000_000;

/// Runs the kernel `func` with `args` over a grid of `groups` work-groups of
/// `workgroup_size` work-items in `cranelift-interpreter`: the reference for a simulated
/// launch. The work-items run one after the other in the order of their global linear ids,
/// on a copy of `memory` whose regions loads and stores reach at the simulator's addresses;
/// calls to intrinsics return the work-item's ids (its lane is its linear id within the
/// work-group modulo `lanes`, the target's wave or warp). Work-items that read what others write would see another order
/// on the GPU: kernels that do are beyond this reference.
pub fn interpret_launch(
    func: &ir::Function,
    module: &[ir::Function],
    args: &[DataValue],
    workgroup_size: [u32; 3],
    groups: [u32; 3],
    lanes: usize,
    memory: &Memory,
) -> LaunchReference {
    if let Some(why) = beyond_the_interpreter(func) {
        return LaunchReference::Unavailable(why);
    }
    if func.sized_stack_slots.values().next().is_some() {
        return LaunchReference::Unavailable("the kernel has stack slots".into());
    }
    let fences = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b));
    if fences
        .into_iter()
        .any(|inst| func.dfg.insts[inst].opcode() == ir::Opcode::Fence)
    {
        return LaunchReference::Unavailable(
            "a `fence` orders work-items' accesses for one another; the launch reference runs \
             work-items one by one"
                .into(),
        );
    }
    if let Some(i) = called_intrinsics(func).find(|i| i.is_workgroup_wide()) {
        return LaunchReference::Unavailable(format!(
            "`{}` is shared by a work-group; the launch reference runs work-items one by one",
            i.name()
        ));
    }
    if let Some(i) = called_intrinsics(func).find(|i| i.is_cross_lane()) {
        return LaunchReference::Unavailable(format!(
            "`{}` combines lanes; the launch reference runs work-items one by one",
            i.name()
        ));
    }
    if let Some(why) = module.iter().find_map(beyond_the_interpreter) {
        return LaunchReference::Unavailable(why);
    }
    let fixed = with_exact_signed_carries(func);
    let func = fixed.as_ref().unwrap_or(func);
    let fixed_module: Vec<Option<ir::Function>> =
        module.iter().map(with_exact_signed_carries).collect();
    let mut store = FunctionStore::default();
    for (original, fixed) in module.iter().zip(&fixed_module) {
        if original.name != func.name {
            let f = fixed.as_ref().unwrap_or(original);
            store.add(f.name.to_string(), f);
        }
    }
    store.add(func.name.to_string(), func);
    let mut state = KernelState {
        frames: InterpreterState::default().with_function_store(store),
        memory: memory.clone(),
    };
    let [sx, sy, sz] = workgroup_size;
    let [gx, gy, gz] = groups;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for group in grid([gx, gy, gz]) {
            for local in grid([sx, sy, sz]) {
                let ids = WorkItem {
                    local,
                    group,
                    size: workgroup_size,
                    lanes: lanes as u32,
                };
                run_work_item(&mut state, func, args, &ids)?;
            }
        }
        Ok(())
    }));
    match run {
        Err(_) => LaunchReference::Unavailable("cranelift-interpreter panicked".into()),
        Ok(Err(reference)) => reference,
        Ok(Ok(())) => LaunchReference::Completed(state.memory),
    }
}

/// The intrinsics `func` calls (with repeats).
pub fn called_intrinsics(func: &ir::Function) -> impl Iterator<Item = Intrinsic> + '_ {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter_map(|inst| match func.dfg.insts[inst] {
            ir::InstructionData::Call { func_ref, .. } => Intrinsic::from_func_ref(func, func_ref),
            _ => None,
        })
}

/// The points of a grid of `dims`, x fastest.
fn grid(dims: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
    let [x, y, z] = dims;
    (0..z).flat_map(move |k| (0..y).flat_map(move |j| (0..x).map(move |i| [i, j, k])))
}

/// The ids one work-item's intrinsics return.
struct WorkItem {
    local: [u32; 3],
    group: [u32; 3],
    size: [u32; 3],
    lanes: u32,
}

impl WorkItem {
    fn intrinsic(&self, intrinsic: Intrinsic) -> u32 {
        let [x, y, z] = self.local;
        let [sx, sy, _] = self.size;
        match intrinsic {
            Intrinsic::WorkitemId(d) => self.local[d as usize],
            Intrinsic::WorkgroupId(d) => self.group[d as usize],
            Intrinsic::WorkgroupSize(d) => self.size[d as usize],
            Intrinsic::LaneId => ((z * sy + y) * sx + x) % self.lanes,
            Intrinsic::WaveSize => self.lanes,
            _ => unreachable!("interpret_launch refuses cross-lane intrinsics"),
        }
    }
}

/// Interprets `func` for one work-item ([`interpret_with`]): the work-item's ids answer
/// the intrinsics.
fn run_work_item<'a>(
    state: &mut KernelState<'a>,
    func: &'a ir::Function,
    args: &[DataValue],
    ids: &WorkItem,
) -> Result<(), LaunchReference> {
    let who = || format!("work-item {:?} of work-group {:?}", ids.local, ids.group);
    interpret_with(state, func, args, |intrinsic, _| {
        Ok(Answer::Value(DataValue::I32(
            ids.intrinsic(intrinsic) as i32
        )))
    })
    .map(|_| ())
    .map_err(|halt| match halt {
        Halt::Trapped(trap) => LaunchReference::Trapped(format!("{} traps: {trap}", who())),
        Halt::Unavailable(why) => LaunchReference::Unavailable(format!("{}: {why}", who())),
    })
}

/// Why [`interpret_with`] stopped before the function returned.
enum Halt {
    /// The CLIF traps (the message says how).
    Trapped(String),
    /// The interpreter cannot go on (the message says why).
    Unavailable(String),
}

/// Interprets `func` with `args`: `step` for every instruction but the calls to intrinsics,
/// which `answer` handles (given their arguments), in `func` and the functions it calls
/// (those of `state`'s store; a callee with stack slots is beyond the references, whose
/// private memory is none). `Ok(true)` when an intrinsic ended the invocation, `Ok(false)`
/// when `func` returned.
fn interpret_with<'a>(
    state: &mut KernelState<'a>,
    func: &'a ir::Function,
    args: &[DataValue],
    mut answer: impl FnMut(Intrinsic, &[DataValue]) -> Result<Answer, String>,
) -> Result<bool, Halt> {
    let entry = func;
    // The function running, and for each caller the call its callee returns to.
    let mut func = func;
    let mut callers: Vec<(&'a ir::Function, ir::Inst)> = Vec::new();
    let enter = |state: &mut KernelState<'a>, callee: &'a ir::Function, args: Vec<DataValue>| {
        let called = !std::ptr::eq(callee, entry);
        if called && callee.sized_stack_slots.values().next().is_some() {
            return Err(Halt::Unavailable(format!(
                "calls {}, which has stack slots",
                callee.name
            )));
        }
        let entry = callee
            .layout
            .entry_block()
            .ok_or_else(|| Halt::Unavailable(format!("{} has no entry block", callee.name)))?;
        state.push_frame(callee);
        state
            .current_frame_mut()
            .set_all(callee.dfg.block_params(entry), args);
        Ok(callee.layout.first_inst(entry))
    };
    let mut next = enter(state, func, args.to_vec())?;
    let mut fuel = WORK_ITEM_FUEL;
    while let Some(inst) = next {
        fuel = fuel
            .checked_sub(1)
            .ok_or_else(|| Halt::Unavailable("out of fuel".into()))?;
        let layout = &func.layout;
        if let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst]
            && let Some(intrinsic) = Intrinsic::from_func_ref(func, func_ref)
        {
            let a = state.current_frame().get_all(func.dfg.inst_args(inst));
            match answer(intrinsic, &a).map_err(Halt::Unavailable)? {
                Answer::Value(value) => state
                    .current_frame_mut()
                    .set_all(func.dfg.inst_results(inst), vec![value]),
                Answer::Nothing => {}
                Answer::End => {
                    state.pop_frame();
                    return Ok(true);
                }
            }
            next = layout.next_inst(inst);
            continue;
        }
        let flow = step(state, DfgInstructionContext::new(inst, &func.dfg))
            .map_err(|e| Halt::Unavailable(e.to_string()))?;
        next = match flow {
            ControlFlow::Assign(values) => {
                state
                    .current_frame_mut()
                    .set_all(func.dfg.inst_results(inst), values.into_vec());
                layout.next_inst(inst)
            }
            ControlFlow::Continue => layout.next_inst(inst),
            ControlFlow::ContinueAt(block, values) => {
                state
                    .current_frame_mut()
                    .set_all(func.dfg.block_params(block), values.into_vec());
                layout.first_inst(block)
            }
            ControlFlow::Return(values) => {
                state.pop_frame();
                let Some((caller, call)) = callers.pop() else {
                    return Ok(false);
                };
                func = caller;
                state
                    .current_frame_mut()
                    .set_all(func.dfg.inst_results(call), values.into_vec());
                func.layout.next_inst(call)
            }
            ControlFlow::Trap(trap) => return Err(Halt::Trapped(trap.to_string())),
            ControlFlow::Call(callee, args) => {
                callers.push((func, inst));
                func = callee;
                enter(state, callee, args.into_vec())?
            }
            // The callee returns to this function's caller.
            ControlFlow::ReturnCall(callee, args) => {
                state.pop_frame();
                func = callee;
                enter(state, callee, args.into_vec())?
            }
        };
    }
    Err(Halt::Unavailable("fell off the end of a block".into()))
}

/// The interpreter's state for a kernel: its frames (and stack slots, which kernels do not
/// have) in an `InterpreterState`, global memory in a simulator [`Memory`]. An address is
/// a 64-bit value whose top two bits are zero, which the interpreter reads as an offset in
/// its stack region: the offset is the simulator's address.
struct KernelState<'a> {
    frames: InterpreterState<'a>,
    memory: Memory,
}

impl<'a> State<'a> for KernelState<'a> {
    fn get_function(&self, func_ref: FuncRef) -> Option<&'a ir::Function> {
        self.frames.get_function(func_ref)
    }
    fn get_current_function(&self) -> &'a ir::Function {
        self.frames.get_current_function()
    }
    fn get_libcall_handler(&self) -> LibCallHandler {
        self.frames.get_libcall_handler()
    }
    fn push_frame(&mut self, function: &'a ir::Function) {
        self.frames.push_frame(function)
    }
    fn pop_frame(&mut self) {
        self.frames.pop_frame()
    }
    fn current_frame_mut(&mut self) -> &mut Frame<'a> {
        self.frames.current_frame_mut()
    }
    fn current_frame(&self) -> &Frame<'a> {
        self.frames.current_frame()
    }
    fn stack_address(
        &self,
        size: AddressSize,
        slot: StackSlot,
        offset: u64,
    ) -> Result<Address, MemoryError> {
        self.frames.stack_address(size, slot, offset)
    }
    fn checked_load(
        &self,
        addr: Address,
        ty: ir::Type,
        mem_flags: MemFlagsData,
    ) -> Result<DataValue, MemoryError> {
        let load_size = ty.bytes() as usize;
        let bytes = (addr.region == AddressRegion::Stack)
            .then(|| self.memory.read(addr.offset, load_size))
            .flatten();
        let Some(bytes) = bytes else {
            return Err(MemoryError::OutOfBoundsLoad {
                addr,
                load_size,
                mem_flags,
            });
        };
        if mem_flags.aligned() && !addr.offset.is_multiple_of(load_size as u64) {
            return Err(MemoryError::MisalignedLoad { addr, load_size });
        }
        Ok(DataValue::read_from_slice_le(bytes, ty))
    }
    fn checked_store(
        &mut self,
        addr: Address,
        v: DataValue,
        mem_flags: MemFlagsData,
    ) -> Result<(), MemoryError> {
        let store_size = v.ty().bytes() as usize;
        if mem_flags.aligned() && !addr.offset.is_multiple_of(store_size as u64) {
            return Err(MemoryError::MisalignedStore { addr, store_size });
        }
        let mut bytes = vec![0; store_size];
        v.write_to_slice_le(&mut bytes);
        let stored = (addr.region == AddressRegion::Stack)
            .then(|| self.memory.write(addr.offset, &bytes))
            .flatten();
        stored.ok_or(MemoryError::OutOfBoundsStore {
            addr,
            store_size,
            mem_flags,
        })
    }
    fn function_address(
        &self,
        size: AddressSize,
        name: &ExternalName,
    ) -> Result<Address, MemoryError> {
        self.frames.function_address(size, name)
    }
    fn get_function_from_address(&self, address: Address) -> Option<InterpreterFunctionRef<'a>> {
        self.frames.get_function_from_address(address)
    }
    fn resolve_global_value(&self, gv: GlobalValue) -> Result<DataValue, MemoryError> {
        self.frames.resolve_global_value(gv)
    }
    fn get_pinned_reg(&self) -> DataValue {
        self.frames.get_pinned_reg()
    }
    fn set_pinned_reg(&mut self, v: DataValue) {
        self.frames.set_pinned_reg(v)
    }
}

/// Why cranelift-interpreter 0.135 cannot be trusted with `func`, if it cannot: it gets
/// `isplit` below i128 wrong (the halves come back as the wide value) and panics on
/// `iconcat` below i128. Of f16 it implements only the operations that move bits
/// (`f16const`, `bitcast`, `select`, `load`, `store`, branches): it panics on f16 arithmetic, sign
/// and bit operations and conversions, and its `fcmp` orders f16 wrongly (`Ieee16`'s
/// `partial_cmp` in cranelift-codegen 0.135 calls any value equal to a zero).
fn beyond_the_interpreter(func: &ir::Function) -> Option<String> {
    use ir::Opcode::*;
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let opcode = func.dfg.insts[inst].opcode();
            let dfg = &func.dfg;
            let touches_f16 = dfg
                .inst_values(inst)
                .chain(dfg.inst_results(inst).iter().copied())
                .any(|v| dfg.value_type(v) == ir::types::F16);
            if touches_f16
                && !matches!(
                    opcode,
                    F16const
                        | Bitcast
                        | Select
                        | SelectSpectreGuard
                        | Load
                        | Store
                        | Jump
                        | Brif
                        | Return
                )
            {
                return Some(format!(
                    "cranelift-interpreter does not implement `{opcode}` on f16"
                ));
            }
            if !matches!(opcode, ir::Opcode::Isplit | ir::Opcode::Iconcat) {
                continue;
            }
            let arg = func.dfg.inst_args(inst)[0];
            let (wide, implemented) = match opcode {
                ir::Opcode::Isplit => (func.dfg.value_type(arg).bits(), 128),
                _ => (2 * func.dfg.value_type(arg).bits(), 128),
            };
            if wide < implemented {
                return Some(format!(
                    "cranelift-interpreter does not implement `{opcode}` of i{wide}"
                ));
            }
        }
    }
    None
}

/// `func` with `sadd_overflow_cin` and `ssub_overflow_bin` expanded into plain CLIF, when
/// it has any. cranelift-interpreter 0.135 computes their flag as "x ± y overflowed, or
/// adding the carry (subtracting the borrow) to that overflowed", which reports overflow
/// when the two wraps cancel (`sadd_overflow_cin.i8 -128, -1, 1` is -128, in range, with
/// the flag set). The flag wavelift implements, and the reference checks it against, is
/// whether the mathematical x + y + c (x - y - b) leaves the type's range: what a
/// multi-word signed add needs, and what hardware add-with-carry computes (docs/ir.md).
fn with_exact_signed_carries(func: &ir::Function) -> Option<ir::Function> {
    use cranelift_codegen::cursor::{Cursor, FuncCursor};
    use ir::InstBuilder;
    use ir::condcodes::IntCC;
    let uses = |f: &ir::Function| {
        f.layout.blocks().any(|b| {
            f.layout.block_insts(b).any(|i| {
                matches!(
                    f.dfg.insts[i].opcode(),
                    ir::Opcode::SaddOverflowCin | ir::Opcode::SsubOverflowBin
                )
            })
        })
    };
    if !uses(func) {
        return None;
    }
    let mut func = func.clone();
    let mut pos = FuncCursor::new(&mut func);
    while let Some(_block) = pos.next_block() {
        while let Some(inst) = pos.next_inst() {
            let opcode = pos.func.dfg.insts[inst].opcode();
            if !matches!(
                opcode,
                ir::Opcode::SaddOverflowCin | ir::Opcode::SsubOverflowBin
            ) {
                continue;
            }
            let [x, y, c] = pos.func.dfg.inst_args(inst) else {
                continue;
            };
            let (x, y, c) = (*x, *y, *c);
            let ty = pos.func.dfg.value_type(x);
            let old: Vec<ir::Value> = pos.func.dfg.inst_results(inst).to_vec();
            let flag = pos.ins().icmp_imm_u(IntCC::NotEqual, c, 0);
            let one = if ty == ir::types::I8 {
                flag
            } else {
                pos.ins().uextend(ty, flag)
            };
            let (a, sign) = if opcode == ir::Opcode::SaddOverflowCin {
                let s = pos.ins().iadd(x, y);
                let a = pos.ins().iadd(s, one);
                let ax = pos.ins().bxor(a, x);
                let ay = pos.ins().bxor(a, y);
                (a, pos.ins().band(ax, ay))
            } else {
                let s = pos.ins().isub(x, y);
                let a = pos.ins().isub(s, one);
                let xy = pos.ins().bxor(x, y);
                let xa = pos.ins().bxor(x, a);
                (a, pos.ins().band(xy, xa))
            };
            let of = pos.ins().icmp_imm_s(IntCC::SignedLessThan, sign, 0);
            pos.func.dfg.clear_results(inst);
            pos.func.dfg.change_to_alias(old[0], a);
            pos.func.dfg.change_to_alias(old[1], of);
            pos.remove_inst_and_step_back();
        }
    }
    Some(func)
}

/// A deterministic pseudo-random dword for the unused bits of lane `lane`'s argument `arg`.
fn junk(lane: usize, arg: usize) -> u32 {
    let mut x = (lane as u64) << 32 | arg as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as u32 | 0x8000_0100
}

/// Runs the compiled device function `compiled` (of signature `signature`) once per
/// argument list in `lanes` on `target`'s simulator, a wave's (or warp's) worth of lists at
/// a time (each list in its own lane, so lanes must not interfere), and returns each call's
/// results.
pub fn run_device(
    compiled: &CompiledCode,
    signature: &ir::Signature,
    target: &Target,
    lanes: &[Vec<DataValue>],
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Vec<DataValue>>, Stats), SimError> {
    assert_eq!(compiled.kind, FunctionKind::Device);
    let simulator = simulator(target.arch);
    let wave_lanes = simulator.lanes();
    let result_types: Vec<ir::Type> = signature.returns.iter().map(|p| p.value_type).collect();
    let result_dwords = result_types.iter().map(|&t| dwords_of(t)).sum();
    let mut results = Vec::with_capacity(lanes.len());
    let mut stats = Stats::default();
    for (wave, chunk) in lanes.chunks(wave_lanes).enumerate() {
        let args: Vec<Vec<u32>> = chunk
            .iter()
            .enumerate()
            .map(|(lane, values)| {
                let mut dwords = Vec::new();
                for (i, value) in values.iter().enumerate() {
                    push_dwords(value, junk(wave * wave_lanes + lane, i), &mut dwords).map_err(
                        |reason| SimError {
                            pc: 0,
                            inst: None,
                            violation: Violation::Other(reason),
                        },
                    )?;
                }
                Ok(dwords)
            })
            .collect::<Result<_, SimError>>()?;
        let (out, wave_stats) =
            simulator.call_device(compiled, &args, result_dwords, memory, options)?;
        stats.waves += wave_stats.waves;
        stats.instructions += wave_stats.instructions;
        for dwords in out {
            let mut at = 0;
            let values = result_types
                .iter()
                .map(|&ty| {
                    let value = value_from_dwords(ty, &dwords[at..]);
                    at += dwords_of(ty);
                    value
                })
                .collect();
            results.push(values);
        }
    }
    Ok((results, stats))
}

/// The parameter block for a kernel of `signature` on `target` called with `args` (laid
/// out as the target's [`Simulator::param_layout`](super::Simulator::param_layout) says).
/// The unused bytes of narrow arguments' slots are `noise`'s, which the ABI allows and
/// kernels must ignore.
pub fn param_block(
    target: &Target,
    signature: &ir::Signature,
    args: &[DataValue],
    noise: u32,
) -> Result<Vec<u8>, String> {
    if args.len() != signature.params.len() {
        return Err(format!(
            "{} arguments for {} parameters",
            args.len(),
            signature.params.len()
        ));
    }
    let (offsets, size) = simulator(target.arch).param_layout(signature);
    let mut segment = vec![0u8; size as usize];
    for (i, ((value, param), offset)) in args.iter().zip(&signature.params).zip(offsets).enumerate()
    {
        if value.ty() != param.value_type {
            return Err(format!(
                "argument {i} is {} but the parameter is {}",
                value.ty(),
                param.value_type
            ));
        }
        let mut dwords = Vec::new();
        push_dwords(value, noise, &mut dwords)?;
        for (k, dword) in dwords.iter().enumerate() {
            let at = offset as usize + 4 * k;
            segment[at..at + 4].copy_from_slice(&dword.to_le_bytes());
        }
    }
    Ok(segment)
}

/// The reference for a fragment-shader launch ([`interpret_fragment`]).
#[derive(Clone, Debug)]
pub enum FragmentReference {
    /// Each lane's outputs (`None`: not covered, or discarded).
    Completed(Vec<Option<FragmentOutputs>>),
    /// The interpreter cannot run the shader (the message says why).
    Unavailable(String),
}

/// Runs fragment shader `func` with user data `args` for each covered lane of `scene` in
/// `cranelift-interpreter`: the reference for [`super::Simulator::launch_fragment`]. The
/// stage intrinsics are answered from the scene directly (`docs/ir.md`, "Interpolation"):
/// an input is `(A0 + I·(A1 − A0)) + J·(A2 − A0)` of the vertex values, not of the
/// parameters the simulator writes into LDS; `discard` ends the lane without outputs.
pub fn interpret_fragment(
    func: &ir::Function,
    args: &[DataValue],
    scene: &Scene,
    memory: &Memory,
) -> FragmentReference {
    if let Some(why) = beyond_the_interpreter(func) {
        return FragmentReference::Unavailable(why);
    }
    let fixed = with_exact_signed_carries(func);
    let func = fixed.as_ref().unwrap_or(func);
    let mut state = KernelState {
        frames: InterpreterState::default(),
        memory: memory.clone(),
    };
    let mut out = vec![None; 64];
    for (lane, slot) in out.iter_mut().enumerate() {
        if scene.lanes >> lane & 1 == 0 {
            continue;
        }
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_fragment_lane(&mut state, func, args, scene, lane)
        }));
        match run {
            Err(_) => {
                return FragmentReference::Unavailable("cranelift-interpreter panicked".into());
            }
            Ok(Err(why)) => {
                return FragmentReference::Unavailable(format!("lane {lane}: {why}"));
            }
            Ok(Ok(outputs)) => *slot = outputs,
        }
    }
    FragmentReference::Completed(out)
}

/// One lane of [`interpret_fragment`]: its outputs, or `None` when it discards.
fn run_fragment_lane<'a>(
    state: &mut KernelState<'a>,
    func: &'a ir::Function,
    args: &[DataValue],
    scene: &Scene,
    lane: usize,
) -> Result<Option<FragmentOutputs>, String> {
    let prim = scene.primitive(lane);
    let mut outputs = FragmentOutputs::default();
    let ended = run_shader_lane(state, func, args, |intrinsic, a| {
        let interpolate = |loc: &DataValue, chan: &DataValue, [i, j]: [f32; 2]| {
            let [a0, a1, a2] = scene.vertex_values(prim, int_of(loc) as u8, int_of(chan) as u8);
            (a0 + i * (a1 - a0)) + j * (a2 - a0)
        };
        let missing =
            |mode: InterpMode| format!("the scene gives no {} barycentrics", mode.suffix());
        let f32_value = |x: f32| Answer::Value(DataValue::F32(Ieee32::with_float(x)));
        Ok(match intrinsic {
            Intrinsic::Interp(mode) => {
                let ij = scene.barycentric(mode, lane).ok_or_else(|| missing(mode))?;
                f32_value(interpolate(&a[0], &a[1], ij))
            }
            Intrinsic::InterpAt => {
                let ij = [f32_of(&a[2]), f32_of(&a[3])];
                f32_value(interpolate(&a[0], &a[1], ij))
            }
            Intrinsic::InterpFlat => {
                let [a0, _, _] =
                    scene.vertex_values(prim, int_of(&a[0]) as u8, int_of(&a[1]) as u8);
                f32_value(a0)
            }
            Intrinsic::Barycentric(mode) => {
                let ij = scene.barycentric(mode, lane).ok_or_else(|| missing(mode))?;
                f32_value(ij[int_of(&a[0]) as usize & 1])
            }
            Intrinsic::FragCoord(c) => {
                let p = scene.position.get(lane).copied().unwrap_or_default();
                f32_value(if c == 3 { 1.0 / p[3] } else { p[c as usize] })
            }
            Intrinsic::FrontFacing => {
                let front = scene.front_facing.get(prim).copied().unwrap_or(true);
                Answer::Value(DataValue::I8(front as i8))
            }
            Intrinsic::Discard => Answer::End,
            Intrinsic::OutputColor => {
                let target = int_of(&a[0]) as usize & 7;
                outputs.color[target] = Some(Color::F32(channel_bits(&a[1..5])));
                Answer::Nothing
            }
            Intrinsic::OutputColorF16 => {
                let target = int_of(&a[0]) as usize & 7;
                let channels = std::array::from_fn(|c| f16_toward_zero(f32_of(&a[1 + c])));
                outputs.color[target] = Some(Color::F16(channels));
                Answer::Nothing
            }
            Intrinsic::OutputDepth => {
                outputs.depth = Some(f32_of(&a[0]).to_bits());
                Answer::Nothing
            }
            other => {
                return Err(format!(
                    "`{}` has no value in a fragment launch's reference",
                    other.name()
                ));
            }
        })
    })?;
    Ok((!ended).then_some(outputs))
}

/// The reference for a vertex-shader launch ([`interpret_vertex`]).
#[derive(Clone, Debug)]
pub enum VertexReference {
    /// Each vertex's outputs, in the order of the launch's vertex ids.
    Completed(Vec<VertexOutputs>),
    /// The interpreter cannot run the shader (the message says why).
    Unavailable(String),
}

/// Runs vertex shader `func` with user data `args` for each vertex of `launch` in
/// `cranelift-interpreter`, one vertex after the other on a copy of `memory` (the vertex
/// buffers at the simulator's addresses): the reference for
/// [`super::Simulator::launch_vertex`]. The vertex and instance ids come from the launch;
/// the outputs are recorded by location, with no notion of exports or waves.
pub fn interpret_vertex(
    func: &ir::Function,
    args: &[DataValue],
    launch: &VertexLaunch,
    memory: &Memory,
) -> VertexReference {
    if let Some(why) = beyond_the_interpreter(func) {
        return VertexReference::Unavailable(why);
    }
    let fixed = with_exact_signed_carries(func);
    let func = fixed.as_ref().unwrap_or(func);
    let mut state = KernelState {
        frames: InterpreterState::default(),
        memory: memory.clone(),
    };
    let mut out = Vec::with_capacity(launch.vertex_ids.len());
    for (k, &vertex_id) in launch.vertex_ids.iter().enumerate() {
        let instance_id = launch.instance_ids.get(k).copied().unwrap_or(0);
        let mut outputs = VertexOutputs::default();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_shader_lane(&mut state, func, args, |intrinsic, a| {
                Ok(match intrinsic {
                    Intrinsic::VertexId => Answer::Value(DataValue::I32(vertex_id as i32)),
                    Intrinsic::InstanceId => Answer::Value(DataValue::I32(instance_id as i32)),
                    Intrinsic::VertexInput => {
                        let x = launch.input(int_of(&a[0]) as u8, int_of(&a[1]) as u8, k);
                        Answer::Value(DataValue::F32(Ieee32::with_float(x)))
                    }
                    Intrinsic::OutputPosition => {
                        outputs.position = Some(channel_bits(&a[0..4]));
                        Answer::Nothing
                    }
                    Intrinsic::OutputParam => {
                        let location = int_of(&a[0]) as usize & 31;
                        outputs.params[location] = Some(channel_bits(&a[1..5]));
                        Answer::Nothing
                    }
                    Intrinsic::OutputPointSize => {
                        outputs.point_size = Some(f32_of(&a[0]).to_bits());
                        Answer::Nothing
                    }
                    Intrinsic::OutputClipDistance => {
                        let index = int_of(&a[0]) as usize & 7;
                        outputs.clip_distances[index] = Some(f32_of(&a[1]).to_bits());
                        Answer::Nothing
                    }
                    other => {
                        return Err(format!(
                            "`{}` has no value in a vertex launch's reference",
                            other.name()
                        ));
                    }
                })
            })
        }));
        match run {
            Err(_) => return VertexReference::Unavailable("cranelift-interpreter panicked".into()),
            Ok(Err(why)) => {
                return VertexReference::Unavailable(format!("vertex {k}: {why}"));
            }
            Ok(Ok(_)) => out.push(outputs),
        }
    }
    VertexReference::Completed(out)
}

fn f32_of(v: &DataValue) -> f32 {
    match v {
        DataValue::F32(x) => f32::from_bits(x.bits()),
        _ => 0.0,
    }
}

fn int_of(v: &DataValue) -> u32 {
    match v {
        DataValue::I32(x) => *x as u32,
        _ => 0,
    }
}

/// An output call's four f32 channels as words.
/// `x` as an f16 rounded toward zero (`docs/ir.md`, `wavelift_output_color_f16`), from the
/// encodings: the f32 significand truncated to the f16's 10 bits (fewer for an f16
/// denormal), a finite value beyond 65504 to 65504, ∞ kept, a NaN quiet with the top of
/// its payload.
pub(crate) fn f16_toward_zero(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 16 & 0x8000) as u16;
    let field = bits >> 23 & 0xff;
    let significand = bits & 0x7f_ffff;
    let magnitude = match field {
        0xff if significand != 0 => 0x7e00 | (significand >> 13) as u16,
        0xff => 0x7c00,
        // Below 2^-24, the smallest f16 denormal (f32 denormals included): zero.
        0..=102 => 0,
        // 2^-24 ≤ |x| < 2^-14: an f16 denormal, |x| / 2^-24 = 1.significand · 2^(e+24).
        103..=112 => ((0x80_0000 | significand) >> (126 - field)) as u16,
        // 2^-14 ≤ |x| < 2^16: the exponent rebiased from 127 to 15.
        113..=142 => ((field - 112) << 10 | significand >> 13) as u16,
        _ => 0x7bff,
    };
    sign | magnitude
}

fn channel_bits(values: &[DataValue]) -> [u32; 4] {
    std::array::from_fn(|c| f32_of(&values[c]).to_bits())
}

/// What a stage intrinsic does in a reference lane.
enum Answer {
    /// Its result.
    Value(DataValue),
    /// It has none (an output, recorded by the caller).
    Nothing,
    /// It ends the lane (`discard`).
    End,
}

/// Interprets shader `func` for one lane ([`interpret_with`]): `answer` handles the
/// intrinsics. `Ok(true)` when an intrinsic ended the lane, `Ok(false)` when it returned.
fn run_shader_lane<'a>(
    state: &mut KernelState<'a>,
    func: &'a ir::Function,
    args: &[DataValue],
    answer: impl FnMut(Intrinsic, &[DataValue]) -> Result<Answer, String>,
) -> Result<bool, String> {
    interpret_with(state, func, args, answer).map_err(|halt| match halt {
        Halt::Trapped(trap) => format!("traps: {trap}"),
        Halt::Unavailable(why) => why,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_reader::parse_functions;

    #[test]
    fn f16_toward_zero_edge_cases() {
        for (bits, f16) in [
            (0x0000_0000u32, 0x0000u16),
            (0x8000_0000, 0x8000),
            // f32 denormals and everything below 2^-24 are zeros of their sign.
            (0x0000_0001, 0x0000),
            (0x8000_0001, 0x8000),
            (0x337f_ffff, 0x0000),
            (0x3380_0000, 0x0001),
            // The largest f16 denormal and the smallest normal.
            (0x387f_ffff, 0x03ff),
            (0x3880_0000, 0x0400),
            // 1 + 3·2^-11: to nearest even it would be 0x3c02.
            (0x3f80_3000, 0x3c01),
            (0x3dcc_cccd, 0x2e66),
            // 65504, 65520 (to nearest: ∞), f32::MAX: the largest finite f16.
            (0x477f_e000, 0x7bff),
            (0x477f_f000, 0x7bff),
            (0x7f7f_ffff, 0x7bff),
            (0xff7f_ffff, 0xfbff),
            (0x7f80_0000, 0x7c00),
            (0xff80_0000, 0xfc00),
            // NaNs quiet, with the sign and the top of the payload.
            (0x7fc0_0000, 0x7e00),
            (0x7f80_0001, 0x7e00),
            (0xffa0_0000, 0xff00),
        ] {
            assert_eq!(f16_toward_zero(f32::from_bits(bits)), f16, "{bits:#x}");
        }
    }

    #[test]
    fn dwords_round_trip_and_junk() {
        let mut out = Vec::new();
        push_dwords(&DataValue::I8(-1), 0x1234_5600, &mut out).unwrap();
        push_dwords(&DataValue::I64(0x1_0000_0002), 0, &mut out).unwrap();
        assert_eq!(out, [0x1234_56ff, 2, 1]);
        assert_eq!(value_from_dwords(ir::types::I8, &out), DataValue::I8(-1));
        assert_eq!(
            value_from_dwords(ir::types::I64, &out[1..]),
            DataValue::I64(0x1_0000_0002)
        );
        assert!(push_dwords(&DataValue::I128(0), 0, &mut out).is_err());
    }

    #[test]
    fn nan_matches_nan_but_zeros_differ() {
        let f = |bits| DataValue::F32(Ieee32::with_bits(bits));
        assert!(same_value(&f(0x7fc0_0000), &f(0xffc0_0001)));
        assert!(!same_value(&f(0x0000_0000), &f(0x8000_0000)));
        assert!(!same_value(&f(0x7fc0_0000), &f(0x3f80_0000)));
        assert!(!same_value(&DataValue::I32(1), &DataValue::I64(1)));
    }

    #[test]
    fn interpreter_returns_and_traps() {
        let func = &parse_functions(
            "function %f(i32, i32) -> i32 {\nblock0(v0: i32, v1: i32):\n v2 = udiv v0, v1\n return v2\n}",
        )
        .unwrap()[0];
        let call = |a, b| interpret(func, &[DataValue::I32(a), DataValue::I32(b)]);
        assert_eq!(call(7, 2), Reference::Returned(vec![DataValue::I32(3)]));
        assert!(matches!(call(7, 0), Reference::Trapped(_)));
    }

    #[test]
    fn launches_run_in_the_interpreter_work_item_by_work_item() {
        // out[group * 70 + id + shift] = group * 100 + lane, over two work-groups of 70
        // (two waves each, the second of 6 lanes); with shift 1 the last work-item stores
        // past `out`.
        let func = &parse_functions(
            "function %k(i64, i32) system_v {
                fn0 = %wavelift_workitem_id_x() -> i32
                fn1 = %wavelift_workgroup_id_x() -> i32
                fn2 = %wavelift_lane_id() -> i32
            block0(v0: i64, v1: i32):
                v2 = call fn0()
                v3 = call fn1()
                v4 = call fn2()
                v5 = iconst.i32 70
                v6 = imul v3, v5
                v7 = iadd v6, v2
                v8 = iconst.i32 100
                v9 = imul v3, v8
                v10 = iadd v9, v4
                v11 = iadd v7, v1
                v12 = uextend.i64 v11
                v13 = iconst.i64 2
                v14 = ishl v12, v13
                v15 = iadd v0, v14
                store v10, v15
                return
            }",
        )
        .unwrap()[0];
        let mut memory = Memory::new();
        let out = memory.alloc_zeroed(140 * 4);
        let launch = |shift: i32| {
            let args = [DataValue::I64(out as i64), DataValue::I32(shift)];
            interpret_launch(func, &[], &args, [70, 1, 1], [2, 1, 1], 64, &memory)
        };
        let LaunchReference::Completed(after) = launch(0) else {
            panic!("the launch did not complete");
        };
        let bytes = after.read(out, 140 * 4).unwrap();
        for i in 0..140 {
            let value = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(value as usize, i / 70 * 100 + i % 70 % 64, "out[{i}]");
        }
        assert_eq!(memory.read(out, 4), Some(&[0u8; 4][..]), "memory is copied");
        let past = launch(1);
        assert!(
            matches!(&past, LaunchReference::Trapped(why) if why.contains("work-item [69, 0, 0] of work-group [1, 0, 0]")),
            "{past:?}"
        );

        // Calls run in the functions of the module; a callee missing from it is beyond
        // the reference.
        let module = parse_functions(
            "function %k(i64) system_v {
                fn0 = %other(i32) -> i32 fast
                fn1 = %wavelift_workitem_id_x() -> i32
            block0(v0: i64):
                v1 = call fn1()
                v2 = call fn0(v1)
                v3 = uextend.i64 v1
                v4 = iconst.i64 4
                v5 = imul v3, v4
                v6 = iadd v0, v5
                store v2, v6
                return
            }
            function %other(i32) -> i32 fast {
                fn0 = %wavelift_workgroup_id_x() -> i32
            block0(v0: i32):
                v1 = call fn0()
                v2 = iconst.i32 10
                v3 = imul v1, v2
                v4 = iadd v0, v3
                return v4
            }",
        )
        .unwrap();
        let args = [DataValue::I64(out as i64)];
        let LaunchReference::Completed(after) = interpret_launch(
            &module[0],
            &module,
            &args,
            [3, 1, 1],
            [2, 1, 1],
            64,
            &memory,
        ) else {
            panic!("the launch with a call did not complete");
        };
        let bytes = after.read(out, 3 * 4).unwrap();
        // Work-group 1 runs last: 10 + the work-item id.
        assert_eq!(bytes, [10, 0, 0, 0, 11, 0, 0, 0, 12, 0, 0, 0]);
        assert!(matches!(
            interpret_launch(&module[0], &[], &args, [1, 1, 1], [1, 1, 1], 64, &memory),
            LaunchReference::Unavailable(_)
        ));
    }

    #[test]
    fn param_layout_and_type_checks() {
        let target = Target::parse("gfx803").unwrap();
        let func = &parse_functions(
            "function %k(i8, i64, f32) system_v {\nblock0(v0: i8, v1: i64, v2: f32):\n return\n}",
        )
        .unwrap()[0];
        let args = [
            DataValue::I8(5),
            DataValue::I64(-2),
            DataValue::F32(Ieee32::with_float(1.0)),
        ];
        let segment = param_block(&target, &func.signature, &args, 0xdead_be00).unwrap();
        assert_eq!(segment.len(), 20);
        assert_eq!(segment[0], 5);
        assert_eq!(segment[8..16], (-2i64).to_le_bytes());
        assert_eq!(segment[16..20], 1f32.to_le_bytes());
        assert_eq!(
            segment[1..4],
            [0xbe, 0xad, 0xde],
            "noise in the unused bytes"
        );
        assert!(param_block(&target, &func.signature, &args[..2], 0).is_err());
        let wrong_type = [args[1].clone(), args[1].clone(), args[2].clone()];
        assert!(param_block(&target, &func.signature, &wrong_type, 0).is_err());
    }
}
