//! AMDGPU code objects (`wavelift::compile_module`) checked with LLVM 19's tools: every
//! GCN filetest and bench kernel, written as a code object, is read by `llvm-readelf-19`
//! and `llvm-objdump-19` without warnings, objdump disassembles each function as our
//! disassembler does, the ELF flags equal llc-19's for every processor, and the kernel
//! descriptor and metadata fields that do not depend on register allocation equal those
//! llc-19 writes for the same kernels (`bench/kernels/*.ll`). `docs/objects.md` explains
//! the fields that differ.
//!
//! Without llvm-19's tools each test prints why and passes; CI installs them (`.ci/run`).

mod filetest_text;
use std::path::{Path, PathBuf};
use std::process::Command;
use wavelift::{Arch, CodeObjectVersion, Target, gcn::Gen, ir};

/// Whether `tool` runs; if not, says so (the test then checks nothing).
fn have(tool: &str) -> bool {
    let found = Command::new(tool).arg("--version").output().is_ok();
    if !found {
        eprintln!("{tool} not found (apt-get install llvm-19): code-object test skipped");
    }
    found
}

fn clif_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            clif_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "clif") {
            out.push(path);
        }
    }
}

/// The functions of a `.clif` file and its GCN targets (our header lines blanked).
fn parse_clif(path: &Path) -> (Vec<ir::Function>, Vec<Target>) {
    let text = std::fs::read_to_string(path).unwrap();
    let targets = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("target "))
        .map(|spec| Target::parse(spec).expect("filetest target parses"))
        .filter(|t| matches!(t.arch, Arch::Gcn(_)))
        .collect();
    let clif = filetest_text::clif_of(&text);
    let funcs = cranelift_reader::parse_functions(&clif).expect("filetest parses");
    (funcs, targets)
}

/// The processor of a target (`gfx802` for `tonga`).
fn processor(target: &Target) -> String {
    let id = target.target_id();
    id.split(':').next().unwrap().to_string()
}

