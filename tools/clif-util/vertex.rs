//! Vertex-launch directives: how a filetest (or `clif-util run`) runs a vertex shader for
//! a list of vertices on the simulator (`docs/filetests.md`, "Vertex launches").
//!
//! ```text
//! ; buffer positions: f32 = iota 280
//! ; vertex: %vs(positions, 2.0) ids=iota 70 instances=fill 70 1
//! ; vertex 3: pos = [24 13 14 15]; param1 = [1 1 1 1]; point_size = 2; clip0 = -1
//! ```
//!
//! `buffer` lines (as for kernel launches) give the vertex buffers, which arguments name;
//! a `vertex:` line launches with the buffers so far, `vertex N:` lines after it check
//! vertex N's outputs. Every launch is also checked vertex by vertex against
//! `cranelift-interpreter` (`harness::interpret_vertex`).

use crate::clif_file::Comment;
use crate::launch::{self, Arg, Buffer, DirectiveError, parse_buffer};
use cranelift_codegen::data_value::DataValue;
use wavelift::ir;
use wavelift::sim::harness::{VertexReference, interpret_vertex, push_dwords};
use wavelift::sim::{Options, Stats, VertexLaunch, VertexOutputs, simulator};
use wavelift::{CompiledCode, Target};

/// An output a `vertex N:` line names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Output {
    /// `pos`.
    Position,
    /// `paramL`.
    Param(u8),
    /// `point_size`.
    PointSize,
    /// `clipN`.
    Clip(u8),
}

/// What a `vertex N:` line expects: each output named with its words (four for the
/// position and parameters, one for the point size and a clip distance).
type Expected = Vec<(Output, Vec<f32>)>;

/// One `vertex:` line with the buffers before it and the checks after it.
#[derive(Clone, Debug)]
pub struct VertexSpec {
    pub line: usize,
    pub text: String,
    args: Vec<Arg>,
    buffers: Vec<Buffer>,
    vertex_ids: Vec<u32>,
    instance_ids: Vec<u32>,
    attributes: Vec<(u8, Vec<[f32; 4]>)>,
    checks: Vec<(usize, usize, Expected)>,
}

