//! The public API as a front end uses it: building CLIF with cranelift-frontend, declaring
//! intrinsics, compiling, and getting errors (never panics) for what cannot compile.

use wavelift::cranelift_codegen::ir::{
    self, AbiParam, InstBuilder, MemFlagsData, UserFuncName, types,
};
use wavelift::cranelift_codegen::isa::CallConv;
use wavelift::cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use wavelift::gcn::Gen;
use wavelift::intrinsics::{self, Intrinsic};
use wavelift::{Arch, FeatureSetting, FunctionKind, Os, Target};

fn target() -> Target {
    Target::new("amdgcn-amd-amdhsa", "gfx803").unwrap()
}

/// A single-block function `name(params) -> returns` whose body `body` emits, given the
/// builder, the block parameters and the intrinsics declared from `uses`.
fn build(
    name: &str,
    call_conv: CallConv,
    params: &[ir::Type],
    returns: &[ir::Type],
    uses: &[Intrinsic],
    body: impl FnOnce(&mut FunctionBuilder, &[ir::Value], &[ir::FuncRef]),
) -> ir::Function {
    let mut sig = ir::Signature::new(call_conv);
    sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    sig.returns
        .extend(returns.iter().map(|&t| AbiParam::new(t)));
    let mut func = ir::Function::with_name_signature(UserFuncName::testcase(name), sig);
    let refs: Vec<ir::FuncRef> = uses
        .iter()
        .map(|&i| intrinsics::declare(&mut func, i))
        .collect();
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let args = b.block_params(block).to_vec();
    body(&mut b, &args, &refs);
    b.seal_all_blocks();
    b.finalize(target().frontend_config());
    func
}

/// A kernel storing `base + workitem_id` to `out[workitem_id]`.
fn kernel() -> ir::Function {
    let params = [types::I64, types::I32];
    build(
        "store_ids",
        CallConv::SystemV,
        &params,
        &[],
        &[Intrinsic::WorkitemId(0)],
        |b, args, fns| {
            let call = b.ins().call(fns[0], &[]);
            let id = b.inst_results(call)[0];
            let value = b.ins().iadd(args[1], id);
            let wide = b.ins().uextend(types::I64, id);
            let offset = b.ins().ishl_imm_u(wide, 2);
            let addr = b.ins().iadd(args[0], offset);
            b.ins().store(MemFlagsData::trusted(), value, addr, 0);
            b.ins().return_(&[]);
        },
    )
}

