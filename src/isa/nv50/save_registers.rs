//! The callee-saved registers of a device function (`docs/ir.md`, "Calls"): every `$r`
//! from `$r16` that the function writes is stored into its `l[]` frame at entry and loaded
//! back before each `ret`, so that its callers find them as they left them. Each thread
//! saves and restores its own: a thread that does not run the function (inactive at the
//! `call`) keeps its registers anyway, since instructions write only the running threads.
//! A function that writes none (a leaf of up to 16 `$r`) saves nothing; the registers
//! that carry results (from `$r16` in a function returning more than 16 words, which no
//! call passes) are not restored.

use super::inst::Inst;
use super::lower::LOCAL_LIMIT;
use super::mc::Ty;
use super::regs::{FIRST_CALLEE_SAVED_GPR, GPR, gpr};
use crate::machinst::{MachInst, OperandKind, Reg, RegClass};
use std::collections::BTreeSet;

/// Saves and restores the callee-saved `$r` that `blocks` (a device function's, block 0
/// its entry) write, in `l[]` from `base` (rounded up to 16); returns the end of the area
/// (`base` when nothing is saved).
pub fn run(blocks: &mut [Vec<Inst>], base: u32) -> Result<u32, String> {
    let mut written = BTreeSet::new();
    for inst in blocks.iter().flatten() {
        inst.clone().visit_operands(&mut |r, kind| {
            let def = !matches!(
                kind,
                OperandKind::Use
                    | OperandKind::LateUse
                    | OperandKind::UseFixed(_)
                    | OperandKind::UseAny
            );
            if def && r.file() == GPR {
                written
                    .extend((r.hw()..r.hw() + r.width()).filter(|&h| h >= FIRST_CALLEE_SAVED_GPR));
            }
        });
    }
    // A function returning more than 16 words (which no call passes, but a loader may run)
    // returns some in registers from `$r16`: they carry results, not the caller's values.
    for inst in blocks.iter().flatten() {
        if let Inst::Ret { uses } = inst {
            for (_, fixed) in uses {
                written.remove(&fixed.hw());
            }
        }
    }
    let Some(&last) = written.last() else {
        return Ok(base);
    };
    // `$rN` at `base + 4 (N - 16)`, `base` 16-aligned: an aligned pair or quad of saved
    // registers is one `b64` or `b128` access.
    let base = base.next_multiple_of(16);
    let words = (last - FIRST_CALLEE_SAVED_GPR + 1) as u32;
    if base + 4 * words > LOCAL_LIMIT {
        return Err(format!(
            "{base} bytes of `l[]` and {words} words of saved registers per thread: a thread \
             addresses at most {LOCAL_LIMIT:#x} bytes of `l[]`"
        ));
    }
    let mut groups = Vec::new();
    let mut hw = FIRST_CALLEE_SAVED_GPR;
    while hw <= last {
        let all = |n: u16| (hw..hw + n).all(|h| written.contains(&h));
        let (reg, ty, n) = if hw.is_multiple_of(4) && all(4) {
            (quad(hw), Ty::B128, 4)
        } else if hw.is_multiple_of(2) && all(2) {
            (pair(hw), Ty::B64, 2)
        } else if all(1) {
            (gpr(hw), Ty::B32, 1)
        } else {
            hw += 1;
            continue;
        };
        groups.push((reg, ty, base + 4 * (hw - FIRST_CALLEE_SAVED_GPR) as u32));
        hw += n;
    }
    let Some(entry) = blocks.first_mut() else {
        return Ok(base);
    };
    let at = entry
        .iter()
        .take_while(|i| matches!(i, Inst::Args { .. }))
        .count();
    let saves = groups.iter().map(|&(data, ty, offset)| Inst::LocalStore {
        ty,
        data,
        addr: None,
        offset,
    });
    entry.splice(at..at, saves);
    for block in blocks.iter_mut() {
        let Some(ret) = block.iter().position(|i| matches!(i, Inst::Ret { .. })) else {
            continue;
        };
        let restores = groups.iter().map(|&(dst, ty, offset)| Inst::LocalLoad {
            ty,
            dst,
            addr: None,
            offset,
        });
        block.splice(ret..ret, restores);
    }
    Ok(base + 4 * words)
}

fn pair(hw: u16) -> Reg {
    Reg::Real {
        file: GPR,
        class: RegClass::Float,
        hw,
    }
}

fn quad(hw: u16) -> Reg {
    Reg::Real {
        file: GPR,
        class: RegClass::Vector,
        hw,
    }
}
