//! Parameter interpolation (VINTRP) and exports (EXP) of pixel and vertex shaders.
//!
//! VINTRP reads an attribute's plane parameters from LDS where M0 says (SI ISA ch. 10
//! "Parameter interpolation"; the layout is the one `docs/isa-notes.md`, "Parameter
//! interpolation (VINTRP) and exports (EXP)", documents): M0 bits 15:0 are the byte
//! offset of the wave's parameters, bits 30:16 the new-primitive mask (bit 16 + q: quad
//! q + 1 starts a new primitive). `v_interp_p1_f32 d, i` = P0 + i · P10, `v_interp_p2_f32
//! d, j` = d + j · P20, each product and sum rounded to f32 (the model of
//! `docs/ir.md`, "Shader stages"), `v_interp_mov_f32 d, pK` = PK.

use super::lds::{Accessor, Lds};
use crate::isa::gcn::mc::{ExpTarget, Interp, InterpParam, Op};
use crate::sim::Violation;

/// The primitive that lane `lane` interpolates for, given M0: quad 0 starts primitive 0,
/// and each quad whose mask bit is set starts the next one.
pub(crate) fn primitive(m0: u32, lane: usize) -> u32 {
    let quad = lane / 4;
    let mask = m0 >> 16 & 0x7fff;
    (mask & ((1 << quad) - 1)).count_ones()
}

/// The number of primitives a wave's M0 describes.
pub(crate) fn primitives(m0: u32) -> u32 {
    (m0 >> 16 & 0x7fff).count_ones() + 1
}

/// The LDS byte address of parameter `param` of channel `chan` of attribute `attr` for
/// primitive `prim`: 12 dwords per (attribute, primitive), attribute-major; P0 and P10 of
/// each channel interleaved (dwords 0–7), then P20 of x, y, z, w (dwords 8–11).
pub(crate) fn param_address(m0: u32, attr: u8, chan: u8, prim: u32, param: InterpParam) -> u32 {
    let block = (m0 & 0xffff) + 48 * (attr as u32 * primitives(m0) + prim);
    let chan = chan as u32;
    block
        + match param {
            InterpParam::P0 => 8 * chan,
            InterpParam::P10 => 8 * chan + 4,
            InterpParam::P20 => 32 + 4 * chan,
        }
}

/// One VINTRP instruction over the lanes of `exec`: `src` is VSRC's value (the
/// barycentric; unused by `v_interp_mov_f32`), `dst` the destination's before (read by
/// `v_interp_p2_f32`). Returns the destination's lanes (`dst` outside `exec`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn interpolate(
    lds: &mut Lds,
    op: Op,
    interp: Interp,
    m0: u32,
    src: &[u32; 64],
    dst: &[u32; 64],
    exec: u64,
    by: Accessor,
) -> Result<[u32; 64], Violation> {
    let mut out = *dst;
    for lane in (0..64).filter(|&l| exec >> l & 1 != 0) {
        let prim = primitive(m0, lane);
        let mut param = |param| {
            let address = param_address(m0, interp.attr, interp.chan, prim, param);
            lds.read_dword(address, lane as u32, by).map(f32::from_bits)
        };
        let b = f32::from_bits(src[lane]);
        let value = match (op, interp.param) {
            (Op::VInterpP1F32, None) => param(InterpParam::P0)? + b * param(InterpParam::P10)?,
            (Op::VInterpP2F32, None) => f32::from_bits(dst[lane]) + b * param(InterpParam::P20)?,
            (Op::VInterpMovF32, Some(p)) => param(p)?,
            _ => {
                return Err(Violation::Other(format!(
                    "{} with the operands of another VINTRP operation",
                    op.info().name
                )));
            }
        };
        out[lane] = value.to_bits();
    }
    Ok(out)
}

/// One export as the wave issued it: its target and flags, the lanes of EXEC, and each
/// written channel's value in every lane (a compressed export's channels 0 and 1 both
/// hold its first VGPR, 2 and 3 its second).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Exported {
    pub target: ExpTarget,
    pub exec: u64,
    pub channels: [Option<[u32; 64]>; 4],
    pub compr: bool,
    pub done: bool,
    pub vm: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_follow_the_mask() {
        // The seed's example: mask 0b1010011 (quads 1, 2, 5 and 7 start primitives).
        let m0 = 0b1010011 << 16;
        assert_eq!(primitives(m0), 5);
        let by_quad: Vec<u32> = (0..16).map(|q| primitive(m0, 4 * q)).collect();
        assert_eq!(by_quad, [0, 1, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
        assert_eq!(primitive(m0, 63), 4);
        assert_eq!(primitive(0x7fff << 16, 63), 15);
    }

    #[test]
    fn parameters_are_attribute_major() {
        // Three primitives, parameters from byte 64.
        let m0 = 0b11 << 16 | 64;
        let at = |attr, chan, prim, param| param_address(m0, attr, chan, prim, param);
        assert_eq!(at(0, 0, 0, InterpParam::P0), 64);
        assert_eq!(at(0, 0, 0, InterpParam::P10), 68);
        assert_eq!(at(0, 1, 0, InterpParam::P0), 72);
        assert_eq!(at(0, 3, 0, InterpParam::P10), 64 + 28);
        assert_eq!(at(0, 0, 0, InterpParam::P20), 64 + 32);
        assert_eq!(at(0, 3, 0, InterpParam::P20), 64 + 44);
        assert_eq!(at(0, 0, 2, InterpParam::P0), 64 + 96);
        // Attribute 1 follows the three primitives of attribute 0.
        assert_eq!(at(1, 0, 0, InterpParam::P0), 64 + 144);
    }
}
