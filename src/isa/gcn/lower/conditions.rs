//! The compare opcodes for CLIF's integer and float condition codes.

use super::super::mc::{Gen, Op};
use crate::ir::condcodes::{FloatCC, IntCC};

pub(super) fn is_signed(cc: IntCC) -> bool {
    use IntCC::*;
    matches!(
        cc,
        SignedLessThan | SignedLessThanOrEqual | SignedGreaterThan | SignedGreaterThanOrEqual
    )
}

pub(super) fn vcmp_int(cc: IntCC, wide: bool) -> Op {
    use IntCC::*;
    use Op::*;
    match (cc, wide) {
        (Equal, false) => VCmpEqU32,
        (NotEqual, false) => VCmpNeU32,
        (SignedLessThan, false) => VCmpLtI32,
        (SignedLessThanOrEqual, false) => VCmpLeI32,
        (SignedGreaterThan, false) => VCmpGtI32,
        (SignedGreaterThanOrEqual, false) => VCmpGeI32,
        (UnsignedLessThan, false) => VCmpLtU32,
        (UnsignedLessThanOrEqual, false) => VCmpLeU32,
        (UnsignedGreaterThan, false) => VCmpGtU32,
        (UnsignedGreaterThanOrEqual, false) => VCmpGeU32,
        (Equal, true) => VCmpEqU64,
        (NotEqual, true) => VCmpNeU64,
        (SignedLessThan, true) => VCmpLtI64,
        (SignedLessThanOrEqual, true) => VCmpLeI64,
        (SignedGreaterThan, true) => VCmpGtI64,
        (SignedGreaterThanOrEqual, true) => VCmpGeI64,
        (UnsignedLessThan, true) => VCmpLtU64,
        (UnsignedLessThanOrEqual, true) => VCmpLeU64,
        (UnsignedGreaterThan, true) => VCmpGtU64,
        (UnsignedGreaterThanOrEqual, true) => VCmpGeU64,
    }
}

/// The SALU compare for `cc` on `generation`, if it has one (`s_cmp_eq_u64`/`s_cmp_lg_u64`
/// came with gfx8; before, 64-bit compares use the VALU).
pub(super) fn scmp_int(cc: IntCC, wide: bool, generation: Gen) -> Option<Op> {
    use IntCC::*;
    use Op::*;
    let op = match (cc, wide) {
        (Equal, false) => SCmpEqU32,
        (NotEqual, false) => SCmpLgU32,
        (SignedLessThan, false) => SCmpLtI32,
        (SignedLessThanOrEqual, false) => SCmpLeI32,
        (SignedGreaterThan, false) => SCmpGtI32,
        (SignedGreaterThanOrEqual, false) => SCmpGeI32,
        (UnsignedLessThan, false) => SCmpLtU32,
        (UnsignedLessThanOrEqual, false) => SCmpLeU32,
        (UnsignedGreaterThan, false) => SCmpGtU32,
        (UnsignedGreaterThanOrEqual, false) => SCmpGeU32,
        (Equal, true) => SCmpEqU64,
        (NotEqual, true) => SCmpLgU64,
        _ => return None,
    };
    op.info().available(generation).then_some(op)
}

/// The f64 twin of [`vcmp_float`].
pub(super) fn vcmp_float64(cc: FloatCC) -> Op {
    use FloatCC::*;
    use Op::*;
    match cc {
        Ordered => VCmpOF64,
        Unordered => VCmpUF64,
        Equal => VCmpEqF64,
        NotEqual => VCmpNeqF64,
        OrderedNotEqual => VCmpLgF64,
        UnorderedOrEqual => VCmpNlgF64,
        LessThan => VCmpLtF64,
        LessThanOrEqual => VCmpLeF64,
        GreaterThan => VCmpGtF64,
        GreaterThanOrEqual => VCmpGeF64,
        UnorderedOrLessThan => VCmpNgeF64,
        UnorderedOrLessThanOrEqual => VCmpNgtF64,
        UnorderedOrGreaterThan => VCmpNleF64,
        UnorderedOrGreaterThanOrEqual => VCmpNltF64,
    }
}

/// The VOPC compare for a CLIF float condition. The `n…` compares are true for unordered
/// inputs, matching CLIF's `u…` conditions exactly (GCN3 ISA 6.4, VOPC opcodes).
pub(super) fn vcmp_float(cc: FloatCC) -> Op {
    use FloatCC::*;
    use Op::*;
    match cc {
        Ordered => VCmpOF32,
        Unordered => VCmpUF32,
        Equal => VCmpEqF32,
        NotEqual => VCmpNeqF32,
        OrderedNotEqual => VCmpLgF32,
        UnorderedOrEqual => VCmpNlgF32,
        LessThan => VCmpLtF32,
        LessThanOrEqual => VCmpLeF32,
        GreaterThan => VCmpGtF32,
        GreaterThanOrEqual => VCmpGeF32,
        UnorderedOrLessThan => VCmpNgeF32,
        UnorderedOrLessThanOrEqual => VCmpNgtF32,
        UnorderedOrGreaterThan => VCmpNleF32,
        UnorderedOrGreaterThanOrEqual => VCmpNltF32,
    }
}