/// Runs `tool args`, requiring success and an empty stderr (no warnings); returns stdout.
fn run_clean(tool: &str, args: &[&str], what: &str) -> String {
    let output = Command::new(tool).args(args).output().expect("tool runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "{what}: `{tool} {}` failed or warned:\n{stderr}",
        args.join(" ")
    );
    String::from_utf8(output.stdout).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gcn_code_object");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// objdump's disassembly per symbol: the instruction texts (its `// address: bytes`
/// comments dropped, whitespace collapsed) under each `<name>:` line.
fn objdump_functions(listing: &str) -> Vec<(String, Vec<String>)> {
    let mut functions: Vec<(String, Vec<String>)> = Vec::new();
    for line in listing.lines() {
        if let Some(name) = line.strip_suffix(">:").and_then(|l| l.split_once(" <")) {
            functions.push((name.1.to_string(), Vec::new()));
        } else if line.starts_with('\t')
            && let Some((_, insts)) = functions.last_mut()
        {
            let text = line.split("//").next().unwrap();
            insts.push(text.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    functions
}

/// `theirs` with each operand that LLVM 19 prints as a float where we (and LLVM 14) print
/// the 32-bit literal in hex written as ours, when they are the same value: LLVM 19 prints
/// the literal of an f16 operand (`0x3c00`) as its value (`1.0`).
fn literals_as_ours(theirs: &str, ours: &str) -> String {
    let (Some((their_op, their_args)), Some((our_op, our_args))) =
        (theirs.split_once(' '), ours.split_once(' '))
    else {
        return theirs.to_string();
    };
    let their_args: Vec<&str> = their_args.split(", ").collect();
    let our_args: Vec<&str> = our_args.split(", ").collect();
    if their_op != our_op || their_args.len() != our_args.len() {
        return theirs.to_string();
    }
    let args: Vec<&str> = their_args
        .iter()
        .zip(&our_args)
        .map(|(&t, &o)| {
            let value: Option<f64> = t.parse().ok();
            let literal = o
                .strip_prefix("0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok());
            match (value, literal) {
                (Some(v), Some(bits))
                    if f64::from(f32::from_bits(bits)) == v || half_value(bits) == Some(v) =>
                {
                    o
                }
                _ => t,
            }
        })
        .collect();
    format!("{their_op} {}", args.join(", "))
}

/// The value of a 16-bit literal read as an IEEE half.
fn half_value(bits: u32) -> Option<f64> {
    if bits > 0xffff {
        return None;
    }
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = (bits >> 10 & 0x1f) as i32;
    let fraction = f64::from(bits & 0x3ff);
    match exponent {
        0 => Some(sign * fraction * 2f64.powi(-24)),
        0x1f => None,
        e => Some(sign * (1.0 + fraction / 1024.0) * 2f64.powi(e - 15)),
    }
}

#[test]
fn every_gcn_filetest_is_a_code_object_llvm_reads_and_disassembles_as_we_do() {
    if !have("llvm-readelf-19") || !have("llvm-objdump-19") {
        return;
    }
    let mut files = Vec::new();
    clif_files(Path::new("filetests/gcn"), &mut files);
    clif_files(Path::new("bench/kernels"), &mut files);
    files.sort();
    let mut kernels = 0;
    let mut disassembled = 0;
    for file in &files {
        let (funcs, targets) = parse_clif(file);
        for target in &targets {
            // Error tests hold functions that do not compile: the module is the others.
            // Fragment and vertex shaders are not for HSA code objects (`compile_module`
            // refuses them): their registers are the graphics driver's to program.
            let funcs: Vec<ir::Function> = funcs
                .iter()
                .filter(|f| {
                    wavelift::compile_function(f, target).is_ok_and(|c| {
                        c.gcn().is_some_and(|info| {
                            info.inputs.pixel.is_none() && info.inputs.vertex.is_none()
                        })
                    })
                })
                .cloned()
                .collect();
            if funcs.is_empty() {
                continue;
            }
            let what = format!("{} for {}", file.display(), target.cpu);
            let object =
                wavelift::compile_module(&funcs, target).unwrap_or_else(|e| panic!("{what}: {e}"));
            let path = scratch("filetest.o");
            std::fs::write(&path, &object).unwrap();
            let path = path.to_str().unwrap();
            let elf = run_clean(
                "llvm-readelf-19",
                &["-h", "-S", "-s", "--notes", path],
                &what,
            );
            assert!(
                elf.contains("NT_AMDGPU_METADATA"),
                "{what}: no metadata note"
            );
            let mcpu = format!("--mcpu={}", processor(target));
            let headers = run_clean("llvm-objdump-19", &["-h", "-t", &mcpu, path], &what);
            assert!(headers.contains(".text"), "{what}: objdump lists no .text");
            // LLVM 19 cannot disassemble gfx6/gfx7 ("Disassembly not yet supported for
            // subtarget"): tests/gcn_filetests_llvm_mc.rs assembles our text there instead.
            if matches!(target.arch, Arch::Gcn(Gen::Gfx6 | Gen::Gfx7)) {
                continue;
            }
            let listing = run_clean("llvm-objdump-19", &["-d", &mcpu, path], &what);
            let theirs = objdump_functions(&listing);
            assert_eq!(
                theirs.len(),
                funcs.len(),
                "{what}: objdump's functions:\n{listing}"
            );
            for func in &funcs {
                let compiled = wavelift::compile_function(func, target).unwrap();
                kernels += (compiled.kind == wavelift::FunctionKind::Kernel) as usize;
                disassembled += 1;
                let name = func.name.to_string();
                let name = name.trim_start_matches('%');
                let ours: Vec<String> = wavelift::disassemble(&compiled.code, target)
                    .into_iter()
                    .map(|l| l.text.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect();
                let (_, insts) = theirs
                    .iter()
                    .find(|(n, _)| n == name)
                    .unwrap_or_else(|| panic!("{what}: objdump lists no `{name}`"));
                // objdump lists the padding before the next function with this one.
                let (code, padding) = insts.split_at(ours.len().min(insts.len()));
                assert!(
                    padding.iter().all(|inst| inst == "s_nop 0"),
                    "{what}: function {name}: more than padding after its code: {padding:?}"
                );
                let code: Vec<String> = code
                    .iter()
                    .zip(&ours)
                    .map(|(theirs, ours)| literals_as_ours(theirs, ours))
                    .collect();
                // The object's call sites hold their callees' offsets, which linking wrote
                // (the simulator runs them: filetests/gcn/run/calls.clif).
                assert_eq!(
                    without_call_offsets(ours),
                    without_call_offsets(code),
                    "{what}: function {name}: our disassembly (left) differs from \
                     llvm-objdump-19's (right)"
                );
            }
        }
    }
    assert!(
        kernels > 100 && disassembled > 100,
        "only {kernels} kernels checked, {disassembled} functions disassembled"
    );
}

/// `lines` with the literals of each `s_getpc_b64` sequence (the two instructions after
/// it: a call site's or function address's offset, which linking writes) replaced by
/// `<offset>`.
fn without_call_offsets(mut lines: Vec<String>) -> Vec<String> {
    for k in 0..lines.len() {
        // Calls and function addresses (`s[0:1]` or another pair); a long jump's
        // offsets are the same on both sides, and masked alike.
        if lines[k].starts_with("s_getpc_b64 ") {
            for line in lines.iter_mut().skip(k + 1).take(2) {
                if let Some((op, _)) = line.rsplit_once(", ") {
                    *line = format!("{op}, <offset>");
                }
            }
        }
    }
    lines
}

/// Compiles `ll` with llc-19 for `cpu` into an object file of code object `version`.
fn llc_object(ll: &Path, cpu: &str, out: &Path, version: CodeObjectVersion) {
    let number = match version {
        CodeObjectVersion::V4 => 4,
        CodeObjectVersion::V5 => 5,
    };
    let mut args = vec![
        "-O2".to_string(),
        "-mtriple=amdgcn-amd-amdhsa".into(),
        format!("-mcpu={cpu}"),
        format!("--amdhsa-code-object-version={number}"),
        "-filetype=obj".into(),
    ];
    // Our code needs XNACK replay off (`Target::target_id`); llc's default is "any".
    if Target::parse(cpu).unwrap().target_id().contains(":xnack-") {
        args.push("-mattr=-xnack".into());
    }
    args.extend([
        ll.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    run_clean(
        "llc-19",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        cpu,
    );
}

/// An ELF header's OS ABI, ABI version and flags.
type Header = (u8, u8, u32);

/// The ELF header, and each `NAME.kd` symbol's 64 bytes under `NAME`.
fn read_object(bytes: &[u8]) -> (Header, Vec<(String, Vec<u8>)>) {
    use object::{Object, ObjectSection, ObjectSymbol};
    let file = object::read::elf::ElfFile64::<object::Endianness>::parse(bytes).unwrap();
    let ident = &bytes[..16];
    let object::FileFlags::Elf { e_flags, .. } = file.flags() else {
        panic!("not ELF")
    };
    let rodata = file.section_by_name(".rodata").expect(".rodata");
    let data = rodata.data().unwrap();
    let descriptors = file
        .symbols()
        .filter_map(|sym| {
            let name = sym.name().ok()?.strip_suffix(".kd")?.to_string();
            let at = sym.address() as usize;
            Some((name, data[at..at + 64].to_vec()))
        })
        .collect();
    ((ident[7], ident[8], e_flags), descriptors)
}

#[test]
fn elf_flags_equal_llcs_for_every_processor() {
    if !have("llc-19") {
        return;
    }
    let ll = scratch("empty.ll");
    std::fs::write(&ll, "define amdgpu_kernel void @k() { ret void }\n").unwrap();
    let func =
        cranelift_reader::parse_functions("function %k() system_v {\nblock0:\n    return\n}\n")
            .unwrap();
    for cpu in Target::cpu_names().filter(|c| c.starts_with("gfx")) {
        let target = Target::parse(cpu).unwrap();
        let ours = wavelift::compile_module(&func, &target).unwrap();
        let llc = scratch("empty.o");
        llc_object(&ll, cpu, &llc, CodeObjectVersion::V5);
        let theirs = std::fs::read(&llc).unwrap();
        assert_eq!(
            read_object(&ours).0,
            read_object(&theirs).0,
            "{cpu}: (OS ABI, ABI version, e_flags) differ from llc-19's"
        );
    }
}

/// A descriptor's fields that must equal llc-19's, decoded by the layout of LLVM's
/// AMDGPUUsage ("Kernel Descriptor", GFX6–GFX9): everything but the register granules
/// (our allocation differs) and the private segment buffer, which LLVM always enables on
/// GFX6–GFX9 and wavelift does not (no scratch): its 4 user SGPRs are taken out of llc's
/// count.
fn comparable_fields(kd: &[u8]) -> Vec<(&'static str, u32)> {
    let word = |at: usize| u32::from_le_bytes(kd[at..at + 4].try_into().unwrap());
    let (rsrc1, rsrc2) = (word(48), word(52));
    let properties = u32::from(u16::from_le_bytes([kd[56], kd[57]]));
    let bits = |value: u32, low: u32, width: u32| value >> low & ((1 << width) - 1);
    let private_segment_buffer = bits(properties, 0, 1);
    vec![
        ("group_segment_fixed_size", word(0)),
        ("private_segment_fixed_size", word(4)),
        ("kernarg_size", word(8)),
        ("rsrc1 float round mode 32", bits(rsrc1, 12, 2)),
        ("rsrc1 float round mode 16/64", bits(rsrc1, 14, 2)),
        ("rsrc1 float denorm mode 32", bits(rsrc1, 16, 2)),
        ("rsrc1 float denorm mode 16/64", bits(rsrc1, 18, 2)),
        ("rsrc1 priv", bits(rsrc1, 20, 1)),
        ("rsrc1 dx10 clamp", bits(rsrc1, 21, 1)),
        ("rsrc1 debug mode", bits(rsrc1, 22, 1)),
        ("rsrc1 ieee mode", bits(rsrc1, 23, 1)),
        ("rsrc1 bulky, cdbg user, fp16 ovfl", bits(rsrc1, 24, 3)),
        ("rsrc2 private segment wave offset", bits(rsrc2, 0, 1)),
        (
            "rsrc2 user sgpr count without the private segment buffer",
            bits(rsrc2, 1, 5) - 4 * private_segment_buffer,
        ),
        ("rsrc2 trap handler", bits(rsrc2, 6, 1)),
        ("rsrc2 workgroup id x, y, z", bits(rsrc2, 7, 3)),
        ("rsrc2 workgroup info", bits(rsrc2, 10, 1)),
        ("rsrc2 workitem id vgprs", bits(rsrc2, 11, 2)),
        ("rsrc2 exceptions", bits(rsrc2, 24, 7)),
        (
            "properties: dispatch ptr .. private segment size",
            bits(properties, 1, 6),
        ),
        ("properties: wavefront size 32", bits(properties, 10, 1)),
        ("properties: uses dynamic stack", bits(properties, 11, 1)),
        ("reserved and entry bytes 12..16, 24..48, 58..64", {
            let reserved = kd[12..16].iter().chain(&kd[24..48]).chain(&kd[58..64]);
            reserved.map(|&b| u32::from(b)).sum()
        }),
    ]
}

/// The metadata lines of `llvm-readelf-19 --notes` that must equal llc-19's: the argument
/// layout and kinds (wavelift's inferred from the CLIF, llc's from the OpenCL pointer
/// types), the segment sizes, the wavefront size and the spill counts (the register counts
/// differ: `docs/objects.md`).
fn comparable_metadata(notes: &str) -> Vec<String> {
    const KEYS: &[&str] = &[
        ".offset:",
        ".size:",
        ".value_kind:",
        ".address_space:",
        ".kernarg_segment_size:",
        ".kernarg_segment_align:",
        ".group_segment_fixed_size:",
        ".private_segment_fixed_size:",
        ".wavefront_size:",
        ".sgpr_spill_count:",
        ".vgpr_spill_count:",
        ".uses_dynamic_stack:",
        ".name:",
        ".symbol:",
        "amdhsa.target:",
    ];
    notes
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("- ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|l| KEYS.iter().any(|k| l.starts_with(k)))
        .collect()
}

#[test]
fn kernel_descriptors_and_metadata_equal_llcs_for_the_bench_kernels() {
    compare_bench_kernels_with_llc(CodeObjectVersion::V5);
}

#[test]
fn code_object_v4_equals_llcs_v4() {
    compare_bench_kernels_with_llc(CodeObjectVersion::V4);
}

/// Compiles every bench kernel for every generation as code object `version`, with
/// wavelift and with llc-19 from the kernel's LLVM IR, and requires the same ELF ABI
/// version, the same kernel descriptor fields and the same metadata (`amdhsa.version`
/// included) as `llvm-readelf-19 --notes` reads them.
fn compare_bench_kernels_with_llc(version: CodeObjectVersion) {
    if !have("llc-19") || !have("llvm-readelf-19") {
        return;
    }
    let mut files = Vec::new();
    clif_files(Path::new("bench/kernels"), &mut files);
    files.sort();
    let mut compared = 0;
    for clif in &files {
        let mut ll = clif.with_extension("ll");
        if version == CodeObjectVersion::V4 {
            // The IR's module flag chooses the version over llc's option.
            let text = std::fs::read_to_string(&ll).unwrap().replace(
                "!\"amdhsa_code_object_version\", i32 500",
                "!\"amdhsa_code_object_version\", i32 400",
            );
            ll = scratch("bench-v4.ll");
            std::fs::write(&ll, text).unwrap();
        }
        let (funcs, _) = parse_clif(clif);
        for mut target in Target::per_generation() {
            target.code_object = version;
            let what = format!("{} for {} ({version:?})", clif.display(), target.cpu);
            let ours =
                wavelift::compile_module(&funcs, &target).unwrap_or_else(|e| panic!("{what}: {e}"));
            let our_path = scratch("bench.o");
            std::fs::write(&our_path, &ours).unwrap();
            let llc_path = scratch("bench-llc.o");
            llc_object(&ll, &target.cpu, &llc_path, version);
            let theirs = std::fs::read(&llc_path).unwrap();
            let (our_header, our_kds) = read_object(&ours);
            let (their_header, their_kds) = read_object(&theirs);
            assert_eq!(
                our_header.1, their_header.1,
                "{what}: ELF ABI version differs from llc-19's (left ours)"
            );
            assert_eq!(our_kds.len(), 1, "{what}: one kernel");
            let (name, our_kd) = &our_kds[0];
            let (_, their_kd) = their_kds
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{what}: llc-19 wrote no {name}.kd"));
            assert_eq!(
                comparable_fields(our_kd),
                comparable_fields(their_kd),
                "{what}: kernel descriptor fields differ from llc-19's (left ours)"
            );
            let notes = |path: &Path| {
                let path = path.to_str().unwrap();
                let text = run_clean("llvm-readelf-19", &["--notes", path], &what);
                (comparable_metadata(&text), amdhsa_version(&text))
            };
            let (our_notes, our_version) = notes(&our_path);
            assert!(
                our_notes
                    .iter()
                    .any(|l| l.starts_with(".kernarg_segment_size:")),
                "{what}: no metadata read: {our_notes:?}"
            );
            let (their_notes, their_version) = notes(&llc_path);
            assert_eq!(
                our_notes, their_notes,
                "{what}: metadata differs from llc-19's (left ours)"
            );
            assert_eq!(
                our_version, their_version,
                "{what}: amdhsa.version (left ours)"
            );
            assert!(!our_version.is_empty(), "{what}: no amdhsa.version");
            compared += 1;
        }
    }
    assert!(compared >= 40, "only {compared} kernels compared");
}

/// The numbers of `amdhsa.version` in `llvm-readelf --notes` output (a YAML list).
fn amdhsa_version(notes: &str) -> Vec<String> {
    notes
        .lines()
        .skip_while(|l| !l.trim().starts_with("amdhsa.version:"))
        .skip(1)
        .map(str::trim)
        .take_while(|l| l.starts_with("- "))
        .map(|l| l.trim_start_matches("- ").to_string())
        .collect()
}

/// `clif-util objdump FILE`'s listing (it must succeed).
fn clif_util_objdump(path: &Path, what: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_clif-util"))
        .args(["objdump", path.to_str().unwrap()])
        .output()
        .expect("clif-util runs");
    assert!(
        output.status.success(),
        "{what}: clif-util objdump failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The scalar `key: value` lines of a YAML-like listing (list markers dropped, quotes
/// taken off, whitespace collapsed), sorted: the order of a map's keys is free.
fn scalar_pairs<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut pairs: Vec<String> = lines
        .map(|l| l.trim().trim_start_matches("- "))
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| format!("{k}: {}", v.trim().trim_matches('\'')))
        .filter(|p| !p.ends_with(": "))
        .collect();
    pairs.sort();
    pairs
}

/// The descriptor fields of `clif-util objdump`'s listing for `kernel`, named and valued
/// as `llvm-objdump-19 -D` prints them in its `.amdhsa_kernel` block.
fn objdump_descriptor_as_llvm(listing: &str, kernel: &str) -> Vec<String> {
    let header = format!("kernel {kernel}: descriptor {kernel}.kd");
    let fields: Vec<(&str, &str)> = listing
        .lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .filter_map(|l| l.trim().split_once(": "))
        .collect();
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| *k == name)
            .unwrap_or_else(|| panic!("objdump lists no {name}"))
            .1
    };
    let mut out: Vec<String> = [
        ("group_segment_fixed_size", "group_segment_fixed_size"),
        ("private_segment_fixed_size", "private_segment_fixed_size"),
        ("kernarg_size", "kernarg_size"),
        ("vgprs (granules of 4)", "next_free_vgpr"),
        ("sgprs (granules of 8)", "next_free_sgpr"),
        ("float_round_mode_32", "float_round_mode_32"),
        ("float_round_mode_16_64", "float_round_mode_16_64"),
        ("float_denorm_mode_32", "float_denorm_mode_32"),
        ("float_denorm_mode_16_64", "float_denorm_mode_16_64"),
        ("enable_dx10_clamp", "dx10_clamp"),
        ("enable_ieee_mode", "ieee_mode"),
        (
            "enable_private_segment (scratch wave offset)",
            "system_sgpr_private_segment_wavefront_offset",
        ),
        (
            "enable_vgpr_workitem_id (dimensions - 1)",
            "system_vgpr_workitem_id",
        ),
        ("enable_sgpr_workgroup_info", "system_sgpr_workgroup_info"),
        ("uses_dynamic_stack", "uses_dynamic_stack"),
    ]
    .iter()
    .map(|(ours, llvm)| format!(".amdhsa_{llvm} {}", get(ours)))
    .collect();
    let ids = get("enable_sgpr_workgroup_id");
    for d in ["x", "y", "z"] {
        out.push(format!(
            ".amdhsa_system_sgpr_workgroup_id_{d} {}",
            ids.contains(d) as u8
        ));
    }
    let sgprs: Vec<&str> = get("enable_sgpr").split_whitespace().collect();
    for input in [
        "private_segment_buffer",
        "dispatch_ptr",
        "queue_ptr",
        "kernarg_segment_ptr",
        "dispatch_id",
        "flat_scratch_init",
        "private_segment_size",
    ] {
        out.push(format!(
            ".amdhsa_user_sgpr_{input} {}",
            sgprs.contains(&input) as u8
        ));
    }
    out.sort();
    out
}

/// `clif-util objdump` reads the code objects wavelift and llc-19 write as LLVM's tools do:
/// each descriptor field as `llvm-objdump-19 -D` decodes it, the metadata's values as
/// `llvm-readelf-19 --notes` prints them, the functions' instructions as llvm-objdump's.
#[test]
fn objdump_reads_ours_and_llcs_objects_as_llvms_tools_do() {
    if !have("llc-19") || !have("llvm-objdump-19") || !have("llvm-readelf-19") {
        return;
    }
    let mut files = Vec::new();
    clif_files(Path::new("bench/kernels"), &mut files);
    files.sort();
    let mut checked = 0;
    for clif in &files {
        let (funcs, _) = parse_clif(clif);
        let kernel = funcs[0]
            .name
            .to_string()
            .trim_start_matches('%')
            .to_string();
        for target in Target::per_generation() {
            let our_path = scratch("objdump.o");
            let ours = wavelift::compile_module(&funcs, &target).unwrap();
            std::fs::write(&our_path, &ours).unwrap();
            let llc_path = scratch("objdump-llc.o");
            llc_object(
                &clif.with_extension("ll"),
                &target.cpu,
                &llc_path,
                CodeObjectVersion::V5,
            );
            for (who, path) in [("ours", &our_path), ("llc-19's", &llc_path)] {
                let what = format!("{} for {}, {who}", clif.display(), target.cpu);
                let listing = clif_util_objdump(path, &what);
                let p = path.to_str().unwrap();
                let notes = run_clean("llvm-readelf-19", &["--notes", p], &what);
                let theirs = scalar_pairs(notes.lines().skip_while(|l| l.trim() != "---"));
                let ours = scalar_pairs(
                    listing
                        .lines()
                        .skip_while(|l| !l.starts_with("metadata"))
                        .skip(1)
                        .take_while(|l| l.starts_with(' ')),
                );
                assert_eq!(ours, theirs, "{what}: metadata values");
                checked += 1;
                // llvm-objdump-19 disassembles gfx8 and later only ("Disassembly not yet
                // supported for subtarget"), kernel descriptors included.
                if matches!(target.arch, Arch::Gcn(Gen::Gfx6 | Gen::Gfx7)) {
                    continue;
                }
                let mcpu = format!("--mcpu={}", target.cpu);
                let llvm = run_clean("llvm-objdump-19", &["-D", &mcpu, p], &what);
                let mut llvm_kd: Vec<String> = llvm
                    .lines()
                    .skip_while(|l| !l.starts_with(".amdhsa_kernel"))
                    .take_while(|l| !l.starts_with(".end_amdhsa_kernel"))
                    .map(|l| l.trim().to_string())
                    .filter(|l| {
                        !l.starts_with(".amdhsa_kernel")
                            && !l.starts_with(".amdhsa_reserve")
                            && !l.starts_with(".amdhsa_exception")
                            && !l.starts_with(".amdhsa_fp16_overflow")
                    })
                    .collect();
                llvm_kd.sort();
                assert_eq!(
                    objdump_descriptor_as_llvm(&listing, &kernel),
                    llvm_kd,
                    "{what}: descriptor (left clif-util objdump, right llvm-objdump-19)"
                );
                let disassembly = run_clean("llvm-objdump-19", &["-d", &mcpu, p], &what);
                let their_insts = objdump_functions(&disassembly)
                    .into_iter()
                    .find(|(name, _)| *name == kernel)
                    .unwrap_or_else(|| panic!("{what}: llvm-objdump shows no {kernel}"))
                    .1;
                let our_insts: Vec<String> = listing
                    .lines()
                    .skip_while(|l| !l.starts_with(&format!("kernel {kernel} (")))
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .map(|l| l.split_once("  ").unwrap().1.trim())
                    .map(|l| l.split_once(": ").unwrap().1)
                    .map(|l| {
                        l.get(25..)
                            .unwrap_or("")
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                let their_insts: Vec<String> = their_insts
                    .iter()
                    .zip(&our_insts)
                    .map(|(t, o)| literals_as_ours(t, o))
                    .collect();
                assert_eq!(our_insts, their_insts, "{what}: instructions");
            }
        }
    }
    assert!(checked >= 100, "only {checked} objects checked");
}

/// A kernel with a private array of 16 words, written at the work-item's index and read
/// at an argument's byte offset: wavelift's CLIF and the LLVM IR of the same kernel
/// (inputs it does not use turned off, as wavelift enables only the ones it uses; the read
/// addresses bytes so that LLVM keeps the array in memory rather than promote it to
/// registers).
const PRIVATE_ARRAY_CLIF: &str = "
function %private_array(i64, i32) system_v {
    ss0 = explicit_slot 64
    fn0 = %wavelift_workitem_id_x() -> i32
    fn1 = %wavelift_workgroup_id_x() -> i32
block0(v0: i64, v1: i32):
    v2 = call fn0()
    v30 = call fn1()
    v3 = stack_addr.i32 ss0
    v20 = iconst.i32 2
    v4 = ishl v2, v20
    v5 = iadd v3, v4
    store v1, v5
    v6 = ishl v1, v20
    v7 = iadd v3, v6
    v8 = load.i32 v7
    v31 = iadd v8, v30
    v9 = uextend.i64 v4
    v10 = iadd v0, v9
    store v31, v10
    return
}
";

const PRIVATE_ARRAY_LL: &str = r#"
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @private_array(ptr addrspace(1) %0, i32 %1) #0 {
  %arr = alloca [16 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %p = getelementptr [16 x i32], ptr addrspace(5) %arr, i32 0, i32 %tid
  store i32 %1, ptr addrspace(5) %p
  %sh = shl i32 %1, 2
  %q = getelementptr i8, ptr addrspace(5) %arr, i32 %sh
  %v = load i32, ptr addrspace(5) %q
  %w = add i32 %v, %gid
  %o = getelementptr i32, ptr addrspace(1) %0, i32 %tid
  store i32 %w, ptr addrspace(1) %o
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-no-dispatch-ptr" "amdgpu-no-dispatch-id" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-default-queue" "amdgpu-no-completion-action" "amdgpu-implicitarg-num-bytes"="0" }
"#;

/// The private segment as llc-19 sets it up: the buffer resource's user SGPRs, the wave
/// offset's system SGPR and the fixed size, field by field, but for two differences
/// `docs/objects.md` explains: llc reserves 4 more bytes (its register scavenger's
/// emergency slot, which wavelift's spill code never needs), and from gfx7 on it also
/// enables `flat_scratch_init` (2 more user SGPRs), which a FLAT access to private
/// memory would need and wavelift never makes (a stack address never becomes a FLAT one).
#[test]
fn private_segment_fields_equal_llcs() {
    if !have("llc-19") {
        return;
    }
    let funcs = cranelift_reader::parse_functions(PRIVATE_ARRAY_CLIF).unwrap();
    let ll = scratch("private_array.ll");
    std::fs::write(&ll, PRIVATE_ARRAY_LL).unwrap();
    for target in Target::per_generation() {
        let what = format!("private_array for {}", target.cpu);
        let ours =
            wavelift::compile_module(&funcs, &target).unwrap_or_else(|e| panic!("{what}: {e}"));
        let llc_path = scratch("private_array-llc.o");
        llc_object(&ll, &target.cpu, &llc_path, CodeObjectVersion::V5);
        let theirs = std::fs::read(&llc_path).unwrap();
        let (our_kd, their_kd) = (&read_object(&ours).1[0].1, &read_object(&theirs).1[0].1);
        let word = |kd: &[u8], at: usize| u32::from_le_bytes(kd[at..at + 4].try_into().unwrap());
        assert_eq!(word(our_kd, 4), 64, "{what}: our private segment");
        assert_eq!(word(their_kd, 4), 68, "{what}: llc's private segment");
        let flat_scratch_init = |kd: &[u8]| kd[56] >> 5 & 1;
        // gfx7 on: the generations with FLAT.
        let flat = target.cpu != "gfx600";
        assert_eq!(flat_scratch_init(our_kd), 0, "{what}");
        assert_eq!(flat_scratch_init(their_kd), flat as u8, "{what}");
        // Both enable the private segment buffer and the wave offset.
        assert_eq!(our_kd[56] & 1, 1, "{what}: private segment buffer");
        assert_eq!(
            word(our_kd, 52) & 1,
            1,
            "{what}: private segment wave offset"
        );
        // The rest as for every kernel, with llc's extras taken out.
        let mut theirs = their_kd.clone();
        theirs[4..8].copy_from_slice(&64u32.to_le_bytes());
        if flat {
            theirs[56] &= !(1 << 5);
            let rsrc2 = word(&theirs, 52);
            let user_sgprs = (rsrc2 >> 1 & 0x1f) - 2;
            theirs[52..56].copy_from_slice(&(rsrc2 & !(0x1f << 1) | user_sgprs << 1).to_le_bytes());
        }
        assert_eq!(
            comparable_fields(our_kd),
            comparable_fields(&theirs),
            "{what}: kernel descriptor fields differ from llc-19's (left ours)"
        );
        // The metadata too, llc's private segment less its 4 bytes.
        let our_path = scratch("private_array.o");
        std::fs::write(&our_path, &ours).unwrap();
        let notes = |path: &Path| {
            let path = path.to_str().unwrap();
            comparable_metadata(&run_clean("llvm-readelf-19", &["--notes", path], &what))
        };
        let theirs: Vec<String> = notes(&llc_path)
            .into_iter()
            .map(|l| {
                l.replace(
                    ".private_segment_fixed_size: 68",
                    ".private_segment_fixed_size: 64",
                )
            })
            .collect();
        let ours = notes(&our_path);
        assert!(
            ours.iter().any(|l| l == ".private_segment_fixed_size: 64"),
            "{ours:?}"
        );
        assert_eq!(
            ours, theirs,
            "{what}: metadata differs from llc-19's (left ours)"
        );
    }
}

#[test]
fn graphics_shaders_are_not_for_hsa_code_objects() {
    for (file, stage) in [
        ("filetests/gcn/fragment.clif", "fragment"),
        ("filetests/gcn/vertex.clif", "vertex"),
    ] {
        let (funcs, targets) = parse_clif(Path::new(file));
        let error = wavelift::compile_module(&funcs[..1], &targets[0])
            .expect_err("a graphics shader in a code object");
        assert!(
            error.to_string().contains(&format!("is a {stage} shader")),
            "{file}: {error}"
        );
    }
}
