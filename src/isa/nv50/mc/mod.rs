//! The machine-code layer of the NV50 (Tesla) backend: instructions with physical operands,
//! exactly as the hardware encodes them. The encoder, the decoder (which the simulator runs)
//! and the printer all work on [`McInst`] and are driven by one table of encodings
//! (`table.rs`), so they cannot drift apart.
//!
//! Tesla instructions come in three forms ([`Form`]): *short* (one 32-bit word, no
//! predicate), *immediate* (two words, the second source a 32-bit immediate) and *long* (two
//! words, with a predicate, a `$c` output and the `exit`/`join` bits). A long instruction
//! must start at an even word (envytools `docs/hw/graph/tesla/cuda/isa.rst`), so short ones
//! come in pairs. Field layouts and opcode bits follow envytools' `envydis/g80.c` and
//! `docs/hw/graph/tesla/cuda/*.rst`; the printer writes envydis's syntax, and
//! `tests/nv50_envydis.rs` checks every form against envydis.

mod decode;
mod encode;
mod fields;
mod print;
#[cfg(any(test, feature = "test-support"))]
mod samples;
mod table;

pub use decode::{DecodeError, decode, decode_bytes, decode_one};
pub use encode::encode;
pub use print::print;
#[cfg(any(test, feature = "test-support"))]
pub use samples::samples;
pub use table::{AtomOp, Op};

/// A Tesla chip generation, as envydis's `-V` variants tell them apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// G80: compute capability 1.0.
    G80,
    /// G84 up to G98 (1.1): adds global atomics and long loads from `s[]`.
    G84,
    /// GT200 (1.3): adds f64, `vote`, shared-memory atomics (`ld lock`/`st unlock`) and
    /// saturating f32 `mul`.
    G200,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::G80, Variant::G84, Variant::G200];

    /// envydis's name for the variant (its `-V` argument).
    pub fn envydis_name(self) -> &'static str {
        match self {
            Variant::G80 => "g80",
            Variant::G84 => "g84",
            Variant::G200 => "g200",
        }
    }
    pub fn has_f64(self) -> bool {
        self >= Variant::G200
    }
    pub fn has_global_atomics(self) -> bool {
        self >= Variant::G84
    }
    pub fn has_shared_atomics(self) -> bool {
        self >= Variant::G200
    }
    pub fn has_vote(self) -> bool {
        self >= Variant::G200
    }
}

/// A program type, as envydis tells them apart (its `-O` modes; `g80.c` `.ptype`): the same
/// bits can mean different things in each (`docs/nv50.md`, "Graphics stages"), so words
/// decode for one program type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    /// A compute kernel or device function.
    Compute,
    /// A vertex program: reads `a[]`, writes `o[]`.
    Vertex,
    /// A fragment program: reads `v[]` through `interp`.
    Fragment,
}

impl Program {
    pub const ALL: [Program; 3] = [Program::Compute, Program::Vertex, Program::Fragment];

    /// envydis's name for the program type (its `-O` argument).
    pub fn envydis_name(self) -> &'static str {
        match self {
            Program::Compute => "cp",
            Program::Vertex => "vp",
            Program::Fragment => "fp",
        }
    }

    /// Whether `inst` exists in this program type: `interp` and `discard` only in fragment programs,
    /// `a[]` only in vertex ones, `s[]` and `g[]` only in compute ones (`isa.rst`, "Memory spaces"; `g80.c` tags
    /// those rows `FP` and `CP`).
    pub fn allows(self, inst: &McInst) -> bool {
        let operands = inst.dst.iter().chain(inst.src.iter().flatten());
        let compute_only = operands
            .clone()
            .any(|o| matches!(o, Operand::Shared { .. } | Operand::Global { .. }));
        let vertex_only = operands.clone().any(|o| matches!(o, Operand::Attr { .. }));
        let fragment_only = matches!(inst.op, Op::Interp | Op::Kill);
        match self {
            Program::Compute => !fragment_only && !vertex_only,
            Program::Vertex => !fragment_only && !compute_only,
            Program::Fragment => !compute_only && !vertex_only,
        }
    }
}

/// The size of an encoding (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// One word; sources from registers, `s[]` or `c0[]`/`c1[]`; no predicate.
    Short,
    /// Two words whose second source is a 32-bit immediate; no predicate.
    Imm,
    /// Two words with every field: predicate, `$c` output, `exit`/`join`.
    Long,
}

