//! A vertex shader's waves, as the hardware would start them (`docs/ir.md`, "Vertex-shader
//! ABI"): 64 vertices to a wave, the user data in the SGPRs from s0, the vertex id in v0,
//! the instance id in v1, the primitive id (0 here) in v2, EXEC the wave's vertices; and
//! each vertex's position, point size, clip distances and parameters from the wave's
//! exports.

use super::interp::Exported;
use super::lds::Lds;
use super::program::Program;
use super::wave::{Env, State, Wave};
use crate::CompiledCode;
use crate::isa::gcn::mc::{ExpTarget, Gen};
use crate::isa::gcn::vertex::{PositionVector, VertexInputs};
use crate::sim::{Memory, Options, SimError, Stats, VertexLaunch, VertexOutputs, Violation};

fn error(reason: String) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation: Violation::Other(reason),
    }
}

/// Runs vertex shader `code` for the vertices of `launch`, wave after wave.
pub(crate) fn launch(
    code: &CompiledCode,
    generation: Gen,
    launch: &VertexLaunch,
    memory: &mut Memory,
    options: &Options,
) -> Result<(Vec<VertexOutputs>, Stats), SimError> {
    let Some(vertex) = code.gcn().and_then(|info| info.inputs.vertex) else {
        return Err(error("the code is not a vertex shader".into()));
    };
    if launch.user_data.len() != vertex.user_sgprs as usize {
        return Err(error(format!(
            "the shader takes {} words of user data, the launch gives {}",
            vertex.user_sgprs,
            launch.user_data.len()
        )));
    }
    let mut outputs = Vec::with_capacity(launch.vertex_ids.len());
    let mut stats = Stats::default();
    let mut program = Program::new(&code.code, generation);
    for (wave_index, ids) in launch.vertex_ids.chunks(64).enumerate() {
        let first = wave_index * 64;
        let mut wave = Wave::new();
        for (k, &word) in launch.user_data.iter().enumerate() {
            wave.sgpr[k] = word;
        }
        for (lane, &id) in ids.iter().enumerate() {
            wave.vgpr[0][lane] = id;
            wave.vgpr[1][lane] = launch.instance_ids.get(first + lane).copied().unwrap_or(0);
            wave.vgpr[2][lane] = 0;
        }
        let lanes = if ids.len() == 64 {
            !0
        } else {
            (1u64 << ids.len()) - 1
        };
        wave.set_exec(lanes);
        // The VS stage has no LDS; the wave's environment wants one.
        let mut lds = Lds::new(4, generation);
        let mut env = Env {
            memory,
            options,
            return_address: None,
            lds: &mut lds,
            wave: wave_index as u32,
        };
        wave.run(&mut program, &mut env)?;
        if wave.state != State::Ended {
            return Err(error(
                "a vertex shader's wave stopped before `s_endpgm`".into(),
            ));
        }
        outputs.extend(wave_outputs(&vertex, &wave.exports, ids.len())?);
        stats.waves += 1;
        stats.instructions += wave.steps;
    }
    Ok((outputs, stats))
}

/// The outputs of a wave's first `count` lanes: the position from `pos0`, the point size
/// and clip distances from the position vectors after it
/// ([`VertexInputs::position_vectors`]; only the channels the shader reports written), the
/// last of them exported with `done`, and each parameter from the `paramN` export its
/// location packs to ([`VertexInputs::param_index`]).
fn wave_outputs(
    vertex: &VertexInputs,
    exports: &[Exported],
    count: usize,
) -> Result<Vec<VertexOutputs>, SimError> {
    if !exports
        .iter()
        .any(|e| e.done && e.target == ExpTarget::Pos(vertex.positions - 1))
    {
        return Err(error(
            "the wave ended without a `done` export of its last position".into(),
        ));
    }
    let locations: Vec<u8> = vertex.param_locations().collect();
    let vectors = vertex.position_vectors();
    let mut out = vec![VertexOutputs::default(); count];
    for export in exports {
        for (lane, lane_out) in out.iter_mut().enumerate() {
            if export.exec >> lane & 1 == 0 {
                continue;
            }
            let value = |c: usize| export.channels[c].map_or(0, |v| v[lane]);
            let words = [value(0), value(1), value(2), value(3)];
            match export.target {
                ExpTarget::Pos(n) => match vectors.get(n as usize) {
                    Some(PositionVector::Position) => lane_out.position = Some(words),
                    Some(PositionVector::Misc) => lane_out.point_size = Some(words[0]),
                    Some(&PositionVector::ClipDistances(k)) => {
                        for (c, &word) in words.iter().enumerate() {
                            let index = 4 * k as usize + c;
                            if vertex.clip_distances >> index & 1 != 0 {
                                lane_out.clip_distances[index] = Some(word);
                            }
                        }
                    }
                    None => {
                        return Err(error(format!(
                            "pos{n} is exported, but the shader reports {} position exports",
                            vectors.len()
                        )));
                    }
                },
                ExpTarget::Param(n) => {
                    let Some(&location) = locations.get(n as usize) else {
                        return Err(error(format!(
                            "param{n} is exported, but the shader reports {} parameters",
                            locations.len()
                        )));
                    };
                    lane_out.params[location as usize] = Some(words);
                }
                other => {
                    return Err(error(format!(
                        "a vertex shader exports to {}",
                        other.name()
                    )));
                }
            }
        }
    }
    Ok(out)
}
