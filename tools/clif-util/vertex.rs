//! Vertex-launch directives: how a filetest (or `clif-util run`) runs a vertex shader for
//! 64 vertices whose attributes the vertex fetch gives (NV50's `a[]`; `docs/filetests.md`,
//! "Vertex launches").
//!
//! ```text
//! ; attributes 0: x = iota 64; y = fill 64 1; z = fill 64 0; w = fill 64 1
//! ; vertices: %vs(ARGS) first=100 instance=3
//! ; vertex 5: position = [5 1 0 1]; param1 = [105 3 0 1]
//! ```
//!
//! `attributes L:` lines before a `vertices:` line give attribute L's channels, one value
//! per vertex; `vertex N:` lines after it check vertex N's outputs. Every launch is also
//! checked vertex by vertex against `cranelift-interpreter` (`harness::interpret_vertex`).

use crate::clif_file::Comment;
use crate::fragment::{floats, parse_lanes};
use crate::launch::{DirectiveError, parse_literal};
use cranelift_codegen::data_value::DataValue;
use wavelift::ir;
use wavelift::sim::harness::{VertexReference, interpret_vertex, push_dwords};
use wavelift::sim::{Options, Stats, VertexOutputs, VertexScene, simulator};
use wavelift::{CompiledCode, Target};

/// One `vertices:` line with the attributes before it and the vertex checks after it.
#[derive(Clone, Debug)]
pub struct VertexSpec {
    pub line: usize,
    pub text: String,
    args: Vec<DataValue>,
    scene: VertexScene,
    /// (line, vertex, its expected outputs).
    checks: Vec<(usize, usize, Vec<Expected>)>,
}

/// An expected output: 32 the position, 0–31 a parameter; its four channels.
type Expected = (u8, Vec<f32>);

/// Whether a comment's text is a vertex-launch directive.
pub fn is_vertex_line(text: &str) -> bool {
    let text = text.trim_start();
    ["attributes ", "vertices:", "vertex "]
        .iter()
        .any(|keyword| text.starts_with(keyword))
}

/// Parses the vertex directives of `func`.
pub fn parse(func: &ir::Function, lines: &[Comment]) -> Result<Vec<VertexSpec>, DirectiveError> {
    let mut scene = VertexScene::default();
    let mut specs: Vec<VertexSpec> = Vec::new();
    for comment in lines {
        let err = |message: String| (comment.line, message);
        let text = comment.text.trim();
        if let Some(rest) = text.strip_prefix("attributes ") {
            let (location, values) = rest
                .split_once(':')
                .ok_or_else(|| err("expected `attributes L:`".into()))?;
            let location: u8 = location
                .trim()
                .parse()
                .ok()
                .filter(|&l| l < 32)
                .ok_or_else(|| err(format!("`{}` is not a location 0–31", location.trim())))?;
            let [x, y, z, w] = parse_lanes(values, ["x", "y", "z", "w"]).map_err(err)?;
            let vertices = (0..64).map(|k| [x[k], y[k], z[k], w[k]]).collect();
            scene.attributes.retain(|(l, _)| *l != location);
            scene.attributes.push((location, vertices));
        } else if let Some(rest) = text.strip_prefix("vertices:") {
            let (args, first, instance) = parse_launch(func, rest).map_err(err)?;
            let mut scene = scene.clone();
            scene.first = first;
            scene.instance = instance;
            for arg in &args {
                push_dwords(arg, 0, &mut scene.user_data).map_err(err)?;
            }
            specs.push(VertexSpec {
                line: comment.line,
                text: text.to_string(),
                args,
                scene,
                checks: Vec::new(),
            });
        } else if let Some(rest) = text.strip_prefix("vertex ") {
            let (k, expected) = rest
                .split_once(':')
                .ok_or_else(|| err("expected `vertex N:`".into()))?;
            let k: usize = k
                .trim()
                .parse()
                .ok()
                .filter(|&k| k < 64)
                .ok_or_else(|| err(format!("`{}` is not a vertex 0–63", k.trim())))?;
            let outputs = parse_outputs(expected).map_err(err)?;
            let Some(spec) = specs.last_mut() else {
                return Err(err("`vertex` before any `vertices:` line".into()));
            };
            spec.checks.push((comment.line, k, outputs));
        }
    }
    Ok(specs)
}

