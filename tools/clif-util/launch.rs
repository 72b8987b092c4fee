//! Kernel-launch directives: how a filetest (or `clif-util run`) runs a kernel over a grid
//! on the simulator and checks the buffers it writes.
//!
//! ```text
//! ; buffer x: f32 = iota 256              ; 0.0, 1.0, …, 255.0
//! ; buffer y: f32 = fill 256 1.0
//! ; launch: %saxpy(x, y, 2.0) size=64 groups=4
//! ; expect y: f32 = iota 256 start 1.0 step 2.0
//! ```
//!
//! - `buffer NAME: TYPE = INIT` declares a buffer in global memory. A launch argument that
//!   names a buffer passes its address (the parameter must be `i64`).
//! - `launch: %f(ARGS) size=X[xYxZ] groups=X[xYxZ]` runs the kernel with work-groups of
//!   `size` work-items, `groups` of them; every launch starts from freshly initialised
//!   buffers. Other arguments are CLIF literals of the parameter's type.
//! - `expect NAME: TYPE = INIT` (after a launch line) checks a buffer's contents after
//!   that launch, value by value (any NaN matches any NaN).
//!
//! `INIT` is `[v v …]` (values separated by spaces or commas), `fill N V`, `zero N` or
//! `iota N [start A] [step S]` (A + i·S, computed exactly and converted to the type).

use crate::clif_file::Comment;
use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::isa::CallConv;
use std::fmt::Write as _;
use wavelift::ir::{self, AbiParam, Signature, types};
use wavelift::sim::harness::{
    LaunchReference, interpret_launch, param_block, push_dwords, same_value,
};
use wavelift::sim::{Launch, Memory, Options, Stats, simulator};
use wavelift::{CompiledCode, Target};

/// A buffer declaration.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub name: String,
    pub ty: ir::Type,
    pub values: Vec<DataValue>,
}

/// A launch argument.
#[derive(Clone, Debug)]
pub enum Arg {
    Value(DataValue),
    Buffer(String),
}

impl LaunchSpec {
    /// The launch's shape as people say it: `work-group size 64, 4 work-groups`
    /// (`64x2`, `2x3` for more dimensions).
    pub fn shape(&self) -> String {
        let dims = |v: [u32; 3]| {
            let used = v.iter().rposition(|&d| d != 1).map_or(1, |i| i + 1);
            v[..used]
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("x")
        };
        let groups: u32 = self.groups.iter().product();
        let grid = dims(self.groups);
        format!(
            "work-group size {}, {groups} work-group{}{}",
            dims(self.workgroup_size),
            if groups == 1 { "" } else { "s" },
            if grid.contains('x') {
                format!(" ({grid})")
            } else {
                String::new()
            }
        )
    }

    /// The kernel call of the directive: `%saxpy(x, y, 2.0)`.
    pub fn call(&self) -> &str {
        self.text.split(" size=").next().unwrap_or(&self.text)
    }
}

/// One `launch:` line with the buffers declared before it and the expectations after it.
#[derive(Clone, Debug)]
pub struct LaunchSpec {
    pub line: usize,
    pub text: String,
    args: Vec<Arg>,
    workgroup_size: [u32; 3],
    groups: [u32; 3],
    buffers: Vec<Buffer>,
    expects: Vec<(usize, Buffer)>,
}

/// A directive that does not parse: the line number and why.
pub type DirectiveError = (usize, String);

/// Parses the launch directives of `func` (comments from `ClifFile::launch_lines`).
pub fn parse(func: &ir::Function, lines: &[Comment]) -> Result<Vec<LaunchSpec>, DirectiveError> {
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut launches: Vec<LaunchSpec> = Vec::new();
    for comment in lines {
        let err = |message: String| (comment.line, message);
        let text = comment.text.trim();
        if let Some(rest) = text.strip_prefix("buffer ") {
            let buffer = parse_buffer(rest).map_err(err)?;
            if buffers.iter().any(|b| b.name == buffer.name) {
                return Err(err(format!("buffer `{}` is declared twice", buffer.name)));
            }
            buffers.push(buffer);
        } else if let Some(rest) = text.strip_prefix("expect ") {
            let expect = parse_buffer(rest).map_err(err)?;
            let Some(launch) = launches.last_mut() else {
                return Err(err("`expect` before any `launch:` line".into()));
            };
            let Some(declared) = launch.buffers.iter().find(|b| b.name == expect.name) else {
                return Err(err(format!("no buffer `{}` was declared", expect.name)));
            };
            if declared.ty != expect.ty || declared.values.len() != expect.values.len() {
                return Err(err(format!(
                    "buffer `{}` holds {} × {}, the expectation has {} × {}",
                    expect.name,
                    declared.values.len(),
                    declared.ty,
                    expect.values.len(),
                    expect.ty
                )));
            }
            launch.expects.push((comment.line, expect));
        } else if let Some(rest) = text.strip_prefix("launch:") {
            let mut spec = parse_launch(func, rest, &buffers).map_err(err)?;
            spec.line = comment.line;
            launches.push(spec);
        }
    }
    Ok(launches)
}

