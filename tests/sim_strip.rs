//! The `s_waitcnt`s and `s_nop`s the backend inserts are needed: removing any one of them
//! from compiled code makes the simulator report the violation.
//!
//! Every function of the memory filetests is compiled and run (kernels over one wave,
//! device functions in every lane, pointers into zeroed buffers). Then each `s_waitcnt` in
//! its code in turn is replaced by a wait that waits for nothing (same size, so offsets stay
//! put), and the run must fail with [`Violation::Waitcnt`]. The same for each hazard
//! `s_nop` (deleted), which must fail with [`Violation::Hazard`].

use cranelift_codegen::data_value::DataValue;
use cranelift_reader::parse_functions;
use wavelift::isa::gcn::mc::waitcnt_imm;
use wavelift::isa::gcn::mc::{self, Enc, Gen, McInst, Op, Operand};
use wavelift::sim::gcn;
use wavelift::sim::harness::param_block;
use wavelift::sim::{Launch, Memory, Options, SimError, Violation};
use wavelift::{CompiledCode, FunctionKind, Target, ir};

const GEN: Gen = Gen::Gfx8;

fn decode_all(code: &[u8]) -> Vec<(usize, McInst, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let (inst, len) = mc::decode(&code[at..], GEN).expect("our own code decodes");
        out.push((at, inst, len));
        at += len;
    }
    out
}

fn gfx803() -> Target {
    Target::parse("gfx803").unwrap()
}

/// Runs `compiled` (code replaced by `code`) with every pointer argument pointing into the
/// middle of its own zeroed 8 KiB buffer and other arguments 1.
fn run(func: &ir::Function, compiled: &CompiledCode, code: &[u8]) -> Result<(), SimError> {
    let mut memory = Memory::new();
    let mut args = Vec::new();
    for param in &func.signature.params {
        args.push(match param.value_type {
            ir::types::I64 => DataValue::I64((memory.alloc_zeroed(8192) + 4096) as i64),
            ir::types::F32 => DataValue::F32(ir::immediates::Ieee32::with_float(1.0)),
            ty => DataValue::from_integer(1, ty).unwrap(),
        });
    }
    let options = Options::default();
    let compiled = CompiledCode {
        code: code.to_vec(),
        ..compiled.clone()
    };
    match compiled.kind {
        FunctionKind::Kernel => {
            let launch = Launch {
                workgroup_size: [64, 1, 1],
                groups: [1, 1, 1],
                params: param_block(&gfx803(), &func.signature, &args, 0).unwrap(),
            };
            gcn::launch(&compiled, GEN, &launch, &mut memory, &options).map(|_| ())
        }
        _ => {
            let mut dwords = Vec::new();
            for a in &args {
                wavelift::sim::harness::push_dwords(a, 0, &mut dwords).unwrap();
            }
            let results: usize = func
                .signature
                .returns
                .iter()
                .map(|r| wavelift::sim::harness::dwords_of(r.value_type))
                .sum();
            gcn::call_device(
                &compiled.code,
                GEN,
                &vec![dwords; 64],
                results,
                &mut memory,
                &options,
            )
            .map(|_| ())
        }
    }
}

fn functions() -> Vec<ir::Function> {
    let mut funcs = Vec::new();
    for file in [
        "filetests/gcn/memory.clif",
        "filetests/gcn/saxpy.clif",
        "filetests/gcn/fdiv-sqrt.clif",
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with("test ") && !l.starts_with("target "))
            .collect::<Vec<_>>()
            .join("\n");
        funcs.extend(parse_functions(&body).unwrap());
    }
    funcs
}

#[test]
fn every_inserted_waitcnt_is_needed() {
    let target = Target::parse("gfx803").unwrap();
    let mut stripped = 0;
    for func in functions() {
        let compiled = wavelift::compile_function(&func, &target).unwrap();
        run(&func, &compiled, &compiled.code)
            .unwrap_or_else(|e| panic!("{}: the unmodified code fails: {e}", func.name));
        for (at, inst, len) in decode_all(&compiled.code) {
            if inst.op != Op::SWaitcnt {
                continue;
            }
            let mut none = McInst::new(Op::SWaitcnt, Enc::Sopp);
            none.imm = waitcnt_imm(GEN, None, None, None) as i32;
            let mut code = compiled.code.clone();
            let mut bytes = Vec::new();
            mc::encode(&none, GEN, &mut bytes).unwrap();
            assert_eq!(bytes.len(), len);
            code[at..at + len].copy_from_slice(&bytes);
            match run(&func, &compiled, &code) {
                Err(SimError {
                    violation: Violation::Waitcnt { .. },
                    ..
                }) => stripped += 1,
                other => panic!(
                    "{}: without the s_waitcnt at {at:#x} the run gives {other:?}",
                    func.name
                ),
            }
        }
    }
    assert!(stripped >= 5, "only {stripped} waits were checked");
}

#[test]
fn every_inserted_nop_is_needed() {
    // Code the backend compiles today rarely needs a nop: check those it has, and the
    // hazard pass's output for the sequences its rules are about.
    let target = Target::parse("gfx803").unwrap();
    let mut checked = 0;
    for func in functions() {
        let compiled = wavelift::compile_function(&func, &target).unwrap();
        for (at, inst, len) in decode_all(&compiled.code) {
            if inst.op != Op::SNop {
                continue;
            }
            let mut code = compiled.code.clone();
            code.drain(at..at + len);
            assert!(
                matches!(
                    run(&func, &compiled, &code),
                    Err(SimError {
                        violation: Violation::Hazard { .. },
                        ..
                    })
                ),
                "{}: removing the s_nop at {at:#x} goes unnoticed",
                func.name
            );
            checked += 1;
        }
    }

    let v = Operand::vgpr;
    let scale = McInst::valu(
        Op::VDivScaleF32,
        GEN,
        Some(v(3)),
        Some(Operand::VCC),
        &[v(0), v(1), v(0)],
    )
    .unwrap();
    let fmas = McInst::valu(Op::VDivFmasF32, GEN, Some(v(0)), None, &[v(3), v(1), v(0)]).unwrap();
    let mut ret = McInst::new(Op::SSetpcB64, Enc::Sop1);
    ret.src[0] = Some(Operand::sgpr(0));
    let with_nops = wavelift::isa::gcn::hazards::run(vec![scale, fmas, ret], GEN);
    let encode = |insts: &[McInst]| wavelift::isa::gcn::emit::encode(insts, GEN).unwrap();
    let call = |code: &[u8]| {
        gcn::call_device(
            code,
            GEN,
            &vec![vec![0x3f80_0000, 0x4000_0000]; 64],
            1,
            &mut Memory::new(),
            &Options::default(),
        )
    };
    call(&encode(&with_nops)).expect("with the pass's s_nop the sequence is fine");
    let nops: Vec<usize> = (0..with_nops.len())
        .filter(|&i| with_nops[i].op == Op::SNop)
        .collect();
    assert_eq!(nops.len(), 1);
    let mut without = with_nops.clone();
    without.remove(nops[0]);
    assert!(matches!(
        call(&encode(&without)),
        Err(SimError {
            violation: Violation::Hazard { .. },
            ..
        })
    ));
    checked += 1;
    assert!(checked >= 1);
}
