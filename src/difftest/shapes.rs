//! Generated functions of a given size and control-flow shape, for measuring how compile
//! time and memory grow with the size of a function (`clif-util bench --scaling`) and for
//! compiling large functions in tests.
//!
//! Every shape is a device function `(i32, i32) -> i32` whose control flow depends on its
//! first argument; run as a device function the branches are divergent (the arguments are
//! per lane), and as [`kernel_of`] its kernel they are uniform (kernel arguments). The
//! arithmetic keeps a few values live at once (each instruction reads the one before and
//! one a few before), so that the register allocator has some work but no shape needs
//! more registers as it grows.

use super::kernel_of;
use crate::ir::Function;
use std::fmt::Write;

/// A control-flow shape.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One block of `n` instructions.
    Straight,
    /// `n` blocks: a chain of if/else diamonds on kernel arguments (uniform branches).
    UniformChain,
    /// `n` blocks: the same chain in a device function (divergent branches).
    DivergentChain,
    /// One divergent loop with `n / 2` instructions inside and `n / 2` after it, which
    /// read values of the loop.
    DivergentLoop,
    /// Divergent loop nests of about 100 instructions a level, `n / 100` levels in all:
    /// nests up to 10 deep, one after another.
    DivergentNest,
    /// The same nest on kernel arguments (uniform loops).
    UniformNest,
    /// A `br_table` on a kernel argument with `n` targets, each a block of its own.
    UniformBrTable,
    /// The same `br_table` in a device function (divergent).
    DivergentBrTable,
}

impl Shape {
    pub const ALL: [Shape; 8] = [
        Shape::Straight,
        Shape::UniformChain,
        Shape::DivergentChain,
        Shape::DivergentLoop,
        Shape::DivergentNest,
        Shape::UniformNest,
        Shape::UniformBrTable,
        Shape::DivergentBrTable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight-line",
            Shape::UniformChain => "uniform if/else chain",
            Shape::DivergentChain => "divergent if/else chain",
            Shape::DivergentLoop => "divergent loop",
            Shape::DivergentNest => "divergent loop nest",
            Shape::UniformNest => "uniform loop nest",
            Shape::UniformBrTable => "uniform br_table",
            Shape::DivergentBrTable => "divergent br_table",
        }
    }

    /// What the size counts.
    pub fn unit(self) -> &'static str {
        match self {
            Shape::UniformChain
            | Shape::DivergentChain
            | Shape::UniformBrTable
            | Shape::DivergentBrTable => "blocks",
            _ => "instructions",
        }
    }

    /// The function of this shape and size `n` (see [`Shape`]).
    pub fn build(self, n: usize) -> Function {
        let text = self.device_text(n);
        let device = cranelift_reader::parse_functions(&text)
            .expect("generated CLIF parses")
            .remove(0);
        match self {
            Shape::UniformChain | Shape::UniformNest | Shape::UniformBrTable => kernel_of(&device),
            _ => device,
        }
    }

    /// The CLIF text of the device function.
    pub fn device_text(self, n: usize) -> String {
        let mut g = Text::default();
        match self {
            Shape::Straight => straight(&mut g, n),
            Shape::UniformChain | Shape::DivergentChain => chain(&mut g, n),
            Shape::DivergentLoop => divergent_loop(&mut g, n),
            Shape::DivergentNest | Shape::UniformNest => nests(&mut g, n / 100),
            Shape::UniformBrTable | Shape::DivergentBrTable => br_table(&mut g, n),
        }
        format!(
            "function %{}(i32, i32) -> i32 fast {{\nblock0(v0: i32, v1: i32):\n{}}}\n",
            self.name()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            g.out
        )
    }
}

/// CLIF text being written; values `v0` and `v1` are the parameters.
struct Text {
    out: String,
    next_value: usize,
    next_block: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            out: String::new(),
            next_value: 2,
            next_block: 1,
        }
    }
}

