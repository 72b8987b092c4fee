//! Kernel launches on the simulator: the compiled saxpy filetest over a grid, checked
//! against Rust, and a hand-built kernel whose waves exchange data across `s_barrier`.

use wavelift::gcn::GcnInfo;
use wavelift::isa::gcn::abi::KernelInputs;
use wavelift::isa::gcn::mc::waitcnt_imm;
use wavelift::isa::gcn::mc::{Enc, Gen, McInst, Op, Operand, encode};
use wavelift::sim::gcn::launch;
use wavelift::sim::{Launch, Memory, Options, Violation};
use wavelift::{CompiledCode, FunctionKind, Target, TargetInfo};

/// The first function of a filetest, compiled for `cpu`.
fn compile_filetest(file: &str, cpu: &str) -> CompiledCode {
    let path = format!("{}/filetests/gcn/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    // The `test`/`target` header is clif-util's; the function is plain CLIF.
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("test ") && !l.starts_with("target "))
        .collect();
    let funcs = cranelift_reader::parse_functions(&body.join("\n")).unwrap();
    let target = Target::new("amdgcn-amd-amdhsa", cpu).unwrap();
    wavelift::compile_function(&funcs[0], &target).unwrap()
}

fn saxpy() -> CompiledCode {
    compile_filetest("saxpy.clif", "gfx803")
}

/// A device function keeping `n` loaded values live at once, then multiplying them.
fn many_live_values(n: usize) -> CompiledCode {
    let mut text = String::from("function %pressure(i64) -> i32 fast {\nblock0(v0: i64):\n");
    for i in 0..n {
        text += &format!("    v{} = load.i32 notrap aligned v0+{}\n", i + 1, 4 * i);
    }
    let mut product = n;
    for i in (1..n).rev() {
        text += &format!("    v{} = imul v{product}, v{i}\n", n + 1 + (n - 1 - i));
        product = n + 1 + (n - 1 - i);
    }
    text += &format!("    return v{product}\n}}\n");
    let func = cranelift_reader::parse_functions(&text).unwrap().remove(0);
    let target = Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap();
    wavelift::compile_function(&func, &target).unwrap()
}

/// More live values than regalloc2 sees registers of a class (63): the allocator's spill
/// slots go to the VGPRs above its partition, and the code still computes the product
/// (called with the frame in which it saves the VGPRs from v32 on, `docs/ir.md`, "Calls").
#[test]
fn more_live_values_than_allocator_registers_run_correctly() {
    let n = 150;
    let compiled = many_live_values(n);
    let vgprs = compiled.gcn().unwrap().vgprs;
    assert!(vgprs as usize > 63 && vgprs <= 256, "{vgprs}");
    let mut memory = Memory::new();
    let words: Vec<u32> = (0..n as u32).map(|i| 3 * i + 1).collect();
    let address = memory.alloc(&to_bytes_u32(&words));
    let args = vec![vec![address as u32, (address >> 32) as u32]; 64];
    let target = Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap();
    let (results, _) = wavelift::sim::simulator(target.arch)
        .call_device(&compiled, &args, 1, &mut memory, &Options::default())
        .unwrap();
    let product = words.iter().fold(1u32, |p, &w| p.wrapping_mul(w));
    assert!(results.iter().all(|r| r[0] == product));
}

