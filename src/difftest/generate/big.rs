//! The generator's rare large shapes: many parameters and results (more VGPR words than
//! the fixed-register part of the device-function ABI), wide `br_table`s, deep nests of ifs
//! and loops with breaks out of several loops, and long chains of such regions (CFGs of
//! dozens to hundreds of blocks). They found false register exhaustion and lane masks that
//! outgrew the SGPRs (`docs/decisions.md`), which small functions never reach.
//!
//! A shape's structure (sizes, kinds of region, targets) comes from a seed the input
//! gives rather than from the input itself, so that it stays large when the input runs
//! out. Each block adds a step of its own to an `i32` it carries (and while the input
//! lasts, random instructions besides), so that every path shows in the results. Branch
//! conditions, loop trip counts and table indices are bits of a selector, an `i32` in scope
//! (a parameter when there is one: per lane in device functions, uniform in their kernels),
//! mixed with the carried value. A loop runs `base + bit` times with `base` 1 for at most
//! three loops of a shape, so that no lane runs more than 8 times through a nest; a third
//! of the loops run a constant number of times (uniform counters, whose bits some branches
//! test), and some regions are entered from two places (`big_shared`). Chains of units
//! (`big_chain`) branch forward to any later unit and break to any block after a loop:
//! reducible control flow beyond nesting.

use super::{Generator, Spec};
use crate::difftest::values::SplitMix64;
use crate::ir::condcodes::IntCC;
use crate::ir::types::I32;
use crate::ir::{AbiParam, Block, BlockArg, InstBuilder, JumpTableData, Value};
use arbitrary::Result;

/// One function in this many takes many parameters and results, and one in this many has
/// a large shape after its first block: rare enough that the campaign's speed stays what
/// it is (the large shapes cost 3–15 times an ordinary function to compile and interpret).
pub(super) const MANY_VALUES_ODDS: u32 = 100;
pub(super) const BIG_SHAPE_ODDS: u32 = 100;

/// The state of one large shape.
struct Big {
    rng: SplitMix64,
    /// The `i32` whose bits steer the branches.
    sel: Value,
    /// Loops that may still run twice.
    doubles: u32,
    /// The exit blocks of the enclosing loops, innermost last (break targets).
    exits: Vec<Block>,
    /// The counters of the enclosing loops with a constant trip count, innermost last:
    /// uniform while no divergent branch around them makes them otherwise.
    counters: Vec<Value>,
    /// For each enclosing loop of a chain of units (`big_chain`), the blocks after it that
    /// a `break` may go to.
    breaks: Vec<Vec<Block>>,
}

