//! The LDS of a work-group: its loads and stores (`ds_read*`/`ds_write*`, with the M0 bound
//! of gfx6–gfx8 and a check for data races between the waves of the work-group), and the
//! lane permutes of the LDS unit (DS encoding), which move data between the lanes of a
//! wave without reading or writing LDS memory: `ds_swizzle_b32` (every generation),
//! `ds_permute_b32` and `ds_bpermute_b32` (gfx8/gfx9). Semantics from the instruction
//! descriptions and pseudo-code of the Vega ISA manual (DS opcodes 61–63; the Southern
//! Islands manual gives `ds_swizzle_b32`'s two basic modes the same way):
//! - `ds_swizzle_b32`, offset[15] = 1: within each quad, lane i reads lane offset[2i+1:2i];
//!   offset[15] = 0: within each half of 32 lanes, lane j reads lane
//!   ((j & and) | or) ^ xor (and = offset[4:0], or = offset[9:5], xor = offset[14:10]).
//!   The Vega manual adds a rotate mode (offset ≥ 0xc000) and an FFT mode (≥ 0xe000)
//!   whose pseudo-code leaves the group of 32 (a lane + rotate past 31); wavelift never
//!   emits them and the simulator refuses them rather than guess.
//! - `ds_bpermute_b32`: lane i reads `data` of lane ((addr[i] + offset) / 4) mod 64, the
//!   32-bit sum wrapping ("high-order bits are ignored").
//! - `ds_permute_b32`: active lane i sends its `data` to lane ((addr[i] + offset) / 4)
//!   mod 64; where several send to one lane the highest-numbered sender wins, lanes no
//!   one sends to get 0.
//! - Every mode: a source lane that is inactive (EXEC clear) gives 0 ("reading from an
//!   invalid thread results in 0x0", "if src_lane selects a disabled thread then zero is
//!   returned"), and only active lanes write their destination.

use crate::isa::gcn::mc::{Gen, Op};
use crate::sim::Violation;
pub(crate) use crate::sim::races::Accessor;
use crate::sim::races::RaceCheck;

/// Bytes per LDS allocation granule: the hardware gives a work-group its LDS in blocks of
/// 64 dwords on gfx6 and 128 dwords from gfx7 on (`COMPUTE_PGM_RSRC2.LDS_SIZE`, SI and CI
/// ISA "LDS_SIZE").
pub(crate) fn granule(generation: Gen) -> u32 {
    match generation {
        Gen::Gfx6 => 256,
        _ => 512,
    }
}

/// The LDS of one work-group: its bytes (the allocation: the kernel's group segment
/// rounded up to whole granules) and the record of its accesses for the race check.
pub(crate) struct Lds {
    bytes: Vec<u8>,
    pub races: RaceCheck,
}

impl Lds {
    /// `segment` bytes rounded up to whole granules of `generation`.
    pub fn new(segment: u32, generation: Gen) -> Lds {
        let size = segment.next_multiple_of(granule(generation)) as usize;
        Lds {
            bytes: vec![0; size],
            races: RaceCheck::new("LDS", "wave", size),
        }
    }

    /// The bytes the work-group may access (the allocation).
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Reads `len` bytes at `address` (in range), recording the read.
    fn read(&mut self, address: u32, len: usize, by: Accessor) -> Result<&[u8], Violation> {
        self.races.read(address, len, by)?;
        Ok(&self.bytes[address as usize..address as usize + len])
    }