/// A data type, as envydis names it in an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    U8,
    S8,
    U16,
    S16,
    U24,
    S24,
    U32,
    S32,
    U64,
    S64,
    B8,
    B16,
    B32,
    B64,
    B128,
    F16,
    F32,
    F64,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::S8 => "s8",
            Ty::U16 => "u16",
            Ty::S16 => "s16",
            Ty::U24 => "u24",
            Ty::S24 => "s24",
            Ty::U32 => "u32",
            Ty::S32 => "s32",
            Ty::U64 => "u64",
            Ty::S64 => "s64",
            Ty::B8 => "b8",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
            Ty::B128 => "b128",
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
    /// The size in bytes (3 for the 24-bit multiply types, which read 32-bit registers).
    pub fn bytes(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 | Ty::B8 => 1,
            Ty::U16 | Ty::S16 | Ty::B16 | Ty::F16 => 2,
            Ty::U24 | Ty::S24 => 3,
            Ty::U32 | Ty::S32 | Ty::B32 | Ty::F32 => 4,
            Ty::U64 | Ty::S64 | Ty::B64 | Ty::F64 => 8,
            Ty::B128 => 16,
        }
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S24 | Ty::S32 | Ty::S64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }
}

/// A rounding mode: to nearest even, towards minus infinity, plus infinity or zero; the
/// `*i` forms round to an integral value (float-to-integer conversions and `cvt` between
/// floats of the same size).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    Rn,
    Rm,
    Rp,
    Rz,
    Rni,
    Rmi,
    Rpi,
    Rzi,
}

impl Round {
    pub fn name(self) -> &'static str {
        match self {
            Round::Rn => "rn",
            Round::Rm => "rm",
            Round::Rp => "rp",
            Round::Rz => "rz",
            Round::Rni => "rni",
            Round::Rmi => "rmi",
            Round::Rpi => "rpi",
            Round::Rzi => "rzi",
        }
    }
}

/// A condition on the flags of a `$c` register (predicates), or a comparison (`set`).
///
/// Codes 0–15 are subsets of {less, equal, greater, unordered}: bit 0 `l`, bit 1 `e`, bit 2
/// `g`, bit 3 `u`; 15 is `always`. Codes 16–19 and 28–31 test the overflow, carry, sign
/// flags and `a` (carry and not zero) directly. Integer `set` has only codes 0–6 and
/// `always` (encoded 7); its "l e g" is always true.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    Never = 0,
    L = 1,
    E = 2,
    Le = 3,
    G = 4,
    Lg = 5,
    Ge = 6,
    Lge = 7,
    U = 8,
    Lu = 9,
    Eu = 10,
    Leu = 11,
    Gu = 12,
    Lgu = 13,
    Geu = 14,
    Always = 15,
    O = 16,
    C = 17,
    A = 18,
    S = 19,
    Ns = 28,
    Na = 29,
    Nc = 30,
    No = 31,
}

impl Cond {
    pub const ALL: [Cond; 24] = [
        Cond::Never,
        Cond::L,
        Cond::E,
        Cond::Le,
        Cond::G,
        Cond::Lg,
        Cond::Ge,
        Cond::Lge,
        Cond::U,
        Cond::Lu,
        Cond::Eu,
        Cond::Leu,
        Cond::Gu,
        Cond::Lgu,
        Cond::Geu,
        Cond::Always,
        Cond::O,
        Cond::C,
        Cond::A,
        Cond::S,
        Cond::Ns,
        Cond::Na,
        Cond::Nc,
        Cond::No,
    ];

    pub fn code(self) -> u32 {
        self as u32
    }
    pub fn from_code(code: u32) -> Option<Cond> {
        Cond::ALL.into_iter().find(|c| c.code() == code)
    }
    /// The complement: true exactly where `self` is false (`docs/nv50.md`, "Condition
    /// codes and predication": each code's complement is `code ^ 0xf`).
    pub fn inverse(self) -> Cond {
        Cond::from_code(self.code() ^ 0xf).expect("the table is closed under `^ 0xf`")
    }
    pub fn name(self) -> &'static str {
        match self {
            Cond::Never => "never",
            Cond::L => "l",
            Cond::E => "e",
            Cond::Le => "le",
            Cond::G => "g",
            Cond::Lg => "lg",
            Cond::Ge => "ge",
            Cond::Lge => "lge",
            Cond::U => "u",
            Cond::Lu => "lu",
            Cond::Eu => "eu",
            Cond::Leu => "leu",
            Cond::Gu => "gu",
            Cond::Lgu => "lgu",
            Cond::Geu => "geu",
            Cond::Always => "always",
            Cond::O => "o",
            Cond::C => "c",
            Cond::A => "a",
            Cond::S => "s",
            Cond::Ns => "ns",
            Cond::Na => "na",
            Cond::Nc => "nc",
            Cond::No => "no",
        }
    }
}

