//! AMDGPU HSA code objects (code object version 5, what llc-19 writes by default): a
//! relocatable ELF64 file like `llc -filetype=obj`'s, which `ld.lld -shared` links into
//! the shared object the ROCm runtime loads. `docs/objects.md` describes the layout.

pub mod descriptor;
pub mod metadata;
// Reading code objects serves `clif-util objdump`, the simulator and tests.
#[cfg(feature = "test-support")]
pub mod read;

use super::GcnInfo;
use crate::isa::{ObjectFunction, kernel_param_layout};
use crate::{CodeObjectVersion, CompileError, FunctionKind, Target};
use descriptor::{KernelDescriptor, RegisterCounts};
use metadata::{ArgMetadata, KernelMetadata};
use object::elf;
use object::write::elf::{FileHeader, Rel, SectionHeader, SectionIndex, Sym, Writer};
use object::{Endianness, write::StringId};

/// `EI_OSABI` of HSA code objects (LLVM's `ELFOSABI_AMDGPU_HSA`).
const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `EI_ABIVERSION` of code object versions 4 and 5 (LLVM's `ELFABIVERSION_AMDGPU_HSA_V4`,
/// `_V5`).
const ELFABIVERSION_AMDGPU_HSA_V4: u8 = 2;
const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
/// `e_flags` target-ID bits of code object versions 4 and 5 (LLVM's
/// `EF_AMDGPU_FEATURE_XNACK_OFF_V4` and `EF_AMDGPU_FEATURE_SRAMECC_*_V4`).
const EF_AMDGPU_FEATURE_XNACK_OFF_V4: u32 = 0x200;
const EF_AMDGPU_FEATURE_SRAMECC_ANY_V4: u32 = 0x400;
const EF_AMDGPU_FEATURE_SRAMECC_OFF_V4: u32 = 0x800;
const EF_AMDGPU_FEATURE_SRAMECC_ON_V4: u32 = 0xc00;
/// The relocation of `kernel_code_entry_byte_offset`: `S + A - P`, 64 bits (LLVM's
/// `R_AMDGPU_REL64`).
const R_AMDGPU_REL64: u32 = 5;

/// Kernels start on 256-byte boundaries: the instruction prefetch and the dispatcher's
/// entry address (`COMPUTE_PGM_LO` holds bits 39:8) need it. Device functions need 4.
const KERNEL_ALIGN: usize = 256;
const FUNCTION_ALIGN: usize = 4;
/// Padding between functions: `s_nop 0`, as LLVM pads code.
const S_NOP_0: [u8; 4] = 0xbf80_0000u32.to_le_bytes();

/// The processor's `EF_AMDGPU_MACH_AMDGCN_*` value (LLVM's `ELF.h`; tests/gcn_code_object.rs
/// checks each against the flags llc-19 writes).
fn elf_mach(processor: &str) -> Option<u32> {
    Some(match processor {
        "gfx600" => 0x020,
        "gfx601" => 0x021,
        "gfx700" => 0x022,
        "gfx701" => 0x023,
        "gfx702" => 0x024,
        "gfx703" => 0x025,
        "gfx704" => 0x026,
        "gfx801" => 0x028,
        "gfx802" => 0x029,
        "gfx803" => 0x02a,
        "gfx810" => 0x02b,
        "gfx900" => 0x02c,
        "gfx902" => 0x02d,
        "gfx904" => 0x02e,
        "gfx906" => 0x02f,
        "gfx908" => 0x030,
        "gfx909" => 0x031,
        "gfx90c" => 0x032,
        "gfx602" => 0x03a,
        "gfx705" => 0x03b,
        "gfx805" => 0x03c,
        _ => return None,
    })
}

// Reading code objects serves `clif-util objdump`, the simulator and tests (`read.rs`).
#[cfg(feature = "test-support")]
/// The processor whose `EF_AMDGPU_MACH_AMDGCN_*` value the `e_flags` of a code object
/// hold (their low byte), among the processors wavelift writes objects for.
pub fn processor_of(e_flags: u32) -> Option<&'static str> {
    crate::Target::cpu_names().find(|cpu| elf_mach(cpu) == Some(e_flags & 0xff))
}

/// The SGPR count that processors with the SGPR initialisation bug must declare (LLVM's
/// `FeatureSGPRInitBug`, `FIXED_NUM_SGPRS_FOR_INIT_BUG`): gfx802 and gfx805.
fn fixed_sgprs(processor: &str) -> Option<u32> {
    matches!(processor, "gfx802" | "gfx805").then_some(96)
}

