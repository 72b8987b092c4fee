//! Immediate-field layouts that the encoder's users, the printer and the simulator all
//! read: the `s_waitcnt` counters, the `s_nop` count and the scalar-memory offset ranges,
//! each defined once.

use super::Gen;

/// The largest `vmcnt` of `generation` (6 bits from gfx9, 4 before), `expcnt` and
/// `lgkmcnt`: each counter's "no wait".
pub fn waitcnt_max(generation: Gen) -> (u32, u32, u32) {
    let vm = if generation >= Gen::Gfx9 { 63 } else { 15 };
    (vm, 7, 15)
}

/// The `s_waitcnt` immediate (GCN3 ISA 4.4: vmcnt `[3:0]`, expcnt `[6:4]`, lgkmcnt `[11:8]`;
/// GFX9 adds vmcnt `[5:4]` at `[15:14]`). An unconstrained counter gets its maximum.
pub fn waitcnt_imm(
    generation: Gen,
    vmcnt: Option<u8>,
    expcnt: Option<u8>,
    lgkmcnt: Option<u8>,
) -> u16 {
    let (vm_max, exp_max, lgkm_max) = waitcnt_max(generation);
    let vm = vmcnt.map_or(vm_max, u32::from);
    let exp = expcnt.map_or(exp_max, u32::from);
    let lgkm = lgkmcnt.map_or(lgkm_max, u32::from);
    let mut imm = (vm & 0xf) | (exp & 7) << 4 | (lgkm & 0xf) << 8;
    if generation >= Gen::Gfx9 {
        imm |= ((vm >> 4) & 3) << 14;
    }
    imm as u16
}

/// The counters of an `s_waitcnt` immediate, (vmcnt, expcnt, lgkmcnt): the inverse of
/// [`waitcnt_imm`] (LLVM AMDGPUBaseInfo `decodeWaitcnt`).
pub fn decode_waitcnt(imm: u16, generation: Gen) -> (u32, u32, u32) {
    let imm = imm as u32;
    let mut vm = imm & 0xf;
    if generation >= Gen::Gfx9 {
        vm |= (imm >> 14 & 3) << 4;
    }
    (vm, imm >> 4 & 7, imm >> 8 & 0xf)
}

/// The most wait states one `s_nop` gives: its count is `SIMM16[2:0]` on gfx6/gfx7 (SI and
/// CI ISA manuals, S_NOP: "Repeat NOP 1..8 times"), `SIMM16[3:0]` from gfx8 (GCN3 and Vega:
/// 1..16 times). `s_nop N` gives N + 1; a larger N is not encoded (llvm-mc-14 assembles
/// `s_nop 8` for `tahiti` without complaint, but the hardware reads only the low bits).
pub fn nop_wait_states_max(generation: Gen) -> u32 {
    if generation >= Gen::Gfx8 { 16 } else { 8 }
}

/// Whether a scalar load can encode a byte offset: gfx8 20 bits, gfx9 21 bits, gfx7 a
/// dword-aligned 32-bit literal, gfx6 a dword-aligned 8-bit dword count.
pub fn smem_offset_encodable(offset: u32, generation: Gen) -> bool {
    match generation {
        Gen::Gfx6 => offset.is_multiple_of(4) && offset / 4 <= 0xff,
        Gen::Gfx7 => offset.is_multiple_of(4),
        Gen::Gfx8 => offset <= 0xf_ffff,
        Gen::Gfx9 => offset <= 0x1f_ffff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waitcnt_round_trips() {
        assert_eq!(decode_waitcnt(0xf70, Gen::Gfx8), (0, 7, 15));
        assert_eq!(decode_waitcnt(0x7f, Gen::Gfx8), (15, 7, 0));
        assert_eq!(decode_waitcnt(0xc07f, Gen::Gfx9), (63, 7, 0));
        for g in [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
            for (vm, lgkm) in [(0, 0), (3, 15), (15, 2)] {
                let imm = waitcnt_imm(g, Some(vm), None, Some(lgkm));
                assert_eq!(decode_waitcnt(imm, g), (vm as u32, 7, lgkm as u32));
            }
            assert_eq!(
                decode_waitcnt(waitcnt_imm(g, None, None, None), g),
                waitcnt_max(g)
            );
        }
        let imm = waitcnt_imm(Gen::Gfx9, Some(40), None, None);
        assert_eq!(decode_waitcnt(imm, Gen::Gfx9).0, 40);
    }
}
