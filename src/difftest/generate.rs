//! The random CLIF function generator.
//!
//! [`generate`] turns bytes (an `arbitrary::Unstructured`, from a seeded PRNG or a fuzzer)
//! into a verifier-clean function: parameters, a random DAG of instructions over them and
//! over constants (mostly edge values), and some of the values returned. In the default
//! mode it uses only the opcodes and types the target's backend lowers (its [`Profile`]:
//! everything here for GCN, `isle/gcn/lower.isle`; a subset for NV50) and only device
//! functions (call conv `fast`), so that every function should compile and run on the
//! simulator and on `cranelift-interpreter`; where the target lowers stack slots, some
//! of its instructions are private-memory accesses (`private.rs`). In wide mode
//! ([`GenConfig::wide`]) it also uses types and opcodes the backend rejects, other calling
//! conventions, calls, memory and control flow (a diamond of blocks), to exercise the
//! `CompileError` paths; wide functions are for compiling only.
//!
//! The body is generated block by block with a scope of the values available there, so
//! more control-flow shapes are a matter of more `Shape`s.

use super::specified::{Spec, result_spec};
use super::values::{F16_EDGES, F32_EDGES, F64_EDGES, int_edges};
use crate::intrinsics::{self, Intrinsic};
use crate::ir::condcodes::{FloatCC, IntCC};
use crate::ir::immediates::{Ieee16, Ieee32, Ieee64};
use crate::ir::types::{F16, F32, F64, I8, I16, I32, I64, I128};
use crate::ir::{
    self, AbiParam, Block, BlockArg, Function, InstBuilder, MemFlagsData, Opcode, Signature, Type,
    UserFuncName, Value,
};
use arbitrary::{Result, Unstructured};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::isa::CallConv;

mod big;
mod calls;
mod private;
mod sub_dword;

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Also generate what the backend does not support (for the fuzz target): i128, f64 and
    /// vector types, unsupported opcodes, other calling conventions, calls, memory and
    /// branches.
    pub wide: bool,
    /// At most this many parameters.
    pub max_params: usize,
    /// At most this many instructions besides constants (per block in wide mode).
    pub max_insts: usize,
    /// At most this many results.
    pub max_results: usize,
    /// Opcodes not to generate (to go on testing the rest while a known bug in one is
    /// being fixed).
    pub exclude: Vec<Opcode>,
    /// Whose backend the default mode generates for: only what it lowers.
    pub profile: Profile,
    /// Whether the function may call device functions generated with it (`calls.rs`;
    /// [`generate_module`], where the backend lowers calls).
    pub calls: bool,
}

/// What a backend lowers, as the default mode of the generator sees it: value types,
/// opcodes with their controlling types, the types of the operands some families choose
/// beside it, and how many words of parameters. Each target's simulator gives its own
/// (`sim::Simulator::generator_profile`), so that a target's gaps are listed in one place
/// and grow out of it as the backend lowers more.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Profile {
    pub value_types: &'static [Type],
    /// Opcodes with the controlling types the backend lowers (intersected with the
    /// generator's own); `None`: all of them.
    pub ops: Option<&'static [(Opcode, &'static [Type])]>,
    /// The types of shift counts, `select` conditions and `bmask` inputs.
    pub operand_types: &'static [Type],
    /// The integer types of conversions from and to floats.
    pub conversion_ints: &'static [Type],
    /// At most this many words of parameters in the many-parameter functions.
    pub max_param_words: u32,
}

impl Profile {
    /// Everything the generator makes (the GCN backend lowers all of it).
    pub const ALL: Profile = Profile {
        value_types: VALUE_TYPES,
        ops: None,
        operand_types: INTS,
        conversion_ints: INTS,
        max_param_words: 72,
    };

    /// The profile of `target`'s backend.
    pub fn of(target: &crate::Target) -> Profile {
        crate::sim::simulator(target.arch).generator_profile()
    }

    /// Whether the backend lowers `opcode` with controlling type `ty`.
    fn lowers(&self, opcode: Opcode, ty: Type) -> bool {
        self.ops.is_none_or(|ops| {
            ops.iter()
                .any(|&(op, types)| op == opcode && types.contains(&ty))
        })
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::ALL
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            wide: false,
            max_params: 4,
            max_insts: 16,
            max_results: 3,
            exclude: Vec::new(),
            profile: Profile::ALL,
            calls: true,
        }
    }
}

impl GenConfig {
    /// The configuration of the fuzz target.
    pub fn wide() -> GenConfig {
        GenConfig {
            wide: true,
            ..GenConfig::default()
        }
    }
}

