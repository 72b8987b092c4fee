//! The code object's metadata: a MessagePack map in an `NT_AMDGPU_METADATA` note (LLVM's
//! AMDGPUUsage, "Code Object V5 Metadata"), with the fields the ROCm runtime reads.

use crate::CodeObjectVersion;

/// The note type of the metadata (LLVM's `NT_AMDGPU_METADATA`).
pub const NT_AMDGPU_METADATA: u32 = 32;

/// `amdhsa.version` of code object version 5.
const VERSION: [u64; 2] = [1, 2];
/// `amdhsa.version` of code object version 4.
const VERSION_V4: [u64; 2] = [1, 1];

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
    /// `.sgpr_spill_count`, `.vgpr_spill_count`: the dwords spilled to memory.
    pub sgpr_spill_count: u32,
    pub vgpr_spill_count: u32,
    pub vgpr_count: u32,
    pub max_flat_workgroup_size: u32,
}

/// One kernel argument: where it is in the kernarg segment and what it is.
pub struct ArgMetadata {
    pub offset: u32,
    pub size: u32,
    pub kind: crate::ArgKind,
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
    fn value(&self, version: CodeObjectVersion) -> Value {
        let uint = |n: u32| Value::Uint(n.into());
        let args = self
            .args
            .iter()
            .map(|arg| {
                let mut entries = vec![(".offset", uint(arg.offset)), (".size", uint(arg.size))];
                match arg.kind {
                    crate::ArgKind::GlobalBuffer => {
                        entries.push((".address_space", Value::Str("global".into())));
                        entries.push((".value_kind", Value::Str("global_buffer".into())));
                    }
                    _ => entries.push((".value_kind", Value::Str("by_value".into()))),
                }
                Value::Map(entries)
            })
            .collect();
        let mut entries = vec![
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
            (".sgpr_count", uint(self.sgpr_count)),
            (".vgpr_count", uint(self.vgpr_count)),
            (".sgpr_spill_count", uint(self.sgpr_spill_count)),
            (".vgpr_spill_count", uint(self.vgpr_spill_count)),
            (
                ".max_flat_workgroup_size",
                uint(self.max_flat_workgroup_size),
            ),
            (".wavefront_size", uint(64)),
        ];
        if version == CodeObjectVersion::V5 {
            // Version 5 only: the kernel calls nothing that grows the stack.
            entries.push((".uses_dynamic_stack", Value::Bool(false)));
        }
        Value::Map(entries)
    }
}

