//! Unsigned upper bounds of CLIF integer values, from the instructions that define them.
//!
//! Instruction selection asks this when an addressing form needs a value to fit a field:
//! gfx9's GLOBAL instructions take a 64-bit SGPR base plus a 32-bit VGPR offset that the
//! hardware zero-extends, which is only the CLIF `iadd(base, offset)` when `offset` is below
//! 2^32. The analysis is a walk up the data-flow graph, at most `MAX_DEPTH` instructions
//! deep; every step checks its arithmetic for overflow of the value's type (CLIF integers
//! wrap), and gives up (`None`) where it cannot prove a bound.

use crate::intrinsics::Intrinsic;
use crate::ir::{self, InstructionData, Opcode, Value};

/// How many defining instructions the walk follows from the value asked about.
const MAX_DEPTH: u32 = 8;

/// The largest value a work-item id can have: a work-group has at most 1024 work-items
/// (`docs/ir.md`, "Intrinsics"; the AMDHSA limit the launcher enforces).
pub const MAX_WORKITEM_ID: u64 = 1023;

/// The largest unsigned value `value` can take, when it can be proved from its definition:
/// constants; `uextend` (the operand's bound, else its type's maximum); the work-item id,
/// work-group size and lane id intrinsics; `iadd`, `imul`, `ishl` and `ushr`
/// by a constant, `band` with a constant, `umin`. `None` when nothing better than the
/// type's maximum is known.
pub fn max_unsigned(func: &ir::Function, value: Value) -> Option<u64> {
    max_unsigned_with(func, value, &|_| None)
}

/// [`max_unsigned`] with what the target knows besides: `known` gives a bound for the
/// values it has facts about (NV50's work-group ids are 16-bit, say), which the walk takes
/// where it meets them.
pub fn max_unsigned_with(
    func: &ir::Function,
    value: Value,
    known: &dyn Fn(Value) -> Option<u64>,
) -> Option<u64> {
    bound(func, value, MAX_DEPTH, known)
}

/// All ones in the width of `ty` (integers of up to 64 bits).
fn type_max(ty: ir::Type) -> Option<u64> {
    (ty.is_int() && ty.bits() <= 64).then(|| u64::MAX >> (64 - ty.bits()))
}

/// The value of an integer constant, in its type's width.
fn constant(func: &ir::Function, value: Value) -> Option<u64> {
    let dfg = &func.dfg;
    let ir::ValueDef::Result(inst, _) = dfg.value_def(dfg.resolve_aliases(value)) else {
        return None;
    };
    match dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(imm.bits() as u64 & type_max(dfg.value_type(value))?),
        _ => None,
    }
}