impl Text {
    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("v{}", self.next_value - 1)
    }
    fn block(&mut self) -> String {
        self.next_block += 1;
        format!("block{}", self.next_block - 1)
    }
    fn inst(&mut self, text: std::fmt::Arguments) -> String {
        let v = self.value();
        writeln!(self.out, "    {v} = {text}").unwrap();
        v
    }
    /// `op a, k` for a constant `k` (CLIF has no `_imm` forms any more).
    fn imm(&mut self, op: &str, a: &str, k: impl std::fmt::Display) -> String {
        let k = self.inst(format_args!("iconst.i32 {k}"));
        self.inst(format_args!("{op} {a}, {k}"))
    }
    fn line(&mut self, text: std::fmt::Arguments) {
        writeln!(self.out, "    {text}").unwrap();
    }
    fn label(&mut self, block: &str, params: &[&str]) {
        let params: Vec<String> = params.iter().map(|p| format!("{p}: i32")).collect();
        writeln!(self.out, "{block}({}):", params.join(", ")).unwrap();
    }

    /// `n` arithmetic instructions after `start` (the last value first), each reading the
    /// one before and one four before; returns the values made.
    fn arith(&mut self, start: &[String], n: usize) -> Vec<String> {
        let mut values: Vec<String> = start.to_vec();
        let first = values.len();
        for k in 0..n {
            let a = values[values.len() - 1].clone();
            let b = values[values.len().saturating_sub(5)].clone();
            let op = ["iadd", "bxor", "isub", "imul"][k % 4];
            let v = self.inst(format_args!("{op} {a}, {b}"));
            values.push(v);
        }
        values.split_off(first)
    }
}

fn straight(g: &mut Text, n: usize) {
    let values = g.arith(&["v0".into(), "v1".into()], n.saturating_sub(1).max(1));
    let last = values.last().unwrap().clone();
    g.line(format_args!("return {last}"));
}

/// Diamonds of four blocks: head (branch on a bit of `v0 ^ acc`), then, else, and the
/// join, which is the next head.
fn chain(g: &mut Text, n: usize) {
    let mut head = g.block();
    g.line(format_args!("jump {head}(v1)"));
    // Blocks: the entry, three a diamond, the last join (CLIF text numbers blocks below
    // 100,000).
    for k in 0..(n.saturating_sub(2) / 3).max(1) {
        let acc = g.value();
        g.label(&head, &[&acc]);
        let x = g.inst(format_args!("bxor v0, {acc}"));
        let bit = g.imm("band", &x, 1u32 << (k % 31));
        let (then, els, join) = (g.block(), g.block(), g.block());
        g.line(format_args!("brif {bit}, {then}, {els}"));
        g.label(&then, &[]);
        let a = g.imm("iadd", &acc, k + 1);
        g.line(format_args!("jump {join}({a})"));
        g.label(&els, &[]);
        let b = g.inst(format_args!("imul {acc}, v1"));
        g.line(format_args!("jump {join}({b})"));
        head = join;
    }
    let acc = g.value();
    g.label(&head, &[&acc]);
    g.line(format_args!("return {acc}"));
}

/// A do-while loop running `1 + (v0 & 3)` times whose body is `n / 2` instructions, then
/// `n / 2` instructions reading the body's last values.
fn divergent_loop(g: &mut Text, n: usize) {
    let half = (n / 2).max(8);
    let zero = g.inst(format_args!("iconst.i32 0"));
    let low = g.imm("band", "v0", 3);
    let limit = g.imm("iadd", &low, 1);
    let body = g.block();
    let after = g.block();
    g.line(format_args!("jump {body}({zero}, v1)"));
    let (i, acc) = (g.value(), g.value());
    g.label(&body, &[&i, &acc]);
    let inside = g.arith(&[acc, "v0".into()], half);
    let next = g.imm("iadd", &i, 1);
    let more = g.inst(format_args!("icmp ult {next}, {limit}"));
    let last = inside.last().unwrap();
    g.line(format_args!("brif {more}, {body}({next}, {last}), {after}"));
    g.label(&after, &[]);
    let tail = inside[inside.len() - 5..].to_vec();
    let values = g.arith(&tail, half);
    let last = values.last().unwrap().clone();
    g.line(format_args!("return {last}"));
}

