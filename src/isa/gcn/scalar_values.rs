//! The values GCN treats as uniform: computed once per wave and kept in SGPRs where the
//! SALU can compute them (`lower`). They are the uniformity facts (`analysis::uniformity`)
//! given what GCN's ABI passes per lane, with GCN's policies on top: each takes some values
//! as per-lane (in VGPRs), and the analysis carries that to everything computed from them.
//!
//! - A device function's arguments arrive in VGPRs (`abi`): its callers may pass different
//!   values per lane. (A kernel's arguments are the same for the whole dispatch.)
//! - A load from a uniform address reads the same value in every lane, but it is scalar
//!   only when the scalar cache may serve it: a plain `load` (SMEM has no extending loads)
//!   of memory nobody writes while the kernel runs, which CLIF's `readonly` flag promises
//!   (the scalar cache is not coherent with vector stores). Atomics' results are per lane.
//! - A function with a divergent branch is linearized (`machinst::divergence::linearize`),
//!   which passes every block argument with moves under lane masks: every block parameter
//!   lives in a VGPR, even where control flow is uniform.

use crate::FunctionKind;
use crate::analysis::cfg::Cfg;
use crate::analysis::stack_addresses::StackAddresses;
use crate::analysis::uniformity::{Analysis, Uniformity};
use crate::ir::{self, InstructionData, Opcode, Value};

/// The uniformity of `func`'s values as GCN lowers them.
pub fn analyze(
    func: &ir::Function,
    cfg: &Cfg,
    kind: FunctionKind,
    stack: &StackAddresses,
) -> Uniformity {
    let mut analysis = Analysis::new(func, cfg);
    if kind == FunctionKind::Device
        && let Some(entry) = func.layout.entry_block()
    {
        analysis.assume_divergent(func.dfg.block_params(entry).iter().copied());
    }
    analysis.assume_divergent(vector_loads(func, cfg, stack));
    if analysis.has_divergent_branches() {
        let params = cfg.order.iter().skip(1);
        analysis.assume_divergent(params.flat_map(|&b| func.dfg.block_params(b).iter().copied()));
    }
    analysis.finish()
}

/// The results of the loads the scalar cache may not serve (private memory is each lane's
/// own, whatever the address).
fn vector_loads(func: &ir::Function, cfg: &Cfg, stack: &StackAddresses) -> Vec<Value> {
    let dfg = &func.dfg;
    let mut results = Vec::new();
    for &block in &cfg.order {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::Load {
                opcode, flags, arg, ..
            } = dfg.insts[inst]
                && !(opcode == Opcode::Load
                    && dfg.mem_flags[flags].readonly()
                    && !stack.contains(dfg.resolve_aliases(arg)))
            {
                results.extend_from_slice(dfg.inst_results(inst));
            }
            // Atomics are vector-memory instructions; each lane of a read-modify-write
            // gets its own old value, even at one address.
            if matches!(
                dfg.insts[inst].opcode(),
                Opcode::AtomicRmw | Opcode::AtomicCas | Opcode::AtomicLoad
            ) {
                results.extend_from_slice(dfg.inst_results(inst));
            }
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel: loads from a uniform address of writable and of `readonly` memory, a loop
    /// with a uniform counter, then a branch on `v1` (uniform) or on the work-item id.
    fn kernel(condition: &str) -> ir::Function {
        let text = format!(
            "
function %f(i64, i32) -> i32 system_v {{
    fn0 = %wavelift_workitem_id_x() -> i32
block0(v0: i64, v1: i32):
    v2 = load.i32 v0
    v10 = load.i32 readonly v0
    v11 = call fn0()
    v3 = iconst.i32 0
    v8 = iconst.i32 1
    v9 = iconst.i32 10
    jump block1(v3)

block1(v4: i32):
    v5 = iadd v4, v8
    v6 = icmp ult v5, v9
    brif v6, block1(v5), block2

block2:
    brif {condition}, block3, block4(v10)

block3:
    jump block4(v5)

block4(v7: i32):
    return v7
}}
"
        );
        cranelift_reader::parse_functions(&text).unwrap().remove(0)
    }

    fn v(n: u32) -> Value {
        Value::from_u32(n)
    }

    #[test]
    fn only_readonly_plain_loads_are_scalar() {
        let func = kernel("v1");
        let cfg = Cfg::new(&func).unwrap();
        let u = analyze(
            &func,
            &cfg,
            FunctionKind::Kernel,
            &StackAddresses::default(),
        );
        assert!(!u.has_divergent_branches());
        assert!(!u.is_uniform(v(2)), "a load the scalar cache may not serve");
        assert!(u.is_uniform(v(10)));
        // Uniform control flow: block parameters stay scalar.
        for n in [0, 1, 4, 5, 6, 7] {
            assert!(u.is_uniform(v(n)), "v{n}");
        }
    }

    #[test]
    fn linearized_code_keeps_every_block_parameter_in_vgprs() {
        let func = kernel("v11");
        let cfg = Cfg::new(&func).unwrap();
        let u = analyze(
            &func,
            &cfg,
            FunctionKind::Kernel,
            &StackAddresses::default(),
        );
        assert!(u.has_divergent_branches());
        // The loop counter is the same in every lane, but a parameter of linearized code.
        for n in [4, 5, 6, 7, 11] {
            assert!(!u.is_uniform(v(n)), "v{n}");
        }
        for n in [0, 1, 3, 10] {
            assert!(u.is_uniform(v(n)), "v{n}");
        }
    }

    #[test]
    fn device_function_arguments_are_per_lane() {
        let mut func = kernel("v1");
        func.signature.call_conv = cranelift_codegen::isa::CallConv::Fast;
        let cfg = Cfg::new(&func).unwrap();
        let u = analyze(
            &func,
            &cfg,
            FunctionKind::Device,
            &StackAddresses::default(),
        );
        // The branch on an argument is divergent, and the readonly load's address too.
        assert!(u.has_divergent_branches());
        for n in [0, 1, 4, 10] {
            assert!(!u.is_uniform(v(n)), "v{n}");
        }
    }
}
