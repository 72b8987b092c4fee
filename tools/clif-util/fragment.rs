//! Fragment-launch directives: how a filetest (or `clif-util run`) runs a fragment shader
//! for one wave of pixels on the simulator (`docs/filetests.md`, "Fragment launches").
//!
//! ```text
//! ; primitive: attr0 = [0 1 2 3] [8 9 10 11] [-4 -3 -2 -1]; attr1 = [5 5 5 5] [6 6 6 6] [7 7 7 7]
//! ; primitive: attr0 = …
//! ; barycentrics perspective_center: i = iota 64 step 0.125; j = fill 64 0.25
//! ; fragment: %fs(ARGS) quads=[0 0 0 0 1 1 1 1 1 1 1 1 1 1 1 1] lanes=0xffffffffffffffdf
//! ; pixel 3: mrt0 = [1 2 3 4]; mrt1 = f16[0.5 1 2 65504]; mrtz = 0.5
//! ; pixel 5: discarded
//! ```
//!
//! The scene directives (`primitive:`, `barycentrics MODE:`, `position:`,
//! `front_facing:`) before a `fragment:` line describe its wave; `pixel N:` lines after it
//! check lane N's outputs. Every launch is also checked lane by lane against
//! `cranelift-interpreter` (`harness::interpret_fragment`).

use crate::clif_file::Comment;
use crate::launch::{DirectiveError, parse_buffer, parse_literal};
use cranelift_codegen::data_value::DataValue;
use wavelift::intrinsics::InterpMode;
use wavelift::ir;
use wavelift::sim::harness::{FragmentReference, interpret_fragment, push_dwords};
use wavelift::sim::{Attribute, Color, FragmentOutputs, Memory, Options, Scene, Stats, simulator};
use wavelift::{CompiledCode, Target};

/// What a `pixel N:` line expects of lane N.
#[derive(Clone, Debug)]
enum Pixel {
    Discarded,
    /// (target: 0–7 a colour target, 8 the depth; its channels' values; whether they are
    /// f16 channels, `mrtN = f16[…]`).
    Outputs(Vec<(u8, Vec<f32>, bool)>),
}

/// One `fragment:` line with the scene before it and the pixel checks after it.
#[derive(Clone, Debug)]
pub struct FragmentSpec {
    pub line: usize,
    pub text: String,
    args: Vec<DataValue>,
    scene: Scene,
    pixels: Vec<(usize, usize, Pixel)>,
}

impl FragmentSpec {
    /// Whether lane `lane` is covered (runs the shader).
    pub fn covers(&self, lane: usize) -> bool {
        self.scene.lanes >> lane & 1 != 0
    }
}

/// Whether a comment's text is a fragment-launch directive.
pub fn is_fragment_line(text: &str) -> bool {
    let text = text.trim_start();
    [
        "primitive:",
        "barycentrics ",
        "position:",
        "front_facing:",
        "fragment:",
        "pixel ",
    ]
    .iter()
    .any(|keyword| text.starts_with(keyword))
}

