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
use crate::machinst::{MachInst, OperandKind};
use std::collections::BTreeSet;

/// Saves and restores the callee-saved `$r` that `blocks` (a device function's, block 0
/// its entry) write, in words of `l[]` from `base`; returns how many words they take.
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
                written.extend((r.hw()..r.hw() + r.width()).filter(|&h| h >= FIRST_CALLEE_SAVED_GPR));
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
    if written.is_empty() {
        return Ok(0);
    }
    let words = written.len() as u32;
    if base + 4 * words > LOCAL_LIMIT {
        return Err(format!(
            "{base} bytes of `l[]` and {words} saved registers per thread: a thread addresses \
             at most {LOCAL_LIMIT:#x} bytes of `l[]`"
        ));
    }
    let slots: Vec<(u16, u32)> = written
        .iter()
        .enumerate()
        .map(|(k, &hw)| (hw, base + 4 * k as u32))
        .collect();
    let Some(entry) = blocks.first_mut() else {
        return Ok(0);
    };
    let at = entry.iter().take_while(|i| matches!(i, Inst::Args { .. })).count();
    let saves = slots.iter().map(|&(hw, offset)| Inst::LocalStore {
        ty: Ty::B32,
        data: gpr(hw),
        addr: None,
        offset,
    });
    entry.splice(at..at, saves);
    for block in blocks.iter_mut() {
        let Some(ret) = block.iter().position(|i| matches!(i, Inst::Ret { .. })) else {
            continue;
        };
        let restores = slots.iter().map(|&(hw, offset)| Inst::LocalLoad {
            ty: Ty::B32,
            dst: gpr(hw),
            addr: None,
            offset,
        });
        block.splice(ret..ret, restores);
    }
    Ok(words)
}