fn to_bytes_u32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn to_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// saxpy over `groups` work-groups of `size` work-items, each touching exactly its element
/// (the buffers end where the grid does, so a stray access faults).
fn run_saxpy(size: u32, groups: u32) {
    let code = saxpy();
    assert_eq!(code.kind, FunctionKind::Kernel);
    let n = (size * groups) as usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 11.0).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.5)).collect();
    let a = 2.5_f32;
    let mut memory = Memory::new();
    let x_addr = memory.alloc(&to_bytes(&x));
    let y_addr = memory.alloc(&to_bytes(&y));
    let mut kernarg = Vec::new();
    kernarg.extend(x_addr.to_le_bytes());
    kernarg.extend(y_addr.to_le_bytes());
    kernarg.extend(a.to_le_bytes());
    let grid = Launch {
        workgroup_size: [size, 1, 1],
        groups: [groups, 1, 1],
        params: kernarg,
    };
    let stats = launch(&code, Gen::Gfx8, &grid, &mut memory, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.waves, (groups * size.div_ceil(64)) as u64);
    let out = f32s(memory.read(y_addr, 4 * n).unwrap());
    for i in 0..n {
        let want = a.mul_add(x[i], y[i]);
        assert_eq!(
            out[i].to_bits(),
            want.to_bits(),
            "y[{i}]: {} != {want}",
            out[i]
        );
    }
    assert_eq!(
        f32s(memory.read(x_addr, 4 * n).unwrap()),
        x,
        "x is unchanged"
    );
}

#[test]
fn saxpy_over_256_work_items() {
    run_saxpy(128, 2);
    run_saxpy(64, 4);
}

#[test]
fn saxpy_with_partial_waves() {
    // 100 work-items per group: the second wave of each group has 36 lanes.
    run_saxpy(100, 3);
}

#[test]
fn launch_errors() {
    let code = saxpy();
    let mut memory = Memory::new();
    let short = Launch {
        workgroup_size: [64, 1, 1],
        groups: [1, 1, 1],
        params: vec![0; 8],
    };
    let err = launch(&code, Gen::Gfx8, &short, &mut memory, &Options::default()).unwrap_err();
    assert!(matches!(err.violation, Violation::Other(_)), "{err}");
    // Null buffer pointers: the first FLAT load faults, naming lane 0.
    let null = Launch {
        params: vec![0; 20],
        ..short
    };
    let err = launch(&code, Gen::Gfx8, &null, &mut memory, &Options::default()).unwrap_err();
    assert!(
        matches!(
            err.violation,
            Violation::Memory {
                lane: Some(0),
                address: 0,
                ..
            }
        ),
        "{err}"
    );
    let big = Launch {
        workgroup_size: [1025, 1, 1],
        params: vec![0; 20],
        ..null
    };
    assert!(launch(&code, Gen::Gfx8, &big, &mut memory, &Options::default()).is_err());
}

fn s(n: u8) -> Operand {
    Operand::sgpr(n)
}
fn v(n: u8) -> Operand {
    Operand::vgpr(n)
}
fn int(n: i64) -> Operand {
    Operand::inline_int(n).unwrap()
}

fn salu(op: Op, dst: Option<Operand>, srcs: &[Operand]) -> McInst {
    let mut m = McInst::new(op, op.info().enc);
    m.dst = dst;
    for (slot, &o) in m.src.iter_mut().zip(srcs) {
        *slot = Some(o);
    }
    m
}

fn smem(op: Op, dst: u8, base: u8, offset: i32) -> McInst {
    let mut m = McInst::new(op, Enc::Smem);
    (m.dst, m.src[0], m.imm) = (Some(s(dst)), Some(s(base)), offset);
    m
}

fn flat(op: Op, a: u8, b: u8) -> McInst {
    let mut m = McInst::new(op, Enc::Flat);
    if op == Op::FlatLoadDword {
        (m.dst, m.src[0]) = (Some(v(a)), Some(v(b)));
    } else {
        (m.src[0], m.src[1]) = (Some(v(a)), Some(v(b)));
    }
    m
}

fn sopp(op: Op, imm: i32) -> McInst {
    let mut m = McInst::new(op, Enc::Sopp);
    m.imm = imm;
    m
}

