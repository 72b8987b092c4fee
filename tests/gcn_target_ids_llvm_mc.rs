//! The target table against LLVM: for every CPU name wavelift accepts, `llvm-mc-14` must
//! name the same processor and target-ID features in its `.amdgcn_target` directive as
//! `Target::target_id` does (the `gfxNNN` processor of a code name, which processors have
//! XNACK and SRAMECC).
//!
//! Like `gcn_llvm_mc.rs`, this fails without `llvm-mc-14` unless `WAVELIFT_SKIP_LLVM_MC=1`.

#[allow(dead_code)]
mod common;

use wavelift::{Arch, Target};

/// The target ID in llvm-mc's `.amdgcn_target "amdgcn-amd-amdhsa--<ID>"` for `cpu` with
/// the subtarget features `mattr`. `None` when llvm-mc-14 is not run.
fn llvm_target_id(cpu: &str, mattr: &str) -> Option<String> {
    let args = ["-triple", "amdgcn-amd-amdhsa", mattr];
    let output = common::llvm_mc(cpu, &args, "\n")?;
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(".amdgcn_target "))
        .unwrap_or_else(|| panic!("no .amdgcn_target for {cpu}: {stdout}"));
    let full = line.trim_matches('"');
    let id = full.strip_prefix("amdgcn-amd-amdhsa--");
    Some(id.unwrap_or_else(|| panic!("{full}")).to_string())
}

/// The GCN CPU names (`Target::cpu_names` lists NV50's too, which LLVM's AMDGPU backend
/// does not know).
fn gcn_cpu_names() -> impl Iterator<Item = &'static str> {
    Target::cpu_names().filter(|cpu| matches!(Target::parse(cpu).map(|t| t.arch), Ok(Arch::Gcn(_))))
}

#[test]
fn processors_and_xnack_match_llvm() {
    for cpu in gcn_cpu_names() {
        // wavelift's code needs XNACK replay off: LLVM names that `xnack-` on exactly the
        // processors that have XNACK.
        let Some(llvm) = llvm_target_id(cpu, "-mattr=-xnack") else {
            return;
        };
        let target = Target::parse(cpu).unwrap();
        assert_eq!(target.target_id(), llvm, "{cpu}");
        assert_eq!(
            Target::parse(&format!("{cpu}:xnack-")).unwrap().target_id(),
            llvm
        );
    }
}

#[test]
fn sramecc_is_accepted_where_llvm_has_it() {
    for cpu in gcn_cpu_names() {
        let Some(llvm) = llvm_target_id(cpu, "-mattr=-xnack,+sramecc") else {
            return;
        };
        match Target::parse(&format!("{cpu}:sramecc+")) {
            Ok(target) => assert_eq!(target.target_id(), llvm, "{cpu}"),
            Err(e) => assert!(!llvm.contains("sramecc"), "{cpu}: {e}, LLVM: {llvm}"),
        }
    }
}
