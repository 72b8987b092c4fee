//! Values for differential tests: edge cases that break code generators, random inputs
//! biased towards them, and the conversions between interpreter values and the dwords
//! the GCN ABI passes them in.

use crate::ir::immediates::Ieee32;
use crate::ir::{Type, types};
use cranelift_codegen::data_value::DataValue;

/// A small, fast, deterministic generator (Steele, Lea and Flood's SplitMix64): enough to
/// fill `Unstructured` buffers and pick inputs reproducibly from a seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

/// Integer edge values of a `bits`-wide type, as unsigned bit patterns (not yet masked to
/// the width): zero, one, all ones, the signed extremes and their neighbours, byte and
/// half-word boundaries, shift amounts around the width, and 2^31, 2^32.
pub fn int_edges(bits: u32) -> Vec<u64> {
    let mask = mask(bits);
    let min = 1u64 << (bits - 1);
    let mut edges = vec![
        0,
        1,
        2,
        mask,
        mask - 1,
        min,
        min - 1,
        min + 1,
        (bits - 1) as u64,
        bits as u64,
        (bits + 1) as u64,
        0x7f,
        0x80,
        0xff,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        0xffff_ffff_0000_0000,
        3,
        7,
        10,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
    ];
    for e in &mut edges {
        *e &= mask;
    }
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// f16 edge values as bit patterns: signed zeros and ones, the smallest and largest
/// denormals, the smallest normal, f16::MAX, infinities, quiet and signalling NaNs of both
/// signs with payloads.
pub const F16_EDGES: &[u16] = &[
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00,
    0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfd55, 0x7fff,
];

/// f32 edge values as bit patterns: signed zeros, ones, halves (rounding ties), quiet and
/// signalling NaNs of both signs and with payloads, infinities, the largest finite value,
/// the smallest normal, the smallest and largest denormals, the float neighbours of
/// 2^31 and 2^32 (conversion limits), and 2^24 + 1 (the first odd integer f32 cannot hold).
pub const F32_EDGES: &[u32] = &[
    0x0000_0000, // +0.0
    0x8000_0000, // -0.0
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
    0x3f00_0000, // 0.5
    0xbf00_0000, // -0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xc020_0000, // -2.5
    0x3eff_ffff, // 0.49999997
    0x7fc0_0000, // quiet NaN
    0xffc0_0000, // -quiet NaN
    0x7fc0_0001, // quiet NaN with a payload
    0x7f80_0001, // signalling NaN
    0xff80_0001, // -signalling NaN
    0x7fbf_ffff, // signalling NaN, largest payload
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7f7f_ffff, // f32::MAX
    0xff7f_ffff, // f32::MIN
    0x0080_0000, // smallest normal
    0x8080_0000, // -smallest normal
    0x0000_0001, // smallest denormal
    0x8000_0001, // -smallest denormal
    0x007f_ffff, // largest denormal
    0x807f_ffff, // -largest denormal
    0x4f00_0000, // 2^31
    0x4eff_ffff, // 2^31 - 128
    0xcf00_0000, // -2^31
    0xcf00_0001, // just below -2^31
    0x4f80_0000, // 2^32
    0x4f7f_ffff, // 2^32 - 256
    0x4b80_0001, // 2^24 + 2
    0x4b7f_ffff, // 2^24 - 1
    0x3400_0000, // 2^-23
    0x7e80_0000, // 2^126
    0x0100_0000, // 2^-125
];

/// f64 edge values as bit patterns, in the spirit of [`F32_EDGES`]: the limits of the
/// integer conversions (2^31, 2^32, 2^53, 2^63, 2^64 and neighbours), denormals, NaNs.
pub const F64_EDGES: &[u64] = &[
    0x0000_0000_0000_0000, // +0.0
    0x8000_0000_0000_0000, // -0.0
    0x3ff0_0000_0000_0000, // 1.0
    0xbff0_0000_0000_0000, // -1.0
    0x3fe0_0000_0000_0000, // 0.5
    0xbfe0_0000_0000_0000, // -0.5
    0x4004_0000_0000_0000, // 2.5
    0x3fef_ffff_ffff_ffff, // largest below 1
    0x7ff8_0000_0000_0000, // quiet NaN
    0xfff8_0000_0000_0000, // -quiet NaN
    0x7ff8_0000_0000_0001, // quiet NaN with a payload
    0x7ff0_0000_0000_0001, // signalling NaN
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x7fef_ffff_ffff_ffff, // f64::MAX
    0x0010_0000_0000_0000, // smallest normal
    0x0000_0000_0000_0001, // smallest denormal
    0x800f_ffff_ffff_ffff, // -largest denormal
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000, // -2^31
    0x41ef_ffff_ffff_fffe, // just below 2^32 - 1
    0x41f0_0000_0000_0000, // 2^32
    0x4340_0000_0000_0001, // 2^53 + 2
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000, // -2^63
    0xc3e0_0000_0000_0001, // just below -2^63
    0x43df_ffff_ffff_ffff, // just below 2^63
    0x43f0_0000_0000_0000, // 2^64
    0x43ef_ffff_ffff_ffff, // just below 2^64
    0x47ef_ffff_e000_0000, // f32::MAX
    0x47ef_ffff_f000_0000, // f32::MAX + half an ulp (rounds to inf)
    0x36a0_0000_0000_0000, // smallest f32 denormal
    0x3690_0000_0000_0000, // half of it (ties to 0)
];

/// The bits of the low `bits` of a register.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// An interpreter value of type `ty` from (at least) its bit pattern.
pub fn data_value(ty: Type, bits: u64) -> DataValue {
    match ty {
        types::I8 => DataValue::I8(bits as i8),
        types::I16 => DataValue::I16(bits as i16),
        types::F16 => DataValue::F16(crate::ir::immediates::Ieee16::with_bits(bits as u16)),
        types::I32 => DataValue::I32(bits as i32),
        types::I64 => DataValue::I64(bits as i64),
        types::F32 => DataValue::F32(Ieee32::with_bits(bits as u32)),
        types::F64 => DataValue::F64(crate::ir::immediates::Ieee64::with_bits(bits)),
        _ => panic!("difftest values of type {ty} are not supported"),
    }
}

/// The bit pattern of a scalar value (zero-extended), for the types differential tests use.
pub fn bits_of(value: &DataValue) -> u64 {
    match *value {
        DataValue::I8(v) => v as u8 as u64,
        DataValue::I16(v) => v as u16 as u64,
        DataValue::F16(v) => v.bits() as u64,
        DataValue::I32(v) => v as u32 as u64,
        DataValue::I64(v) => v as u64,
        DataValue::F32(v) => v.bits() as u64,
        DataValue::F64(v) => v.bits(),
        ref other => panic!("difftest values of type {} are not supported", other.ty()),
    }
}

/// A random input of type `ty`: an edge value with probability 1/2, else random bits
/// (integers) or a random bit pattern or small float (f32).
pub fn random_value(rng: &mut SplitMix64, ty: Type) -> DataValue {
    // Types the backend does not support (wide-mode functions are only compiled, but a
    // caller may still ask for inputs): random bits.
    match ty {
        types::I128 => {
            return DataValue::I128(
                ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) as i128,
            );
        }
        types::F64 => {
            let bits = if rng.chance(1, 2) {
                F64_EDGES[rng.below(F64_EDGES.len() as u64) as usize]
            } else if rng.chance(1, 2) {
                rng.next_u64()
            } else {
                let int = rng.below(2001) as i64 - 1000;
                let scale =
                    [1.0f64, 0.5, 0.25, 0.125, 1024.0, 2f64.powi(40)][rng.below(6) as usize];
                (int as f64 * scale).to_bits()
            };
            return DataValue::F64(crate::ir::immediates::Ieee64::with_bits(bits));
        }
        ty if ty.is_vector() && ty.bytes() == 16 => {
            let mut bytes = [0; 16];
            rng.fill(&mut bytes);
            return DataValue::V128(bytes);
        }
        _ => {}
    }
    let bits = if ty == types::F16 {
        if rng.chance(1, 2) {
            F16_EDGES[rng.below(F16_EDGES.len() as u64) as usize] as u64
        } else {
            rng.next_u32() as u16 as u64
        }
    } else if ty == types::F32 {
        if rng.chance(1, 2) {
            F32_EDGES[rng.below(F32_EDGES.len() as u64) as usize] as u64
        } else if rng.chance(1, 2) {
            rng.next_u32() as u64
        } else {
            // A small float with few mantissa bits: exact results, ties, integers.
            let int = rng.below(2001) as i64 - 1000;
            let scale = [1.0f32, 0.5, 0.25, 0.125, 1024.0][rng.below(5) as usize];
            (int as f32 * scale).to_bits() as u64
        }
    } else {
        let edges = int_edges(ty.bits());
        if rng.chance(1, 2) {
            edges[rng.below(edges.len() as u64) as usize]
        } else if rng.chance(1, 4) {
            rng.below(64)
        } else {
            rng.next_u64()
        }
    };
    data_value(ty, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_fit_their_width() {
        for bits in [8, 16, 32, 64] {
            let edges = int_edges(bits);
            assert!(edges.iter().all(|&e| e <= mask(bits)));
            assert!(edges.contains(&(1 << (bits - 1))), "INT_MIN of i{bits}");
            assert!(edges.contains(&mask(bits)), "-1 of i{bits}");
        }
    }

    #[test]
    fn splitmix_is_deterministic() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        assert!(a.below(10) < 10);
    }
}
