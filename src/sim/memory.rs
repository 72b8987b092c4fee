//! The simulated global address space: allocated regions, everything else faults. Every
//! target's simulator uses it; where its addresses start is the target's
//! ([`Simulator::memory`](super::Simulator::memory)).

/// Byte-addressed global memory made of allocated regions. Addresses start at a base
/// (`0x1_0000_0000` for targets with 64-bit addresses, so that a 32-bit truncation of a
/// pointer is caught), regions are 256-byte aligned and separated by unmapped gaps, and
/// any access outside a region is an error.
#[derive(Clone, Debug)]
pub struct Memory {
    base: u64,
    regions: Vec<(u64, Vec<u8>)>,
}

/// Where the regions of [`Memory::new`] start: above 4 GiB.
const WIDE_BASE: u64 = 0x1_0000_0000;
const GAP: u64 = 0x1000;

impl Default for Memory {
    fn default() -> Memory {
        Memory::with_base(WIDE_BASE)
    }
}

impl Memory {
    /// Memory for 64-bit addresses: regions from `0x1_0000_0000` on.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Memory whose first region starts at `base` (rounded up to 256 bytes): for a
    /// target whose addresses are narrower than 64 bits.
    pub fn with_base(base: u64) -> Memory {
        Memory {
            base,
            regions: Vec::new(),
        }
    }

    /// Allocates a region holding `bytes` and returns its address.
    pub fn alloc(&mut self, bytes: &[u8]) -> u64 {
        let next = self
            .regions
            .last()
            .map_or(self.base, |(base, data)| base + data.len() as u64 + GAP);
        let base = next.next_multiple_of(256);
        self.regions.push((base, bytes.to_vec()));
        base
    }

    /// Allocates `len` zero bytes and returns their address.
    pub fn alloc_zeroed(&mut self, len: usize) -> u64 {
        self.alloc(&vec![0; len])
    }

    /// The region holding `address..address + len` and the offset in it. Regions are
    /// allocated at increasing addresses, so a binary search finds the candidate.
    fn region(&self, address: u64, len: usize) -> Option<(usize, usize)> {
        let i = self
            .regions
            .partition_point(|(base, _)| *base <= address)
            .checked_sub(1)?;
        let (base, data) = &self.regions[i];
        let offset = address - base;
        (offset.checked_add(len as u64)? <= data.len() as u64).then_some((i, offset as usize))
    }

    /// The `len` bytes at `address`, if they all lie in one region.
    pub fn read(&self, address: u64, len: usize) -> Option<&[u8]> {
        let (i, offset) = self.region(address, len)?;
        Some(&self.regions[i].1[offset..offset + len])
    }

    /// Writes `bytes` at `address`; `None` if they do not all lie in one region.
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Option<()> {
        let (i, offset) = self.region(address, bytes.len())?;
        self.regions[i].1[offset..offset + bytes.len()].copy_from_slice(bytes);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_faults() {
        let mut m = Memory::new();
        let a = m.alloc(&[1, 2, 3, 4]);
        let b = m.alloc_zeroed(8);
        assert!(b > a + 4);
        assert_eq!(m.read(a + 1, 2), Some(&[2u8, 3][..]));
        assert_eq!(m.read(a + 3, 2), None, "crosses the end");
        assert_eq!(m.read(a - 1, 1), None);
        assert_eq!(m.write(b + 4, &[9; 4]), Some(()));
        assert_eq!(m.read(b, 8), Some(&[0u8, 0, 0, 0, 9, 9, 9, 9][..]));
        assert_eq!(m.write(b + 5, &[0; 4]), None);
        assert_eq!(a, 0x1_0000_0000);
        assert_eq!(Memory::with_base(0x1001).alloc(&[0]), 0x1100);
    }
}
