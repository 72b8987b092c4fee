//! Removes integer operations whose effect no later use observes, from the bits each value's
//! uses read ("demanded bits").
//!
//! `istore16 (iadd (band w, 0xffff), (ushr w, 16))` stores the low 16 bits of the sum, and
//! those depend only on the low 16 bits of its operands, of which the mask changes none: the
//! `band` goes, and with it a 32-bit literal on GCN. Cranelift's mid-end has no such rule (it
//! simplifies one instruction from its operands, never from its uses), so this pass runs
//! after it, on any target.
//!
//! One walk from the last instruction to the first in post-order (a use is met before its
//! definition: a definition dominates its uses, and block parameters, the only values that
//! cross back edges, are taken as wholly demanded) gives each value the union of what its
//! uses read. An instruction is then made an alias of its operand when the two agree on
//! every demanded bit: `band x, C` (every demanded bit is in `C`, or known zero in `x`),
//! `bor`/`bxor x, C` (no demanded bit in `C`), an extension of an `ireduce` back to the
//! reduced value's own type (every demanded bit below the narrow width). The operand then
//! inherits the result's demand, so nothing earlier relies on a bit the rewrite exposes.

use crate::analysis::bounds;
use crate::ir::{self, InstructionData, Opcode, Value};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::entity::SecondaryMap;
use smallvec::{SmallVec, smallvec};

use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{Type, ValueDef};

/// What an instruction reads of each operand: at most three operands but for calls,
/// branches and stores of many values (no allocation for the common case).
type Demands = SmallVec<[(Value, u64); 3]>;

/// Whether the pass follows the bits of values of type `ty`: scalar integers of up to 64
/// bits (`Type::is_int` is false for vectors).
fn tracked(ty: Type) -> bool {
    ty.is_int() && ty.bits() <= 64
}

/// Every bit of a value of type `ty`; all ones for a type whose bits are not tracked.
fn all_of(ty: Type) -> u64 {
    if tracked(ty) && ty.bits() < 64 {
        (1u64 << ty.bits()) - 1
    } else {
        u64::MAX
    }
}

/// The bits at and below the highest bit of `mask`: what a carry-propagating operation
/// (`iadd`, `imul`, …) reads of its operands to give the bits of `mask`.
fn and_below(mask: u64) -> u64 {
    match mask {
        0 => 0,
        m => u64::MAX >> m.leading_zeros(),
    }
}

/// Makes values that agree with an operand on every bit their uses read aliases of that
/// operand (see the module comment). Block order comes from a fresh control-flow graph.
pub fn run(func: &mut ir::Function) {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut demand: SecondaryMap<Value, u64> = SecondaryMap::new();
    let mut aliases = Vec::new();
    for &block in domtree.cfg_postorder() {
        for &param in func.dfg.block_params(block) {
            demand[param] = u64::MAX;
        }
        let mut cursor = func.layout.last_inst(block);
        while let Some(inst) = cursor {
            cursor = func.layout.prev_inst(inst);
            let results = func.dfg.inst_results(inst);
            let wanted = results.iter().fold(0, |d, &r| d | demand[r]);
            if let [result] = *results
                && let Some(operand) = same_on(func, inst, wanted)
            {
                aliases.push((inst, result, operand));
                demand[operand] |= wanted;
                continue;
            }
            for (operand, bits) in operand_demands(func, inst, wanted) {
                demand[operand] |= bits;
            }
        }
    }
    for (inst, result, operand) in aliases {
        func.dfg.detach_inst_results(inst);
        func.dfg.change_to_alias(result, operand);
        func.layout.remove_inst(inst);
    }
    func.dfg.resolve_all_aliases();
}

/// The integer constant `value` is, sign-agnostic in 64 bits.
fn constant(func: &ir::Function, value: Value) -> Option<u64> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(value) else {
        return None;
    };
    match func.dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(imm.bits() as u64),
        _ => None,
    }
}

