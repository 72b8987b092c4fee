//! The kernel descriptor: the 64 bytes the dispatcher reads to launch a kernel (LLVM's
//! AMDGPUUsage, "Kernel Descriptor", the GFX6–GFX9 columns). `docs/objects.md` lists every
//! field and where its value comes from.

use crate::isa::gcn::GcnInfo;

/// Bytes in a kernel descriptor.
pub const SIZE: usize = 64;

/// Byte offset of `kernel_code_entry_byte_offset`, the signed distance from the descriptor
/// to the kernel's first instruction (a relocation fills it in).
pub const ENTRY_OFFSET: usize = 16;

/// The register counts a kernel is launched with: what its code uses, rounded up to what
/// the hardware initialises and reserves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegisterCounts {
    /// VGPRs, at least the work-item id VGPRs the hardware writes.
    pub vgprs: u32,
    /// SGPRs including VCC when the code writes it (LLVM's `.sgpr_count`).
    pub sgprs: u32,
}

impl RegisterCounts {
    /// The counts of a kernel compiled to `info`; `fixed_sgprs` is the SGPR count a processor
    /// with the SGPR initialisation bug must declare (LLVM's `FeatureSGPRInitBug`: gfx802 and
    /// gfx805 initialise user SGPRs correctly only with 96 SGPRs allocated).
    pub fn new(info: &GcnInfo, fixed_sgprs: Option<u32>) -> Result<RegisterCounts, String> {
        let vgprs = info.vgprs.max(info.inputs.workitem_id_vgprs as u32).max(1);
        let sgprs = info.sgprs + if info.uses_vcc { 2 } else { 0 };
        let sgprs = match fixed_sgprs {
            Some(fixed) if sgprs > fixed => {
                return Err(format!(
                    "the kernel uses {sgprs} SGPRs (VCC included), more than the {fixed} a \
                     kernel may declare on this processor (its SGPR initialisation bug fixes \
                     the count)"
                ));
            }
            Some(fixed) => fixed,
            None => sgprs,
        };
        Ok(RegisterCounts { vgprs, sgprs })
    }
}

/// The fields of a GFX6–GFX9 kernel descriptor that wavelift's kernels set; the others are
/// zero (reserved, or features the code does not use).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// Bytes of LDS the kernel allocates statically.
    pub group_segment_fixed_size: u32,
    /// Bytes of scratch per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes of the kernarg segment.
    pub kernarg_size: u32,
    /// `COMPUTE_PGM_RSRC1`: register granules and the float mode.
    pub compute_pgm_rsrc1: u32,
    /// `COMPUTE_PGM_RSRC2`: user SGPR count and the system SGPRs/VGPRs enabled.
    pub compute_pgm_rsrc2: u32,
    /// Which user SGPRs the dispatcher initialises, and the wavefront size.
    pub kernel_code_properties: u16,
}

// COMPUTE_PGM_RSRC1 (GFX6–GFX9).
const RSRC1_VGPR_GRANULES: u32 = 0; // bits 5:0, granules of 4 VGPRs, minus one
const RSRC1_SGPR_GRANULES: u32 = 6; // bits 9:6, granules of 8 SGPRs, minus one
const RSRC1_FLOAT_DENORM_MODE_32: u32 = 16; // bits 17:16
const RSRC1_FLOAT_DENORM_MODE_16_64: u32 = 18; // bits 19:18
const RSRC1_ENABLE_DX10_CLAMP: u32 = 1 << 21;
const RSRC1_ENABLE_IEEE_MODE: u32 = 1 << 23;
/// `FLOAT_DENORM_MODE_*` value 3: denormals kept in inputs and outputs.
const DENORMALS_KEPT: u32 = 3;

// COMPUTE_PGM_RSRC2.
const RSRC2_ENABLE_PRIVATE_SEGMENT: u32 = 1 << 0; // the scratch wave offset SGPR
const RSRC2_USER_SGPR_COUNT: u32 = 1; // bits 5:1
const RSRC2_ENABLE_SGPR_WORKGROUP_ID_X: u32 = 7; // 8 for y, 9 for z
#[cfg(feature = "test-support")]
const RSRC2_ENABLE_SGPR_WORKGROUP_INFO: u32 = 1 << 10;
const RSRC2_ENABLE_VGPR_WORKITEM_ID: u32 = 11; // bits 12:11: 0 = x, 1 = x and y, 2 = x, y, z