/// The types of parameters, results and values the backend supports. f16 values come from
/// constants, parameters, `bitcast` and `select` only: cranelift-interpreter 0.135, the
/// reference, implements no f16 arithmetic or conversion and orders f16 wrongly in `fcmp`
/// (`sim::harness`); `filetests/gcn/run/f16.clif` covers those operations.
pub const VALUE_TYPES: &[Type] = &[I8, I16, I32, I64, F16, F32, F64];
const INTS: &[Type] = &[I8, I16, I32, I64];
const NARROW_INTS: &[Type] = &[I8, I16, I32];
const WIDE_INTS: &[Type] = &[I8, I16, I32, I64, I128];
const WIDE_FLOATS: &[Type] = &[F32, F64];
const FLOATS: &[Type] = &[F32, F64];

/// The operation families, each with the types the backend lowers it for and, for wide
/// mode, the types the generator may also try.
#[derive(Copy, Clone, Debug)]
enum Family {
    IntBinary,
    IntUnary,
    Shift,
    Icmp,
    Fcmp,
    Select,
    Extend,
    Ireduce,
    Bitcast,
    FloatBinary,
    FloatUnary,
    Fma,
    FloatToInt,
    IntToFloat,
    Bitselect,
    Bmask,
    /// Two results: the value and an i8 flag.
    Overflow,
    /// `Overflow` with an i8 carry (borrow) in.
    OverflowCarry,
    /// Several `icmp`s, each the condition of two or more `select`s of the controlling
    /// type, the second round in another order: many conditions live at once, each read
    /// several times (NV50 keeps such a compare in one of its four `$c` registers and
    /// spills the others into `$r`).
    CompareSelects,
}

struct OpSpec {
    family: Family,
    opcode: Opcode,
    /// Controlling types the backend supports.
    types: &'static [Type],
    /// Controlling types wide mode also tries.
    wide_types: &'static [Type],
}

const fn op(
    family: Family,
    opcode: Opcode,
    types: &'static [Type],
    wide_types: &'static [Type],
) -> OpSpec {
    OpSpec {
        family,
        opcode,
        types,
        wide_types,
    }
}

use Family::*;

/// Every operation the generator emits. The supported types mirror `isle/gcn/lower.isle`
/// and `docs/ir.md`; `wide_types` (and the entries with no supported type) are gaps.
const OPS: &[OpSpec] = &[
    op(IntBinary, Opcode::Iadd, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Isub, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Imul, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Band, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Bor, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Bxor, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Umulhi, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Smulhi, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Udiv, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Sdiv, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Urem, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Srem, INTS, WIDE_INTS),
    op(IntBinary, Opcode::Umin, &[I32], WIDE_INTS),
    op(IntBinary, Opcode::Umax, &[I32], WIDE_INTS),
    op(IntBinary, Opcode::Smin, &[I32], WIDE_INTS),
    op(IntBinary, Opcode::Smax, &[I32], WIDE_INTS),
    op(IntUnary, Opcode::Bnot, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Ineg, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Iabs, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Clz, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Ctz, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Popcnt, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Bitrev, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Cls, INTS, WIDE_INTS),
    op(IntUnary, Opcode::Bswap, &[I16, I32, I64], &[I128]),
    op(Shift, Opcode::Ishl, INTS, WIDE_INTS),
    op(Shift, Opcode::Ushr, INTS, WIDE_INTS),
    op(Shift, Opcode::Sshr, INTS, WIDE_INTS),
    op(Shift, Opcode::Rotl, INTS, WIDE_INTS),
    op(Shift, Opcode::Rotr, INTS, WIDE_INTS),
    op(Bitselect, Opcode::Bitselect, INTS, WIDE_INTS),
    op(Bmask, Opcode::Bmask, INTS, WIDE_INTS),
    op(
        Select,
        Opcode::SelectSpectreGuard,
        VALUE_TYPES,
        &[I128, F64],
    ),
    op(Overflow, Opcode::UaddOverflow, INTS, WIDE_INTS),
    op(Overflow, Opcode::SaddOverflow, INTS, WIDE_INTS),
    op(Overflow, Opcode::UsubOverflow, INTS, WIDE_INTS),
    op(Overflow, Opcode::SsubOverflow, INTS, WIDE_INTS),
    op(Overflow, Opcode::UmulOverflow, INTS, INTS),
    op(Overflow, Opcode::SmulOverflow, INTS, INTS),
    op(OverflowCarry, Opcode::UaddOverflowCin, INTS, WIDE_INTS),
    op(OverflowCarry, Opcode::SaddOverflowCin, INTS, WIDE_INTS),
    op(OverflowCarry, Opcode::UsubOverflowBin, INTS, WIDE_INTS),
    op(OverflowCarry, Opcode::SsubOverflowBin, INTS, WIDE_INTS),
    op(Icmp, Opcode::Icmp, INTS, WIDE_INTS),
    op(Fcmp, Opcode::Fcmp, FLOATS, WIDE_FLOATS),
    op(Select, Opcode::Select, VALUE_TYPES, &[I128, F64]),
    op(CompareSelects, Opcode::Select, VALUE_TYPES, &[I128, F64]),
    op(Extend, Opcode::Uextend, &[I16, I32, I64], &[I128]),
    op(Extend, Opcode::Sextend, &[I16, I32, I64], &[I128]),
    op(Ireduce, Opcode::Ireduce, NARROW_INTS, &[I64]),
    op(
        Bitcast,
        Opcode::Bitcast,
        &[I16, F16, I32, F32, I64, F64],
        &[I64, F64],
    ),
    op(FloatBinary, Opcode::Fadd, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fsub, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fmul, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fdiv, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fmin, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fmax, FLOATS, WIDE_FLOATS),
    op(FloatBinary, Opcode::Fcopysign, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Sqrt, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Fneg, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Fabs, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Floor, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Ceil, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Trunc, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Nearest, FLOATS, WIDE_FLOATS),
    op(FloatUnary, Opcode::Fpromote, &[F64], &[F64]),
    op(FloatUnary, Opcode::Fdemote, &[F32], &[F32]),
    op(Fma, Opcode::Fma, FLOATS, WIDE_FLOATS),
    op(FloatToInt, Opcode::FcvtToUint, INTS, WIDE_INTS),
    op(FloatToInt, Opcode::FcvtToSint, INTS, WIDE_INTS),
    op(FloatToInt, Opcode::FcvtToUintSat, INTS, WIDE_INTS),
    op(FloatToInt, Opcode::FcvtToSintSat, INTS, WIDE_INTS),
    op(IntToFloat, Opcode::FcvtFromUint, FLOATS, WIDE_FLOATS),
    op(IntToFloat, Opcode::FcvtFromSint, FLOATS, WIDE_FLOATS),
];