/// The operand of `inst` its single result equals on the bits `wanted`, if any.
fn same_on(func: &ir::Function, inst: ir::Inst, wanted: u64) -> Option<Value> {
    let dfg = &func.dfg;
    let ty = dfg.ctrl_typevar(inst);
    if !tracked(ty) {
        return None;
    }
    let wanted = wanted & all_of(ty);
    match dfg.insts[inst] {
        InstructionData::Binary { opcode, args } => {
            let (x, c) = match (constant(func, args[0]), constant(func, args[1])) {
                (_, Some(c)) => (args[0], c),
                (Some(c), _) => (args[1], c),
                _ => return None,
            };
            let kept = match opcode {
                // A bit outside the mask is cleared: harmless where `x` has it clear too.
                Opcode::Band => {
                    let maybe_set = bounds::max_unsigned(func, x).map_or(u64::MAX, and_below);
                    wanted & !c & maybe_set == 0
                }
                Opcode::Bor | Opcode::Bxor => wanted & c == 0,
                _ => false,
            };
            kept.then_some(x)
        }
        InstructionData::Unary {
            opcode: Opcode::Uextend | Opcode::Sextend,
            arg,
        } => {
            let ValueDef::Result(def, _) = dfg.value_def(arg) else {
                return None;
            };
            let InstructionData::Unary {
                opcode: Opcode::Ireduce,
                arg: wide,
            } = dfg.insts[def]
            else {
                return None;
            };
            (dfg.value_type(wide) == ty && wanted & !all_of(dfg.value_type(arg)) == 0)
                .then_some(wide)
        }
        _ => None,
    }
}

/// The bits of each operand of `inst` that give the bits `wanted` of its results (all of
/// them where the instruction is not one this pass knows).
fn operand_demands(func: &ir::Function, inst: ir::Inst, wanted: u64) -> Demands {
    let dfg = &func.dfg;
    let data = &dfg.insts[inst];
    let whole = |v: Value| (v, all_of(dfg.value_type(v)));
    // Every value the instruction reads, block-call arguments included.
    let all_whole = || dfg.inst_values(inst).map(whole).collect();
    let result_ty = dfg.inst_results(inst).first().map(|&r| dfg.value_type(r));
    let mask = match result_ty {
        Some(ty) if tracked(ty) => all_of(ty),
        // Stores have no result; what they read is decided below.
        None if data.opcode().can_store() => u64::MAX,
        _ => return all_whole(),
    };
    let wanted = wanted & mask;
    let width = result_ty.map_or(64, |t| t.bits() as u64);
    let shift = |v: Value| constant(func, v).map(|k| k % width);
    match *data {
        InstructionData::Store { opcode, args, .. } => {
            let stored = match opcode {
                Opcode::Istore8 => 0xff,
                Opcode::Istore16 => 0xffff,
                Opcode::Istore32 => 0xffff_ffff,
                _ => all_of(dfg.value_type(args[0])),
            };
            smallvec![(args[0], stored), whole(args[1])]
        }
        InstructionData::Binary { opcode, args } => match opcode {
            Opcode::Iadd | Opcode::Isub | Opcode::Imul => {
                args.iter().map(|&v| (v, and_below(wanted))).collect()
            }
            Opcode::Band | Opcode::Bor | Opcode::Bxor => {
                args.iter().map(|&v| (v, wanted)).collect()
            }
            Opcode::Ishl => match shift(args[1]) {
                Some(k) => smallvec![(args[0], wanted >> k), whole(args[1])],
                None => smallvec![(args[0], and_below(wanted)), whole(args[1])],
            },
            Opcode::Ushr | Opcode::Sshr => match shift(args[1]) {
                Some(k) => {
                    let mut bits = (wanted << k) & mask;
                    // The bits shifted in are copies of the sign bit.
                    if opcode == Opcode::Sshr && wanted & !(mask >> k) != 0 {
                        bits |= mask ^ (mask >> 1);
                    }
                    smallvec![(args[0], bits), whole(args[1])]
                }
                None => all_whole(),
            },
            _ => all_whole(),
        },
        InstructionData::Unary { opcode, arg } => {
            let narrow = all_of(dfg.value_type(arg));
            match opcode {
                Opcode::Ineg => smallvec![(arg, and_below(wanted))],
                Opcode::Bnot | Opcode::Ireduce => smallvec![(arg, wanted)],
                Opcode::Uextend => smallvec![(arg, wanted & narrow)],
                Opcode::Sextend => {
                    let sign = if wanted & !narrow != 0 {
                        narrow ^ (narrow >> 1)
                    } else {
                        0
                    };
                    smallvec![(arg, wanted & narrow | sign)]
                }
                _ => all_whole(),
            }
        }
        InstructionData::Ternary {
            opcode: Opcode::Select | Opcode::Bitselect,
            args,
        } => {
            let condition = if data.opcode() == Opcode::Select {
                all_of(dfg.value_type(args[0]))
            } else {
                wanted
            };
            smallvec![(args[0], condition), (args[1], wanted), (args[2], wanted)]
        }
        _ => all_whole(),
    }
}

#[cfg(test)]
mod tests {
    use super::run;

