//! The simulated global address space: allocated regions, everything else faults.

/// Byte-addressed global memory made of allocated regions. Addresses start at
/// `0x1_0000_0000` (so a 32-bit truncation of a pointer is caught), regions are 256-byte
/// aligned and separated by unmapped gaps, and any access outside a region is an error.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    regions: Vec<(u64, Vec<u8>)>,
}

const BASE: u64 = 0x1_0000_0000;
const GAP: u64 = 0x1000;

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Allocates a region holding `bytes` and returns its address.
    pub fn alloc(&mut self, bytes: &[u8]) -> u64 {
        let next = self
            .regions
            .last()
            .map_or(BASE, |(base, data)| base + data.len() as u64 + GAP);
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
    }
}
