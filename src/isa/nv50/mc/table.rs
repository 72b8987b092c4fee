//! The one table of NV50 encodings: for every operation and form, the fixed opcode bits and
//! the list of *atoms* that map the parts of an [`McInst`] to instruction fields, in the
//! order envydis prints them. The encoder, the decoder and the printer all walk these
//! atoms (and nothing else), so they cannot drift apart.
//!
//! Bit positions count over the 64-bit instruction: word 0 is bits 0–31, word 1 bits
//! 32–63 (envydis's convention). Opcode bits and field positions are from envytools'
//! `envydis/g80.c` (tables `tabs`, `tabi`, `tabl`, `tabc`, `tabroot`) and
//! `docs/hw/graph/tesla/cuda/*.rst`; `tests/nv50_envydis.rs` checks every row against
//! envydis.
//!
//! [`McInst`]: super::McInst

use std::sync::OnceLock;

use super::{Form, Mods, Ty, Variant};

/// An operation: the mnemonic envydis prints first. The type, modifiers and operand kinds
/// of an [`super::McInst`] pick among the rows of one operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Copy between `$r`, immediates, `s[]`, `$c`, `$a` and special registers.
    Mov,
    /// Load from `c[]`, `s[]`, `l[]` or `g[]`.
    Ld,
    /// Store to `s[]`, `l[]` or `g[]`.
    St,
    /// Integer (b16/b32, also `$a` + offset) or float (f32/f64) add.
    Add,
    /// `src0 - src1`.
    Sub,
    /// `src1 - src0`.
    Subr,
    /// `src0 + src1 + carry($c)`.
    Addc,
    /// 16×16→32 (u16/s16 sources), 24×24 (u24/s24, low or `high` 32 bits) or float.
    Mul,
    /// `src0 * src1 + src2` (integer forms as `mul`; f32 rounds the product).
    Mad,
    /// `src0 * src1 - src2`.
    MadSub,
    /// `src2 - src0 * src1`.
    MadSubr,
    /// `src0 * src1 + src2 + carry($c)`.
    MadAddc,
    /// f64 fused multiply-add.
    Fma,
    /// `|src0 - src1| + src2`.
    Sad,
    Min,
    Max,
    /// Compare `src0` with `src1`: all ones (true) or zero into the destination.
    Set,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    /// `src1` (with the `not` modifiers: a move or a bitwise not).
    Mov2,
    /// Conversion between integer and float types, with rounding and saturation.
    Cvt,
    /// `src2 >= 0 ? src0 : src1` with `src2` an f32 (NaN and negatives select `src1`).
    Slct,
    Rcp,
    Rsqrt,
    Lg2,
    /// Takes the output of `presin`.
    Sin,
    /// Takes the output of `presin`.
    Cos,
    /// Takes the output of `preex2`.
    Ex2,
    Presin,
    Preex2,
    Nop,
    Bra,
    Call,
    Ret,
    /// Push the address a `break` continues at.
    Breakaddr,
    Break,
    /// Push a reconvergence point for the `join` of a divergent branch.
    Joinat,
    Bar,
    Trap,
    /// A global atomic on `g[]` (G84+; 64-bit forms GT200): `ld <op>`, `exch` or `cas`,
    /// writing the old value to the destination.
    Atomic(AtomOp),
    /// A global reduction on `g[]` (G84+; 64-bit `add` GT200): an atomic without a result.
    /// Never `exch` or `cas`.
    Red(AtomOp),
    /// GT200: `$c` true in every running thread iff the predicate (the input, not a
    /// condition on execution) holds in any of them.
    VoteAny,
    /// GT200: `$c` true in every running thread iff the predicate holds in all of them.
    VoteAll,
    /// Fragment programs: a `v[]` plane evaluated at the fragment, optionally times a
    /// source (`Mods::CENT`, `Mods::FLAT` choose the form; `docs/nv50.md`).
    Interp,
    /// Fragment programs: ends the (predicated) threads without results (`g80.c` `tabc`
    /// opcode 0, FP only).
    Kill,
}

/// The operation of an [`Op::Atomic`] or [`Op::Red`]: its code in word 1 bits 34–37
/// (`g80.c` `tabredm`, `tabatomm`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add = 0,
    Exch = 1,
    Cas = 2,
    /// `old >= src ? 0 : old + 1` (unsigned).
    Inc = 4,
    /// `old == 0 || old > src ? src : old - 1` (unsigned).
    Dec = 5,
    Max = 6,
    Min = 7,
    And = 0xa,
    Or = 0xb,
    Xor = 0xc,
}

impl AtomOp {
    pub const ALL: [AtomOp; 10] = [
        AtomOp::Add,
        AtomOp::Exch,
        AtomOp::Cas,
        AtomOp::Inc,
        AtomOp::Dec,
        AtomOp::Max,
        AtomOp::Min,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AtomOp::Add => "add",
            AtomOp::Exch => "exch",
            AtomOp::Cas => "cas",
            AtomOp::Inc => "inc",
            AtomOp::Dec => "dec",
            AtomOp::Max => "max",
            AtomOp::Min => "min",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
        }
    }
}

/// Which type field of the instruction an atom sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Ty,
    SrcTy,
}

/// A register width in a field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum W {
    /// A 16-bit half: the field holds `2 * reg + hi`.
    H,
    R,
    D,
    Q,
}

/// A rounding-mode field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum RoundField {
    /// Two bits at `pos`: 0 `rn`, 3 `rz` (f32 add and mul).
    RnRz(u8),
    /// Two bits at `pos`: `rn`, `rm`, `rp`, `rz`.
    Rnd(u8),
    /// Two bits at `pos`: `rni`, `rmi`, `rpi`, `rzi`.
    Rint(u8),
}

/// How an operand is encoded: the field (or fields) it occupies and the operand kinds it
/// can hold. "Short"/"long" source fields can also hold memory operands, selected by flag
/// bits (envydis's `tabss`, `tabsch`, `tablsw`, `tablc2w`, `tablc3w`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    /// A register of width `w` in `bits` bits at `pos`.
    Reg { pos: u8, bits: u8, w: W },
    /// Long destination (bits 2–8): a register, or [`super::Operand::Discard`] (`$o127`:
    /// bit 35 with register 127).
    LDst(W),
    /// Short source 1: a register (bits 9–14) or, with bit 24, `s[]` (type in bits 13–14,
    /// offset in bits 9–12 scaled by the access size, `$a1`–`$a3` in bits 26–27).
    SSrc1(W),
    /// Short source 2: a register (bits 16–21) or, with bit 23, `c0[]`/`c1[]` (space in
    /// bit 21, offset in bits 16–20 scaled by the register size).
    SSrc2(W),
    /// Immediate-form source 1: as [`Field::SSrc1`], without the constant-source check.
    ISrc1(W),
    /// Long source 1: a register (bits 9–15) or, with bit 53, `s[]` (type in bits 14–15,
    /// offset in bits 9–13 scaled, `$a` in bits 26–27 and 34).
    LSrc1(W),
    /// Long source 2: a register (bits 16–22) or, with bit 23, `c[]` (space in bits 54–57,
    /// offset in bits 16–22 scaled by the register size).
    LSrc2(W),
    /// Long source 3: a register (bits 46–52) or, with bit 24, `c[]` (offset in bits 46–52).
    LSrc3(W),
    /// The destination again (short multiply-adds and `sad` add into their destination).
    SameAsDst,
    /// `$c0`, implied (the carry of short and immediate `addc`).
    C0,
    /// A `$c` register in bits 44–45: the predicate's register field, read as a source.
    CondReg,
    /// A `$c` destination in bits 36–37 (bit 38 set: the write enable).
    CDstReg,
    /// An `$a` source (bits 26–27 and 34).
    AReg,
    /// An `$a` destination (bits 2–4).
    ADst,
    /// A special register number in bits 46–49.
    SReg,
    /// The 32-bit immediate of the immediate form: bits 16–21 and 34–59.
    Imm32,
    /// An unsigned immediate of `bits` bits at `pos`.
    Imm { pos: u8, bits: u8 },
    /// A shift count: with bit 52 an immediate in bits 16–22, else a long source 2.
    ShCnt(W),
    /// `g{space}[$r]`: the space in 4 bits at `space_pos`, the address register in bits 9–15.
    Global { space_pos: u8 },
    /// `l[$a + offset]`: offset in bytes in bits 9–24.
    Local,
    /// `s[$a + offset]` accessed as `ty`: the offset scaled by the size in bits 9–24.
    SharedWide(Ty),
    /// `c{space}[$a + offset]` read as `ty`: space in bits 54–57, offset scaled in bits 9–24.
    ConstWide(Ty),
    /// A code address: bits 11–26 and 46–51 hold the address in words.
    Target,
    /// Store data in bits 46–52, bit 53 selecting a full register over a half.
    StData,
    /// `v[$a + offset]`: offset in words in bits 16–23, `$a` in bits 26–27 (and 34 when
    /// `long`) (`g80.c` `vmem_imm`, `svmem_m`, `lvmem_m`).
    Varying { long: bool },
    /// `o[$a + offset]` of `st`: offset in words in bits 9–22 (`fomem32_m`).
    OutWide,
}

