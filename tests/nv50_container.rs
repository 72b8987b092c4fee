//! wavelift's NV50 container (`compile_module` for an NV50 target, `docs/objects.md`): for
//! every NV50 filetest module, on each chip variant, the ELF holds each function's code at
//! its symbol — byte for byte what `compile_function` gives — and a note with the launch
//! fields of its `Nv50Info`, and `llvm-readelf-19` reads it without a warning (when
//! installed; CI installs it).

mod filetest_text;
use object::read::elf::{ElfFile32, FileHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol};
use std::path::Path;
use std::process::Command;
use wavelift::Target;

const NT_NV50_KERNEL: u32 = 1;
const NT_NV50_FUNCTION: u32 = 2;
const NT_NV50_CHIPSET: u32 = 3;

/// The notes of the container: (type, descriptor).
fn notes(file: &ElfFile32<Endianness>, bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let endian = file.endian();
    let mut out = Vec::new();
    for section in file.elf_section_table().iter() {
        if let Some(mut notes) = section.notes(endian, bytes).unwrap() {
            while let Some(note) = notes.next().unwrap() {
                assert_eq!(note.name(), b"wavelift");
                out.push((note.n_type(endian), note.desc().to_vec()));
            }
        }
    }
    out
}

#[test]
fn the_container_holds_each_functions_code_and_launch_fields() {
    let readelf = Command::new("llvm-readelf-19")
        .arg("--version")
        .output()
        .is_ok();
    if !readelf {
        eprintln!("llvm-readelf-19 not found: the container is checked without it");
    }
    let mut checked = 0;
    for entry in std::fs::read_dir("filetests/nv50").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "clif") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.lines().any(|l| l.starts_with("test compile")) {
            continue;
        }
        let funcs = cranelift_reader::parse_functions(&filetest_text::clif_of(&text)).unwrap();
        for cpu in ["nv50", "g84", "gt200"] {
            let target = Target::parse(cpu).unwrap();
            let compiled: Vec<_> = funcs
                .iter()
                .map(|f| wavelift::compile_function(f, &target))
                .collect();
            if compiled.iter().any(Result::is_err) {
                continue;
            }
            let what = format!("{} for {cpu}", path.display());
            let bytes = wavelift::compile_module(&funcs, &target).unwrap();
            let file = ElfFile32::<Endianness>::parse(&*bytes).unwrap();
            let header = file.elf_header();
            assert_eq!(
                header.e_machine(file.endian()),
                object::elf::EM_CUDA,
                "{what}"
            );
            let sm = match cpu {
                "nv50" => 10,
                "g84" => 11,
                _ => 13,
            };
            assert_eq!(header.e_flags(file.endian()), sm, "{what}");
            let text = file.section_by_name(".text").unwrap();
            let code = text.data().unwrap();
            let notes = notes(&file, &bytes);
            let chipset = match cpu {
                "nv50" => 0x50u32,
                "g84" => 0x84,
                _ => 0xa0,
            };
            assert_eq!(
                notes[0],
                (NT_NV50_CHIPSET, chipset.to_le_bytes().to_vec()),
                "{what}"
            );
            // A module whose functions call is linked in `.text`: its code and records are
            // the linked ones (`tests/nv50_calls.rs` checks those).
            let linked = compiled
                .iter()
                .flatten()
                .any(wavelift::CompiledCode::has_calls);
            for (func, compiled) in funcs.iter().zip(&compiled) {
                let compiled = compiled.as_ref().unwrap();
                let name = func.name.to_string().trim_start_matches('%').to_string();
                let symbol = file
                    .symbols()
                    .find(|s| s.name() == Ok(name.as_str()))
                    .unwrap_or_else(|| panic!("{what}: no symbol {name}"));
                let at = symbol.address() as usize;
                assert_eq!(
                    symbol.size() as usize,
                    compiled.code.len(),
                    "{what}: {name}"
                );
                if linked {
                    continue;
                }
                assert_eq!(
                    &code[at..at + compiled.code.len()],
                    &compiled.code[..],
                    "{what}: {name}"
                );
                let info = compiled.nv50().unwrap();
                let kernel = compiled.kind == wavelift::FunctionKind::Kernel;
                assert_eq!(symbol.is_global(), kernel, "{what}: {name}");
                let mut desc = name.as_bytes().to_vec();
                desc.push(0);
                desc.resize(desc.len().next_multiple_of(4), 0);
                let mut fields = vec![
                    at as u32,
                    compiled.code.len() as u32,
                    info.gprs,
                    info.param_size,
                    info.shared_size,
                    info.workgroup_size,
                    info.local_size,
                    info.relocations.len() as u32,
                ];
                fields.extend(info.relocations.iter().map(|r| at as u32 + r));
                desc.extend(fields.iter().flat_map(|f| f.to_le_bytes()));
                let kind = if kernel {
                    NT_NV50_KERNEL
                } else {
                    NT_NV50_FUNCTION
                };
                assert!(notes.contains(&(kind, desc)), "{what}: {name}'s record");
            }
            if readelf {
                let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nv50_container.o");
                std::fs::write(&scratch, &bytes).unwrap();
                let output = Command::new("llvm-readelf-19")
                    .args(["-h", "-S", "-s", "--notes", scratch.to_str().unwrap()])
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(
                    output.status.success() && stderr.trim().is_empty(),
                    "{what}: {stderr}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} modules checked");
}