    /// The dword at `address` for `lane`, recording the read: parameter interpolation
    /// (`interp.rs`), whose addresses come from M0 and the attribute, not from a VGPR.
    /// Outside the allocation (or unaligned) it is a memory violation.
    pub(crate) fn read_dword(
        &mut self,
        address: u32,
        lane: u32,
        by: Accessor,
    ) -> Result<u32, Violation> {
        if !address.is_multiple_of(4) || address as usize + 4 > self.bytes.len() {
            return Err(Violation::Memory {
                lane: Some(lane),
                address: address as u64,
                message: format!(
                    "interpolation parameter outside the {} bytes of LDS (or unaligned)",
                    self.bytes.len()
                ),
            });
        }
        let bytes = self.read(address, 4, by)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("four bytes")))
    }

    /// Places `data` at `address` before a launch (the parameters the hardware would have
    /// written), outside the race check.
    pub(crate) fn fill(&mut self, address: u32, data: &[u8]) {
        self.bytes[address as usize..address as usize + data.len()].copy_from_slice(data);
    }

    /// Writes `data` at `address` (in range), recording the write.
    fn write(&mut self, address: u32, data: &[u8], by: Accessor) -> Result<(), Violation> {
        self.races.write(address, data.len(), by)?;
        self.bytes[address as usize..address as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// An atomic read-modify-write of the `len` bytes at `address` (in range, `len` ≤ 8,
    /// little-endian): `update` gives the new value from the old; returns the old value.
    /// Atomics are outside the race check: they may meet each other and plain accesses
    /// of other waves between two barriers (a compare-and-swap loop reads its first guess
    /// with a plain load, `machinst/expand_atomics.rs`).
    fn update(
        &mut self,
        address: u32,
        len: usize,
        update: impl FnOnce(u64) -> Result<u64, Violation>,
    ) -> Result<u64, Violation> {
        let range = address as usize..address as usize + len;
        let mut old = [0u8; 8];
        old[..len].copy_from_slice(&self.bytes[range.clone()]);
        let old = u64::from_le_bytes(old);
        let new = update(old)?;
        self.bytes[range].copy_from_slice(&new.to_le_bytes()[..len]);
        Ok(old)
    }
}

/// The size in bytes of each access of a DS load or store (also the alignment it needs),
/// and whether its value is sign-extended (loads of bytes and words).
fn access_shape(op: Op) -> Option<(usize, bool)> {
    Some(match op {
        Op::DsReadU8 | Op::DsWriteB8 => (1, false),
        Op::DsReadI8 => (1, true),
        Op::DsReadU16 | Op::DsWriteB16 => (2, false),
        Op::DsReadI16 => (2, true),
        Op::DsReadB32
        | Op::DsWriteB32
        | Op::DsRead2B32
        | Op::DsWrite2B32
        | Op::DsRead2st64B32
        | Op::DsWrite2st64B32 => (4, false),
        Op::DsReadB64 | Op::DsWriteB64 => (8, false),
        Op::DsReadB128 | Op::DsWriteB128 => (16, false),
        _ => return None,
    })
}

/// One DS load or store of workgroup memory by the active lanes of `exec`, in lane order.
/// `addr` is the ADDR VGPR; `data` the dwords of DATA0 (then DATA1 for `ds_write2_b32`),
/// `offset` the instruction's 16-bit field (read2/write2: two dword offsets). `bound` is
/// the bound address: the allocation, and on gfx6–gfx8 at most M0 (the LDS chapter of the
/// SI and GCN3 ISA manuals: an address at or past it is out of range, where a read returns
/// 0 and a write does nothing). An access must be aligned to its size (DS has no unaligned mode here,
/// `docs/simulator.md`). A load returns each destination dword's lanes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn access(
    lds: &mut Lds,
    op: Op,
    offset: u16,
    addr: &[u32; 64],
    data: &[[u32; 64]],
    exec: u64,
    bound: u32,
    by: Accessor,
) -> Result<Vec<[u32; 64]>, Violation> {
    let Some((size, signed)) = access_shape(op) else {
        return Err(Violation::Unsupported(format!(
            "{} is not an LDS load or store",
            op.info().name
        )));
    };
    let info = op.info();
    let store = info.dst == 0;
    // read2/write2 count their two offsets in elements, the st64 forms in 64 elements.
    let unit = match op {
        Op::DsRead2B32 | Op::DsWrite2B32 => Some(4),
        Op::DsRead2st64B32 | Op::DsWrite2st64B32 => Some(4 * 64),
        _ => None,
    };
    // Each lane's accesses: (byte offset from ADDR, dwords of data or result).
    let parts: Vec<(u32, usize)> = if let Some(unit) = unit {
        vec![
            (unit * (offset & 0xff) as u32, 0),
            (unit * (offset >> 8) as u32, 1),
        ]
    } else {
        vec![(offset as u32, 0)]
    };
    let words = size.div_ceil(4);
    let mut out = vec![[0u32; 64]; info.dst as usize];
    for lane in (0..64).filter(|&l| exec >> l & 1 != 0) {
        for &(part_offset, slot) in &parts {
            let address = addr[lane].wrapping_add(part_offset);
            if !(address as usize).is_multiple_of(size) {
                return Err(Violation::Memory {
                    lane: Some(lane as u32),
                    address: address as u64,
                    message: format!("LDS access of {size} bytes not aligned to its size"),
                });
            }
            let in_range = address
                .checked_add(size as u32)
                .is_some_and(|end| end <= bound);
            if store {
                if !in_range {
                    continue;
                }
                let mut bytes = [0u8; 16];
                for w in 0..words {
                    let word = data[slot * words + w][lane];
                    bytes[4 * w..4 * w + 4].copy_from_slice(&word.to_le_bytes());
                }
                lds.write(address, &bytes[..size], by)?;
                continue;
            }
            let mut bytes = [0u8; 16];
            if in_range {
                bytes[..size].copy_from_slice(lds.read(address, size, by)?);
            }
            let first = slot * words;
            match (size, signed) {
                (1, false) => out[first][lane] = bytes[0] as u32,
                (1, true) => out[first][lane] = bytes[0] as i8 as i32 as u32,
                (2, false) => out[first][lane] = u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
                (2, true) => {
                    out[first][lane] = i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32
                }
                _ => {
                    for w in 0..words {
                        out[first + w][lane] = u32::from_le_bytes(
                            bytes[4 * w..4 * w + 4].try_into().expect("four bytes"),
                        );
                    }
                }
            }
        }
    }
    Ok(out)
}