/// One step of an encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Atom {
    /// A word printed as is (the mnemonic, a fixed type, `mul` inside a multiply-add).
    Name(&'static str),
    /// Opens the parenthesised sub-instruction of a multiply-add.
    Open,
    Close,
    /// A modifier bit, available from the given variant on.
    Flag(Mods, u8, Variant),
    /// A modifier that the row implies: printed, no bits of its own.
    Fixed(Mods),
    /// A fixed type.
    Type(Slot, Ty),
    /// A type chosen by one bit.
    TypeBit(Slot, u8, Ty, Ty),
    Round(RoundField),
    /// The comparison of `set`: 3 bits (integers) or 4 bits (floats) at `pos`.
    Cmp {
        pos: u8,
        int: bool,
    },
    /// The optional `$c` output (bits 36–38).
    CDst,
    /// A `$c` output the operation always has (`ld lock`, `vote`): bits 36–37, with bit 38
    /// (the write enable, which envydis ignores here) set as nouveau sets it.
    CDstAlways,
    Dst(Field),
    Src(u8, Field),
}

/// One encoding of an operation.
#[derive(Debug)]
pub(crate) struct Row {
    pub op: Op,
    pub form: Form,
    /// A control-flow encoding (word 0 bits 0–1 = 3): no `exit`/`join`, and a predicate
    /// only if `pred`.
    pub control: bool,
    /// Long forms: the predicate field is read.
    pub pred: bool,
    pub value: u64,
    pub mask: u64,
    pub min: Variant,
    pub atoms: Vec<Atom>,
}

/// The rows, in decoding priority order.
pub(crate) fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(build)
}

/// The rows of `op` in `form`.
pub(crate) fn rows_of(op: Op, form: Form) -> impl Iterator<Item = &'static Row> {
    rows().iter().filter(move |r| r.op == op && r.form == form)
}

const fn w(w0: u32, w1: u32) -> u64 {
    (w1 as u64) << 32 | w0 as u64
}

/// The bits every row of a form fixes: short is word 0 bits 0–1 = 0; immediate has word 0
/// bits 0–1 = 1 and word 1 bits 0–1 = 3; long has word 0 bits 0–1 = 1 (word 1 bits 0–1 are
/// `exit`/`join`); control flow has word 0 bits 0–1 = 3 (`tabroot`).
fn root(form: Form, control: bool) -> (u64, u64) {
    match (form, control) {
        (Form::Short, _) => (0, 3),
        (Form::Imm, _) => (w(1, 3), w(3, 3)),
        (Form::Long, false) => (1, 3),
        (Form::Long, true) => (3, w(3, 3)),
    }
}

struct Builder(Vec<Row>);

impl Builder {
    fn row(&mut self, op: Op, form: Form, value: u64, mask: u64, min: Variant, atoms: Vec<Atom>) {
        let (rv, rm) = root(form, false);
        self.0.push(Row {
            op,
            form,
            control: false,
            pred: form == Form::Long,
            value: value | rv,
            mask: mask | rm,
            min,
            atoms,
        });
    }
    fn short(&mut self, op: Op, w0: u32, m0: u32, atoms: Vec<Atom>) {
        self.row(op, Form::Short, w0 as u64, m0 as u64, Variant::G80, atoms);
    }
    fn imm(&mut self, op: Op, w0: u32, m0: u32, atoms: Vec<Atom>) {
        self.row(op, Form::Imm, w0 as u64, m0 as u64, Variant::G80, atoms);
    }
    fn long(&mut self, op: Op, v: (u32, u32), m: (u32, u32), atoms: Vec<Atom>) {
        self.long_v(op, v, m, Variant::G80, atoms);
    }
    fn long_v(&mut self, op: Op, v: (u32, u32), m: (u32, u32), min: Variant, atoms: Vec<Atom>) {
        self.row(op, Form::Long, w(v.0, v.1), w(m.0, m.1), min, atoms);
    }
    fn control(
        &mut self,
        op: Op,
        w0: u32,
        w1: (u32, u32),
        pred: bool,
        min: Variant,
        atoms: Vec<Atom>,
    ) {
        let (rv, rm) = root(Form::Long, true);
        self.0.push(Row {
            op,
            form: Form::Long,
            control: true,
            pred,
            value: w(w0, w1.0) | rv,
            mask: w(0xf000_0000, w1.1) | rm,
            min,
            atoms,
        });
    }
}

/// The printed mnemonic of an operation whose rows all start with it.
pub(crate) fn op_name(op: Op) -> &'static str {
    match op {
        Op::Mov => "mov",
        Op::Ld => "ld",
        Op::St => "st",
        Op::Add | Op::Mad => "add",
        Op::Sub | Op::MadSub => "sub",
        Op::Subr | Op::MadSubr => "subr",
        Op::Addc | Op::MadAddc => "addc",
        Op::Mul => "mul",
        Op::Fma => "fma",
        Op::Sad => "sad",
        Op::Min => "min",
        Op::Max => "max",
        Op::Set => "set",
        Op::Shl => "shl",
        Op::Shr => "shr",
        Op::And => "and",
        Op::Or => "or",
        Op::Xor => "xor",
        Op::Mov2 => "mov2",
        Op::Cvt => "cvt",
        Op::Slct => "slct",
        Op::Rcp => "rcp",
        Op::Rsqrt => "rsqrt",
        Op::Lg2 => "lg2",
        Op::Sin => "sin",
        Op::Cos => "cos",
        Op::Ex2 => "ex2",
        Op::Presin => "presin",
        Op::Preex2 => "preex2",
        Op::Nop => "nop",
        Op::Bra => "bra",
        Op::Call => "call",
        Op::Ret => "ret",
        Op::Breakaddr => "breakaddr",
        Op::Break => "break",
        Op::Joinat => "joinat",
        Op::Bar => "bar",
        Op::Trap => "trap",
        Op::Atomic(AtomOp::Exch) => "exch",
        Op::Atomic(AtomOp::Cas) => "cas",
        Op::Atomic(_) => "ld",
        Op::Red(_) => "red",
        Op::VoteAny | Op::VoteAll => "vote",
        Op::Interp => "interp",
        Op::Kill => "discard",
    }
}

