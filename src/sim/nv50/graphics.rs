//! What vertex and fragment programs read and write besides registers: a vertex's `a[]`
//! input words and `o[]` output words, and the `v[]` planes `interp` evaluates in a
//! fragment program. The model and its sources: `docs/nv50.md`, "Graphics stages", and
//! `docs/simulator.md`.

use super::float::{self, Mode};
use super::warp::WARP_THREADS;

/// One `v[]` word of a primitive: `base + dx·x + dy·y` at the fragment's position
/// (`isa.rst`: "three words stored in MP for each v[] word (base, dx, dy)"). A flat read
/// returns `base`'s bits unchanged, so `base` also carries the provoking vertex's word of
/// a flat (integer) input.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Plane {
    pub base: u32,
    pub dx: f32,
    pub dy: f32,
}

/// A fragment program's inputs: the planes of `v[]` (word k at `v[4k]`), its user data, and
/// each lane's position, at the pixel centre and at the centroid of its covered samples.
pub struct Fragments {
    pub planes: Vec<Plane>,
    /// The program's user data: the words of `c0[]`.
    pub user_data: Vec<u32>,
    pub center: [(f32, f32); WARP_THREADS],
    pub centroid: [(f32, f32); WARP_THREADS],
}

/// A vertex program's words: per thread its `a[]` inputs (word k at `a[4k]`), its user data,
/// and the
/// `o[]` outputs it wrote (word k at `o[4k]`; `None` where nothing was written).
pub struct Vertices {
    pub attrs: Vec<Vec<u32>>,
    /// The program's user data: the words of `c0[]`.
    pub user_data: Vec<u32>,
    pub outputs: Vec<Vec<Option<u32>>>,
}

/// The graphics state of a program that is not a compute kernel.
pub enum Stage {
    Vertex(Vertices),
    Fragment(Box<Fragments>),
}

impl Fragments {
    /// `interp` in lane `t` of the word at `v[offset]`: flat, or the plane at the centre or
    /// centroid, then times `times` when the form has a source. The plane is evaluated as
    /// `(base + dx·x) + dy·y` in f32, each step rounded to nearest (the hardware's internal
    /// precision is not documented); the product is Tesla's f32 `mul` (`float::f32_mul`).
    pub(crate) fn interp(
        &self,
        offset: u32,
        t: usize,
        centroid: bool,
        flat: bool,
        times: Option<u32>,
    ) -> Result<u32, String> {
        let plane = self
            .planes
            .get(offset as usize / 4)
            .ok_or(format!("v[{offset:#x}] is not an input of the primitive"))?;
        if flat {
            return Ok(plane.base);
        }
        let (x, y) = if centroid {
            self.centroid[t]
        } else {
            self.center[t]
        };
        let value = (f32::from_bits(plane.base) + plane.dx * x) + plane.dy * y;
        Ok(match times {
            Some(w) => float::f32_mul(value.to_bits(), w, Mode::Rn),
            None => value.to_bits(),
        })
    }
}

impl Vertices {
    /// Thread `t`'s `a[offset]`.
    pub(crate) fn attr(&self, offset: u32, t: usize) -> Result<u32, String> {
        self.attrs
            .get(t)
            .and_then(|a| a.get(offset as usize / 4))
            .copied()
            .ok_or(format!("a[{offset:#x}] is not an input of thread {t}"))
    }

    /// Writes thread `t`'s `o[offset]`.
    pub(crate) fn write(&mut self, offset: u32, t: usize, value: u32) -> Result<(), String> {
        let words = self
            .outputs
            .get_mut(t)
            .ok_or(format!("thread {t} has no outputs"))?;
        let k = offset as usize / 4;
        if k >= words.len() {
            return Err(format!("o[{offset:#x}] is beyond the program's outputs"));
        }
        words[k] = Some(value);
        Ok(())
    }
}