/// A kernel with kernarg `(u32 *a, u32 *b)`: wave w stores 100 + w to a[w], meets the other
/// waves at a barrier (or not), then copies a[(w + 1) % 4] to b[w].
fn exchange_kernel(generation: Gen, barrier: bool) -> CompiledCode {
    let vmov = |dst: u8, src: Operand| {
        McInst::valu(Op::VMovB32, generation, Some(v(dst)), None, &[src]).unwrap()
    };
    let wait = sopp(
        Op::SWaitcnt,
        waitcnt_imm(generation, Some(0), None, Some(0)) as i32,
    );
    let mut readfirst = McInst::new(Op::VReadfirstlaneB32, Enc::Vop1);
    (readfirst.dst, readfirst.src[0]) = (Some(s(6)), Some(v(0)));
    let mut insts = vec![
        smem(Op::SLoadDwordx2, 2, 0, 0),
        smem(
            Op::SLoadDwordx2,
            4,
            0,
            if generation >= Gen::Gfx8 { 8 } else { 2 },
        ),
        wait.clone(),
        readfirst,                                       // s6 = 64 w
        salu(Op::SLshrB32, Some(s(7)), &[s(6), int(6)]), // s7 = w
        salu(Op::SLshlB32, Some(s(8)), &[s(7), int(2)]), // s8 = 4 w
        salu(Op::SAddU32, Some(s(10)), &[s(2), s(8)]),
        salu(Op::SAddcU32, Some(s(11)), &[s(3), int(0)]), // s[10:11] = &a[w]
        salu(Op::SAddU32, Some(s(9)), &[s(7), int(64)]),
        salu(Op::SAddU32, Some(s(9)), &[s(9), int(36)]), // s9 = 100 + w
        salu(Op::SMovB64, Some(Operand::EXEC), &[int(1)]), // lane 0 only
        vmov(2, s(10)),
        vmov(3, s(11)),
        vmov(4, s(9)),
        flat(Op::FlatStoreDword, 2, 4),
        wait.clone(),
    ];
    if barrier {
        insts.push(sopp(Op::SBarrier, 0));
    }
    insts.extend([
        salu(Op::SAddU32, Some(s(12)), &[s(7), int(1)]),
        salu(Op::SAndB32, Some(s(12)), &[s(12), int(3)]),
        salu(Op::SLshlB32, Some(s(12)), &[s(12), int(2)]),
        salu(Op::SAddU32, Some(s(14)), &[s(2), s(12)]),
        salu(Op::SAddcU32, Some(s(15)), &[s(3), int(0)]), // &a[(w + 1) % 4]
        vmov(2, s(14)),
        vmov(3, s(15)),
        flat(Op::FlatLoadDword, 5, 2),
        salu(Op::SAddU32, Some(s(16)), &[s(4), s(8)]),
        salu(Op::SAddcU32, Some(s(17)), &[s(5), int(0)]), // &b[w]
        vmov(6, s(16)),
        vmov(7, s(17)),
        wait,
        flat(Op::FlatStoreDword, 6, 5),
        sopp(Op::SEndpgm, 0),
    ]);
    let mut code = Vec::new();
    for i in &insts {
        encode(i, generation, &mut code).unwrap_or_else(|e| panic!("{i:?}: {e}"));
    }
    let info = GcnInfo {
        vgprs: 8,
        sgprs: 18,
        uses_vcc: false,
        kernarg_size: 16,
        inputs: KernelInputs {
            kernarg_segment_ptr: true,
            workitem_id_vgprs: 1,
            ..KernelInputs::default()
        },
        group_segment_size: 0,
        private_segment_size: 0,
        sgpr_spills: 0,
        vgpr_spills: 0,
        calls: Vec::new(),
        indirect_calls: Vec::new(),
    };
    CompiledCode::new(code, FunctionKind::Kernel, TargetInfo::Gcn(info))
}

