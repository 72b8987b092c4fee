//! Fragment shaders run on the GCN simulator (`Simulator::launch_fragment`) for every
//! generation, against the interpreter's reference (`harness::interpret_fragment`, which
//! interpolates from the vertex values) and against values worked out by hand from the
//! scene: three primitives packed in one wave, perspective and flat inputs, a discard in
//! divergent code, depth and two colour targets, explicit barycentrics, the facing.

use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::immediates::Ieee32;
use wavelift::intrinsics::{InterpMode, Interpolation, SamplePoint};
use wavelift::sim::harness::{FragmentReference, interpret_fragment};
use wavelift::sim::{Color, FragmentOutputs, Memory, Options, Scene, simulator};
use wavelift::{Target, ir};

const CPUS: [&str; 4] = ["gfx600", "gfx700", "gfx803", "gfx900"];

/// The functions of `filetests/gcn/fragment.clif` (the precise-output file shows their
/// code), by name.
fn shader(name: &str) -> ir::Function {
    let path = format!("{}/filetests/gcn/fragment.clif", env!("CARGO_MANIFEST_DIR"));
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

/// Attribute `location`'s value at `vertex` of primitive `prim`, channel `chan`: small
/// integers, different for every one.
fn vertex_value(prim: usize, location: u8, vertex: usize, chan: usize) -> f32 {
    (prim * 11 + location as usize * 5 + vertex * 3 + chan) as f32 - 8.0
}

/// Quads 0–3 are primitive 0, 4–8 primitive 1, 9–15 primitive 2; lanes 5 and 62 are not
/// covered. Barycentrics in eighths: I = (lane mod 8)/8, J = (lane/8 mod 4)/8 for every
/// mode; the position is (lane, 2·lane, 0.25, 2); primitive 1 faces away.
fn scene(user_data: Vec<u32>) -> Scene {
    let quads = [0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2].to_vec();
    let primitives = (0..3)
        .map(|prim| {
            (0..3u8)
                .map(|location| {
                    let vertices =
                        [0, 1, 2].map(|v| [0, 1, 2, 3].map(|c| vertex_value(prim, location, v, c)));
                    (location, vertices)
                })
                .collect()
        })
        .collect();
    let ij: Vec<[f32; 2]> = (0..64)
        .map(|lane| [(lane % 8) as f32 / 8.0, (lane / 8 % 4) as f32 / 8.0])
        .collect();
    Scene {
        user_data,
        primitives,
        quads,
        lanes: !(1 << 5 | 1 << 62),
        barycentrics: InterpMode::ALL.iter().map(|&m| (m, ij.clone())).collect(),
        position: (0..64)
            .map(|lane| [lane as f32, 2.0 * lane as f32, 0.25, 2.0])
            .collect(),
        front_facing: vec![true, false, true],
    }
}

/// Runs `name` on every generation; checks the simulator against the interpreter and
/// returns the outputs (the same on every generation).
fn run(name: &str, args: &[DataValue], user_data: Vec<u32>) -> Vec<Option<FragmentOutputs>> {
    let func = shader(name);
    let scene = scene(user_data);
    let FragmentReference::Completed(reference) =
        interpret_fragment(&func, args, &scene, &Memory::new())
    else {
        panic!("{name}: no reference");
    };
    for cpu in CPUS {
        let target = Target::new("amdgcn-amd-amdhsa", cpu).unwrap();
        let code = wavelift::compile_function(&func, &target).unwrap();
        let sim = simulator(target.arch);
        let (outputs, _) = sim
            .launch_fragment(&code, &scene, &mut Memory::new(), &Options::default())
            .unwrap_or_else(|e| panic!("{name} on {cpu}: {e}"));
        for lane in 0..64 {
            assert_eq!(
                outputs[lane], reference[lane],
                "{name} on {cpu}, lane {lane}: simulator | interpreter"
            );
        }
    }
    reference
}

#[test]
fn f16_and_f32_targets() {
    let out = run(
        "f16_and_f32_targets",
        &[DataValue::F32(Ieee32::with_float(0.1))],
        vec![bits(0.1)],
    );
    // Lane 20 (primitive 1; I = 4/8, J = 2/8): attribute 0.x has vertices 3, 6, 9: 6;
    // 0.y 4, 7, 10: 7. Target 0 in f16, toward zero: 6 is 0x4600; 6·0.1 is f32
    // 0x3f19999a, 1.2·2^-1 whose significand truncates to 0x0cc: 0x38cc; 0.3 likewise
    // 0x34cc; 1 is 0x3c00.
    let lane = out[20].as_ref().unwrap();
    assert_eq!(
        lane.color[0],
        Some(Color::F16([0x4600, 0x38cc, 0x34cc, 0x3c00]))
    );
    assert_eq!(
        lane.color[1],
        Some(Color::F32([bits(7.0), bits(6.0), bits(7.0), bits(1.0)]))
    );
}

fn bits(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn perspective_and_flat_inputs_with_a_divergent_discard() {
    let out = run("discard_divergent", &[], vec![]);
    // Lane 0 (primitive 0, I = J = 0): attribute 0.x is A0 = -8 < 0.5: discarded.
    assert_eq!(out[0], None);
    // Lane 5 is not covered.
    assert_eq!(out[5], None);
    // Lane 43 (quad 10, primitive 2; I = 3/8, J = 1/8): attribute 0.x has vertices 14,
    // 17, 20: 14 + 3/8·3 + 1/8·6 = 15.875; attribute 1.y: 20, 23, 26 → 21.875; the flat
    // attribute 1.x: 19.
    let expected = [bits(15.875), bits(21.875), bits(19.0), bits(1.0)];
    assert_eq!(
        out[43].as_ref().unwrap().color[0],
        Some(Color::F32(expected))
    );
    assert_eq!(out[43].as_ref().unwrap().depth, None);
    // Some lanes of every primitive survive and some are discarded? Primitive 0's
    // attribute 0.x is at most -8 + 7/8·3 + 3/8·6 < 0.5: all of them are discarded;
    // primitive 1's starts at 3: none is.
    assert!((0..16).all(|l| out[l].is_none()));
    assert!((16..36).all(|l| l == 5 || out[l].is_some()));
}

#[test]
fn depth_and_two_targets_with_user_data() {
    let scale = 0.5f32;
    let out = run(
        "depth_and_targets",
        &[DataValue::F32(Ieee32::with_float(scale))],
        vec![bits(scale)],
    );
    // Lane 20 (quad 5, primitive 1; I = 4/8, J = 2/8): attribute 2.z has vertices 15, 18,
    // 21: 15 + 1.5 + 1.5 = 18, scaled 9; position (20, 40).
    let lane = out[20].as_ref().unwrap();
    assert_eq!(lane.depth, Some(bits(18.0)));
    assert_eq!(lane.color[0], Some(Color::F32([bits(18.0); 4])));
    assert_eq!(lane.color[1], None);
    assert_eq!(
        lane.color[2],
        Some(Color::F32([bits(20.0), bits(40.0), bits(9.0), bits(18.0)]))
    );
}

#[test]
fn explicit_barycentrics_facing_and_one_over_w() {
    let out = run("at_and_builtins", &[], vec![]);
    // Lane 20 (primitive 1, faces away; I = 4/8, J = 2/8): attribute 1.x at (I/2, J) of
    // vertices 8, 11, 14 is 8 + 3/4 + 3/2 = 10.25; 1/w = 0.5.
    let lane = out[20].as_ref().unwrap();
    assert_eq!(
        lane.color[0],
        Some(Color::F32([bits(10.25), bits(0.0), bits(0.5), bits(0.5)]))
    );
    // Lane 43 (primitive 2, faces the viewer).
    assert_eq!(out[43].as_ref().unwrap().color[0].unwrap().values()[1], 1.0);
}

#[test]
fn an_empty_shader_exports_nothing_for_its_lanes() {
    let out = run("empty", &[], vec![]);
    assert_eq!(out[0], Some(FragmentOutputs::default()));
    assert_eq!(out[5], None);
}

#[test]
fn a_mode_the_scene_lacks_is_refused_by_the_reference() {
    let func = shader("discard_divergent");
    let mut scene = scene(vec![]);
    let center = InterpMode::new(Interpolation::Perspective, SamplePoint::Center);
    scene.barycentrics.retain(|(m, _)| *m != center);
    let reference = interpret_fragment(&func, &[], &scene, &Memory::new());
    assert!(
        matches!(reference, FragmentReference::Unavailable(why) if why.contains("perspective_center"))
    );
}