/// The `e_flags` of code for `target`: the processor and the target-ID features.
fn elf_flags(target: &Target, processor: &str) -> Result<u32, String> {
    let mach = elf_mach(processor)
        .ok_or_else(|| format!("no ELF machine value known for processor `{processor}`"))?;
    let id = target.target_id();
    let mut flags = mach;
    if id.contains(":xnack-") {
        flags |= EF_AMDGPU_FEATURE_XNACK_OFF_V4;
    }
    if id.contains(":sramecc+") {
        flags |= EF_AMDGPU_FEATURE_SRAMECC_ON_V4;
    } else if id.contains(":sramecc-") {
        flags |= EF_AMDGPU_FEATURE_SRAMECC_OFF_V4;
    } else if matches!(processor, "gfx906" | "gfx908") {
        flags |= EF_AMDGPU_FEATURE_SRAMECC_ANY_V4;
    }
    Ok(flags)
}

/// The largest work-group whose waves fit on one compute unit (4 SIMDs, at most 10 waves
/// each) with `registers` per wave: 256 VGPRs per SIMD lane, allocated in blocks of 4;
/// 512 SGPRs per SIMD on gfx6/gfx7 and 800 on gfx8/gfx9, in blocks of 8 and 16 (LLVM's
/// `AMDGPUBaseInfo` occupancy rules). LLVM's default is 1024, which a kernel with more than
/// 64 VGPRs could not be launched with.
fn max_flat_workgroup_size(registers: RegisterCounts, target: &Target) -> u32 {
    let generation = match target.arch {
        crate::Arch::Gcn(generation) => generation,
        _ => super::mc::Gen::Gfx9,
    };
    let (by_vgprs, by_sgprs) = waves_per_simd(registers, generation);
    (4 * by_vgprs.min(by_sgprs).min(10) * 64).min(1024)
}

/// How many waves of a kernel with `registers` (the counts the descriptor declares) one
/// SIMD holds by its VGPRs and by its SGPRs (at most 10 either way, the hardware's limit):
/// 256 VGPRs per lane in blocks of 4; 512 SGPRs in blocks of 8 on gfx6/gfx7, 800 in blocks
/// of 16 on gfx8/gfx9 (LLVM's `AMDGPUBaseInfo` occupancy rules).
pub fn waves_per_simd(registers: RegisterCounts, generation: super::mc::Gen) -> (u32, u32) {
    use super::mc::Gen;
    let by_vgprs = 256 / registers.vgprs.max(1).next_multiple_of(4);
    let (sgpr_file, sgpr_block) = match generation {
        Gen::Gfx6 | Gen::Gfx7 => (512, 8),
        _ => (800, 16),
    };
    let by_sgprs = sgpr_file / registers.sgprs.max(1).next_multiple_of(sgpr_block);
    (by_vgprs.min(10), by_sgprs.min(10))
}

/// One function placed in `.text`.
struct Placed<'a> {
    function: &'a ObjectFunction,
    /// Its information with its callees' needs (`link::needs`).
    info: GcnInfo,
    offset: usize,
}