impl Generator<'_, '_, '_> {
    /// Parameters of 24 words in all up to the profile's most (72 VGPRs on GCN).
    pub(super) fn many_params(&mut self) -> Result<()> {
        let words = self
            .u
            .int_in_range(24..=self.config.profile.max_param_words)?;
        let mut used = 0;
        while used < words {
            let ty = self.value_type()?;
            used += ty.bytes().div_ceil(4);
            self.func.signature.params.push(AbiParam::new(ty));
            let v = self.func.dfg.append_block_param(self.block, ty);
            self.scope.push(v);
        }
        Ok(())
    }

    /// How many results to return: many where there are many parameters.
    pub(super) fn result_count(&mut self) -> Result<usize> {
        if self.func.signature.params.len() > self.config.max_params {
            self.u.int_in_range(8..=40)
        } else {
            self.u.int_in_range(1..=self.config.max_results.max(1))
        }
    }

    /// Ends the current block with a large shape; the carried value joins the scope of the
    /// block after it, where more instructions follow.
    pub(super) fn big_shape(&mut self) -> Result<()> {
        let seed: u64 = self.u.arbitrary()?;
        let sel = self.operand(I32)?;
        let acc = self.exact_operand(I32)?;
        let mut big = Big {
            rng: SplitMix64::new(seed),
            sel,
            doubles: 3,
            exits: Vec::new(),
            counters: Vec::new(),
            breaks: Vec::new(),
        };
        match big.rng.below(4) {
            0 => {
                let targets = 16 + big.rng.below(49) as usize;
                self.big_table(&mut big, acc, targets, 0)?;
            }
            1 => {
                let depth = 6 + big.rng.below(25) as u32;
                self.big_nest(&mut big, acc, depth)?;
            }
            2 => {
                let mut acc = acc;
                for _ in 0..6 + big.rng.below(35) {
                    let depth = 1 + big.rng.below(3) as u32;
                    acc = self.big_statements(&mut big, acc, depth)?;
                }
            }
            _ => {
                let mut acc = acc;
                for _ in 0..2 + big.rng.below(5) {
                    acc = self.big_goto(&mut big, acc)?;
                }
            }
        }
        self.instructions()
    }

    /// An `i32` constant, not in scope.
    fn big_const(&mut self, x: i64) -> Value {
        let c = self.cursor().ins().iconst(I32, x);
        self.spec[c] = Spec::Exact;
        c
    }

    /// `(sel >> shift) & mask`, optionally mixed with `acc` first.
    fn big_bits(&mut self, big: &mut Big, acc: Option<Value>, mask: i64) -> Value {
        let shift = self.big_const(big.rng.below(32) as i64);
        let mut x = self.cursor().ins().ushr(big.sel, shift);
        if let Some(acc) = acc {
            x = self.cursor().ins().bxor(x, acc);
        }
        let mask = self.big_const(mask);
        self.cursor().ins().band(x, mask)
    }

    /// A step of the carried value (and, while the input lasts, a random instruction).
    fn big_step(&mut self, big: &mut Big, acc: Value) -> Result<Value> {
        if !self.u.is_empty() && big.rng.chance(1, 2) {
            self.instruction()?;
        }
        let next = match big.rng.below(4) {
            0 => {
                let c = self.big_const((big.rng.below(1 << 16) * 2 + 1) as i64);
                self.cursor().ins().imul(acc, c)
            }
            1 => self.cursor().ins().iadd(acc, big.sel),
            2 => {
                let c = self.big_const(big.rng.next_u32() as i64);
                self.cursor().ins().bxor(acc, c)
            }
            _ => {
                let c = self.big_const(1 + big.rng.below(31) as i64);
                self.cursor().ins().rotl(acc, c)
            }
        };
        self.define(next);
        Ok(next)
    }

    /// A new block with one `i32` parameter (a join or a loop exit).
    fn big_join(&mut self) -> (Block, Value) {
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(block);
        let param = self.func.dfg.append_block_param(block, I32);
        self.spec[param] = Spec::Exact;
        (block, param)
    }

    fn big_block(&mut self) -> Block {
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(block);
        block
    }

    /// Continues in `join`, whose parameter is the carried value from here on.
    fn big_enter_join(&mut self, join: Block, param: Value, outer: usize) -> Value {
        self.block = join;
        self.scope.truncate(outer);
        self.scope.push(param);
        param
    }

    /// Steps, then (for `depth > 0`) maybe a region nested `depth` deep and more steps,
    /// then maybe a break out of an enclosing loop.
    fn big_statements(&mut self, big: &mut Big, acc: Value, depth: u32) -> Result<Value> {
        let mut acc = self.big_step(big, acc)?;
        if depth > 0 {
            acc = match big.rng.below(9) {
                0..=2 => self.big_if(big, acc, depth, false)?,
                3..=5 => self.big_loop(big, acc, depth, false)?,
                6 => {
                    let targets = 2 + big.rng.below(6) as usize;
                    self.big_table(big, acc, targets, depth - 1)?
                }
                7 => self.big_shared(big, acc, depth)?,
                _ => acc,
            };
            acc = self.big_step(big, acc)?;
        }
        if !big.exits.is_empty() && big.rng.chance(1, 6) {
            let exit = big.exits[big.rng.below(big.exits.len() as u64) as usize];
            let stay = self.big_bits(big, Some(acc), 3);
            let next = self.big_block();
            self.cursor()
                .ins()
                .brif(stay, next, &[], exit, &[BlockArg::Value(acc)]);
            self.block = next;
        }
        Ok(acc)
    }

    /// A nest `depth` deep of ifs and loops, one inside the other.
    fn big_nest(&mut self, big: &mut Big, acc: Value, depth: u32) -> Result<Value> {
        if depth == 0 {
            return self.big_statements(big, acc, 0);
        }
        let acc = self.big_step(big, acc)?;
        let acc = match big.rng.chance(1, 2) {
            true => self.big_if(big, acc, depth, true)?,
            false => self.big_loop(big, acc, depth, true)?,
        };
        self.big_step(big, acc)
    }

    /// The body of a region `depth` deep: the nest goes on, or random statements.
    fn big_body(&mut self, big: &mut Big, acc: Value, depth: u32, nest: bool) -> Result<Value> {
        match nest {
            true => self.big_nest(big, acc, depth - 1),
            false => self.big_statements(big, acc, depth - 1),
        }
    }

    /// `if`/`else` on a bit of the selector and the carried value; in a nest, one side
    /// goes on nesting.
    fn big_if(&mut self, big: &mut Big, acc: Value, depth: u32, nest: bool) -> Result<Value> {
        let cond = self.big_bits(big, Some(acc), 1);
        let sides = [self.big_block(), self.big_block()];
        let (join, param) = self.big_join();
        self.cursor().ins().brif(cond, sides[0], &[], sides[1], &[]);
        let outer = self.scope.len();
        let nested = big.rng.below(2) as usize;
        for (k, side) in sides.into_iter().enumerate() {
            self.block = side;
            let a = match k == nested {
                true => self.big_body(big, acc, depth, nest)?,
                false => self.big_statements(big, acc, 0)?,
            };
            self.cursor().ins().jump(join, &[BlockArg::Value(a)]);
            self.scope.truncate(outer);
        }
        Ok(self.big_enter_join(join, param, outer))
    }

    /// A loop of `base + bit` iterations (a counter in the header), whose exit block takes
    /// the carried value from the header and from breaks.
    fn big_loop(&mut self, big: &mut Big, acc: Value, depth: u32, nest: bool) -> Result<Value> {
        let base = match big.doubles > 0 && big.rng.chance(1, 3) {
            true => {
                big.doubles -= 1;
                1
            }
            false => 0,
        };
        let header = self.big_block();
        let body = self.big_block();
        let (exit, out) = self.big_join();
        let zero = self.big_const(0);
        self.cursor()
            .ins()
            .jump(header, &[BlockArg::Value(zero), BlockArg::Value(acc)]);
        self.block = header;
        let counter = self.func.dfg.append_block_param(header, I32);
        let carried = self.func.dfg.append_block_param(header, I32);
        for v in [counter, carried] {
            self.spec[v] = Spec::Exact;
            self.scope.push(v);
        }
        // A third of the loops run a constant number of times: a uniform counter.
        let uniform = big.rng.chance(1, 3);
        let bit = match uniform {
            true => self.big_const(big.rng.below(2) as i64),
            false => self.big_bits(big, None, 1),
        };
        let base = self.big_const(base);
        let trips = self.cursor().ins().iadd(bit, base);
        let more = self
            .cursor()
            .ins()
            .icmp(IntCC::SignedLessThan, counter, trips);
        self.cursor()
            .ins()
            .brif(more, body, &[], exit, &[BlockArg::Value(carried)]);
        let in_header = self.scope.len();
        self.block = body;
        big.exits.push(exit);
        if uniform {
            big.counters.push(counter);
        }
        // Half the constant-trip loops outside nests hold a region entered from two places
        // right in their body, where no divergent branch around it is likely.
        let a = match uniform && !nest && big.rng.chance(1, 2) {
            true => {
                let a = self.big_step(big, carried)?;
                self.big_shared(big, a, depth)?
            }
            false => self.big_body(big, carried, depth, nest)?,
        };
        if uniform {
            big.counters.pop();
        }
        big.exits.pop();
        let one = self.big_const(1);
        let next = self.cursor().ins().iadd(counter, one);
        self.cursor()
            .ins()
            .jump(header, &[BlockArg::Value(next), BlockArg::Value(a)]);
        // The header dominates the exit: its values stay in scope.
        Ok(self.big_enter_join(exit, out, in_header))
    }

    /// An `if` whose `then` side branches on to two blocks, the second of which its `else`
    /// side enters too: a region entered from two places. The outer condition is a bit of
    /// the innermost constant-trip loop's counter where there is one (uniform unless a
    /// divergent branch around makes it otherwise: NV50 then makes an enclosing region for
    /// the inner branch, `isa/nv50/reconverge.rs`), the inner one of the selector.
    fn big_shared(&mut self, big: &mut Big, acc: Value, depth: u32) -> Result<Value> {
        let outer = match big.counters.last() {
            Some(&counter) if big.rng.chance(3, 4) => {
                let one = self.big_const(1);
                self.cursor().ins().band(counter, one)
            }
            _ => self.big_bits(big, Some(acc), 1),
        };
        let [then, other, direct] = [self.big_block(), self.big_block(), self.big_block()];
        let (shared, entered) = self.big_join();
        let (join, param) = self.big_join();
        self.cursor().ins().brif(outer, then, &[], other, &[]);
        let scope = self.scope.len();
        self.block = then;
        let inner = self.big_bits(big, Some(acc), 1);
        self.cursor()
            .ins()
            .brif(inner, direct, &[], shared, &[BlockArg::Value(acc)]);
        self.block = other;
        let a = self.big_statements(big, acc, depth - 1)?;
        self.cursor().ins().jump(shared, &[BlockArg::Value(a)]);
        self.scope.truncate(scope);
        self.block = direct;
        let a = self.big_statements(big, acc, 0)?;
        self.cursor().ins().jump(join, &[BlockArg::Value(a)]);
        let p = self.big_enter_join(shared, entered, scope);
        let a = self.big_statements(big, p, depth - 1)?;
        self.cursor().ins().jump(join, &[BlockArg::Value(a)]);
        Ok(self.big_enter_join(join, param, scope))
    }

    /// A chain of units (`big_chain`) entered with `acc`, after which the carried value
    /// goes on.
    fn big_goto(&mut self, big: &mut Big, acc: Value) -> Result<Value> {
        let (outer, from) = (self.scope.len(), self.block);
        let (end, param) = self.big_join();
        let first = self.big_chain(big, end, 2)?;
        self.block = from;
        self.cursor().ins().jump(first, &[BlockArg::Value(acc)]);
        Ok(self.big_enter_join(end, param, outer))
    }

    /// Makes 2–7 units, each a block or (`depth` allowing) a loop, entered with the carried
    /// value, that end at `end`; returns the first one's block. A block steps the value and
    /// jumps or branches to any later unit (or `end`), or breaks out of an enclosing loop of
    /// the chain to any block after it; a loop leaves to a later unit and its body is a
    /// chain to its latch. So regions are entered from several places, and loops leave to
    /// several blocks: reducible control flow beyond nested ifs and loops. The conditions
    /// are bits of the selector mixed with the value, or of a constant-trip loop's counter
    /// (uniform).
    fn big_chain(&mut self, big: &mut Big, end: Block, depth: u32) -> Result<Block> {
        let outer = self.scope.len();
        let count = 2 + big.rng.below(6) as usize;
        let units: Vec<(Block, Value)> = (0..count).map(|_| self.big_join()).collect();
        let targets: Vec<Block> = units.iter().map(|&(b, _)| b).chain([end]).collect();
        for (i, &(entry, param)) in units.iter().enumerate() {
            let later = &targets[i + 1..];
            self.block = entry;
            self.scope.truncate(outer);
            self.scope.push(param);
            if depth > 0 && big.rng.chance(1, 4) {
                self.big_chain_loop(big, param, later, depth)?;
                continue;
            }
            let acc = self.big_step(big, param)?;
            let pick =
                |big: &mut Big, from: &[Block]| from[big.rng.below(from.len() as u64) as usize];
            let arg = [BlockArg::Value(acc)];
            match big.rng.below(10) {
                0..=2 => {
                    let to = pick(big, later);
                    self.cursor().ins().jump(to, &arg);
                }
                3 if !big.breaks.is_empty() => {
                    let level = big.rng.below(big.breaks.len() as u64) as usize;
                    let exit = pick(big, &big.breaks[level].clone());
                    let c = self.big_chain_condition(big, acc);
                    let to = pick(big, later);
                    self.cursor().ins().brif(c, exit, &arg, to, &arg);
                }
                _ => {
                    let c = self.big_chain_condition(big, acc);
                    let (a, b) = (pick(big, later), pick(big, later));
                    self.cursor().ins().brif(c, a, &arg, b, &arg);
                }
            }
        }
        self.scope.truncate(outer);
        Ok(units[0].0)
    }

    /// A loop unit of `big_chain` entered with `acc`: a header counting to a constant (a
    /// uniform counter) or per-lane trip count, leaving to one of `later`; its body a chain
    /// to the latch, whose breaks may go to any of `later`.
    fn big_chain_loop(
        &mut self,
        big: &mut Big,
        acc: Value,
        later: &[Block],
        depth: u32,
    ) -> Result<()> {
        let header = self.big_block();
        let zero = self.big_const(0);
        self.cursor()
            .ins()
            .jump(header, &[BlockArg::Value(zero), BlockArg::Value(acc)]);
        self.block = header;
        let counter = self.func.dfg.append_block_param(header, I32);
        let carried = self.func.dfg.append_block_param(header, I32);
        for v in [counter, carried] {
            self.spec[v] = Spec::Exact;
            self.scope.push(v);
        }
        let uniform = big.rng.chance(1, 2);
        let base = match big.doubles > 0 && big.rng.chance(1, 3) {
            true => {
                big.doubles -= 1;
                1
            }
            false => 0,
        };
        let bit = match uniform {
            true => self.big_const(1),
            false => self.big_bits(big, None, 1),
        };
        let base = self.big_const(base);
        let trips = self.cursor().ins().iadd(bit, base);
        let more = self
            .cursor()
            .ins()
            .icmp(IntCC::SignedLessThan, counter, trips);
        let (latch, next) = self.big_join();
        let exit = later[big.rng.below(later.len() as u64) as usize];
        if uniform {
            big.counters.push(counter);
        }
        big.breaks.push(later.to_vec());
        let body = self.big_chain(big, latch, depth - 1)?;
        big.breaks.pop();
        if uniform {
            big.counters.pop();
        }
        self.block = header;
        self.cursor().ins().brif(
            more,
            body,
            &[BlockArg::Value(carried)],
            exit,
            &[BlockArg::Value(carried)],
        );
        self.block = latch;
        let one = self.big_const(1);
        let bumped = self.cursor().ins().iadd(counter, one);
        self.cursor()
            .ins()
            .jump(header, &[BlockArg::Value(bumped), BlockArg::Value(next)]);
        Ok(())
    }

    /// A branch condition in a chain: a bit of the innermost constant-trip counter (half
    /// the time, where there is one), else of the selector mixed with `acc`.
    fn big_chain_condition(&mut self, big: &mut Big, acc: Value) -> Value {
        match big.counters.last() {
            Some(&counter) if big.rng.chance(1, 2) => {
                let one = self.big_const(1);
                self.cursor().ins().band(counter, one)
            }
            _ => self.big_bits(big, Some(acc), 1),
        }
    }

    /// A `br_table` of `entries` entries on bits of the selector (some out of range, to the
    /// default), over fewer distinct targets (some take several entries), each running
    /// statements `depth` deep and joining after.
    fn big_table(
        &mut self,
        big: &mut Big,
        acc: Value,
        entries: usize,
        depth: u32,
    ) -> Result<Value> {
        let mask = ((entries + entries / 4 + 1).next_power_of_two() - 1) as i64;
        let index = self.big_bits(big, None, mask);
        let distinct = (entries - big.rng.below(entries as u64 / 4 + 1) as usize).max(1);
        let cases: Vec<Block> = (0..=distinct).map(|_| self.big_block()).collect();
        let (join, param) = self.big_join();
        // Every case has an entry (case 0 is the default), the rest go anywhere.
        let mut targets: Vec<Block> = cases[1..].to_vec();
        while targets.len() < entries {
            let at = big.rng.below(targets.len() as u64 + 1) as usize;
            targets.insert(at, cases[big.rng.below(cases.len() as u64) as usize]);
        }
        let calls: Vec<_> = targets
            .iter()
            .map(|&case| self.func.dfg.block_call(case, &[]))
            .collect();
        let default = self.func.dfg.block_call(cases[0], &[]);
        let table = self
            .func
            .dfg
            .jump_tables
            .push(JumpTableData::new(default, &calls));
        self.cursor().ins().br_table(index, table);
        let outer = self.scope.len();
        for case in cases {
            self.block = case;
            let a = self.big_statements(big, acc, depth)?;
            self.cursor().ins().jump(join, &[BlockArg::Value(a)]);
            self.scope.truncate(outer);
        }
        Ok(self.big_enter_join(join, param, outer))
    }
}