// kernel_code_properties.
const ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER: u16 = 1 << 0;
const ENABLE_SGPR_DISPATCH_PTR: u16 = 1 << 1;
const ENABLE_SGPR_KERNARG_SEGMENT_PTR: u16 = 1 << 3;
#[cfg(feature = "test-support")]
const ENABLE_WAVEFRONT_SIZE32: u16 = 1 << 10;

// Starting a kernel from its descriptor serves the simulator's dispatcher.
#[cfg(feature = "test-support")]
/// A user SGPR input the dispatcher can initialise, in the order AMDGPU places them
/// (AMDGPUUsage, "Initial Kernel Execution State"; `kernel_code_properties` bit `n` enables
/// the variant `n`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UserSgpr {
    /// 4 SGPRs: a buffer resource for the private (scratch) segment.
    PrivateSegmentBuffer,
    /// 2 SGPRs: the address of the dispatch packet.
    DispatchPtr,
    /// 2 SGPRs: the address of the queue the packet came from.
    QueuePtr,
    /// 2 SGPRs: the address of the kernarg segment.
    KernargSegmentPtr,
    /// 2 SGPRs: the 64-bit dispatch id.
    DispatchId,
    /// 2 SGPRs: what the kernel needs to set up FLAT_SCRATCH.
    FlatScratchInit,
    /// 1 SGPR: the bytes of private segment per work-item.
    PrivateSegmentSize,
}

#[cfg(feature = "test-support")]
impl UserSgpr {
    /// Every user SGPR input, in the ABI's order.
    pub const ALL: [UserSgpr; 7] = [
        UserSgpr::PrivateSegmentBuffer,
        UserSgpr::DispatchPtr,
        UserSgpr::QueuePtr,
        UserSgpr::KernargSegmentPtr,
        UserSgpr::DispatchId,
        UserSgpr::FlatScratchInit,
        UserSgpr::PrivateSegmentSize,
    ];

    /// How many SGPRs the input takes.
    pub fn count(self) -> u32 {
        match self {
            UserSgpr::PrivateSegmentBuffer => 4,
            UserSgpr::PrivateSegmentSize => 1,
            _ => 2,
        }
    }
}

#[cfg(feature = "test-support")]
/// What the dispatcher reads from a descriptor to start a kernel's waves (AMDGPUUsage,
/// "Initial Kernel Execution State"; the GFX6–GFX9 fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveSetup {
    /// The user SGPRs enabled, in the order they are placed from s0.
    pub user_sgprs: Vec<UserSgpr>,
    /// The system SGPRs after them: the work-group ids x, y, z that are enabled.
    pub workgroup_id: [bool; 3],
    /// Then the work-group info SGPR.
    pub workgroup_info: bool,
    /// Then the private segment (scratch) wave offset SGPR.
    pub private_segment_wave_offset: bool,
    /// Work-item id VGPRs: 1 (v0 = x), 2 (and v1 = y) or 3 (and v2 = z).
    pub workitem_id_dims: u32,
    /// The MODE register at wave start: FP_ROUND (bits 3:0) and FP_DENORM (7:4) from the
    /// descriptor's float modes, DX10_CLAMP (8), IEEE (9).
    pub mode: u32,
}

