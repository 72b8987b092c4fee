//! wavelift's NV50 container: a relocatable ELF32 file holding a module's code and, for
//! each function, what a driver needs to launch or call it. NVIDIA has no object format
//! for Tesla code that a driver like nouveau reads (nouveau compiles from TGSI/NIR at run
//! time and keeps the results in memory), so this one is ours; `docs/objects.md` lays it
//! out and names the nouveau launch state each field feeds.
//!
//! - `.text`: the functions' code, each at an 8-byte boundary (an instruction is 4 or 8
//!   bytes), zero bytes between them. Each function's code is emitted for address 0: a
//!   loader adds the address it puts the function at (`.text`'s plus the function's
//!   offset) to the absolute code addresses of the instructions its record lists.
//! - The symbol table: each function an `STT_FUNC` at its offset with its size; kernels
//!   global, device functions local.
//! - `e_machine` `EM_CUDA`, `e_flags` the chip's compute capability (`sm_10`, `sm_11`,
//!   `sm_13`), as NVIDIA's ELF files say it — but this is not a cubin: no `.nv.info`.
//! - `.note.wavelift`, owner `wavelift`: the chipset ([`NT_NV50_CHIPSET`]), then one note
//!   per function, type [`NT_NV50_KERNEL`] or [`NT_NV50_FUNCTION`], its descriptor the
//!   function's name and a sequence of little-endian `u32`s ([`record`]).

use super::Nv50Info;
use super::cpus::Chip;
use crate::isa::ObjectFunction;
use crate::{CompileError, FunctionKind};
use object::elf;
use object::write::elf::{FileHeader, SectionHeader, Sym, Writer};
use object::{Endianness, write::StringId};

/// The note type of a kernel's record.
pub const NT_NV50_KERNEL: u32 = 1;
/// The note type of a device function's record.
pub const NT_NV50_FUNCTION: u32 = 2;
/// The note type of the module's chip: its chipset number (`0x50`, `0x84`, …, `0xa0`) as
/// one `u32`, the name nouveau picks code paths by.
pub const NT_NV50_CHIPSET: u32 = 3;
/// The notes' owner name.
pub const NOTE_OWNER: &str = "wavelift";
/// Alignment of each function in `.text`.
const FUNCTION_ALIGN: usize = 8;
/// The bytes between functions: never executed.
const PADDING: u8 = 0;

/// The `u32` fields of a function's record, in order: the function's offset in `.text`,
/// its code size in bytes, `$r` registers per thread (nouveau: `CP_REG_ALLOC_TEMP`), the
/// bytes of kernel arguments at `s[0x14]` (nouveau's `parm_size`), the bytes of `s[]` the
/// code uses — system area, arguments and workgroup segment included — (nouveau:
/// `SHARED_SIZE`, which it rounds up to 64), the bytes of the workgroup segment at
/// `s[0x110]` (nouveau's `smem_size` would hold the segment and the `s[]` before it that
/// `parm_size + 0x14` does not cover), the bytes of `l[]` per thread (nouveau's `tls_space`),
/// the number of relocations, then each relocation: the `.text` offset of an instruction
/// (`bra`, `call`, `joinat`, …) whose absolute code address needs the function's load
/// address added (nouveau applies such fixups when it uploads code). A function that calls
/// has its calls' targets written (the callees' `.text` offsets, relocated alike) and its
/// needs include its callees': `l[]` up to the end of the deepest frame, the most `$r`.
pub fn record(offset: u32, code_size: u32, info: &Nv50Info) -> Vec<u32> {
    let mut fields = vec![
        offset,
        code_size,
        info.gprs,
        info.param_size,
        info.shared_size,
        info.workgroup_size,
        info.local_size,
        info.relocations.len() as u32,
    ];
    fields.extend(info.relocations.iter().map(|r| offset + r));
    fields
}

