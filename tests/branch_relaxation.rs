//! Branches over more than 128 KiB of code (beyond a SOPP branch's 16-bit dword offset)
//! become long jumps (`isa::gcn::relax_branches`). Each kernel here is generated with a
//! body of f64 divisions big enough to need one, compiled for every generation, run on
//! the simulator and checked against `cranelift-interpreter`, on both sides of every
//! relaxed branch. The long jumps' bytes are checked against `llvm-mc-14` (which must be
//! installed unless `WAVELIFT_SKIP_LLVM_MC=1`).

#[allow(dead_code)]
mod common;

use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir;
use wavelift::isa::gcn::mc::Gen;
use wavelift::sim::gcn::launch;
use wavelift::sim::harness::{LaunchReference, interpret_launch, param_block};
use wavelift::sim::{Launch, Memory, Options};
use wavelift::{Arch, DisasmLine, Target};

/// f64 divisions in a body: about 108 bytes of code each, 1,300 make 140 KiB.
const DIVISIONS: usize = 1300;

/// `x = x / 3.0`, `DIVISIONS` times, from `v{from}` into `v{result}`.
fn division_chain(from: &str, result: &str) -> String {
    let mut text = String::from("    v900 = f64const 0x1.8p1\n");
    let mut prev = from.to_string();
    for i in 0..DIVISIONS {
        let next = if i + 1 == DIVISIONS {
            result.to_string()
        } else {
            format!("v{}", 1000 + i)
        };
        text += &format!("    {next} = fdiv {prev}, v900\n");
        prev = next;
    }
    text
}

/// The address of `out[id]` (f64 elements) into `v21`, from `out` in `v0` and the
/// work-item id in `v1`.
const ELEMENT_ADDRESS: &str = "    v18 = uextend.i64 v1
    v19 = iconst.i64 3
    v20 = ishl v18, v19
    v21 = iadd v0, v20
";

/// A divergent `if (id < n)` around the body: `s_cbranch_execz` over it (skip.rs).
fn divergent_if() -> String {
    format!(
        "function %divergent_if(i64, i32) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v2: i32):
    v1 = call fn0()
{ELEMENT_ADDRESS}    v3 = icmp ult v1, v2
    brif v3, block1, block2
block1:
    v4 = fcvt_from_uint.f64 v1
{chain}    store v5, v21
    jump block2
block2:
    return
}}",
        chain = division_chain("v4", "v5")
    )
}

/// A uniform loop whose back edge jumps back over the body, `n` times (at least once).
fn uniform_loop() -> String {
    format!(
        "function %uniform_loop(i64, i32) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v2: i32):
    v1 = call fn0()
{ELEMENT_ADDRESS}    v3 = fcvt_from_uint.f64 v1
    v6 = iconst.i32 0
    jump block1(v6, v3)
block1(v7: i32, v4: f64):
{chain}    v8 = iconst.i32 1
    v9 = iadd v7, v8
    v10 = icmp slt v9, v2
    brif v10, block1(v9, v5), block2
block2:
    store v5, v21
    return
}}",
        chain = division_chain("v4", "v5")
    )
}

/// A uniform `if (c != 0)` around the body, on a kernel argument.
fn uniform_if() -> String {
    format!(
        "function %uniform_if(i64, i32) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v2: i32):
    v1 = call fn0()
{ELEMENT_ADDRESS}    v4 = fcvt_from_uint.f64 v1
    brif v2, block1, block2(v4)
block1:
{chain}    jump block2(v5)
block2(v6: f64):
    store v6, v21
    return
}}",
        chain = division_chain("v4", "v5")
    )
}

/// A uniform `br_table` on a kernel argument whose entries jump over the body.
fn uniform_br_table() -> String {
    format!(
        "function %uniform_br_table(i64, i32) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v2: i32):
    v1 = call fn0()
{ELEMENT_ADDRESS}    v4 = fcvt_from_uint.f64 v1
    br_table v2, block3, [block1, block2, block3]
block1:
{chain}    store v5, v21
    return
block2:
    v6 = fneg v4
    store v6, v21
    return
block3:
    store v4, v21
    return
}}",
        chain = division_chain("v4", "v5")
    )
}