/// The five forms of `interp` (`g80.c` `tabs`, `tabl` opcode 8), each with the short form's
/// bits that select it: plain, `cent`, times a source, `cent` times a source (`src`, the
/// source's atoms), and `flat`.
fn interp_forms(dst: Atom, var: Field, src: &[Atom]) -> Vec<(u32, Vec<Atom>)> {
    let form = |fixed: Option<Mods>, times: bool| {
        let mut atoms = vec![Atom::Name("interp"), dst];
        atoms.extend(fixed.map(Atom::Fixed));
        atoms.push(Atom::Src(0, var));
        if times {
            atoms.extend_from_slice(src);
        }
        atoms
    };
    vec![
        (0, form(None, false)),
        (1 << 24, form(Some(Mods::CENT), false)),
        (2 << 24, form(None, true)),
        (3 << 24, form(Some(Mods::CENT), true)),
        (0x100, form(Some(Mods::FLAT), false)),
    ]
}

/// The immediate-form twin of a short row's atoms: source 1 may still read `s[]`, source 2
/// becomes the 32-bit immediate (`tabi` mirrors `tabs`).
fn imm_twin(atoms: &[Atom]) -> Vec<Atom> {
    atoms
        .iter()
        .map(|a| match *a {
            Atom::Src(i, Field::SSrc1(w)) => Atom::Src(i, Field::ISrc1(w)),
            Atom::Src(i, Field::SSrc2(_)) => Atom::Src(i, Field::Imm32),
            a => a,
        })
        .collect()
}