/// A predicate: the instruction runs in the threads where `cond` holds on `$c{reg}`.
/// [`Cond::Never`] reads no register (`reg` must be 0); [`Cond::Always`] is written as no
/// predicate (`McInst::pred == None`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pred {
    pub cond: Cond,
    pub reg: u8,
}

/// A special register readable with `mov $r, <sreg>` (envydis's names). Thread and block
/// ids are not special registers on Tesla: they arrive in `$r0` and `s[]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SReg {
    Physid = 0,
    Clock = 1,
    Vstride = 3,
    Pm0 = 4,
    Pm1 = 5,
    Pm2 = 6,
    Pm3 = 7,
}

impl SReg {
    pub const ALL: [SReg; 7] = [
        SReg::Physid,
        SReg::Clock,
        SReg::Vstride,
        SReg::Pm0,
        SReg::Pm1,
        SReg::Pm2,
        SReg::Pm3,
    ];
    pub fn name(self) -> &'static str {
        match self {
            SReg::Physid => "physid",
            SReg::Clock => "clock",
            SReg::Vstride => "vstride",
            SReg::Pm0 => "pm0",
            SReg::Pm1 => "pm1",
            SReg::Pm2 => "pm2",
            SReg::Pm3 => "pm3",
        }
    }
}

/// One operand. Registers carry their width, as the assembly text shows it.
///
/// Memory operands address `space[$a + offset]`; `areg` 0 means no `$a` (hardware `$a0`
/// reads as zero). Offsets are in bytes and must be multiples of the access size. An
/// instruction indexes at most its first memory operand with `$a` (envydis "hack alerts").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `$rN`, 32 bits.
    R(u8),
    /// `$rNl` / `$rNh`: the low or high 16 bits of `$rN`.
    H { reg: u8, hi: bool },
    /// `$rNd`: the 64-bit pair `$rN`, `$rN+1` (N even).
    D(u8),
    /// `$rNq`: the 128-bit quad `$rN`..`$rN+3` (N a multiple of 4).
    Q(u8),
    /// `#`: a long-form destination that is thrown away (the instruction only sets `$c`).
    Discard,
    /// A 32-bit immediate (and small immediate fields: shift counts, barrier ids, offsets).
    Imm(u32),
    /// `$cN`, a condition register (0–3): `mov` to or from it, `addc`'s carry-in.
    C(u8),
    /// `$aN`, an address register (1–7; `$a0` is zero and printed `0x0`).
    A(u8),
    /// A special register (`$physid`, `$clock`, …).
    SReg(SReg),
    /// Shared memory `s[$a + offset]`, read or written as `ty` (u8, u16, s16, b32; stores
    /// b8, b16, b32). The type is part of the operand because every source field that can
    /// read `s[]` encodes its own access type (envydis prints it before the operand).
    Shared { ty: Ty, areg: u8, offset: u32 },
    /// Constant buffer `c{space}[$a + offset]`, space 0–15 (0–1 in short forms).
    Const { space: u8, areg: u8, offset: u32 },
    /// Global memory `g{space}[$rN]`: window `space` (0–15) at the byte address in `$rN`.
    Global { space: u8, addr: u8 },
    /// Local memory `l[$a + offset]`.
    Local { areg: u8, offset: u32 },
    /// A vertex program's input attribute word `a[offset]` (a source operand in the bits
    /// that hold `s[]` in compute programs), `offset` in bytes, a multiple of 4.
    Attr { offset: u32 },
    /// A fragment program's varying `v[$a + offset]` (`interp`'s source): the plane of one
    /// interpolated word, `offset` in bytes (a multiple of 4, below 0x400).
    Varying { areg: u8, offset: u32 },
    /// A vertex program's output word `o[$a + offset]`, written by a long instruction's
    /// destination (direct, `areg` 0) or by `st` (indexed).
    Out { areg: u8, offset: u32 },
    /// A code address in bytes from the start of the code segment (branches, `call`,
    /// `joinat`, `breakaddr`).
    Target(u32),
}

/// Modifier flags of [`McInst::mods`]. Negation and absolute value apply to a source
/// (`NEG0` to source 0, …; for a multiply-add, `NEG0` negates the product); `NOT0`/`NOT1`
/// complement a source of a bit operation.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods(pub u16);