/// One DS atomic (`Form::DsAtomic`) by the active lanes of `exec`, each lane's
/// read-modify-write whole before the next lane's, in ascending lane order (as the global
/// atomics, `atomics.rs`). `data` holds DATA0's dwords then DATA1's; `bound` as in
/// [`access`], where an out-of-range atomic reads 0 and writes nothing; the accessor is
/// not needed, atomics being outside the race check ([`Lds::update`]). Returns the old
/// values, the result of the `_rtn_` forms.
#[allow(clippy::too_many_arguments)]
pub(crate) fn atomic(
    lds: &mut Lds,
    op: Op,
    offset: u16,
    addr: &[u32; 64],
    data: &[[u32; 64]],
    exec: u64,
    bound: u32,
    _by: Accessor,
) -> Result<Vec<[u32; 64]>, Violation> {
    let info = op.info();
    let size = 4 * info.src[1] as usize;
    let operation = ds_operation(info.name)?;
    let mut out = vec![[0u32; 64]; info.dst as usize];
    for lane in (0..64).filter(|&l| exec >> l & 1 != 0) {
        let address = addr[lane].wrapping_add(offset as u32);
        if !(address as usize).is_multiple_of(size) {
            return Err(Violation::Memory {
                lane: Some(lane as u32),
                address: address as u64,
                message: format!("LDS atomic of {size} bytes not aligned to its size"),
            });
        }
        let value = |first: usize| {
            (0..size / 4).fold(0u64, |v, w| v | (data[first + w][lane] as u64) << (32 * w))
        };
        let words = size / 4;
        // `ds_cmpst_*`: DATA0 is compared, DATA1 written (the global `cmpswap` takes them
        // the other way round).
        let (src, cmp) = match operation {
            "cmpswap" => (value(words), value(0)),
            _ => (value(0), 0),
        };
        let in_range = address
            .checked_add(size as u32)
            .is_some_and(|end| end <= bound);
        let old = if in_range {
            lds.update(address, size, |old| {
                super::atomics::apply_named(operation, old, src, cmp, size)
            })?
        } else {
            0
        };
        for (w, dst) in out.iter_mut().enumerate() {
            dst[lane] = (old >> (32 * w)) as u32;
        }
    }
    Ok(out)
}

/// The operation of a DS atomic by its mnemonic, in the global atomics' names
/// (`atomics::apply_named`): `ds_min_rtn_i32` is `smin`, `ds_wrxchg_rtn_b32` `swap`.
fn ds_operation(name: &str) -> Result<&'static str, Violation> {
    let rest = name.strip_prefix("ds_").unwrap_or(name).replace("_rtn", "");
    let (operation, ty) = rest.rsplit_once('_').unwrap_or((rest.as_str(), ""));
    let signed = ty.starts_with('i');
    Ok(match operation {
        "add" => "add",
        "sub" => "sub",
        "min" if signed => "smin",
        "min" => "umin",
        "max" if signed => "smax",
        "max" => "umax",
        "and" => "and",
        "or" => "or",
        "xor" => "xor",
        "wrxchg" => "swap",
        "cmpst" => "cmpswap",
        _ => {
            return Err(Violation::Unsupported(format!(
                "{name} is not a simulated LDS atomic"
            )));
        }
    })
}