fn build() -> Vec<Row> {
    use Atom::*;
    use Field::*;
    use Op::*;
    use Slot::{SrcTy, Ty as T};
    let (g80, g84, g200) = (Variant::G80, Variant::G84, Variant::G200);
    let flag = |m: Mods, bit: u8| Flag(m, bit, g80);
    let sreg = |pos: u8, w: W| Reg { pos, bits: 6, w };
    let lreg = |pos: u8, w: W| Reg { pos, bits: 7, w };
    let mut b = Builder(Vec::new());
    // The integer add family: opcode bits 28 and 22 (`tabaddop`); long forms of the
    // multiply-add use bits 58–59 (`tabaddop2`).
    let add_ops = [
        (Add, 0u32, 0u32),
        (Sub, 0x0040_0000, 0x0400_0000),
        (Subr, 0x1000_0000, 0x0800_0000),
        (Addc, 0x1040_0000, 0x0c00_0000),
    ];
    let mad_ops = [Mad, MadSub, MadSubr, MadAddc];
    let halves = [(0u32, Ty::B16, W::H), (1, Ty::B32, W::R)];

    // ---- Short forms (`tabs`) and their immediate twins (`tabi`) ----
    for (wide, ty, wd) in halves {
        let atoms = vec![
            Name("mov"),
            Type(T, ty),
            Dst(sreg(2, wd)),
            Src(0, SSrc1(wd)),
        ];
        b.short(Mov, 0x1000_0000 | wide << 15, 0xf000_8000, atoms);
        // The immediate `mov` has a 7-bit destination (`tabi`: "yes. LDST. special case.").
        let atoms = vec![Name("mov"), Type(T, ty), Dst(lreg(2, wd)), Src(0, Imm32)];
        b.imm(Mov, 0x1000_0000 | wide << 15, 0xf000_8000, atoms);
    }
    for (op, bits, _) in add_ops {
        for (wide, ty, wd) in halves {
            let mut atoms = vec![
                Name(op_name(op)),
                flag(Mods::SAT, 8),
                Type(T, ty),
                Dst(sreg(2, wd)),
                Src(0, SSrc1(wd)),
                Src(1, SSrc2(wd)),
            ];
            if op == Addc {
                atoms.push(Src(2, C0));
            }
            b.short(
                op,
                0x2000_0000 | bits | wide << 15,
                0xf040_8000,
                atoms.clone(),
            );
            b.imm(
                op,
                0x2000_0000 | bits | wide << 15,
                0xf040_8000,
                imm_twin(&atoms),
            );
        }
    }
    let mul16 = vec![
        Name("mul"),
        Dst(sreg(2, W::R)),
        TypeBit(T, 15, Ty::U16, Ty::S16),
        Src(0, SSrc1(W::H)),
        TypeBit(SrcTy, 8, Ty::U16, Ty::S16),
        Src(1, SSrc2(W::H)),
    ];
    let mul24 = vec![
        Name("mul"),
        Dst(sreg(2, W::R)),
        flag(Mods::HIGH, 8),
        TypeBit(T, 15, Ty::U24, Ty::S24),
        Src(0, SSrc1(W::R)),
        Src(1, SSrc2(W::R)),
    ];
    for (bits, atoms) in [(0x4000_0000, mul16), (0x4040_0000, mul24)] {
        b.short(Mul, bits, 0xf040_0000, atoms.clone());
        b.imm(Mul, bits, 0xf040_0000, imm_twin(&atoms));
    }
    // `sad` exists only short and long; the short one adds into its destination.
    for (wide, tys, wd) in [
        (0u32, (Ty::U16, Ty::S16), W::H),
        (1, (Ty::U32, Ty::S32), W::R),
    ] {
        let atoms = vec![
            Name("sad"),
            Dst(sreg(2, W::R)),
            TypeBit(T, 8, tys.0, tys.1),
            Src(0, sreg(9, wd)),
            Src(1, sreg(16, wd)),
            Src(2, SameAsDst),
        ];
        b.short(Sad, 0x5000_0000 | wide << 15, 0xf000_8000, atoms);
    }
    // Short multiply-adds: bits 8 and 15 pick u16, s16, sat s16 or u24; the addend is the
    // destination.
    for (op, (_, bits, _)) in mad_ops.into_iter().zip(add_ops) {
        for (sel, sat, ty, wd) in [
            (0u32, false, Ty::U16, W::H),
            (0x100, false, Ty::S16, W::H),
            (0x8000, true, Ty::S16, W::H),
            (0x8100, false, Ty::U24, W::R),
        ] {
            let mut atoms = vec![Name(op_name(op))];
            if sat {
                atoms.push(Fixed(Mods::SAT));
            }
            atoms.extend([
                Dst(sreg(2, W::R)),
                Open,
                Name("mul"),
                Type(T, ty),
                Src(0, SSrc1(wd)),
                Src(1, SSrc2(wd)),
                Close,
                Src(2, SameAsDst),
            ]);
            if op == MadAddc {
                atoms.push(Src(3, C0));
            }
            b.short(op, 0x6000_0000 | bits | sel, 0xf040_8100, atoms.clone());
            b.imm(op, 0x6000_0000 | bits | sel, 0xf040_8100, imm_twin(&atoms));
        }
    }
    b.short(
        Rcp,
        0x9000_0000,
        0xf000_0000,
        vec![
            Name("rcp"),
            Type(T, Ty::F32),
            Dst(sreg(2, W::R)),
            flag(Mods::NEG0, 22),
            flag(Mods::ABS0, 15),
            Src(0, sreg(9, W::R)),
        ],
    );
    let fadd = vec![
        Name("add"),
        flag(Mods::SAT, 8),
        Type(T, Ty::F32),
        Dst(sreg(2, W::R)),
        flag(Mods::NEG0, 15),
        Src(0, SSrc1(W::R)),
        flag(Mods::NEG1, 22),
        Src(1, SSrc2(W::R)),
    ];
    // Saturating f32 `mul` is GT200's (`sm1satg200`).
    let fmul = vec![
        Name("mul"),
        Flag(Mods::SAT, 8, g200),
        Type(T, Ty::F32),
        Dst(sreg(2, W::R)),
        flag(Mods::NEG0, 15),
        Src(0, SSrc1(W::R)),
        flag(Mods::NEG1, 22),
        Src(1, SSrc2(W::R)),
    ];
    let fmad = vec![
        Name("add"),
        flag(Mods::SAT, 8),
        Type(T, Ty::F32),
        Dst(sreg(2, W::R)),
        flag(Mods::NEG0, 15),
        Open,
        Name("mul"),
        Src(0, SSrc1(W::R)),
        Src(1, SSrc2(W::R)),
        Close,
        flag(Mods::NEG2, 22),
        Src(2, SameAsDst),
    ];
    for (op, bits, atoms) in [
        (Add, 0xb000_0000, fadd),
        (Mul, 0xc000_0000, fmul),
        (Mad, 0xe000_0000, fmad),
    ] {
        b.short(op, bits, 0xf000_0000, atoms.clone());
        b.imm(op, bits, 0xf000_0000, imm_twin(&atoms));
    }
    // Bit operations exist as immediate and long forms only.
    for (op, bits) in [(And, 0u32), (Or, 0x100), (Xor, 0x8000), (Mov2, 0x8100)] {
        let atoms = vec![
            Name(op_name(op)),
            Type(T, Ty::B32),
            Dst(sreg(2, W::R)),
            flag(Mods::NOT0, 22),
            Src(0, ISrc1(W::R)),
            Src(1, Imm32),
        ];
        b.imm(op, 0xd000_0000 | bits, 0xf000_8100, atoms);
    }

    // `interp` (fragment programs only): bits 24 (`cent`) and 25 (times source 1) or bit 8
    // (`flat`, with 24–25 clear) pick the form (`tabs`, opcode 8).
    for (bits, atoms) in interp_forms(
        Dst(sreg(2, W::R)),
        Varying { long: false },
        &[Src(1, sreg(9, W::R))],
    ) {
        b.short(Interp, 0x8000_0000 | bits, 0xf300_0100, atoms);
    }

    // ---- Long forms (`tabl`), by opcode nibble of word 0 ----
    // 0: moves from and to `$c`, `$a`, special registers; `shl` into `$a`; stores to `s[]`.
    let op0 = 0xf000_0000;
    b.long(
        Mov,
        (0, 0x2000_0000),
        (op0, 0xe000_0000),
        vec![Name("mov"), Dst(lreg(2, W::R)), Src(0, CondReg)],
    );
    b.long(
        Mov,
        (0, 0x4000_0000),
        (op0, 0xe000_0000),
        vec![Name("mov"), Dst(lreg(2, W::R)), Src(0, AReg)],
    );
    b.long(
        Mov,
        (0, 0x6000_0000),
        (op0, 0xe000_0000),
        vec![Name("mov"), Dst(lreg(2, W::R)), Src(0, SReg)],
    );
    b.long(
        Mov,
        (0, 0xa000_0000),
        (op0, 0xe000_0000),
        vec![Name("mov"), Dst(CDstReg), Src(0, lreg(9, W::R))],
    );
    b.long(
        Shl,
        (0, 0xc000_0000),
        (op0, 0xe000_0000),
        vec![
            Name("shl"),
            Dst(ADst),
            Src(0, LSrc1(W::R)),
            Src(1, Imm { pos: 16, bits: 4 }),
        ],
    );
    for (ty, v1, m1) in [
        (Ty::B8, 0xe040_0000u32, 0xe040_0000u32),
        (Ty::B16, 0xe000_0000, 0xe440_0000),
        (Ty::B32, 0xe400_0000, 0xe440_0000),
    ] {
        let mut atoms = vec![Name("st")];
        if ty == Ty::B32 {
            atoms.push(Flag(Mods::UNLOCK, 55, g200));
        }
        atoms.extend([Dst(SharedWide(ty)), Src(0, StData)]);
        b.long(St, (0, v1), (op0, m1), atoms);
    }
    // `st b32 o[$a + …]`, the data a register in bits 46–52 (nouveau's `emitSTORE` for an
    // indexed output).
    b.long(
        St,
        (0, 0x80c0_0000),
        (op0, 0xe0c0_0000),
        vec![
            Name("st"),
            Type(T, Ty::B32),
            Dst(OutWide),
            Src(0, lreg(46, W::R)),
        ],
    );
    // 1: `mov` (all four lanes: bits 46–49 set), loads from `c[]` and `s[]`.
    for (wide, ty, wd) in halves {
        let atoms = vec![Name("mov"), Type(T, ty), Dst(LDst(wd)), Src(0, LSrc1(wd))];
        b.long(
            Mov,
            (0x1000_0000, wide << 26 | 0x3c000),
            (op0, 0xe403_c000),
            atoms,
        );
    }
    let narrow = [
        (Ty::U8, 0u32),
        (Ty::U16, 0x4000),
        (Ty::S16, 0x8000),
        (Ty::B32, 0xc000),
    ];
    for (ty, tb) in narrow {
        for (wide, wd) in [(0u32, W::H), (1, W::R)] {
            if ty == Ty::B32 && wd == W::H {
                continue;
            }
            let atoms = vec![
                Name("ld"),
                Dst(LDst(wd)),
                Type(T, ty),
                Src(0, ConstWide(ty)),
            ];
            b.long(
                Ld,
                (0x1000_0000, 0x2000_0000 | wide << 26 | tb),
                (op0, 0xe400_c000),
                atoms,
            );
            let atoms = vec![Name("ld"), Dst(LDst(wd)), Src(0, SharedWide(ty))];
            let m1 = if ty == Ty::B32 {
                0xe480_c000
            } else {
                0xe400_c000
            };
            b.long_v(
                Ld,
                (0x1000_0000, 0x4000_0000 | wide << 26 | tb),
                (op0, m1),
                g84,
                atoms,
            );
        }
    }
    // GT200's locking load: bit 55 (`tabl`, after the plain `ld b32 s[]`); the `$c`
    // output says whether the word was locked.
    b.long_v(
        Ld,
        (0x1000_0000, 0x4480_c000),
        (op0, 0xe480_c000),
        g200,
        vec![
            Name("ld"),
            Fixed(Mods::LOCK),
            CDstAlways,
            Dst(LDst(W::R)),
            Src(0, SharedWide(Ty::B32)),
        ],
    );
    // GT200's `vote`: word 0 bits 9–10 pick `any` or `all`; the predicate is the input.
    for (op, mode, name) in [(VoteAny, 0x200u32, "any"), (VoteAll, 0x400, "all")] {
        b.long_v(
            op,
            (0x1000_0000 | mode, 0x6000_0000),
            (op0 | 0x600, 0xe000_0000),
            g200,
            vec![Name("vote"), Name(name), CDstAlways],
        );
    }
    // 2, 3: the add family, integer `set`, `min`, `max`, shifts.
    for (op, bits, _) in add_ops {
        for (wide, ty, wd) in halves {
            let mut atoms = vec![
                Name(op_name(op)),
                Type(T, ty),
                flag(Mods::SAT, 59),
                CDst,
                Dst(LDst(wd)),
                Src(0, LSrc1(wd)),
                Src(1, LSrc3(wd)),
            ];
            if op == Addc {
                atoms.push(Src(2, CondReg));
            }
            b.long(
                op,
                (0x2000_0000 | bits, wide << 26),
                (0xf040_0000, 0xe400_0000),
                atoms,
            );
        }
    }
    let signs = |wd: W| {
        if wd == W::H {
            (Ty::U16, Ty::S16)
        } else {
            (Ty::U32, Ty::S32)
        }
    };
    for (wide, ty, wd) in halves {
        let (u, s) = signs(wd);
        let v = |w1: u32| (0x3000_0000u32, w1 | wide << 26);
        let m = (op0, 0xe400_0000);
        b.long(
            Set,
            v(0x6000_0000),
            m,
            vec![
                Name("set"),
                CDst,
                Dst(LDst(wd)),
                Cmp { pos: 46, int: true },
                TypeBit(T, 59, u, s),
                Src(0, LSrc1(wd)),
                Src(1, LSrc2(wd)),
            ],
        );
        for (op, w1) in [(Max, 0x8000_0000), (Min, 0xa000_0000)] {
            b.long(
                op,
                v(w1),
                m,
                vec![
                    Name(op_name(op)),
                    TypeBit(T, 59, u, s),
                    CDst,
                    Dst(LDst(wd)),
                    Src(0, LSrc1(wd)),
                    Src(1, LSrc2(wd)),
                ],
            );
        }
        b.long(
            Shl,
            v(0xc000_0000),
            m,
            vec![
                Name("shl"),
                Type(T, ty),
                CDst,
                Dst(LDst(wd)),
                Src(0, LSrc1(wd)),
                Src(1, ShCnt(wd)),
            ],
        );
        b.long(
            Shr,
            v(0xe000_0000),
            m,
            vec![
                Name("shr"),
                TypeBit(T, 59, u, s),
                CDst,
                Dst(LDst(wd)),
                Src(0, LSrc1(wd)),
                Src(1, ShCnt(wd)),
            ],
        );
    }
    // 4: multiplies. Bit 48 picks 16-bit (two source types) or 24-bit.
    b.long(
        Mul,
        (0x4000_0000, 0),
        (op0, 0xe001_0000),
        vec![
            Name("mul"),
            CDst,
            Dst(LDst(W::R)),
            TypeBit(T, 47, Ty::U16, Ty::S16),
            Src(0, LSrc1(W::H)),
            TypeBit(SrcTy, 46, Ty::U16, Ty::S16),
            Src(1, LSrc2(W::H)),
        ],
    );
    b.long(
        Mul,
        (0x4000_0000, 0x0001_0000),
        (op0, 0xe001_0000),
        vec![
            Name("mul"),
            CDst,
            Dst(LDst(W::R)),
            flag(Mods::HIGH, 46),
            TypeBit(T, 47, Ty::U24, Ty::S24),
            Src(0, LSrc1(W::R)),
            Src(1, LSrc2(W::R)),
        ],
    );
    // 5: `sad`.
    for (wide, _, wd) in halves {
        let (u, s) = signs(wd);
        b.long(
            Sad,
            (0x5000_0000, wide << 26),
            (op0, 0xe400_0000),
            vec![
                Name("sad"),
                CDst,
                Dst(LDst(W::R)),
                TypeBit(T, 59, u, s),
                Src(0, LSrc1(wd)),
                Src(1, LSrc2(wd)),
                Src(2, LSrc3(W::R)),
            ],
        );
    }
    // 6, 7: multiply-adds. Word 1 bits 61–63 (and word 0 bit 28) pick the multiply.
    let mad_kinds = [
        (0x6000_0000u32, 0x0000_0000u32, Mods::NONE, Ty::U16),
        (0x6000_0000, 0x2000_0000, Mods::NONE, Ty::S16),
        (0x6000_0000, 0x4000_0000, Mods::SAT, Ty::S16),
        (0x6000_0000, 0x6000_0000, Mods::NONE, Ty::U24),
        (0x6000_0000, 0x8000_0000, Mods::NONE, Ty::S24),
        (0x6000_0000, 0xa000_0000, Mods::SAT, Ty::S24),
        (0x6000_0000, 0xc000_0000, Mods::HIGH, Ty::U24),
        (0x6000_0000, 0xe000_0000, Mods::HIGH, Ty::S24),
        (
            0x7000_0000,
            0x0000_0000,
            Mods(Mods::SAT.0 | Mods::HIGH.0),
            Ty::S24,
        ),
    ];
    for (op, (_, _, opbits)) in mad_ops.into_iter().zip(add_ops) {
        for (w0, w1, fixed, ty) in mad_kinds {
            let wd = if ty.bytes() == 2 { W::H } else { W::R };
            let mut atoms = vec![Name(op_name(op))];
            if fixed.contains(Mods::SAT) {
                atoms.push(Fixed(Mods::SAT));
            }
            atoms.extend([CDst, Dst(LDst(W::R)), Open, Name("mul")]);
            if fixed.contains(Mods::HIGH) {
                atoms.push(Fixed(Mods::HIGH));
            }
            atoms.extend([
                Type(T, ty),
                Src(0, LSrc1(wd)),
                Src(1, LSrc2(wd)),
                Close,
                Src(2, LSrc3(W::R)),
            ]);
            if op == MadAddc {
                atoms.push(Src(3, CondReg));
            }
            b.long(op, (w0, w1 | opbits), (op0, 0xec00_0000), atoms);
        }
    }
    // 9: the special-function unit.
    for (op, w1) in [(Rcp, 0u32), (Rsqrt, 0x4000_0000), (Lg2, 0x6000_0000)] {
        b.long(
            op,
            (0x9000_0000, w1),
            (op0, 0xe000_0000),
            vec![
                Name(op_name(op)),
                Type(T, Ty::F32),
                Dst(LDst(W::R)),
                flag(Mods::NEG0, 58),
                flag(Mods::ABS0, 52),
                Src(0, lreg(9, W::R)),
            ],
        );
    }
    for (op, w1) in [(Sin, 0x8000_0000u32), (Cos, 0xa000_0000)] {
        b.long(
            op,
            (0x9000_0000, w1),
            (op0, 0xe000_0000),
            vec![
                Name(op_name(op)),
                Type(T, Ty::F32),
                Dst(LDst(W::R)),
                Src(0, lreg(9, W::R)),
            ],
        );
    }
    b.long(
        Ex2,
        (0x9000_0000, 0xc000_0000),
        (op0, 0xe000_0000),
        vec![
            Name("ex2"),
            Type(T, Ty::F32),
            flag(Mods::SAT, 59),
            Dst(LDst(W::R)),
            Src(0, lreg(9, W::R)),
        ],
    );
    // a: conversions.
    cvt_rows(&mut b);
    // b: f32 add, set, min, max and the pre-operations of the special functions.
    let fm0 = [flag(Mods::NEG0, 58), flag(Mods::ABS0, 52)];
    let fm1 = [flag(Mods::NEG1, 59), flag(Mods::ABS1, 51)];
    b.long(
        Add,
        (0xb000_0000, 0),
        (op0, 0xc000_0000),
        vec![
            Name("add"),
            flag(Mods::SAT, 61),
            Round(RoundField::RnRz(16)),
            Type(T, Ty::F32),
            CDst,
            Dst(LDst(W::R)),
            flag(Mods::NEG0, 58),
            Src(0, LSrc1(W::R)),
            flag(Mods::NEG1, 59),
            Src(1, LSrc3(W::R)),
        ],
    );
    let mut set = vec![
        Name("set"),
        CDst,
        Dst(LDst(W::R)),
        Cmp {
            pos: 46,
            int: false,
        },
        Type(T, Ty::F32),
    ];
    set.extend(fm0);
    set.push(Src(0, LSrc1(W::R)));
    set.extend(fm1);
    set.push(Src(1, LSrc2(W::R)));
    b.long(Set, (0xb000_0000, 0x6000_0000), (op0, 0xe000_0000), set);
    for (op, w1) in [(Max, 0x8000_0000u32), (Min, 0xa000_0000)] {
        let mut atoms = vec![Name(op_name(op)), Type(T, Ty::F32), CDst, Dst(LDst(W::R))];
        atoms.extend(fm0);
        atoms.push(Src(0, LSrc1(W::R)));
        atoms.extend(fm1);
        atoms.push(Src(1, LSrc2(W::R)));
        b.long(op, (0xb000_0000, w1), (op0, 0xe000_0000), atoms);
    }
    for (op, w1) in [(Presin, 0xc000_0000u32), (Preex2, 0xc000_4000)] {
        let mut atoms = vec![Name(op_name(op)), Type(T, Ty::F32), Dst(LDst(W::R))];
        atoms.extend(fm0);
        atoms.push(Src(0, LSrc1(W::R)));
        b.long(op, (0xb000_0000, w1), (op0, 0xe000_4000), atoms);
    }
    // c: f32 `mul`, `slct`.
    b.long(
        Mul,
        (0xc000_0000, 0),
        (op0, 0xe000_0000),
        vec![
            Name("mul"),
            Flag(Mods::SAT, 52, g200),
            Round(RoundField::RnRz(46)),
            Type(T, Ty::F32),
            CDst,
            Dst(LDst(W::R)),
            flag(Mods::NEG0, 58),
            Src(0, LSrc1(W::R)),
            flag(Mods::NEG1, 59),
            Src(1, LSrc2(W::R)),
        ],
    );
    b.long(
        Slct,
        (0xc000_0000, 0x4000_0000),
        (op0, 0xc000_0000),
        vec![
            Name("slct"),
            Type(T, Ty::B32),
            CDst,
            Dst(LDst(W::R)),
            Src(0, LSrc1(W::R)),
            Src(1, LSrc2(W::R)),
            Type(SrcTy, Ty::F32),
            flag(Mods::NEG2, 61),
            Src(2, LSrc3(W::R)),
        ],
    );
    // d: bit operations, `add` on `$a`, local and global memory.
    for (op, sel) in [(And, 0u32), (Or, 0x4000), (Xor, 0x8000), (Mov2, 0xc000)] {
        for (wide, ty, wd) in halves {
            b.long(
                op,
                (0xd000_0000, sel | wide << 26),
                (op0, 0xe400_c000),
                vec![
                    Name(op_name(op)),
                    Type(T, ty),
                    CDst,
                    Dst(LDst(wd)),
                    flag(Mods::NOT0, 48),
                    Src(0, LSrc1(wd)),
                    flag(Mods::NOT1, 49),
                    Src(1, LSrc2(wd)),
                ],
            );
        }
    }
    b.long(
        Add,
        (0xd000_0000, 0x2000_0000),
        (op0, 0xe000_0000),
        vec![
            Name("add"),
            Dst(ADst),
            Src(0, AReg),
            Src(1, Imm { pos: 9, bits: 16 }),
        ],
    );
    // Access types in bits 53–55 (`tabldstm`); the data register is the destination field.
    let sizes = [
        (Ty::U8, 0u32, W::R),
        (Ty::S8, 1, W::R),
        (Ty::U16, 2, W::R),
        (Ty::S16, 3, W::R),
        (Ty::B64, 4, W::D),
        (Ty::B128, 5, W::Q),
        (Ty::B32, 6, W::R),
    ];
    for (ty, code, wd) in sizes {
        let t = code << 21;
        let m = (op0, 0xe0e0_0000);
        b.long(
            Ld,
            (0xd000_0000, 0x4000_0000 | t),
            m,
            vec![Name("ld"), Type(T, ty), Dst(lreg(2, wd)), Src(0, Local)],
        );
        b.long(
            St,
            (0xd000_0000, 0x6000_0000 | t),
            m,
            vec![Name("st"), Type(T, ty), Dst(Local), Src(0, lreg(2, wd))],
        );
        let global = Global { space_pos: 16 };
        b.long(
            Ld,
            (0xd000_0000, 0x8000_0000 | t),
            m,
            vec![Name("ld"), Type(T, ty), Dst(lreg(2, wd)), Src(0, global)],
        );
        b.long(
            St,
            (0xd000_0000, 0xa000_0000 | t),
            m,
            vec![Name("st"), Type(T, ty), Dst(global), Src(0, lreg(2, wd))],
        );
    }
    atom_rows(&mut b);
    // e: f32 multiply-add and the f64 operations of GT200.
    b.long(
        Mad,
        (0xe000_0000, 0),
        (op0, 0xc000_0000),
        vec![
            Name("add"),
            flag(Mods::SAT, 61),
            Type(T, Ty::F32),
            CDst,
            Dst(LDst(W::R)),
            flag(Mods::NEG0, 58),
            Open,
            Name("mul"),
            Src(0, LSrc1(W::R)),
            Src(1, LSrc2(W::R)),
            Close,
            flag(Mods::NEG2, 59),
            Src(2, LSrc3(W::R)),
        ],
    );
    let d = |pos: u8| lreg(pos, W::D);
    let f64_row = |b: &mut Builder, op: Op, w1: u32, atoms: Vec<Atom>| {
        b.long_v(op, (0xe000_0000, w1), (op0, 0xe000_0000), g200, atoms);
    };
    f64_row(
        &mut b,
        Fma,
        0x4000_0000,
        vec![
            Name("fma"),
            Round(RoundField::Rnd(54)),
            Type(T, Ty::F64),
            CDst,
            Dst(d(2)),
            flag(Mods::NEG0, 58),
            Src(0, d(9)),
            Src(1, d(16)),
            flag(Mods::NEG2, 59),
            Src(2, d(46)),
        ],
    );
    f64_row(
        &mut b,
        Add,
        0x6000_0000,
        vec![
            Name("add"),
            Round(RoundField::Rnd(16)),
            Type(T, Ty::F64),
            CDst,
            Dst(d(2)),
            flag(Mods::NEG0, 58),
            Src(0, d(9)),
            flag(Mods::NEG1, 59),
            Src(1, d(46)),
        ],
    );
    f64_row(
        &mut b,
        Mul,
        0x8000_0000,
        vec![
            Name("mul"),
            Round(RoundField::Rnd(49)),
            Type(T, Ty::F64),
            CDst,
            Dst(d(2)),
            flag(Mods::NEG0, 58),
            Src(0, d(9)),
            Src(1, d(16)),
        ],
    );
    for (op, w1) in [(Min, 0xa000_0000u32), (Max, 0xc000_0000)] {
        let mut atoms = vec![Name(op_name(op)), Type(T, Ty::F64), CDst, Dst(d(2))];
        atoms.extend(fm0);
        atoms.push(Src(0, d(9)));
        atoms.extend(fm1);
        atoms.push(Src(1, d(16)));
        f64_row(&mut b, op, w1, atoms);
    }
    let mut set = vec![
        Name("set"),
        CDst,
        Dst(LDst(W::R)),
        Cmp {
            pos: 46,
            int: false,
        },
        Type(T, Ty::F64),
    ];
    set.extend(fm0);
    set.push(Src(0, d(9)));
    set.extend(fm1);
    set.push(Src(1, d(16)));
    f64_row(&mut b, Set, 0xe000_0000, set);
    // f: `nop` (bit 34 clear: set, it is `pmevent`).
    b.long(
        Nop,
        (0xf000_0000, 0xe000_0000),
        (op0, 0xe000_0004),
        vec![Name("nop")],
    );

    // 8: `interp`, the short form's bits 24–25 (or flat: 4) in word 1 bits 16–18; the
    // source may be negated (bit 58).
    for (bits, atoms) in interp_forms(
        Dst(lreg(2, W::R)),
        Varying { long: true },
        &[Flag(Mods::NEG1, 58, g80), Src(1, lreg(9, W::R))],
    ) {
        let w1 = if bits == 0x100 { 4 << 16 } else { bits >> 8 };
        b.long(Interp, (0x8000_0000, w1), (0xf000_0000, 0x0007_0000), atoms);
    }

    // ---- Control flow (`tabc`) ----
    // Those without a predicate ignore the field; nouveau leaves it zero, as we do.
    b.control(
        Bra,
        0x1000_0000,
        (0, 0),
        true,
        g80,
        vec![Name("bra"), Src(0, Target)],
    );
    b.control(
        Call,
        0x2000_0000,
        (0, 0),
        false,
        g80,
        vec![Name("call"), Src(0, Target)],
    );
    b.control(Ret, 0x3000_0000, (0, 0), true, g80, vec![Name("ret")]);
    b.control(
        Breakaddr,
        0x4000_0000,
        (0, 0),
        false,
        g80,
        vec![Name("breakaddr"), Src(0, Target)],
    );
    b.control(Break, 0x5000_0000, (0, 0), true, g80, vec![Name("break")]);
    let bar = |count: Atom| {
        vec![
            Name("bar"),
            flag(Mods::INC, 25),
            flag(Mods::WAIT, 26),
            Src(0, Imm { pos: 21, bits: 4 }),
            count,
        ]
    };
    b.control(
        Bar,
        0x8000_0000,
        (0x4000, 0x4000),
        false,
        g80,
        bar(Name("all")),
    );
    b.control(
        Bar,
        0x8000_0000,
        (0, 0x4000),
        false,
        g80,
        bar(Src(1, Imm { pos: 9, bits: 12 })),
    );
    b.control(Trap, 0x9000_0000, (0, 0), false, g80, vec![Name("trap")]);
    b.control(Kill, 0x0000_0000, (0, 0), true, g80, vec![Name("discard")]);
    b.control(
        Joinat,
        0xa000_0000,
        (0, 0),
        false,
        g80,
        vec![Name("joinat"), Src(0, Target)],
    );
    b.0
}

