//! The global-memory atomics (`flat_atomic_*`, `global_atomic_*`, `buffer_atomic_*`): what
//! each writes given the old value, from the opcode tables' descriptions (SI ISA 12.5
//! "MUBUF", Vega ISA 12.12 "FLAT"). The wave applies them lane by lane in ascending lane
//! order, each lane's read-modify-write whole before the next (`Wave::vmem`).

use super::super::Violation;
use crate::isa::gcn::mc::OpInfo;

/// The new memory value of the atomic `info` on `bytes`-wide data (4 or 8) at an address
/// holding `old`, with the lane's data `src` and, for `cmpswap`, the compared value `cmp`.
pub(crate) fn apply(
    info: &OpInfo,
    old: u64,
    src: u64,
    cmp: u64,
    bytes: usize,
) -> Result<u64, Violation> {
    let operation = info
        .name
        .split_once("_atomic_")
        .map(|(_, rest)| rest.trim_end_matches("_x2"))
        .ok_or_else(|| Violation::Unsupported(format!("{} is not an atomic", info.name)))?;
    apply_named(operation, old, src, cmp, bytes)
}

/// [`apply`] for the operation named as in the global atomics' mnemonics (`add`, `smin`,
/// `cmpswap`, …), which the LDS atomics share (`lds.rs`).
pub(crate) fn apply_named(
    operation: &str,
    old: u64,
    src: u64,
    cmp: u64,
    bytes: usize,
) -> Result<u64, Violation> {
    let sign = |v: u64| {
        if bytes == 4 {
            v as u32 as i32 as i64
        } else {
            v as i64
        }
    };
    let new = match operation {
        "swap" => src,
        "cmpswap" if old == cmp => src,
        "cmpswap" => old,
        "add" => old.wrapping_add(src),
        "sub" => old.wrapping_sub(src),
        "smin" if sign(src) < sign(old) => src,
        "smax" if sign(src) > sign(old) => src,
        "smin" | "smax" => old,
        "umin" => old.min(src),
        "umax" => old.max(src),
        "and" => old & src,
        "or" => old | src,
        "xor" => old ^ src,
        other => {
            return Err(Violation::Unsupported(format!(
                "atomic operation `{other}` is not simulated"
            )));
        }
    };
    Ok(if bytes == 4 { new & 0xffff_ffff } else { new })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::mc::Op;

    #[test]
    fn operations_on_32_and_64_bits() {
        let f = |op: Op, old, src, cmp, bytes| apply(op.info(), old, src, cmp, bytes).unwrap();
        assert_eq!(f(Op::FlatAtomicAdd, 0xffff_ffff, 2, 0, 4), 1);
        assert_eq!(
            f(Op::GlobalAtomicAddX2, 0xffff_ffff, 2, 0, 8),
            0x1_0000_0001
        );
        assert_eq!(f(Op::BufferAtomicSub, 0, 1, 0, 4), 0xffff_ffff);
        assert_eq!(f(Op::FlatAtomicSmin, 5, 0xffff_fffe, 0, 4), 0xffff_fffe);
        assert_eq!(f(Op::FlatAtomicUmin, 5, 0xffff_fffe, 0, 4), 5);
        assert_eq!(f(Op::FlatAtomicSmaxX2, u64::MAX, 3, 0, 8), 3);
        assert_eq!(f(Op::FlatAtomicUmaxX2, u64::MAX, 3, 0, 8), u64::MAX);
        assert_eq!(f(Op::FlatAtomicCmpswap, 7, 9, 7, 4), 9);
        assert_eq!(f(Op::FlatAtomicCmpswap, 7, 9, 8, 4), 7);
        assert_eq!(f(Op::FlatAtomicXor, 0b1100, 0b1010, 0, 4), 0b0110);
        assert_eq!(f(Op::FlatAtomicSwapX2, 1, 1 << 40, 0, 8), 1 << 40);
    }
}