/// Writes `functions`, compiled for `chip`, into one container.
pub fn write(chip: Chip, functions: &[ObjectFunction]) -> Result<Vec<u8>, CompileError> {
    let mut text = Vec::new();
    let mut placed = Vec::new();
    for (i, function) in functions.iter().enumerate() {
        let error = |reason: &str| CompileError {
            function: function.name.clone(),
            inst: None,
            reason: reason.into(),
        };
        if functions[..i].iter().any(|f| f.name == function.name) {
            return Err(error("two functions of the module have this name"));
        }
        let info = function
            .compiled
            .nv50()
            .ok_or_else(|| error("not compiled for NV50"))?;
        text.resize(text.len().next_multiple_of(FUNCTION_ALIGN), PADDING);
        placed.push((function, info, text.len()));
        text.extend_from_slice(&function.compiled.code);
    }
    // Calls resolved and frames placed in `.text`; each record with the needs of its
    // function's calls (`link.rs`).
    let named: Vec<(&str, &Nv50Info)> = placed
        .iter()
        .map(|&(f, info, _)| (f.name.as_str(), info))
        .collect();
    let starts: Vec<usize> = placed.iter().map(|&(_, _, start)| start).collect();
    let linked =
        super::link::link_module(&mut text, &named, &starts).map_err(CompileError::in_module)?;
    let placed: Vec<(&ObjectFunction, &Nv50Info, usize)> = placed
        .iter()
        .zip(&linked)
        .map(|(&(f, _, start), info)| (f, info, start))
        .collect();

    let mut notes = note(
        NOTE_OWNER,
        NT_NV50_CHIPSET,
        None,
        &chip.chipset().to_le_bytes(),
    );
    for &(function, info, offset) in &placed {
        let kind = match function.compiled.kind {
            FunctionKind::Kernel => NT_NV50_KERNEL,
            _ => NT_NV50_FUNCTION,
        };
        let desc: Vec<u8> = record(offset as u32, function.compiled.code.len() as u32, info)
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        notes.extend(note(NOTE_OWNER, kind, Some(&function.name), &desc));
    }

    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut out);
    w.reserve_file_header();
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let note_name = w.add_section_name(b".note.wavelift");
    w.reserve_section_index();
    w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();

    w.reserve_null_symbol_index();
    let mut symbols = Vec::new();
    let by_binding = |kernel: bool| {
        placed
            .iter()
            .filter(move |(f, _, _)| (f.compiled.kind == FunctionKind::Kernel) == kernel)
    };
    for (binding, kernel) in [(elf::STB_LOCAL, false), (elf::STB_GLOBAL, true)] {
        for &(function, _, offset) in by_binding(kernel) {
            let name: StringId = w.add_string(function.name.as_bytes());
            w.reserve_symbol_index(Some(text_index));
            symbols.push(Sym {
                name: Some(name),
                section: Some(text_index),
                st_info: binding << 4 | elf::STT_FUNC,
                st_other: elf::STV_DEFAULT,
                st_shndx: 0,
                st_value: offset as u64,
                st_size: function.compiled.code.len() as u64,
            });
        }
    }
    let local_count = by_binding(false).count() as u32 + 1;

    let text_offset = w.reserve(text.len(), FUNCTION_ALIGN);
    let note_offset = w.reserve(notes.len(), 4);
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: elf::EM_CUDA,
        e_entry: 0,
        e_flags: chip.sm(),
    })
    .map_err(|e| CompileError::in_module(format!("internal error writing the ELF header: {e}")))?;
    w.write_align(FUNCTION_ALIGN);
    w.write(&text);
    w.write_align(4);
    w.write(&notes);
    w.write_null_symbol();
    for symbol in &symbols {
        w.write_symbol(symbol);
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    let section =
        |name, sh_type, flags: u32, offset: usize, size: usize, align: usize| SectionHeader {
            name: Some(name),
            sh_type,
            sh_flags: flags.into(),
            sh_addr: 0,
            sh_offset: offset as u64,
            sh_size: size as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: align as u64,
            sh_entsize: 0,
        };
    w.write_section_header(&section(
        text_name,
        elf::SHT_PROGBITS,
        elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        text_offset,
        text.len(),
        FUNCTION_ALIGN,
    ));
    w.write_section_header(&section(
        note_name,
        elf::SHT_NOTE,
        0,
        note_offset,
        notes.len(),
        4,
    ));
    w.write_symtab_section_header(local_count);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(out)
}

/// An ELF note whose descriptor is the function's name, if any (NUL-terminated, padded to
/// 4 bytes), followed by `fields`.
fn note(owner: &str, note_type: u32, function: Option<&str>, fields: &[u8]) -> Vec<u8> {
    let mut desc = Vec::new();
    if let Some(name) = function {
        desc.extend_from_slice(name.as_bytes());
        desc.push(0);
        desc.resize(desc.len().next_multiple_of(4), 0);
    }
    desc.extend_from_slice(fields);
    let mut out = Vec::new();
    out.extend_from_slice(&(owner.len() as u32 + 1).to_le_bytes());
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&note_type.to_le_bytes());
    out.extend_from_slice(owner.as_bytes());
    out.push(0);
    out.resize(out.len().next_multiple_of(4), 0);
    out.extend_from_slice(&desc);
    out
}