impl Mods {
    pub const NONE: Mods = Mods(0);
    /// Saturate: integer add to the signed range, float results to [0, 1].
    pub const SAT: Mods = Mods(1 << 0);
    pub const NEG0: Mods = Mods(1 << 1);
    pub const NEG1: Mods = Mods(1 << 2);
    pub const NEG2: Mods = Mods(1 << 3);
    pub const ABS0: Mods = Mods(1 << 4);
    pub const ABS1: Mods = Mods(1 << 5);
    pub const NOT0: Mods = Mods(1 << 6);
    pub const NOT1: Mods = Mods(1 << 7);
    /// 24-bit multiply: the high 32 bits of the 48-bit product (bits 16..47).
    pub const HIGH: Mods = Mods(1 << 8);
    /// `bar`: count this warp as arrived.
    pub const INC: Mods = Mods(1 << 9);
    /// `bar`: wait until the barrier's count is reached.
    pub const WAIT: Mods = Mods(1 << 10);
    /// `ld lock` (GT200): also lock the `s[]` word, `$c` saying whether that succeeded.
    pub const LOCK: Mods = Mods(1 << 11);
    /// `st unlock` (GT200): also unlock the `s[]` word the warp locked.
    pub const UNLOCK: Mods = Mods(1 << 12);
    /// `interp`: evaluate the plane at the centroid of the covered samples (or at the
    /// sample, when the driver forces per-sample shading: `docs/nv50.md`).
    pub const CENT: Mods = Mods(1 << 13);
    /// `interp`: the provoking vertex's word, not interpolated.
    pub const FLAT: Mods = Mods(1 << 14);

    pub fn contains(self, other: Mods) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Mods {
    type Output = Mods;
    fn bitor(self, rhs: Mods) -> Mods {
        Mods(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Mods {
    fn bitor_assign(&mut self, rhs: Mods) {
        self.0 |= rhs.0;
    }
}

/// One machine instruction with physical operands.
///
/// Which fields an operation uses, and in which order they print, is given by the table
/// row that encodes it; unused fields are `None`/empty. Sources are in assembly order; an
/// `addc` (also the `addc` multiply-add) has its carry-in `$c` register as its last source.
/// A store has the memory operand as `dst` and the data as `src[0]`; so has a reduction
/// (`red`). An atomic ([`Op::Atomic`]) has the old value as `dst`, the `g[]` operand as
/// `src[0]`, its operand as `src[1]` and `cas`'s new value as `src[2]`. `ld lock` and
/// `vote` always write `$c{cdst}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct McInst {
    pub op: Op,
    pub form: Form,
    /// Long forms only; `None` is "always".
    pub pred: Option<Pred>,
    /// Long forms only: end the thread after this instruction.
    pub exit: bool,
    /// Long forms only: reconverge at this instruction (pops the `joinat` entry).
    pub join: bool,
    /// Long forms only: also write the result's flags to `$c{cdst}`.
    pub cdst: Option<u8>,
    pub dst: Option<Operand>,
    pub src: [Option<Operand>; 4],
    /// The operation's type: the destination type of `cvt`, the first source's of a 16-bit
    /// `mul`, the memory access type of `ld`/`st`.
    pub ty: Option<Ty>,
    /// The source type of `cvt`, the second source's of a 16-bit `mul`, the compared type
    /// of `slct`.
    pub src_ty: Option<Ty>,
    pub mods: Mods,
    pub round: Option<Round>,
    /// The comparison of `set`.
    pub cmp: Option<Cond>,
}

impl McInst {
    /// An instruction with no operands, type or modifiers.
    pub fn new(op: Op, form: Form) -> McInst {
        McInst {
            op,
            form,
            pred: None,
            exit: false,
            join: false,
            cdst: None,
            dst: None,
            src: [None; 4],
            ty: None,
            src_ty: None,
            mods: Mods::NONE,
            round: None,
            cmp: None,
        }
    }

    /// `op` with type `ty`, destination `dst` and sources `srcs`.
    pub fn with(
        op: Op,
        form: Form,
        ty: Option<Ty>,
        dst: Option<Operand>,
        srcs: &[Operand],
    ) -> McInst {
        let mut inst = McInst::new(op, form);
        inst.ty = ty;
        inst.dst = dst;
        for (slot, &s) in inst.src.iter_mut().zip(srcs) {
            *slot = Some(s);
        }
        inst
    }

    /// The size of the encoding in words.
    pub fn words(&self) -> usize {
        match self.form {
            Form::Short => 1,
            Form::Imm | Form::Long => 2,
        }
    }
}

#[cfg(test)]
mod tests;