impl KernelDescriptor {
    /// The descriptor of a kernel compiled to `info`, launched with `registers`.
    pub fn new(info: &GcnInfo, registers: RegisterCounts) -> KernelDescriptor {
        let inputs = &info.inputs;
        // The granule fields count allocation blocks minus one (AMDGPUUsage,
        // "compute_pgm_rsrc1 for GFX6-GFX12": GRANULATED_WORKITEM_VGPR_COUNT and
        // GRANULATED_WAVEFRONT_SGPR_COUNT, block sizes 4 and 8 on GFX6–GFX9).
        let vgpr_granules = registers.vgprs.div_ceil(4) - 1;
        let sgpr_granules = registers.sgprs.max(1).div_ceil(8) - 1;
        // The float mode `docs/ir.md` assumes and the simulator starts with (its
        // `MODE_DEFAULT`): round to nearest even (0), denormals kept for every width, DX10
        // clamp and IEEE mode on.
        let compute_pgm_rsrc1 = vgpr_granules << RSRC1_VGPR_GRANULES
            | sgpr_granules << RSRC1_SGPR_GRANULES
            | DENORMALS_KEPT << RSRC1_FLOAT_DENORM_MODE_32
            | DENORMALS_KEPT << RSRC1_FLOAT_DENORM_MODE_16_64
            | RSRC1_ENABLE_DX10_CLAMP
            | RSRC1_ENABLE_IEEE_MODE;

        // User SGPRs in the ABI's order (`abi::Frame::kernel`): the private segment buffer
        // a quad, each pointer a pair.
        let user_sgprs = 4 * inputs.private_segment as u32
            + 2 * inputs.dispatch_ptr as u32
            + 2 * inputs.kernarg_segment_ptr as u32;
        let mut compute_pgm_rsrc2 = user_sgprs << RSRC2_USER_SGPR_COUNT;
        if inputs.private_segment {
            compute_pgm_rsrc2 |= RSRC2_ENABLE_PRIVATE_SEGMENT;
        }
        for (dim, &enabled) in inputs.workgroup_id.iter().enumerate() {
            compute_pgm_rsrc2 |=
                (enabled as u32) << (RSRC2_ENABLE_SGPR_WORKGROUP_ID_X + dim as u32);
        }
        let workitem_dims = (inputs.workitem_id_vgprs as u32).max(1);
        compute_pgm_rsrc2 |= (workitem_dims - 1) << RSRC2_ENABLE_VGPR_WORKITEM_ID;

        let mut kernel_code_properties = 0;
        if inputs.private_segment {
            kernel_code_properties |= ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER;
        }
        if inputs.dispatch_ptr {
            kernel_code_properties |= ENABLE_SGPR_DISPATCH_PTR;
        }
        if inputs.kernarg_segment_ptr {
            kernel_code_properties |= ENABLE_SGPR_KERNARG_SEGMENT_PTR;
        }

        KernelDescriptor {
            // The LDS the kernel declares (COMPUTE_PGM_RSRC2.LDS_SIZE stays 0: the packet
            // processor sets it from the dispatch, AMDGPUUsage "compute_pgm_rsrc2"); the
            // private memory of each work-item (stack slots and spills).
            group_segment_fixed_size: info.group_segment_size,
            private_segment_fixed_size: info.private_segment_size,
            kernarg_size: info.kernarg_size,
            compute_pgm_rsrc1,
            compute_pgm_rsrc2,
            kernel_code_properties,
        }
    }

    /// The descriptor's bytes, `kernel_code_entry_byte_offset` zero (the relocation's).
    pub fn to_bytes(&self) -> [u8; SIZE] {
        let mut bytes = [0u8; SIZE];
        let mut put = |offset: usize, field: &[u8]| {
            bytes[offset..offset + field.len()].copy_from_slice(field);
        };
        put(0, &self.group_segment_fixed_size.to_le_bytes());
        put(4, &self.private_segment_fixed_size.to_le_bytes());
        put(8, &self.kernarg_size.to_le_bytes());
        // 12..16 reserved, 16..24 the entry offset, 24..48 reserved and COMPUTE_PGM_RSRC3
        // (GFX90A and later).
        put(48, &self.compute_pgm_rsrc1.to_le_bytes());
        put(52, &self.compute_pgm_rsrc2.to_le_bytes());
        put(56, &self.kernel_code_properties.to_le_bytes());
        // 58..64: kernarg preload (GFX940 and later) and reserved.
        bytes
    }
}

#[cfg(feature = "test-support")]
impl KernelDescriptor {
    /// The fields of the descriptor `kd` that [`KernelDescriptor`] holds (whoever wrote it).
    pub fn from_bytes(kd: &[u8; SIZE]) -> KernelDescriptor {
        let word = |at: usize| u32::from_le_bytes([kd[at], kd[at + 1], kd[at + 2], kd[at + 3]]);
        KernelDescriptor {
            group_segment_fixed_size: word(0),
            private_segment_fixed_size: word(4),
            kernarg_size: word(8),
            compute_pgm_rsrc1: word(48),
            compute_pgm_rsrc2: word(52),
            kernel_code_properties: u16::from_le_bytes([kd[56], kd[57]]),
        }
    }