#[test]
fn a_kernel_built_with_cranelift_frontend_compiles() {
    let compiled = wavelift::compile_function(&kernel(), &target()).unwrap();
    assert_eq!(compiled.kind, FunctionKind::Kernel);
    let gcn = compiled.gcn().expect("compiled for GCN");
    assert_eq!(gcn.kernarg_size, 12);
    assert!(gcn.inputs.kernarg_segment_ptr);
    assert_eq!(gcn.inputs.workitem_id_vgprs, 1);
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

/// A device function keeping `n` loaded values live at once, then multiplying them.
fn many_live_values(n: usize) -> ir::Function {
    many_live_values_and_a_slot(n, 0)
}

/// `many_live_values` with a stack slot of `slot_bytes` (none for 0) written first.
fn many_live_values_and_a_slot(n: usize, slot_bytes: u32) -> ir::Function {
    build(
        "pressure",
        CallConv::Fast,
        &[types::I64],
        &[types::I32],
        &[],
        |b, args, _| {
            if slot_bytes > 0 {
                let slot = b.create_sized_stack_slot(ir::StackSlotData::new(
                    ir::StackSlotKind::ExplicitSlot,
                    slot_bytes,
                    2,
                ));
                let addr = b.ins().stack_addr(types::I32, slot, 0);
                let zero = b.ins().iconst(types::I32, 0);
                b.ins().store(MemFlagsData::trusted(), zero, addr, 0);
            }
            let values: Vec<ir::Value> = (0..n)
                .map(|i| {
                    b.ins()
                        .load(types::I32, MemFlagsData::trusted(), args[0], 4 * i as i32)
                })
                .collect();
            let mut product = values[n - 1];
            for &v in values.iter().rev().skip(1) {
                product = b.ins().imul(product, v);
            }
            b.ins().return_(&[product]);
        },
    )
}

/// 300 values live at once do not fit the 256 VGPRs: the ones beyond spill to private
/// memory, which the device function then receives (`docs/ir.md`, "Memory spaces").
#[test]
fn values_beyond_the_registers_spill_to_memory() {
    let few = wavelift::compile_function(&many_live_values(8), &target()).unwrap();
    assert_eq!(few.gcn().unwrap().vgpr_spills, 0);
    let many = wavelift::compile_function(&many_live_values(300), &target()).unwrap();
    let info = many.gcn().unwrap();
    assert!(info.vgpr_spills > 0, "{info:?}");
    // The spill slots, then the VGPRs from v32 on the function writes, saved for its
    // callers (`docs/ir.md`, "Calls").
    assert_eq!(
        info.private_segment_size,
        4 * info.vgpr_spills + 4 * (info.vgprs - 32),
        "{info:?}"
    );
    assert!(info.inputs.private_segment);
}

/// Spill slots follow the stack slots in each lane's frame and are addressed by a MUBUF
/// instruction's 12-bit offset: behind a 4 KiB slot they are out of its reach, an error
/// naming the function.
#[test]
fn spill_slots_out_of_reach_are_an_error_naming_the_function() {
    let func = many_live_values_and_a_slot(300, 4096);
    let err = wavelift::compile(&func, &target()).unwrap_err();
    assert_eq!(err.function, "%pressure");
    assert!(err.reason.contains("first 4096 bytes"), "{err}");
}

/// On NV50 the values beyond the 128 `$r` spill to `l[]` after the stack slots, and the
/// compiled code reports the bytes per thread a launch must give it (`docs/nv50.md`,
/// "Local memory"): here a 4 KiB slot and the spills after it, rounded up to 16, then the
/// `$r16` up the device function writes, saved for its callers (`docs/ir.md`, "Calls on
/// NV50").
#[test]
fn nv50_values_beyond_the_registers_spill_to_local_memory() {
    let nv50 = Target::new("nvptx64-nvidia-cuda", "g84").unwrap();
    let few = wavelift::compile_function(&many_live_values(8), &nv50).unwrap();
    let info = few.nv50().unwrap();
    assert_eq!((info.spills, info.local_size), (0, 0));
    let many = wavelift::compile_function(&many_live_values_and_a_slot(300, 4096), &nv50).unwrap();
    let info = many.nv50().unwrap();
    assert!(info.spills > 0, "{info:?}");
    assert_eq!(
        info.local_size,
        (4096 + 4 * info.spills).next_multiple_of(16) + 4 * (info.gprs - 16),
        "{info:?}"
    );
}

#[test]
fn unsupported_types_are_errors_naming_the_instruction() {
    let func = build(
        "popcnt128",
        CallConv::Fast,
        &[types::I64],
        &[types::I64],
        &[],
        |b, args, _| {
            let wide = b.ins().iconcat(args[0], args[0]);
            let count = b.ins().popcnt(wide);
            let narrow = b.ins().ireduce(types::I64, count);
            b.ins().return_(&[narrow]);
        },
    );
    let err = wavelift::compile(&func, &target()).unwrap_err();
    assert_eq!(err.function, "%popcnt128");
    assert!(err.inst.is_some(), "{err}");
    assert!(err.reason.contains("not supported"), "{err}");
}

/// A `system_v` function with results is a device function (Cranelift's runtests declare
/// their functions so); one without results a kernel.
#[test]
fn system_v_functions_with_results_are_device_functions() {
    let func = build(
        "k",
        CallConv::SystemV,
        &[],
        &[types::I32],
        &[],
        |b, _, _| {
            let one = b.ins().iconst(types::I32, 1);
            b.ins().return_(&[one]);
        },
    );
    let compiled = wavelift::compile_function(&func, &target()).unwrap();
    assert_eq!(compiled.kind, wavelift::FunctionKind::Device);
    let kernel = build("k", CallConv::SystemV, &[], &[], &[], |b, _, _| {
        b.ins().return_(&[]);
    });
    let compiled = wavelift::compile_function(&kernel, &target()).unwrap();
    assert_eq!(compiled.kind, wavelift::FunctionKind::Kernel);
}

#[test]
fn llvm_target_ids_and_triples_are_accepted() {
    for (spec, triple, os, cpu, target_id) in [
        (
            "gfx803:xnack-",
            "amdgcn-amd-amdhsa",
            Os::Amdhsa,
            "gfx803",
            "gfx803",
        ),
        (
            "gfx906:sramecc+:xnack-",
            "amdgcn-amd-amdhsa",
            Os::Amdhsa,
            "gfx906",
            "gfx906:sramecc+:xnack-",
        ),
        (
            "amdgcn-amd-amdhsa--gfx906:sramecc-:xnack-",
            "amdgcn-amd-amdhsa",
            Os::Amdhsa,
            "gfx906",
            "gfx906:sramecc-:xnack-",
        ),
        (
            "amdgcn-mesa-mesa3d gfx803",
            "amdgcn-mesa-mesa3d",
            Os::Mesa3d,
            "gfx803",
            "gfx803",
        ),
        (
            "amdgcn-amd-amdpal:tonga",
            "amdgcn-amd-amdpal",
            Os::Amdpal,
            "tonga",
            "gfx802",
        ),
        (
            "amdgcn-amd-amdpal gfx900",
            "amdgcn-amd-amdpal",
            Os::Amdpal,
            "gfx900",
            "gfx900:xnack-",
        ),
    ] {
        let target = Target::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(target.triple, triple, "{spec}");
        assert_eq!(target.os, os, "{spec}");
        assert_eq!(target.cpu, cpu, "{spec}");
        assert_eq!(target.target_id(), target_id, "{spec}");
        assert_eq!(
            Target::parse(&target.to_string()).unwrap(),
            target,
            "{spec}"
        );
    }
    let target = Target::new("amdgcn-mesa-mesa3d", "gfx906:xnack-:sramecc+").unwrap();
    assert_eq!(
        (target.xnack, target.sramecc),
        (FeatureSetting::Off, FeatureSetting::On)
    );
    assert_eq!(target.arch, Arch::Gcn(Gen::Gfx9));
}

/// Neither the OS nor `sramecc`/`xnack-` changes wavelift's code (docs/targets.md).
#[test]
fn os_and_target_id_features_do_not_change_the_code() {
    let reference = wavelift::compile(&kernel(), &Target::parse("gfx906").unwrap()).unwrap();
    for spec in [
        "gfx906:xnack-",
        "gfx906:sramecc+:xnack-",
        "gfx906:sramecc-",
        "amdgcn-mesa-mesa3d gfx906",
        "amdgcn-amd-amdpal gfx906:xnack-",
    ] {
        let code = wavelift::compile(&kernel(), &Target::parse(spec).unwrap()).unwrap();
        assert_eq!(code, reference, "{spec}");
    }
}

#[test]
fn unsupported_gcn_cpus_say_so_in_every_form() {
    for spec in [
        "gfx1030",
        "amdgcn gfx1030",
        "amdgcn-amd-amdhsa gfx1030",
        "amdgcn-amd-amdhsa:gfx1030",
        "amdgcn-amd-amdhsa--gfx1030",
        "gfx90a",
        "gfx90a:xnack-",
        "amdgcn gfx90a",
        "amdgcn-mesa-mesa3d gfx90a",
    ] {
        let err = Target::parse(spec).unwrap_err().to_string();
        assert!(err.starts_with("unsupported CPU `gfx"), "{spec}: {err}");
        assert!(err.contains("(supported: gfx600, "), "{spec}: {err}");
    }
}

#[test]
fn target_errors_name_what_is_wrong() {
    for (spec, message) in [
        ("gfx900:xnack+", "`xnack+` is not supported"),
        ("gfx803:xnack+", "`gfx803` has no XNACK"),
        ("gfx803:sramecc+", "`gfx803` has no SRAMECC"),
        ("gfx906:xnack", "`xnack` needs a setting"),
        ("gfx906:tgsplit+", "unknown target-ID feature `tgsplit+`"),
        ("gfx906:xnack-:xnack-", "`xnack` is given twice"),
        ("gfx9999", "unknown CPU `gfx9999` (supported: gfx600, "),
        ("amdgcn-amd-amdhsa", "names no CPU"),
        ("amdgcn-amd-amdhsa:", "names no CPU"),
        ("amdgcn-unknown-linux gfx803", "unsupported OS `linux`"),
        ("amdgcn-- gfx803", "names no OS"),
        (
            "x86_64-unknown-linux-gnu gfx803",
            "unsupported architecture `x86_64`",
        ),
        (
            "amdgcn-amd-amdhsa-gnu gfx803",
            "unsupported environment `gnu`",
        ),
        ("amdgcn amd amdhsa gfx803", "cannot parse target"),
    ] {
        let err = Target::parse(spec).unwrap_err().to_string();
        assert!(err.contains(message), "{spec}: {err}");
    }
}