/// Compiles `text` for every generation and runs it with each of `args` (the second
/// argument; the first is the output buffer) over one wave, comparing the output buffer
/// with the interpreter's.
fn check(text: &str, args: &[i32]) {
    let func = &cranelift_reader::parse_functions(text).expect("the generated CLIF parses")[0];
    for target in Target::per_generation() {
        let Arch::Gcn(generation) = target.arch else {
            unreachable!("GCN targets only")
        };
        let compiled = wavelift::compile_function(func, &target)
            .unwrap_or_else(|e| panic!("{generation:?}: {e}"));
        assert!(
            compiled.code.len() > 128 * 1024,
            "{generation:?}: the body ({} bytes) is too small to need a long branch",
            compiled.code.len()
        );
        let text = wavelift::disassemble(&compiled.code, &target);
        let long_jumps = text
            .iter()
            .filter(|l| l.text.starts_with("s_setpc_b64"))
            .count();
        assert!(long_jumps > 0, "{generation:?}: no long jump");
        check_long_jumps_with_llvm_mc(generation, &text);
        for &arg in args {
            let mut memory = Memory::new();
            let out = memory.alloc_zeroed(64 * 8);
            let values = [DataValue::I64(out as i64), DataValue::I32(arg)];
            let params = param_block(&target, &func.signature, &values, 0).unwrap();
            let reference =
                match interpret_launch(func, &[], &values, [64, 1, 1], [1, 1, 1], 64, &memory) {
                    LaunchReference::Completed(memory) => memory,
                    other => panic!("the interpreter cannot run {}: {other:?}", func.name),
                };
            let grid = Launch {
                workgroup_size: [64, 1, 1],
                groups: [1, 1, 1],
                params,
            };
            launch(
                &compiled,
                generation,
                &grid,
                &mut memory,
                &Options::default(),
            )
            .unwrap_or_else(|e| panic!("{} on {generation:?}, {arg}: {e}", func.name));
            let simulated = memory.read(out, 64 * 8).unwrap();
            let expected = reference.read(out, 64 * 8).unwrap();
            assert_eq!(
                simulated, expected,
                "{} on {generation:?} with {arg}: the simulator disagrees with the interpreter",
                func.name
            );
        }
    }
}

/// LLVM's name for a CPU of `generation`.
fn llvm_cpu(generation: Gen) -> &'static str {
    match generation {
        Gen::Gfx6 => "tahiti",
        Gen::Gfx7 => "bonaire",
        Gen::Gfx8 => "tonga",
        Gen::Gfx9 => "gfx900",
        other => panic!("no llvm-mc CPU for {other:?}"),
    }
}

/// Every long jump and the branch before it: `llvm-mc-14` must assemble our disassembly
/// to our bytes.
fn check_long_jumps_with_llvm_mc(generation: Gen, lines: &[DisasmLine]) {
    let mut window = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if line.text.starts_with("s_getpc_b64") {
            window.extend(&lines[k.saturating_sub(1)..(k + 4).min(lines.len())]);
        }
    }
    let input: String = window.iter().map(|l| l.text.clone() + "\n").collect();
    let cpu = llvm_cpu(generation);
    let Some(output) = common::llvm_mc(cpu, &["-show-encoding"], &input) else {
        return;
    };
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-mc-14 -mcpu={cpu} rejects our long jumps: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let theirs: Vec<(String, String)> = common::encoded_lines(&stdout).collect();
    assert_eq!(theirs.len(), window.len());
    for (line, (text, encoding)) in window.iter().zip(theirs) {
        let ours: Vec<String> = line.bytes.iter().map(|b| format!("0x{b:02x}")).collect();
        assert_eq!(
            ours.join(","),
            encoding,
            "{generation:?}: `{}` (llvm-mc-14 reads `{text}`)",
            line.text
        );
    }
}

fn ir_function_of(text: &str) -> ir::Function {
    cranelift_reader::parse_functions(text).unwrap().remove(0)
}

#[test]
fn divergent_if_skips_a_huge_body() {
    // n = 20: some lanes run the body; n = 0: none do, and s_cbranch_execz jumps.
    check(&divergent_if(), &[20, 0]);
}

#[test]
fn uniform_loop_back_edge_over_a_huge_body() {
    check(&uniform_loop(), &[1, 2]);
}