/// The values the active lanes of `exec` receive from a lane permute `op` with `offset`,
/// `addr` (the ADDR field's VGPR: the data itself for `ds_swizzle_b32`) and `data` (DATA0,
/// the permutes' data); inactive lanes' entries are 0 and are not written.
pub(crate) fn permute(
    op: Op,
    offset: u16,
    addr: &[u32; 64],
    data: &[u32; 64],
    exec: u64,
    generation: Gen,
) -> Result<[u32; 64], Violation> {
    let active = |lane: usize| exec >> lane & 1 != 0;
    let mut out = [0u32; 64];
    match op {
        Op::DsSwizzleB32 => {
            if generation >= Gen::Gfx9 && offset >= 0xc000 {
                return Err(Violation::Unsupported(format!(
                    "ds_swizzle_b32 offset {offset:#x}: the rotate and FFT modes are not modelled"
                )));
            }
            for (lane, value) in out.iter_mut().enumerate() {
                let from = swizzle_source(offset, lane);
                if active(lane) && active(from) {
                    *value = addr[from];
                }
            }
        }
        Op::DsBpermuteB32 => {
            for (lane, value) in out.iter_mut().enumerate() {
                let from = target_lane(addr[lane], offset);
                if active(lane) && active(from) {
                    *value = data[from];
                }
            }
        }
        Op::DsPermuteB32 => {
            let mut sent = [0u32; 64];
            for lane in (0..64).filter(|&l| active(l)) {
                sent[target_lane(addr[lane], offset)] = data[lane];
            }
            for (lane, value) in out.iter_mut().enumerate() {
                if active(lane) {
                    *value = sent[lane];
                }
            }
        }
        other => {
            return Err(Violation::Unsupported(format!(
                "{} is not a lane permute",
                other.info().name
            )));
        }
    }
    Ok(out)
}

/// The lane a byte address names: the 32-bit sum divided by 4, modulo 64.
fn target_lane(addr: u32, offset: u16) -> usize {
    (addr.wrapping_add(offset as u32) / 4 % 64) as usize
}

