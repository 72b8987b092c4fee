//! A fragment program's launch for a scene (`docs/simulator.md`, "NV50 fragment
//! launches"): the 64 lanes of the scene run as warps of 32, one per half and primitive;
//! each primitive's `v[]` planes are built from its vertex values as the hardware's setup
//! would (`docs/nv50.md`, "Graphics stages"), and each lane's outputs read from its result
//! registers.

use super::dispatch::run_stage;
use super::graphics::{Fragments, Plane, Stage};
use super::warp::WARP_THREADS;
use crate::CompiledCode;
use crate::intrinsics::{InterpMode, Interpolation, SamplePoint};
use crate::isa::nv50::fragment::{FRONT_FACE, FragmentInfo, SlotKind};
use crate::isa::nv50::mc::Variant;
use crate::sim::{Color, FragmentOutputs, Options, Scene, SimError, Stats, Violation};

fn error(reason: String) -> SimError {
    SimError {
        pc: 0,
        inst: None,
        violation: Violation::Other(reason),
    }
}

/// Runs fragment program `code` for the pixels of `scene`.
pub(crate) fn launch(
    code: &CompiledCode,
    variant: Variant,
    scene: &Scene,
    options: &Options,
) -> Result<(Vec<Option<FragmentOutputs>>, Stats), SimError> {
    let Some(info) = code.nv50().and_then(|info| info.fragment.as_ref()) else {
        return Err(error("the code is not a fragment program".into()));
    };
    if scene.user_data.len() != info.user_data as usize {
        return Err(error(format!(
            "the program takes {} words of user data, the scene gives {}",
            info.user_data,
            scene.user_data.len()
        )));
    }
    let mut outputs = vec![None; 64];
    let mut stats = Stats::default();
    for half in 0..2 {
        for prim in 0..scene.primitives.len().max(1) {
            let lanes: Vec<usize> = (32 * half..32 * half + 32)
                .filter(|&l| scene.lanes >> l & 1 == 1 && scene.primitive(l) == prim)
                .collect();
            if lanes.is_empty() {
                continue;
            }
            let fragments = fragments(info, scene, prim, half, &lanes)?;
            let mut stage = Stage::Fragment(Box::new(fragments));
            let mask = lanes.iter().fold(0u32, |m, &l| m | 1 << (l % 32));
            let count = info.result_count() as usize;
            let end = run_stage(&code.code, variant, &mut stage, mask, count, options)?;
            stats.waves += 1;
            stats.instructions += end.steps;
            for &lane in &lanes {
                let t = lane % 32;
                if end.discarded >> t & 1 == 1 {
                    continue;
                }
                let r = &end.registers[t];
                let mut out = FragmentOutputs::default();
                for n in (0..8).filter(|n| info.colors >> n & 1 == 1) {
                    out.color[n] = Some(Color::F32([
                        r[4 * n],
                        r[4 * n + 1],
                        r[4 * n + 2],
                        r[4 * n + 3],
                    ]));
                }
                if info.depth {
                    out.depth = Some(r[info.depth_register() as usize]);
                }
                outputs[lane] = Some(out);
            }
        }
    }
    Ok((outputs, stats))
}

