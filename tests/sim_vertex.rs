//! Vertex shaders run on the GCN simulator (`Simulator::launch_vertex`) for every
//! generation, over several waves with a partial last one, against the interpreter's
//! reference (`harness::interpret_vertex`) and against values computed here in Rust from
//! the vertex buffers: attributes loaded by vertex id and by instance id, parameters at
//! non-contiguous locations, and divergent control flow.

use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::immediates::Ieee32;
use wavelift::sim::harness::{VertexReference, interpret_vertex};
use wavelift::sim::{Memory, Options, VertexLaunch, VertexOutputs, simulator};
use wavelift::{Target, ir};

const CPUS: [&str; 4] = ["gfx600", "gfx700", "gfx803", "gfx900"];

/// The functions of `filetests/gcn/vertex.clif` (the precise-output file shows their
/// code), by name.
fn shader(name: &str) -> ir::Function {
    let path = format!("{}/filetests/gcn/vertex.clif", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("test ") && !l.starts_with("target "))
        .collect();
    cranelift_reader::parse_functions(&body.join("\n"))
        .unwrap()
        .into_iter()
        .find(|f| f.name.to_string() == format!("%{name}"))
        .unwrap()
}

fn words(x: [f32; 4]) -> Option<[u32; 4]> {
    Some(x.map(f32::to_bits))
}

/// Runs `name` on every generation with user data `args` (buffers already in `memory`);
/// checks the simulator against the interpreter and returns the outputs.
fn run(
    name: &str,
    args: &[DataValue],
    launch: &VertexLaunch,
    memory: &Memory,
) -> Vec<VertexOutputs> {
    let func = shader(name);
    let VertexReference::Completed(reference) = interpret_vertex(&func, args, launch, memory)
    else {
        panic!("{name}: no reference");
    };
    for cpu in CPUS {
        let target = Target::new("amdgcn-amd-amdhsa", cpu).unwrap();
        let code = wavelift::compile_function(&func, &target).unwrap();
        let sim = simulator(target.arch);
        let (outputs, stats) = sim
            .launch_vertex(&code, launch, &mut memory.clone(), &Options::default())
            .unwrap_or_else(|e| panic!("{name} on {cpu}: {e}"));
        assert_eq!(stats.waves as usize, launch.vertex_ids.len().div_ceil(64));
        assert_eq!(
            outputs, reference,
            "{name} on {cpu}: simulator | interpreter"
        );
    }
    reference
}

#[test]
fn attributes_by_vertex_and_instance_id_over_a_partial_wave() {
    let mut memory = simulator(Target::new("amdgcn-amd-amdhsa", "gfx900").unwrap().arch).memory();
    // 200 vertices of three floats: vertex v is (v, v + 0.5, -v); 5 instance colours.
    let positions: Vec<u8> = (0..200)
        .flat_map(|v| [v as f32, v as f32 + 0.5, -(v as f32)])
        .flat_map(f32::to_le_bytes)
        .collect();
    let colors: Vec<u8> = (0..20)
        .map(|k| k as f32 * 0.25)
        .flat_map(f32::to_le_bytes)
        .collect();
    let (p, c) = (memory.alloc(&positions), memory.alloc(&colors));
    // 130 vertices (two full waves and one of 2), ids out of order, instances k mod 5.
    let ids: Vec<u32> = (0..130).map(|k| (k * 37) % 200).collect();
    let instances: Vec<u32> = (0..130).map(|k| k % 5).collect();
    let mut user_data = Vec::new();
    for word in [
        p as u32,
        (p >> 32) as u32,
        c as u32,
        (c >> 32) as u32,
        3f32.to_bits(),
    ] {
        user_data.push(word);
    }
    let launch = VertexLaunch {
        user_data,
        vertex_ids: ids.clone(),
        instance_ids: instances.clone(),
        attributes: Vec::new(),
    };
    let args = [
        DataValue::I64(p as i64),
        DataValue::I64(c as i64),
        DataValue::F32(Ieee32::with_float(3.0)),
    ];
    let out = run("attributes", &args, &launch, &memory);
    assert_eq!(out.len(), 130);
    for (k, o) in out.iter().enumerate() {
        let (v, i) = (ids[k] as f32, instances[k] as f32);
        assert_eq!(o.position, words([3.0 * v, v + 0.5, -v, 1.0]), "vertex {k}");
        let color = [0, 1, 2, 3].map(|c| (instances[k] * 4 + c) as f32 * 0.25);
        assert_eq!(o.params[1], words(color), "vertex {k}");
        assert_eq!(o.params[4], words([v, i, 0.0, 1.0]), "vertex {k}");
        assert!(
            (0..32).all(|l| l == 1 || l == 4 || o.params[l].is_none()),
            "vertex {k}: only locations 1 and 4"
        );
    }
}

#[test]
fn divergent_vertices_over_a_partial_wave() {
    let launch = VertexLaunch {
        user_data: vec![],
        vertex_ids: (0..77).collect(),
        instance_ids: vec![],
        attributes: Vec::new(),
    };
    let out = run("divergent", &[], &launch, &Memory::new());
    for (v, o) in out.iter().enumerate() {
        let x = if v % 2 == 1 {
            -(v as f32)
        } else {
            (0..(v & 7)).sum::<usize>() as f32
        };
        assert_eq!(o.position, words([x, x, 0.0, 1.0]), "vertex {v}");
        assert_eq!(o.params[7], words([1.0, x, x, 0.0]), "vertex {v}");
    }
}

#[test]
fn a_launch_with_the_wrong_user_data_is_an_error() {
    let target = Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap();
    let code = wavelift::compile_function(&shader("attributes"), &target).unwrap();
    let launch = VertexLaunch {
        user_data: vec![0; 2],
        vertex_ids: vec![0],
        instance_ids: vec![],
        attributes: Vec::new(),
    };
    let error = simulator(target.arch)
        .launch_vertex(&code, &launch, &mut Memory::new(), &Options::default())
        .unwrap_err();
    assert!(
        error.to_string().contains("5 words of user data"),
        "{error}"
    );
}
