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
            user_data: super::user_data_words(&func.signature),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_then_ids_outputs_by_location() {
        let text = "function %vs() system_v {
    fn0 = %wavelift_stage_vertex()
    fn1 = %wavelift_vertex_input(i32, i32) -> f32
    fn2 = %wavelift_instance_id() -> i32
    fn3 = %wavelift_output_position(f32, f32, f32, f32)
    fn4 = %wavelift_output_param(i32, f32, f32, f32, f32)
block0:
    v0 = iconst.i32 9
    v1 = iconst.i32 3
    v2 = iconst.i32 0
    v3 = call fn1(v0, v1)
    v4 = call fn1(v2, v2)
    v5 = call fn2()
    v6 = bitcast.f32 v5
    call fn3(v3, v4, v6, v6)
    call fn4(v0, v3, v3, v3, v3)
    call fn4(v1, v4, v4, v4, v4)
    return
}";
        let info = VertexInfo::of(&cranelift_reader::parse_functions(text).unwrap()[0]).unwrap();
        assert_eq!(info.inputs, [(0, 0), (9, 3)]);
        assert_eq!(info.input_offset(9, 3), Some(0x4));
        assert!(!info.vertex_id && info.instance_id);
        assert_eq!(info.instance_id_offset(), 0x8);
        assert_eq!(info.input_words(), 3);
        assert_eq!(info.attr_en(), [0x1, 0x8 << 4]);
        assert_eq!(info.param_offset(3), Some(0x10));
        assert_eq!(info.param_offset(9), Some(0x20));
        assert_eq!(info.output_words(), 12);
    }
}
