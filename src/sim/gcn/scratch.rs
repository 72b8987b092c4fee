//! Private memory: MUBUF `offen`/`off` accesses through a buffer resource, with the
//! hardware's address computation (SI ISA 8.1.5 and GCN3 ISA 8.1.5, "Buffer addressing":
//! swizzled buffers).
//!
//! With the scratch resource the dispatcher gives a wave (`dispatch.rs`, `Scratch`:
//! SWIZZLE_ENABLE, stride 0, INDEX_STRIDE 64, ADD_TID_ENABLE, ELEMENT_SIZE 4 bytes, which
//! gfx9 always uses), byte `o` of lane `t`'s private memory is at
//! `base + soffset + (o / 4) * 256 + t * 4 + o % 4`: the lanes' dwords interleave. Each
//! wave has its own part of the scratch memory, `private_segment_size * 64` bytes at its
//! wave offset from the base; an access outside the wave's part is a violation (the
//! hardware would read or write another wave's).

use super::program::{Decoded, RegSet};
use super::waitcnt::{Payload, Pending};
use super::wave::{Env, Wave};
use crate::isa::gcn::mc::{Gen, MubufAddr};
use crate::sim::Violation;

/// How a buffer resource turns an instruction's offset into addresses.
pub(crate) struct BufferAddressing {
    /// The resource's base plus SOFFSET.
    base: u64,
    swizzle: bool,
    stride: u64,
    index_stride: u64,
    element_size: u64,
    add_tid: bool,
}

impl BufferAddressing {
    pub fn new(desc: &[u32], base: u64, generation: Gen) -> BufferAddressing {
        let element_size = if generation >= Gen::Gfx9 {
            4
        } else {
            2 << (desc[3] >> 19 & 3)
        };
        BufferAddressing {
            base,
            swizzle: desc[1] >> 31 != 0,
            stride: (desc[1] >> 16 & 0x3fff) as u64,
            index_stride: 8 << (desc[3] >> 21 & 3),
            element_size,
            add_tid: desc[3] >> 23 & 1 != 0,
        }
    }

    /// The address of byte `offset` (VADDR plus the instruction offset) of `lane`, and
    /// whether an access of `size` bytes from it stays in one element (a swizzled access
    /// that crosses one reaches the next lane's).
    fn address(&self, lane: usize, offset: u32, size: usize) -> (u64, bool) {
        let index = if self.add_tid { lane as u64 } else { 0 };
        let offset = offset as u64;
        if !self.swizzle {
            return (self.base + index * self.stride + offset, true);
        }
        let (index_msb, index_lsb) = (index / self.index_stride, index % self.index_stride);
        let (offset_msb, offset_lsb) = (offset / self.element_size, offset % self.element_size);
        let within = offset_lsb + size as u64 <= self.element_size;
        let at = (index_msb * self.stride + offset_msb * self.element_size) * self.index_stride
            + index_lsb * self.element_size
            + offset_lsb;
        (self.base.wrapping_add(at), within)
    }
}

