//! Calls between the functions of a module (docs/ir.md, "Calls") through the code object:
//! `compile_module` resolves the call sites and sizes each kernel's private segment over
//! its deepest chain of calls; the dispatcher runs the kernel from the object.

use wavelift::isa::gcn::code_object::read::read;
use wavelift::sim::gcn::{Dispatch, launch_object};
use wavelift::sim::{Memory, Options};
use wavelift::{Target, ir};

const MODULE: &str = "
function %leaf(i32) -> i32 fast {
    ss0 = explicit_slot 12
block0(v0: i32):
    v1 = stack_addr.i32 ss0
    store v0, v1+8
    v2 = load.i32 v1+8
    v3 = iconst.i32 5
    v4 = imul v2, v3
    return v4
}

function %middle(i32, i32) -> i32 fast {
    ss0 = explicit_slot 8
    fn0 = %leaf(i32) -> i32 fast
block0(v0: i32, v1: i32):
    v2 = stack_addr.i32 ss0
    store v1, v2
    v3 = call fn0(v0)
    v4 = load.i32 v2
    v5 = iadd v3, v4
    return v5
}

function %kernel(i64, i32) system_v {
    fn0 = %middle(i32, i32) -> i32 fast
    fn1 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v1: i32):
    v2 = call fn1()
    v3 = call fn0(v2, v1)
    v4 = uextend.i64 v2
    v5 = iconst.i64 4
    v6 = imul v4, v5
    v7 = iadd v0, v6
    store v3, v7
    return
}
";

fn private_size(descriptor: &[u8]) -> u32 {
    u32::from_le_bytes(descriptor[4..8].try_into().unwrap())
}

/// A kernel calling a device function that calls another, from the code object, on every
/// generation: the results, and the private segment the descriptor asks for (the three
/// frames, the callers' rounded to 16 bytes).
#[test]
fn a_kernel_calls_a_device_function_that_calls_another() {
    let funcs = cranelift_reader::parse_functions(MODULE).unwrap();
    for cpu in ["gfx600", "gfx700", "gfx803", "gfx900"] {
        let target = Target::parse(cpu).unwrap();
        let frames: Vec<u32> = funcs
            .iter()
            .map(|f| {
                let compiled = wavelift::compile_function(f, &target).unwrap();
                compiled.gcn().unwrap().private_segment_size
            })
            .collect();
        let object = read(&wavelift::compile_module(&funcs, &target).unwrap()).unwrap();
        let kernel = &object.kernels[0];
        assert_eq!(
            private_size(&kernel.descriptor),
            frames.iter().sum::<u32>(),
            "{cpu}: frames {frames:?}"
        );
        let mut memory = Memory::new();
        let out = memory.alloc_zeroed(4 * 128);
        let mut kernarg = out.to_le_bytes().to_vec();
        kernarg.extend_from_slice(&7u32.to_le_bytes());
        let dispatch = Dispatch {
            workgroup_size: [64, 1, 1],
            grid_size: [64, 1, 1],
            kernarg,
        };
        launch_object(
            &object,
            "kernel",
            &dispatch,
            &mut memory,
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let bytes = memory.read(out, 4 * 64).unwrap();
        for (id, word) in bytes.chunks(4).enumerate() {
            let value = u32::from_le_bytes(word.try_into().unwrap());
            assert_eq!(value, 5 * id as u32 + 7, "{cpu}: work-item {id}");
        }
    }
}

/// Recursion is an error of the module, naming the chain.
#[test]
fn recursion_is_an_error() {
    let funcs: Vec<ir::Function> = cranelift_reader::parse_functions(
        "function %a(i32) -> i32 fast {
             fn0 = %b(i32) -> i32 fast
         block0(v0: i32):
             v1 = call fn0(v0)
             return v1
         }
         function %b(i32) -> i32 fast {
             fn0 = %a(i32) -> i32 fast
         block0(v0: i32):
             v1 = call fn0(v0)
             return v1
         }",
    )
    .unwrap();
    let error = wavelift::compile_module(&funcs, &Target::parse("gfx900").unwrap()).unwrap_err();
    assert_eq!(error.function, "a");
    assert!(
        error.reason.contains("recursion is not supported"),
        "{error}"
    );
    assert!(error.reason.contains("a → b"), "{error}");
}
