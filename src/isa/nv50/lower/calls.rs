//! Calls of device functions (`docs/ir.md`, "Calls"): the argument words in `$r0`, `$r1`, …
//! as the callee's parameters take them, the result words defined from `$r0`, `$r1`, …, and
//! every register the callee may overwrite a clobber of the call (`$r0`–`$r15` but the
//! results, `$c0`–`$c3`), so that the allocator keeps the values live across it in `$r16`
//! and up or spills them. The callee saves the `$r` from `$r16` it writes
//! (`save_registers.rs`); the `call` itself is linked later (`link.rs`).

use super::isle::generated::Context as _;
use super::{InstOutput, IsleContext};
use crate::FunctionKind;
use crate::ir::{self, Value};
use crate::isa::nv50::inst::Inst;
use crate::isa::nv50::regs::{FIRST_CALLEE_SAVED_GPR, FLAG, FLAG_LIMIT, gpr};
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    /// A direct call of `func_ref`, a device function of the module, with `args`; its
    /// results are the values `results` (of `result_types`).
    pub(super) fn device_call(
        &mut self,
        func_ref: ir::FuncRef,
        args: &[Value],
        results: Option<&[Value]>,
        result_types: &[ir::Type],
    ) -> InstOutput {
        let func = self.lower.func;
        let ext = &func.dfg.ext_funcs[func_ref];
        let sig = &func.dfg.signatures[ext.signature];
        match FunctionKind::of(sig) {
            Ok(FunctionKind::Device) => {}
            Ok(_) => {
                self.fail("a kernel cannot be called: only device functions can");
                return InstOutput::new();
            }
            Err(reason) => {
                self.fail(reason);
                return InstOutput::new();
            }
        }
        let name = ext.name.display(Some(&func.params)).to_string();
        let callee = name.strip_prefix('%').unwrap_or(&name).to_string();
        let dfg = self.lower.dfg();
        let arg_types: Vec<ir::Type> = args.iter().map(|&v| dfg.value_type(v)).collect();
        if arg_types.iter().chain(result_types).any(|t| t.bytes() > 8) {
            self.fail("call arguments and results wider than 64 bits are not supported");
            return InstOutput::new();
        }
        let words = |types: &[ir::Type]| types.iter().map(|t| t.bytes().div_ceil(4)).sum::<u32>();
        if words(&arg_types) > FIRST_CALLEE_SAVED_GPR as u32
            || words(result_types) > FIRST_CALLEE_SAVED_GPR as u32
        {
            self.fail(format!(
                "a call passes at most {FIRST_CALLEE_SAVED_GPR} words of arguments and of \
                 results (`$r0`–`$r15`, the registers a call clobbers)"
            ));
            return InstOutput::new();
        }
        let mut abi_args = Vec::new();
        let mut next = 0u16;
        for (&value, ty) in args.iter().zip(&arg_types) {
            let r = self.put_in_reg(value);
            let parts = match (ty.bytes(), r.class()) {
                (8, RegClass::Float) => vec![self.half(r, false), self.half(r, true)],
                // An i64 kept as its low word (`low_words.rs`) is never passed whole: a
                // call reads both words of its arguments.
                (8, _) => {
                    self.fail("internal error: an i64 call argument without its high word");
                    return InstOutput::new();
                }
                _ => vec![r],
            };
            for part in parts {
                abi_args.push((part, gpr(next)));
                next += 1;
            }
        }
        let mut abi_results = Vec::new();
        let mut outputs = InstOutput::new();
        let mut combines = Vec::new();
        let mut next = 0u16;
        for (k, ty) in result_types.iter().enumerate() {
            let count = ty.bytes().div_ceil(4) as u16;
            let low_only = results.is_some_and(|r| self.backend.low_words.low_only(func, r[k]));
            let read = if low_only { 1 } else { count };
            let parts: Vec<Reg> = (0..read)
                .map(|w| {
                    let v = self.vreg(RegClass::Int);
                    abi_results.push((v, gpr(next + w)));
                    v
                })
                .collect();
            next += count;
            combines.push(parts);
        }
        let defined: Vec<u16> = abi_results.iter().map(|(_, r)| r.hw()).collect();
        let mut clobbers: Vec<Reg> = (0..FIRST_CALLEE_SAVED_GPR)
            .filter(|hw| !defined.contains(hw))
            .map(gpr)
            .collect();
        clobbers.extend((0..FLAG_LIMIT).map(|hw| Reg::Real {
            file: FLAG,
            class: RegClass::Int,
            hw,
        }));
        self.emit(Inst::Call {
            callee,
            args: abi_args,
            results: abi_results,
            clobbers,
        });
        for parts in combines {
            let r = match parts.as_slice() {
                [one] => *one,
                [lo, hi] => self.combine(*lo, *hi),
                _ => unreachable!("results are at most 64 bits, checked above"),
            };
            outputs.push(r);
        }
        outputs
    }

    /// `return_call`: a call of `func_ref`, then a return of its results.
    pub(super) fn device_tail_call(&mut self, func_ref: ir::FuncRef, args: &[Value]) {
        if self.backend.kind == FunctionKind::Kernel {
            self.fail("a kernel cannot tail-call: it returns no results to pass on");
            return;
        }
        let func = self.lower.func;
        let sig = &func.dfg.signatures[func.dfg.ext_funcs[func_ref].signature];
        let types: Vec<ir::Type> = sig.returns.iter().map(|p| p.value_type).collect();
        let regs = self.device_call(func_ref, args, None, &types);
        if self.error.is_none() {
            self.return_regs(&regs);
        }
    }
}
