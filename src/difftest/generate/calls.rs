//! Calls: the generated function calls one or two small device functions generated with it
//! (`%c0`, `%c1`: call conv `fast`, a few parameters and instructions, any shape but the
//! many-value ones, so that their arguments and results fit the 32 VGPRs a call passes),
//! with arguments from its scope and the results into it. Values the function computed
//! before a call and uses after it live across the call; a call in a diamond or loop runs
//! under a partial EXEC (`docs/ir.md`, "Calls").

use super::{GenConfig, Generator, Spec};
use crate::difftest::specified::return_specs;
use crate::ir::{self, InstBuilder, Opcode, UserFuncName};
use arbitrary::Result;

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

    /// A call of a device function: a new one while there are fewer than two, or else one
    /// made before.
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
        let specs = return_specs(callee);
        let name = ir::ExternalName::testcase(format!("c{index}"));
        let sig = self.func.import_signature(signature.clone());
        let callee_ref = self.func.import_function(ir::ExtFuncData {
            name,
            signature: sig,
            colocated: true,
            patchable: false,
        });
        let mut args = Vec::new();
        for param in &signature.params {
            args.push(self.exact_operand(param.value_type)?);
        }
        let call = self.cursor().ins().call(callee_ref, &args);
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