    /// The instructions of the one function in `clif` after the pass, one per line (the
    /// block headers and the signature left out).
    fn after(clif: &str) -> Vec<String> {
        let mut funcs = cranelift_reader::parse_functions(clif).expect("valid CLIF");
        let func = &mut funcs[0];
        run(func);
        let mut lines = Vec::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                lines.push(func.dfg.display_inst(inst).to_string());
            }
        }
        lines
    }

    /// How many of `lines` are `opcode` instructions (of any type).
    fn count(lines: &[String], opcode: &str) -> usize {
        let named = |l: &&String| {
            let word = l.split(" = ").nth(1).unwrap_or(l).split(' ').next();
            word.and_then(|w| w.split('.').next()) == Some(opcode)
        };
        lines.iter().filter(named).count()
    }

    fn has(lines: &[String], opcode: &str) -> bool {
        count(lines, opcode) > 0
    }

    #[test]
    fn a_mask_wider_than_the_bits_a_narrow_store_keeps_goes() {
        let lines = after(
            "function %f(i32, i64) {
             block0(v0: i32, v1: i64):
                 v2 = iconst.i32 0xffff
                 v3 = band v0, v2
                 v4 = iconst.i32 16
                 v5 = ushr v0, v4
                 v6 = iadd v3, v5
                 istore16 v6, v1
                 v7 = iconst.i32 0x1ff
                 v8 = band v0, v7
                 istore8 v8, v1
                 return
             }",
        );
        assert!(!has(&lines, "band"), "{lines:#?}");
        assert!(
            lines.iter().any(|l| l.contains("iadd.i32 v0, v5")),
            "{lines:#?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("istore8.i32 v0, v1")),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_mask_that_clears_a_read_bit_stays() {
        // 0x7f clears bit 7, which the byte store keeps; the word store reads every bit;
        // a block argument is read whole; `imul` reads the low bits of its operands up to
        // the highest it gives.
        let lines = after(
            "function %f(i32, i64) {
             block0(v0: i32, v1: i64):
                 v2 = iconst.i32 0x7f
                 v3 = band v0, v2
                 istore8 v3, v1
                 v4 = iconst.i32 0xffff
                 v5 = band v0, v4
                 store v5, v1
                 v6 = iconst.i32 0xff
                 v7 = band v0, v6
                 v8 = imul v7, v7
                 istore16 v8, v1
                 v9 = iconst.i32 0xfff0
                 v10 = band v0, v9
                 jump block1(v10)
             block1(v11: i32):
                 istore8 v11, v1
                 return
             }",
        );
        assert_eq!(count(&lines, "band"), 4, "{lines:#?}");
    }

    #[test]
    fn shifts_move_what_is_read() {
        let lines = after(
            "function %f(i32, i64) {
             block0(v0: i32, v1: i64):
                 ; The byte store reads bits 8..15 of the shifted value: bit 31 set by the
                 ; `bor` is not among them.
                 v2 = iconst.i32 0x80000000
                 v3 = bor v0, v2
                 v4 = iconst.i32 8
                 v5 = sshr v3, v4
                 istore8 v5, v1
                 ; Shifted by 28 the byte's top bits are copies of bit 31: the `bxor` stays.
                 v6 = bxor v0, v2
                 v7 = iconst.i32 28
                 v8 = sshr v6, v7
                 istore8 v8, v1
                 ; A left shift by 8 moves bits 0..7 out of the low 16 bits' reach only
                 ; from bit 8 up: the mask of bits 8..31 clears bits the store reads.
                 v9 = iconst.i32 0xffffff00
                 v10 = band v0, v9
                 v11 = ishl v10, v4
                 istore16 v11, v1
                 return
             }",
        );
        assert!(!has(&lines, "bor"), "{lines:#?}");
        assert!(has(&lines, "bxor"), "{lines:#?}");
        assert!(has(&lines, "band"), "{lines:#?}");
    }

    #[test]
    fn an_extension_of_a_reduction_is_the_value_where_only_low_bits_are_read() {
        let lines = after(
            "function %f(i32, i64) {
             block0(v0: i32, v1: i64):
                 v2 = ireduce.i8 v0
                 v3 = sextend.i32 v2
                 v4 = iconst.i32 3
                 v5 = iadd v3, v4
                 istore8 v5, v1
                 v6 = uextend.i32 v2
                 v7 = iadd v6, v4
                 istore16 v7, v1
                 return
             }",
        );
        assert!(!has(&lines, "sextend"), "{lines:#?}");
        assert!(has(&lines, "uextend"), "{lines:#?}");
    }

    #[test]
    fn a_mask_of_bits_known_to_be_zero_goes() {
        let lines = after(
            "function %f(i32, i64) {
             block0(v0: i32, v1: i64):
                 v2 = iconst.i32 24
                 v3 = ushr v0, v2
                 v4 = iconst.i32 0xff
                 v5 = band v3, v4
                 store v5, v1
                 return
             }",
        );
        assert!(!has(&lines, "band"), "{lines:#?}");
    }
}
