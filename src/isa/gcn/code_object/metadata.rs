//! The code object's metadata: a MessagePack map in an `NT_AMDGPU_METADATA` note (LLVM's
//! AMDGPUUsage, "Code Object V5 Metadata"), with the fields the ROCm runtime reads.

/// The note type of the metadata (LLVM's `NT_AMDGPU_METADATA`).
pub const NT_AMDGPU_METADATA: u32 = 32;

/// `amdhsa.version` of code object version 5.
const VERSION: [u64; 2] = [1, 2];

/// One kernel's entry in `amdhsa.kernels`.
pub struct KernelMetadata {
    /// `.name`: the kernel's name.
    pub name: String,
    /// `.args`: each argument's offset and size in the kernarg segment.
    pub args: Vec<ArgMetadata>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    pub max_flat_workgroup_size: u32,
}

/// One kernel argument. Its `.value_kind` is `by_value`: plain CLIF cannot say that an `i64`
/// is a global buffer's address (`docs/objects.md`).
pub struct ArgMetadata {
    pub offset: u32,
    pub size: u32,
}

/// A MessagePack value, as much of it as the metadata needs.
enum Value {
    Str(String),
    Uint(u64),
    Bool(bool),
    Array(Vec<Value>),
    Map(Vec<(&'static str, Value)>),
}

impl Value {
    fn encode(&self, out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail.
        const WRITE: &str = "writing to a Vec";
        match self {
            Value::Str(s) => rmp::encode::write_str(out, s).expect(WRITE),
            Value::Uint(n) => {
                rmp::encode::write_uint(out, *n).expect(WRITE);
            }
            Value::Bool(b) => rmp::encode::write_bool(out, *b).expect(WRITE),
            Value::Array(items) => {
                rmp::encode::write_array_len(out, items.len() as u32).expect(WRITE);
                items.iter().for_each(|item| item.encode(out));
            }
            Value::Map(entries) => {
                rmp::encode::write_map_len(out, entries.len() as u32).expect(WRITE);
                for (key, value) in entries {
                    rmp::encode::write_str(out, key).expect(WRITE);
                    value.encode(out);
                }
            }
        }
    }
}

impl KernelMetadata {
    fn value(&self) -> Value {
        let uint = |n: u32| Value::Uint(n.into());
        let args = self
            .args
            .iter()
            .map(|arg| {
                Value::Map(vec![
                    (".offset", uint(arg.offset)),
                    (".size", uint(arg.size)),
                    (".value_kind", Value::Str("by_value".into())),
                ])
            })
            .collect();
        Value::Map(vec![
            (".name", Value::Str(self.name.clone())),
            (".symbol", Value::Str(format!("{}.kd", self.name))),
            (".args", Value::Array(args)),
            (".kernarg_segment_size", uint(self.kernarg_segment_size)),
            (".kernarg_segment_align", uint(self.kernarg_segment_align)),
            (
                ".group_segment_fixed_size",
                uint(self.group_segment_fixed_size),
            ),
            (
                ".private_segment_fixed_size",
                uint(self.private_segment_fixed_size),
            ),
            (".uses_dynamic_stack", Value::Bool(false)),
            (".sgpr_count", uint(self.sgpr_count)),
            (".vgpr_count", uint(self.vgpr_count)),
            (".sgpr_spill_count", uint(0)),
            (".vgpr_spill_count", uint(0)),
            (
                ".max_flat_workgroup_size",
                uint(self.max_flat_workgroup_size),
            ),
            (".wavefront_size", uint(64)),
        ])
    }
}

/// The metadata map of a code object for `target_id` (`amdgcn-amd-amdhsa--gfx803`) with
/// `kernels`, as MessagePack.
pub fn encode(target_id: &str, kernels: &[KernelMetadata]) -> Vec<u8> {
    let map = Value::Map(vec![
        (
            "amdhsa.version",
            Value::Array(VERSION.iter().map(|&n| Value::Uint(n)).collect()),
        ),
        ("amdhsa.target", Value::Str(target_id.to_string())),
        (
            "amdhsa.kernels",
            Value::Array(kernels.iter().map(KernelMetadata::value).collect()),
        ),
    ]);
    let mut out = Vec::new();
    map.encode(&mut out);
    out
}

/// An ELF note: name size, descriptor size, type, the name and the descriptor, each padded
/// to 4 bytes (the ELF gABI's note layout, which AMDGPU notes use in ELF64 too).
pub fn note(name: &str, note_type: u32, desc: &[u8]) -> Vec<u8> {
    let name_size = name.len() as u32 + 1;
    let mut out = Vec::new();
    out.extend_from_slice(&name_size.to_le_bytes());
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&note_type.to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.resize(out.len().next_multiple_of(4), 0);
    out.extend_from_slice(desc);
    out.resize(out.len().next_multiple_of(4), 0);
    out
}