/// The global reductions (`red`, word 1 bits 61–63 = 6) and atomics (7) on `g[]` (`tabl`,
/// opcode d; `tabredm`, `tabatomm`): the operation in word 1 bits 34–37, the type in bits
/// 53–55 as for loads (`tabraadd`, `tabrau32`, `tabramm`, `tabrab32`, `tabrab`; the 64-bit
/// ones GT200 only), the address register in bits 9–15. A reduction's operand is in the
/// destination field (bits 2–8) and its space in word 0 bits 16–19; an atomic has its result
/// there, the space in bits 23–26, the operand in bits 16–22 and `cas`'s new value in bits
/// 46–52.
fn atom_rows(b: &mut Builder) {
    use Atom::*;
    use Field::*;
    use Slot::Ty as T;
    let (g84, g200) = (Variant::G84, Variant::G200);
    let reg = |pos: u8, w: W| Reg { pos, bits: 7, w };
    // Per operation, its types: the type atom, the type bits (value, mask), the register
    // width and the first variant.
    let word = |code: u32| (code << 21, 0x00e0_0000);
    let u32_s32 = (
        TypeBit(T, 53, Ty::U32, Ty::S32),
        (0x00c0_0000, 0x00c0_0000),
        W::R,
        g84,
    );
    let only = |ty: Ty| {
        let (code, w, min) = match ty.bytes() {
            8 => (4, W::D, g200),
            _ => (6, W::R, g84),
        };
        (Type(T, ty), word(code), w, min)
    };
    for op in AtomOp::ALL {
        let types = match op {
            AtomOp::Add => vec![u32_s32, only(Ty::U64)],
            AtomOp::Inc | AtomOp::Dec => vec![only(Ty::U32)],
            AtomOp::Max | AtomOp::Min => vec![u32_s32],
            AtomOp::And | AtomOp::Or | AtomOp::Xor => vec![only(Ty::B32)],
            AtomOp::Exch | AtomOp::Cas => vec![only(Ty::B32), only(Ty::B64)],
        };
        let code = (op as u32) << 2;
        for (ty, (tv, tm), w, min) in types {
            if !matches!(op, AtomOp::Exch | AtomOp::Cas) {
                b.long_v(
                    Op::Red(op),
                    (0xd000_0000, 0xc000_0000 | code | tv),
                    (0xf000_0000, 0xe000_003c | tm),
                    min,
                    vec![
                        Name("red"),
                        Name(op.name()),
                        ty,
                        Dst(Global { space_pos: 16 }),
                        Src(0, reg(2, w)),
                    ],
                );
            }
            let mut atoms = match op {
                AtomOp::Exch | AtomOp::Cas => vec![Name(op.name())],
                _ => vec![Name("ld"), Name(op.name())],
            };
            atoms.extend([
                ty,
                Dst(reg(2, w)),
                Src(0, Global { space_pos: 23 }),
                Src(1, reg(16, w)),
            ]);
            if op == AtomOp::Cas {
                atoms.push(Src(2, reg(46, w)));
            }
            b.long_v(
                Op::Atomic(op),
                (0xd000_0000, 0xe000_0000 | code | tv),
                (0xf000_0000, 0xe000_003c | tm),
                min,
                atoms,
            );
        }
    }
}

