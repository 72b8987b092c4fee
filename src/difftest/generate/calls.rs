//! Calls: the generated function calls one or two small device functions generated with it
//! (`%c0`, `%c1`: call conv `fast`, a few parameters and instructions, any shape but the
//! many-value ones, so that their arguments and results fit the 32 VGPRs a call passes),
//! with arguments from its scope and the results into it. Values the function computed
//! before a call and uses after it live across the call; a call in a diamond or loop runs
//! under a partial EXEC (`docs/ir.md`, "Calls"). Where the target has indirect calls, some
//! go through `func_addr`, with a `select` between two addresses that may differ between
//! lanes.

use super::{GenConfig, Generator, Spec};
use crate::difftest::specified::return_specs;
use crate::ir::{self, InstBuilder, Opcode, UserFuncName};
use arbitrary::Result;
use cranelift_codegen::cursor::{Cursor, FuncCursor};

/// One instruction in this many is a call (where calls are made).
pub(super) const CALL_ODDS: u32 = 10;

/// At most this many device functions per function.
const MAX_CALLEES: usize = 2;

/// Whether `config` is a callee's: it makes no calls, and it takes and returns few values.
pub(super) fn is_callee(config: &GenConfig) -> bool {
    !config.calls && config.max_params <= 3
}

impl Generator<'_, '_, '_> {
    /// Whether this function makes calls: the default mode, a target that lowers them.
    pub(super) fn makes_calls(&self) -> bool {
        self.config.calls
            && !self.config.wide
            && self.config.profile.lowers(Opcode::Call, ir::types::I32)
    }

    /// Whether its calls may go through addresses: where the target lowers them.
    fn makes_indirect_calls(&self) -> bool {
        self.config
            .profile
            .lowers(Opcode::CallIndirect, ir::types::I64)
    }

    /// A call of a device function: a new one while there are fewer than two, or else one
    /// made before; a third of them through its address (where the target has indirect
    /// calls), half of those choosing between it and a wrapper of it.
    pub(super) fn call(&mut self) -> Result<()> {
        if self.callees.len() < MAX_CALLEES && (self.callees.is_empty() || self.u.ratio(1, 2)?) {
            let config = GenConfig {
                calls: false,
                max_params: 3,
                max_insts: 6,
                max_results: 2,
                ..self.config.clone()
            };
            let mut g = Generator::new(&mut *self.u, &config)?;
            g.body()?;
            let mut callee = g.func;
            callee.name = UserFuncName::testcase(format!("c{}", self.callees.len()));
            self.callee_specs.push(return_specs(&callee));
            self.callees.push(callee);
        }
        let index = self.u.int_in_range(0..=self.callees.len() - 1)?;
        let callee = &self.callees[index];
        let signature = callee.signature.clone();
        // cranelift-interpreter, the reference, does not pass f16 values to calls.
        let types = signature.params.iter().chain(&signature.returns);
        if types.clone().any(|p| p.value_type == ir::types::F16) {
            return Ok(());
        }
        let specs = self.callee_specs[index].clone();
        let sig = self.func.import_signature(signature.clone());
        let callee_ref = declare(&mut self.func, index, sig);
        let mut args = Vec::new();
        for param in &signature.params {
            args.push(self.exact_operand(param.value_type)?);
        }
        let call = if self.makes_indirect_calls() && self.u.ratio(1, 3)? {
            let address = self.cursor().ins().func_addr(ir::types::I64, callee_ref);
            // Another function of the same signature and results, a wrapper calling
            // this one, chosen by a condition that may differ between lanes: the call
            // goes round a waterfall loop with one or two addresses.
            let address = if self.u.ratio(1, 2)? {
                let wrapper = wrapper(&signature, index, self.callees.len());
                let wrapper_ref = declare(&mut self.func, self.callees.len(), sig);
                self.callees.push(wrapper);
                self.callee_specs.push(specs.clone());
                let other = self.cursor().ins().func_addr(ir::types::I64, wrapper_ref);
                let cond_ty = self.prefer_present(self.config.profile.operand_types)?;
                let cond = self.exact_operand(cond_ty)?;
                self.cursor().ins().select(cond, address, other)
            } else {
                address
            };
            self.cursor().ins().call_indirect(sig, address, &args)
        } else {
            self.cursor().ins().call(callee_ref, &args)
        };
        let results = self.func.dfg.inst_results(call).to_vec();
        // The reference's analysis of the caller (`specified::analyze`) takes a call's
        // results as exact: the results whose bits the callee leaves open (a NaN's) stay
        // out of scope.
        for (value, spec) in results.into_iter().zip(specs) {
            if spec == Spec::Exact {
                self.spec[value] = spec;
                self.scope.push(value);
            }
        }
        Ok(())
    }
}

/// Declares device function `%c{index}` of `signature` in `func`.
fn declare(func: &mut ir::Function, index: usize, signature: ir::SigRef) -> ir::FuncRef {
    func.import_function(ir::ExtFuncData {
        name: ir::ExternalName::testcase(format!("c{index}")),
        signature,
        colocated: true,
        patchable: false,
    })
}

/// Device function `%c{index}`, which calls `%c{callee}` of `signature` with its arguments
/// and returns its results.
fn wrapper(signature: &ir::Signature, callee: usize, index: usize) -> ir::Function {
    let mut func = ir::Function::with_name_signature(
        UserFuncName::testcase(format!("c{index}")),
        signature.clone(),
    );
    let sig = func.import_signature(signature.clone());
    let callee = declare(&mut func, callee, sig);
    let block = func.dfg.make_block();
    let mut pos = FuncCursor::new(&mut func);
    pos.insert_block(block);
    let params: Vec<ir::Value> = signature
        .params
        .iter()
        .map(|p| pos.func.dfg.append_block_param(block, p.value_type))
        .collect();
    let call = pos.ins().call(callee, &params);
    let results = pos.func.dfg.inst_results(call).to_vec();
    pos.ins().return_(&results);
    func
}
