//! A vertex program's launch (`docs/simulator.md`, "NV50 vertex launches"): the
//! vertices of a launch run as warps of 32 (the last partial), each thread's `a[]` words the attribute
//! components the program reads and its ids, as the vertex fetch fills them
//! (`isa::nv50::vertex`), its outputs read back from `o[]`.

use super::dispatch::run_stage;
use super::graphics::{Stage, Vertices};
use super::warp::WARP_THREADS;
use crate::CompiledCode;
use crate::isa::nv50::mc::Variant;
use crate::sim::{Options, SimError, Stats, VertexLaunch, VertexOutputs, Violation};

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
    scene: &VertexLaunch,
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
    let count = scene.vertex_ids.len();
    let mut outputs = vec![VertexOutputs::default(); count];
    let mut stats = Stats::default();
    for warp in 0..count.div_ceil(WARP_THREADS) {
        let first = WARP_THREADS * warp;
        let live = (count - first).min(WARP_THREADS);
        let attrs = (0..WARP_THREADS)
            .map(|t| {
                let k = first + t;
                if t >= live {
                    return Vec::new();
                }
                let mut words: Vec<u32> = info
                    .inputs
                    .iter()
                    .map(|&(l, c)| scene.input(l, c, k).to_bits())
                    .collect();
                if info.vertex_id {
                    words.push(scene.vertex_ids[k]);
                }
                if info.instance_id {
                    words.push(scene.instance_ids.get(k).copied().unwrap_or(0));
                }
                words
            })
            .collect();
        let mut stage = Stage::Vertex(Vertices {
            attrs,
            user_data: scene.user_data.clone(),
            outputs: vec![vec![None; info.output_words() as usize]; WARP_THREADS],
        });
        let lanes = if live == WARP_THREADS {
            !0
        } else {
            (1u32 << live) - 1
        };
        let end = run_stage(&code.code, variant, &mut stage, lanes, 0, options)?;
        stats.waves += 1;
        stats.instructions += end.steps;
        let Stage::Vertex(vertices) = stage else {
            unreachable!("built above")
        };
        for (t, words) in vertices.outputs.iter().enumerate().take(live) {
            let four = |at: usize| -> Option<[u32; 4]> {
                Some([words[at]?, words[at + 1]?, words[at + 2]?, words[at + 3]?])
            };
            let out = &mut outputs[first + t];
            out.position = four(0);
            for &l in &info.params {
                let at = info.param_offset(l).expect("laid out") as usize / 4;
                out.params[l as usize] = four(at);
            }
        }
    }
    Ok((outputs, stats))
}