    /// How the dispatcher starts this kernel's waves; an error for what a GFX6–GFX9
    /// dispatcher cannot do (wave32, a user SGPR count that disagrees with the enabled
    /// inputs, which would leave the system SGPRs where the code does not read them).
    pub fn wave_setup(&self) -> Result<WaveSetup, String> {
        let rsrc1 = self.compute_pgm_rsrc1;
        let rsrc2 = self.compute_pgm_rsrc2;
        if self.kernel_code_properties & ENABLE_WAVEFRONT_SIZE32 != 0 {
            return Err("the descriptor asks for wave32, which GFX6–GFX9 do not have".into());
        }
        let user_sgprs: Vec<UserSgpr> = UserSgpr::ALL
            .into_iter()
            .enumerate()
            .filter(|&(bit, _)| self.kernel_code_properties >> bit & 1 != 0)
            .map(|(_, input)| input)
            .collect();
        let enabled: u32 = user_sgprs.iter().map(|u| u.count()).sum();
        let declared = rsrc2 >> RSRC2_USER_SGPR_COUNT & 0x1f;
        if declared != enabled {
            return Err(format!(
                "COMPUTE_PGM_RSRC2.USER_SGPR_COUNT is {declared} but the enabled user SGPRs \
                 take {enabled}"
            ));
        }
        let workitem_id_dims = (rsrc2 >> RSRC2_ENABLE_VGPR_WORKITEM_ID & 3) + 1;
        if workitem_id_dims > 3 {
            return Err("ENABLE_VGPR_WORKITEM_ID is 3, a reserved value".into());
        }
        // MODE's FP_ROUND and FP_DENORM fields are rsrc1's four float-mode fields in the
        // same order (rsrc1 bits 19:12); DX10_CLAMP and IEEE follow.
        let mode = (rsrc1 >> 12 & 0xff)
            | u32::from(rsrc1 & RSRC1_ENABLE_DX10_CLAMP != 0) << 8
            | u32::from(rsrc1 & RSRC1_ENABLE_IEEE_MODE != 0) << 9;
        Ok(WaveSetup {
            user_sgprs,
            workgroup_id: [0, 1, 2]
                .map(|d| rsrc2 >> (RSRC2_ENABLE_SGPR_WORKGROUP_ID_X + d) & 1 != 0),
            workgroup_info: rsrc2 & RSRC2_ENABLE_SGPR_WORKGROUP_INFO != 0,
            private_segment_wave_offset: rsrc2 & RSRC2_ENABLE_PRIVATE_SEGMENT != 0,
            workitem_id_dims,
            mode,
        })
    }
}

