//! A fragment shader's wave from a scene, as the hardware would start it (`docs/ir.md`,
//! "Fragment-shader ABI"): each primitive's parameters P0, P10, P20 in LDS at the layout
//! `interp.rs` reads, the user data and M0's value (the new-primitive mask, parameters
//! from LDS byte 0) in the SGPRs from s0, the enabled inputs in the VGPRs from v0 in
//! `SPI_PS_INPUT_ENA` order; and its exports, lane by lane.

use super::interp::{self, Exported};
use super::lds::Lds;
use super::program::Program;
use super::wave::{Env, State, Wave};
use crate::CompiledCode;
use crate::intrinsics::InterpMode;
use crate::isa::gcn::fragment::{FRONT_FACE, POS_X, barycentric_bit};
use crate::isa::gcn::mc::{ExpTarget, Gen, InterpParam};
use crate::sim::{Color, FragmentOutputs, Memory, Options, Scene, SimError, Stats, Violation};

fn error(reason: String) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation: Violation::Other(reason),
    }
}

/// M0 for `scene`: bit 16 + q - 1 set where quad q starts a new primitive, the parameters
/// from LDS byte 0. Refuses quads that do not go through the primitives in order.
fn prim_mask(scene: &Scene) -> Result<u32, SimError> {
    if scene.quads.len() != 16 || scene.quads[0] != 0 {
        return Err(error(
            "a scene gives the primitive of each of the wave's 16 quads, 0 first".into(),
        ));
    }
    let mut mask = 0;
    for q in 1..16 {
        match scene.quads[q].checked_sub(scene.quads[q - 1]) {
            Some(0) => {}
            Some(1) => mask |= 1 << (16 + q - 1),
            _ => {
                return Err(error(format!(
                    "quad {q} belongs to primitive {} after primitive {}: a wave's \
                     primitives follow one another",
                    scene.quads[q],
                    scene.quads[q - 1]
                )));
            }
        }
    }
    if scene.quads[15] as usize + 1 != scene.primitives.len() {
        return Err(error(format!(
            "the quads name {} primitives, the scene has {}",
            scene.quads[15] + 1,
            scene.primitives.len()
        )));
    }
    Ok(mask)
}

/// Runs fragment shader `code` for the pixels of `scene`.
pub(crate) fn launch(
    code: &CompiledCode,
    generation: Gen,
    scene: &Scene,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<Option<FragmentOutputs>>, Stats), SimError> {
    let Some(pixel) = code.gcn().and_then(|info| info.inputs.pixel) else {
        return Err(error("the code is not a fragment shader".into()));
    };
    if scene.user_data.len() != pixel.user_sgprs as usize {
        return Err(error(format!(
            "the shader takes {} words of user data, the scene gives {}",
            pixel.user_sgprs,
            scene.user_data.len()
        )));
    }
    let m0 = prim_mask(scene)?;
    // The parameters of every attribute the scene gives, for every primitive.
    let attributes = scene
        .primitives
        .iter()
        .flatten()
        .map(|(location, _)| *location as u32 + 1)
        .max()
        .unwrap_or(0);
    let primitives = scene.primitives.len() as u32;
    let mut lds = Lds::new((48 * attributes * primitives).max(4), generation);
    for prim in 0..primitives {
        for attr in 0..attributes as u8 {
            for chan in 0..4 {
                let [a0, a1, a2] = scene.vertex_values(prim as usize, attr, chan);
                for (param, value) in [
                    (InterpParam::P0, a0),
                    (InterpParam::P10, a1 - a0),
                    (InterpParam::P20, a2 - a0),
                ] {
                    let address = interp::param_address(m0, attr, chan, prim, param);
                    lds.fill(address, &value.to_le_bytes());
                }
            }
        }
    }
    let mut wave = Wave::new();
    for (k, &word) in scene.user_data.iter().enumerate() {
        wave.sgpr[k] = word;
    }
    wave.sgpr[pixel.user_sgprs as usize] = m0;
    let inputs = |bit: u32, lane: usize, k: usize| -> u32 {
        let barycentric = InterpMode::ALL
            .into_iter()
            .find(|&mode| barycentric_bit(mode) == bit);
        if let Some(mode) = barycentric {
            // A mode enabled only because the hardware needs one reads 0s.
            return scene
                .barycentric(mode, lane)
                .map_or(0, |ij| ij[k].to_bits());
        }
        match bit {
            b if (POS_X..POS_X + 4).contains(&b) => scene
                .position
                .get(lane)
                .map_or(0, |p| p[(b - POS_X) as usize].to_bits()),
            // Front-facing as a float 1.0, back-facing 0.
            FRONT_FACE => {
                let front = scene
                    .front_facing
                    .get(scene.primitive(lane))
                    .copied()
                    .unwrap_or(true);
                if front { 1f32.to_bits() } else { 0 }
            }
            _ => 0,
        }
    };
    for bit in 0..16 {
        let Some(first) = pixel.input_vgpr(bit) else {
            continue;
        };
        let count = if bit == 3 {
            3
        } else if bit < 7 {
            2
        } else {
            1
        };
        for k in 0..count {
            for lane in 0..64 {
                wave.vgpr[(first + k) as usize][lane] = inputs(bit, lane, k as usize);
            }
        }
    }
    wave.set_exec(scene.lanes);
    let mut program = Program::new(&code.code, generation);
    let mut env = Env {
        memory,
        options,
        return_address: None,
        lds: &mut lds,
        wave: 0,
    };
    wave.run(&mut program, &mut env)?;
    if wave.state != State::Ended {
        return Err(error(
            "a fragment shader's wave stopped before `s_endpgm`".into(),
        ));
    }
    let outputs = outputs(&wave.exports)?;
    let stats = Stats {
        waves: 1,
        instructions: wave.steps,
    };
    Ok((outputs, stats))
}

/// Each lane's outputs from the wave's exports: the lanes of the `done` export's EXEC
/// (with `vm`, the others are killed) and, for each, the channels every export wrote.
fn outputs(exports: &[Exported]) -> Result<Vec<Option<FragmentOutputs>>, SimError> {
    let Some(done) = exports.iter().find(|e| e.done) else {
        return Err(error("the wave ended without a `done` export".into()));
    };
    let mut out: Vec<Option<FragmentOutputs>> = (0..64)
        .map(|lane| (done.exec >> lane & 1 != 0).then(FragmentOutputs::default))
        .collect();
    for export in exports {
        for (lane, slot) in out.iter_mut().enumerate() {
            let Some(lane_out) = slot else {
                continue;
            };
            if export.exec >> lane & 1 == 0 {
                continue;
            }
            let value = |c: usize| export.channels[c].map_or(0, |v| v[lane]);
            match export.target {
                // Compressed, channels 0 and 2 name the two VGPRs, each the f16 pair of
                // its channel and the next, the lower one in bits 15:0.
                ExpTarget::Mrt(n) if export.compr => {
                    let (low, high) = (value(0), value(2));
                    lane_out.color[n as usize] = Some(Color::F16([
                        low as u16,
                        (low >> 16) as u16,
                        high as u16,
                        (high >> 16) as u16,
                    ]))
                }
                ExpTarget::Mrt(n) => {
                    lane_out.color[n as usize] =
                        Some(Color::F32([value(0), value(1), value(2), value(3)]))
                }
                ExpTarget::MrtZ => lane_out.depth = Some(value(0)),
                _ => {}
            }
        }
    }
    Ok(out)
}
