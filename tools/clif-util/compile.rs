//! `clif-util compile`: compiles every function of `.clif` files (directories searched,
//! `-` for standard input) and prints their disassembly with offsets and bytes, or writes
//! the raw code of the one function, or a code object with all of them.

use crate::clif_file::{ClifFile, HeaderKind};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wavelift::{CodeObjectVersion, CompiledCode, FunctionKind, Target, ir};

/// Compile the functions of .clif files and print their disassembly.
///
/// For each function: its name, one line per instruction (offset, bytes in hex, assembly)
/// and a summary (registers used, code size). Errors go to stderr as `error: ...` and make
/// the exit code 1; the other functions are still compiled.
#[derive(clap::Args)]
pub struct Args {
    /// The .clif files to compile: files, directories (every `.clif` file under them) or
    /// `-` for standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,

    /// The target: a CPU name (`gfx803`), or an architecture or triple and a CPU name
    /// (`"amdgcn gfx803"`, `"amdgcn-amd-amdhsa gfx803"`). Defaults to the file's `target`
    /// line.
    #[arg(long, short)]
    target: Option<String>,

    /// Write to this file instead of printing the disassembly: what `--emit` says.
    #[arg(long, short)]
    output: Option<PathBuf>,

    /// What `--output` gets: `raw`, the code bytes of the one function given, or `obj`, a
    /// code object with every function of the files (an AMDGPU HSA code object for GCN;
    /// docs/objects.md).
    #[arg(long, value_enum, default_value_t = Emit::Raw, requires = "output")]
    emit: Emit,

    /// The AMDGPU code object version `--emit obj` writes, 4 or 5 (as llc's
    /// `--amdhsa-code-object-version`).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(4..=5))]
    code_object_version: u8,
}

/// What `compile --output` writes.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
enum Emit {
    /// The machine code of the file's one function.
    Raw,
    /// An object file with every function of the file.
    Obj,
}

pub fn run(args: Args) -> ExitCode {
    match compile_file(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Compiles `func`, turning a panic in the compiler into an error so that one broken
/// function cannot take the tool down with it. (The panic hook still prints the panic.)
pub fn compile_guarded(func: &ir::Function, target: &Target) -> Result<CompiledCode, String> {
    guarded(
        &format!("the compiler panicked on function {}", func.name),
        || {
            wavelift::compile_function(func, target)
                .map_err(|e| e.to_string().trim_end().to_string())
        },
    )
}

/// Compiles `func` as [`compile_guarded`] does and, when it calls functions of `module`
/// (the functions of its file), links it with them (`wavelift::link`): code the simulator
/// runs as it is.
pub fn compile_linked(
    func: &ir::Function,
    module: &[ir::Function],
    target: &Target,
) -> Result<CompiledCode, String> {
    let compiled = compile_guarded(func, target)?;
    if !compiled.has_calls() {
        return Ok(compiled);
    }
    let symbol = |f: &ir::Function| {
        let name = f.name.to_string();
        name.strip_prefix('%').unwrap_or(&name).to_string()
    };
    let mut names = vec![symbol(func)];
    let mut codes = vec![compiled];
    let mut errors = Vec::new();
    for other in module.iter().filter(|f| f.name != func.name) {
        match compile_guarded(other, target) {
            Ok(code) => {
                names.push(symbol(other));
                codes.push(code);
            }
            Err(e) => errors.push(e),
        }
    }
    let functions: Vec<(&str, &CompiledCode)> =
        names.iter().map(String::as_str).zip(&codes).collect();
    wavelift::link(&functions, 0).map_err(|e| {
        let mut message = format!("cannot be linked: {e}");
        for error in errors {
            message += &format!("; {error}");
        }
        message
    })
}

/// Runs `f`, turning a panic into an "internal error: {what}" message.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic payload".to_string());
        Err(format!("internal error: {what}: {message}"))
    })
}

