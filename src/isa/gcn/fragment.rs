//! The fragment-shader ABI on GCN (`docs/ir.md`, "Fragment-shader ABI"): the user data
//! and the primitive mask in SGPRs, the inputs the hardware puts in VGPRs (the
//! `SPI_PS_INPUT_ENA` bits), and the exports the shader ends with.

use super::abi::{Frame, KernelInputs, shader_user_sgprs, used_intrinsics};
use super::mc::ExpTarget;
use super::regs::{sgpr, sgpr_pair};
use crate::intrinsics::{InterpMode, Intrinsic, Stage, iconst_value};
use crate::ir::{self, InstructionData};
use crate::machinst::Reg;

/// `SPI_PS_INPUT_ENA` bits of the inputs besides the barycentrics (LLVM's
/// `SIMachineFunctionInfo` PS input numbering, the register's field order).
pub const POS_X: u32 = 8;
pub const FRONT_FACE: u32 = 12;

/// The input bit of an interpolation mode's barycentrics: PERSP_SAMPLE, _CENTER and
/// _CENTROID are bits 0–2, PERSP_PULL_MODEL bit 3, LINEAR_SAMPLE, _CENTER, _CENTROID bits
/// 4–6 ([`InterpMode::ALL`] is in this order).
pub fn barycentric_bit(mode: InterpMode) -> u32 {
    let index = InterpMode::ALL
        .iter()
        .position(|&m| m == mode)
        .expect("every mode is in InterpMode::ALL") as u32;
    if index < 3 { index } else { index + 1 }
}

/// The VGPRs input `bit` takes: an I, J pair per barycentric mode, three for the pull
/// model, one for everything else.
fn input_vgprs(bit: u32) -> u16 {
    match bit {
        0..=2 | 4..=6 => 2,
        3 => 3,
        _ => 1,
    }
}

/// A fragment shader's hardware inputs and exports: what the driver programs
/// `SPI_PS_INPUT_ENA`/`SPI_PS_INPUT_ADDR`, the user-data count and the colour and depth
/// formats from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PixelInputs {
    /// SGPRs of user data from s0; the primitive mask is in the next one.
    pub user_sgprs: u16,
    /// `SPI_PS_INPUT_ENA`, which `SPI_PS_INPUT_ADDR` equals: bit n set when input n is
    /// in VGPRs (packed in bit order from v0).
    pub input_ena: u32,
    /// Bit c set when the shader exports to the target of EXP code c (`mrt0`–`mrt7` are
    /// 0–7, `mrtz` 8); none: the shader exports only `null`.
    pub exports: u32,
    /// Bit n set when colour target n is exported compressed, four f16 channels in two
    /// VGPRs (`wavelift_output_color_f16`): its `SPI_SHADER_COL_FORMAT` field must be
    /// FP16_ABGR; the other exported targets' 32_ABGR.
    pub fp16_targets: u8,
    /// Whether the shader interpolates (and copies the primitive mask into M0).
    pub interpolates: bool,
    /// Whether it discards, keeping the lanes not discarded in [`Self::live_lanes`].
    pub discards: bool,
}