impl LaunchSpec {
    /// How many `expect` lines check this launch.
    pub fn expectation_count(&self) -> usize {
        self.expects.len()
    }
}

pub fn parse_buffer(text: &str) -> Result<Buffer, String> {
    let (name, rest) = text.split_once(':').ok_or("expected `NAME: TYPE = INIT`")?;
    let (ty, init) = rest.split_once('=').ok_or("expected `NAME: TYPE = INIT`")?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!("bad buffer name `{name}`"));
    }
    let ty = parse_type(ty.trim())?;
    Ok(Buffer {
        name: name.to_string(),
        ty,
        values: parse_init(ty, init.trim())?,
    })
}

pub fn parse_type(text: &str) -> Result<ir::Type, String> {
    match text {
        "i8" => Ok(types::I8),
        "i16" => Ok(types::I16),
        "i32" => Ok(types::I32),
        "i64" => Ok(types::I64),
        "f32" => Ok(types::F32),
        "f64" => Ok(types::F64),
        _ => Err(format!(
            "unsupported element type `{text}` (i8, i16, i32, i64, f32, f64)"
        )),
    }
}

/// A CLIF literal of type `ty`, in cranelift-reader's syntax (the same as run lines), or
/// a decimal float (`2.5`, `-1e-3`; rounded correctly) for float types.
pub fn parse_literal(ty: ir::Type, text: &str) -> Result<DataValue, String> {
    let decimal = !text.starts_with(['0', '-', '+']) || !text.contains(['x', 'X']);
    if ty == types::F32
        && decimal
        && let Ok(v) = text.parse::<f32>()
    {
        return Ok(DataValue::F32(ir::immediates::Ieee32::with_float(v)));
    }
    if ty == types::F64
        && decimal
        && let Ok(v) = text.parse::<f64>()
    {
        return Ok(DataValue::F64(ir::immediates::Ieee64::with_float(v)));
    }
    let mut signature = Signature::new(CallConv::Fast);
    signature.params.push(AbiParam::new(ty));
    match cranelift_reader::parse_run_command(&format!("print: %f({text})"), &signature) {
        Ok(Some(cranelift_reader::RunCommand::Print(invocation))) => {
            Ok(invocation.args.into_iter().next().expect("one argument"))
        }
        Ok(_) => Err(format!("`{text}` is not a {ty} literal")),
        Err(e) => Err(format!("`{text}` is not a {ty} literal: {}", e.message)),
    }
}

fn parse_count(text: Option<&str>) -> Result<usize, String> {
    let text = text.ok_or("missing element count")?;
    let n: usize = text
        .parse()
        .map_err(|_| format!("bad element count `{text}`"))?;
    if n > 1 << 24 {
        return Err(format!("{n} elements is too many"));
    }
    Ok(n)
}

