//! `clif-util compile`: compiles every function of a `.clif` file and prints its
//! disassembly with offsets and bytes, or writes the raw code of its one function, or a
//! code object with all of them.

use crate::clif_file::{ClifFile, HeaderKind};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wavelift::{CompiledCode, FunctionKind, Target, ir};

/// Compile the functions of a .clif file and print their disassembly.
///
/// For each function: its name, one line per instruction (offset, bytes in hex, assembly)
/// and a summary (registers used, code size). Errors go to stderr as `error: ...` and make
/// the exit code 1; the other functions are still compiled.
#[derive(clap::Args)]
pub struct Args {
    /// The .clif file to compile.
    file: PathBuf,

    /// The target: a CPU name (`gfx803`), or an architecture or triple and a CPU name
    /// (`"amdgcn gfx803"`, `"amdgcn-amd-amdhsa gfx803"`). Defaults to the file's `target`
    /// line.
    #[arg(long, short)]
    target: Option<String>,

    /// Write to this file instead of printing the disassembly: what `--emit` says.
    #[arg(long, short)]
    output: Option<PathBuf>,

    /// What `--output` gets: `raw`, the code bytes of a file's one function, or `obj`, a
    /// code object with every function of the file (an AMDGPU HSA code object for GCN;
    /// docs/objects.md).
    #[arg(long, value_enum, default_value_t = Emit::Raw, requires = "output")]
    emit: Emit,
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

fn compile_file(args: &Args) -> Result<(), String> {
    let name = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{name}: {e}"))?;
    let file = ClifFile::parse(&text).map_err(|e| e.display_in(&name).to_string())?;
    let target = choose_target(args.target.as_deref(), &file, &name)?;

    if file.functions.is_empty() {
        return Err(format!("{name}: no functions to compile"));
    }
    if let (Some(output), Emit::Obj) = (&args.output, args.emit) {
        return write_object(&file, &target, output);
    }
    if args.output.is_some() && file.functions.len() != 1 {
        return Err(format!(
            "{name}: --output needs a file with exactly one function, and this one has {}",
            file.functions.len()
        ));
    }

    let mut listing = String::new();
    let mut errors = Vec::new();
    for function in &file.functions {
        match compile_guarded(&function.func, &target) {
            Ok(compiled) => {
                if let Some(output) = &args.output {
                    std::fs::write(output, &compiled.code)
                        .map_err(|e| format!("{}: {e}", output.display()))?;
                } else {
                    if !listing.is_empty() {
                        listing.push('\n');
                    }
                    listing += &format_listing(&function.func, &target, &compiled);
                }
            }
            Err(error) => errors.push(error),
        }
    }

    // A closed stdout (`clif-util compile f.clif | head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(listing.as_bytes());
    match errors.len() {
        0 => Ok(()),
        _ => Err(errors.join("\nerror: ")),
    }
}

/// Writes every function of `file` into one object file at `output`.
fn write_object(file: &ClifFile, target: &Target, output: &Path) -> Result<(), String> {
    let funcs: Vec<ir::Function> = file.functions.iter().map(|f| f.func.clone()).collect();
    let object = guarded("the compiler panicked writing a code object", || {
        wavelift::compile_module(&funcs, target).map_err(|e| e.to_string())
    })?;
    std::fs::write(output, object).map_err(|e| format!("{}: {e}", output.display()))
}

/// The target from `--target`, or else the file's first `target` line.
pub fn choose_target(spec: Option<&str>, file: &ClifFile, name: &str) -> Result<Target, String> {
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
    let lines = wavelift::disassemble(&compiled.code, target);
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
    }
    if let Some(gcn) = compiled.gcn().filter(|gcn| gcn.group_segment_size > 0) {
        out += &format!(", workgroup memory: {} bytes", gcn.group_segment_size);
    }
    out.push('\n');
    out
}
