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

/// The compare of the opposite condition, with the same operands: what a lane mask needs
/// to hold the lanes where `op`'s is clear (floats: the unordered forms, true for NaN
/// where `op` is false).
pub(super) fn complement(op: Op) -> Option<Op> {
    use Op::*;
    const PAIRS: &[(Op, Op)] = &[
        (VCmpEqI32, VCmpNeI32),
        (VCmpLtI32, VCmpGeI32),
        (VCmpLeI32, VCmpGtI32),
        (VCmpFI32, VCmpTI32),
        (VCmpEqU32, VCmpNeU32),
        (VCmpLtU32, VCmpGeU32),
        (VCmpLeU32, VCmpGtU32),
        (VCmpFU32, VCmpTU32),
        (VCmpEqI64, VCmpNeI64),
        (VCmpLtI64, VCmpGeI64),
        (VCmpLeI64, VCmpGtI64),
        (VCmpFI64, VCmpTI64),
        (VCmpEqU64, VCmpNeU64),
        (VCmpLtU64, VCmpGeU64),
        (VCmpLeU64, VCmpGtU64),
        (VCmpFU64, VCmpTU64),
        (VCmpEqF32, VCmpNeqF32),
        (VCmpLtF32, VCmpNltF32),
        (VCmpLeF32, VCmpNleF32),
        (VCmpGtF32, VCmpNgtF32),
        (VCmpGeF32, VCmpNgeF32),
        (VCmpLgF32, VCmpNlgF32),
        (VCmpOF32, VCmpUF32),
        (VCmpFF32, VCmpTruF32),
        (VCmpEqF64, VCmpNeqF64),
        (VCmpLtF64, VCmpNltF64),
        (VCmpLeF64, VCmpNleF64),
        (VCmpGtF64, VCmpNgtF64),
        (VCmpGeF64, VCmpNgeF64),
        (VCmpLgF64, VCmpNlgF64),
        (VCmpOF64, VCmpUF64),
        (VCmpFF64, VCmpTruF64),
    ];
    PAIRS.iter().find_map(|&(a, b)| match op {
        _ if op == a => Some(b),
        _ if op == b => Some(a),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::condcodes::CondCode;

    #[test]
    fn complements_pair_up_and_negate() {
        // Every integer and float condition's compare has its complement's compare as its
        // own complement, and the pair covers each case exactly once.
        for cc in IntCC::all() {
            for wide in [false, true] {
                let op = vcmp_int(*cc, wide);
                assert_eq!(
                    complement(op),
                    Some(vcmp_int(cc.complement(), wide)),
                    "{cc}"
                );
            }
        }
        for cc in FloatCC::all() {
            assert_eq!(
                complement(vcmp_float(*cc)),
                Some(vcmp_float(cc.complement()))
            );
            assert_eq!(
                complement(vcmp_float64(*cc)),
                Some(vcmp_float64(cc.complement()))
            );
        }
    }
}