fn parse_init(ty: ir::Type, text: &str) -> Result<Vec<DataValue>, String> {
    if let Some(list) = text.strip_prefix('[') {
        let list = list.strip_suffix(']').ok_or("missing `]`")?;
        return list
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(|s| parse_literal(ty, s))
            .collect();
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.first().copied() {
        Some("zero") => {
            let n = parse_count(words.get(1).copied())?;
            Ok(vec![number(ty, 0.0, 0)?; n])
        }
        Some("fill") => {
            let n = parse_count(words.get(1).copied())?;
            let value = parse_literal(ty, words.get(2).ok_or("`fill N VALUE`")?)?;
            if words.len() > 3 {
                return Err("`fill N VALUE` takes two operands".into());
            }
            Ok(vec![value; n])
        }
        Some("iota") => {
            let n = parse_count(words.get(1).copied())?;
            let (mut start, mut step) = (number(ty, 0.0, 0)?, number(ty, 1.0, 1)?);
            let mut rest = words[2..].chunks(2);
            for pair in rest.by_ref() {
                match pair {
                    ["start", v] => start = parse_literal(ty, v)?,
                    ["step", v] => step = parse_literal(ty, v)?,
                    _ => {
                        return Err(format!(
                            "expected `start A` or `step S`, found `{}`",
                            pair.join(" ")
                        ));
                    }
                }
            }
            (0..n).map(|i| affine(&start, &step, i)).collect()
        }
        _ => Err(format!(
            "expected `[v …]`, `fill N V`, `zero N` or `iota N [start A] [step S]`, found `{text}`"
        )),
    }
}

/// The value `float` (for float types) or `int` (for integer types) of type `ty`.
fn number(ty: ir::Type, float: f64, int: i128) -> Result<DataValue, String> {
    if ty.is_float() {
        match ty {
            types::F32 => Ok(DataValue::F32(ir::immediates::Ieee32::with_float(
                float as f32,
            ))),
            _ => Ok(DataValue::F64(ir::immediates::Ieee64::with_float(float))),
        }
    } else {
        DataValue::from_integer(int, ty).map_err(|e| e.to_string())
    }
}

/// `start + i·step`: exact for integers (wrapping to the type), rounded once for floats.
fn affine(start: &DataValue, step: &DataValue, i: usize) -> Result<DataValue, String> {
    let as_f64 = |v: &DataValue| match v {
        DataValue::F32(x) => Some(x.as_f32() as f64),
        DataValue::F64(x) => Some(x.as_f64()),
        _ => None,
    };
    let as_int = |v: &DataValue| -> Option<i128> {
        match *v {
            DataValue::I8(x) => Some(x.into()),
            DataValue::I16(x) => Some(x.into()),
            DataValue::I32(x) => Some(x.into()),
            DataValue::I64(x) => Some(x.into()),
            _ => None,
        }
    };
    let ty = start.ty();
    match (as_f64(start), as_f64(step), as_int(start), as_int(step)) {
        (Some(a), Some(s), _, _) => number(ty, a + i as f64 * s, 0),
        (_, _, Some(a), Some(s)) => {
            let bits = ty.bits();
            let wrapped = (a + i as i128 * s) & ((1i128 << bits) - 1);
            let signed = (wrapped << (128 - bits)) >> (128 - bits);
            number(ty, 0.0, signed)
        }
        _ => Err("iota needs numbers".into()),
    }
}

/// Parses `size=…` and `groups=…`: one to three dimensions `XxYxZ`.
pub fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let mut dims = [1u32; 3];
    let parts: Vec<&str> = text.split('x').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("bad dimensions `{text}`"));
    }
    for (dim, part) in dims.iter_mut().zip(parts) {
        *dim = part
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("bad dimension `{part}` in `{text}`"))?;
    }
    Ok(dims)
}

/// A launch's arguments, `ARGS` of `%f(ARGS)`: a buffer's name (for an `i64` parameter)
/// or a literal of the parameter's type.
pub fn parse_args(func: &ir::Function, text: &str, buffers: &[Buffer]) -> Result<Vec<Arg>, String> {
    let text = text.trim();
    let words: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        text.split(',').map(str::trim).collect()
    };
    let params = &func.signature.params;
    if words.len() != params.len() {
        return Err(format!(
            "{} arguments for {} parameters",
            words.len(),
            params.len()
        ));
    }
    let mut args = Vec::new();
    for (word, param) in words.iter().zip(params) {
        if let Some(buffer) = buffers.iter().find(|b| b.name == *word) {
            if param.value_type != types::I64 {
                return Err(format!(
                    "buffer `{}` is passed as a pointer, but the parameter is {}",
                    buffer.name, param.value_type
                ));
            }
            args.push(Arg::Buffer(buffer.name.clone()));
        } else {
            args.push(Arg::Value(parse_literal(param.value_type, word)?));
        }
    }
    Ok(args)
}