/// The `v[]` planes of primitive `prim` and the positions of the lanes of `half` in it.
///
/// The planes are over the primitive's screen-linear barycentrics: a lane at (I, J) is at
/// x = I, y = J, the provoking vertex at the origin, so a linear input's plane is A0 with
/// slopes A1 − A0 and A2 − A0. The primitive's vertices share one clip-space w, the w of
/// its lanes' positions (1 without positions), so the perspective and linear barycentrics
/// are the same; a perspective input's plane holds a/w (each vertex value times 1/w), w's
/// plane 1/w. The window position's planes are fitted to the lanes' positions.
fn fragments(
    info: &FragmentInfo,
    scene: &Scene,
    prim: usize,
    half: usize,
    lanes: &[usize],
) -> Result<Fragments, SimError> {
    let at = |point: SamplePoint, lane: usize| -> Result<(f32, f32), SimError> {
        let mut found: Option<[f32; 2]> = None;
        for interpolation in [Interpolation::Perspective, Interpolation::Linear] {
            let points: &[SamplePoint] = match point {
                SamplePoint::Center => &[SamplePoint::Center],
                _ => &[SamplePoint::Centroid, SamplePoint::Sample],
            };
            for &p in points {
                let Some(ij) = scene.barycentric(InterpMode::new(interpolation, p), lane) else {
                    continue;
                };
                if found.is_some_and(|f| f != ij) {
                    return Err(error(format!(
                        "lane {lane}: NV50 evaluates every input at one point per `interp` form \
                         (centre, or `cent` for the centroid and the sample), and the scene \
                         gives different barycentrics for it"
                    )));
                }
                found = Some(ij);
            }
        }
        Ok(found.map_or((0.0, 0.0), |[i, j]| (i, j)))
    };
    let mut center = [(0.0, 0.0); WARP_THREADS];
    let mut centroid = [(0.0, 0.0); WARP_THREADS];
    for &lane in lanes {
        center[lane - 32 * half] = at(SamplePoint::Center, lane)?;
        centroid[lane - 32 * half] = at(SamplePoint::Centroid, lane)?;
    }
    let position = |lane: usize| scene.position.get(lane).copied();
    let w = match position(lanes[0]) {
        Some(p) => p[3],
        None => 1.0,
    };
    if lanes
        .iter()
        .any(|&l| position(l).map_or(1.0, |p| p[3]) != w)
    {
        return Err(error(format!(
            "primitive {prim}: its lanes' w differ; the NV50 launch models primitives whose \
             vertices share one w"
        )));
    }
    let slots = info.position_mask.count_ones() as usize + info.inputs.len();
    let mut planes = vec![
        Plane {
            base: 0,
            dx: 0.0,
            dy: 0.0
        };
        slots
    ];
    for c in 0..3 {
        if let Some(offset) = info.position_offset(c) {
            let values: Vec<((f32, f32), f32)> = lanes
                .iter()
                .map(|&l| {
                    (
                        center[l - 32 * half],
                        position(l).unwrap_or_default()[c as usize],
                    )
                })
                .collect();
            planes[offset as usize / 4] = fit(&values).ok_or_else(|| {
                error(format!(
                    "primitive {prim}: the window position's {} is not a plane over the lanes' \
                     barycentrics, as NV50 interpolates it",
                    ["x", "y", "z"][c as usize]
                ))
            })?;
        }
    }
    let w_offset = info.position_offset(3).expect("w is always in v[]");
    planes[w_offset as usize / 4] = Plane {
        base: (1.0 / w).to_bits(),
        dx: 0.0,
        dy: 0.0,
    };
    for &slot in &info.inputs {
        let [a0, a1, a2] = scene.vertex_values(prim, slot.location, slot.component);
        let plane = match slot.kind {
            SlotKind::Flat => Plane {
                base: a0.to_bits(),
                dx: 0.0,
                dy: 0.0,
            },
            SlotKind::Linear => Plane {
                base: a0.to_bits(),
                dx: a1 - a0,
                dy: a2 - a0,
            },
            SlotKind::Perspective => {
                let [b0, b1, b2] = [a0 / w, a1 / w, a2 / w];
                Plane {
                    base: b0.to_bits(),
                    dx: b1 - b0,
                    dy: b2 - b0,
                }
            }
        };
        let offset = info.input_offset(slot).expect("laid out");
        planes[offset as usize / 4] = plane;
    }
    let front = scene.front_facing.get(prim).copied().unwrap_or(true);
    planes.resize(
        FRONT_FACE as usize / 4 + 1,
        Plane {
            base: 0,
            dx: 0.0,
            dy: 0.0,
        },
    );
    planes[FRONT_FACE as usize / 4].base = if front { !0 } else { 0 };
    Ok(Fragments {
        planes,
        user_data: scene.user_data.clone(),
        center,
        centroid,
    })
}

/// A plane through every `((x, y), value)`, evaluated exactly as the simulator's `interp`
/// does, if one is: solved from three points not on a line.
fn fit(values: &[((f32, f32), f32)]) -> Option<Plane> {
    let &((x0, y0), v0) = values.first()?;
    let others: Vec<_> = values.iter().skip(1).collect();
    let plane = others
        .iter()
        .flat_map(|a| others.iter().map(move |b| (a, b)))
        .find_map(|(&&((x1, y1), v1), &&((x2, y2), v2))| {
            let (dx1, dy1, dx2, dy2) = (x1 - x0, y1 - y0, x2 - x0, y2 - y0);
            let det = (dx1 * dy2 - dx2 * dy1) as f64;
            if det == 0.0 {
                return None;
            }
            let (dv1, dv2) = ((v1 - v0) as f64, (v2 - v0) as f64);
            let sx = (dv1 * dy2 as f64 - dv2 * dy1 as f64) / det;
            let sy = (dx1 as f64 * dv2 - dx2 as f64 * dv1) / det;
            let base = v0 as f64 - sx * x0 as f64 - sy * y0 as f64;
            Some(Plane {
                base: (base as f32).to_bits(),
                dx: sx as f32,
                dy: sy as f32,
            })
        })
        .unwrap_or(Plane {
            base: v0.to_bits(),
            dx: 0.0,
            dy: 0.0,
        });
    values
        .iter()
        .all(|&((x, y), v)| {
            ((f32::from_bits(plane.base) + plane.dx * x) + plane.dy * y).to_bits() == v.to_bits()
        })
        .then_some(plane)
}