/// The metadata map of a code object for `target_id` (`amdgcn-amd-amdhsa--gfx803`) with
/// `kernels`, as MessagePack.
pub fn encode(target_id: &str, kernels: &[KernelMetadata], version: CodeObjectVersion) -> Vec<u8> {
    let numbers = match version {
        CodeObjectVersion::V4 => VERSION_V4,
        CodeObjectVersion::V5 => VERSION,
    };
    let map = Value::Map(vec![
        (
            "amdhsa.version",
            Value::Array(numbers.iter().map(|&n| Value::Uint(n)).collect()),
        ),
        ("amdhsa.target", Value::Str(target_id.to_string())),
        (
            "amdhsa.kernels",
            Value::Array(kernels.iter().map(|k| k.value(version)).collect()),
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

// Reading code objects serves `clif-util objdump`, the simulator and tests.
#[cfg(feature = "test-support")]
/// A MessagePack value read back by [`decode`] (the writer's `Value` holds only what
/// wavelift writes).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Nil,
    Bool(bool),
    /// Every integer, signed or not, that fits an `i128`.
    Int(i128),
    Str(String),
    Array(Vec<Node>),
    /// Key-value pairs in the document's order.
    Map(Vec<(Node, Node)>),
}

#[cfg(feature = "test-support")]
impl Node {
    /// The value of `key` in a map with string keys.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(pairs) => pairs
                .iter()
                .find(|(k, _)| matches!(k, Node::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Node::Int(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match self {
            Node::Array(items) => Some(items),
            _ => None,
        }
    }
}

#[cfg(feature = "test-support")]
/// The MessagePack document `bytes` (any, also one another compiler wrote): exactly one
/// value, of the kinds the AMDGPU metadata uses (no floats, binaries or extensions).
pub fn decode(bytes: &[u8]) -> Result<Node, String> {
    let mut rest = bytes;
    let value = decode_value(&mut rest)?;
    if !rest.is_empty() {
        return Err(format!("{} bytes after the metadata map", rest.len()));
    }
    Ok(value)
}

#[cfg(feature = "test-support")]
/// One value read from the front of `rest`, which moves past it.
fn decode_value(rest: &mut &[u8]) -> Result<Node, String> {
    use rmp::Marker;
    let bad = |what: &str| format!("malformed MessagePack: {what}");
    let marker = rmp::decode::read_marker(rest).map_err(|_| bad("truncated"))?;
    let take = |n: usize, rest: &mut &[u8]| -> Result<Vec<u8>, String> {
        if rest.len() < n {
            return Err(bad("truncated"));
        }
        let (head, tail) = rest.split_at(n);
        *rest = tail;
        Ok(head.to_vec())
    };
    let be = |b: &[u8]| b.iter().fold(0u64, |v, &x| v << 8 | x as u64);
    Ok(match marker {
        Marker::Null => Node::Nil,
        Marker::True => Node::Bool(true),
        Marker::False => Node::Bool(false),
        Marker::FixPos(n) => Node::Int(n.into()),
        Marker::FixNeg(n) => Node::Int(n.into()),
        Marker::U8 | Marker::U16 | Marker::U32 | Marker::U64 => {
            let n = 1 << (marker.to_u8() - Marker::U8.to_u8());
            Node::Int(be(&take(n, rest)?).into())
        }
        Marker::I8 | Marker::I16 | Marker::I32 | Marker::I64 => {
            let n = 1usize << (marker.to_u8() - Marker::I8.to_u8());
            let v = be(&take(n, rest)?);
            let shift = 64 - 8 * n as u32;
            Node::Int((((v << shift) as i64) >> shift).into())
        }
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
            let n = match marker {
                Marker::FixStr(n) => n as usize,
                _ => {
                    let width = 1 << (marker.to_u8() - Marker::Str8.to_u8());
                    be(&take(width, rest)?) as usize
                }
            };
            Node::Str(String::from_utf8(take(n, rest)?).map_err(|_| bad("a string not UTF-8"))?)
        }
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
            let n = match marker {
                Marker::FixArray(n) => n as usize,
                Marker::Array16 => be(&take(2, rest)?) as usize,
                _ => be(&take(4, rest)?) as usize,
            };
            // Each item takes at least a byte: a count past the bytes left is malformed.
            if n > rest.len() {
                return Err(bad("truncated"));
            }
            Node::Array(
                (0..n)
                    .map(|_| decode_value(rest))
                    .collect::<Result<_, _>>()?,
            )
        }
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
            let n = match marker {
                Marker::FixMap(n) => n as usize,
                Marker::Map16 => be(&take(2, rest)?) as usize,
                _ => be(&take(4, rest)?) as usize,
            };
            if n > rest.len() {
                return Err(bad("truncated"));
            }
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let key = decode_value(rest)?;
                pairs.push((key, decode_value(rest)?));
            }
            Node::Map(pairs)
        }
        other => return Err(bad(&format!("unsupported marker {other:?}"))),
    })
}

#[cfg(feature = "test-support")]
/// The metadata MessagePack `bytes` as indented text, one `key: value` per line (maps and
/// arrays nested by two spaces, array items marked `-`), for `clif-util objdump`: any
/// MessagePack document, also one another compiler wrote.
pub fn render(bytes: &[u8]) -> Result<String, String> {
    let mut out = String::new();
    render_value(&decode(bytes)?, 0, &mut out);
    // A map or an array starts on the line after its key (or `-`).
    Ok(out
        .lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect())
}

#[cfg(feature = "test-support")]
/// `value` written after a key or a `-` already on the line: a scalar on that line, a map
/// or an array on the next lines.
fn render_value(value: &Node, indent: usize, out: &mut String) {
    let line = |out: &mut String, text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    match value {
        Node::Nil => line(out, "null"),
        Node::Bool(b) => line(out, &b.to_string()),
        Node::Int(n) => line(out, &n.to_string()),
        Node::Str(s) => line(out, s),
        Node::Array(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&" ".repeat(indent));
                out.push_str("- ");
                render_value(item, indent + 2, out);
            }
        }
        Node::Map(pairs) => {
            if indent > 0 || !out.is_empty() {
                out.push('\n');
            }
            for (key, item) in pairs {
                out.push_str(&" ".repeat(indent));
                let mut text = String::new();
                render_value(key, indent + 2, &mut text);
                out.push_str(text.trim_end());
                out.push_str(": ");
                render_value(item, indent + 2, out);
            }
        }
    }
}