fn parse_launch(func: &ir::Function, text: &str, buffers: &[Buffer]) -> Result<LaunchSpec, String> {
    let text = text.trim();
    let open = text
        .find('(')
        .ok_or("expected `%f(ARGS) size=… groups=…`")?;
    let close = text.rfind(')').ok_or("missing `)`")?;
    let name = text[..open].trim();
    if name != func.name.to_string() {
        return Err(format!(
            "the launch names `{name}` but the function is `{}`",
            func.name
        ));
    }
    let args = parse_args(func, &text[open + 1..close], buffers)?;
    let (mut workgroup_size, mut groups) = (None, None);
    for word in text[close + 1..].split_whitespace() {
        if let Some(v) = word.strip_prefix("size=") {
            workgroup_size = Some(parse_dims(v)?);
        } else if let Some(v) = word.strip_prefix("groups=") {
            groups = Some(parse_dims(v)?);
        } else {
            return Err(format!("unknown launch option `{word}` (size=, groups=)"));
        }
    }
    let workgroup_size = workgroup_size.ok_or("missing `size=`")?;
    if workgroup_size.iter().product::<u32>() > 1024 {
        return Err("a work-group has at most 1024 work-items".into());
    }
    Ok(LaunchSpec {
        line: 0,
        text: text.to_string(),
        args,
        workgroup_size,
        groups: groups.unwrap_or([1, 1, 1]),
        buffers: buffers.to_vec(),
        expects: Vec::new(),
    })
}

pub fn buffer_bytes(buffer: &Buffer) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let size = buffer.ty.bytes() as usize;
    for value in &buffer.values {
        let mut dwords = Vec::new();
        push_dwords(value, 0, &mut dwords)?;
        let le: Vec<u8> = dwords.iter().flat_map(|d| d.to_le_bytes()).collect();
        bytes.extend_from_slice(&le[..size]);
    }
    Ok(bytes)
}

pub fn buffer_values(ty: ir::Type, bytes: &[u8]) -> Vec<DataValue> {
    bytes
        .chunks(ty.bytes() as usize)
        .map(|chunk| DataValue::read_from_slice_le(chunk, ty))
        .collect()
}

/// What a launch did: every buffer's final contents and the expectation failures.
pub struct Outcome {
    pub buffers: Vec<Buffer>,
    pub failures: Vec<String>,
    pub stats: Stats,
}

/// The buffers of `spec` placed in `memory` (fresh, with the target's addresses), their
/// addresses, and the launch's arguments (a buffer's name replaced by its address).
fn place(spec: &LaunchSpec, memory: Memory) -> Result<(Memory, Vec<u64>, Vec<DataValue>), String> {
    place_buffers(&spec.buffers, &spec.args, memory)
}

/// `buffers` placed in `memory`, their addresses, and `args` with each buffer's name
/// replaced by its address.
pub fn place_buffers(
    buffers: &[Buffer],
    args: &[Arg],
    mut memory: Memory,
) -> Result<(Memory, Vec<u64>, Vec<DataValue>), String> {
    let mut addresses = Vec::new();
    for buffer in buffers {
        addresses.push(memory.alloc(&buffer_bytes(buffer)?));
    }
    let address_of = |name: &str| {
        let i = buffers.iter().position(|b| b.name == name);
        addresses[i.expect("parse checked the buffer names")]
    };
    let args: Vec<DataValue> = args
        .iter()
        .map(|arg| match arg {
            Arg::Value(v) => v.clone(),
            Arg::Buffer(name) => DataValue::I64(address_of(name) as i64),
        })
        .collect();
    Ok((memory, addresses, args))
}

/// The contents of `spec`'s buffers in `memory`.
fn read_back(spec: &LaunchSpec, addresses: &[u64], memory: &Memory) -> Result<Vec<Buffer>, String> {
    let mut buffers = Vec::new();
    for (buffer, &address) in spec.buffers.iter().zip(addresses) {
        let len = buffer.values.len() * buffer.ty.bytes() as usize;
        let bytes = memory
            .read(address, len)
            .ok_or_else(|| format!("buffer `{}` vanished", buffer.name))?;
        buffers.push(Buffer {
            values: buffer_values(buffer.ty, bytes),
            ..buffer.clone()
        });
    }
    Ok(buffers)
}