/// The `.clif` files `paths` name: files as given (`-` is standard input), directories
/// searched for `.clif` files, sorted.
fn clif_sources(paths: &[PathBuf]) -> Result<Vec<(String, String)>, String> {
    let mut sources = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| format!("standard input: {e}"))?;
            sources.push(("<stdin>".to_string(), text));
            continue;
        }
        let mut files = Vec::new();
        crate::test::collect_clif_files(path, &mut files)?;
        for file in files {
            let name = file.display().to_string();
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{name}: {e}"))?;
            sources.push((name, text));
        }
    }
    Ok(sources)
}

fn compile_file(args: &Args) -> Result<(), String> {
    let mut parsed = Vec::new();
    for (name, text) in clif_sources(&args.files)? {
        let file = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
        let target = choose_target(args.target.as_deref(), &file, &name)?;
        parsed.push((name, file, target));
    }
    let functions: usize = parsed.iter().map(|(_, file, _)| file.functions.len()).sum();
    if functions == 0 {
        return Err("no functions to compile".into());
    }
    if let (Some(output), Emit::Obj) = (&args.output, args.emit) {
        let mut target = parsed[0].2.clone();
        target.code_object = match args.code_object_version {
            4 => CodeObjectVersion::V4,
            _ => CodeObjectVersion::V5,
        };
        if parsed
            .iter()
            .any(|(_, _, t)| t.to_string() != target.to_string())
        {
            return Err("--emit obj: the files name different targets (pass --target)".into());
        }
        let funcs: Vec<ir::Function> = parsed
            .iter()
            .flat_map(|(_, file, _)| file.functions.iter().map(|f| f.func.clone()))
            .collect();
        return write_object(&funcs, &target, output);
    }
    if args.output.is_some() && functions != 1 {
        return Err(format!(
            "--emit raw --output needs exactly one function, and the input has {functions}"
        ));
    }

    let mut listing = String::new();
    let mut errors = Vec::new();
    for (_, file, target) in &parsed {
        for function in &file.functions {
            match compile_guarded(&function.func, target) {
                Ok(compiled) => {
                    if let Some(output) = &args.output {
                        std::fs::write(output, &compiled.code)
                            .map_err(|e| format!("{}: {e}", output.display()))?;
                    } else {
                        if !listing.is_empty() {
                            listing.push('\n');
                        }
                        listing += &format_listing(&function.func, target, &compiled);
                    }
                }
                Err(error) => errors.push(error),
            }
        }
    }

    // A closed stdout (`clif-util compile f.clif | head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(listing.as_bytes());
    match errors.len() {
        0 => Ok(()),
        _ => Err(errors.join("\nerror: ")),
    }
}

/// Writes `funcs` into one object file at `output`.
fn write_object(funcs: &[ir::Function], target: &Target, output: &Path) -> Result<(), String> {
    let object = guarded("the compiler panicked writing a code object", || {
        wavelift::compile_module(funcs, target).map_err(|e| e.to_string())
    })?;
    std::fs::write(output, object).map_err(|e| format!("{}: {e}", output.display()))
}

/// The target from `--target`, or else the file's first `target` line, at the
/// optimisation level of the file's `set` lines.
pub fn choose_target(spec: Option<&str>, file: &ClifFile, name: &str) -> Result<Target, String> {
    let mut target = target_line(spec, file, name)?;
    target.opt_level = file.opt_level(name)?;
    Ok(target)
}

fn target_line(spec: Option<&str>, file: &ClifFile, name: &str) -> Result<Target, String> {
    if let Some(spec) = spec {
        return Target::parse(spec).map_err(|e| format!("--target `{spec}`: {e}"));
    }
    let targets: Vec<_> = file.headers(HeaderKind::Target).collect();
    let Some(header) = targets.first() else {
        return Err(format!(
            "{name}: no target: pass --target (e.g. `--target gfx803`) or add a \
             `target amdgcn gfx803` line to the file"
        ));
    };
    if targets.len() > 1 {
        eprintln!(
            "note: {name} names {} targets; compiling for the first, `{}` (choose another \
             with --target)",
            targets.len(),
            header.args
        );
    }
    Target::parse(&header.args).map_err(|e| format!("{name}:{}: {e}", header.line))
}

