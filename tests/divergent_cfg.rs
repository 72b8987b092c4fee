//! Random control flow through mask linearization: nested loops with per-lane trip counts,
//! `break`s and `continue`s of outer loops, early `return`s, `br_table`s, branches on
//! compares of every type and on saved compares (used in later blocks, after loops), run
//! with different inputs in each lane on every generation and compared with
//! cranelift-interpreter. `tests/differential.rs` covers the operations; its functions
//! have at most one branch or loop.
//!
//! `WAVELIFT_CFG_COUNT` sets the functions per generation (default 150).

use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I8, I16, I32, I64};
use cranelift_codegen::ir::{
    AbiParam, Block, Function, InstBuilder, Signature, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use wavelift::Target;
use wavelift::difftest::{LaneInputs, SplitMix64, run_case};

const SEED: u64 = 0xcf9_0001;
const DEFAULT_COUNT: u64 = 150;

/// How a branch of an `if` may end besides falling through to the join.
#[derive(Clone, Copy)]
enum Exit {
    Break(usize),
    Continue(usize),
    Return,
}

struct Gen<'a> {
    rng: SplitMix64,
    b: FunctionBuilder<'a>,
    /// The i32 variables (the first three start as the arguments).
    ints: Vec<Variable>,
    wide: Variable,
    /// A saved compare (i8), branched on in later blocks.
    flag: Variable,
    /// The enclosing loops, innermost last: (header, exit).
    loops: Vec<(Block, Block)>,
    /// Statements left to generate.
    budget: usize,
}

