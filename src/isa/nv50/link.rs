//! Linking the NV50 functions of a module that call one another (`docs/ir.md`, "Calls"):
//! each call site ([`CallSite`], in [`Nv50Info::calls`]) is a `call` whose absolute target
//! linking writes, and each function's `l[]` frame is placed at a fixed offset computed
//! from the call graph — NV50 has no stack pointer, and `l[]` addresses are offsets in the
//! instruction — by adding it to the offset field of every `l[]` access the function lists
//! ([`Nv50Info::frame_accesses`]). A function's frame starts past the frame of every
//! function that calls it, directly or not, so frames on one chain of calls never overlap,
//! and functions on different chains share `l[]`: a static layout, which recursion would
//! make impossible (it is an error).

use super::Nv50Info;
use super::abi::WORKGROUP_BASE;
use super::lower::LOCAL_LIMIT;
use super::mc::{self, Operand, Variant};
use super::reconverge::STACK_ENTRIES;
use crate::{CompiledCode, TargetInfo};

/// A call in compiled code: where its `call` is, the callee's symbol, and the
/// reconvergence-stack entries the callee starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The byte offset of the `call` in the function's code.
    pub offset: u32,
    /// The function called (its CLIF name without `%`).
    pub callee: String,
    /// The entries on the warp's stack when the callee starts: the caller's pending ones
    /// at the call and the call's own.
    pub depth: u32,
}

/// Where the frames of a module's functions go and what each function needs with every
/// function it calls, directly or not.
pub struct Layout {
    /// Each function's frame offset in `l[]` (0 for a function no one calls).
    pub frame_base: Vec<u32>,
    /// Each function's callees, by index, per call site.
    callees: Vec<Vec<usize>>,
    /// The functions in an order where each comes before those it calls.
    order: Vec<usize>,
}

