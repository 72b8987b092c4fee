//! Calls between NV50 functions (docs/ir.md, "Calls"): `wavelift::link` resolves the
//! `call`s, places each frame past its callers' in `l[]` and sizes the kernel's `l[]` over
//! its deepest chain; the simulator runs the linked kernel. `compile_module` links the
//! container's `.text` alike; recursion and missing callees are errors of the module.

use object::read::elf::ElfFile32;
use object::{Endianness, Object, ObjectSection, ObjectSymbol};
use wavelift::sim::{Launch, Options, simulator};
use wavelift::{CompiledCode, Target, ir};

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
    ss0 = explicit_slot 4
    fn0 = %middle(i32, i32) -> i32 fast
    fn1 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v1: i32):
    v2 = call fn1()
    v8 = stack_addr.i32 ss0
    store v2, v8
    v3 = call fn0(v2, v1)
    v9 = load.i32 v8
    v10 = isub v3, v9
    v4 = uextend.i64 v2
    v5 = iconst.i64 4
    v6 = imul v4, v5
    v7 = iadd v0, v6
    store v10, v7
    return
}
";

fn symbol(f: &ir::Function) -> String {
    f.name.to_string().trim_start_matches('%').to_string()
}

/// The kernel linked with its callees on every variant: the results, the `l[]` it asks
/// for (the three frames one after the other), its call sites resolved.
#[test]
fn a_kernel_calls_a_device_function_that_calls_another() {
    let funcs = cranelift_reader::parse_functions(MODULE).unwrap();
    for cpu in ["nv50", "g84", "gt200"] {
        let target = Target::parse(cpu).unwrap();
        let compiled: Vec<CompiledCode> = funcs
            .iter()
            .map(|f| wavelift::compile_function(f, &target).unwrap())
            .collect();
        let frames: Vec<u32> = compiled
            .iter()
            .map(|c| c.nv50().unwrap().local_size)
            .collect();
        assert!(frames.iter().all(|&f| f > 0), "{cpu}: frames {frames:?}");
        let names: Vec<String> = funcs.iter().map(symbol).collect();
        let functions: Vec<(&str, &CompiledCode)> =
            names.iter().map(String::as_str).zip(&compiled).collect();
        let linked = wavelift::link(&functions, 2).unwrap();
        let info = linked.nv50().unwrap();
        assert!(info.calls.is_empty() && !linked.has_calls());
        assert_eq!(
            info.local_size,
            frames.iter().sum::<u32>(),
            "{cpu}: {frames:?}"
        );
        // Kernel, middle, leaf: two calls, each one entry deeper.
        assert!(info.stack_depth >= 2, "{cpu}: depth {}", info.stack_depth);
        let sim = simulator(target.arch);
        let mut memory = sim.memory();
        let out = memory.alloc_zeroed(4 * 64);
        let mut params = out.to_le_bytes().to_vec();
        params.extend_from_slice(&7u32.to_le_bytes());
        let launch = Launch {
            workgroup_size: [64, 1, 1],
            groups: [1, 1, 1],
            params,
        };
        sim.launch(&linked, &launch, &mut memory, &Options::default())
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let bytes = memory.read(out, 4 * 64).unwrap();
        for (id, word) in bytes.chunks(4).enumerate() {
            let value = u32::from_le_bytes(word.try_into().unwrap());
            assert_eq!(value, 4 * id as u32 + 7, "{cpu}: work-item {id}");
        }
    }
}

/// The container links its `.text` too: each `call` at its callee, and a module missing a
/// callee is an error naming the caller.
#[test]
fn the_container_links_and_names_a_missing_callee() {
    let funcs = cranelift_reader::parse_functions(MODULE).unwrap();
    let target = Target::parse("gt200").unwrap();
    let object = wavelift::compile_module(&funcs, &target).unwrap();
    let file = ElfFile32::<Endianness>::parse(&*object).unwrap();
    let text = file.section_by_name(".text").unwrap().data().unwrap();
    let at = |name: &str| {
        let symbol = file.symbols().find(|s| s.name() == Ok(name)).unwrap();
        (symbol.address() as usize, symbol.size() as usize)
    };
    // Each `call` targets its callee's `.text` offset.
    for (caller, callee) in [("kernel", "middle"), ("middle", "leaf")] {
        let (start, size) = at(caller);
        let calls: Vec<usize> = wavelift::disassemble(&text[start..start + size], &target)
            .iter()
            .filter(|l| l.text.starts_with("call"))
            .filter_map(|l| l.target)
            .collect();
        assert_eq!(calls, [at(callee).0], "{caller} calls {callee}");
    }
    let error = wavelift::compile_module(&funcs[1..], &target).unwrap_err();
    assert!(
        error
            .reason
            .contains("`middle` calls `leaf`, which the module lacks"),
        "{error}"
    );
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
    let error = wavelift::compile_module(&funcs, &Target::parse("nv50").unwrap()).unwrap_err();
    assert!(
        error.reason.contains("recursion is not supported"),
        "{error}"
    );
    assert!(error.reason.contains("a → b"), "{error}");
}