/// Runs `spec` with the compiled kernel on `target`'s simulator.
pub fn execute(
    func: &ir::Function,
    compiled: &CompiledCode,
    target: &Target,
    spec: &LaunchSpec,
) -> Result<Outcome, String> {
    let simulator = simulator(target.arch);
    let (mut memory, addresses, args) = place(spec, simulator.memory())?;
    let launch = Launch {
        workgroup_size: spec.workgroup_size,
        groups: spec.groups,
        // Garbage in the unused bytes of narrow arguments, which kernels must ignore.
        params: param_block(target, &func.signature, &args, 0xa5a5_a500)?,
    };
    let stats = simulator
        .launch(compiled, &launch, &mut memory, &Options::default())
        .map_err(|e| e.to_string())?;
    let buffers = read_back(spec, &addresses, &memory)?;
    let mut failures = Vec::new();
    for (line, expect) in &spec.expects {
        let actual = buffers
            .iter()
            .find(|b| b.name == expect.name)
            .expect("parse checked the names");
        let wrong: Vec<usize> = (0..expect.values.len())
            .filter(|&i| !same_value(&expect.values[i], &actual.values[i]))
            .collect();
        if let Some(&first) = wrong.first() {
            failures.push(format!(
                "line {line}: buffer `{}`: {} of {} elements differ; first at index {first}: \
                 expected {}, got {}",
                expect.name,
                wrong.len(),
                expect.values.len(),
                expect.values[first],
                actual.values[first]
            ));
        }
    }
    Ok(Outcome {
        buffers,
        failures,
        stats,
    })
}

/// What `cranelift-interpreter` makes of a launch (see `harness::interpret_launch`).
pub enum Reference {
    /// Every buffer's contents after the launch.
    Buffers(Vec<Buffer>),
    /// Why the interpreter cannot say: a work-item traps in CLIF (where the backend defines
    /// a result instead, docs/ir.md), or the kernel is beyond the interpreter.
    Unavailable(String),
}

/// Runs `spec` in `cranelift-interpreter`, work-item after work-item, with `target`'s
/// addresses and lanes per wave (which the lane-id intrinsic counts in).
pub fn reference(
    func: &ir::Function,
    module: &[ir::Function],
    target: &Target,
    spec: &LaunchSpec,
) -> Result<Reference, String> {
    let simulator = simulator(target.arch);
    let (memory, addresses, args) = place(spec, simulator.memory())?;
    let lanes = simulator.lanes();
    Ok(
        match interpret_launch(
            func,
            module,
            &args,
            spec.workgroup_size,
            spec.groups,
            lanes,
            &memory,
        ) {
            LaunchReference::Completed(memory) => {
                Reference::Buffers(read_back(spec, &addresses, &memory)?)
            }
            LaunchReference::Trapped(why) => Reference::Unavailable(format!("CLIF traps: {why}")),
            LaunchReference::Unavailable(why) => Reference::Unavailable(why),
        },
    )
}

/// Where the simulated buffers differ from the interpreter's: one message per buffer.
pub fn differences(simulated: &[Buffer], reference: &[Buffer]) -> Vec<String> {
    let mut failures = Vec::new();
    for (actual, expected) in simulated.iter().zip(reference) {
        let wrong: Vec<usize> = (0..expected.values.len())
            .filter(|&i| !same_value(&expected.values[i], &actual.values[i]))
            .collect();
        if let Some(&first) = wrong.first() {
            failures.push(format!(
                "buffer `{}`: {} of {} elements differ from cranelift-interpreter's; first at \
                 index {first}: interpreter {}, simulator {}",
                expected.name,
                wrong.len(),
                expected.values.len(),
                expected.values[first],
                actual.values[first]
            ));
        }
    }
    failures
}

/// A buffer's contents, eight values to a line (floats in decimal, as Rust prints them:
/// the shortest text that reads back to the same value).
/// Rows of eight values [`format_buffer`] shows of a longer buffer without `all`: the
/// first ones and the last.
const SHORT_ROWS: usize = 4;