/// The opcodes the generator emits in the default (supported-only) mode.
pub fn supported_opcodes() -> Vec<Opcode> {
    let mut ops: Vec<Opcode> = OPS
        .iter()
        .filter(|s| !s.types.is_empty())
        .map(|s| s.opcode)
        .collect();
    ops.extend([
        Opcode::Iconst,
        Opcode::F16const,
        Opcode::F32const,
        Opcode::Return,
    ]);
    ops
}

/// Generates one function from `u` (see the module documentation).
pub fn generate(u: &mut Unstructured, config: &GenConfig) -> Result<Function> {
    let config = GenConfig {
        calls: false,
        ..config.clone()
    };
    let mut g = Generator::new(u, &config)?;
    g.body()?;
    Ok(g.func)
}

/// A function as [`generate`] makes it and the device functions it calls (where
/// [`GenConfig::calls`] allows calls and the backend lowers them), to compile and run
/// together.
pub fn generate_module(
    u: &mut Unstructured,
    config: &GenConfig,
) -> Result<(Function, Vec<Function>)> {
    let mut g = Generator::new(u, config)?;
    g.body()?;
    Ok((g.func, g.callees))
}

/// How a body is laid out.
enum Shape {
    /// One block ending in `return`.
    Straight,
    /// `brif` to two blocks that each compute and `jump` to a join block with arguments.
    Diamond,
    /// A loop with a constant trip count (a uniform counter as a block parameter) that
    /// carries per-lane values in block parameters, then an exit block.
    Loop,
    /// A wide `br_table`, a deep nest of ifs and loops, or a long chain of regions
    /// (`big.rs`).
    Big,
}

struct Generator<'u, 'd, 'c> {
    u: &'u mut Unstructured<'d>,
    config: &'c GenConfig,
    func: Function,
    /// The block instructions are appended to.
    block: Block,
    /// The values usable in the current block, oldest first.
    scope: Vec<Value>,
    spec: SecondaryMap<Value, Spec>,
    /// How often each value has been used as an operand (to prefer unused ones, so that
    /// the DAG joins up and little of it is dead).
    uses: SecondaryMap<Value, u32>,
    /// The device functions the function calls (`calls.rs`).
    callees: Vec<Function>,
    /// Which bits of each callee's results are specified: its own analysis, or the
    /// function's it wraps (`specified::analyze` takes call results as exact).
    callee_specs: Vec<Vec<Spec>>,
}

impl<'u, 'd, 'c> Generator<'u, 'd, 'c> {
    fn new(u: &'u mut Unstructured<'d>, config: &'c GenConfig) -> Result<Self> {
        let call_conv = if config.wide && u.ratio(1, 8)? {
            *u.choose(&[
                CallConv::SystemV,
                CallConv::Tail,
                CallConv::WindowsFastcall,
                CallConv::Fast,
            ])?
        } else {
            CallConv::Fast
        };
        let mut func =
            Function::with_name_signature(UserFuncName::testcase("f"), Signature::new(call_conv));
        let block = func.dfg.make_block();
        func.layout.append_block(block);
        let mut g = Generator {
            u,
            config,
            func,
            block,
            scope: Vec::new(),
            spec: SecondaryMap::new(),
            uses: SecondaryMap::new(),
            callees: Vec::new(),
            callee_specs: Vec::new(),
        };
        let params = if g.u.ratio(1, big::MANY_VALUES_ODDS)? && !calls::is_callee(config) {
            g.many_params()?;
            0
        } else if g.u.ratio(1, 16)? {
            0
        } else {
            g.u.int_in_range(1..=config.max_params.max(1))?
        };
        for _ in 0..params {
            let ty = g.value_type()?;
            g.func.signature.params.push(AbiParam::new(ty));
            let v = g.func.dfg.append_block_param(block, ty);
            g.scope.push(v);
        }
        Ok(g)
    }