impl Gen<'_> {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.rng.chance(num, den)
    }

    fn int(&mut self) -> Value {
        let k = self.below(self.ints.len() as u64) as usize;
        let v = self.ints[k];
        self.b.use_var(v)
    }

    fn int_or_const(&mut self) -> Value {
        if self.chance(1, 3) {
            let c = [0i64, 1, 2, 3, 7, -1, 100, 0x7fff_ffff, -0x8000_0000][self.below(9) as usize];
            self.b.ins().iconst(I32, c)
        } else {
            self.int()
        }
    }

    fn intcc(&mut self) -> IntCC {
        use IntCC::*;
        let all = [
            Equal,
            NotEqual,
            SignedLessThan,
            SignedGreaterThanOrEqual,
            SignedGreaterThan,
            SignedLessThanOrEqual,
            UnsignedLessThan,
            UnsignedGreaterThanOrEqual,
            UnsignedGreaterThan,
            UnsignedLessThanOrEqual,
        ];
        all[self.below(all.len() as u64) as usize]
    }

    fn floatcc(&mut self) -> FloatCC {
        use FloatCC::*;
        let all = [
            Equal,
            NotEqual,
            LessThan,
            LessThanOrEqual,
            GreaterThan,
            GreaterThanOrEqual,
            Ordered,
            Unordered,
            UnorderedOrLessThan,
            OrderedNotEqual,
        ];
        all[self.below(all.len() as u64) as usize]
    }

    /// A branch condition: a compare of some type, a plain integer or the saved compare.
    fn condition(&mut self) -> Value {
        match self.below(9) {
            0 | 1 => {
                let cc = self.intcc();
                let (x, y) = (self.int(), self.int_or_const());
                self.b.ins().icmp(cc, x, y)
            }
            2 => {
                let ty = [I8, I16][self.below(2) as usize];
                let cc = self.intcc();
                let (x, y) = (self.int(), self.int_or_const());
                let (x, y) = (self.b.ins().ireduce(ty, x), self.b.ins().ireduce(ty, y));
                self.b.ins().icmp(cc, x, y)
            }
            3 => {
                let cc = self.intcc();
                let x = self.b.use_var(self.wide);
                let y = self.int();
                let y = self.b.ins().sextend(I64, y);
                self.b.ins().icmp(cc, x, y)
            }
            4 => {
                let ty = [F32, F64][self.below(2) as usize];
                let cc = self.floatcc();
                let (x, y) = (self.int(), self.int());
                let x = self.b.ins().fcvt_from_sint(ty, x);
                let y = self.b.ins().fcvt_from_uint(ty, y);
                let x = self.b.ins().fsub(x, y);
                let y = self.b.ins().fdiv(x, y);
                self.b.ins().fcmp(cc, x, y)
            }
            5 => self.int(),
            6 => self.b.use_var(self.wide),
            _ => self.b.use_var(self.flag),
        }
    }

    fn assign(&mut self) {
        let k = self.below(self.ints.len() as u64) as usize;
        let dst = self.ints[k];
        let (x, y) = (self.int(), self.int_or_const());
        let v = match self.below(10) {
            0 => self.b.ins().iadd(x, y),
            1 => self.b.ins().isub(x, y),
            2 => self.b.ins().imul(x, y),
            3 => self.b.ins().bxor(x, y),
            4 => self.b.ins().band(x, y),
            5 => self.b.ins().rotl(x, y),
            6 => {
                let c = self.condition();
                self.b.ins().select(c, x, y)
            }
            7 => {
                let cc = self.intcc();
                let f = self.b.ins().icmp(cc, x, y);
                self.b.def_var(self.flag, f);
                return;
            }
            8 => {
                let w = self.b.use_var(self.wide);
                let x = self.b.ins().uextend(I64, x);
                let w = self.b.ins().iadd(w, x);
                let w = self.b.ins().rotr(w, y);
                self.b.def_var(self.wide, w);
                return;
            }
            _ => self.b.ins().umax(x, y),
        };
        self.b.def_var(dst, v);
    }

    /// Statements in the current block, ending in it (or in a later one).
    fn statements(&mut self, depth: usize) {
        let count = 1 + self.below(4);
        for _ in 0..count {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            match self.below(if depth < 3 { 10 } else { 6 }) {
                0..=5 => self.assign(),
                6 | 7 => self.if_else(depth),
                8 => self.counted_loop(depth),
                _ => self.switch(depth),
            }
        }
    }

    fn if_else(&mut self, depth: usize) {
        let c = self.condition();
        let then = self.b.create_block();
        let join = self.b.create_block();
        let other = if self.chance(1, 2) {
            self.b.create_block()
        } else {
            join
        };
        self.b.ins().brif(c, then, &[], other, &[]);
        self.b.switch_to_block(then);
        self.statements(depth + 1);
        match self.exit() {
            Some(exit) => self.leave(exit),
            None => {
                self.b.ins().jump(join, &[]);
            }
        }
        if other != join {
            self.b.switch_to_block(other);
            self.statements(depth + 1);
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
    }

    fn exit(&mut self) -> Option<Exit> {
        let loops = self.loops.len() as u64;
        match self.below(8) {
            0 if loops > 0 => Some(Exit::Break(self.below(loops) as usize)),
            1 if loops > 0 => Some(Exit::Continue(self.below(loops) as usize)),
            2 => Some(Exit::Return),
            _ => None,
        }
    }

    fn leave(&mut self, exit: Exit) {
        match exit {
            Exit::Break(k) => {
                self.b.ins().jump(self.loops[k].1, &[]);
            }
            Exit::Continue(k) => {
                self.b.ins().jump(self.loops[k].0, &[]);
            }
            Exit::Return => self.ret(),
        }
    }

    fn ret(&mut self) {
        let x = self.b.use_var(self.ints[0]);
        let w = self.b.use_var(self.wide);
        self.b.ins().return_(&[x, w]);
    }

    /// A loop of 1 to 4 iterations per lane (or a uniform 2): the header counts and leaves,
    /// the body ends in the back edge.
    fn counted_loop(&mut self, depth: usize) {
        let bound = if self.chance(3, 4) {
            let x = self.int();
            let low = self.b.ins().band_imm_u(x, 3);
            self.b.ins().iadd_imm_s(low, 1)
        } else {
            self.b.ins().iconst(I32, 2)
        };
        let counter = self.b.declare_var(I32);
        let zero = self.b.ins().iconst(I32, 0);
        self.b.def_var(counter, zero);
        let header = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let n = self.b.use_var(counter);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(counter, n);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, bound);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        self.loops.push((header, exit));
        self.statements(depth + 1);
        self.loops.pop();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(exit);
    }

    /// A `br_table` on a small index (or any value) to two or three cases.
    fn switch(&mut self, depth: usize) {
        let x = self.int();
        let index = if self.chance(3, 4) {
            self.b.ins().band_imm_u(x, 3)
        } else {
            x
        };
        let cases: Vec<Block> = (0..2 + self.below(2))
            .map(|_| self.b.create_block())
            .collect();
        let join = self.b.create_block();
        // Every case but the default has an entry, some more than one.
        let mut targets: Vec<Block> = cases[1..].to_vec();
        for _ in 0..self.below(3) {
            let at = self.below(targets.len() as u64 + 1) as usize;
            targets.insert(at, cases[self.below(cases.len() as u64) as usize]);
        }
        let entries: Vec<_> = targets
            .iter()
            .map(|&case| self.b.func.dfg.block_call(case, &[]))
            .collect();
        let default = self.b.func.dfg.block_call(cases[0], &[]);
        let table = self
            .b
            .func
            .dfg
            .jump_tables
            .push(cranelift_codegen::ir::JumpTableData::new(default, &entries));
        self.b.ins().br_table(index, table);
        for case in cases {
            self.b.switch_to_block(case);
            self.statements(depth + 1);
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
    }
}

