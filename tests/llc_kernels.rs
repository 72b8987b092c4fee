//! The simulator runs code no one here wrote: llc-19's kernels, compiled at test time from
//! the committed LLVM IR in `tests/llc_kernels/` (`regen.sh` makes it from the OpenCL C
//! beside it) for gfx600, gfx700, gfx803 and gfx900, launched from their code objects by
//! the dispatcher (`sim::gcn::launch_object`) over grids with partial work-groups. Each
//! output is checked against a reference computed here in Rust, and the launch must report
//! no violation (the simulator's wait-count and hazard checks are on).
//!
//! Skipped with a message where llc-19 is absent (`.ci/run` installs llvm-19).

use std::path::{Path, PathBuf};
use std::process::Command;
use wavelift::isa::gcn::code_object::read::{CodeObject, read};
use wavelift::sim::gcn::{Dispatch, launch_object};
use wavelift::sim::{Memory, Options};

const CPUS: [&str; 4] = ["gfx600", "gfx700", "gfx803", "gfx900"];

/// Compiles `tests/llc_kernels/NAME.ll` for `cpu` with llc-19 and reads the object.
fn compile(name: &str, cpu: &str) -> CodeObject {
    compile_with(name, cpu, &[])
}

/// [`compile`] with more llc-19 options (`extra`).
fn compile_with(name: &str, cpu: &str, extra: &[&str]) -> CodeObject {
    let ll = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/llc_kernels")
        .join(format!("{name}.ll"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llc_kernels");
    std::fs::create_dir_all(&dir).unwrap();
    let out: PathBuf = dir.join(format!(
        "{name}.{cpu}{}.o",
        extra.join("").replace('=', "-")
    ));
    let output = Command::new("llc-19")
        .args([
            "-O2",
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-filetype=obj",
        ])
        .args(extra)
        .arg(&ll)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("llc-19 runs");
    assert!(
        output.status.success(),
        "llc-19 {name} for {cpu}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let object = read(&std::fs::read(&out).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(object.processor, cpu);
    object
}

fn have_llc() -> bool {
    let found = Command::new("llc-19").arg("--version").output().is_ok();
    if !found {
        eprintln!("llc-19 not found (apt-get install llvm-19): llc-19 kernel launches skipped");
    }
    found
}

/// A kernarg segment built argument by argument, each at its natural alignment (the
/// OpenCL/HSA layout llc-19's metadata gives these kernels).
#[derive(Default)]
struct Args(Vec<u8>);

impl Args {
    fn put(mut self, bytes: &[u8]) -> Args {
        let at = self.0.len().next_multiple_of(bytes.len());
        self.0.resize(at, 0);
        self.0.extend_from_slice(bytes);
        self
    }
    fn ptr(self, address: u64) -> Args {
        self.put(&address.to_le_bytes())
    }
    fn u32(self, value: u32) -> Args {
        self.put(&value.to_le_bytes())
    }
}

/// A deterministic pseudo-random sequence (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
}

fn bytes_of<T: Copy, const N: usize>(values: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

fn words(memory: &Memory, address: u64, count: usize) -> Vec<u32> {
    let bytes = memory.read(address, 4 * count).expect("buffer readable");
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn dwords64(memory: &Memory, address: u64, count: usize) -> Vec<u64> {
    let bytes = memory.read(address, 8 * count).expect("buffer readable");
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Launches kernel `name` of `object` and fails the test on any simulator error.
fn run(object: &CodeObject, name: &str, dispatch: &Dispatch, memory: &mut Memory) {
    if let Err(e) = launch_object(object, name, dispatch, memory, &Options::default()) {
        panic!("{name} on {}: {e}", object.processor);
    }
}

/// What a 1-D kernel's output buffers hold past the grid: never written.
const SENTINEL: u32 = 0xdead_beef;

/// One-dimensional grids of `grid` work-items in work-groups of 64 (the last partial), a
/// bound `n` past the grid so that the kernels' own test does not hide extra work-items.
const GRID: u32 = 300;
const N: u32 = GRID + 7;

fn dispatch_1d(kernarg: Args) -> Dispatch {
    Dispatch {
        workgroup_size: [64, 1, 1],
        grid_size: [GRID, 1, 1],
        kernarg: kernarg.0,
    }
}

/// `reference(i)` for the work-items of the grid, the sentinel past it.
fn expect_1d<T: PartialEq + std::fmt::Debug + Copy>(
    what: &str,
    actual: &[T],
    sentinel: T,
    reference: impl Fn(usize) -> T,
) {
    for (i, &value) in actual.iter().enumerate() {
        let expected = if i < GRID as usize {
            reference(i)
        } else {
            sentinel
        };
        assert_eq!(value, expected, "{what}[{i}]");
    }
}

#[test]
fn gid2d_partial_work_groups_in_two_dimensions() {
    if !have_llc() {
        return;
    }
    // A 37 x 19 grid of 16 x 4 work-groups into a 40 x 20 buffer: the work-groups at the
    // right and bottom edges are partial, and what lies past the grid stays the sentinel.
    let (w, h) = (40u32, 20u32);
    for cpu in CPUS {
        let object = compile("gid2d", cpu);
        let mut memory = Memory::new();
        let out = memory.alloc(&bytes_of(
            &vec![SENTINEL; (w * h) as usize],
            u32::to_le_bytes,
        ));
        let dispatch = Dispatch {
            workgroup_size: [16, 4, 1],
            grid_size: [37, 19, 1],
            kernarg: Args::default().ptr(out).u32(w).u32(h).0,
        };
        run(&object, "gid2d", &dispatch, &mut memory);
        let actual = words(&memory, out, (w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let expected = if x < 37 && y < 19 {
                    (x.wrapping_mul(7).wrapping_add(y.wrapping_mul(1_000_003)))
                        ^ (x >> 3)
                        ^ ((y % 4) << 20)
                } else {
                    SENTINEL
                };
                assert_eq!(
                    actual[(y * w + x) as usize],
                    expected,
                    "{cpu}: out[{y}][{x}]"
                );
            }
        }
    }
}

#[test]
fn bytes_unpack_to_floats_and_repack() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(1);
    let input: Vec<u32> = (0..N).map(|_| rng.next() as u32).collect();
    for cpu in CPUS {
        let object = compile("bytes", cpu);
        let mut memory = Memory::new();
        let inp = memory.alloc(&bytes_of(&input, u32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        let sums = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(inp).ptr(out).ptr(sums).u32(N);
        run(&object, "bytes", &dispatch_1d(args), &mut memory);
        let b = |i: usize, k: u32| input[i] >> (8 * k) & 0xff;
        expect_1d(
            &format!("{cpu}: out"),
            &words(&memory, out, N as usize),
            SENTINEL,
            |i| b(i, 3) | b(i, 2) << 8 | b(i, 1) << 16 | ((b(i, 0) + 1) & 0xff) << 24,
        );
        expect_1d(
            &format!("{cpu}: sums"),
            &words(&memory, sums, N as usize),
            SENTINEL,
            |i| {
                let f = |k| b(i, k) as f32;
                (f(0) + 2.0 * f(1) + 4.0 * f(2) + 8.0 * f(3)).to_bits()
            },
        );
    }
}

#[test]
fn branches_divergent_if_else_chain() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(2);
    // Small magnitudes (v * v stays in range) and values around each test's edges.
    let input: Vec<i32> = (0..N)
        .map(|i| match i % 5 {
            0 => (rng.next() % 80_001) as i32 - 40_000,
            1 => (rng.next() % 2_000) as i32,
            2 => (rng.next() % 10) as i32 - 2,
            3 => 1000 + (rng.next() % 4) as i32,
            _ => -((rng.next() % 3) as i32),
        })
        .collect();
    for cpu in CPUS {
        let object = compile("branches", cpu);
        let mut memory = Memory::new();
        let inp = memory.alloc(&bytes_of(&input, i32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(inp).ptr(out).u32(N);
        run(&object, "branches", &dispatch_1d(args), &mut memory);
        expect_1d(
            &format!("{cpu}: out"),
            &words(&memory, out, N as usize),
            SENTINEL,
            |i| {
                let v = input[i];
                let r = if v < 0 {
                    -v * 3
                } else if v & 3 == 1 {
                    v * v
                } else if v > 1000 {
                    v / 7
                } else {
                    (v - 5).max(2)
                };
                r as u32
            },
        );
    }
}

#[test]
fn loops_with_data_dependent_trip_counts() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(3);
    let input: Vec<u32> = (0..N)
        .map(|i| match i % 4 {
            0 => (rng.next() % 1000) as u32,
            1 => (rng.next() % 100_000) as u32 + 1,
            2 => 27,
            _ => (rng.next() % 8) as u32,
        })
        .collect();
    for cpu in CPUS {
        let object = compile("loops", cpu);
        let mut memory = Memory::new();
        let inp = memory.alloc(&bytes_of(&input, u32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(inp).ptr(out).u32(N);
        run(&object, "loops", &dispatch_1d(args), &mut memory);
        expect_1d(
            &format!("{cpu}: out"),
            &words(&memory, out, N as usize),
            SENTINEL,
            |i| {
                let mut v = input[i];
                let mut steps = 0u32;
                while v != 1 && steps < 500 {
                    v = if v & 1 != 0 {
                        v.wrapping_mul(3).wrapping_add(1)
                    } else {
                        v >> 1
                    };
                    steps += 1;
                }
                let mut acc = 0u32;
                for j in 0..(i as u32 & 7) {
                    for k in 0..=j {
                        acc = acc.wrapping_add(j * k + steps);
                    }
                }
                steps | acc << 16
            },
        );
    }
}

#[test]
fn math64_multiply_shift_divide() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(4);
    let a: Vec<u64> = (0..N)
        .map(|i| match i % 3 {
            0 => rng.next(),
            1 => rng.next() >> (rng.next() % 64),
            _ => rng.next() % 1000,
        })
        .collect();
    let b: Vec<u64> = (0..N)
        .map(|i| match i % 4 {
            0 => rng.next(),
            1 => rng.next() >> 40,
            2 => rng.next() % 17,
            _ => rng.next() >> (rng.next() % 64),
        })
        .collect();
    for cpu in CPUS {
        let object = compile("math64", cpu);
        let mut memory = Memory::new();
        let pa = memory.alloc(&bytes_of(&a, u64::to_le_bytes));
        let pb = memory.alloc(&bytes_of(&b, u64::to_le_bytes));
        let sentinel = u64::from(SENTINEL) << 32 | u64::from(SENTINEL);
        let out = memory.alloc(&bytes_of(&vec![sentinel; 3 * N as usize], u64::to_le_bytes));
        let args = Args::default().ptr(pa).ptr(pb).ptr(out).u32(N);
        run(&object, "math64", &dispatch_1d(args), &mut memory);
        let actual = dwords64(&memory, out, 3 * N as usize);
        for (k, what) in ["product", "quotient", "remainder"].iter().enumerate() {
            let column: Vec<u64> = actual.iter().skip(k).step_by(3).copied().collect();
            expect_1d(&format!("{cpu}: {what}"), &column, sentinel, |i| {
                let (x, y) = (a[i], b[i] | 1);
                match k {
                    0 => x.wrapping_mul(y).wrapping_add(x >> 13).wrapping_sub(y << 7),
                    1 => x / y,
                    _ => ((x as i64).wrapping_rem((y | 0x100) as i64) as u64) ^ (x >> (y & 63)),
                }
            });
        }
    }
}

/// Operands for division: ordinary values, powers of two, denormals, zeros, infinities,
/// NaNs, and huge and tiny quotients (the scaling paths of LLVM's division sequences).
fn division_operands(rng: &mut Rng, special: &[u64], random: impl Fn(u64) -> u64) -> Vec<u64> {
    (0..N as usize)
        .map(|i| match i % 3 {
            0 => special[(rng.next() % special.len() as u64) as usize],
            _ => random(rng.next()),
        })
        .collect()
}

#[test]
fn fdiv32_correctly_rounded() {
    if !have_llc() {
        return;
    }
    let special: Vec<u64> = [
        0.0f32,
        -0.0,
        1.0,
        -3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1.0e-40,
        -3.5e-42,
        f32::MAX,
        1.0e30,
        1.0e-30,
    ]
    .iter()
    .map(|f| f.to_bits() as u64)
    .collect();
    let mut rng = Rng(5);
    let a: Vec<u32> = division_operands(&mut rng, &special, |r| r)
        .iter()
        .map(|&x| x as u32)
        .collect();
    let b: Vec<u32> = division_operands(&mut rng, &special, |r| r >> 32)
        .iter()
        .map(|&x| x as u32)
        .collect();
    for cpu in CPUS {
        let object = compile("fdiv32", cpu);
        let mut memory = Memory::new();
        let pa = memory.alloc(&bytes_of(&a, u32::to_le_bytes));
        let pb = memory.alloc(&bytes_of(&b, u32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(pa).ptr(pb).ptr(out).u32(N);
        run(&object, "fdiv32", &dispatch_1d(args), &mut memory);
        let actual = words(&memory, out, N as usize);
        for (i, &value) in actual.iter().enumerate() {
            if i >= GRID as usize {
                assert_eq!(value, SENTINEL, "{cpu}: out[{i}]");
                continue;
            }
            let expected = f32::from_bits(a[i]) / f32::from_bits(b[i]);
            let got = f32::from_bits(value);
            assert!(
                got.to_bits() == expected.to_bits() || got.is_nan() && expected.is_nan(),
                "{cpu}: {:e} / {:e} = {got:e} ({value:#x}), expected {expected:e}",
                f32::from_bits(a[i]),
                f32::from_bits(b[i])
            );
        }
    }
}

#[test]
fn fdiv64_correctly_rounded() {
    if !have_llc() {
        return;
    }
    let special: Vec<u64> = [
        0.0f64,
        -0.0,
        1.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        1.0e-310,
        -4.9e-324,
        f64::MAX,
        1.0e300,
        1.0e-300,
    ]
    .iter()
    .map(|f| f.to_bits())
    .collect();
    let mut rng = Rng(6);
    let a = division_operands(&mut rng, &special, |r| r);
    let b = division_operands(&mut rng, &special, |r| r ^ 0x3000_0000_0000_0000);
    for cpu in CPUS {
        let object = compile("fdiv64", cpu);
        let mut memory = Memory::new();
        let pa = memory.alloc(&bytes_of(&a, u64::to_le_bytes));
        let pb = memory.alloc(&bytes_of(&b, u64::to_le_bytes));
        let sentinel = u64::from(SENTINEL) << 32 | u64::from(SENTINEL);
        let out = memory.alloc(&bytes_of(&vec![sentinel; N as usize], u64::to_le_bytes));
        let args = Args::default().ptr(pa).ptr(pb).ptr(out).u32(N);
        run(&object, "fdiv64", &dispatch_1d(args), &mut memory);
        let actual = dwords64(&memory, out, N as usize);
        for (i, &value) in actual.iter().enumerate() {
            if i >= GRID as usize {
                assert_eq!(value, sentinel, "{cpu}: out[{i}]");
                continue;
            }
            let expected = f64::from_bits(a[i]) / f64::from_bits(b[i]);
            let got = f64::from_bits(value);
            assert!(
                got.to_bits() == expected.to_bits() || got.is_nan() && expected.is_nan(),
                "{cpu}: {:e} / {:e} = {got:e} ({value:#x}), expected {expected:e}",
                f64::from_bits(a[i]),
                f64::from_bits(b[i])
            );
        }
    }
}

#[test]
fn reduce_in_lds_with_barriers() {
    if !have_llc() {
        return;
    }
    // Three work-groups of 256 (the kernel's tree spans 256 slots); work-items at or past
    // n = 700 add 0.
    let n = 700u32;
    let mut rng = Rng(7);
    let input: Vec<u32> = (0..768).map(|_| rng.next() as u32).collect();
    for cpu in CPUS {
        let object = compile("reduce", cpu);
        let mut memory = Memory::new();
        let inp = memory.alloc(&bytes_of(&input, u32::to_le_bytes));
        let sums = memory.alloc(&bytes_of(&[SENTINEL; 4], u32::to_le_bytes));
        let dispatch = Dispatch {
            workgroup_size: [256, 1, 1],
            grid_size: [768, 1, 1],
            kernarg: Args::default().ptr(inp).ptr(sums).u32(n).0,
        };
        run(&object, "reduce", &dispatch, &mut memory);
        let expected: Vec<u32> = (0..3)
            .map(|g| {
                input[g * 256..(g + 1) * 256]
                    .iter()
                    .enumerate()
                    .filter(|&(l, _)| ((g * 256 + l) as u32) < n)
                    .fold(0u32, |s, (_, &v)| s.wrapping_add(v))
            })
            .chain([SENTINEL])
            .collect();
        assert_eq!(words(&memory, sums, 4), expected, "{cpu}: sums");
    }
}

#[test]
fn lanes_cross_lane_reads_float_selects_and_sdwa() {
    if !have_llc() {
        return;
    }
    let special = [0.0f32, -0.0, 1.5, -2.0, f32::NAN, f32::INFINITY, 1.0e-40];
    let mut rng = Rng(8);
    let mut operand = |i: u32| {
        let r = rng.next();
        match i % 3 {
            0 => special[(r % special.len() as u64) as usize].to_bits(),
            _ => (r as u32 % 2000) as f32 as u32 ^ (r as u32 & 0x8000_0000),
        }
    };
    let a: Vec<u32> = (0..N).map(&mut operand).collect();
    let b: Vec<u32> = (0..N).map(&mut operand).collect();
    for cpu in CPUS {
        let object = compile("lanes", cpu);
        let mut memory = Memory::new();
        let pa = memory.alloc(&bytes_of(&a, u32::to_le_bytes));
        let pb = memory.alloc(&bytes_of(&b, u32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; 4 * N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(pa).ptr(pb).ptr(out).u32(N);
        run(&object, "lanes", &dispatch_1d(args), &mut memory);
        let actual = words(&memory, out, 4 * N as usize);
        let select = |i: usize| {
            let (x, y) = (f32::from_bits(a[i]), f32::from_bits(b[i]));
            let hi = if x > y { x } else { y };
            let lo = if x < y { x } else { y };
            (hi.to_bits(), lo.to_bits())
        };
        let v = |i: usize| {
            let (hi, lo) = select(i);
            hi ^ lo.wrapping_mul(3)
        };
        for (k, what) in ["max", "min", "lanes", "sdwa"].iter().enumerate() {
            let column: Vec<u32> = actual.iter().skip(k).step_by(4).copied().collect();
            expect_1d(&format!("{cpu}: {what}"), &column, SENTINEL, |i| {
                // Waves of 64 consecutive work-items (work-groups of 64).
                let wave = i / 64 * 64;
                let swapped = v(i ^ 1);
                match k {
                    0 => select(i).0,
                    1 => select(i).1,
                    2 => v(wave)
                        .wrapping_add(v(wave + 5).wrapping_mul(5))
                        .wrapping_add(swapped),
                    _ => {
                        let hx = (v(i) >> 16) as u16;
                        let gx = (swapped >> 8) as u16;
                        let m = u32::from(hx.wrapping_add(gx))
                            | u32::from(((v(i) >> 8).wrapping_add(swapped >> 24)) as u8) << 16;
                        m ^ u32::from(hx >> 3) << 24
                    }
                }
            });
        }
    }
}

#[test]
fn atomics_with_llcs_wave_reductions() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(9);
    let input: Vec<u32> = (0..N).map(|_| rng.next() as u32 >> 4).collect();
    let expected: u32 = input[..GRID as usize]
        .iter()
        .fold(0, |s, &v| s.wrapping_add(v));
    for cpu in ["gfx803", "gfx900"] {
        for strategy in ["DPP", "Iterative"] {
            let option = format!("-amdgpu-atomic-optimizer-strategy={strategy}");
            let object = compile_with("atomics", cpu, &[&option]);
            let mut memory = Memory::new();
            let inp = memory.alloc(&bytes_of(&input, u32::to_le_bytes));
            let sums = memory.alloc(&bytes_of(&[0, SENTINEL], u32::to_le_bytes));
            let args = Args::default().ptr(inp).ptr(sums).u32(N);
            run(&object, "atomics", &dispatch_1d(args), &mut memory);
            assert_eq!(
                words(&memory, sums, 2),
                [expected, SENTINEL],
                "{cpu}, {strategy} strategy"
            );
        }
    }
}

#[test]
fn implicit_hidden_arguments_of_code_object_v5() {
    if !have_llc() {
        return;
    }
    for cpu in CPUS {
        let object = compile("implicit", cpu);
        let kernel = object.kernel("implicit").expect("kernel implicit");
        assert!(
            kernel
                .args
                .iter()
                .any(|a| a.value_kind == "hidden_remainder_x" && a.offset == 16 + 18),
            "{cpu}: {:?}",
            kernel.args
        );
        let mut memory = Memory::new();
        let out = memory.alloc(&bytes_of(&vec![SENTINEL; N as usize], u32::to_le_bytes));
        // Only the explicit arguments: the launch adds the hidden ones.
        let args = Args::default().ptr(out).u32(N);
        run(&object, "implicit", &dispatch_1d(args), &mut memory);
        expect_1d(
            &format!("{cpu}: out"),
            &words(&memory, out, N as usize),
            SENTINEL,
            // Work-groups of 64: the last of the 300 work-items holds 300 % 64 = 44; one
            // grid dimension.
            |i| if i < 256 { 64 | 1 << 16 } else { 44 | 1 << 16 },
        );
    }
}

/// A private array llc-19 keeps in scratch (a `volatile` table indexed by data): the
/// dispatcher's private segment and the swizzled MUBUF `offen` accesses, on every
/// generation (gfx7 on with llc's flat scratch setup, which the code only writes).
#[test]
fn private_array_in_scratch() {
    if !have_llc() {
        return;
    }
    let mut rng = Rng(11);
    let input: Vec<u32> = (0..N).map(|_| rng.next() as u32).collect();
    for cpu in CPUS {
        let object = compile("private", cpu);
        let mut memory = Memory::new();
        let inp = memory.alloc(&bytes_of(&input, u32::to_le_bytes));
        let out = memory.alloc(&bytes_of(&[SENTINEL; N as usize], u32::to_le_bytes));
        let args = Args::default().ptr(inp).ptr(out).u32(GRID);
        run(&object, "private_array", &dispatch_1d(args), &mut memory);
        let table = |k: u32, i: u32| (k * k).wrapping_add(i);
        expect_1d(cpu, &words(&memory, out, N as usize), SENTINEL, |i| {
            let (v, i) = (input[i], i as u32);
            table(v & 15, i).wrapping_add(table((v >> 4) & 15, i))
        });
    }
}