/// The deepest nest a loop-nest shape builds: a nest keeps a counter per level live, so a
/// larger size is a sequence of nests of this depth (deeper single nests are filetests:
/// `run/divergent-loops.clif`).
const MAX_NEST_DEPTH: usize = 10;

/// Loop nests of about 100 instructions a level, `levels` levels in all, at most
/// [`MAX_NEST_DEPTH`] deep, one after the other, each taking the value the one before
/// leaves.
fn nests(g: &mut Text, levels: usize) {
    let mut levels = levels.max(1);
    let mut acc = "v1".to_string();
    while levels > 0 {
        let depth = levels.min(MAX_NEST_DEPTH);
        acc = nest(g, depth, &acc);
        levels -= depth;
    }
    g.line(format_args!("return {acc}"));
}

/// `depth` nested do-while loops on `input`; level `l` runs `1 + ((v0 >> l) & 1)` times
/// and has about 100 instructions, half before its inner loop and half after. Returns the
/// value the nest leaves, a parameter of the block after it, where the text goes on.
fn nest(g: &mut Text, depth: usize, input: &str) -> String {
    let zero = g.inst(format_args!("iconst.i32 0"));
    let heads: Vec<String> = (0..depth).map(|_| g.block()).collect();
    let latches: Vec<String> = (0..depth).map(|_| g.block()).collect();
    let exit = g.block();
    g.line(format_args!("jump {}({zero}, {input})", heads[0]));
    let mut counters = Vec::new();
    for head in &heads {
        let (i, acc) = (g.value(), g.value());
        g.label(head, &[&i, &acc]);
        counters.push(i);
        let values = g.arith(&[acc, "v0".into()], 45);
        let last = values.last().unwrap();
        let zero = g.inst(format_args!("iconst.i32 0"));
        match heads.get(counters.len()) {
            Some(inner) => g.line(format_args!("jump {inner}({zero}, {last})")),
            None => g.line(format_args!("jump {}({last})", latches[depth - 1])),
        }
    }
    for level in (0..depth).rev() {
        let acc = g.value();
        g.label(&latches[level], &[&acc]);
        let values = g.arith(&[acc, "v1".into()], 45);
        let last = values.last().unwrap();
        let shifted = g.imm("ushr", "v0", level % 32);
        let bit = g.imm("band", &shifted, 1);
        let limit = g.imm("iadd", &bit, 1);
        let next = g.imm("iadd", &counters[level], 1);
        let more = g.inst(format_args!("icmp ult {next}, {limit}"));
        let out = if level == 0 {
            exit.clone()
        } else {
            latches[level - 1].clone()
        };
        g.line(format_args!(
            "brif {more}, {}({next}, {last}), {out}({last})",
            heads[level]
        ));
    }
    let acc = g.value();
    g.label(&exit, &[&acc]);
    acc
}

/// `br_table` on `v0` with `n` targets and a default, each adding its own constant, and a
/// join block.
fn br_table(g: &mut Text, n: usize) {
    // Blocks: the entry, the targets, the default and the join.
    let n = n.saturating_sub(3).max(1);
    let targets: Vec<String> = (0..n).map(|_| g.block()).collect();
    let default = g.block();
    let join = g.block();
    g.line(format_args!(
        "br_table v0, {default}, [{}]",
        targets.join(", ")
    ));
    for (k, target) in targets.iter().chain([&default]).enumerate() {
        g.label(target, &[]);
        let v = g.imm("iadd", "v1", k * 7 + 1);
        g.line(format_args!("jump {join}({v})"));
    }
    let acc = g.value();
    g.label(&join, &[&acc]);
    g.line(format_args!("return {acc}"));
}