fn generate(seed: u64, target: &Target) -> Function {
    let mut sig = Signature::new(CallConv::Fast);
    for _ in 0..3 {
        sig.params.push(AbiParam::new(I32));
    }
    sig.returns.push(AbiParam::new(I32));
    sig.returns.push(AbiParam::new(I64));
    let mut func = Function::with_name_signature(UserFuncName::testcase("cfg"), sig);
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry).to_vec();
    let ints: Vec<Variable> = (0..4).map(|_| b.declare_var(I32)).collect();
    for (i, &v) in ints.iter().enumerate() {
        let value = match args.get(i) {
            Some(&a) => a,
            None => b.ins().iconst(I32, 5),
        };
        b.def_var(v, value);
    }
    let wide = b.declare_var(I64);
    let w = b.ins().uextend(I64, args[2]);
    let w = b.ins().imul_imm_u(w, 0x1_0000_0003);
    b.def_var(wide, w);
    let flag = b.declare_var(I8);
    let f = b.ins().icmp(IntCC::SignedLessThan, args[0], args[1]);
    b.def_var(flag, f);
    // A block of its own after the entry, which may not be a branch target.
    let start = b.create_block();
    b.ins().jump(start, &[]);
    b.switch_to_block(start);
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        b,
        ints,
        wide,
        flag,
        loops: Vec::new(),
        budget: 24,
    };
    while g.budget > 0 {
        g.statements(0);
    }
    g.ret();
    g.b.seal_all_blocks();
    g.b.finalize(target.frontend_config());
    func
}

fn lanes(seed: u64) -> Vec<LaneInputs> {
    let mut rng = SplitMix64::new(seed ^ 0x1a9e5);
    let edges = [
        0u32,
        1,
        2,
        3,
        4,
        5,
        7,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
    ];
    (0..64)
        .map(|_| {
            let mut arg = || {
                let v = if rng.chance(1, 2) {
                    edges[rng.below(edges.len() as u64) as usize]
                } else {
                    rng.next_u32()
                };
                DataValue::I32(v as i32)
            };
            let args = vec![arg(), arg(), arg()];
            LaneInputs {
                args,
                noise: rng.next_u32(),
            }
        })
        .collect()
}

#[test]
fn random_control_flow_matches_the_interpreter() {
    let count = std::env::var("WAVELIFT_CFG_COUNT")
        .ok()
        .map_or(DEFAULT_COUNT, |c| c.trim().parse().expect("a count"));
    for target in Target::per_generation() {
        for i in 0..count {
            let seed = SEED.wrapping_add(i);
            let func = generate(seed, &target);
            match run_case(&func, &target, &lanes(seed)) {
                Ok(outcome) => assert!(
                    outcome.device_compiled && outcome.lanes_compared > 0,
                    "case {i} on {}: {:?}\n{}",
                    target.cpu,
                    outcome.compile_errors,
                    func.display()
                ),
                Err(mismatch) => panic!("case {i} on {}:\n{mismatch}", target.cpu),
            }
        }
    }
}
