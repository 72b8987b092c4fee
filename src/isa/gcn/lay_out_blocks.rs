//! Block layout: the allocated blocks, in order, to one MC instruction stream. Blocks
//! that only jump elsewhere disappear (branches to them go to their target), a jump to the
//! next block is dropped, and each uniform or EXEC branch takes the form that falls
//! through to the next block. Branches name their target block until
//! [`emit::assemble`] resolves them.

use super::emit;
use super::inst::Inst;
use super::mc::{ExpTarget, Gen, McInst, Op};

/// Turns the allocated code of each block (in layout order) into MC instructions, and
/// returns where each block starts (`None` for blocks that only forward to another and
/// emit nothing). Branch instructions carry their target block's index in `imm` until
/// [`emit::assemble`] replaces it with the offset. A jump to the next block is omitted, and
/// branches to a block that is only a jump go to that jump's target directly.
pub fn run(
    blocks: &[Vec<Inst>],
    generation: Gen,
) -> Result<(Vec<McInst>, Vec<Option<usize>>), String> {
    let forwards = |b: usize| match blocks[b].as_slice() {
        [Inst::Jump { target }] if b != 0 => Some(*target),
        _ => None,
    };
    let resolve = |mut b: usize| {
        for _ in 0..blocks.len() {
            match forwards(b) {
                Some(t) => b = t,
                None => break,
            }
        }
        b
    };
    let emitted: Vec<usize> = (0..blocks.len())
        .filter(|&b| forwards(b).is_none())
        .collect();
    let mut out = Vec::new();
    let mut starts = vec![None; blocks.len()];
    let mut discards = false;
    for (k, &b) in emitted.iter().enumerate() {
        starts[b] = Some(out.len());
        let next = emitted.get(k + 1).copied();
        let mut body = Vec::new();
        let mut branches = Vec::new();
        for inst in &blocks[b] {
            match *inst {
                Inst::Jump { target } => {
                    let t = resolve(target);
                    if Some(t) != next {
                        branches.push((Op::SBranch, t));
                    }
                }
                Inst::BrScc {
                    cmp,
                    a,
                    b: rhs,
                    taken,
                    not_taken,
                } => {
                    body.push(emit::scalar_compare(cmp, a, rhs, generation));
                    let (t, f) = (resolve(taken), resolve(not_taken));
                    if Some(t) == next {
                        branches.push((Op::SCbranchScc0, f));
                    } else {
                        branches.push((Op::SCbranchScc1, t));
                        if Some(f) != next {
                            branches.push((Op::SBranch, f));
                        }
                    }
                }
                Inst::BrExecnz { taken, not_taken } => {
                    let (t, f) = (resolve(taken), resolve(not_taken));
                    if Some(t) == next {
                        branches.push((Op::SCbranchExecz, f));
                    } else {
                        branches.push((Op::SCbranchExecnz, t));
                        if Some(f) != next {
                            branches.push((Op::SBranch, f));
                        }
                    }
                }
                Inst::BrExecz { target } => branches.push((Op::SCbranchExecz, resolve(target))),
                // No lane left: to the tail, past the last block.
                Inst::Discard { .. } => {
                    body.extend(emit::lower_to_mc(std::slice::from_ref(inst), generation)?);
                    body.push(emit::branch_to_block(
                        Op::SCbranchScc0,
                        blocks.len(),
                        generation,
                    ));
                    discards = true;
                }
                _ => body.extend(emit::lower_to_mc(std::slice::from_ref(inst), generation)?),
            }
        }
        out.extend(body);
        for (op, target) in branches {
            out.push(emit::branch_to_block(op, target, generation));
        }
    }
    if discards {
        // The wave whose lanes all discarded ends (EXEC is 0: `vm` kills every pixel) with
        // the one `done` export a pixel wave must make.
        starts.push(Some(out.len()));
        let tail = [
            Inst::Export {
                target: ExpTarget::Null,
                src: [None; 4],
                done: true,
                compr: false,
            },
            Inst::EndPgm,
        ];
        out.extend(emit::lower_to_mc(&tail, generation)?);
    }
    Ok((out, starts))
}
