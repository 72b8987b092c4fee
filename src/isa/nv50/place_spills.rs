//! The allocator's spills to memory placed (`Inst::Spill`, `Inst::Reload`; after `copies`
//! and `recolor`, which rename registers but keep them): each `$r` slot is a word of the
//! thread's `l[]` after the stack slots, a single spilled with `st b32 l[offset]`, a pair
//! with `b64`, a quad with `b128` (the driver aligns a pair's slot to two words and a
//! quad's to four, and the spill area starts 16-aligned), reloaded with the same `ld`. The
//! offset field holds the whole address, so spill code needs no register of its own. Each
//! thread stores and loads its own `l[]`, in whatever branch it runs: divergent code needs
//! nothing more (unlike GCN's linearized code).

use super::inst::Inst;
use super::lower::LOCAL_LIMIT;
use super::mc::Ty;
use crate::machinst::RegClass;

/// Where the spill slots go and what they take.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillArea {
    /// The `l[]` offset of slot 0.
    pub base: u32,
    /// Words spilled per thread (one past the highest slot used).
    pub words: u32,
}

impl SpillArea {
    /// One past the last byte of `l[]` the spills use (`base` when nothing spills).
    pub fn end(&self) -> u32 {
        self.base + 4 * self.words
    }
}

/// Replaces the spills and reloads of `blocks`, their slots after `stack_size` bytes of
/// stack slots; an error when they would end beyond what a thread can address.
pub fn run(blocks: &mut [Vec<Inst>], stack_size: u32) -> Result<SpillArea, String> {
    let mut area = SpillArea {
        base: stack_size.next_multiple_of(16),
        words: 0,
    };
    for inst in blocks.iter().flatten() {
        if let Inst::Spill { slot, src: reg } | Inst::Reload { dst: reg, slot } = *inst {
            area.words = area.words.max(slot + reg.width() as u32);
        }
    }
    if area.words == 0 {
        return Ok(area);
    }
    if area.end() > LOCAL_LIMIT {
        return Err(format!(
            "{} bytes of stack slots and {} words of spills per thread: a thread addresses \
             at most {LOCAL_LIMIT:#x} bytes of `l[]`",
            stack_size, area.words
        ));
    }
    for inst in blocks.iter_mut().flatten() {
        *inst = match *inst {
            Inst::Spill { slot, src } => Inst::LocalStore {
                ty: word_ty(src.class()),
                data: src,
                addr: None,
                offset: area.base + 4 * slot,
            },
            Inst::Reload { dst, slot } => Inst::LocalLoad {
                ty: word_ty(dst.class()),
                dst,
                addr: None,
                offset: area.base + 4 * slot,
            },
            _ => continue,
        };
    }
    Ok(area)
}

/// The `l[]` unit that holds a register of `class` whole.
fn word_ty(class: RegClass) -> Ty {
    match class {
        RegClass::Int => Ty::B32,
        RegClass::Float => Ty::B64,
        RegClass::Vector => Ty::B128,
    }
}
