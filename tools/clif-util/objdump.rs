//! `clif-util objdump`: what a GCN code object holds — its processor, each kernel's
//! descriptor fields, the metadata note, and each function's disassembly by wavelift's own
//! decoder. It reads code objects other compilers write too (llc-19's `-filetype=obj`).

use object::read::elf::{ElfFile64, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use wavelift::Target;
use wavelift::isa::gcn::code_object::read::read;
use wavelift::isa::gcn::code_object::{descriptor, metadata};

/// List a code object's kernels, their descriptors and metadata, and disassemble it.
///
/// The object is an AMDGPU HSA code object (ELF, `EM_AMDGPU`), relocatable or not, from
/// wavelift (`compile --emit obj`) or another compiler. Functions are the `STT_FUNC`
/// symbols of `.text`; a kernel is one with a `NAME.kd` descriptor symbol.
#[derive(clap::Args)]
pub struct Args {
    /// The code object to read.
    file: PathBuf,
}

pub fn run(args: Args) -> ExitCode {
    let listing = std::fs::read(&args.file)
        .map_err(|e| format!("{}: {e}", args.file.display()))
        .and_then(|bytes| dump(&bytes).map_err(|e| format!("{}: {e}", args.file.display())));
    match listing {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The listing of the code object `bytes`.
pub fn dump(bytes: &[u8]) -> Result<String, String> {
    // The processor, `.text` and the kernels as the simulator's launch reads them; the
    // functions and the notes from the ELF file.
    let object = read(bytes)?;
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(|e| format!("not ELF64: {e}"))?;
    let endian = file.endian();
    let (processor, flags) = (object.processor, object.flags);
    let target = Target::parse(processor).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(out, "processor: {processor} (e_flags {flags:#x})");

    let text = file.section_by_name(".text").ok_or("no .text section")?;
    let code = &object.text;
    let mut functions: Vec<(String, u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.section_index() == Some(text.index()))
        .filter_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
        .collect();
    functions.sort_by_key(|&(_, address, _)| address);

    for kernel in &object.kernels {
        let name = &kernel.name;
        let _ = writeln!(out, "\nkernel {name}: descriptor {name}.kd");
        for (field, value) in descriptor::describe(&kernel.descriptor) {
            let _ = writeln!(out, "  {field}: {value}");
        }
    }

    for section in file.elf_section_table().iter() {
        let Some(mut notes) = section
            .notes(endian, bytes)
            .map_err(|e| format!("a malformed note section: {e}"))?
        else {
            continue;
        };
        while let Some(note) = notes.next().map_err(|e| format!("a malformed note: {e}"))? {
            if note.name() == b"AMDGPU" && note.n_type(endian) == metadata::NT_AMDGPU_METADATA {
                let text = metadata::render(note.desc())?;
                let _ = writeln!(out, "\nmetadata (NT_AMDGPU_METADATA):");
                for line in text.lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
    }

    let generation = match target.arch {
        wavelift::Arch::Gcn(generation) => generation,
        _ => return Err(format!("{processor} is not a GCN processor")),
    };
    for (name, address, size) in functions {
        let outside = || format!("{name} lies outside .text");
        let start = address.checked_sub(text.address()).ok_or_else(outside)? as usize;
        let body = start
            .checked_add(size as usize)
            .and_then(|end| code.get(start..end))
            .ok_or_else(outside)?;
        let kind = if object.kernel(&name).is_some() {
            "kernel"
        } else {
            "function"
        };
        let _ = writeln!(out, "\n{kind} {name} (.text+{start:#x}, {size} bytes):");
        for line in wavelift::isa::gcn::disassemble(body, generation) {
            let bytes: Vec<String> = line.bytes.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(
                out,
                "  {:04x}: {:<24} {}",
                line.offset,
                bytes.join(" "),
                line.text
            );
        }
    }
    Ok(out)
}