/// Parses the fragment directives of `func`.
pub fn parse(func: &ir::Function, lines: &[Comment]) -> Result<Vec<FragmentSpec>, DirectiveError> {
    let mut scene = Scene::default();
    let mut specs: Vec<FragmentSpec> = Vec::new();
    for comment in lines {
        let err = |message: String| (comment.line, message);
        let text = comment.text.trim();
        if let Some(rest) = text.strip_prefix("primitive:") {
            scene.primitives.push(parse_primitive(rest).map_err(err)?);
        } else if let Some(rest) = text.strip_prefix("barycentrics ") {
            let (mode, values) = rest
                .split_once(':')
                .ok_or_else(|| err("expected `MODE:`".into()))?;
            let mode = InterpMode::ALL
                .into_iter()
                .find(|m| m.suffix() == mode.trim())
                .ok_or_else(|| err(format!("no interpolation mode `{}`", mode.trim())))?;
            let [i, j] = parse_lanes(values, ["i", "j"]).map_err(err)?;
            let ij = i.into_iter().zip(j).map(|(i, j)| [i, j]).collect();
            scene.barycentrics.retain(|(m, _)| *m != mode);
            scene.barycentrics.push((mode, ij));
        } else if let Some(rest) = text.strip_prefix("position:") {
            let [x, y, z, w] = parse_lanes(rest, ["x", "y", "z", "w"]).map_err(err)?;
            scene.position = (0..64).map(|l| [x[l], y[l], z[l], w[l]]).collect();
        } else if let Some(rest) = text.strip_prefix("front_facing:") {
            scene.front_facing = floats(rest)
                .map_err(err)?
                .into_iter()
                .map(|f| f != 0.0)
                .collect();
        } else if let Some(rest) = text.strip_prefix("fragment:") {
            let (args, quads, lanes) = parse_fragment(func, rest).map_err(err)?;
            let mut scene = scene.clone();
            scene.quads = quads;
            scene.lanes = lanes;
            for arg in &args {
                push_dwords(arg, 0, &mut scene.user_data).map_err(err)?;
            }
            specs.push(FragmentSpec {
                line: comment.line,
                text: text.to_string(),
                args,
                scene,
                pixels: Vec::new(),
            });
        } else if let Some(rest) = text.strip_prefix("pixel ") {
            let (lane, expected) = rest
                .split_once(':')
                .ok_or_else(|| err("expected `pixel N:`".into()))?;
            let lane: usize = lane
                .trim()
                .parse()
                .ok()
                .filter(|&l| l < 64)
                .ok_or_else(|| err(format!("`{}` is not a lane 0–63", lane.trim())))?;
            let pixel = parse_pixel(expected).map_err(err)?;
            let Some(spec) = specs.last_mut() else {
                return Err(err("`pixel` before any `fragment:` line".into()));
            };
            spec.pixels.push((comment.line, lane, pixel));
        }
    }
    Ok(specs)
}

/// `[a b c …]` as f32s.
pub(crate) fn floats(text: &str) -> Result<Vec<f32>, String> {
    let inner = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("expected `[…]`, found `{}`", text.trim()))?;
    inner
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<f32>()
                .map_err(|_| format!("`{w}` is not a number"))
        })
        .collect()
}

/// `attrN = [x y z w] [x y z w] [x y z w]; …`: each attribute at the three vertices.
fn parse_primitive(text: &str) -> Result<Vec<Attribute>, String> {
    let mut attributes = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, vertices) = part
            .split_once('=')
            .ok_or("expected `attrN = […] […] […]`")?;
        let location: u8 = name
            .trim()
            .strip_prefix("attr")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n < 32)
            .ok_or_else(|| format!("`{}` is not attr0–attr31", name.trim()))?;
        let groups: Vec<Vec<f32>> = vertices
            .split_inclusive(']')
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(floats)
            .collect::<Result<_, _>>()?;
        let [a, b, c] = groups.as_slice() else {
            return Err(format!("attr{location}: three vertices, each `[x y z w]`"));
        };
        let vertex = |v: &Vec<f32>| -> Result<[f32; 4], String> {
            v.as_slice()
                .try_into()
                .map_err(|_| format!("attr{location}: four channels per vertex"))
        };
        attributes.push((location, [vertex(a)?, vertex(b)?, vertex(c)?]));
    }
    Ok(attributes)
}