/// The lane `lane` reads in `ds_swizzle_b32`'s basic modes.
fn swizzle_source(offset: u16, lane: usize) -> usize {
    let offset = offset as usize;
    if offset & 0x8000 != 0 {
        let within = offset >> (2 * (lane & 3)) & 3;
        lane & !3 | within
    } else {
        let (and, or, xor) = (offset & 0x1f, offset >> 5 & 0x1f, offset >> 10 & 0x1f);
        lane & 0x20 | ((lane & 0x1f & and) | or) ^ xor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u64 = !0;

    fn lanes(f: impl Fn(usize) -> u32) -> [u32; 64] {
        std::array::from_fn(f)
    }

    /// 100 + lane: which lane a value came from.
    fn values() -> [u32; 64] {
        lanes(|l| 100 + l as u32)
    }

    #[test]
    fn swizzle_quad_mode() {
        // offset[15] set, lanes of each quad read [1, 0, 3, 2] (the manual's "thread0
        // grabs thread1, thread4 grabs thread5"): offset[1:0] = 1, [3:2] = 0, [5:4] = 3,
        // [7:6] = 2.
        let offset = 0x8000 | 1 | 3 << 4 | 2 << 6;
        let out = permute(
            Op::DsSwizzleB32,
            offset,
            &values(),
            &[0; 64],
            ALL,
            Gen::Gfx6,
        )
        .unwrap();
        assert_eq!(&out[0..8], &[101, 100, 103, 102, 105, 104, 107, 106]);
        // Lane 5 inactive: lane 4 reads 0, lane 5 is not written (0 here).
        let out = permute(
            Op::DsSwizzleB32,
            offset,
            &values(),
            &[0; 64],
            ALL & !(1 << 5),
            Gen::Gfx8,
        )
        .unwrap();
        assert_eq!(&out[4..8], &[0, 0, 107, 106]);
    }

    #[test]
    fn swizzle_bit_mode_stays_in_its_half() {
        // The manual's SWAPX16 (xor 0x10, and 0x1f): lane 3 reads 19, lane 35 reads 51.
        let swap16 = 0x1f | 0x10 << 10;
        let out = permute(
            Op::DsSwizzleB32,
            swap16,
            &values(),
            &[0; 64],
            ALL,
            Gen::Gfx7,
        )
        .unwrap();
        assert_eq!((out[3], out[19], out[35], out[51]), (119, 103, 151, 135));
        // REVERSEX32 (xor 0x1f): lane 0 reads 31, lane 32 reads 63.
        let rev = 0x1f | 0x1f << 10;
        let out = permute(Op::DsSwizzleB32, rev, &values(), &[0; 64], ALL, Gen::Gfx9).unwrap();
        assert_eq!((out[0], out[31], out[32], out[63]), (131, 100, 163, 132));
        // BCASTX4 of thread 2 (and 0x1c, or 2): lanes 4..8 read lane 6.
        let bcast = 0x1c | 2 << 5;
        let out = permute(Op::DsSwizzleB32, bcast, &values(), &[0; 64], ALL, Gen::Gfx8).unwrap();
        assert_eq!(&out[4..8], &[106; 4]);
        // gfx9's rotate mode is refused, not guessed.
        assert!(
            permute(
                Op::DsSwizzleB32,
                0xc020,
                &values(),
                &[0; 64],
                ALL,
                Gen::Gfx9
            )
            .is_err()
        );
    }

    #[test]
    fn bpermute_follows_the_manual_example() {
        // Vega manual, DS_BPERMUTE_B32 (4-lane example, data {A, B, C, D}, addresses {0, 0,
        // 12, 4}): EXEC = 0xF gives {A, A, D, B}; EXEC = 0xA gives {-, 0, -, B}.
        let mut addr = [0u32; 64];
        addr[..4].copy_from_slice(&[0, 0, 12, 4]);
        let data = lanes(|l| 10 + l as u32);
        let out = permute(Op::DsBpermuteB32, 0, &addr, &data, 0xf, Gen::Gfx8).unwrap();
        assert_eq!(&out[..4], &[10, 10, 13, 11]);
        let out = permute(Op::DsBpermuteB32, 0, &addr, &data, 0xa, Gen::Gfx8).unwrap();
        assert_eq!(&out[..4], &[0, 0, 0, 11]);
    }

    #[test]
    fn bpermute_addresses_wrap() {
        // The lane is the byte address / 4 modulo 64: 256 + 8 is lane 2, 0xffff_fffc lane
        // 63; the offset is added (with 32-bit wrap-around) before dividing.
        let mut addr = [0u32; 64];
        addr[0] = 256 + 8;
        addr[1] = 0xffff_fffc;
        addr[2] = 0xffff_fffc;
        addr[3] = 5;
        let out = permute(Op::DsBpermuteB32, 0, &addr, &values(), ALL, Gen::Gfx9).unwrap();
        assert_eq!(&out[..4], &[102, 163, 163, 101]);
        let out = permute(Op::DsBpermuteB32, 8, &addr, &values(), ALL, Gen::Gfx9).unwrap();
        assert_eq!(&out[..4], &[104, 101, 101, 103]);
    }

    #[test]
    fn permute_follows_the_manual_example() {
        // Vega manual, DS_PERMUTE_B32: EXEC = 0xF gives {B, D, 0, C}; EXEC = 0xA gives
        // {-, D, -, 0}.
        let mut addr = [0u32; 64];
        addr[..4].copy_from_slice(&[0, 0, 12, 4]);
        let data = lanes(|l| 10 + l as u32);
        let out = permute(Op::DsPermuteB32, 0, &addr, &data, 0xf, Gen::Gfx8).unwrap();
        assert_eq!(&out[..4], &[11, 13, 0, 12]);
        let out = permute(Op::DsPermuteB32, 0, &addr, &data, 0xa, Gen::Gfx8).unwrap();
        assert_eq!(&out[..4], &[0, 13, 0, 0]);
    }

    fn by(wave: u32) -> Accessor {
        Accessor { wave, pc: 0x40 }
    }

    /// Lane l writes 100 + l at 4 l with `ds_write_b32`, every lane active.
    fn write_words(lds: &mut Lds, bound: u32, wave: u32) -> Result<(), Violation> {
        let addr = lanes(|l| 4 * l as u32);
        access(
            lds,
            Op::DsWriteB32,
            0,
            &addr,
            &[values()],
            ALL,
            bound,
            by(wave),
        )
        .map(|_| ())
    }

    #[test]
    fn the_allocation_is_whole_granules() {
        assert_eq!(Lds::new(1, Gen::Gfx6).size(), 256);
        assert_eq!(Lds::new(1, Gen::Gfx7).size(), 512);
        assert_eq!(Lds::new(512, Gen::Gfx9).size(), 512);
        assert_eq!(Lds::new(0, Gen::Gfx8).size(), 0);
    }

    /// Past the bound a read gives 0 and a write does nothing (the SI and GCN3 manuals' LDS chapter).
    #[test]
    fn out_of_range_reads_give_zero_and_writes_are_dropped() {
        let mut lds = Lds::new(256, Gen::Gfx6);
        // A bound (M0) of 64 bytes: lanes 0-15 write, the others are out of range.
        write_words(&mut lds, 64, 0).unwrap();
        let addr = lanes(|l| 4 * l as u32);
        let out = access(&mut lds, Op::DsReadB32, 0, &addr, &[], ALL, 256, by(0)).unwrap();
        assert_eq!(out[0][15], 115);
        assert_eq!(out[0][16], 0);
        // Through the offset, with a bound of 8 bytes: lane 0 reads word 1, lane 1 is out.
        let out = access(&mut lds, Op::DsReadB32, 4, &addr, &[], 0b11, 8, by(0)).unwrap();
        assert_eq!(&out[0][..2], &[101, 0]);
    }

    #[test]
    fn read2_reads_two_dwords_and_sign_extends_nothing() {
        let mut lds = Lds::new(256, Gen::Gfx8);
        write_words(&mut lds, 256, 0).unwrap();
        let addr = lanes(|_| 8);
        let out = access(
            &mut lds,
            Op::DsRead2B32,
            3 | 5 << 8,
            &addr,
            &[],
            1,
            256,
            by(0),
        );
        let out = out.unwrap();
        assert_eq!((out[0][0], out[1][0]), (105, 107));
        let bytes = lanes(|_| 0xff80);
        let addr = lanes(|_| 0);
        access(&mut lds, Op::DsWriteB16, 0, &addr, &[bytes], 1, 256, by(0)).unwrap();
        let out = access(&mut lds, Op::DsReadI16, 0, &addr, &[], 1, 256, by(0)).unwrap();
        assert_eq!(out[0][0], 0xffff_ff80);
        let out = access(&mut lds, Op::DsReadU8, 1, &addr, &[], 1, 256, by(0)).unwrap();
        assert_eq!(out[0][0], 0xff);
    }

    #[test]
    fn misaligned_accesses_are_reported() {
        let mut lds = Lds::new(256, Gen::Gfx9);
        let addr = lanes(|_| 4);
        let error = access(&mut lds, Op::DsReadB64, 0, &addr, &[], 1, 256, by(0));
        assert!(matches!(error, Err(Violation::Memory { address: 4, .. })));
    }

    /// Two waves writing one byte, or one writing what the other read, in one barrier
    /// interval race; a new interval (a barrier passed) or one wave alone do not.
    #[test]
    fn races_between_waves_are_reported_within_an_interval() {
        let mut lds = Lds::new(256, Gen::Gfx9);
        write_words(&mut lds, 256, 0).unwrap();
        write_words(&mut lds, 256, 0).unwrap();
        let error = write_words(&mut lds, 256, 1).unwrap_err();
        assert!(format!("{error:?}").contains("data race"), "{error:?}");
        lds.races.epoch += 1;
        write_words(&mut lds, 256, 1).unwrap();
        let addr = lanes(|_| 0);
        lds.races.epoch += 1;
        access(&mut lds, Op::DsReadB32, 0, &addr, &[], 1, 256, by(2)).unwrap();
        let error = access(
            &mut lds,
            Op::DsWriteB8,
            3,
            &addr,
            &[values()],
            1,
            256,
            by(3),
        );
        assert!(format!("{error:?}").contains("data race"), "{error:?}");
    }
}
