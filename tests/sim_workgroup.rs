//! Workgroup memory on the simulator: a kernel that exchanges values between the waves of
//! a work-group through LDS gives the right values with its barrier and a reported data
//! race without it, on every generation; the group segment size reaches `GcnInfo` and the
//! code object.

use wavelift::gcn::Gen;
use wavelift::sim::gcn::launch;
use wavelift::sim::{Launch, Memory, Options, SimError};
use wavelift::{CompiledCode, Target};

/// Work-item i writes 1000 + i to LDS word i, then (after the barrier, if `barrier`) reads
/// word (i + 64) mod 128, the same lane of the other wave, into out[i].
fn exchange(barrier: bool) -> String {
    let wait = if barrier { "    call fn2()\n" } else { "" };
    format!(
        "function %exchange(i64) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
    fn1 = %wavelift_workgroup_base(i32) -> i32
    fn2 = %wavelift_barrier()
block0(v0: i64):
    v1 = call fn0()
    v2 = iconst.i32 512
    v3 = call fn1(v2)
    v4 = iconst.i32 2
    v5 = ishl v1, v4
    v6 = iadd v3, v5
    v7 = iconst.i32 1000
    v8 = iadd v1, v7
    store v8, v6
{wait}    v9 = iconst.i32 64
    v10 = iadd v1, v9
    v11 = iconst.i32 127
    v12 = band v10, v11
    v13 = ishl v12, v4
    v14 = iadd v3, v13
    v15 = load.i32 v14
    v16 = uextend.i64 v1
    v17 = iconst.i64 2
    v18 = ishl v16, v17
    v19 = iadd v0, v18
    store v15, v19
    return
}}
"
    )
}

fn compile(text: &str, cpu: &str) -> CompiledCode {
    let func = cranelift_reader::parse_functions(text).unwrap().remove(0);
    let target = Target::new("amdgcn-amd-amdhsa", cpu).unwrap();
    wavelift::compile_function(&func, &target).unwrap()
}

fn run(code: &CompiledCode, generation: Gen) -> Result<Vec<u32>, SimError> {
    let mut memory = Memory::new();
    let out = memory.alloc_zeroed(128 * 4);
    let grid = Launch {
        workgroup_size: [128, 1, 1],
        groups: [1, 1, 1],
        params: out.to_le_bytes().to_vec(),
    };
    launch(code, generation, &grid, &mut memory, &Options::default())?;
    Ok(memory
        .read(out, 128 * 4)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

const CPUS: [(&str, Gen); 4] = [
    ("gfx600", Gen::Gfx6),
    ("gfx700", Gen::Gfx7),
    ("gfx803", Gen::Gfx8),
    ("gfx900", Gen::Gfx9),
];

#[test]
fn the_barrier_orders_the_exchange() {
    let expected: Vec<u32> = (0..128).map(|i| 1000 + (i + 64) % 128).collect();
    for (cpu, generation) in CPUS {
        let code = compile(&exchange(true), cpu);
        assert_eq!(code.gcn().unwrap().group_segment_size, 512, "{cpu}");
        assert_eq!(run(&code, generation).unwrap(), expected, "{cpu}");
    }
}

#[test]
fn without_the_barrier_the_simulator_reports_the_race() {
    for (cpu, generation) in CPUS {
        let code = compile(&exchange(false), cpu);
        let error = run(&code, generation).expect_err(cpu).to_string();
        assert!(
            error.contains("data race on LDS byte") && error.contains("no barrier between them"),
            "{cpu}: {error}"
        );
    }
}

/// The code object's kernel descriptor and metadata carry the group segment size.
#[test]
fn the_code_object_declares_the_group_segment() {
    let func = cranelift_reader::parse_functions(&exchange(true))
        .unwrap()
        .remove(0);
    let target = Target::new("amdgcn-amd-amdhsa", "gfx900").unwrap();
    let object = wavelift::compile_module(&[func], &target).unwrap();
    let file = object::File::parse(&*object).unwrap();
    use object::{Object, ObjectSection, ObjectSymbol};
    let descriptor = file
        .symbols()
        .find(|s| s.name() == Ok("exchange.kd"))
        .expect("a kernel descriptor symbol");
    let rodata = file
        .section_by_index(descriptor.section_index().unwrap())
        .unwrap();
    let offset = (descriptor.address() - rodata.address()) as usize;
    let bytes = &rodata.data().unwrap()[offset..offset + 4];
    assert_eq!(u32::from_le_bytes(bytes.try_into().unwrap()), 512);
    let notes = String::from_utf8_lossy(&object);
    assert!(notes.contains(".group_segment_fixed_size"));
}
