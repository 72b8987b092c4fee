//! Calls of device functions (`docs/ir.md`, "Calls"): the arguments in v0, v1, … as the
//! callee's parameters take them, the results defined from v0, v1, …, and every register
//! the callee may overwrite a clobber of the call, so that the allocator keeps the values
//! live across it in v32–v255 or spills them. The call's own sequence (saving the SGPRs
//! the function's inputs live in, the callee's stack pointer, the jump) is placed after
//! allocation (`place_calls`).

use super::{InstOutput, IsleContext};
use crate::FunctionKind;
use crate::ir::{self, Value};
use crate::isa::gcn::abi::{FIXED_ABI_VGPRS, device_value_vgprs};
use crate::isa::gcn::inst::Inst;
use crate::isa::gcn::regs::{self, FIRST_CALLEE_SAVED_VGPR, SGPR, VCC, VGPR, sgpr, vgpr};
use crate::machinst::{Reg, RegClass};
use smallvec::smallvec;

impl IsleContext<'_, '_> {
    /// A direct call of `func_ref`, a device function of the module.
    pub(super) fn lower_device_call(
        &mut self,
        func_ref: ir::FuncRef,
        args: &[Value],
        result_types: &[ir::Type],
    ) -> InstOutput {
        let func = self.lower.func;
        let ext = &func.dfg.ext_funcs[func_ref];
        let sig = &func.dfg.signatures[ext.signature];
        match FunctionKind::of(sig) {
            Ok(FunctionKind::Device) => {}
            Ok(_) => {
                self.fail("a kernel cannot be called: only device functions can");
                return smallvec![];
            }
            Err(reason) => {
                self.fail(reason);
                return smallvec![];
            }
        }
        let name = ext.name.display(Some(&func.params)).to_string();
        let callee = name.strip_prefix('%').unwrap_or(&name).to_string();
        let dfg = self.lower.dfg();
        let arg_types: Vec<ir::Type> = args.iter().map(|&v| dfg.value_type(v)).collect();
        let arg_vgprs = device_value_vgprs(arg_types.iter().copied());
        let result_vgprs = device_value_vgprs(result_types.iter().copied());
        let end = |l: &[(u16, u16)]| l.last().map_or(0, |&(at, n)| at + n);
        if end(&arg_vgprs) > FIXED_ABI_VGPRS || end(&result_vgprs) > FIXED_ABI_VGPRS {
            self.fail(format!(
                "a call passes at most {FIXED_ABI_VGPRS} VGPRs of arguments and of results \
                 (the registers a call clobbers)"
            ));
            return smallvec![];
        }
        if arg_types.iter().chain(result_types).any(|t| t.bytes() > 8) {
            self.fail("call arguments and results wider than 64 bits are not supported");
            return smallvec![];
        }
        let mut abi_args = Vec::new();
        for (&value, &(first, count)) in args.iter().zip(&arg_vgprs) {
            let r = self.value_reg(value);
            let r = self.vgpr_copy(r);
            match count {
                1 => abi_args.push((r, vgpr(first))),
                _ => {
                    let lo = self.half(r, false);
                    let hi = self.half(r, true);
                    abi_args.push((lo, vgpr(first)));
                    abi_args.push((hi, vgpr(first + 1)));
                }
            }
        }
        let mut abi_results = Vec::new();
        let mut outputs: InstOutput = smallvec![];
        let mut combines = Vec::new();
        for &(first, count) in &result_vgprs {
            let parts: Vec<Reg> = (0..count)
                .map(|k| {
                    let v = self.vreg(VGPR, RegClass::Int);
                    abi_results.push((v, vgpr(first + k)));
                    v
                })
                .collect();
            combines.push(parts);
        }
        let clobbers = call_clobbers(self.backend.generation, end(&result_vgprs));
        self.emit(Inst::Call {
            callee,
            args: abi_args,
            results: abi_results,
            clobbers,
        });
        // The callee may have set M0 to its own use.
        if self.backend.needs_lds_bound(func) {
            self.emit(Inst::LdsBound);
        }
        for parts in combines {
            let r = match parts.as_slice() {
                [one] => *one,
                [lo, hi] => self.combine_regs(*lo, *hi),
                _ => unreachable!("results are at most 64 bits, checked above"),
            };
            outputs.push(r);
        }
        outputs
    }
}

impl IsleContext<'_, '_> {
    /// `return_call`: a call of `func_ref`, then a return of its results.
    pub(super) fn lower_device_tail_call(
        &mut self,
        func_ref: ir::FuncRef,
        args: &[Value],
    ) -> InstOutput {
        if self.backend.kind == FunctionKind::Kernel {
            self.fail("a kernel cannot tail-call: it returns no results to pass on");
            return smallvec![];
        }
        let func = self.lower.func;
        let sig = &func.dfg.signatures[func.dfg.ext_funcs[func_ref].signature];
        let types: Vec<ir::Type> = sig.returns.iter().map(|p| p.value_type).collect();
        let regs = self.lower_device_call(func_ref, args, &types);
        if self.error.is_none() {
            self.return_regs(&types, &regs);
        }
        smallvec![]
    }

    /// A device function's return of `regs` (of `types`) in v0, v1, ….
    pub(super) fn return_regs(&mut self, types: &[ir::Type], regs: &[Reg]) {
        let locations = device_value_vgprs(types.iter().copied());
        let mut results = Vec::new();
        for (&r, &(first, count)) in regs.iter().zip(&locations) {
            let r = self.vgpr_copy(r);
            match count {
                1 => results.push((r, vgpr(first))),
                2 => {
                    let lo = self.half(r, false);
                    let hi = self.half(r, true);
                    results.push((lo, vgpr(first)));
                    results.push((hi, vgpr(first + 1)));
                }
                _ => self.fail("return values wider than 64 bits are not supported"),
            }
        }
        let ret_addr = self.backend.frame.return_address.expect("device frame");
        self.emit(Inst::Ret { results, ret_addr });
    }
}

/// The registers a call clobbers besides its results (v0 up to `result_vgprs`, which it
/// defines): every SGPR and VCC, and the VGPRs below [`FIRST_CALLEE_SAVED_VGPR`].
fn call_clobbers(generation: crate::isa::gcn::mc::Gen, result_vgprs: u16) -> Vec<Reg> {
    let mut clobbers: Vec<Reg> = (0..regs::sgpr_limit(generation)).map(sgpr).collect();
    clobbers.push(VCC);
    clobbers.extend((result_vgprs..FIRST_CALLEE_SAVED_VGPR).map(vgpr));
    debug_assert!(clobbers.iter().all(|r| r.file() == SGPR || r.hw() < 32));
    clobbers
}