/// `n0 = INIT; n1 = INIT; …`: 64 f32 values per name, in `names`' order.
pub(crate) fn parse_lanes<const N: usize>(
    text: &str,
    names: [&str; N],
) -> Result<[Vec<f32>; N], String> {
    let parts: Vec<&str> = text.split(';').map(str::trim).collect();
    if parts.len() != N {
        return Err(format!(
            "expected `{}`",
            names.map(|n| format!("{n} = INIT")).join("; ")
        ));
    }
    let mut out: [Vec<f32>; N] = std::array::from_fn(|_| Vec::new());
    for ((part, name), slot) in parts.iter().zip(names).zip(out.iter_mut()) {
        let init = part
            .strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('='))
            .ok_or_else(|| format!("expected `{name} = INIT`, found `{part}`"))?;
        let buffer = parse_buffer(&format!("{name}: f32 = {init}"))?;
        if buffer.values.len() != 64 {
            return Err(format!(
                "{name}: 64 values, one per lane, not {}",
                buffer.values.len()
            ));
        }
        *slot = buffer
            .values
            .iter()
            .map(|v| match v {
                DataValue::F32(x) => f32::from_bits(x.bits()),
                _ => 0.0,
            })
            .collect();
    }
    Ok(out)
}

/// `%f(ARGS) quads=[…] lanes=0x…`: the user data, each quad's primitive, the covered
/// lanes (all by default).
fn parse_fragment(
    func: &ir::Function,
    text: &str,
) -> Result<(Vec<DataValue>, Vec<u32>, u64), String> {
    let text = text.trim();
    let open = text.find('(').ok_or("expected `%f(ARGS) quads=[…]`")?;
    let close = text.find(')').ok_or("missing `)`")?;
    let name = text[..open].trim();
    if name != func.name.to_string() {
        return Err(format!(
            "the launch names `{name}` but the function is `{}`",
            func.name
        ));
    }
    let words: Vec<&str> = text[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    let params = &func.signature.params;
    if words.len() != params.len() {
        return Err(format!(
            "{} arguments for {} parameters",
            words.len(),
            params.len()
        ));
    }
    let args = words
        .iter()
        .zip(params)
        .map(|(w, p)| parse_literal(p.value_type, w))
        .collect::<Result<Vec<_>, _>>()?;
    let rest = &text[close + 1..];
    let quads_text = rest
        .split_once("quads=")
        .map(|(_, q)| q.split_inclusive(']').next().unwrap_or(q))
        .ok_or("expected `quads=[…]`, the primitive of each of the 16 quads")?;
    let quads = floats(quads_text)?.into_iter().map(|q| q as u32).collect();
    let lanes = match rest.split_once("lanes=") {
        Some((_, l)) => {
            let word = l.split_whitespace().next().unwrap_or("");
            u64::from_str_radix(word.trim_start_matches("0x"), 16)
                .map_err(|_| format!("`{word}` is not a hexadecimal lane mask"))?
        }
        None => !0,
    };
    Ok((args, quads, lanes))
}

/// `discarded`, or `mrtN = [r g b a]; mrtM = f16[r g b a]; mrtz = z; …`.
fn parse_pixel(text: &str) -> Result<Pixel, String> {
    let text = text.trim();
    if text == "discarded" {
        return Ok(Pixel::Discarded);
    }
    let mut outputs = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or("expected `mrtN = […]` or `mrtz = z`")?;
        let name = name.trim();
        if name == "mrtz" {
            let z = value
                .trim()
                .parse::<f32>()
                .map_err(|_| "mrtz: not a number".to_string())?;
            outputs.push((8, vec![z], false));
            continue;
        }
        let target: u8 = name
            .strip_prefix("mrt")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n < 8)
            .ok_or_else(|| format!("`{name}` is not mrt0–mrt7 or mrtz"))?;
        let value = value.trim();
        let (value, f16) = match value.strip_prefix("f16") {
            Some(rest) => (rest, true),
            None => (value, false),
        };
        let channels = floats(value)?;
        if channels.len() != 4 {
            return Err(format!("{name}: four channels"));
        }
        outputs.push((target, channels, f16));
    }
    Ok(Pixel::Outputs(outputs))
}

/// What a fragment launch gave: each lane's outputs, the run's statistics, and the
/// failures of its checks (pixel lines, the interpreter's reference).
pub struct Outcome {
    pub outputs: Vec<Option<FragmentOutputs>>,
    pub stats: Stats,
    pub failures: Vec<String>,
}