#[test]
fn uniform_if_over_a_huge_body() {
    check(&uniform_if(), &[1, 0]);
}

#[test]
fn uniform_br_table_over_a_huge_body() {
    check(&uniform_br_table(), &[0, 1, 2, 7]);
}

/// The SGPR count covers the scratch pair of the long jumps.
#[test]
fn scratch_pair_is_counted() {
    let func = ir_function_of(&uniform_if());
    let target = Target::parse("gfx803").unwrap();
    let compiled = wavelift::compile_function(&func, &target).unwrap();
    let lines = wavelift::disassemble(&compiled.code, &target);
    let getpc = lines
        .iter()
        .find(|l| l.text.starts_with("s_getpc_b64"))
        .expect("a long jump");
    // "s_getpc_b64 s[N:N+1]"
    let n: u32 = getpc.text["s_getpc_b64 s[".len()..]
        .split(':')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert_eq!(n % 2, 0, "{}", getpc.text);
    assert!(
        compiled.gcn().unwrap().sgprs >= n + 2,
        "{} SGPRs but {}",
        compiled.gcn().unwrap().sgprs,
        getpc.text
    );
}

/// Functions around the SGPR limit with a long jump (i32 and 16 i64 kernel arguments live
/// across a uniform `if` over a huge body): each compiles, with the jump's scratch pair
/// counted within gfx6's 104 SGPRs, or fails with a clear register-exhaustion error (that
/// names the kept pair when the pair was what did not fit), never an internal error.
#[test]
fn sgpr_limit_with_a_long_jump_compiles_or_is_a_clear_error() {
    let target = Target::parse("gfx600").unwrap();
    let (mut compiled, mut exhausted) = (0, 0);
    for ints in 56..=64 {
        let func = ir_function_of(&full_sgprs(ints, 16));
        match wavelift::compile_function(&func, &target) {
            Ok(code) => {
                compiled += 1;
                assert!(code.gcn().unwrap().sgprs <= 104);
                let lines = wavelift::disassemble(&code.code, &target);
                assert!(lines.iter().any(|l| l.text.starts_with("s_getpc_b64")));
            }
            Err(err) => {
                exhausted += 1;
                assert!(err.reason.starts_with("register exhaustion"), "{err:?}");
            }
        }
    }
    assert!(
        compiled > 0 && exhausted > 0,
        "the sizes straddle the limit"
    );
}

/// A kernel of `ints` i32 and `longs` i64 arguments, all live across a long uniform `if`.
fn full_sgprs(ints: usize, longs: usize) -> String {
    let mut params = vec!["i64".to_string(), "i32".to_string()];
    params.extend((0..ints).map(|_| "i32".to_string()));
    params.extend((0..longs).map(|_| "i64".to_string()));
    let mut block_params = vec!["v0: i64".to_string(), "v2: i32".to_string()];
    block_params.extend((0..ints).map(|i| format!("v{}: i32", 3000 + i)));
    block_params.extend((0..longs).map(|i| format!("v{}: i64", 4000 + i)));
    let mut products = String::new();
    let mut int = "v3000".to_string();
    for i in 1..ints {
        products += &format!("    v{} = imul {int}, v{}\n", 5000 + i, 3000 + i);
        int = format!("v{}", 5000 + i);
    }
    let mut long = "v4000".to_string();
    for i in 1..longs {
        products += &format!("    v{} = imul {long}, v{}\n", 6000 + i, 4000 + i);
        long = format!("v{}", 6000 + i);
    }
    let text = format!(
        "function %full(i64, {params}) system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0({block_params}):
    v1 = call fn0()
{ELEMENT_ADDRESS}    v4 = fcvt_from_uint.f64 v1
    brif v2, block1, block2(v4)
block1:
{chain}    jump block2(v5)
block2(v6: f64):
{products}    v7 = uextend.i64 {int}
    v8 = iadd v7, {long}
    v9 = fcvt_from_uint.f64 v8
    v10 = fadd v6, v9
    store v10, v21
    return
}}",
        params = params[1..].join(", "),
        block_params = block_params.join(", "),
        chain = division_chain("v4", "v5"),
    );
    text
}
