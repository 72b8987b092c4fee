//! Every function of the GCN filetests, compiled and run on the simulator: the backend's
//! code must pass the wait-count and hazard checks (device functions are called with a few
//! argument patterns; kernels are not launched here, their buffers are test-specific).

use wavelift::FunctionKind;
use wavelift::Target;
use wavelift::isa::gcn::mc::Gen;
use wavelift::sim::gcn::{Memory, Options, Violation, call_device};

#[test]
fn compiled_device_functions_pass_the_checks() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/filetests/gcn");
    let target = Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap();
    let mut ran = 0;
    let mut failures = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let body: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("test ") && !l.starts_with("target "))
            .collect();
        let Ok(funcs) = cranelift_reader::parse_functions(&body.join("\n")) else {
            continue;
        };
        for func in funcs {
            let Ok(code) = wavelift::compile_function(&func, &target) else {
                continue;
            };
            if code.kind != FunctionKind::Device {
                continue;
            }
            let params: usize = func
                .signature
                .params
                .iter()
                .map(|p| (p.value_type.bytes().max(4) / 4) as usize)
                .sum();
            let results: usize = func
                .signature
                .returns
                .iter()
                .map(|p| (p.value_type.bytes().max(4) / 4) as usize)
                .sum();
            // 64 lanes of varied arguments (no pointers: memory functions fault, which is
            // not what this test looks for).
            let args: Vec<Vec<u32>> = (0..64u32)
                .map(|lane| {
                    (0..params as u32)
                        .map(|k| lane.wrapping_mul(0x9e37_79b9).rotate_left(k * 7) ^ (k * 3))
                        .collect()
                })
                .collect();
            let mut memory = Memory::new();
            match call_device(
                &code.code,
                Gen::Gfx8,
                &args,
                results,
                &mut memory,
                &Options::default(),
            ) {
                Ok(_) => ran += 1,
                Err(e) if matches!(e.violation, Violation::Memory { .. }) => ran += 1,
                Err(e) => failures.push(format!("{} {}: {e}", path.display(), func.name)),
            }
        }
    }
    println!("{ran} device functions ran");
    assert!(ran > 10, "only {ran} functions ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
