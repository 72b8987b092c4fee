//! The data-race check of a work-group's shared memory (GCN's LDS, NV50's `s[]`): who last
//! wrote and who read each byte in the current barrier interval (`epoch`, counted up as
//! each barrier releases). An access by one wave (warp) to a byte another wave wrote, or a
//! write to a byte another read, in the same interval is a race: nothing orders them.

use super::Violation;

/// The record of one memory's accesses.
pub(crate) struct RaceCheck {
    /// The memory's name in messages (`LDS`, `s[]`).
    memory: &'static str,
    /// What runs in lockstep (`wave`, `warp`), in messages.
    unit: &'static str,
    writer: Vec<Option<Access>>,
    /// The epoch of `readers[b]` and the set of waves (bit w) that read byte b in it.
    readers: Vec<(u32, u64)>,
    /// The pc of the last read of each byte.
    read_at: Vec<u32>,
    pub epoch: u32,
}

#[derive(Copy, Clone)]
struct Access {
    wave: u32,
    epoch: u32,
    pc: u32,
}

/// Which wave (warp) accesses the memory, from which instruction. At most 64 of them.
#[derive(Copy, Clone)]
pub(crate) struct Accessor {
    pub wave: u32,
    pub pc: u32,
}

impl RaceCheck {
    /// The record of `size` bytes, none accessed yet.
    pub fn new(memory: &'static str, unit: &'static str, size: usize) -> RaceCheck {
        RaceCheck {
            memory,
            unit,
            writer: vec![None; size],
            readers: vec![(0, 0); size],
            read_at: vec![0; size],
            epoch: 0,
        }
    }

    /// Records a read of `len` bytes at `address` (in range).
    pub fn read(&mut self, address: u32, len: usize, by: Accessor) -> Result<(), Violation> {
        for b in address as usize..address as usize + len {
            if let Some(w) = self.writer[b]
                && w.epoch == self.epoch
                && w.wave != by.wave
            {
                return Err(self.race(b, "read", by, w.wave, w.pc));
            }
            let (epoch, waves) = &mut self.readers[b];
            if *epoch != self.epoch {
                *epoch = self.epoch;
                *waves = 0;
            }
            *waves |= 1 << by.wave;
            self.read_at[b] = by.pc;
        }
        Ok(())
    }

    /// Records a write of `len` bytes at `address` (in range).
    pub fn write(&mut self, address: u32, len: usize, by: Accessor) -> Result<(), Violation> {
        for b in address as usize..address as usize + len {
            if let Some(w) = self.writer[b]
                && w.epoch == self.epoch
                && w.wave != by.wave
            {
                return Err(self.race(b, "write", by, w.wave, w.pc));
            }
            let (epoch, waves) = self.readers[b];
            let others = waves & !(1 << by.wave);
            if epoch == self.epoch && others != 0 {
                let reader = others.trailing_zeros();
                return Err(self.race(b, "write", by, reader, self.read_at[b]));
            }
            self.writer[b] = Some(Access {
                wave: by.wave,
                epoch: self.epoch,
                pc: by.pc,
            });
        }
        Ok(())
    }

    fn race(&self, byte: usize, what: &str, by: Accessor, other: u32, other_pc: u32) -> Violation {
        let (memory, unit) = (self.memory, self.unit);
        Violation::Other(format!(
            "data race on {memory} byte {byte:#x}: {unit} {} {what}s it after {unit} {other} \
             accessed it (at {other_pc:#x}) with no barrier between them",
            by.wave
        ))
    }
}
