//! Reading a code object back: its processor, `.text` and each kernel's descriptor and
//! entry, for `clif-util objdump`, the simulator's launch of a code object's kernel
//! (`sim::gcn::launch_object`) and tests. Any compiler's HSA code object reads, relocatable
//! (`llc -filetype=obj`, wavelift's) or linked (`ld.lld -shared`).

use super::descriptor::{self, KernelDescriptor};
use super::metadata::{self, Node};
use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};

/// A kernel of a code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectKernel {
    /// The kernel's symbol name (its descriptor is `NAME.kd`).
    pub name: String,
    /// Byte offset of the kernel's first instruction in [`CodeObject::text`].
    pub entry: u32,
    /// The descriptor's 64 bytes.
    pub descriptor: [u8; descriptor::SIZE],
    /// The kernel's arguments as the metadata note lists them (none without a note).
    pub args: Vec<ObjectArg>,
}

/// A kernel argument of the metadata: where it lies in the kernarg segment and its
/// `.value_kind` (`global_buffer`, `by_value`, `hidden_block_count_x`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectArg {
    pub offset: u32,
    pub size: u32,
    pub value_kind: String,
}

impl ObjectKernel {
    /// The descriptor's fields.
    pub fn fields(&self) -> KernelDescriptor {
        KernelDescriptor::from_bytes(&self.descriptor)
    }
}

/// What a code object holds for running its kernels.
#[derive(Clone, Debug)]
pub struct CodeObject {
    /// The processor the `e_flags` name (`gfx803`, …).
    pub processor: &'static str,
    /// The `e_flags`.
    pub flags: u32,
    /// The bytes of `.text`: every kernel and device function.
    pub text: Vec<u8>,
    /// The kernels, in symbol-table order.
    pub kernels: Vec<ObjectKernel>,
}

impl CodeObject {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&ObjectKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// Reads the code object `bytes`. A kernel is a `NAME.kd` symbol with 64 bytes of
/// descriptor; its entry is the `.text` function symbol `NAME` (a relocatable object
/// leaves `kernel_code_entry_byte_offset` to a relocation; where a linker has filled it
/// in, it must point at that symbol).
pub fn read(bytes: &[u8]) -> Result<CodeObject, String> {
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(|e| format!("not ELF64: {e}"))?;
    let endian = file.endian();
    let header = file.elf_header();
    if header.e_machine(endian) != object::elf::EM_AMDGPU {
        return Err("not an AMDGPU code object (e_machine is not EM_AMDGPU)".into());
    }
    let flags = header.e_flags(endian);
    let processor = super::processor_of(flags)
        .ok_or_else(|| format!("e_flags {flags:#x} name no GCN processor wavelift knows"))?;
    let text = file.section_by_name(".text").ok_or("no .text section")?;
    let code = text.data().map_err(|e| e.to_string())?.to_vec();
    let listed = kernel_metadata(&file, bytes)?;
    let mut kernels = Vec::new();
    for symbol in file.symbols() {
        let Some(name) = symbol.name().ok().and_then(|n| n.strip_suffix(".kd")) else {
            continue;
        };
        let malformed = |what: &str| format!("descriptor {name}.kd: {what}");
        let section = symbol
            .section_index()
            .and_then(|i| file.section_by_index(i).ok())
            .ok_or_else(|| malformed("in no section"))?;
        let data = section.data().map_err(|e| malformed(&e.to_string()))?;
        let at = symbol
            .address()
            .checked_sub(section.address())
            .and_then(|a| usize::try_from(a).ok())
            .ok_or_else(|| malformed("outside its section"))?;
        let kd: [u8; descriptor::SIZE] = at
            .checked_add(descriptor::SIZE)
            .and_then(|end| data.get(at..end))
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| malformed("fewer than 64 bytes"))?;
        let function = file
            .symbols()
            .find(|s| {
                s.kind() == SymbolKind::Text
                    && s.section_index() == Some(text.index())
                    && s.name() == Ok(name)
            })
            .ok_or_else(|| format!("kernel {name}: no function symbol {name} in .text"))?;
        let entry = function
            .address()
            .checked_sub(text.address())
            .filter(|&e| e < code.len() as u64)
            .ok_or_else(|| format!("kernel {name} lies outside .text"))?;
        let offset = i64::from_le_bytes(
            kd[descriptor::ENTRY_OFFSET..descriptor::ENTRY_OFFSET + 8]
                .try_into()
                .expect("8 bytes"),
        );
        if offset != 0
            && (symbol.address() as i64).wrapping_add(offset) != function.address() as i64
        {
            return Err(malformed(
                "kernel_code_entry_byte_offset does not point at the kernel's code",
            ));
        }
        let args = listed
            .iter()
            .find(|(symbol, _)| *symbol == format!("{name}.kd"))
            .map(|(_, args)| args.clone())
            .unwrap_or_default();
        kernels.push(ObjectKernel {
            name: name.to_string(),
            entry: entry as u32,
            descriptor: kd,
            args,
        });
    }
    Ok(CodeObject {
        processor,
        flags,
        text: code,
        kernels,
    })
}

/// Each kernel of the `NT_AMDGPU_METADATA` note (`amdhsa.kernels`): its descriptor symbol
/// (`.symbol`) and its `.args`.
fn kernel_metadata(
    file: &ElfFile64<Endianness>,
    bytes: &[u8],
) -> Result<Vec<(String, Vec<ObjectArg>)>, String> {
    let endian = file.endian();
    let mut kernels = Vec::new();
    for section in file.elf_section_table().iter() {
        let Some(mut notes) = section
            .notes(endian, bytes)
            .map_err(|e| format!("a malformed note section: {e}"))?
        else {
            continue;
        };
        while let Some(note) = notes.next().map_err(|e| format!("a malformed note: {e}"))? {
            if note.name() != b"AMDGPU" || note.n_type(endian) != metadata::NT_AMDGPU_METADATA {
                continue;
            }
            let document = metadata::decode(note.desc())?;
            let listed = document
                .get("amdhsa.kernels")
                .and_then(Node::as_array)
                .unwrap_or_default();
            for kernel in listed {
                let symbol = kernel.get(".symbol").and_then(Node::as_str);
                let symbol = symbol.ok_or("a metadata kernel without .symbol")?;
                let args = kernel
                    .get(".args")
                    .and_then(Node::as_array)
                    .unwrap_or_default()
                    .iter()
                    .map(|arg| {
                        let field = |key: &str| {
                            arg.get(key)
                                .and_then(Node::as_u64)
                                .and_then(|n| u32::try_from(n).ok())
                                .ok_or_else(|| format!("{symbol}: an argument without {key}"))
                        };
                        Ok(ObjectArg {
                            offset: field(".offset")?,
                            size: field(".size")?,
                            value_kind: arg
                                .get(".value_kind")
                                .and_then(Node::as_str)
                                .ok_or_else(|| {
                                    format!("{symbol}: an argument without .value_kind")
                                })?
                                .to_string(),
                        })
                    })
                    .collect::<Result<_, String>>()?;
                kernels.push((symbol.to_string(), args));
            }
        }
    }
    Ok(kernels)
}