    fn value_type(&mut self) -> Result<Type> {
        if self.config.wide && self.u.ratio(1, 10)? {
            Ok(*self
                .u
                .choose(&[I128, F64, ir::types::I32X4, ir::types::F32X4])?)
        } else {
            Ok(*self.u.choose(self.config.profile.value_types)?)
        }
    }

    fn cursor(&mut self) -> FuncCursor<'_> {
        FuncCursor::new(&mut self.func).at_bottom(self.block)
    }

    fn body(&mut self) -> Result<()> {
        let shape = if self.u.ratio(1, big::BIG_SHAPE_ODDS)? {
            Shape::Big
        } else if self.u.ratio(1, if self.config.wide { 4 } else { 5 })? {
            Shape::Diamond
        } else if self.u.ratio(1, 4)? {
            Shape::Loop
        } else {
            Shape::Straight
        };
        self.instructions()?;
        if self.config.wide {
            self.wide_extras()?;
        }
        match shape {
            Shape::Diamond => self.diamond()?,
            Shape::Loop => self.counted_loop()?,
            Shape::Big => self.big_shape()?,
            Shape::Straight => {}
        }
        self.finish()
    }

    /// A random number of random instructions in the current block.
    fn instructions(&mut self) -> Result<()> {
        let count = self.u.int_in_range(1..=self.config.max_insts.max(1))?;
        for _ in 0..count {
            if self.u.is_empty() {
                break;
            }
            self.instruction()?;
        }
        Ok(())
    }

    /// The return: one to `max_results` values, the unused ones first (latest first), so
    /// that most of the DAG is live.
    fn finish(&mut self) -> Result<()> {
        let count = self.result_count()?;
        let returnable = |g: &Self, v: Value| g.config.wide || g.spec[v] != Spec::Unspecified;
        let mut results: Vec<Value> = self
            .scope
            .iter()
            .rev()
            .copied()
            .filter(|&v| self.uses[v] == 0 && returnable(self, v))
            .take(count)
            .collect();
        while results.len() < count && !self.scope.is_empty() {
            let v = self.scope[self.u.int_in_range(0..=self.scope.len() - 1)?];
            if returnable(self, v) {
                results.push(v);
            } else if self.u.is_empty() {
                break;
            }
        }
        if results.is_empty() {
            results.push(self.constant(I32)?);
        }
        for &v in &results {
            let ty = self.func.dfg.value_type(v);
            self.func.signature.returns.push(AbiParam::new(ty));
        }
        self.cursor().ins().return_(&results);
        Ok(())
    }

    /// One of `types`, mostly one that values in scope have (so that operations use the
    /// parameters and each other's results rather than constants).
    fn prefer_present(&mut self, types: &[Type]) -> Result<Type> {
        let present: Vec<Type> = types
            .iter()
            .copied()
            .filter(|&t| self.scope.iter().any(|&v| self.func.dfg.value_type(v) == t))
            .collect();
        if !present.is_empty() && self.u.ratio(4, 5)? {
            Ok(*self.u.choose(&present)?)
        } else {
            Ok(*self.u.choose(types)?)
        }
    }

    fn instruction(&mut self) -> Result<()> {
        if !self.config.wide && self.u.ratio(1, sub_dword::SUB_DWORD_ODDS)? {
            return self.sub_dword();
        }
        if self.lowers_private_memory() && self.u.ratio(1, private::PRIVATE_ODDS)? {
            return self.private_memory();
        }
        if self.makes_calls() && self.u.ratio(1, calls::CALL_ODDS)? {
            return self.call();
        }
        let mut spec = self.u.choose(OPS)?;
        // The trapping conversions trap in the interpreter for every NaN and out-of-range
        // input, which skips the lane: keep them rarer than their `_sat` forms.
        if matches!(spec.opcode, Opcode::FcvtToSint | Opcode::FcvtToUint) && self.u.ratio(2, 3)? {
            spec = self.u.choose(OPS)?;
        }
        if self.config.exclude.contains(&spec.opcode)
            || matches!(spec.family, CompareSelects) && self.config.exclude.contains(&Opcode::Icmp)
        {
            return Ok(());
        }
        let types: Vec<Type> =
            if self.config.wide && (spec.types.is_empty() || self.u.ratio(1, 4)?) {
                spec.types.iter().chain(spec.wide_types).copied().collect()
            } else {
                spec.types
                    .iter()
                    .copied()
                    .filter(|&t| self.config.profile.lowers(spec.opcode, t))
                    .collect()
            };
        if types.is_empty() {
            return Ok(());
        }
        // The controlling type is the operand type for most families; for conversions the
        // operand type is chosen (preferring present ones) in `emit`.
        let ty = match spec.family {
            Extend | Ireduce | Bitcast | FloatToInt | IntToFloat | Bmask => {
                *self.u.choose(&types)?
            }
            _ => self.prefer_present(&types)?,
        };
        let value = self.emit(spec.family, spec.opcode, ty)?;
        self.define(value);
        Ok(())
    }

    /// Records a new value: its spec, and its place in scope.
    fn define(&mut self, value: Value) {
        let ir::ValueDef::Result(inst, _) = self.func.dfg.value_def(value) else {
            self.scope.push(value);
            return;
        };
        let args: Vec<Spec> = self
            .func
            .dfg
            .inst_args(inst)
            .iter()
            .map(|&a| self.spec[a])
            .collect();
        let opcode = self.func.dfg.insts[inst].opcode();
        self.spec[value] = result_spec(opcode, &args, self.func.dfg.value_type(value));
        self.scope.push(value);
    }

    fn emit(&mut self, family: Family, opcode: Opcode, ty: Type) -> Result<Value> {
        Ok(match family {
            IntBinary | FloatBinary => {
                let x = self.operand(ty)?;
                // The sign of an unspecified NaN is not worth copying.
                let y = if opcode == Opcode::Fcopysign {
                    self.exact_operand(ty)?
                } else {
                    self.operand(ty)?
                };
                let inst = self.cursor().ins().Binary(opcode, ty, x, y).0;
                self.func.dfg.first_result(inst)
            }
            IntUnary | FloatUnary => {
                let arg_ty = match opcode {
                    Opcode::Fpromote => F32,
                    Opcode::Fdemote => F64,
                    _ => ty,
                };
                let x = self.operand(arg_ty)?;
                let inst = self.cursor().ins().Unary(opcode, ty, x).0;
                self.func.dfg.first_result(inst)
            }
            Fma => {
                let (x, y, z) = (self.operand(ty)?, self.operand(ty)?, self.operand(ty)?);
                self.cursor().ins().fma(x, y, z)
            }
            Shift => {
                let amount_ty = self.prefer_present(if self.config.wide {
                    WIDE_INTS
                } else {
                    self.config.profile.operand_types
                })?;
                let x = self.operand(ty)?;
                let y = self.operand(amount_ty)?;
                let inst = self.cursor().ins().Binary(opcode, ty, x, y).0;
                self.func.dfg.first_result(inst)
            }
            Icmp => {
                let cc = *self.u.choose(IntCC::all())?;
                let (x, y) = (self.operand(ty)?, self.operand(ty)?);
                self.cursor().ins().icmp(cc, x, y)
            }
            Fcmp => {
                let cc = *self.u.choose(FloatCC::all())?;
                let (x, y) = (self.operand(ty)?, self.operand(ty)?);
                self.cursor().ins().fcmp(cc, x, y)
            }
            Select => {
                let cond_ty = self.prefer_present(self.condition_types())?;
                let c = self.operand(cond_ty)?;
                let (x, y) = (self.operand(ty)?, self.operand(ty)?);
                if opcode == Opcode::SelectSpectreGuard {
                    self.cursor().ins().select_spectre_guard(c, x, y)
                } else {
                    self.cursor().ins().select(c, x, y)
                }
            }
            CompareSelects => {
                let count = self.u.int_in_range(3..=7usize)?;
                let mut conditions = Vec::with_capacity(count);
                for _ in 0..count {
                    let cmp_ty = self.prefer_present(self.condition_types())?;
                    let cc = *self.u.choose(IntCC::all())?;
                    let (x, y) = (self.operand(cmp_ty)?, self.operand(cmp_ty)?);
                    let c = self.cursor().ins().icmp(cc, x, y);
                    self.define(c);
                    // Counted as used, so that other operations rarely pick it (a use
                    // other than a condition puts it in a register like any value).
                    self.uses[c] += 2;
                    conditions.push(c);
                }
                let mut order: Vec<usize> = (0..count).chain(0..count).collect();
                for i in (count + 1..2 * count).rev() {
                    let j = self.u.int_in_range(count..=i)?;
                    order.swap(i, j);
                }
                let mut last = None;
                for k in order {
                    if let Some(v) = last {
                        self.define(v);
                    }
                    let (x, y) = (self.operand(ty)?, self.operand(ty)?);
                    last = Some(self.cursor().ins().select(conditions[k], x, y));
                }
                last.expect("at least two selects")
            }
            Bitselect => {
                let (c, x, y) = (self.operand(ty)?, self.operand(ty)?, self.operand(ty)?);
                self.cursor().ins().bitselect(c, x, y)
            }
            Bmask => {
                let from_ty = self.prefer_present(if self.config.wide {
                    WIDE_INTS
                } else {
                    self.config.profile.operand_types
                })?;
                let x = self.operand(from_ty)?;
                self.cursor().ins().bmask(ty, x)
            }
            Overflow | OverflowCarry => {
                let (x, y) = (self.operand(ty)?, self.operand(ty)?);
                let inst = if let OverflowCarry = family {
                    let c = self.operand(I8)?;
                    self.cursor().ins().Ternary(opcode, ty, x, y, c).0
                } else {
                    self.cursor().ins().Binary(opcode, ty, x, y).0
                };
                let results = self.func.dfg.inst_results(inst).to_vec();
                self.define(results[1]);
                results[0]
            }
            Extend => {
                let from: Vec<Type> = WIDE_INTS
                    .iter()
                    .copied()
                    .filter(|t| t.bits() < ty.bits())
                    .collect();
                let from_ty = self.prefer_present(&from)?;
                let x = self.operand(from_ty)?;
                if opcode == Opcode::Uextend {
                    self.cursor().ins().uextend(ty, x)
                } else {
                    self.cursor().ins().sextend(ty, x)
                }
            }
            Ireduce => {
                let from: Vec<Type> = WIDE_INTS
                    .iter()
                    .copied()
                    .filter(|t| t.bits() > ty.bits() && (self.config.wide || t.bits() <= 64))
                    .collect();
                let from_ty = self.prefer_present(&from)?;
                let x = self.operand(from_ty)?;
                self.cursor().ins().ireduce(ty, x)
            }
            Bitcast => {
                let from_ty = match ty {
                    I16 => F16,
                    F16 => I16,
                    I32 => F32,
                    F32 => I32,
                    I64 => F64,
                    _ => I64,
                };
                // Integers made from the bits of an unspecified NaN would be unspecified.
                let x = self.exact_operand(from_ty)?;
                self.cursor().ins().bitcast(ty, MemFlagsData::new(), x)
            }
            FloatToInt => {
                let floats: Vec<Type> = FLOATS
                    .iter()
                    .copied()
                    .filter(|t| self.config.profile.value_types.contains(t))
                    .collect();
                let from_ty = *self.u.choose(&floats)?;
                let x = self.operand(from_ty)?;
                let inst = self.cursor().ins().Unary(opcode, ty, x).0;
                self.func.dfg.first_result(inst)
            }
            IntToFloat => {
                let from_ty = if self.u.ratio(1, 2)? {
                    *self.u.choose(if self.config.wide {
                        WIDE_INTS
                    } else {
                        self.config.profile.conversion_ints
                    })?
                } else {
                    I32
                };
                let x = self.operand(from_ty)?;
                let inst = self.cursor().ins().Unary(opcode, ty, x).0;
                self.func.dfg.first_result(inst)
            }
        })
    }

    /// The types of `select` conditions (and of the compares of `CompareSelects`).
    fn condition_types(&self) -> &'static [Type] {
        if self.config.wide {
            WIDE_INTS
        } else {
            self.config.profile.operand_types
        }
    }

    /// An operand of type `ty`: a value in scope (mostly a recent one), else a new constant.
    fn operand(&mut self, ty: Type) -> Result<Value> {
        self.operand_where(ty, |_| true)
    }

    /// An operand whose bits are exactly specified.
    fn exact_operand(&mut self, ty: Type) -> Result<Value> {
        self.operand_where(ty, |s| s == Spec::Exact)
    }

    fn operand_where(&mut self, ty: Type, ok: impl Fn(Spec) -> bool) -> Result<Value> {
        let candidates: Vec<Value> = self
            .scope
            .iter()
            .copied()
            .filter(|&v| self.func.dfg.value_type(v) == ty && ok(self.spec[v]))
            .collect();
        if candidates.is_empty() || self.u.ratio(1, 6)? {
            return self.constant(ty);
        }
        let n = candidates.len();
        let unused = candidates.iter().rev().find(|&&v| self.uses[v] == 0);
        let value = match (unused, self.u.int_in_range(0..=3)?) {
            (Some(&v), 0..=1) => v,
            (_, 2) => candidates[n - 1 - self.u.int_in_range(0..=n.min(4) - 1)?],
            _ => candidates[self.u.int_in_range(0..=n - 1)?],
        };
        self.uses[value] += 1;
        Ok(value)
    }

    /// A constant of type `ty`, mostly an edge value. It is not put in scope: each use
    /// gets its own, as front ends write them.
    fn constant(&mut self, ty: Type) -> Result<Value> {
        let edge = self.u.ratio(3, 4)?;
        let value = match ty {
            F16 => {
                let bits = if edge {
                    *self.u.choose(F16_EDGES)?
                } else {
                    self.u.arbitrary()?
                };
                self.cursor().ins().f16const(Ieee16::with_bits(bits))
            }
            F32 => {
                let bits = if edge {
                    *self.u.choose(F32_EDGES)?
                } else {
                    self.u.arbitrary()?
                };
                self.cursor().ins().f32const(Ieee32::with_bits(bits))
            }
            F64 => {
                let bits: u64 = if edge {
                    *self.u.choose(F64_EDGES)?
                } else {
                    self.u.arbitrary()?
                };
                self.cursor().ins().f64const(Ieee64::with_bits(bits))
            }
            I128 => {
                let lo = self.constant(I64)?;
                self.cursor().ins().uextend(I128, lo)
            }
            ty if ty.is_vector() => {
                let lane = self.constant(ty.lane_type())?;
                self.cursor().ins().splat(ty, lane)
            }
            ty => {
                let bits = if edge {
                    *self.u.choose(&int_edges(ty.bits()))?
                } else {
                    self.u.arbitrary::<u64>()? & super::values::mask(ty.bits())
                };
                self.cursor().ins().iconst(ty, bits as i64)
            }
        };
        self.spec[value] = Spec::Exact;
        Ok(value)
    }

    /// Wide mode: things outside the straight-line arithmetic the backend supports —
    /// intrinsic calls (with right and wrong signatures), calls to other functions,
    /// global-memory loads and stores, atomics of every operation and type, stack slots.
    fn wide_extras(&mut self) -> Result<()> {
        let count = self.u.int_in_range(0..=3)?;
        for _ in 0..count {
            match self.u.int_in_range(0..=7)? {
                0 => {
                    let all: Vec<Intrinsic> = Intrinsic::all()
                        .into_iter()
                        .filter(|i| {
                            // Shader-stage intrinsics need a stage: not in kernels.
                            let sig = i.signature();
                            sig.params.is_empty() && !sig.returns.is_empty() && i.stage().is_none()
                        })
                        .collect();
                    let intrinsic = *self.u.choose(&all)?;
                    let f = intrinsics::declare(&mut self.func, intrinsic);
                    let call = self.cursor().ins().call(f, &[]);
                    let v = self.func.dfg.first_result(call);
                    self.define(v);
                }
                1 => {
                    let mut sig = Signature::new(CallConv::Fast);
                    let arg_ty = self.value_type()?;
                    sig.params.push(AbiParam::new(arg_ty));
                    sig.returns.push(AbiParam::new(I32));
                    let sig = self.func.import_signature(sig);
                    let name = if self.u.ratio(1, 2)? {
                        "wavelift_lane_id"
                    } else {
                        "some_function"
                    };
                    let f = self.func.import_function(ir::ExtFuncData {
                        name: ir::ExternalName::testcase(name),
                        signature: sig,
                        colocated: true,
                        patchable: false,
                    });
                    let arg = self.operand(arg_ty)?;
                    let call = self.cursor().ins().call(f, &[arg]);
                    let v = self.func.dfg.first_result(call);
                    self.define(v);
                }
                2 => {
                    let addr = self.operand(I64)?;
                    let ty = self.value_type()?;
                    let offset = self.u.int_in_range(-16i32..=64)?;
                    let v = self
                        .cursor()
                        .ins()
                        .load(ty, MemFlagsData::trusted(), addr, offset);
                    self.define(v);
                }
                3 => {
                    let addr = self.operand(I64)?;
                    let ty = self.value_type()?;
                    let v = self.operand(ty)?;
                    self.cursor()
                        .ins()
                        .store(MemFlagsData::trusted(), v, addr, 0);
                }
                6 => {
                    use ir::AtomicRmwOp::*;
                    let ops = [Add, Sub, And, Nand, Or, Xor, Xchg, Umin, Umax, Smin, Smax];
                    let op = *self.u.choose(&ops)?;
                    let addr = self.operand(I64)?;
                    let ty = *self.u.choose(&[I8, I16, I32, I64])?;
                    let v = self.operand(ty)?;
                    let flags = MemFlagsData::trusted();
                    let old = self.cursor().ins().atomic_rmw(ty, flags, op, addr, v);
                    self.define(old);
                }
                7 => {
                    let addr = self.operand(I64)?;
                    let ty = *self.u.choose(&[I8, I16, I32, I64])?;
                    let (expected, new) = (self.operand(ty)?, self.operand(ty)?);
                    let flags = MemFlagsData::trusted();
                    let old = self.cursor().ins().atomic_cas(flags, addr, expected, new);
                    self.define(old);
                    let loaded = self.cursor().ins().atomic_load(ty, flags, addr);
                    self.define(loaded);
                    self.cursor().ins().atomic_store(flags, new, addr);
                }
                4 => {
                    let slot = self.func.create_sized_stack_slot(ir::StackSlotData::new(
                        ir::StackSlotKind::ExplicitSlot,
                        16,
                        0,
                    ));
                    let v = self.operand(I32)?;
                    self.cursor().ins().stack_store(I64, v, slot, 0);
                    let w = self.cursor().ins().stack_load(I64, I32, slot, 0);
                    self.define(w);
                }
                _ => {
                    let x = self.operand(I64)?;
                    let (lo, hi) = self.cursor().ins().isplit(x);
                    self.define(lo);
                    self.define(hi);
                }
            }
        }
        Ok(())
    }

    /// Ends the current block with a `brif` to two blocks that compute and `jump` to a
    /// join block, whose parameters merge one value from each side.
    fn diamond(&mut self) -> Result<()> {
        let cond = self.operand(I8)?;
        let then_block = self.func.dfg.make_block();
        let else_block = self.func.dfg.make_block();
        let join = self.func.dfg.make_block();
        for b in [then_block, else_block, join] {
            self.func.layout.append_block(b);
        }
        let merged = self.value_type()?;
        let param = self.func.dfg.append_block_param(join, merged);
        self.cursor()
            .ins()
            .brif(cond, then_block, &[], else_block, &[]);
        let outer = self.scope.len();
        for side in [then_block, else_block] {
            self.block = side;
            self.instructions()?;
            let v = self.operand(merged)?;
            self.cursor().ins().jump(join, &[BlockArg::Value(v)]);
            self.spec[param] = self.spec[param].max(self.spec[v]);
            self.scope.truncate(outer);
        }
        self.block = join;
        self.scope.push(param);
        self.instructions()
    }
}