#[cfg(test)]
mod tests {
    use crate::difftest::generate::{GenConfig, generate};
    use crate::difftest::values::SplitMix64;
    use crate::ir::InstructionData;
    use arbitrary::Unstructured;
    use cranelift_codegen::settings;

    /// Over a few thousand inputs the large shapes all come up, and every function
    /// verifies.
    #[test]
    fn large_shapes_come_up_and_verify() {
        let flags = settings::Flags::new(settings::builder());
        let (mut many, mut wide_table, mut big_cfg, mut loops) = (0, 0, 0, 0);
        for seed in 0..3000 {
            let mut data = vec![0; 1024];
            SplitMix64::new(seed).fill(&mut data);
            let func = generate(&mut Unstructured::new(&data), &GenConfig::default()).unwrap();
            if let Err(e) = cranelift_codegen::verify_function(&func, &flags) {
                panic!("seed {seed}: {e}\n{}", func.display());
            }
            let words = |types: &mut dyn Iterator<Item = crate::ir::Type>| -> u32 {
                types.map(|t| t.bytes().div_ceil(4)).sum()
            };
            let sig = &func.signature;
            if words(&mut sig.params.iter().map(|p| p.value_type)) >= 24
                && words(&mut sig.returns.iter().map(|p| p.value_type)) >= 8
            {
                many += 1;
            }
            let blocks = func.layout.blocks().count();
            big_cfg += (blocks >= 60) as u32;
            let insts = func
                .layout
                .blocks()
                .flat_map(|b| func.layout.block_insts(b));
            for inst in insts {
                match func.dfg.insts[inst] {
                    InstructionData::BranchTable { table, .. }
                        if func.dfg.jump_tables[table].as_slice().len() >= 16 =>
                    {
                        wide_table += 1
                    }
                    _ => {}
                }
            }
            let headers = func
                .layout
                .blocks()
                .filter(|&b| func.dfg.block_params(b).len() == 2)
                .count();
            loops += (headers >= 8) as u32;
        }
        assert!(
            many >= 15,
            "{many} functions with many parameters and results"
        );
        assert!(wide_table >= 6, "{wide_table} wide br_tables");
        assert!(big_cfg >= 8, "{big_cfg} functions of 60 blocks or more");
        assert!(loops >= 8, "{loops} functions with 8 or more loops");
    }
}