/// A buffer's values, eight to a row with the index of the first; without `all`, a buffer
/// of more than `SHORT_ROWS + 1` rows shows its first `SHORT_ROWS` and its last, and says
/// how many it left out.
pub fn format_buffer(buffer: &Buffer, all: bool) -> String {
    let mut out = format!(
        "buffer {}: {} x {}\n",
        buffer.name,
        buffer.ty,
        buffer.values.len()
    );
    let rows = buffer.values.len().div_ceil(8);
    let shown = |row: usize| all || rows <= SHORT_ROWS + 1 || row < SHORT_ROWS || row + 1 == rows;
    for (row, chunk) in buffer.values.chunks(8).enumerate() {
        if !shown(row) {
            if row == SHORT_ROWS {
                let _ = writeln!(
                    out,
                    "  … {} rows left out (--dump shows every value)",
                    rows - SHORT_ROWS - 1
                );
            }
            continue;
        }
        let values: Vec<String> = chunk
            .iter()
            .map(|v| match v {
                DataValue::F32(x) => format!("{:?}", x.as_f32()),
                DataValue::F64(x) => format!("{:?}", x.as_f64()),
                other => other.to_string(),
            })
            .collect();
        let _ = writeln!(out, "  [{:4}] {}", row * 8, values.join(" "));
    }
    out
}

/// Whether a launch changed `buffer` (its final contents differ from its declaration).
pub fn written(spec: &LaunchSpec, buffer: &Buffer) -> bool {
    spec.buffers
        .iter()
        .find(|b| b.name == buffer.name)
        .is_none_or(|initial| {
            initial
                .values
                .iter()
                .zip(&buffer.values)
                .any(|(a, b)| !a.bitwise_eq(b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> ir::Function {
        cranelift_reader::parse_functions(
            "function %k(i64, f32) system_v {\nblock0(v0: i64, v1: f32):\n return\n}",
        )
        .unwrap()
        .remove(0)
    }

    fn comments(lines: &[&str]) -> Vec<Comment> {
        lines
            .iter()
            .enumerate()
            .map(|(i, text)| Comment {
                line: i + 1,
                text: text.to_string(),
            })
            .collect()
    }

    #[test]
    fn directives_parse() {
        let specs = parse(
            &kernel(),
            &comments(&[
                "buffer x: f32 = iota 4 start 1.0 step 0.5",
                "launch: %k(x, 2.0) size=64 groups=2x3",
                "expect x: f32 = [1.0 1.5, 2.0 2.5]",
            ]),
        )
        .unwrap();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].workgroup_size, [64, 1, 1]);
        assert_eq!(specs[0].groups, [2, 3, 1]);
        let expected: Vec<f32> = vec![1.0, 1.5, 2.0, 2.5];
        let values = &specs[0].buffers[0].values;
        for (v, e) in values.iter().zip(expected) {
            assert_eq!(*v, DataValue::F32(ir::immediates::Ieee32::with_float(e)));
        }
        assert_eq!(specs[0].expects.len(), 1);
    }

    #[test]
    fn integer_iota_wraps() {
        let values = parse_init(types::I8, "iota 3 start 127 step 1").unwrap();
        assert_eq!(
            values,
            [DataValue::I8(127), DataValue::I8(-128), DataValue::I8(-127)]
        );
        assert_eq!(
            parse_init(types::I32, "fill 2 -1").unwrap(),
            vec![DataValue::I32(-1); 2]
        );
    }

    #[test]
    fn bad_directives_are_errors() {
        let k = kernel();
        let bad = |lines: &[&str]| parse(&k, &comments(lines)).unwrap_err();
        assert_eq!(bad(&["expect x: f32 = zero 1"]).0, 1);
        assert!(
            bad(&["launch: %k(1.0, 2.0) size=64"])
                .1
                .contains("not a i64 literal")
                || bad(&["launch: %k(1.0, 2.0) size=64"]).1.contains("literal")
        );
        assert!(
            bad(&["launch: %other(1, 2.0) size=64"])
                .1
                .contains("function")
        );
        assert!(bad(&["launch: %k(1, 2.0)"]).1.contains("size="));
        assert!(bad(&["launch: %k(1, 2.0) size=2048"]).1.contains("1024"));
        assert!(
            bad(&[
                "buffer x: f32 = zero 2",
                "launch: %k(x, 2.0) size=1",
                "expect x: f32 = zero 3"
            ])
            .1
            .contains("holds")
        );
        assert!(bad(&["buffer x: f32 = bogus"]).1.contains("expected"));
        assert!(bad(&["buffer x: i128 = zero 1"]).1.contains("unsupported"));
    }
}