impl PixelInputs {
    /// The inputs and exports of fragment shader `func`.
    pub fn of(func: &ir::Function) -> Result<PixelInputs, String> {
        let mut inputs = PixelInputs {
            user_sgprs: shader_user_sgprs(func, "fragment")?,
            ..PixelInputs::default()
        };
        for intrinsic in used_intrinsics(func) {
            match intrinsic {
                Intrinsic::Interp(mode) => {
                    inputs.input_ena |= 1 << barycentric_bit(mode);
                    inputs.interpolates = true;
                }
                Intrinsic::Barycentric(mode) => inputs.input_ena |= 1 << barycentric_bit(mode),
                Intrinsic::InterpFlat | Intrinsic::InterpAt => inputs.interpolates = true,
                Intrinsic::FragCoord(c) => inputs.input_ena |= 1 << (POS_X + c as u32),
                Intrinsic::FrontFacing => inputs.input_ena |= 1 << FRONT_FACE,
                Intrinsic::Discard => inputs.discards = true,
                _ => {}
            }
        }
        // The hardware hangs without a PERSP or LINEAR pair, and needs a PERSP pair with
        // POS_W: LLVM then enables PERSP_SAMPLE, unread (`LowerFormalArguments`; llc-19
        // reports SPI_PS_INPUT_ENA 0x1001 for a shader reading only the front face).
        let pos_w = 1 << (POS_X + 3);
        if inputs.input_ena & 0x7f == 0
            || inputs.input_ena & 0xf == 0 && inputs.input_ena & pos_w != 0
        {
            inputs.input_ena |= 1;
        }
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                    continue;
                };
                let target = match Intrinsic::from_func_ref(func, func_ref) {
                    Some(color @ (Intrinsic::OutputColor | Intrinsic::OutputColorF16)) => {
                        let arg = func.dfg.inst_args(inst)[0];
                        // `intrinsics::check_stage` made it an `iconst` in 0–7.
                        let n = iconst_value(func, arg).expect("checked target") as u8;
                        if color == Intrinsic::OutputColorF16 {
                            inputs.fp16_targets |= 1 << n;
                        }
                        ExpTarget::Mrt(n)
                    }
                    Some(Intrinsic::OutputDepth) => ExpTarget::MrtZ,
                    _ => continue,
                };
                inputs.exports |= 1 << target.code();
            }
        }
        Ok(inputs)
    }

    /// The SGPR with the primitive mask.
    pub fn prim_mask(&self) -> Reg {
        sgpr(self.user_sgprs)
    }

    /// A discarding shader's lanes not discarded yet: an aligned SGPR pair after the
    /// primitive mask, outside the allocator (the linearized blocks set EXEC from their
    /// own masks; this one is what the exports run under).
    pub fn live_lanes(&self) -> Option<Reg> {
        self.discards
            .then(|| sgpr_pair((self.user_sgprs + 1).next_multiple_of(2)))
    }

    /// The SGPRs the hardware's inputs and the live-lane pair take, which the allocator
    /// leaves alone.
    pub fn reserved_sgprs(&self) -> u16 {
        match self.live_lanes() {
            Some(pair) => pair.hw() + 2,
            None => self.user_sgprs + 1,
        }
    }

    /// The first VGPR of input `bit`, when it is enabled.
    pub fn input_vgpr(&self, bit: u32) -> Option<u16> {
        (self.input_ena >> bit & 1 != 0).then(|| {
            (0..bit)
                .filter(|b| self.input_ena >> b & 1 != 0)
                .map(input_vgprs)
                .sum()
        })
    }

    /// The VGPRs the enabled inputs take.
    pub fn input_vgpr_count(&self) -> u16 {
        (0..16)
            .filter(|b| self.input_ena >> b & 1 != 0)
            .map(input_vgprs)
            .sum()
    }

    /// The exports in the order the shader makes them: depth, then the colour targets in
    /// increasing order; `null` alone when there are none.
    pub fn export_targets(&self) -> Vec<ExpTarget> {
        let mut targets: Vec<ExpTarget> = std::iter::once(ExpTarget::MrtZ)
            .chain((0..8).map(ExpTarget::Mrt))
            .filter(|t| self.exports >> t.code() & 1 != 0)
            .collect();
        if targets.is_empty() {
            targets.push(ExpTarget::Null);
        }
        targets
    }

    /// Each exported colour target's `SPI_SHADER_COL_FORMAT` field, in increasing order.
    pub fn color_formats(&self) -> Vec<(u8, &'static str)> {
        (0..8)
            .filter(|&n| self.exports >> n & 1 != 0)
            .map(|n| {
                let format = if self.fp16_targets >> n & 1 != 0 {
                    "FP16_ABGR"
                } else {
                    "32_ABGR"
                };
                (n, format)
            })
            .collect()
    }

    /// The registers the hardware initialises, with what they hold.
    pub fn registers(&self) -> Vec<(String, &'static str)> {
        const NAMES: [&str; 16] = [
            "persp_sample I, J",
            "persp_center I, J",
            "persp_centroid I, J",
            "persp_pull_model",
            "linear_sample I, J",
            "linear_center I, J",
            "linear_centroid I, J",
            "line_stipple",
            "pos_x",
            "pos_y",
            "pos_z",
            "pos_w",
            "front_face",
            "ancillary",
            "sample_coverage",
            "pos_fixed_pt",
        ];
        let mut out = Vec::new();
        match self.user_sgprs {
            0 => {}
            1 => out.push(("s0".to_string(), "user data")),
            n => out.push((format!("s[0:{}]", n - 1), "user data")),
        }
        out.push((format!("s{}", self.user_sgprs), "primitive mask"));
        for (bit, name) in NAMES.iter().enumerate() {
            if let Some(first) = self.input_vgpr(bit as u32) {
                let count = input_vgprs(bit as u32);
                let regs = match count {
                    1 => format!("v{first}"),
                    _ => format!("v[{first}:{}]", first + count - 1),
                };
                out.push((regs, *name));
            }
        }
        out
    }
}

/// A fragment shader's frame (`Frame::shader`): user data and the primitive mask are the
/// reserved SGPRs.
pub fn frame(func: &ir::Function) -> Result<Frame, String> {
    let pixel = PixelInputs::of(func)?;
    let inputs = KernelInputs {
        pixel: Some(pixel),
        ..KernelInputs::default()
    };
    Frame::shader(func, Stage::Fragment, inputs, pixel.reserved_sgprs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_pack_in_bit_order() {
        // persp_center, linear_center, pos_x, front_face.
        let inputs = PixelInputs {
            input_ena: 1 << 1 | 1 << 5 | 1 << POS_X | 1 << FRONT_FACE,
            ..PixelInputs::default()
        };
        assert_eq!(inputs.input_vgpr(1), Some(0));
        assert_eq!(inputs.input_vgpr(5), Some(2));
        assert_eq!(inputs.input_vgpr(POS_X), Some(4));
        assert_eq!(inputs.input_vgpr(FRONT_FACE), Some(5));
        assert_eq!(inputs.input_vgpr(0), None);
        assert_eq!(inputs.input_vgpr_count(), 6);
    }

    #[test]
    fn exports_put_depth_first() {
        let inputs = PixelInputs {
            exports: 1 << 8 | 1 << 2 | 1,
            ..PixelInputs::default()
        };
        assert_eq!(
            inputs.export_targets(),
            [ExpTarget::MrtZ, ExpTarget::Mrt(0), ExpTarget::Mrt(2)]
        );
        assert_eq!(PixelInputs::default().export_targets(), [ExpTarget::Null]);
    }
}