/// Whether a comment's text is a vertex-launch directive (`buffer` lines are kernel-launch
/// lines too).
pub fn is_vertex_line(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("vertex:")
        || text.starts_with("attributes ")
        || text
            .strip_prefix("vertex ")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Parses the vertex directives of `func`.
pub fn parse(func: &ir::Function, lines: &[Comment]) -> Result<Vec<VertexSpec>, DirectiveError> {
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut attributes: Vec<(u8, Vec<[f32; 4]>)> = Vec::new();
    let mut specs: Vec<VertexSpec> = Vec::new();
    for comment in lines {
        let err = |message: String| (comment.line, message);
        let text = comment.text.trim();
        if let Some(rest) = text.strip_prefix("buffer ") {
            buffers.push(parse_buffer(rest).map_err(err)?);
        } else if let Some(rest) = text.strip_prefix("attributes ") {
            let (location, init) = parse_attribute(rest).map_err(err)?;
            attributes.retain(|(l, _)| *l != location);
            attributes.push((location, init));
        } else if let Some(rest) = text.strip_prefix("vertex:") {
            let mut spec = parse_launch(func, rest, &buffers).map_err(err)?;
            spec.line = comment.line;
            spec.text = text.to_string();
            spec.attributes = attributes.clone();
            specs.push(spec);
        } else if let Some(rest) = text.strip_prefix("vertex ") {
            let (index, expected) = rest
                .split_once(':')
                .ok_or_else(|| err("expected `vertex N:`".into()))?;
            let Some(spec) = specs.last_mut() else {
                return Err(err("`vertex N:` before any `vertex:` line".into()));
            };
            let index: usize = index
                .trim()
                .parse()
                .ok()
                .filter(|&i| i < spec.vertex_ids.len())
                .ok_or_else(|| {
                    err(format!(
                        "`{}` is not a vertex of the launch (0–{})",
                        index.trim(),
                        spec.vertex_ids.len() - 1
                    ))
                })?;
            let expected = parse_expected(expected).map_err(err)?;
            spec.checks.push((comment.line, index, expected));
        }
    }
    Ok(specs)
}

/// `%f(ARGS) ids=INIT [instances=INIT]`: INIT in the forms of buffers (`iota 70`, `[…]`).
fn parse_launch(func: &ir::Function, text: &str, buffers: &[Buffer]) -> Result<VertexSpec, String> {
    let text = text.trim();
    let open = text.find('(').ok_or("expected `%f(ARGS) ids=…`")?;
    let close = text.rfind(')').ok_or("missing `)`")?;
    let name = text[..open].trim();
    if name != func.name.to_string() {
        return Err(format!(
            "the launch names `{name}` but the function is `{}`",
            func.name
        ));
    }
    let args = launch::parse_args(func, &text[open + 1..close], buffers)?;
    let rest = text[close + 1..].trim();
    let (ids, instances) = match rest.split_once("instances=") {
        Some((ids, instances)) => (ids, Some(instances)),
        None => (rest, None),
    };
    let words = |name: &str, init: &str| -> Result<Vec<u32>, String> {
        let buffer = parse_buffer(&format!("{name}: i32 = {}", init.trim()))?;
        Ok(buffer
            .values
            .iter()
            .map(|v| match v {
                DataValue::I32(x) => *x as u32,
                _ => 0,
            })
            .collect())
    };
    let ids = ids
        .trim()
        .strip_prefix("ids=")
        .ok_or("expected `ids=INIT`, the vertex ids")?;
    let vertex_ids = words("ids", ids)?;
    if vertex_ids.is_empty() {
        return Err("a launch has at least one vertex".into());
    }
    let instance_ids = match instances {
        Some(init) => words("instances", init)?,
        None => vec![0; vertex_ids.len()],
    };
    if instance_ids.len() != vertex_ids.len() {
        return Err(format!(
            "{} vertex ids but {} instance ids",
            vertex_ids.len(),
            instance_ids.len()
        ));
    }
    Ok(VertexSpec {
        line: 0,
        text: String::new(),
        args,
        buffers: buffers.to_vec(),
        vertex_ids,
        instance_ids,
        attributes: Vec::new(),
        checks: Vec::new(),
    })
}

/// `L: x = INIT; y = INIT; z = INIT; w = INIT`: input attribute L's channels, one value
/// per vertex of the launch that follows.
fn parse_attribute(text: &str) -> Result<(u8, Vec<[f32; 4]>), String> {
    let (location, channels) = text.split_once(':').ok_or("expected `attributes L:`")?;
    let location: u8 = location
        .trim()
        .parse()
        .ok()
        .filter(|&l| l < 32)
        .ok_or_else(|| format!("`{}` is not a location 0–31", location.trim()))?;
    let parts: Vec<&str> = channels.split(';').map(str::trim).collect();
    let mut values: Vec<Vec<f32>> = Vec::new();
    for (part, name) in parts.iter().zip(["x", "y", "z", "w"]) {
        let init = part
            .strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('='))
            .ok_or_else(|| format!("expected `{name} = INIT`, found `{part}`"))?;
        let buffer = parse_buffer(&format!("{name}: f32 = {init}"))?;
        values.push(
            buffer
                .values
                .iter()
                .map(|v| match v {
                    DataValue::F32(x) => f32::from_bits(x.bits()),
                    _ => 0.0,
                })
                .collect(),
        );
    }
    let [x, y, z, w] = values.as_slice() else {
        return Err("expected `x = INIT; y = INIT; z = INIT; w = INIT`".into());
    };
    if [y, z, w].iter().any(|c| c.len() != x.len()) {
        return Err("the four channels have different lengths".into());
    }
    Ok((
        location,
        (0..x.len()).map(|k| [x[k], y[k], z[k], w[k]]).collect(),
    ))
}

/// `pos = [x y z w]; paramL = [x y z w]; point_size = s; clipN = d; …`.
fn parse_expected(text: &str) -> Result<Expected, String> {
    let mut expected = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or("expected `pos = […]`, `paramL = […]`, `point_size = s` or `clipN = d`")?;
        let name = name.trim();
        let numbered = |prefix: &str, below: u8| {
            name.strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .filter(|&n: &u8| n < below)
        };
        let output = match name {
            "pos" => Output::Position,
            "point_size" => Output::PointSize,
            _ => numbered("param", 32)
                .map(Output::Param)
                .or_else(|| numbered("clip", 8).map(Output::Clip))
                .ok_or_else(|| {
                    format!("`{name}` is not pos, param0–param31, point_size or clip0–clip7")
                })?,
        };
        let number = |w: &str| {
            w.parse::<f32>()
                .map_err(|_| format!("`{w}` is not a number"))
        };
        let channels = match output {
            Output::Position | Output::Param(_) => {
                let inner = value
                    .trim()
                    .strip_prefix('[')
                    .and_then(|t| t.strip_suffix(']'))
                    .ok_or_else(|| format!("{name}: expected `[x y z w]`"))?;
                let channels: Vec<f32> = inner
                    .split([' ', ','])
                    .filter(|w| !w.is_empty())
                    .map(number)
                    .collect::<Result<_, _>>()?;
                if channels.len() != 4 {
                    return Err(format!("{name}: four channels"));
                }
                channels
            }
            Output::PointSize | Output::Clip(_) => vec![number(value.trim())?],
        };
        expected.push((output, channels));
    }
    Ok(expected)
}