fn bound(
    func: &ir::Function,
    value: Value,
    depth: u32,
    known: &dyn Fn(Value) -> Option<u64>,
) -> Option<u64> {
    let dfg = &func.dfg;
    let value = dfg.resolve_aliases(value);
    let max = type_max(dfg.value_type(value))?;
    if let Some(c) = constant(func, value) {
        return Some(c);
    }
    if let Some(b) = known(value) {
        return Some(b.min(max));
    }
    if depth == 0 {
        return None;
    }
    let ir::ValueDef::Result(inst, _) = dfg.value_def(value) else {
        return None;
    };
    let next = |v: Value| bound(func, v, depth - 1, known);
    // The bound of `v`, or its type's maximum.
    let or_type_max = |v: Value| next(v).or_else(|| type_max(dfg.value_type(v)));
    // A result must not wrap: larger than the type's maximum proves nothing.
    let fits = |b: u128| (b <= max as u128).then_some(b as u64);
    // The operand that is not the constant, and the constant, of a commutative operation.
    let with_constant = |args: [Value; 2]| match (constant(func, args[0]), constant(func, args[1]))
    {
        (_, Some(c)) => Some((args[0], c)),
        (Some(c), _) => Some((args[1], c)),
        _ => None,
    };
    let result = match dfg.insts[inst] {
        InstructionData::Unary {
            opcode: Opcode::Uextend,
            arg,
        } => or_type_max(arg)?,
        InstructionData::Call { func_ref, .. } => match Intrinsic::from_func_ref(func, func_ref)? {
            Intrinsic::WorkitemId(_) => MAX_WORKITEM_ID,
            Intrinsic::WorkgroupSize(_) => MAX_WORKITEM_ID + 1,
            Intrinsic::LaneId => 63,
            Intrinsic::WaveSize => 64,
            _ => return None,
        },
        InstructionData::Binary { opcode, args } => match opcode {
            Opcode::Iadd => fits(next(args[0])? as u128 + next(args[1])? as u128)?,
            Opcode::Imul => fits(next(args[0])? as u128 * next(args[1])? as u128)?,
            // CLIF shifts take the amount modulo the type's width.
            Opcode::Ishl => {
                let k = constant(func, args[1])? % dfg.value_type(value).bits() as u64;
                fits((next(args[0])? as u128) << k)?
            }
            Opcode::Ushr => {
                let k = constant(func, args[1])? % dfg.value_type(value).bits() as u64;
                or_type_max(args[0])? >> k
            }
            Opcode::Band => match with_constant(args) {
                Some((x, c)) => next(x).map_or(c, |b| b.min(c)),
                None => next(args[0])?.min(next(args[1])?),
            },
            Opcode::Umin => match (next(args[0]), next(args[1])) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b)?,
            },
            _ => return None,
        },
        _ => return None,
    };
    // The walk may not prove more than the type allows (a work-item id read as i8, say).
    Some(result.min(max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intrinsics;
    use crate::ir::types::{I8, I16, I32, I64};
    use crate::ir::{Function, InstBuilder};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// Builds a function whose single block computes values with `body` from an i32
    /// parameter `x` (unbounded), and returns the bounds of the values `body` returns.
    fn bounds_of(body: impl FnOnce(&mut FunctionBuilder, Value) -> Vec<Value>) -> Vec<Option<u64>> {
        let mut func = Function::new();
        func.signature.params.push(ir::AbiParam::new(I32));
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let x = b.block_params(block)[0];
        let values = body(&mut b, x);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        let target = crate::Target::parse("gfx900").expect("a target");
        b.finalize(target.frontend_config());
        values.iter().map(|&v| max_unsigned(&func, v)).collect()
    }

    #[test]
    fn the_out_of_workitem_id_pattern() {
        let got = bounds_of(|b, x| {
            let f = intrinsics::declare(b.func, Intrinsic::WorkitemId(0));
            let call = b.ins().call(f, &[]);
            let id = b.inst_results(call)[0];
            let wide = b.ins().uextend(I64, id);
            let scaled = b.ins().ishl_imm_u(wide, 2);
            let unknown = b.ins().uextend(I64, x);
            let big = b.ins().ishl_imm_u(unknown, 2);
            vec![id, wide, scaled, unknown, big]
        });
        assert_eq!(
            got,
            [
                Some(1023),
                Some(1023),
                Some(4092),
                Some(u32::MAX as u64),
                // A bound, but too large for a 32-bit offset.
                Some(0x3_ffff_fffc),
            ]
        );
    }

    #[test]
    fn arithmetic_and_its_overflow() {
        let got = bounds_of(|b, x| {
            let byte = b.ins().ireduce(I8, x);
            let b64 = b.ins().uextend(I64, byte);
            let short = b.ins().ireduce(I16, x);
            let s64 = b.ins().uextend(I64, short);
            let sum = b.ins().iadd(b64, s64);
            let product = b.ins().imul_imm_u(sum, 3);
            let masked = b.ins().band_imm_u(x, 0xfff);
            let shifted = b.ins().ushr_imm_u(x, 20);
            let min = b.ins().umin(x, masked);
            let c = b.ins().iconst(I32, 100);
            let min_c = b.ins().umin(c, x);
            // 0xffff_ffff * 2 wraps in i32: no bound.
            let wraps = b.ins().imul_imm_u(x, 2);
            let x64 = b.ins().uextend(I64, x);
            let no_wrap = b.ins().imul_imm_u(x64, 2);
            let overflow = b.ins().ishl_imm_u(no_wrap, 32);
            vec![
                b64, s64, sum, product, masked, shifted, min, min_c, wraps, no_wrap, overflow,
            ]
        });
        assert_eq!(
            got,
            [
                Some(0xff),
                Some(0xffff),
                Some(0x100fe),
                Some(0x302fa),
                Some(0xfff),
                Some(0xfff),
                Some(0xfff),
                Some(100),
                None,
                Some(0x1_ffff_fffe),
                None,
            ]
        );
    }

    #[test]
    fn products_and_what_the_target_knows() {
        let mut func = Function::new();
        func.signature.params.push(ir::AbiParam::new(I32));
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let x = b.block_params(block)[0];
        let group = intrinsics::declare(b.func, Intrinsic::WorkgroupId(0));
        let call = b.ins().call(group, &[]);
        let id = b.inst_results(call)[0];
        let masked = b.ins().band_imm_u(x, 0xfff);
        let square = b.ins().imul(masked, masked);
        let wide = b.ins().uextend(I64, id);
        let scaled = b.ins().imul(wide, wide);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        let target = crate::Target::parse("gfx900").expect("a target");
        b.finalize(target.frontend_config());
        // Two bounded factors; a work-group id has no bound but its type's.
        assert_eq!(max_unsigned(&func, square), Some(0xfff * 0xfff));
        assert_eq!(
            max_unsigned(&func, scaled),
            Some(u32::MAX as u64 * u32::MAX as u64)
        );
        // A target that knows its ids are 16-bit.
        let known = |v: Value| (v == id).then_some(0xffff);
        assert_eq!(
            max_unsigned_with(&func, scaled, &known),
            Some(0xffff * 0xffff)
        );
    }
}
