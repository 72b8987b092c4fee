//! Linearized code after allocation: the allocator's whole-wave moves (`Inst::WaveCopy`,
//! copies of values that live in every lane, such as block parameters moved between
//! registers) become ordinary copies run with EXEC set to the function's lanes, and its
//! VGPR spills and reloads (`whole_wave` scratch accesses, `place_spills`) run with it.

use super::abi::Frame;
use super::inst::{Inst, Src};
use super::lower::linear::{entry_lanes, mov64, saved_exec};
use super::regs::EXEC;

/// Replaces the allocator's whole-wave moves by copies with EXEC set to the function's
/// lanes (saved and restored around each run of them, unless EXEC holds them already:
/// after the entry saves them or the exit restores them).
pub fn run(insts: Vec<Inst>, frame: &Frame) -> Vec<Inst> {
    let lanes = entry_lanes(frame);
    let mut out = Vec::with_capacity(insts.len());
    let mut open = false;
    let mut all_lanes = false;
    for inst in insts {
        let whole_wave = match inst {
            Inst::WaveCopy { dst, src } => Some(Inst::Copy { dst, src }),
            Inst::ScratchLoad {
                whole_wave: true, ..
            }
            | Inst::ScratchStore {
                whole_wave: true, ..
            } => Some(inst.clone()),
            _ => None,
        };
        if let Some(inst) = whole_wave {
            if !open && !all_lanes {
                out.push(mov64(saved_exec(frame), Src::Reg(EXEC)));
                out.push(mov64(EXEC, Src::Reg(lanes)));
                open = true;
            }
            out.push(inst);
            continue;
        }
        if open {
            out.push(mov64(EXEC, Src::Reg(saved_exec(frame))));
            open = false;
        }
        if let Inst::Salu {
            dst: Some(dst),
            srcs,
            ..
        } = &inst
        {
            if *dst == EXEC {
                all_lanes = srcs[..] == [Src::Reg(lanes)];
            } else if *dst == lanes {
                all_lanes = srcs[..] == [Src::Reg(EXEC)];
            }
        }
        out.push(inst);
    }
    if open {
        out.push(mov64(EXEC, Src::Reg(saved_exec(frame))));
    }
    out
}