/// What a vertex launch gave: each vertex's outputs, the run's statistics, and the
/// failures of its checks (`vertex N` lines, the interpreter's reference).
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
    let (memory, _, args) = launch::place_buffers(&spec.buffers, &spec.args, sim.memory())?;
    let mut user_data = Vec::new();
    for arg in &args {
        push_dwords(arg, 0, &mut user_data)?;
    }
    let vertex_launch = VertexLaunch {
        user_data,
        vertex_ids: spec.vertex_ids.clone(),
        instance_ids: spec.instance_ids.clone(),
        attributes: spec.attributes.clone(),
    };
    let reference = interpret_vertex(func, &args, &vertex_launch, &memory);
    let mut simulated_memory = memory;
    let (outputs, stats) = sim
        .launch_vertex(
            compiled,
            &vertex_launch,
            &mut simulated_memory,
            &Options::default(),
        )
        .map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    for (line, index, expected) in &spec.checks {
        if let Some(why) = mismatch(&outputs[*index], expected) {
            failures.push(format!("line {line}: vertex {index}: {why}"));
        }
    }
    match reference {
        VertexReference::Completed(reference) => {
            for (k, (actual, wanted)) in outputs.iter().zip(&reference).enumerate() {
                if actual != wanted {
                    failures.push(format!(
                        "vertex {k}: the simulator gives {}, cranelift-interpreter {}",
                        format_vertex(actual),
                        format_vertex(wanted)
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

fn mismatch(actual: &VertexOutputs, expected: &Expected) -> Option<String> {
    let wrong = expected.iter().any(|(output, channels)| {
        let bits: Vec<u32> = channels.iter().map(|c| c.to_bits()).collect();
        words(actual, *output) != Some(bits)
    });
    wrong.then(|| {
        let parts: Vec<String> = expected
            .iter()
            .map(|(output, c)| {
                format_output(*output, &c.iter().map(|c| c.to_bits()).collect::<Vec<_>>())
            })
            .collect();
        format!(
            "expected {}, got {}",
            parts.join("; "),
            format_vertex(actual)
        )
    })
}

/// The words `actual` holds for `output` (`None`: not written).
fn words(actual: &VertexOutputs, output: Output) -> Option<Vec<u32>> {
    match output {
        Output::Position => actual.position.map(Vec::from),
        Output::Param(l) => actual.params[l as usize].map(Vec::from),
        Output::PointSize => actual.point_size.map(|w| vec![w]),
        Output::Clip(n) => actual.clip_distances[n as usize].map(|w| vec![w]),
    }
}

fn format_output(output: Output, words: &[u32]) -> String {
    let channels: Vec<String> = words
        .iter()
        .map(|&b| format!("{}", f32::from_bits(b)))
        .collect();
    match output {
        Output::Position => format!("pos = [{}]", channels.join(" ")),
        Output::Param(l) => format!("param{l} = [{}]", channels.join(" ")),
        Output::PointSize => format!("point_size = {}", channels.join(" ")),
        Output::Clip(n) => format!("clip{n} = {}", channels.join(" ")),
    }
}

/// A vertex's outputs as the `vertex N` lines write them.
pub fn format_vertex(out: &VertexOutputs) -> String {
    let outputs = [Output::Position, Output::PointSize]
        .into_iter()
        .chain((0..8).map(Output::Clip))
        .chain((0..32).map(Output::Param));
    let parts: Vec<String> = outputs
        .filter_map(|o| words(out, o).map(|w| format_output(o, &w)))
        .collect();
    if parts.is_empty() {
        return "no outputs".into();
    }
    parts.join("; ")
}
