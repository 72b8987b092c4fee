//! A vertex program's launch (`docs/simulator.md`, "NV50 vertex launches"): the 64
//! vertices of a scene run as two warps of 32, each thread's `a[]` words the attribute
//! components the program reads and its ids, as the vertex fetch fills them
//! (`isa::nv50::vertex`), its outputs read back from `o[]`.

use super::dispatch::run_stage;
use super::graphics::{Stage, Vertices};
use super::warp::WARP_THREADS;
use crate::CompiledCode;
use crate::isa::nv50::mc::Variant;
use crate::sim::{Options, SimError, Stats, VertexOutputs, VertexScene, Violation};

fn error(reason: String) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation: Violation::Other(reason),
    }
}

/// Runs vertex program `code` for the vertices of `scene`.
pub(crate) fn launch(
    code: &CompiledCode,
    variant: Variant,
    scene: &VertexScene,
    options: &Options,
) -> Result<(Vec<VertexOutputs>, Stats), SimError> {
    let Some(info) = code.nv50().and_then(|info| info.vertex.as_ref()) else {
        return Err(error("the code is not a vertex program".into()));
    };
    if scene.user_data.len() != info.user_data as usize {
        return Err(error(format!(
            "the program takes {} words of user data, the scene gives {}",
            info.user_data,
            scene.user_data.len()
        )));
    }
    let mut outputs = vec![VertexOutputs::default(); 64];
    let mut stats = Stats::default();
    for warp in 0..2 {
        let attrs = (0..WARP_THREADS)
            .map(|t| {
                let k = 32 * warp + t;
                let mut words: Vec<u32> = info
                    .inputs
                    .iter()
                    .map(|&(l, c)| scene.input(l, c, k).to_bits())
                    .collect();
                if info.vertex_id {
                    words.push(scene.first.wrapping_add(k as u32));
                }
                if info.instance_id {
                    words.push(scene.instance);
                }
                words
            })
            .collect();
        let mut stage = Stage::Vertex(Vertices {
            attrs,
            user_data: scene.user_data.clone(),
            outputs: vec![vec![None; info.output_words() as usize]; WARP_THREADS],
        });
        let end = run_stage(&code.code, variant, &mut stage, !0, 0, options)?;
        stats.waves += 1;
        stats.instructions += end.steps;
        let Stage::Vertex(vertices) = stage else {
            unreachable!("built above")
        };
        for (t, words) in vertices.outputs.iter().enumerate() {
            let four = |at: usize| -> Option<[u32; 4]> {
                Some([words[at]?, words[at + 1]?, words[at + 2]?, words[at + 3]?])
            };
            let out = &mut outputs[32 * warp + t];
            out.position = four(0);
            for &l in &info.params {
                let at = info.param_offset(l).expect("laid out") as usize / 4;
                out.params[l as usize] = four(at);
            }
        }
    }
    Ok((outputs, stats))
}