impl Generator<'_, '_, '_> {
    /// Ends the current block with a jump into a loop of 1–4 iterations: the header's
    /// parameters are a uniform `i32` counter and one to three carried values (exactly
    /// specified, so that the back edge cannot make them less so); the latch passes new
    /// values to the header or, on the last iteration, to the exit block's parameters.
    fn counted_loop(&mut self) -> Result<()> {
        let header = self.func.dfg.make_block();
        let exit = self.func.dfg.make_block();
        for b in [header, exit] {
            self.func.layout.append_block(b);
        }
        let trips = self.u.int_in_range(1..=4u32)?;
        let carried = self.u.int_in_range(1..=3usize)?;
        let mut types = Vec::new();
        // Half the loops run a per-lane number of times (1 + x & 3 for an operand x), so
        // that lanes leave in different iterations (divergent control flow).
        let bound = if self.u.ratio(1, 2)? {
            let x = self.operand(I32)?;
            let three = self.cursor().ins().iconst(I32, 3);
            let low = self.cursor().ins().band(x, three);
            let one = self.cursor().ins().iconst(I32, 1);
            self.cursor().ins().iadd(low, one)
        } else {
            self.cursor().ins().iconst(I32, trips as i64)
        };
        let zero = self.cursor().ins().iconst(I32, 0);
        let mut init = vec![BlockArg::Value(zero)];
        for _ in 0..carried {
            let ty = self.prefer_present(self.config.profile.value_types)?;
            types.push(ty);
            init.push(BlockArg::Value(self.exact_operand(ty)?));
        }
        self.cursor().ins().jump(header, &init);
        let counter = self.func.dfg.append_block_param(header, I32);
        self.block = header;
        self.scope.push(counter);
        for &ty in &types {
            let p = self.func.dfg.append_block_param(header, ty);
            self.scope.push(p);
        }
        self.instructions()?;
        let mut next = Vec::new();
        for &ty in &types {
            next.push(BlockArg::Value(self.exact_operand(ty)?));
        }
        let one = self.cursor().ins().iconst(I32, 1);
        let bumped = self.cursor().ins().iadd(counter, one);
        let more = self
            .cursor()
            .ins()
            .icmp(IntCC::UnsignedLessThan, bumped, bound);
        let mut again = vec![BlockArg::Value(bumped)];
        again.extend(next.iter().copied());
        self.cursor().ins().brif(more, header, &again, exit, &next);
        self.block = exit;
        for &ty in &types {
            let q = self.func.dfg.append_block_param(exit, ty);
            self.scope.push(q);
        }
        self.instructions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difftest::values::SplitMix64;
    use cranelift_codegen::settings;

    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut data = vec![0; len];
        SplitMix64::new(seed).fill(&mut data);
        data
    }

    #[test]
    fn generated_functions_verify() {
        let flags = settings::Flags::new(settings::builder());
        for wide in [false, true] {
            let config = if wide {
                GenConfig::wide()
            } else {
                GenConfig::default()
            };
            for seed in 0..500 {
                let data = bytes(seed, 1024);
                let mut u = Unstructured::new(&data);
                let func = generate(&mut u, &config).unwrap();
                if let Err(e) = cranelift_codegen::verify_function(&func, &flags) {
                    panic!("seed {seed} (wide {wide}): {e}\n{}", func.display());
                }
            }
        }
    }

    #[test]
    fn empty_input_still_makes_a_function() {
        let mut u = Unstructured::new(&[]);
        let func = generate(&mut u, &GenConfig::default()).unwrap();
        let flags = settings::Flags::new(settings::builder());
        cranelift_codegen::verify_function(&func, &flags).unwrap();
    }
}