fn run_exchange(generation: Gen, barrier: bool) -> Vec<u32> {
    let code = exchange_kernel(generation, barrier);
    let mut memory = Memory::new();
    let a = memory.alloc_zeroed(16);
    let b = memory.alloc_zeroed(16);
    let mut kernarg = a.to_le_bytes().to_vec();
    kernarg.extend(b.to_le_bytes());
    let grid = Launch {
        workgroup_size: [256, 1, 1],
        groups: [1, 1, 1],
        params: kernarg,
    };
    let stats = launch(&code, generation, &grid, &mut memory, &Options::default())
        .unwrap_or_else(|e| panic!("{generation:?}: {e}"));
    assert_eq!(stats.waves, 4);
    memory
        .read(b, 16)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn waves_of_a_group_meet_at_barriers() {
    for g in [Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
        assert_eq!(run_exchange(g, true), [101, 102, 103, 100], "{g:?}");
        // Without the barrier the kernel races: the simulator starts each wave some
        // instructions after the one before, so a wave reads its neighbour's slot before
        // the neighbour wrote it.
        assert_ne!(run_exchange(g, false), [101, 102, 103, 100], "{g:?}");
    }
}

#[test]
fn compiled_kernel_without_its_waitcnt_fails() {
    let mut code = saxpy();
    let target = Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap();
    // saxpy is straight-line code: cutting an instruction out moves no branch target.
    let line = wavelift::disassemble(&code.code, &target)
        .into_iter()
        .find(|l| l.text.starts_with("s_waitcnt vmcnt(0)"))
        .unwrap();
    code.code.drain(line.offset..line.offset + line.bytes.len());
    let mut memory = Memory::new();
    let x = memory.alloc(&to_bytes(&[1.0; 64]));
    let y = memory.alloc(&to_bytes(&[2.0; 64]));
    let mut kernarg = x.to_le_bytes().to_vec();
    kernarg.extend(y.to_le_bytes());
    kernarg.extend(3.0f32.to_le_bytes());
    let grid = Launch {
        workgroup_size: [64, 1, 1],
        groups: [1, 1, 1],
        params: kernarg,
    };
    let err = launch(&code, Gen::Gfx8, &grid, &mut memory, &Options::default()).unwrap_err();
    let Violation::Waitcnt { issued, .. } = &err.violation else {
        panic!("{err}");
    };
    assert!(issued.starts_with("flat_load_dword"), "{err}");
    assert!(
        err.inst
            .as_deref()
            .is_some_and(|t| t.starts_with("v_fma_f32")),
        "{err}"
    );
}

/// `out[i] = 3 * in[i] + 1` for `i < n` (filetests/gcn/control-skip.clif): when no lane
/// passes the bounds check, the wave branches over the guarded block's loads and stores
/// (`s_cbranch_execz`) instead of running them with EXEC = 0, on every generation.
#[test]
fn blocks_no_lane_enters_are_skipped() {
    for (cpu, generation) in [
        ("gfx600", Gen::Gfx6),
        ("gfx700", Gen::Gfx7),
        ("gfx803", Gen::Gfx8),
        ("gfx900", Gen::Gfx9),
    ] {
        let code = compile_filetest("control-skip.clif", cpu);
        let run = |n: u32| {
            let mut memory = Memory::new();
            let input: Vec<u8> = (0..64u32).flat_map(|i| i.to_le_bytes()).collect();
            let in_addr = memory.alloc(&input);
            let out_addr = memory.alloc(&[0; 256]);
            let mut kernarg = Vec::new();
            kernarg.extend(in_addr.to_le_bytes());
            kernarg.extend(out_addr.to_le_bytes());
            kernarg.extend(n.to_le_bytes());
            let grid = Launch {
                workgroup_size: [64, 1, 1],
                groups: [1, 1, 1],
                params: kernarg,
            };
            let stats = launch(&code, generation, &grid, &mut memory, &Options::default())
                .unwrap_or_else(|e| panic!("{cpu}: {e}"));
            let out = memory.read(out_addr, 256).unwrap().to_vec();
            (stats.instructions, out)
        };
        let (none, untouched) = run(0);
        let (all, written) = run(64);
        let (one, _) = run(1);
        assert!(
            untouched.iter().all(|&b| b == 0),
            "{cpu}: n = 0 stores nothing"
        );
        assert_eq!(&written[4..8], &4u32.to_le_bytes(), "{cpu}: out[1] = 4");
        // Every lane on or one lane on run the same instructions; none on skips at least
        // the block's load, multiply, add and store.
        assert_eq!(all, one, "{cpu}");
        assert!(
            none + 4 <= all,
            "{cpu}: {none} instructions with no lane on, {all} with all"
        );
    }
}

/// llc-19's own gfx600 code for a kernel with a private array (`tests/gcn_code_object.rs`,
/// `PRIVATE_ARRAY_LL` without the work-group id: `a[tid] = i; out[tid] = a[i]`), as
/// llvm-mc-14 assembles `llc-19 -O2 -mcpu=gfx600`'s text. It moves the scratch resource
/// to its wave's part with the wave offset in s7 and reads and writes through it with
/// `offen`: the simulator's scratch setup and swizzled addressing run it as the hardware
/// would. Each lane writes its own array, so only lane `i` reads `i` back; the other lanes
/// read their never-written `a[i]`, zero in the simulator's fresh scratch.
const LLC_PRIVATE_ARRAY_GFX600: &[u8] = &[
    0x02, 0x05, 0x03, 0xc0, 0x00, 0x07, 0x00, 0x80, 0x82, 0x00, 0x00, 0x34, 0x01, 0x80, 0x01, 0x82,
    0x80, 0x02, 0x02, 0x7e, 0x80, 0x00, 0x04, 0x4a, 0x7f, 0x00, 0x8c, 0xbf, 0x06, 0x02, 0x06, 0x7e,
    0x06, 0x82, 0x06, 0x8f, 0x00, 0x10, 0x70, 0xe0, 0x02, 0x03, 0x00, 0x80, 0x06, 0x02, 0x02, 0x4a,
    0x00, 0x10, 0x30, 0xe0, 0x01, 0x02, 0x00, 0x80, 0x00, 0x05, 0x42, 0xc0, 0xff, 0x03, 0x87, 0xbe,
    0x00, 0xf0, 0x00, 0x01, 0x80, 0x03, 0x86, 0xbe, 0x80, 0x02, 0x02, 0x7e, 0x70, 0x00, 0x8c, 0xbf,
    0x00, 0x80, 0x70, 0xe0, 0x00, 0x02, 0x01, 0x80, 0x00, 0x00, 0x81, 0xbf,
];

#[test]
fn llcs_private_memory_code_runs() {
    let info = GcnInfo {
        vgprs: 4,
        sgprs: 8,
        uses_vcc: true,
        kernarg_size: 12,
        inputs: KernelInputs {
            kernarg_segment_ptr: true,
            workgroup_id: [true, false, false],
            workitem_id_vgprs: 1,
            private_segment: true,
            ..KernelInputs::default()
        },
        group_segment_size: 0,
        private_segment_size: 68,
        sgpr_spills: 0,
        vgpr_spills: 0,
        calls: Vec::new(),
        indirect_calls: Vec::new(),
    };
    let code = CompiledCode::new(
        LLC_PRIVATE_ARRAY_GFX600.to_vec(),
        FunctionKind::Kernel,
        TargetInfo::Gcn(info),
    );
    let mut memory = Memory::new();
    let out = memory.alloc_zeroed(4 * 16);
    let mut kernarg = out.to_le_bytes().to_vec();
    kernarg.extend(5u32.to_le_bytes());
    // 16 work-items, the array's length.
    let grid = Launch {
        workgroup_size: [16, 1, 1],
        groups: [2, 1, 1],
        params: kernarg.clone(),
    };
    launch(&code, Gen::Gfx6, &grid, &mut memory, &Options::default()).unwrap();
    let words: Vec<u32> = memory
        .read(out, 4 * 16)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let expected: Vec<u32> = (0..16).map(|t| if t == 5 { 5 } else { 0 }).collect();
    assert_eq!(words, expected);
    // With 17 work-items, the last writes past its array (undefined in OpenCL): the
    // simulator reports it rather than let it reach another wave's scratch.
    let grid = Launch {
        workgroup_size: [17, 1, 1],
        ..grid
    };
    let error = launch(&code, Gen::Gfx6, &grid, &mut memory, &Options::default()).unwrap_err();
    assert!(
        matches!(error.violation, Violation::Memory { lane: Some(16), .. }),
        "{error:?}"
    );
}
