//! Which i64 values NV50 computes only the low word of.
//!
//! A `g[15]` access uses the low 32 bits of its CLIF address (`docs/nv50.md`, "Memory
//! windows"), and the low word of a sum, difference, product, bit operation or left shift
//! depends only on the low words of its operands. So the pointer arithmetic that feeds
//! addresses needs no high words: a backward pass over the function finds, for every i64
//! value, which of its two words some use reads, and the lowering computes a value whose
//! high word nothing reads as one 32-bit `$r` (`lower/low_words.rs`), from the low words
//! of its operands. Values with a use that reads the high word stay register pairs.

use crate::analysis::cfg::destinations;
use crate::ir::{self, InstructionData, Opcode, Value, types};
use cranelift_codegen::entity::SecondaryMap;

/// The low word of a value.
const LO: u8 = 1;
/// The high word.
const HI: u8 = 2;
const BOTH: u8 = LO | HI;

/// The words of each i64 value that some use reads.
pub struct LowWords {
    demand: SecondaryMap<Value, u8>,
}

impl LowWords {
    /// Finds the words read of every i64 value of `func`.
    pub fn analyze(func: &ir::Function) -> LowWords {
        let mut demand: SecondaryMap<Value, u8> = SecondaryMap::new();
        let blocks: Vec<ir::Block> = func.layout.blocks().collect();
        // Demands only grow, so the loop ends; loops in the CFG (block parameters) take a
        // few rounds.
        let mut changed = true;
        while changed {
            changed = false;
            for &block in blocks.iter().rev() {
                for inst in func.layout.block_insts(block).rev() {
                    let reads = operand_words(func, inst, &demand);
                    for (value, words) in reads {
                        let value = func.dfg.resolve_aliases(value);
                        if func.dfg.value_type(value) == types::I64
                            && demand[value] | words != demand[value]
                        {
                            demand[value] |= words;
                            changed = true;
                        }
                    }
                }
            }
        }
        LowWords { demand }
    }

    /// Whether `value` is an i64 of which nothing reads the high word.
    pub fn low_only(&self, func: &ir::Function, value: Value) -> bool {
        let value = func.dfg.resolve_aliases(value);
        func.dfg.value_type(value) == types::I64 && self.demand[value] & HI == 0
    }
}

/// The words `inst` reads of each of its operands (and branch arguments), given the words
/// read of its results. An operand the rules below do not name is read whole, which is
/// what the ordinary (64-bit) lowering of any instruction does.
fn operand_words(
    func: &ir::Function,
    inst: ir::Inst,
    demand: &SecondaryMap<Value, u8>,
) -> Vec<(Value, u8)> {
    let dfg = &func.dfg;
    let data = &dfg.insts[inst];
    let args = dfg.inst_args(inst);
    let result = dfg
        .inst_results(inst)
        .first()
        .map_or(0, |&r| demand[dfg.resolve_aliases(r)]);
    // A result's low word from its operands' low words, its high word from both words.
    let carries = if result & HI != 0 { BOTH } else { result };
    let constant = |v: Value| match dfg.insts[match dfg.value_def(dfg.resolve_aliases(v)) {
        ir::ValueDef::Result(i, _) => i,
        _ => return None,
    }] {
        InstructionData::UnaryImm { imm, .. } => Some(imm.bits() as u64),
        _ => None,
    };
    let opcode = data.opcode();
    if opcode.is_branch() {
        // A block argument is read as its parameter is; the branch condition whole.
        let mut out: Vec<(Value, u8)> = Vec::new();
        for (block, block_args) in destinations(func, inst) {
            let params = dfg.block_params(block);
            for (arg, &param) in block_args.iter().zip(params) {
                if let ir::BlockArg::Value(v) = *arg {
                    out.push((v, demand[param]));
                }
            }
        }
        let fixed = data.arguments(&dfg.value_lists).len();
        out.extend(args.iter().take(fixed).map(|&v| (v, BOTH)));
        return out;
    }
    let mut words: Vec<u8> = vec![BOTH; args.len()];
    match opcode {
        Opcode::Iadd | Opcode::Isub | Opcode::Imul | Opcode::Ineg => words.fill(carries),
        Opcode::Band | Opcode::Bor | Opcode::Bxor | Opcode::Bnot => words.fill(result),
        // The condition is read whole; each side as the result is.
        Opcode::Select | Opcode::SelectSpectreGuard => {
            words[1] = result;
            words[2] = result;
        }
        Opcode::Ireduce => words[0] = LO,
        Opcode::Ishl | Opcode::Ushr | Opcode::Sshr | Opcode::Rotl | Opcode::Rotr => {
            // The count modulo the width: its low word.
            words[1] = LO;
            let k = constant(args[1]).map(|k| k & 63);
            words[0] = match (opcode, k) {
                (Opcode::Ishl, Some(k)) if k >= 32 => {
                    if result & HI != 0 {
                        LO
                    } else {
                        0
                    }
                }
                (Opcode::Ishl, _) => carries,
                (Opcode::Ushr, Some(k)) if k >= 32 => {
                    if result & LO != 0 {
                        HI
                    } else {
                        0
                    }
                }
                (Opcode::Sshr, Some(k)) if k >= 32 => {
                    if result != 0 {
                        HI
                    } else {
                        0
                    }
                }
                _ => BOTH,
            };
        }
        // A memory access reads its address's low word; a narrow store its data's.
        _ if opcode.can_load() || opcode.can_store() => {
            if let Some(addr) = address_index(data) {
                words[addr] = LO;
            }
            if matches!(
                opcode,
                Opcode::Istore8 | Opcode::Istore16 | Opcode::Istore32
            ) {
                words[0] = LO;
            }
        }
        _ => {}
    }
    args.iter().copied().zip(words).collect()
}

/// The index of the address among a load's or store's arguments.
fn address_index(data: &InstructionData) -> Option<usize> {
    match data {
        InstructionData::Load { .. } => Some(0),
        InstructionData::Store { .. } => Some(1),
        _ => None,
    }
}