/// Writes `functions`, compiled for `target`, into one code object.
pub fn write(target: &Target, functions: &[ObjectFunction]) -> Result<Vec<u8>, CompileError> {
    let module_error = |reason: String| CompileError::in_module(reason);
    if target.os != crate::Os::Amdhsa {
        return Err(module_error(format!(
            "code objects are written for `amdgcn-amd-amdhsa` only, not `{}` (Mesa and PAL \
             have their own metadata)",
            target.triple
        )));
    }
    // An HSA code object holds kernels and device functions: a graphics shader's registers
    // are the graphics driver's to program (docs/targets.md).
    for f in functions {
        let Some(info) = f.compiled.gcn() else {
            continue;
        };
        let stage = match (info.inputs.pixel, info.inputs.vertex) {
            (Some(_), _) => "fragment",
            (_, Some(_)) => "vertex",
            _ => continue,
        };
        return Err(module_error(format!(
            "`{}` is a {stage} shader: HSA code objects hold kernels and device functions",
            f.name
        )));
    }
    let id = target.target_id();
    let processor = id.split(':').next().unwrap_or(&id);
    let flags = elf_flags(target, processor).map_err(module_error)?;

    // .text: each function at its alignment, padded with `s_nop 0`.
    let mut text = Vec::new();
    let mut placed = Vec::new();
    for (i, function) in functions.iter().enumerate() {
        if functions[..i].iter().any(|f| f.name == function.name) {
            return Err(CompileError {
                function: function.name.clone(),
                inst: None,
                reason: "two functions of the module have this name".into(),
            });
        }
        let Some(info) = function.compiled.gcn() else {
            return Err(CompileError {
                function: function.name.clone(),
                inst: None,
                reason: "not compiled for GCN".into(),
            });
        };
        let align = match function.compiled.kind {
            FunctionKind::Kernel => KERNEL_ALIGN,
            _ => FUNCTION_ALIGN,
        };
        while text.len() % align != 0 {
            text.extend_from_slice(&S_NOP_0);
        }
        placed.push(Placed {
            function,
            info: info.clone(),
            offset: text.len(),
        });
        text.extend_from_slice(&function.compiled.code);
    }
    // Calls resolved, and each function's needs grown by its callees'.
    let infos: Vec<(&str, &GcnInfo)> = placed
        .iter()
        .map(|p| {
            (
                p.function.name.as_str(),
                p.function.compiled.gcn().expect("checked"),
            )
        })
        .collect();
    let mut needs = Vec::with_capacity(placed.len());
    for (i, p) in placed.iter().enumerate() {
        let in_function = |reason| CompileError {
            function: p.function.name.clone(),
            inst: None,
            reason,
        };
        needs.push(super::link::needs(&infos, i).map_err(in_function)?);
        for site in &infos[i].1.calls {
            let callee = placed
                .iter()
                .find(|c| c.function.name == site.callee)
                .expect("`needs` found every callee");
            super::link::patch(&mut text, p.offset + site.offset as usize, callee.offset);
        }
    }
    for (p, needs) in placed.iter_mut().zip(needs) {
        p.info.private_segment_size = needs.private_segment_size;
        p.info.vgprs = needs.vgprs;
        p.info.sgprs = needs.sgprs;
        p.info.uses_vcc = needs.uses_vcc;
    }

    // .rodata: a descriptor per kernel; the metadata beside it.
    let kernels: Vec<&Placed> = placed
        .iter()
        .filter(|p| p.function.compiled.kind == FunctionKind::Kernel)
        .collect();
    let mut rodata = Vec::new();
    let mut kernel_metadata = Vec::new();
    for kernel in &kernels {
        let registers =
            RegisterCounts::new(&kernel.info, fixed_sgprs(processor)).map_err(|reason| {
                CompileError {
                    function: kernel.function.name.clone(),
                    inst: None,
                    reason,
                }
            })?;
        rodata.extend_from_slice(&KernelDescriptor::new(&kernel.info, registers).to_bytes());
        kernel_metadata.push(kernel_metadata_of(kernel, registers, target));
    }
    let metadata = metadata::encode(
        &format!("amdgcn-amd-amdhsa--{id}"),
        &kernel_metadata,
        target.code_object,
    );
    let note = metadata::note("AMDGPU", metadata::NT_AMDGPU_METADATA, &metadata);

    let kd_names: Vec<String> = kernels
        .iter()
        .map(|k| format!("{}.kd", k.function.name))
        .collect();
    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);
    w.reserve_file_header();

    let section = |w: &mut Writer<'_>, name: &'static [u8]| {
        (w.add_section_name(name), w.reserve_section_index())
    };
    let (text_name, text_index) = section(&mut w, b".text");
    let (rodata_name, rodata_index) = section(&mut w, b".rodata");
    let (rela_name, _) = section(&mut w, b".rela.rodata");
    let (note_name, _) = section(&mut w, b".note");
    let symtab_index = w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();

    // Symbols: the local ones (device functions) first, as ELF requires.
    w.reserve_null_symbol_index();
    let mut symbols = Vec::new();
    for p in placed
        .iter()
        .filter(|p| p.function.compiled.kind != FunctionKind::Kernel)
    {
        let name = w.add_string(p.function.name.as_bytes());
        w.reserve_symbol_index(Some(text_index));
        symbols.push(function_symbol(
            name,
            text_index,
            p,
            elf::STB_LOCAL,
            elf::STV_DEFAULT,
        ));
    }
    let local_count = symbols.len() as u32 + 1;
    let mut relocations = Vec::new();
    for (i, (kernel, kd_name)) in kernels.iter().zip(&kd_names).enumerate() {
        let name = w.add_string(kernel.function.name.as_bytes());
        let kernel_symbol = w.reserve_symbol_index(Some(text_index));
        symbols.push(function_symbol(
            name,
            text_index,
            kernel,
            elf::STB_GLOBAL,
            elf::STV_PROTECTED,
        ));
        let kd_name = w.add_string(kd_name.as_bytes());
        w.reserve_symbol_index(Some(rodata_index));
        let kd_offset = (i * descriptor::SIZE) as u64;
        symbols.push(Sym {
            name: Some(kd_name),
            section: Some(rodata_index),
            st_info: elf::STB_GLOBAL << 4 | elf::STT_OBJECT,
            st_other: elf::STV_PROTECTED,
            st_shndx: 0,
            st_value: kd_offset,
            st_size: descriptor::SIZE as u64,
        });
        // kernel_code_entry_byte_offset = kernel - descriptor: S + A - P with P the field's
        // address, 16 bytes into the descriptor.
        relocations.push(Rel {
            r_offset: kd_offset + descriptor::ENTRY_OFFSET as u64,
            r_sym: kernel_symbol.0,
            r_type: R_AMDGPU_REL64,
            r_addend: descriptor::ENTRY_OFFSET as i64,
        });
    }

    let text_offset = w.reserve(text.len(), KERNEL_ALIGN);
    let rodata_offset = w.reserve(rodata.len(), descriptor::SIZE);
    let rela_offset = w.reserve_relocations(relocations.len(), true);
    let note_offset = w.reserve(note.len(), 4);
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: ELFOSABI_AMDGPU_HSA,
        abi_version: match target.code_object {
            CodeObjectVersion::V4 => ELFABIVERSION_AMDGPU_HSA_V4,
            CodeObjectVersion::V5 => ELFABIVERSION_AMDGPU_HSA_V5,
        },
        e_type: elf::ET_REL,
        e_machine: elf::EM_AMDGPU,
        e_entry: 0,
        e_flags: flags,
    })
    .map_err(|e| module_error(format!("internal error writing the ELF header: {e}")))?;
    w.write_align(KERNEL_ALIGN);
    w.write(&text);
    w.write_align(descriptor::SIZE);
    w.write(&rodata);
    w.write_align_relocation();
    for relocation in &relocations {
        w.write_relocation(true, relocation);
    }
    w.write_align(4);
    w.write(&note);
    w.write_null_symbol();
    for symbol in &symbols {
        w.write_symbol(symbol);
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    let progbits =
        |name: StringId, flags: u32, offset: usize, size: usize, align: usize| SectionHeader {
            name: Some(name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: flags.into(),
            sh_addr: 0,
            sh_offset: offset as u64,
            sh_size: size as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: align as u64,
            sh_entsize: 0,
        };
    w.write_section_header(&progbits(
        text_name,
        elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        text_offset,
        text.len(),
        KERNEL_ALIGN,
    ));
    w.write_section_header(&progbits(
        rodata_name,
        elf::SHF_ALLOC,
        rodata_offset,
        rodata.len(),
        descriptor::SIZE,
    ));
    w.write_relocation_section_header(
        rela_name,
        rodata_index,
        symtab_index,
        rela_offset,
        relocations.len(),
        true,
    );
    w.write_section_header(&SectionHeader {
        sh_type: elf::SHT_NOTE,
        sh_addralign: 4,
        ..progbits(note_name, elf::SHF_ALLOC, note_offset, note.len(), 4)
    });
    w.write_symtab_section_header(local_count);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    debug_assert_eq!(w.reserved_len(), w.len());
    Ok(out)
}

/// The `STT_FUNC` symbol of a function placed in `.text`.
fn function_symbol(
    name: StringId,
    text: SectionIndex,
    placed: &Placed,
    binding: u8,
    visibility: u8,
) -> Sym {
    Sym {
        name: Some(name),
        section: Some(text),
        st_info: binding << 4 | elf::STT_FUNC,
        st_other: visibility,
        st_shndx: 0,
        st_value: placed.offset as u64,
        st_size: placed.function.compiled.code.len() as u64,
    }
}

/// The metadata of a kernel launched with `registers`.
fn kernel_metadata_of(
    kernel: &Placed,
    registers: RegisterCounts,
    target: &Target,
) -> KernelMetadata {
    let params = &kernel.function.signature.params;
    let (offsets, size) = kernel_param_layout(&kernel.function.signature);
    let args = params
        .iter()
        .zip(offsets)
        .zip(&kernel.function.args)
        .map(|((param, offset), &kind)| ArgMetadata {
            offset,
            size: param.value_type.bytes(),
            kind,
        })
        .collect();
    // Each argument is aligned to its size, at least 4 bytes (`kernel_param_layout`).
    let align = params
        .iter()
        .map(|p| p.value_type.bytes().max(4))
        .max()
        .unwrap_or(4);
    KernelMetadata {
        name: kernel.function.name.clone(),
        args,
        kernarg_segment_size: size,
        kernarg_segment_align: align,
        group_segment_fixed_size: kernel.info.group_segment_size,
        private_segment_fixed_size: kernel.info.private_segment_size,
        sgpr_count: registers.sgprs,
        sgpr_spill_count: kernel.info.sgpr_spills,
        vgpr_spill_count: kernel.info.vgpr_spills,
        vgpr_count: registers.vgprs,
        max_flat_workgroup_size: max_flat_workgroup_size(registers, target),
    }
}