impl Layout {
    /// Lays out the frames of `functions` (symbol and information each) that `roots`
    /// reach. A callee missing from them, or recursion, is an error naming it.
    pub fn new(functions: &[(&str, &Nv50Info)], roots: &[usize]) -> Result<Layout, String> {
        let mut callees = Vec::with_capacity(functions.len());
        for &(name, info) in functions {
            let sites = info
                .calls
                .iter()
                .map(|site| {
                    functions
                        .iter()
                        .position(|(n, _)| *n == site.callee)
                        .ok_or_else(|| {
                            format!("`{name}` calls `{}`, which the module lacks", site.callee)
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            callees.push(sites);
        }
        // Depth-first from the roots: the path finds recursion, the postorder reversed is
        // an order with callers first.
        let mut post = Vec::new();
        let mut done = vec![false; functions.len()];
        for &root in roots {
            visit(
                functions,
                &callees,
                root,
                &mut Vec::new(),
                &mut done,
                &mut post,
            )?;
        }
        post.reverse();
        let mut frame_base = vec![0u32; functions.len()];
        for &f in &post {
            let end = frame_base[f] + functions[f].1.local_size;
            for &c in &callees[f] {
                frame_base[c] = frame_base[c].max(end);
            }
        }
        Ok(Layout {
            frame_base,
            callees,
            order: post,
        })
    }

    /// What function `f` needs with every function it reaches: `l[]` per thread up to the
    /// end of the last frame, the most `$r` any of them uses, `s[]`, and the deepest
    /// stack. An error when they exceed what the hardware has, or when a function's
    /// cross-lane scratch area lies in another's workgroup segment.
    pub fn needs(&self, functions: &[(&str, &Nv50Info)], f: usize) -> Result<Nv50Info, String> {
        let mut reached = vec![f];
        let mut next = 0;
        while next < reached.len() {
            for &c in &self.callees[reached[next]] {
                if !reached.contains(&c) {
                    reached.push(c);
                }
            }
            next += 1;
        }
        let (name, own) = functions[f];
        let mut info = own.clone();
        for &g in &reached {
            let other = functions[g].1;
            let end = self.frame_base[g] + other.local_size;
            info.local_size = info.local_size.max(end);
            info.gprs = info.gprs.max(other.gprs);
            info.shared_size = info.shared_size.max(other.shared_size);
            info.workgroup_size = info.workgroup_size.max(other.workgroup_size);
            info.scratch_size = info.scratch_size.max(other.scratch_size);
            info.spills = info.spills.max(other.spills);
        }
        if info.local_size > LOCAL_LIMIT {
            return Err(format!(
                "`{name}` and the functions it calls need {} bytes of `l[]` per thread on \
                 their deepest chain of calls: a thread addresses at most {LOCAL_LIMIT:#x}",
                info.local_size
            ));
        }
        // The cross-lane scratch area follows the caller's own workgroup segment
        // (`lower/cross_lane.rs`): it must not lie in a larger one of the chain.
        let segment_end = WORKGROUP_BASE + info.workgroup_size.next_multiple_of(4);
        for &g in &reached {
            let (other, o) = functions[g];
            if o.scratch_size > 0
                && WORKGROUP_BASE + o.workgroup_size.next_multiple_of(4) < segment_end
            {
                return Err(format!(
                    "`{other}` uses the cross-lane intrinsics' scratch area after a workgroup \
                     segment of {} bytes, inside the {} bytes `{name}` and the functions it \
                     calls use: declare the same segment size in each",
                    o.workgroup_size, info.workgroup_size
                ));
            }
        }
        let depth = self.stack_depth(functions, f);
        if depth > STACK_ENTRIES as u32 {
            return Err(format!(
                "`{name}` and the functions it calls may need {depth} entries of the \
                 reconvergence stack, which holds {STACK_ENTRIES} (each call takes one, besides \
                 the divergent branches and loops pending at it)"
            ));
        }
        info.stack_depth = depth;
        Ok(info)
    }

    /// The most reconvergence-stack entries `f` and its callees may need.
    fn stack_depth(&self, functions: &[(&str, &Nv50Info)], f: usize) -> u32 {
        let info = functions[f].1;
        info.calls
            .iter()
            .zip(&self.callees[f])
            .map(|(site, &c)| site.depth + self.stack_depth(functions, c))
            .fold(info.stack_depth, u32::max)
    }
}

fn visit(
    functions: &[(&str, &Nv50Info)],
    callees: &[Vec<usize>],
    f: usize,
    path: &mut Vec<usize>,
    done: &mut [bool],
    post: &mut Vec<usize>,
) -> Result<(), String> {
    if path.contains(&f) {
        return Err(format!(
            "`{}` calls itself (through {}): recursion is not supported, since each \
             function's `l[]` frame has a fixed place on every chain of calls",
            functions[f].0,
            path.iter()
                .map(|&i| functions[i].0)
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    }
    if done[f] {
        return Ok(());
    }
    path.push(f);
    for &c in &callees[f] {
        visit(functions, callees, c, path, done, post)?;
    }
    path.pop();
    done[f] = true;
    post.push(f);
    Ok(())
}

/// The variant whose codecs rewrite instructions: what linking rewrites (`call`, `bra`,
/// `joinat`, `breakaddr`, `ld`/`st` of `l[]`) encodes alike on every variant (`mc/table.rs`).
const REWRITTEN: Variant = Variant::G80;

/// Rewrites the instruction at byte `at` of `code` with `change` applied to it.
fn rewrite(
    code: &mut [u8],
    at: usize,
    change: impl FnOnce(&mut mc::McInst) -> Result<(), String>,
) -> Result<(), String> {
    let words: Vec<u32> = code[at..]
        .chunks(4)
        .take(2)
        .map(|c| u32::from_le_bytes(c.try_into().expect("code is whole words")))
        .collect();
    let (mut inst, _) = mc::decode_one(&words, REWRITTEN, mc::Program::Compute)
        .map_err(|e| format!("at {at:#x}: {e}"))?;
    change(&mut inst)?;
    for (k, word) in mc::encode(&inst, REWRITTEN)?.into_iter().enumerate() {
        code[at + 4 * k..at + 4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    Ok(())
}

/// Writes the absolute code address `target` into the `call` at byte `at` of `code`.
pub fn patch_call(code: &mut [u8], at: usize, target: u32) -> Result<(), String> {
    rewrite(code, at, |inst| {
        inst.src[0] = Some(Operand::Target(target));
        Ok(())
    })
}

/// Adds `base` to the `l[]` offset of the access at byte `at` of `code`.
pub fn place_frame_access(code: &mut [u8], at: usize, base: u32) -> Result<(), String> {
    rewrite(code, at, |inst| {
        for op in std::iter::once(&mut inst.dst).chain(inst.src.iter_mut()) {
            if let Some(Operand::Local { offset, .. }) = op {
                *offset += base;
                if *offset >= LOCAL_LIMIT {
                    return Err(format!(
                        "an `l[]` offset of {offset:#x} past {LOCAL_LIMIT:#x}"
                    ));
                }
            }
        }
        Ok(())
    })
}

/// Places function `f`'s code at byte `start` of `code` (already copied there): its frame
/// at its offset, its calls at the callees' addresses (`starts`). Returns the call sites'
/// offsets in `code`, which hold absolute targets now.
fn place(
    code: &mut [u8],
    start: usize,
    info: &Nv50Info,
    base: u32,
    callees: &[usize],
    starts: &[usize],
) -> Result<Vec<u32>, String> {
    if base > 0 {
        for &access in &info.frame_accesses {
            place_frame_access(code, start + access as usize, base)?;
        }
    }
    let mut sites = Vec::new();
    for (site, &c) in info.calls.iter().zip(callees) {
        patch_call(code, start + site.offset as usize, starts[c] as u32)?;
        sites.push(start as u32 + site.offset);
    }
    Ok(sites)
}

/// Links function `entry` of `functions` (each with its symbol) with every function it
/// calls into one piece of code for address 0: the entry at offset 0, the callees after
/// it, every call resolved, every frame placed, and the needs of the whole in its
/// information (no calls left in it). What the simulator runs for a function that calls.
pub fn link(functions: &[(&str, &CompiledCode)], entry: usize) -> Result<CompiledCode, String> {
    let infos: Vec<(&str, &Nv50Info)> = functions
        .iter()
        .map(|&(name, compiled)| {
            compiled
                .nv50()
                .map(|info| (name, info))
                .ok_or_else(|| format!("`{name}` is not compiled for NV50"))
        })
        .collect::<Result<_, _>>()?;
    let layout = Layout::new(&infos, &[entry])?;
    let mut info = layout.needs(&infos, entry)?;
    let mut code = Vec::new();
    let mut starts = vec![0; functions.len()];
    for &f in &layout.order {
        // Long instructions and branch targets are 8-byte aligned.
        code.resize(code.len().next_multiple_of(8), 0);
        starts[f] = code.len();
        code.extend_from_slice(&functions[f].1.code);
    }
    let mut relocations = Vec::new();
    for &f in &layout.order {
        let own = infos[f].1;
        relocations.extend(own.relocations.iter().map(|r| starts[f] as u32 + r));
        relocations.extend(place(
            &mut code,
            starts[f],
            own,
            layout.frame_base[f],
            &layout.callees[f],
            &starts,
        )?);
    }
    // Each function's targets were for its own address 0.
    for &f in &layout.order {
        for &r in &infos[f].1.relocations {
            let at = starts[f] + r as usize;
            let shift = starts[f] as u32;
            rewrite(&mut code, at, |inst| {
                if let Some(Some(Operand::Target(t))) = inst.src.first_mut() {
                    *t += shift;
                }
                Ok(())
            })?;
        }
    }
    relocations.sort_unstable();
    info.relocations = relocations;
    info.calls.clear();
    info.frame_accesses.clear();
    Ok(CompiledCode::new(
        code,
        functions[entry].1.kind,
        TargetInfo::Nv50(info),
    ))
}

/// Links a module's functions in place: `code` holds each function at `starts[i]`, as a
/// container's `.text` does; calls get the callees' offsets in it (which a loader
/// relocates like branch targets: they are added to each function's relocations), frames
/// their places. Returns each function's information with its needs.
pub fn link_module(
    code: &mut [u8],
    functions: &[(&str, &Nv50Info)],
    starts: &[usize],
) -> Result<Vec<Nv50Info>, String> {
    let roots: Vec<usize> = (0..functions.len()).collect();
    let layout = Layout::new(functions, &roots)?;
    let mut linked = Vec::new();
    for (f, &(_, own)) in functions.iter().enumerate() {
        let mut info = layout.needs(functions, f)?;
        let sites = place(
            code,
            starts[f],
            own,
            layout.frame_base[f],
            &layout.callees[f],
            starts,
        )?;
        // Relative to the function, as the container's records list them.
        info.relocations
            .extend(sites.iter().map(|s| s - starts[f] as u32));
        info.relocations.sort_unstable();
        info.frame_accesses.clear();
        linked.push(info);
    }
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(local_size: u32, gprs: u32, stack_depth: u32, calls: &[(&str, u32)]) -> Nv50Info {
        Nv50Info {
            gprs,
            relocations: Vec::new(),
            param_size: 0,
            shared_size: 0,
            workgroup_size: 0,
            scratch_size: 0,
            local_size,
            spills: 0,
            calls: calls
                .iter()
                .map(|&(callee, depth)| CallSite {
                    offset: 0,
                    callee: callee.into(),
                    depth,
                })
                .collect(),
            frame_accesses: Vec::new(),
            stack_depth,
            fragment: None,
            vertex: None,
        }
    }

    /// A diamond: `c` is called from `a` and `b`, which `k` calls; `c`'s frame goes past
    /// the deeper of its callers' (`a`'s), and `k` needs up to its end.
    #[test]
    fn a_frame_goes_past_every_caller() {
        let (k, a, b, c) = (
            info(16, 20, 3, &[("a", 2), ("b", 4)]),
            info(32, 8, 1, &[("c", 1)]),
            info(0, 4, 0, &[("c", 1)]),
            info(16, 30, 5, &[]),
        );
        let functions = [("k", &k), ("a", &a), ("b", &b), ("c", &c)];
        let layout = Layout::new(&functions, &[0]).unwrap();
        assert_eq!(layout.frame_base, [0, 16, 16, 48]);
        let needs = layout.needs(&functions, 0).unwrap();
        assert_eq!(needs.local_size, 64);
        assert_eq!(needs.gprs, 30);
        // Through `b` (4) to `c` (1 + 5).
        assert_eq!(needs.stack_depth, 10);
    }

    /// Too deep a chain for the 64 entries of the stack is an error.
    #[test]
    fn the_stack_of_the_deepest_chain_is_checked() {
        let (k, f) = (info(0, 4, 0, &[("f", 40)]), info(0, 4, 30, &[]));
        let functions = [("k", &k), ("f", &f)];
        let layout = Layout::new(&functions, &[0]).unwrap();
        let error = layout.needs(&functions, 0).unwrap_err();
        assert!(error.contains("70 entries"), "{error}");
    }
}