/// `%f(ARGS) [first=N] [instance=N]`.
fn parse_launch(func: &ir::Function, text: &str) -> Result<(Vec<DataValue>, u32, u32), String> {
    let text = text.trim();
    let open = text.find('(').ok_or("expected `%f(ARGS)`")?;
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
    let mut first = 0;
    let mut instance = 0;
    for word in text[close + 1..].split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("expected `first=N` or `instance=N`, found `{word}`"))?;
        let value: u32 = value
            .parse()
            .map_err(|_| format!("`{value}` is not a number"))?;
        match key {
            "first" => first = value,
            "instance" => instance = value,
            _ => return Err(format!("`{key}` is neither `first` nor `instance`")),
        }
    }
    Ok((args, first, instance))
}

/// `position = [x y z w]; paramL = [x y z w]; …`.
fn parse_outputs(text: &str) -> Result<Vec<Expected>, String> {
    let mut outputs = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or("expected `position = […]` or `paramL = […]`")?;
        let name = name.trim();
        let which = match name {
            "position" => 32,
            _ => name
                .strip_prefix("param")
                .and_then(|n| n.parse().ok())
                .filter(|&n: &u8| n < 32)
                .ok_or_else(|| format!("`{name}` is not position or param0–param31"))?,
        };
        let channels = floats(value)?;
        if channels.len() != 4 {
            return Err(format!("{name}: four channels"));
        }
        outputs.push((which, channels));
    }
    Ok(outputs)
}

/// What a vertex launch gave: each vertex's outputs, the run's statistics, and the
/// failures of its checks (vertex lines, the interpreter's reference).
pub struct Outcome {
    pub outputs: Vec<VertexOutputs>,
    pub stats: Stats,
    pub failures: Vec<String>,
}

/// Runs `spec` on the simulator and checks it.
pub fn execute(
    func: &ir::Function,
    compiled: &CompiledCode,
    target: &Target,
    spec: &VertexSpec,
) -> Result<Outcome, String> {
    let sim = simulator(target.arch);
    let (outputs, stats) = sim
        .launch_vertex(compiled, &spec.scene, &Options::default())
        .map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    for (line, k, expected) in &spec.checks {
        for (which, values) in expected {
            let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
            let actual = match which {
                32 => outputs[*k].position,
                n => outputs[*k].params[*n as usize],
            };
            if actual.map(|a| a.to_vec()) != Some(bits) {
                failures.push(format!(
                    "line {line}: vertex {k}: expected {}, got {}",
                    format_expected(*which, values),
                    format_vertex(&outputs[*k])
                ));
            }
        }
    }
    match interpret_vertex(func, &spec.args, &spec.scene) {
        VertexReference::Completed(reference) => {
            for k in 0..64 {
                if outputs[k] != reference[k] {
                    failures.push(format!(
                        "vertex {k}: the simulator gives {}, cranelift-interpreter {}",
                        format_vertex(&outputs[k]),
                        format_vertex(&reference[k])
                    ));
                }
            }
        }
        VertexReference::Unavailable(why) => {
            failures.push(format!("no reference from cranelift-interpreter: {why}"));
        }
    }
    Ok(Outcome {
        outputs,
        stats,
        failures,
    })
}

fn format_expected(which: u8, values: &[f32]) -> String {
    let name = match which {
        32 => "position".to_string(),
        n => format!("param{n}"),
    };
    let channels: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("{name} = [{}]", channels.join(" "))
}

/// A vertex's outputs as `vertex` lines write them.
pub fn format_vertex(out: &VertexOutputs) -> String {
    let four = |name: String, words: &[u32; 4]| {
        let channels: Vec<String> = words
            .iter()
            .map(|&b| f32::from_bits(b).to_string())
            .collect();
        format!("{name} = [{}]", channels.join(" "))
    };
    let mut parts = Vec::new();
    if let Some(p) = &out.position {
        parts.push(four("position".into(), p));
    }
    for (n, param) in out.params.iter().enumerate() {
        if let Some(p) = param {
            parts.push(four(format!("param{n}"), p));
        }
    }
    if parts.is_empty() {
        return "no outputs".into();
    }
    parts.join("; ")
}
