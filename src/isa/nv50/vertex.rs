//! Vertex programs' ABI on NV50 (`docs/ir.md`, "Vertex-program ABI (NV50)"): where each
//! input is in `a[]` and each output in `o[]`, and what the driver must be told, laid out
//! as nouveau's `nv50_vertprog_assign_slots` does (`docs/nv50.md`, "Vertex programs").

use crate::intrinsics::{Intrinsic, iconst_value};
use crate::ir;

/// Attributes the vertex-fetch unit gives (`VP_ATTR_EN`: two words of eight 4-bit masks).
pub const ATTRIBUTES: u8 = 16;

/// What a vertex program reads and writes, for its code and for the driver's `VP_ATTR_EN`,
/// `VP_GP_BUILTIN_ATTR_EN`, `VP_REG_ALLOC_RESULT` and `VP_RESULT_MAP`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexInfo {
    /// The input words read, (location, component), in `a[]` order from `a[0x0]`: by
    /// location, then component (each attribute's read components packed).
    pub inputs: Vec<(u8, u8)>,
    /// Whether the vertex id is read: the `a[]` word after the attributes
    /// (`VP_GP_BUILTIN_ATTR_EN` bit 0).
    pub vertex_id: bool,
    /// Whether the instance id is read: the word after that (bit 4).
    pub instance_id: bool,
    /// The parameters written, by location: parameter k of this list in `o[0x10 + 16k]`
    /// (four words), after the position in `o[0x0]`…`o[0xc]`.
    pub params: Vec<u8>,
    /// Words of user data in `c0[]`, as for fragment programs.
    pub user_data: u32,
}

impl VertexInfo {
    /// The inputs and outputs of `func` (a vertex shader); Err: why they cannot be placed.
    pub fn of(func: &ir::Function) -> Result<VertexInfo, String> {
        let mut info = VertexInfo {
            inputs: Vec::new(),
            vertex_id: false,
            instance_id: false,
            params: Vec::new(),
            user_data: func
                .signature
                .params
                .iter()
                .map(|p| p.value_type.bytes().div_ceil(4))
                .sum(),
        };
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                    continue;
                };
                let args = func.dfg.inst_args(inst);
                let constant = |k: usize| args.get(k).and_then(|&a| iconst_value(func, a));
                match Intrinsic::from_func_ref(func, func_ref) {
                    Some(Intrinsic::VertexInput) => {
                        if let (Some(l), Some(c)) = (constant(0), constant(1)) {
                            if l >= ATTRIBUTES as u32 {
                                return Err(format!(
                                    "vertex input {l}: NV50's vertex fetch gives attributes \
                                     0–{}",
                                    ATTRIBUTES - 1
                                ));
                            }
                            info.inputs.push((l as u8, c as u8));
                        }
                    }
                    Some(Intrinsic::VertexId) => info.vertex_id = true,
                    Some(Intrinsic::InstanceId) => info.instance_id = true,
                    Some(Intrinsic::OutputParam) => {
                        if let Some(l) = constant(0) {
                            info.params.push(l as u8);
                        }
                    }
                    _ => {}
                }
            }
        }
        info.inputs.sort();
        info.inputs.dedup();
        info.params.sort();
        info.params.dedup();
        Ok(info)
    }

    /// The `a[]` byte offset of an input word.
    pub fn input_offset(&self, location: u8, component: u8) -> Option<u32> {
        let k = self
            .inputs
            .iter()
            .position(|&i| i == (location, component))?;
        Some(4 * k as u32)
    }

    /// The `a[]` byte offset of the vertex id.
    pub fn vertex_id_offset(&self) -> u32 {
        4 * self.inputs.len() as u32
    }

    /// The `a[]` byte offset of the instance id.
    pub fn instance_id_offset(&self) -> u32 {
        self.vertex_id_offset() + 4 * self.vertex_id as u32
    }

    /// The `a[]` words the vertex fetch fills.
    pub fn input_words(&self) -> u32 {
        self.instance_id_offset() / 4 + self.instance_id as u32
    }

    /// The `o[]` byte offset of parameter `location`'s first word.
    pub fn param_offset(&self, location: u8) -> Option<u32> {
        let k = self.params.iter().position(|&l| l == location)?;
        Some(16 + 16 * k as u32)
    }

    /// `VP_REG_ALLOC_RESULT`: the output words, the position's four included.
    pub fn output_words(&self) -> u32 {
        4 + 4 * self.params.len() as u32
    }

    /// `VP_ATTR_EN` 0 and 1: attribute n's read components in bits 4(n mod 8).. of word
    /// n / 8.
    pub fn attr_en(&self) -> [u32; 2] {
        let mut en = [0; 2];
        for &(l, c) in &self.inputs {
            en[l as usize / 8] |= 1 << (4 * (l as u32 % 8) + c as u32);
        }
        en
    }
}
