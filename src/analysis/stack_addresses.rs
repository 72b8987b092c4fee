//! Which values are addresses into the function's stack slots (private memory).
//!
//! A stack address starts at a `stack_addr` and may move through integer arithmetic that
//! keeps it an address (`iadd` of one stack address and another value, `isub` of another
//! value from one) and through block parameters whose every incoming
//! argument is a stack address. Its only other use is as the address of a `load` or a
//! `store`. Everything else (stored as data, passed to a call, returned, compared,
//! selected, mixed with other values in a block parameter) lets the address escape into
//! a general integer, which a target that keeps private memory apart from other memory
//! cannot follow: that is an error naming the instruction (`docs/ir.md`, "Memory spaces").

use crate::ir::{self, InstructionData, Opcode, Value};
use std::collections::HashSet;

/// The stack addresses of a function.
#[derive(Clone, Debug, Default)]
pub struct StackAddresses {
    values: HashSet<Value>,
}

impl StackAddresses {
    /// Whether `value` (aliases resolved by the caller) is a stack address.
    pub fn contains(&self, value: Value) -> bool {
        self.values.contains(&value)
    }

    /// Finds the stack addresses of `func`, or the first instruction through which one
    /// escapes, with the reason.
    pub fn find(func: &ir::Function) -> Result<StackAddresses, (ir::Inst, String)> {
        let found = Self::collect(func);
        found.check(func)?;
        Ok(found)
    }

    /// The values that are stack addresses by their definitions, whatever their uses.
    pub fn collect(func: &ir::Function) -> StackAddresses {
        let dfg = &func.dfg;
        let mut values = HashSet::new();
        // Grow the set to a fixed point: results of address arithmetic on a stack address,
        // and block parameters receiving one.
        loop {
            let mut grew = false;
            for block in func.layout.blocks() {
                for inst in func.layout.block_insts(block) {
                    let args: Vec<Value> = dfg
                        .inst_args(inst)
                        .iter()
                        .map(|&a| dfg.resolve_aliases(a))
                        .collect();
                    let carries = match dfg.insts[inst].opcode() {
                        Opcode::StackAddr => true,
                        Opcode::Iadd => args.iter().any(|a| values.contains(a)),
                        Opcode::Isub => args.first().is_some_and(|a| values.contains(a)),
                        _ => false,
                    };
                    if carries {
                        for &r in dfg.inst_results(inst) {
                            grew |= values.insert(r);
                        }
                    }
                    for call in
                        dfg.insts[inst].branch_destination(&dfg.jump_tables, &dfg.exception_tables)
                    {
                        let params = dfg.block_params(call.block(&dfg.value_lists));
                        for (arg, &param) in call.args(&dfg.value_lists).zip(params) {
                            if let Some(arg) = arg.as_value()
                                && values.contains(&dfg.resolve_aliases(arg))
                            {
                                grew |= values.insert(param);
                            }
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
        StackAddresses { values }
    }

    /// Every use of a stack address is one the set allows.
    fn check(&self, func: &ir::Function) -> Result<(), (ir::Inst, String)> {
        let dfg = &func.dfg;
        let is = |v: Value| self.contains(dfg.resolve_aliases(v));
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let data = &dfg.insts[inst];
                let opcode = data.opcode();
                let escape = |what: &str| {
                    Err((
                        inst,
                        format!(
                            "a stack address {what}: private memory is addressed only by \
                             stack_addr plus offsets, in loads and stores"
                        ),
                    ))
                };
                match *data {
                    InstructionData::Load { .. } => {}
                    InstructionData::Store {
                        args: [value, _], ..
                    } if is(value) => {
                        return escape("is stored to memory");
                    }
                    InstructionData::Store { .. } => {}
                    _ => match opcode {
                        Opcode::Iadd => {
                            let args = dfg.inst_args(inst);
                            if is(args[0]) && is(args[1]) {
                                return escape("is added to another");
                            }
                        }
                        Opcode::Isub => {
                            if is(dfg.inst_args(inst)[1]) {
                                return escape("is subtracted from a value");
                            }
                        }
                        Opcode::StackAddr => {}
                        _ if data
                            .branch_destination(&dfg.jump_tables, &dfg.exception_tables)
                            .is_empty() =>
                        {
                            if dfg.inst_args(inst).iter().any(|&a| is(a)) {
                                return escape(&format!("is an operand of `{opcode}`"));
                            }
                        }
                        _ => {
                            // A branch: its condition is no address, and a block parameter
                            // takes stack addresses from every edge or from none.
                            if let Some(&cond) = dfg.inst_fixed_args(inst).first()
                                && is(cond)
                            {
                                return escape(&format!("is the condition of `{opcode}`"));
                            }
                            for call in
                                data.branch_destination(&dfg.jump_tables, &dfg.exception_tables)
                            {
                                let params = dfg.block_params(call.block(&dfg.value_lists));
                                for (arg, &param) in call.args(&dfg.value_lists).zip(params) {
                                    let arg_is = arg.as_value().is_some_and(is);
                                    if arg_is != self.contains(param) {
                                        return escape(
                                            "and another value reach one block parameter",
                                        );
                                    }
                                }
                            }
                        }
                    },
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ir::Function {
        cranelift_reader::parse_functions(text).unwrap().remove(0)
    }

    #[test]
    fn addresses_follow_arithmetic_and_block_parameters() {
        let func = parse(
            "function %f(i32) -> i32 {
                ss0 = explicit_slot 64
            block0(v0: i32):
                v1 = stack_addr.i32 ss0
                v2 = iadd v1, v0
                v3 = iconst.i32 4
                jump block1(v2)
            block1(v4: i32):
                v5 = iadd v4, v3
                store v0, v5
                v6 = load.i32 v4
                return v6
            }",
        );
        let found = StackAddresses::find(&func).unwrap();
        let v = |n| Value::from_u32(n);
        for n in [1, 2, 4, 5] {
            assert!(found.contains(v(n)), "v{n}");
        }
        for n in [0, 3, 6] {
            assert!(!found.contains(v(n)), "v{n}");
        }
    }

    #[test]
    fn escaping_addresses_are_errors() {
        let stored = "function %f(i64) {
                ss0 = explicit_slot 8
            block0(v0: i64):
                v1 = stack_addr.i64 ss0
                store v1, v0
                return
            }";
        let compared = "function %f(i64) -> i8 {
                ss0 = explicit_slot 8
            block0(v0: i64):
                v1 = stack_addr.i64 ss0
                v2 = icmp eq v1, v0
                return v2
            }";
        let mixed = "function %f(i64, i8) -> i32 {
                ss0 = explicit_slot 8
            block0(v0: i64, v3: i8):
                v1 = stack_addr.i64 ss0
                brif v3, block1(v1), block1(v0)
            block1(v2: i64):
                v4 = load.i32 v2
                return v4
            }";
        for (text, reason) in [
            (stored, "is stored to memory"),
            (compared, "is an operand of `icmp`"),
            (mixed, "another value reach one block parameter"),
        ] {
            let (_, message) = StackAddresses::find(&parse(text)).unwrap_err();
            assert!(message.contains(reason), "{message}");
        }
    }
}