/// Runs `spec` on the simulator and checks it.
pub fn execute(
    func: &ir::Function,
    compiled: &CompiledCode,
    target: &Target,
    spec: &FragmentSpec,
) -> Result<Outcome, String> {
    let sim = simulator(target.arch);
    let (outputs, stats) = sim
        .launch_fragment(
            compiled,
            &spec.scene,
            &mut Memory::new(),
            &Options::default(),
        )
        .map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    for (line, lane, expected) in &spec.pixels {
        if let Some(why) = pixel_mismatch(outputs[*lane].as_ref(), expected) {
            failures.push(format!("line {line}: pixel {lane}: {why}"));
        }
    }
    match interpret_fragment(func, &spec.args, &spec.scene, &Memory::new()) {
        FragmentReference::Completed(reference) => {
            for lane in 0..64 {
                if outputs[lane] != reference[lane] {
                    failures.push(format!(
                        "lane {lane}: the simulator gives {}, cranelift-interpreter {}",
                        format_lane(outputs[lane].as_ref()),
                        format_lane(reference[lane].as_ref())
                    ));
                }
            }
        }
        FragmentReference::Unavailable(why) => {
            failures.push(format!("no reference from cranelift-interpreter: {why}"));
        }
    }
    Ok(Outcome {
        outputs,
        stats,
        failures,
    })
}

fn pixel_mismatch(actual: Option<&FragmentOutputs>, expected: &Pixel) -> Option<String> {
    match (actual, expected) {
        (None, Pixel::Discarded) => None,
        (Some(out), Pixel::Discarded) => Some(format!(
            "expected discarded, got {}",
            format_lane(Some(out))
        )),
        (None, Pixel::Outputs(_)) => Some("expected outputs, the lane was discarded".into()),
        (Some(out), Pixel::Outputs(expected)) => {
            for (target, values, f16) in expected {
                let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                // An f16 converts to f32 exactly: the values say which f16 is meant.
                let actual: Option<Vec<u32>> = match target {
                    8 => out.depth.map(|z| vec![z]),
                    n => out.color[*n as usize]
                        .filter(|c| matches!(c, Color::F16(_)) == *f16)
                        .map(|c| c.values().iter().map(|v| v.to_bits()).collect()),
                };
                if actual.as_ref() != Some(&bits) {
                    return Some(format!(
                        "expected {}, got {}",
                        format_expected(expected),
                        format_lane(Some(out))
                    ));
                }
            }
            None
        }
    }
}

/// A `pixel` line's expectations as [`format_lane`] writes outputs.
fn format_expected(expected: &[(u8, Vec<f32>, bool)]) -> String {
    let parts: Vec<String> = expected
        .iter()
        .map(|(target, values, f16)| match target {
            8 => format!("mrtz = {}", values[0]),
            n => format!("mrt{n} = {}", format_channels(values, *f16)),
        })
        .collect();
    parts.join("; ")
}

/// `[r g b a]`, `f16[r g b a]` for f16 channels.
fn format_channels(values: &[f32], f16: bool) -> String {
    let channels: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("{}[{}]", if f16 { "f16" } else { "" }, channels.join(" "))
}

/// A lane's outputs as the `pixel` lines write them.
pub fn format_lane(out: Option<&FragmentOutputs>) -> String {
    let Some(out) = out else {
        return "discarded".into();
    };
    let float = |bits: u32| format!("{}", f32::from_bits(bits));
    let mut parts = Vec::new();
    for (n, color) in out.color.iter().enumerate() {
        if let Some(c) = color {
            let f16 = matches!(c, Color::F16(_));
            parts.push(format!("mrt{n} = {}", format_channels(&c.values(), f16)));
        }
    }
    if let Some(z) = out.depth {
        parts.push(format!("mrtz = {}", float(z)));
    }
    if parts.is_empty() {
        return "no outputs".into();
    }
    parts.join("; ")
}