/// The `cvt` rows (`tabl`, opcode a). Word 1 bits 62–63 give the kind (0 integer from
/// integer, 1 float from integer, 2 integer from float, 3 float from float), bit 54 a
/// 64-bit side, bit 46 an f32 (not f16) source, bits 58–59 the destination type or the
/// round-to-integer flag, bits 46–48 an integer source's type (`tabcvtiisrc`).
fn cvt_rows(b: &mut Builder) {
    use Atom::*;
    use Field::*;
    use Slot::{SrcTy, Ty as T};
    #[derive(Clone, Copy, PartialEq)]
    enum R {
        None,
        Rnd,
        Rint,
    }
    let (g80, g200) = (Variant::G80, Variant::G200);
    let lsrc = |w: W| LSrc1(w);
    let plain = |w: W| Reg { pos: 9, bits: 7, w };
    let ddst = Reg {
        pos: 2,
        bits: 7,
        w: W::D,
    };
    // The integer sources of `tabcvtiisrc`: u8/s8 from a full register read no `s[]`.
    let int_srcs = [
        (0u32, Ty::U16, lsrc(W::H)),
        (1, Ty::U32, lsrc(W::R)),
        (2, Ty::U8, lsrc(W::H)),
        (3, Ty::U8, plain(W::R)),
        (4, Ty::S16, lsrc(W::H)),
        (5, Ty::S32, lsrc(W::R)),
        (6, Ty::S8, lsrc(W::H)),
        (7, Ty::S8, plain(W::R)),
    ];
    let dst_of = |ty: Ty| match ty.bytes() {
        1 | 2 => Dst(LDst(W::H)),
        8 => Dst(ddst),
        _ => Dst(LDst(W::R)),
    };
    let mut row = |w1: u32,
                   m1: u32,
                   dty: Ty,
                   dst: Atom,
                   sty: Ty,
                   src: Field,
                   sat: bool,
                   r: R,
                   min: Variant| {
        let mut atoms = vec![
            Name("cvt"),
            Flag(Mods::NEG0, 61, g80),
            Flag(Mods::ABS0, 52, g80),
        ];
        if sat {
            atoms.push(Flag(Mods::SAT, 51, g80));
        }
        match r {
            R::None => {}
            R::Rnd => atoms.push(Round(RoundField::Rnd(49))),
            R::Rint => atoms.push(Round(RoundField::Rint(49))),
        }
        atoms.extend([Type(T, dty), CDst, dst, Type(SrcTy, sty), Src(0, src)]);
        b.long_v(Op::Cvt, (0xa000_0000, w1), (0xf000_0000, m1), min, atoms);
    };
    let (fm, fm_wide) = (0xcc40_4000u32, 0xc440_4000u32);
    let h = W::H;
    // Float from float.
    row(
        0xc000_0000,
        fm,
        Ty::F16,
        Dst(LDst(h)),
        Ty::F16,
        lsrc(h),
        true,
        R::None,
        g80,
    );
    row(
        0xc800_0000,
        fm,
        Ty::F16,
        Dst(LDst(h)),
        Ty::F16,
        lsrc(h),
        true,
        R::Rint,
        g80,
    );
    row(
        0xc000_4000,
        fm_wide,
        Ty::F16,
        Dst(LDst(h)),
        Ty::F32,
        lsrc(W::R),
        true,
        R::Rnd,
        g80,
    );
    row(
        0xc400_4000,
        fm,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::F32,
        lsrc(W::R),
        true,
        R::None,
        g80,
    );
    row(
        0xcc00_4000,
        fm,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::F32,
        lsrc(W::R),
        true,
        R::Rint,
        g80,
    );
    row(
        0xc400_0000,
        fm_wide,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::F16,
        lsrc(h),
        true,
        R::None,
        g80,
    );
    row(
        0xc040_4000,
        fm_wide,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::F64,
        plain(W::D),
        false,
        R::Rnd,
        g200,
    );
    row(
        0xc440_4000,
        fm,
        Ty::F64,
        Dst(ddst),
        Ty::F64,
        plain(W::D),
        false,
        R::None,
        g200,
    );
    row(
        0xcc40_4000,
        fm,
        Ty::F64,
        Dst(ddst),
        Ty::F64,
        plain(W::D),
        false,
        R::Rint,
        g200,
    );
    row(
        0xc440_0000,
        fm_wide,
        Ty::F64,
        Dst(ddst),
        Ty::F32,
        lsrc(W::R),
        false,
        R::None,
        g200,
    );
    // Integer from float: always rounds to an integer, always saturates.
    for (w1, dty) in [
        (0x8000_0000u32, Ty::U16),
        (0x8800_0000, Ty::S16),
        (0x8400_0000, Ty::U32),
        (0x8c00_0000, Ty::S32),
    ] {
        row(
            w1,
            fm,
            dty,
            dst_of(dty),
            Ty::F16,
            lsrc(h),
            false,
            R::Rint,
            g80,
        );
        row(
            w1 | 0x4000,
            fm,
            dty,
            dst_of(dty),
            Ty::F32,
            lsrc(W::R),
            false,
            R::Rint,
            g80,
        );
    }
    row(
        0x8040_4000,
        fm,
        Ty::U32,
        Dst(LDst(W::R)),
        Ty::F64,
        plain(W::D),
        false,
        R::Rint,
        g200,
    );
    row(
        0x8840_4000,
        fm,
        Ty::S32,
        Dst(LDst(W::R)),
        Ty::F64,
        plain(W::D),
        false,
        R::Rint,
        g200,
    );
    for (w1, dty) in [(0x8440_0000u32, Ty::U64), (0x8c40_0000, Ty::S64)] {
        row(
            w1,
            fm,
            dty,
            Dst(ddst),
            Ty::F32,
            lsrc(W::R),
            false,
            R::Rint,
            g200,
        );
        row(
            w1 | 0x4000,
            fm,
            dty,
            Dst(ddst),
            Ty::F64,
            plain(W::D),
            false,
            R::Rint,
            g200,
        );
    }
    // Float from integer.
    for (code, sty, src) in int_srcs {
        let s = code << 14;
        row(
            0x4000_0000 | s,
            0xc441_c000,
            Ty::F16,
            Dst(LDst(h)),
            sty,
            src,
            true,
            R::Rnd,
            g80,
        );
        row(
            0x4400_0000 | s,
            0xc441_c000,
            Ty::F32,
            Dst(LDst(W::R)),
            sty,
            src,
            true,
            R::Rnd,
            g80,
        );
    }
    let i64m = 0xc441_4000;
    row(
        0x4440_0000,
        i64m,
        Ty::F64,
        Dst(ddst),
        Ty::U32,
        lsrc(W::R),
        true,
        R::Rnd,
        g200,
    );
    row(
        0x4441_0000,
        i64m,
        Ty::F64,
        Dst(ddst),
        Ty::S32,
        lsrc(W::R),
        true,
        R::Rnd,
        g200,
    );
    row(
        0x4040_4000,
        i64m,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::U64,
        plain(W::D),
        true,
        R::Rnd,
        g200,
    );
    row(
        0x4041_4000,
        i64m,
        Ty::F32,
        Dst(LDst(W::R)),
        Ty::S64,
        plain(W::D),
        true,
        R::Rnd,
        g200,
    );
    row(
        0x4440_4000,
        i64m,
        Ty::F64,
        Dst(ddst),
        Ty::U64,
        plain(W::D),
        true,
        R::Rnd,
        g200,
    );
    row(
        0x4441_4000,
        i64m,
        Ty::F64,
        Dst(ddst),
        Ty::S64,
        plain(W::D),
        true,
        R::Rnd,
        g200,
    );
    // Integer from integer (saturating to the destination's range). Bit 51 with an 8-bit
    // destination; u8/s8 results go to a half or a full register.
    for (w1, dty, dst) in [
        (0x0000_0000u32, Ty::U16, Dst(LDst(h))),
        (0x0008_0000, Ty::U8, Dst(LDst(h))),
        (0x0400_0000, Ty::U32, Dst(LDst(W::R))),
        (0x0408_0000, Ty::U8, Dst(LDst(W::R))),
        (0x0800_0000, Ty::S16, Dst(LDst(h))),
        (0x0808_0000, Ty::S8, Dst(LDst(h))),
        (0x0c00_0000, Ty::S32, Dst(LDst(W::R))),
        (0x0c08_0000, Ty::S8, Dst(LDst(W::R))),
    ] {
        for (code, sty, src) in int_srcs {
            row(
                w1 | code << 14,
                0xcc49_c000,
                dty,
                dst,
                sty,
                src,
                false,
                R::None,
                g80,
            );
        }
    }
}