// Describing a descriptor serves `clif-util objdump` only.
#[cfg(feature = "test-support")]
/// The fields of the GFX6–GFX9 kernel descriptor `kd` (64 bytes) by name, with their values
/// as text, for `clif-util objdump`: every field of AMDGPUUsage's "Kernel Descriptor" and
/// `COMPUTE_PGM_RSRC1`/`RSRC2` layouts that GFX6–GFX9 define, whoever wrote the descriptor.
pub fn describe(kd: &[u8; SIZE]) -> Vec<(&'static str, String)> {
    let word = |at: usize| u32::from_le_bytes([kd[at], kd[at + 1], kd[at + 2], kd[at + 3]]);
    let bits = |value: u32, low: u32, width: u32| value >> low & ((1 << width) - 1);
    let (rsrc1, rsrc2) = (word(48), word(52));
    let properties = u32::from(u16::from_le_bytes([kd[56], kd[57]]));
    let entry = u64::from(word(16)) | u64::from(word(20)) << 32;
    let flag = |value: u32, bit: u32| bits(value, bit, 1).to_string();
    let enabled: Vec<&str> = [
        (0, "private_segment_buffer"),
        (1, "dispatch_ptr"),
        (2, "queue_ptr"),
        (3, "kernarg_segment_ptr"),
        (4, "dispatch_id"),
        (5, "flat_scratch_init"),
        (6, "private_segment_size"),
    ]
    .into_iter()
    .filter(|&(bit, _)| bits(properties, bit, 1) != 0)
    .map(|(_, name)| name)
    .collect();
    let workgroup_ids: String = ["x", "y", "z"]
        .iter()
        .enumerate()
        .filter(|&(i, _)| bits(rsrc2, RSRC2_ENABLE_SGPR_WORKGROUP_ID_X + i as u32, 1) != 0)
        .map(|(_, d)| *d)
        .collect();
    vec![
        ("group_segment_fixed_size", word(0).to_string()),
        ("private_segment_fixed_size", word(4).to_string()),
        ("kernarg_size", word(8).to_string()),
        ("kernel_code_entry_byte_offset", format!("{entry:#x}")),
        ("compute_pgm_rsrc1", format!("{rsrc1:#010x}")),
        (
            "  vgprs (granules of 4)",
            (4 * (bits(rsrc1, RSRC1_VGPR_GRANULES, 6) + 1)).to_string(),
        ),
        (
            "  sgprs (granules of 8)",
            (8 * (bits(rsrc1, RSRC1_SGPR_GRANULES, 4) + 1)).to_string(),
        ),
        ("  priority", bits(rsrc1, 10, 2).to_string()),
        ("  float_round_mode_32", bits(rsrc1, 12, 2).to_string()),
        ("  float_round_mode_16_64", bits(rsrc1, 14, 2).to_string()),
        (
            "  float_denorm_mode_32",
            bits(rsrc1, RSRC1_FLOAT_DENORM_MODE_32, 2).to_string(),
        ),
        (
            "  float_denorm_mode_16_64",
            bits(rsrc1, RSRC1_FLOAT_DENORM_MODE_16_64, 2).to_string(),
        ),
        ("  priv", flag(rsrc1, 20)),
        ("  enable_dx10_clamp", flag(rsrc1, 21)),
        ("  debug_mode", flag(rsrc1, 22)),
        ("  enable_ieee_mode", flag(rsrc1, 23)),
        ("compute_pgm_rsrc2", format!("{rsrc2:#010x}")),
        (
            "  enable_private_segment (scratch wave offset)",
            flag(rsrc2, 0),
        ),
        (
            "  user_sgpr_count",
            bits(rsrc2, RSRC2_USER_SGPR_COUNT, 5).to_string(),
        ),
        ("  enable_trap_handler", flag(rsrc2, 6)),
        ("  enable_sgpr_workgroup_id", workgroup_ids),
        ("  enable_sgpr_workgroup_info", flag(rsrc2, 10)),
        (
            "  enable_vgpr_workitem_id (dimensions - 1)",
            bits(rsrc2, RSRC2_ENABLE_VGPR_WORKITEM_ID, 2).to_string(),
        ),
        ("  granulated_lds_size", bits(rsrc2, 15, 9).to_string()),
        ("  enable_exceptions", format!("{:#x}", bits(rsrc2, 24, 7))),
        ("kernel_code_properties", format!("{properties:#06x}")),
        ("  enable_sgpr", enabled.join(" ")),
        ("  enable_wavefront_size32", flag(properties, 10)),
        ("  uses_dynamic_stack", flag(properties, 11)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::abi::KernelInputs;

    /// llc-19's descriptor of bench/kernels/vadd.ll for gfx803 has `COMPUTE_PGM_RSRC1`
    /// 0x00af0041 for 5 VGPRs and 12 SGPRs, and `COMPUTE_PGM_RSRC2` 0x90 for 8 user SGPRs
    /// and the work-group id x: the same float mode and granules here.
    #[test]
    fn fields_match_llc_for_the_same_counts() {
        let info = GcnInfo {
            vgprs: 5,
            sgprs: 10,
            uses_vcc: true,
            kernarg_size: 24,
            inputs: KernelInputs {
                dispatch_ptr: true,
                kernarg_segment_ptr: true,
                workgroup_id: [true, false, false],
                workitem_id_vgprs: 1,
                private_segment: false,
                pixel: None,
                vertex: None,
            },
            group_segment_size: 0,
            private_segment_size: 0,
            sgpr_spills: 0,
            vgpr_spills: 0,
            calls: Vec::new(),
            indirect_calls: Vec::new(),
        };
        let registers = RegisterCounts::new(&info, None).unwrap();
        assert_eq!(
            registers,
            RegisterCounts {
                vgprs: 5,
                sgprs: 12
            }
        );
        let descriptor = KernelDescriptor::new(&info, registers);
        assert_eq!(descriptor.compute_pgm_rsrc1, 0x00af0041);
        // 4 user SGPRs (no private segment buffer: see docs/objects.md) instead of 8.
        assert_eq!(descriptor.compute_pgm_rsrc2, 0x88);
        assert_eq!(descriptor.kernel_code_properties, 0x0a);
        let bytes = descriptor.to_bytes();
        assert_eq!(&bytes[8..12], &24u32.to_le_bytes());
        assert_eq!(&bytes[48..52], &[0x41, 0x00, 0xaf, 0x00]);
    }

    #[test]
    fn the_sgpr_initialisation_bug_fixes_the_count() {
        let info = GcnInfo {
            vgprs: 1,
            sgprs: 4,
            uses_vcc: false,
            kernarg_size: 8,
            inputs: KernelInputs::default(),
            group_segment_size: 0,
            private_segment_size: 0,
            sgpr_spills: 0,
            vgpr_spills: 0,
            calls: Vec::new(),
            indirect_calls: Vec::new(),
        };
        let fixed = RegisterCounts::new(&info, Some(96)).unwrap();
        assert_eq!(fixed.sgprs, 96);
        assert_eq!(
            KernelDescriptor::new(&info, fixed).compute_pgm_rsrc1 >> 6 & 0xf,
            11
        );
        let many = GcnInfo {
            sgprs: 95,
            uses_vcc: true,
            ..info
        };
        assert!(RegisterCounts::new(&many, Some(96)).is_err());
    }
}
