//! What each kernel argument is, for a loader's metadata: a global buffer's address or a
//! value. Plain CLIF has no pointer type, so [`infer`] reads it from the body: a 64-bit
//! parameter that an address of a `load` or `store` is computed from is a global buffer.

use crate::ArgKind;
use crate::ir::{self, InstructionData, Opcode, Value};
use std::collections::HashSet;

/// Each parameter's kind: [`ArgKind::GlobalBuffer`] for an `i64` from which the address of
/// a memory access is computed — itself, or an `iadd`/`isub` with it as the first operand
/// of a subtraction or either operand of an addition, through any number of these (the
/// shape of `base + index * size + offset`); [`ArgKind::ByValue`] for the others.
pub fn infer(func: &ir::Function) -> Vec<ArgKind> {
    let Some(entry) = func.layout.entry_block() else {
        return Vec::new();
    };
    let params = func.dfg.block_params(entry);
    // Values an address may be based on, mapped back to the parameter they derive from.
    let mut derived: Vec<(Value, usize)> = params
        .iter()
        .enumerate()
        .filter(|&(_, &p)| func.dfg.value_type(p) == ir::types::I64)
        .map(|(i, &p)| (p, i))
        .collect();
    let mut addresses: HashSet<usize> = HashSet::new();
    let origin = |derived: &[(Value, usize)], v: Value| {
        derived.iter().find(|&&(d, _)| d == v).map(|&(_, i)| i)
    };
    // Definitions come before their uses in layout order within the dominance tree, and
    // address arithmetic rarely crosses blocks through parameters: one pass in layout order.
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            match func.dfg.insts[inst] {
                InstructionData::Binary {
                    opcode: opcode @ (Opcode::Iadd | Opcode::Isub),
                    args,
                } => {
                    let base = match opcode {
                        Opcode::Iadd => origin(&derived, args[0]).or(origin(&derived, args[1])),
                        _ => origin(&derived, args[0]),
                    };
                    if let Some(i) = base {
                        derived.push((func.dfg.first_result(inst), i));
                    }
                }
                InstructionData::Load { arg, .. } => {
                    addresses.extend(origin(&derived, arg));
                }
                InstructionData::Store { args, .. } => {
                    addresses.extend(origin(&derived, args[1]));
                }
                _ => {}
            }
        }
    }
    (0..params.len())
        .map(|i| {
            if addresses.contains(&i) {
                ArgKind::GlobalBuffer
            } else {
                ArgKind::ByValue
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(clif: &str) -> Vec<ArgKind> {
        infer(&cranelift_reader::parse_functions(clif).unwrap()[0])
    }

    #[test]
    fn addresses_make_global_buffers() {
        let got = kinds(
            "function %k(i64, i64, i64, f32, i64) system_v {
             block0(v0: i64, v1: i64, v2: i64, v3: f32, v4: i64):
                 v5 = load.f32 v0
                 v6 = iconst.i64 8
                 v7 = imul v2, v6
                 v8 = iadd v7, v1
                 v9 = iadd v8, v6
                 store v5, v9+4
                 v10 = isub v6, v4
                 v11 = load.i32 v10
                 return
             }",
        );
        // v2 only scales the index; v4 is subtracted from a constant, not a base.
        use ArgKind::*;
        assert_eq!(got, [GlobalBuffer, GlobalBuffer, ByValue, ByValue, ByValue]);
    }
}
