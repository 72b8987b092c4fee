//! Calls of device functions (`docs/ir.md`, "Calls"): the arguments in v0, v1, … as the
//! callee's parameters take them, the results defined from v0, v1, …, and every register
//! the callee may overwrite a clobber of the call, so that the allocator keeps the values
//! live across it in v32–v255 or spills them. The call's own sequence (saving the SGPRs
//! the function's inputs live in, the callee's stack pointer, the jump) is placed after
//! allocation (`place_calls`).

use super::{InstOutput, IsleContext};
use crate::FunctionKind;
use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData, Opcode, Value};
use crate::isa::gcn::abi::{FIXED_ABI_VGPRS, device_value_vgprs};
use crate::isa::gcn::inst::{Callee, Inst};
use crate::isa::gcn::link::{IndirectCall, signature_key};
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
        let Some(callee) = self.device_function(func_ref, "a call") else {
            return smallvec![];
        };
        self.lower_call_to(Callee::Symbol(callee), args, result_types)
    }

    /// `call_indirect` of `address` with the signature `sig_ref`: its address is uniform
    /// (`machinst::indirect_calls` made a loop of the calls whose address may not be).
    pub(super) fn lower_indirect_call(
        &mut self,
        sig_ref: ir::SigRef,
        address: Value,
        args: &[Value],
        result_types: &[ir::Type],
    ) -> InstOutput {
        let sig = &self.lower.func.dfg.signatures[sig_ref];
        if let Err(reason) = device_signature(sig) {
            self.fail(reason);
            return smallvec![];
        }
        let callees = match self.address_callees(address) {
            Some(callees) => IndirectCall::To(callees),
            None => IndirectCall::Signature(signature_key(sig)),
        };
        let r = self.value_reg(address);
        let address = self.sgpr_copy(r);
        self.lower_call_to(Callee::Address(address, callees), args, result_types)
    }

    /// The functions `address` may be, when it is one of their `func_addr`s: directly,
    /// through `select`s, or as the waterfall loop's address of the first lane left
    /// (`machinst::indirect_calls`).
    fn address_callees(&self, address: Value) -> Option<Vec<String>> {
        let func = self.lower.func;
        let dfg = &func.dfg;
        let ir::ValueDef::Result(inst, _) = dfg.value_def(dfg.resolve_aliases(address)) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::FuncAddr { func_ref, .. } => Some(vec![symbol(func, func_ref)]),
            InstructionData::Ternary {
                opcode: Opcode::Select | Opcode::SelectSpectreGuard,
                args: [_, a, b],
            } => {
                let mut callees = self.address_callees(a)?;
                callees.extend(self.address_callees(b)?);
                callees.sort_unstable();
                callees.dedup();
                Some(callees)
            }
            InstructionData::Binary {
                opcode: Opcode::Iconcat,
                args: [lo, hi],
            } => match (first_lane_half(func, lo, 0), first_lane_half(func, hi, 1)) {
                (Some(a), Some(b)) if a == b => self.address_callees(a),
                _ => None,
            },
            _ => None,
        }
    }

    /// `func_addr` of `func_ref`: its address, which linking fills in (`link`).
    pub(super) fn lower_device_func_addr(
        &mut self,
        func_ref: ir::FuncRef,
        ty: ir::Type,
    ) -> InstOutput {
        if ty != ir::types::I64 {
            self.fail("a function address is 64 bits: `func_addr.i64`");
            return smallvec![];
        }
        let Some(callee) = self.device_function(func_ref, "`func_addr`") else {
            return smallvec![];
        };
        let func = self.lower.func;
        let signature = signature_key(&func.dfg.signatures[func.dfg.ext_funcs[func_ref].signature]);
        let dst = self.vreg(SGPR, RegClass::Float);
        self.emit(Inst::FuncAddr {
            dst,
            callee,
            signature,
        });
        smallvec![dst]
    }

    /// The symbol of `func_ref` (its CLIF name without `%`) when it is a device function;
    /// otherwise the failure saying why `what` (the instruction) cannot refer to it.
    fn device_function(&mut self, func_ref: ir::FuncRef, what: &str) -> Option<String> {
        let func = self.lower.func;
        if Intrinsic::from_func_ref(func, func_ref).is_some() {
            self.fail(format!(
                "{what} names an intrinsic, which has no address: only device functions do"
            ));
            return None;
        }
        let ext = &func.dfg.ext_funcs[func_ref];
        if let Err(reason) = device_signature(&func.dfg.signatures[ext.signature]) {
            self.fail(reason);
            return None;
        }
        Some(symbol(func, func_ref))
    }

    /// A call of `callee` with `args`, returning `result_types`.
    fn lower_call_to(
        &mut self,
        callee: Callee,
        args: &[Value],
        result_types: &[ir::Type],
    ) -> InstOutput {
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
        if self.backend.needs_lds_bound(self.lower.func) {
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

/// The symbol of `func_ref` in `func`: its CLIF name without `%`.
fn symbol(func: &ir::Function, func_ref: ir::FuncRef) -> String {
    let name = func.dfg.ext_funcs[func_ref]
        .name
        .display(Some(&func.params))
        .to_string();
    name.strip_prefix('%').unwrap_or(&name).to_string()
}

/// The value whose half `half` (0 low, 1 high) `value` is, when `value` is
/// `wavelift_readfirstlane` of that half taken with `isplit`.
fn first_lane_half(func: &ir::Function, value: Value, half: usize) -> Option<Value> {
    let dfg = &func.dfg;
    let ir::ValueDef::Result(call, _) = dfg.value_def(dfg.resolve_aliases(value)) else {
        return None;
    };
    let InstructionData::Call { func_ref, .. } = dfg.insts[call] else {
        return None;
    };
    if Intrinsic::from_func_ref(func, func_ref) != Some(Intrinsic::ReadFirstLane) {
        return None;
    }
    let arg = dfg.resolve_aliases(dfg.inst_args(call)[0]);
    match dfg.value_def(arg) {
        ir::ValueDef::Result(split, n) if n == half => match dfg.insts[split] {
            InstructionData::Unary {
                opcode: Opcode::Isplit,
                arg,
            } => Some(arg),
            _ => None,
        },
        _ => None,
    }
}

/// Why a function of signature `sig` cannot be called, if it cannot: it is not a device
/// function.
fn device_signature(sig: &ir::Signature) -> Result<(), String> {
    match FunctionKind::of(sig)? {
        FunctionKind::Device => Ok(()),
        _ => Err(
            "a kernel cannot be called or have its address taken: only device functions can".into(),
        ),
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
