//! The vertex-shader ABI on GCN (`docs/ir.md`, "Vertex-shader ABI"): the user data in
//! SGPRs from s0, the vertex and instance ids in v0 and v1, and the exports the shader
//! ends with (the position, the misc and clip-distance vectors, then the parameters packed
//! in increasing location order).

use super::abi::{Frame, KernelInputs, shader_user_sgprs, used_intrinsics};
use super::mc::ExpTarget;
use crate::intrinsics::{Intrinsic, Stage, iconst_value};
use crate::ir::{self, InstructionData};

/// A vertex shader's hardware inputs and exports: what the driver programs
/// `SPI_SHADER_PGM_RSRC1_VS.VGPR_COMP_CNT`, `SPI_SHADER_PGM_RSRC2_VS.USER_SGPR`,
/// `SPI_VS_OUT_CONFIG`, `SPI_SHADER_POS_FORMAT`, `PA_CL_VS_OUT_CNTL` and the fragment
/// shader's `SPI_PS_INPUT_CNTL_n` from.
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
    /// Position exports (`pos0`…): the clip-space position, then the misc vector when
    /// the point size is written, then the clip-distance vectors written
    /// ([`Self::position_vectors`]). `SPI_SHADER_POS_FORMAT` has POSn_EXPORT_FORMAT = 4
    /// components for n below this, none for the others.
    pub positions: u8,
    /// Whether the shader writes the point size (channel x of the misc vector).
    pub point_size: bool,
    /// Bit n set when the shader writes clip distance n: `PA_CL_VS_OUT_CNTL.CLIP_DIST_ENA_n`.
    pub clip_distances: u8,
}

/// What a position export after `pos0` carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PositionVector {
    /// The clip-space position (`pos0`).
    Position,
    /// The misc vector: the point size in x (y, z and w, the edge flag, layer and viewport
    /// index, are not written).
    Misc,
    /// Clip distances 4k to 4k + 3 in x to w (k = 0, 1).
    ClipDistances(u8),
}

impl VertexInputs {
    /// The inputs and exports of vertex shader `func`.
    pub fn of(func: &ir::Function) -> Result<VertexInputs, String> {
        let mut inputs = VertexInputs {
            user_sgprs: shader_user_sgprs(func, "vertex")?,
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
                // `intrinsics::check_stage` made the location and index `iconst`s in range.
                let constant = || iconst_value(func, func.dfg.inst_args(inst)[0]);
                match Intrinsic::from_func_ref(func, func_ref) {
                    Some(Intrinsic::OutputParam) => {
                        inputs.params |= 1 << constant().expect("checked location");
                    }
                    Some(Intrinsic::OutputPointSize) => inputs.point_size = true,
                    Some(Intrinsic::OutputClipDistance) => {
                        inputs.clip_distances |= 1 << constant().expect("checked index");
                    }
                    _ => {}
                }
            }
        }
        inputs.positions = inputs.position_vectors().len() as u8;
        Ok(inputs)
    }

    /// The position exports in order, `pos0` first: the position, the misc vector when the
    /// point size is written, clip distances 0–3 when any of them is, then 4–7 when any of
    /// them is. ACO's order; the hardware tells the vectors apart by the
    /// `PA_CL_VS_OUT_CNTL` bits ([`Self::pa_cl_vs_out_cntl`]), not by their numbers.
    pub fn position_vectors(&self) -> Vec<PositionVector> {
        let mut out = vec![PositionVector::Position];
        if self.point_size {
            out.push(PositionVector::Misc);
        }
        for k in 0..2 {
            if self.clip_distances >> (4 * k) & 0xf != 0 {
                out.push(PositionVector::ClipDistances(k));
            }
        }
        out
    }

    /// The `PA_CL_VS_OUT_CNTL` bits the shader's exports need: CLIP_DIST_ENA_n (bits
    /// 0–7) for each clip distance written, USE_VTX_POINT_SIZE (16) and
    /// VS_OUT_MISC_VEC_ENA (21) with the point size, VS_OUT_CCDIST0_VEC_ENA (22) and
    /// VS_OUT_CCDIST1_VEC_ENA (23) with each clip-distance vector (as RADV sets them).
    pub fn pa_cl_vs_out_cntl(&self) -> u32 {
        let mut bits = u32::from(self.clip_distances);
        if self.point_size {
            bits |= 1 << 16 | 1 << 21;
        }
        if self.clip_distances & 0x0f != 0 {
            bits |= 1 << 22;
        }
        if self.clip_distances & 0xf0 != 0 {
            bits |= 1 << 23;
        }
        bits
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

    /// The exports in the order the shader makes them: the position vectors (the last
    /// with `done`), then the parameters.
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

    /// The driver's view of the exports: `pos0, pos1 = point size, pos2 = clip distances
    /// 0–3, param0 = location 2, …`.
    pub fn exports(&self) -> String {
        let positions = self
            .position_vectors()
            .into_iter()
            .enumerate()
            .map(|(p, vector)| match vector {
                PositionVector::Position => format!("pos{p}"),
                PositionVector::Misc => format!("pos{p} = point size"),
                PositionVector::ClipDistances(k) => {
                    format!("pos{p} = clip distances {}–{}", 4 * k, 4 * k + 3)
                }
            });
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

    #[test]
    fn misc_and_clip_vectors_follow_the_position() {
        let only_high = VertexInputs {
            clip_distances: 1 << 5,
            ..VertexInputs::default()
        };
        assert_eq!(
            only_high.position_vectors(),
            [PositionVector::Position, PositionVector::ClipDistances(1)]
        );
        assert_eq!(only_high.pa_cl_vs_out_cntl(), 1 << 5 | 1 << 23);
        let all = VertexInputs {
            point_size: true,
            clip_distances: 0x11,
            positions: 4,
            ..VertexInputs::default()
        };
        assert_eq!(
            all.position_vectors(),
            [
                PositionVector::Position,
                PositionVector::Misc,
                PositionVector::ClipDistances(0),
                PositionVector::ClipDistances(1)
            ]
        );
        assert_eq!(all.pa_cl_vs_out_cntl(), 0x00e1_0011);
        assert_eq!(
            all.exports(),
            "pos0, pos1 = point size, pos2 = clip distances 0–3, pos3 = clip distances 4–7"
        );
    }
}
