//! The vertex-shader ABI on GCN (`docs/ir.md`, "Vertex-shader ABI"): the user data in
//! SGPRs from s0, the vertex and instance ids in v0 and v1, and the exports the shader
//! ends with (the position, then the parameters packed in increasing location order).

use super::abi::{Frame, KernelInputs, shader_user_sgprs, used_intrinsics};
use super::mc::ExpTarget;
use crate::intrinsics::{Intrinsic, Stage, iconst_value};
use crate::ir::{self, InstructionData};

/// A vertex shader's hardware inputs and exports: what the driver programs
/// `SPI_SHADER_PGM_RSRC1_VS.VGPR_COMP_CNT`, `SPI_SHADER_PGM_RSRC2_VS.USER_SGPR`,
/// `SPI_VS_OUT_CONFIG`, `SPI_SHADER_POS_FORMAT` and the fragment shader's
/// `SPI_PS_INPUT_CNTL_n` from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexInputs {
    /// SGPRs of user data from s0.
    pub user_sgprs: u16,
    /// `VGPR_COMP_CNT`: the VGPRs the hardware loads after v0 (the vertex id): 1 when the
    /// shader reads the instance id (v1), else 0.
    pub vgpr_comp_cnt: u8,
    /// Bit L set when the shader writes parameter location L. The parameters are exported
    /// packed, in increasing location order: location L goes to `param`
    /// [`Self::param_index`]`(L)`, the OFFSET the driver puts in the
    /// `SPI_PS_INPUT_CNTL_n` of the fragment input reading location L.
    pub params: u32,
    /// Position exports (`pos0`…): 1, the clip-space position (`SPI_SHADER_POS_FORMAT`
    /// POS0_EXPORT_FORMAT = 4 components; the others none).
    pub positions: u8,
}

impl VertexInputs {
    /// The inputs and exports of vertex shader `func`.
    pub fn of(func: &ir::Function) -> Result<VertexInputs, String> {
        let mut inputs = VertexInputs {
            user_sgprs: shader_user_sgprs(func, "vertex")?,
            positions: 1,
            ..VertexInputs::default()
        };
        if used_intrinsics(func).contains(&Intrinsic::InstanceId) {
            inputs.vgpr_comp_cnt = 1;
        }
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                    continue;
                };
                if Intrinsic::from_func_ref(func, func_ref) == Some(Intrinsic::OutputParam) {
                    // `intrinsics::check_stage` made it an `iconst` in 0–31.
                    let location = iconst_value(func, func.dfg.inst_args(inst)[0]);
                    inputs.params |= 1 << location.expect("checked location");
                }
            }
        }
        Ok(inputs)
    }

    /// The export index (`paramN`) of parameter `location`: how many written locations
    /// are below it.
    pub fn param_index(&self, location: u8) -> u8 {
        (self.params & ((1u32 << location) - 1)).count_ones() as u8
    }

    /// The parameter locations in export order (`param0` first).
    pub fn param_locations(&self) -> impl Iterator<Item = u8> + '_ {
        (0..32).filter(|l| self.params >> l & 1 != 0)
    }

    /// Parameters exported: `SPI_VS_OUT_CONFIG.VS_EXPORT_COUNT` is this minus one (at
    /// least 0: RADV programs one parameter for a shader that exports none).
    pub fn param_count(&self) -> u32 {
        self.params.count_ones()
    }

    /// The exports in the order the shader makes them: the position (`done`), then the
    /// parameters.
    pub fn export_targets(&self) -> Vec<ExpTarget> {
        (0..self.positions)
            .map(ExpTarget::Pos)
            .chain((0..self.param_count() as u8).map(ExpTarget::Param))
            .collect()
    }

    /// The registers the hardware initialises, with what they hold.
    pub fn registers(&self) -> Vec<(String, &'static str)> {
        let mut out = Vec::new();
        match self.user_sgprs {
            0 => {}
            1 => out.push(("s0".to_string(), "user data")),
            n => out.push((format!("s[0:{}]", n - 1), "user data")),
        }
        out.push(("v0".to_string(), "vertex id"));
        if self.vgpr_comp_cnt > 0 {
            out.push(("v1".to_string(), "instance id"));
        }
        out
    }

    /// The driver's view of the exports: `pos0, param0 = location 2, …`.
    pub fn exports(&self) -> String {
        let positions = (0..self.positions).map(|p| format!("pos{p}"));
        let params = self
            .param_locations()
            .enumerate()
            .map(|(n, l)| format!("param{n} = location {l}"));
        positions.chain(params).collect::<Vec<_>>().join(", ")
    }
}

/// A vertex shader's frame (`Frame::shader`): the user data are the reserved SGPRs.
pub fn frame(func: &ir::Function) -> Result<Frame, String> {
    let vertex = VertexInputs::of(func)?;
    let inputs = KernelInputs {
        vertex: Some(vertex),
        ..KernelInputs::default()
    };
    Frame::shader(func, Stage::Vertex, inputs, vertex.user_sgprs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_pack_in_location_order() {
        let inputs = VertexInputs {
            params: 1 << 1 | 1 << 4 | 1 << 9,
            positions: 1,
            ..VertexInputs::default()
        };
        assert_eq!(inputs.param_index(1), 0);
        assert_eq!(inputs.param_index(4), 1);
        assert_eq!(inputs.param_index(9), 2);
        assert_eq!(
            inputs.export_targets(),
            [
                ExpTarget::Pos(0),
                ExpTarget::Param(0),
                ExpTarget::Param(1),
                ExpTarget::Param(2)
            ]
        );
        assert_eq!(
            inputs.exports(),
            "pos0, param0 = location 1, param1 = location 4, param2 = location 9"
        );
    }
}
