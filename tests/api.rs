//! The public API as a front end uses it: building CLIF with cranelift-frontend, declaring
//! intrinsics, compiling, and getting errors (never panics) for what cannot compile.

use cranelift_codegen::ir::{self, AbiParam, InstBuilder, MemFlagsData, UserFuncName, types};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use wavelift::intrinsics::{self, Intrinsic};
use wavelift::{FunctionKind, Target};

fn target() -> Target {
    Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap()
}

/// A kernel storing `base + workitem_id` to `out[workitem_id]`.
fn kernel() -> ir::Function {
    let mut sig = ir::Signature::new(CallConv::SystemV);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    let mut func = ir::Function::with_name_signature(UserFuncName::testcase("store_ids"), sig);
    let tid = intrinsics::declare(&mut func, Intrinsic::WorkitemId(0));
    let flags = MemFlagsData::trusted();
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let out = b.block_params(block)[0];
    let base = b.block_params(block)[1];
    let call = b.ins().call(tid, &[]);
    let id = b.inst_results(call)[0];
    let value = b.ins().iadd(base, id);
    let wide = b.ins().uextend(types::I64, id);
    let offset = b.ins().ishl_imm_u(wide, 2);
    let addr = b.ins().iadd(out, offset);
    b.ins().store(flags, value, addr, 0);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(target().frontend_config());
    func
}

#[test]
fn a_kernel_built_with_cranelift_frontend_compiles() {
    let compiled = wavelift::compile_function(&kernel(), &target()).unwrap();
    assert_eq!(compiled.kind, FunctionKind::Kernel);
    assert_eq!(compiled.kernarg_size, 12);
    assert!(compiled.inputs.kernarg_segment_ptr);
    assert_eq!(compiled.inputs.workitem_id_vgprs, 1);
    let text: Vec<String> = wavelift::disassemble(&compiled.code, &target())
        .into_iter()
        .map(|l| l.text)
        .collect();
    assert_eq!(text.last().map(String::as_str), Some("s_endpgm"));
    assert!(
        text.iter().any(|t| t.starts_with("flat_store_dword ")),
        "{text:?}"
    );
    assert!(text.iter().any(|t| t.starts_with("s_waitcnt")), "{text:?}");
    assert_eq!(
        wavelift::compile(&kernel(), &target()).unwrap(),
        compiled.code
    );
}

/// A device function keeping `n` loaded values live at once, then summing them.
fn many_live_values(n: usize) -> ir::Function {
    let mut sig = ir::Signature::new(CallConv::Fast);
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
    let mut func = ir::Function::with_name_signature(UserFuncName::testcase("pressure"), sig);
    let flags = MemFlagsData::trusted();
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let ptr = b.block_params(block)[0];
    let values: Vec<ir::Value> = (0..n)
        .map(|i| b.ins().load(types::I32, flags, ptr, 4 * i as i32))
        .collect();
    let mut sum = values[n - 1];
    for &v in values.iter().rev().skip(1) {
        sum = b.ins().imul(sum, v);
    }
    b.ins().return_(&[sum]);
    b.seal_all_blocks();
    b.finalize(target().frontend_config());
    func
}

#[test]
fn register_exhaustion_is_an_error_naming_the_function() {
    assert!(wavelift::compile(&many_live_values(8), &target()).is_ok());
    let err = wavelift::compile(&many_live_values(300), &target()).unwrap_err();
    assert_eq!(err.function, "%pressure");
    assert!(err.reason.contains("register exhaustion"), "{err}");
}

#[test]
fn unsupported_types_are_errors_naming_the_instruction() {
    let mut sig = ir::Signature::new(CallConv::Fast);
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I64));
    let mut func = ir::Function::with_name_signature(UserFuncName::testcase("popcnt64"), sig);
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let x = b.block_params(block)[0];
    let x = b.ins().iconcat(x, x);
    let y = b.ins().popcnt(x);
    let y = b.ins().ireduce(types::I64, y);
    b.ins().return_(&[y]);
    b.seal_all_blocks();
    b.finalize(target().frontend_config());
    let err = wavelift::compile(&func, &target()).unwrap_err();
    assert_eq!(err.function, "%popcnt64");
    assert!(err.inst.is_some(), "{err}");
    assert!(err.reason.contains("not supported"), "{err}");
}

#[test]
fn kernels_cannot_return_values() {
    let mut sig = ir::Signature::new(CallConv::SystemV);
    sig.returns.push(AbiParam::new(types::I32));
    let mut func = ir::Function::with_name_signature(UserFuncName::testcase("k"), sig);
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let block = b.create_block();
    b.switch_to_block(block);
    let one = b.ins().iconst(types::I32, 1);
    b.ins().return_(&[one]);
    b.seal_all_blocks();
    b.finalize(target().frontend_config());
    let err = wavelift::compile(&func, &target()).unwrap_err();
    assert!(err.reason.contains("kernels return no values"), "{err}");
}