/// The listing of one compiled function: name, instructions with offsets and bytes, and a
/// summary line.
pub fn format_listing(func: &ir::Function, target: &Target, compiled: &CompiledCode) -> String {
    let lines = wavelift::disassemble_compiled(compiled, target);
    let bytes_width = lines
        .iter()
        .map(|line| (line.bytes.len() * 3).saturating_sub(1))
        .max()
        .unwrap_or(0)
        .max(23);
    let kind = match compiled.kind {
        FunctionKind::Kernel => "kernel",
        _ => "device function",
    };

    let mut out = format!("function {} ({kind}, {target}):\n", func.name);
    for line in &lines {
        let bytes = line
            .bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ");
        out += &format!(
            "  {:04x}: {bytes:<bytes_width$}  {}\n",
            line.offset, line.text
        );
    }
    out += "  ; ";
    if let Some(gcn) = compiled.gcn() {
        out += &format!(
            "VGPRs: {}, SGPRs: {}{}, ",
            gcn.vgprs,
            gcn.sgprs,
            if gcn.uses_vcc { " + VCC" } else { "" }
        );
    }
    out += &format!("code size: {} bytes", compiled.code_size());
    if let (FunctionKind::Kernel, Some(gcn)) = (compiled.kind, compiled.gcn()) {
        out += &format!(", kernel arguments: {} bytes", gcn.kernarg_size);
        out += &kernel_summary(gcn, target);
    }
    if let Some(gcn) = compiled.gcn().filter(|gcn| gcn.group_segment_size > 0) {
        out += &format!(", workgroup memory: {} bytes", gcn.group_segment_size);
    }
    if let Some(nv50) = compiled.nv50().filter(|nv50| nv50.local_size > 0) {
        out += &format!(", l[]: {} bytes per thread", nv50.local_size);
        if nv50.spills > 0 {
            out += &format!(" ({} words spilled)", nv50.spills);
        }
    }
    out.push('\n');
    out
}

/// What a GCN kernel's listing adds: the registers the dispatcher initialises and the
/// occupancy its register counts allow.
fn kernel_summary(gcn: &wavelift::gcn::GcnInfo, target: &Target) -> String {
    use wavelift::isa::gcn::code_object::{descriptor::RegisterCounts, waves_per_simd};
    let inputs: Vec<String> = gcn
        .inputs
        .registers()
        .into_iter()
        .map(|(reg, what)| format!("{reg} {what}"))
        .collect();
    let mut out = format!("\n  ; initialised by the dispatcher: {}", inputs.join(", "));
    if let Some(vertex) = gcn.inputs.vertex {
        out += &format!(
            "\n  ; exports: {} (VGPR_COMP_CNT {}, {} parameter{}{})",
            vertex.exports(),
            vertex.vgpr_comp_cnt,
            vertex.param_count(),
            if vertex.param_count() == 1 { "" } else { "s" },
            match vertex.pa_cl_vs_out_cntl() {
                0 => String::new(),
                bits => format!(", PA_CL_VS_OUT_CNTL {bits:#x}"),
            }
        );
    }
    if let Some(pixel) = gcn.inputs.pixel
        && pixel.exports & 0xff != 0
    {
        let formats: Vec<String> = pixel
            .color_formats()
            .into_iter()
            .map(|(n, format)| format!("mrt{n} {format}"))
            .collect();
        out += &format!("\n  ; SPI_SHADER_COL_FORMAT: {}", formats.join(", "));
    }
    let (wavelift::Arch::Gcn(generation), Ok(registers)) =
        (target.arch, RegisterCounts::new(gcn, None))
    else {
        return out;
    };
    let (by_vgprs, by_sgprs) = waves_per_simd(registers, generation);
    out += &format!(
        "\n  ; occupancy: {} waves per SIMD (VGPRs allow {by_vgprs}, SGPRs {by_sgprs}, at most 10)",
        by_vgprs.min(by_sgprs)
    );
    out
}