impl Wave {
    /// A MUBUF `offen`/`off` load or store (EXEC-masked), through `buffer`.
    pub(super) fn buffer_access(
        &mut self,
        d: &Decoded,
        index: u32,
        pc: u32,
        generation: Gen,
        env: &mut Env,
    ) -> Result<(), Violation> {
        let inst = &d.inst;
        let store = d.info.dst == 0;
        let rsrc = inst.src[if store { 2 } else { 1 }]
            .ok_or_else(|| Violation::Other("missing srsrc".into()))?;
        let b = Wave::sreg_index(rsrc.0, 4)?;
        let desc = self.sgpr[b..b + 4].to_vec();
        // gfx6/gfx7 make every access out of range with DATA_FORMAT 0 (SI ISA 8.1.5).
        if generation < Gen::Gfx8 && desc[3] >> 15 & 0xf == 0 {
            return Err(Violation::Other(format!(
                "buffer resource s[{b}:{}] has DATA_FORMAT 0 (invalid)",
                b + 3
            )));
        }
        let base = desc[0] as u64 | ((desc[1] & 0xffff) as u64) << 32;
        let soffset = self.read_scalar(inst.soffset, 1, false, false, None, generation)?;
        let buffer = BufferAddressing::new(&desc, base.wrapping_add(soffset), generation);
        let exec = self.exec();
        let (size, signed) = super::wave::access_size(inst.op, d.info);
        let vaddr = match inst.mubuf {
            MubufAddr::Offen => Some(Wave::vgpr_index(
                inst.src[0].ok_or_else(|| Violation::Other("missing vaddr".into()))?,
                1,
            )?),
            _ => None,
        };
        let scratch = self.scratch.clone();
        let address = |wave: &Wave, lane: usize| -> Result<u64, Violation> {
            let offset = vaddr
                .map_or(0, |v| wave.vgpr[v][lane])
                .wrapping_add(inst.imm as u32);
            let (addr, within) = buffer.address(lane, offset, size.min(4));
            let lane_id = Some(lane as u32);
            if !within || size > 4 && buffer.swizzle {
                return Err(Violation::Memory {
                    lane: lane_id,
                    address: addr,
                    message: format!(
                        "a {size}-byte access at offset {offset} of a swizzled buffer crosses \
                         its {}-byte elements",
                        buffer.element_size
                    ),
                });
            }
            if let Some(part) = &scratch
                && !(part.start <= addr && addr + size as u64 <= part.end)
            {
                return Err(Violation::Memory {
                    lane: lane_id,
                    address: addr,
                    message: format!(
                        "private access at offset {offset} outside the wave's scratch \
                         ({} bytes per lane)",
                        (part.end - part.start) / 64
                    ),
                });
            }
            Ok(addr)
        };
        let fault = |lane: usize, addr: u64| Violation::Memory {
            lane: Some(lane as u32),
            address: addr,
            message: format!("{size}-byte access outside every allocated region"),
        };
        let mut pending = Pending::vector_memory(index, pc);
        if store {
            let data_op = inst.src[1].ok_or_else(|| Violation::Other("missing vdata".into()))?;
            let data = Wave::vgpr_index(data_op, d.info.src[1])?;
            for lane in (0..64).filter(|l| exec >> l & 1 != 0) {
                let addr = address(self, lane)?;
                let bytes = self.vgpr[data][lane].to_le_bytes();
                env.memory
                    .write(addr, &bytes[..size])
                    .ok_or_else(|| fault(lane, addr))?;
            }
            // gfx6: the store holds EXP_CNT until it has read its data VGPRs.
            if generation == Gen::Gfx6 {
                pending.exp = true;
                pending.data = RegSet::range(data_op.0, 1);
            }
        } else {
            let dst = inst
                .dst
                .ok_or_else(|| Violation::Other("missing vdst".into()))?;
            let first = Wave::vgpr_index(dst, 1)?;
            let mut values = vec![[0u32; 64]; 1];
            for lane in (0..64).filter(|l| exec >> l & 1 != 0) {
                let addr = address(self, lane)?;
                let bytes = env
                    .memory
                    .read(addr, size)
                    .ok_or_else(|| fault(lane, addr))?;
                let mut word = [0u8; 4];
                word[..size].copy_from_slice(bytes);
                let value = u32::from_le_bytes(word);
                values[0][lane] = match (size, signed) {
                    (1, true) => value as u8 as i8 as i32 as u32,
                    (2, true) => value as u16 as i16 as i32 as u32,
                    _ => value,
                };
            }
            pending.dst = RegSet::range(256 + first as u16, 1);
            pending.payload = Payload::Vector {
                first: 256 + first as u16,
                lanes: exec,
                values,
            };
        }
        self.complete_or_queue(pending, env);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane t's byte o is at base + (o / 4) * 256 + t * 4 + o % 4, on every generation.
    #[test]
    fn scratch_interleaves_the_lanes_dwords() {
        // The dispatcher's scratch resource (`dispatch.rs`, `Scratch::resource`).
        let desc = [
            0,
            1 | 1 << 31,
            0x1000,
            1 << 19 | 3 << 21 | 1 << 23 | 1 << 15,
        ];
        for generation in [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9] {
            let buffer = BufferAddressing::new(&desc, 0x1_0000_0000 + 0x400, generation);
            assert_eq!(buffer.address(0, 0, 4), (0x1_0000_0400, true));
            assert_eq!(buffer.address(5, 8, 4), (0x1_0000_0400 + 512 + 20, true));
            assert_eq!(
                buffer.address(63, 6, 2),
                (0x1_0000_0400 + 256 + 252 + 2, true)
            );
            // A dword at offset 2 crosses into lane 1's element.
            assert!(!buffer.address(0, 2, 4).1);
        }
    }
}
