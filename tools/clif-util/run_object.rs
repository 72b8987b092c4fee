//! `clif-util run-object`: launches one kernel of an AMDGPU HSA code object (wavelift's
//! `compile --emit obj`, or another compiler's, such as `llc-19 -filetype=obj`) on the
//! simulator, through the dispatcher the tests use (`sim::gcn::launch_object`), and prints
//! the buffers afterwards.

use crate::launch::{
    Buffer, buffer_bytes, buffer_values, format_buffer, parse_buffer, parse_dims, parse_literal,
    parse_type,
};
use std::path::PathBuf;
use std::process::ExitCode;
use wavelift::isa::gcn::code_object::read::read;
use wavelift::sim::gcn::{Dispatch, launch_object};
use wavelift::sim::harness::push_dwords;
use wavelift::sim::{Memory, Options};

/// Launch a kernel of a GCN code object on the simulator.
///
/// The kernarg segment is the `--arg`s in order, each at its natural alignment (the
/// OpenCL/HSA layout): a buffer's name passes its address (8 bytes), `TYPE VALUE` a value
/// (`i32 300`, `f32 2.5`). The hidden arguments the object's metadata lists follow, filled
/// in as the ROCm runtime does (work-group counts, sizes and remainders, grid dimensions).
/// The grid is in work-items; a size that is not a multiple of the work-group size leaves
/// the last work-group partial.
///
/// Example: `clif-util run-object vadd.o --kernel vadd --size 64 --grid 300
/// --buffer 'a: f32 = iota 300' --buffer 'c: f32 = zero 300' --arg a --arg c --arg 'i32 300'`
#[derive(clap::Args)]
pub struct Args {
    /// The code object.
    file: PathBuf,

    /// The kernel to launch (its symbol name, without `.kd`).
    #[arg(long)]
    kernel: String,

    /// The grid in work-items: `X`, `XxY` or `XxYxZ`.
    #[arg(long)]
    grid: String,

    /// The work-group size: `X`, `XxY` or `XxYxZ`.
    #[arg(long)]
    size: String,

    /// A buffer in global memory: `NAME: TYPE = INIT` (INIT as in `; buffer` directives:
    /// `[1 2 3]`, `fill N V`, `zero N`, `iota N [start A] [step S]`).
    #[arg(long)]
    buffer: Vec<String>,

    /// A kernel argument, in order: a buffer name or `TYPE VALUE`.
    #[arg(long)]
    arg: Vec<String>,

    /// Print every value of each buffer (by default the first rows and the last).
    #[arg(long)]
    dump: bool,
}

pub fn run(args: Args) -> ExitCode {
    match launch(&args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn launch(args: &Args) -> Result<String, String> {
    let file = args.file.display();
    let bytes = std::fs::read(&args.file).map_err(|e| format!("{file}: {e}"))?;
    let object = read(&bytes).map_err(|e| format!("{file}: {e}"))?;
    object.kernel(&args.kernel).ok_or_else(|| {
        let names: Vec<&str> = object.kernels.iter().map(|k| k.name.as_str()).collect();
        format!(
            "{file}: no kernel `{}` (kernels: {})",
            args.kernel,
            names.join(", ")
        )
    })?;
    let buffers: Vec<Buffer> = args
        .buffer
        .iter()
        .map(|b| parse_buffer(b).map_err(|e| format!("--buffer `{b}`: {e}")))
        .collect::<Result<_, _>>()?;
    let mut memory = Memory::new();
    let mut addresses = Vec::new();
    for buffer in &buffers {
        addresses.push(memory.alloc(&buffer_bytes(buffer)?));
    }
    let mut kernarg: Vec<u8> = Vec::new();
    for arg in &args.arg {
        let bytes = match buffers.iter().position(|b| b.name == *arg) {
            Some(i) => addresses[i].to_le_bytes().to_vec(),
            None => {
                let (ty, value) = arg.trim().split_once(' ').ok_or_else(|| {
                    format!("--arg `{arg}`: neither a buffer name nor `TYPE VALUE`")
                })?;
                let ty = parse_type(ty)?;
                let value = parse_literal(ty, value.trim())?;
                let mut dwords = Vec::new();
                push_dwords(&value, 0, &mut dwords)?;
                let le: Vec<u8> = dwords.iter().flat_map(|d| d.to_le_bytes()).collect();
                le[..ty.bytes() as usize].to_vec()
            }
        };
        let at = kernarg.len().next_multiple_of(bytes.len());
        kernarg.resize(at, 0);
        kernarg.extend(bytes);
    }
    let dispatch = Dispatch {
        workgroup_size: parse_dims(&args.size).map_err(|e| format!("--size: {e}"))?,
        grid_size: parse_dims(&args.grid).map_err(|e| format!("--grid: {e}"))?,
        kernarg,
    };
    let stats = launch_object(
        &object,
        &args.kernel,
        &dispatch,
        &mut memory,
        &Options::default(),
    )
    .map_err(|e| format!("{}: {e}", args.kernel))?;
    let mut out = format!(
        "kernel {} on {}: grid {}, work-group size {}: {} waves, {} instructions\n",
        args.kernel, object.processor, args.grid, args.size, stats.waves, stats.instructions
    );
    for (buffer, &address) in buffers.iter().zip(&addresses) {
        let len = buffer.values.len() * buffer.ty.bytes() as usize;
        let after = memory
            .read(address, len)
            .ok_or_else(|| format!("buffer {} cannot be read back", buffer.name))?;
        let now = Buffer {
            values: buffer_values(buffer.ty, after),
            ..buffer.clone()
        };
        out.push_str(&format_buffer(&now, args.dump));
    }
    Ok(out)
}
