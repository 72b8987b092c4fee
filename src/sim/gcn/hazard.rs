//! Hazard checking: the "manually inserted wait states" of each generation, as a table.
//!
//! Sources: "Southern Islands Series ISA" (gfx6), "Sea Islands Series ISA" (gfx7), "GCN3
//! ISA" (gfx8) and "Vega ISA" (gfx9), each section 4.5 "Manually Inserted Wait States
//! (NOPs)"; which generations a rule applies to follows LLVM's `GCNHazardRecognizer.cpp`
//! and the `has*Hazard()` predicates of `GCNSubtarget.h`.
//!
//! Every instruction is one wait state, `s_nop N` is N+1. A rule names an earlier
//! instruction class with the registers it affects and a later instruction class with the
//! registers it depends on; when the sets overlap, at least `wait_states` wait states
//! must separate the two. The history is the dynamic instruction stream of the wave, so a
//! hazard across a taken branch is found too.

use super::program::{Decoded, EXEC, Kind, M0, RegSet, VCC};
use crate::isa::gcn::mc::{Form, Gen, Op, Operand};

/// One hazard rule.
pub(crate) struct Rule {
    /// What the rule protects, as the violation reports it.
    pub name: &'static str,
    /// The manual section (and LLVM check) it implements.
    pub source: &'static str,
    /// First and last generation it applies to.
    pub gens: (Gen, Gen),
    pub wait_states: u8,
    /// For an instruction of the earlier kind: the registers it affects.
    pub earlier: fn(&Decoded) -> Option<RegSet>,
    /// For an instruction of the later kind: the registers it depends on.
    pub later: fn(&Decoded) -> Option<RegSet>,
}

fn valu_writes(d: &Decoded) -> Option<RegSet> {
    (d.kind == Kind::Valu).then_some(d.writes)
}

fn valu_writes_sgpr(d: &Decoded) -> Option<RegSet> {
    valu_writes(d).map(RegSet::scalar)
}

fn salu_writes(d: &Decoded) -> Option<RegSet> {
    (d.kind == Kind::Salu).then_some(d.writes)
}

/// Explicit scalar-register sources (not the implicit EXEC of vector instructions),
/// among them GLOBAL's SGPR base.
fn scalar_sources(d: &Decoded) -> RegSet {
    let mut s = RegSet::EMPTY;
    for (src, w) in d.inst.src.iter().zip(d.inst.src_widths()) {
        if let Some(o) = src
            && o.0 < 128
        {
            s.add(o.0, w as u16);
        }
    }
    s
}

fn vector_memory_sgprs(d: &Decoded) -> Option<RegSet> {
    (d.kind == Kind::Vmem).then(|| scalar_sources(d))
}

fn smem_sgprs(d: &Decoded) -> Option<RegSet> {
    (d.kind == Kind::Smem).then(|| scalar_sources(d))
}

fn sbuffer_sgprs(d: &Decoded) -> Option<RegSet> {
    (d.inst.op == Op::SBufferLoadDword).then(|| scalar_sources(d))
}

fn div_fmas_vcc(d: &Decoded) -> Option<RegSet> {
    matches!(d.inst.op, Op::VDivFmasF32 | Op::VDivFmasF64).then_some(VCC)
}

fn lane_select(d: &Decoded) -> Option<RegSet> {
    match d.inst.op {
        Op::VReadlaneB32 | Op::VWritelaneB32 => {
            let o = d.inst.src[1]?;
            (o.0 < 128).then(|| RegSet::range(o.0, 1))
        }
        _ => None,
    }
}

fn dpp_exec(d: &Decoded) -> Option<RegSet> {
    d.dpp.then_some(EXEC)
}

fn dpp_vgpr_sources(d: &Decoded) -> Option<RegSet> {
    d.dpp.then(|| d.reads.vector())
}

fn m0_gds_sendmsg(d: &Decoded) -> Option<RegSet> {
    d.m0_gds_sendmsg.then_some(M0)
}

fn m0_interp_movrel_lds(d: &Decoded) -> Option<RegSet> {
    d.m0_interp_movrel_lds.then_some(M0)
}

fn setreg(d: &Decoded) -> Option<RegSet> {
    d.is_setreg().then_some(d.writes)
}

fn getreg(d: &Decoded) -> Option<RegSet> {
    (d.inst.op == Op::SGetregB32).then_some(d.reads)
}

/// MODE is hardware register 1; VSKIP is its bit 28.
fn setreg_vskip(d: &Decoded) -> Option<RegSet> {
    let (id, offset, size) = d.hwreg()?;
    (d.is_setreg() && id == 1 && offset <= 28 && 28 < offset + size).then_some(RegSet::ALL)
}

fn vector_op(d: &Decoded) -> Option<RegSet> {
    matches!(d.kind, Kind::Valu | Kind::Vmem | Kind::Lds).then_some(RegSet::ALL)
}

fn valu_writes_vcc_exec(d: &Decoded) -> Option<RegSet> {
    valu_writes(d).map(|w| w.intersect(VCC.union(EXEC)))
}

/// VCCZ and EXECZ read as VALU data (operands 251, 252).
fn valu_reads_vccz_execz(d: &Decoded) -> Option<RegSet> {
    if d.kind != Kind::Valu {
        return None;
    }
    let mut s = RegSet::EMPTY;
    for o in d.inst.src.iter().flatten() {
        match *o {
            Operand::VCCZ => s = s.union(VCC),
            Operand::EXECZ => s = s.union(EXEC),
            _ => {}
        }
    }
    Some(s)
}

/// A vector-memory store or atomic with more than 64 bits of data: its data VGPRs.
fn wide_store_data(d: &Decoded) -> Option<RegSet> {
    let atomic = matches!(d.info.form, Form::FlatAtomic | Form::MubufAtomic);
    if d.kind != Kind::Vmem || (d.info.dst != 0 && !atomic) {
        return None;
    }
    let data = d.inst.src[1]?;
    let width = d.info.src[1];
    (width > 2).then(|| RegSet::range(data.0, width as u16))
}

fn valu_writes_vgpr(d: &Decoded) -> Option<RegSet> {
    valu_writes(d).map(RegSet::vector)
}

/// TRAPSTS is hardware register 3; `s_rfe_b64` is not in the table yet.
fn setreg_trapsts(d: &Decoded) -> Option<RegSet> {
    let (id, ..) = d.hwreg()?;
    (d.is_setreg() && id == 3).then_some(RegSet::ALL)
}

fn rfe(_: &Decoded) -> Option<RegSet> {
    None
}

use Gen::*;

/// The rules. Each row cites the manual table entry; rules whose later instruction is not in
/// the MC table yet (GDS, `s_sendmsg`, interpolation, `s_movrel`, `s_rfe`, MUBUF) cannot
/// fire until those instructions are decoded.
pub(crate) static RULES: &[Rule] = &[
    Rule {
        name: "a VALU write of an SGPR needs 5 wait states before a vector-memory instruction reads that SGPR",
        source: "SI/CI/GCN3/Vega ISA 4.5 (VALU writes SGPR -> VMEM reads that SGPR); LLVM checkVMEMHazards",
        gens: (Gfx6, Gfx9),
        wait_states: 5,
        earlier: valu_writes_sgpr,
        later: vector_memory_sgprs,
    },
    Rule {
        name: "a VALU write of an SGPR needs 4 wait states before an SMRD instruction reads that SGPR",
        source: "SI ISA 4.5; LLVM checkSMRDHazards (hasSMRDReadVALUDefHazard: gfx6 only)",
        gens: (Gfx6, Gfx6),
        wait_states: 4,
        earlier: valu_writes_sgpr,
        later: smem_sgprs,
    },
    Rule {
        name: "an SALU write of a buffer descriptor needs 4 wait states before s_buffer_load reads it",
        source: "LLVM checkSMRDHazards (undocumented gfx6 behaviour, found by LLVM)",
        gens: (Gfx6, Gfx6),
        wait_states: 4,
        earlier: salu_writes,
        later: sbuffer_sgprs,
    },
    Rule {
        name: "a VALU write of VCC (including v_div_scale) needs 4 wait states before v_div_fmas",
        source: "SI/CI/GCN3/Vega ISA 4.5 (VALU writes VCC -> V_DIV_FMAS); LLVM checkDivFMasHazards",
        gens: (Gfx6, Gfx9),
        wait_states: 4,
        earlier: valu_writes,
        later: div_fmas_vcc,
    },
    Rule {
        name: "a VALU write of an SGPR or VCC needs 4 wait states before v_readlane/v_writelane uses it as the lane select",
        source: "SI/CI/GCN3/Vega ISA 4.5 (VALU writes SGPR/VCC -> V_{READ,WRITE}LANE lane select); LLVM checkRWLaneHazards",
        gens: (Gfx6, Gfx9),
        wait_states: 4,
        earlier: valu_writes_sgpr,
        later: lane_select,
    },
    Rule {
        name: "a VALU write of EXEC needs 5 wait states before a DPP operation",
        source: "GCN3/Vega ISA 4.5 (VALU writes EXEC -> VALU DPP op); LLVM checkDPPHazards",
        gens: (Gfx8, Gfx9),
        wait_states: 5,
        earlier: valu_writes,
        later: dpp_exec,
    },
    Rule {
        name: "a VALU write of a VGPR needs 2 wait states before a DPP operation reads that VGPR",
        source: "GCN3/Vega ISA 4.5 (VALU writes VGPR -> VALU DPP reads that VGPR); LLVM checkDPPHazards",
        gens: (Gfx8, Gfx9),
        wait_states: 2,
        earlier: valu_writes_vgpr,
        later: dpp_vgpr_sources,
    },
    Rule {
        name: "an SALU write of M0 needs 1 wait state before GDS, s_sendmsg or s_ttracedata",
        source: "GCN3/Vega ISA 4.5 (SALU writes M0 -> GDS, S_SENDMSG, S_TTRACE_DATA); LLVM checkReadM0Hazards (hasReadM0SendMsgHazard: gfx8-gfx9)",
        gens: (Gfx8, Gfx9),
        wait_states: 1,
        earlier: salu_writes,
        later: m0_gds_sendmsg,
    },
    Rule {
        name: "an SALU write of M0 needs 1 wait state before interpolation, s_movrel, LDS add-TID/DMA or lds_direct",
        source: "Vega ISA 4.5 (SALU writes M0 -> LDS add-TID, buffer_store_LDS_dword, VINTERP, LDS_direct); LLVM checkReadM0Hazards (hasReadM0MovRelInterpHazard, hasReadM0LdsDmaHazard: gfx9)",
        gens: (Gfx9, Gfx9),
        wait_states: 1,
        earlier: salu_writes,
        later: m0_interp_movrel_lds,
    },
    Rule {
        name: "s_setreg needs 2 wait states before s_getreg of the same hardware register",
        source: "SI/CI/GCN3/Vega ISA 4.5 (S_SETREG -> S_GETREG same reg); LLVM checkGetRegHazards",
        gens: (Gfx6, Gfx9),
        wait_states: 2,
        earlier: setreg,
        later: getreg,
    },
    Rule {
        name: "s_setreg needs 1 wait state before s_setreg of the same hardware register",
        source: "SI/CI ISA 4.5; LLVM checkSetRegHazards (getSetRegWaitStates: 1 up to gfx7)",
        gens: (Gfx6, Gfx7),
        wait_states: 1,
        earlier: setreg,
        later: setreg,
    },
    Rule {
        name: "s_setreg needs 2 wait states before s_setreg of the same hardware register",
        source: "GCN3/Vega ISA 4.5 (S_SETREG -> S_SETREG same reg); LLVM checkSetRegHazards (getSetRegWaitStates: 2 from gfx8)",
        gens: (Gfx8, Gfx9),
        wait_states: 2,
        earlier: setreg,
        later: setreg,
    },
    Rule {
        name: "s_setreg of MODE.VSKIP needs 2 wait states before any vector operation",
        source: "SI/CI/GCN3/Vega ISA 4.5 (S_SETREG MODE.vskip -> any vector op)",
        gens: (Gfx6, Gfx9),
        wait_states: 2,
        earlier: setreg_vskip,
        later: vector_op,
    },
    Rule {
        name: "a VALU write of VCC or EXEC needs 5 wait states before a VALU reads VCCZ or EXECZ as data",
        source: "SI/CI/GCN3/Vega ISA 4.5 (VALU sets VCC or EXEC -> VALU uses EXECZ or VCCZ as data source)",
        gens: (Gfx6, Gfx9),
        wait_states: 5,
        earlier: valu_writes_vcc_exec,
        later: valu_reads_vccz_execz,
    },
    Rule {
        name: "a vector-memory store of more than 64 bits needs 1 wait state before a VALU overwrites its data VGPRs",
        source: "GCN3/Vega ISA 4.5 (FLAT_STORE_X3/X4, BUFFER_STORE_DWORDX3/X4 … -> write VGPRs holding writedata); LLVM checkVALUHazards (has12DWordStoreHazard: not gfx6)",
        gens: (Gfx7, Gfx9),
        wait_states: 1,
        earlier: wide_store_data,
        later: valu_writes_vgpr,
    },
    Rule {
        name: "s_setreg of TRAPSTS needs 1 wait state before s_rfe",
        source: "GCN3/Vega ISA 4.5 (S_SETREG TRAPSTS -> RFE); LLVM checkRFEHazards",
        gens: (Gfx8, Gfx9),
        wait_states: 1,
        earlier: setreg_trapsts,
        later: rfe,
    },
];

/// Longest wait-state requirement of any rule: the history that needs keeping.
const DEPTH: usize = 5;

/// The last few wait states of one wave: the instruction issued in each (its decode index
/// and address), or `None` for the extra wait states of `s_nop`.
#[derive(Clone, Debug, Default)]
pub(crate) struct History {
    /// Newest first.
    slots: [Option<(u32, u32)>; DEPTH],
}

/// A rule broken: the rule and the earlier instruction (decode index, address).
pub(crate) struct Broken {
    pub rule: &'static Rule,
    pub earlier: u32,
    pub earlier_pc: u32,
}

impl History {
    /// Checks `d`, about to issue, against the history.
    pub fn check<'p>(
        &self,
        d: &Decoded,
        generation: Gen,
        lookup: impl Fn(u32) -> &'p Decoded,
    ) -> Option<Broken> {
        for rule in RULES {
            if generation < rule.gens.0 || generation > rule.gens.1 {
                continue;
            }
            let Some(needs) = (rule.later)(d) else {
                continue;
            };
            if needs.is_empty() {
                continue;
            }
            for slot in &self.slots[..rule.wait_states as usize] {
                let Some((index, pc)) = *slot else { continue };
                if (rule.earlier)(lookup(index)).is_some_and(|affects| affects.overlaps(needs)) {
                    return Some(Broken {
                        rule,
                        earlier: index,
                        earlier_pc: pc,
                    });
                }
            }
        }
        None
    }

    /// Records an issued instruction: one wait state, or N+1 for `s_nop N` (the decoder
    /// rejects an N beyond the generation's count field, `mc::nop_wait_states_max`).
    pub fn issue(&mut self, d: &Decoded, index: u32, pc: u32) {
        if d.inst.op == Op::SNop {
            let n = d.inst.imm as usize + 1;
            for _ in 0..n.min(DEPTH) {
                self.push(None);
            }
        } else {
            self.push(Some((index, pc)));
        }
    }

    fn push(&mut self, slot: Option<(u32, u32)>) {
        self.slots.rotate_right(1);
        self.slots[0] = slot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::mc::{Dpp, DppCtrl, Enc, McInst, Sdwa};

    fn v(n: u8) -> Operand {
        Operand::vgpr(n)
    }
    fn s(n: u8) -> Operand {
        Operand::sgpr(n)
    }

    fn valu(
        op: Op,
        generation: Gen,
        dst: Option<Operand>,
        sdst: Option<Operand>,
        srcs: &[Operand],
    ) -> McInst {
        McInst::valu(op, generation, dst, sdst, srcs).unwrap()
    }

    fn nop(n: i32) -> McInst {
        let mut m = McInst::new(Op::SNop, Enc::Sopp);
        m.imm = n;
        m
    }

    fn salu(op: Op, enc: Enc, dst: Option<Operand>, srcs: &[Operand]) -> McInst {
        let mut m = McInst::new(op, enc);
        m.dst = dst;
        for (slot, &o) in m.src.iter_mut().zip(srcs) {
            *slot = Some(o);
        }
        m
    }

    fn setreg(id: u16, offset: u16, size: u16, value: u32) -> McInst {
        let mut m = McInst::new(Op::SSetregImm32B32, Enc::Sopk);
        m.src[0] = Some(Operand::LITERAL);
        m.literal = Some(value);
        m.imm = (id | offset << 6 | (size - 1) << 11) as i32;
        m
    }

    fn getreg(dst: u8, id: u16) -> McInst {
        let mut m = McInst::new(Op::SGetregB32, Enc::Sopk);
        m.dst = Some(s(dst));
        m.imm = (id | 31 << 11) as i32;
        m
    }

    /// Runs the hazard checker over a straight-line sequence; the name of the first rule
    /// broken, if any.
    fn first_broken(generation: Gen, seq: &[McInst]) -> Option<&'static str> {
        let decoded: Vec<Decoded> = seq
            .iter()
            .map(|m| Decoded::new(m.clone(), 4, generation))
            .collect();
        let mut history = History::default();
        for (i, d) in decoded.iter().enumerate() {
            if let Some(b) = history.check(d, generation, |k| &decoded[k as usize]) {
                return Some(b.rule.name);
            }
            history.issue(d, i as u32, 4 * i as u32);
        }
        None
    }

    /// The sequence `writer, filler…, reader` breaks `rule` with fewer than `needed`
    /// wait states between and is clean with `needed`, whether given by `s_nop`s or by one
    /// `s_nop`.
    fn check_rule(generation: Gen, writer: McInst, reader: McInst, needed: usize, rule: &str) {
        for gap in 0..needed {
            let mut seq = vec![writer.clone()];
            seq.extend((0..gap).map(|_| nop(0)));
            seq.push(reader.clone());
            let broken = first_broken(generation, &seq);
            assert!(
                broken.is_some_and(|b| b.contains(rule)),
                "{generation:?}: {gap} wait states should break `{rule}`, got {broken:?}"
            );
        }
        let mut seq = vec![writer.clone()];
        seq.extend((0..needed).map(|_| nop(0)));
        seq.push(reader.clone());
        assert_eq!(
            first_broken(generation, &seq),
            None,
            "{generation:?}: {needed} s_nop 0"
        );
        if needed > 0 {
            let seq = vec![writer.clone(), nop(needed as i32 - 1), reader.clone()];
            assert_eq!(
                first_broken(generation, &seq),
                None,
                "{generation:?}: s_nop {}",
                needed - 1
            );
        }
    }

    #[test]
    fn valu_vcc_then_div_fmas() {
        for g in [Gfx6, Gfx7, Gfx8, Gfx9] {
            let scale = valu(
                Op::VDivScaleF32,
                g,
                Some(v(0)),
                Some(Operand::VCC),
                &[v(1), v(2), v(1)],
            );
            let fmas = valu(Op::VDivFmasF32, g, Some(v(3)), None, &[v(0), v(1), v(2)]);
            check_rule(g, scale, fmas.clone(), 4, "v_div_fmas");
            let cmp = valu(Op::VCmpLtF32, g, None, Some(Operand::VCC), &[v(1), v(2)]);
            check_rule(g, cmp, fmas.clone(), 4, "v_div_fmas");
            // A compare into another SGPR pair is no hazard.
            let cmp = valu(Op::VCmpLtF32, g, None, Some(s(4)), &[v(1), v(2)]);
            assert_eq!(first_broken(g, &[cmp, fmas]), None);
        }
    }

    #[test]
    fn valu_sgpr_then_lane_select() {
        for g in [Gfx8, Gfx9] {
            let write = valu(Op::VReadfirstlaneB32, g, Some(s(4)), None, &[v(0)]);
            let read = valu(Op::VReadlaneB32, g, Some(s(5)), None, &[v(1), s(4)]);
            check_rule(g, write.clone(), read, 4, "lane select");
            let wl = valu(
                Op::VWritelaneB32,
                g,
                Some(v(2)),
                None,
                &[Operand::inline_int(7).unwrap(), s(4)],
            );
            check_rule(g, write.clone(), wl, 4, "lane select");
            // The same SGPR as the value written (src0) is no hazard.
            let wl = valu(
                Op::VWritelaneB32,
                g,
                Some(v(2)),
                None,
                &[s(4), Operand::inline_int(1).unwrap()],
            );
            assert_eq!(first_broken(g, &[write.clone(), wl]), None);
            // An SALU write of the lane select is no hazard.
            let mov = salu(
                Op::SMovB32,
                Enc::Sop1,
                Some(s(4)),
                &[Operand::inline_int(3).unwrap()],
            );
            let read = valu(Op::VReadlaneB32, g, Some(s(5)), None, &[v(1), s(4)]);
            assert_eq!(first_broken(g, &[mov, read]), None);
        }
    }

    /// The DPP rows fire on decoded DPP instructions: 2 wait states after a VALU write of a
    /// VGPR the DPP instruction reads (either source), 5 after a VALU write of EXEC.
    #[test]
    fn valu_then_dpp() {
        for g in [Gfx8, Gfx9] {
            let dpp = |srcs: &[Operand]| {
                let op = if srcs.len() == 2 {
                    Op::VAddF32
                } else {
                    Op::VMovB32
                };
                let mut m = McInst::new(op, op.info().enc);
                m.dst = Some(v(3));
                for (slot, &o) in m.src.iter_mut().zip(srcs) {
                    *slot = Some(o);
                }
                m.dpp = Some(Dpp::new(DppCtrl::RowShr(1)));
                m.select_encoding(g).unwrap();
                m
            };
            let write = valu(Op::VMovB32, g, Some(v(1)), None, &[v(0)]);
            check_rule(g, write.clone(), dpp(&[v(1)]), 2, "DPP operation reads");
            check_rule(
                g,
                write.clone(),
                dpp(&[v(2), v(1)]),
                2,
                "DPP operation reads",
            );
            assert_eq!(first_broken(g, &[write.clone(), dpp(&[v(2)])]), None);
            let exec = valu(Op::VCmpLtF32, g, None, Some(Operand::EXEC), &[v(1), v(2)]);
            check_rule(g, exec, dpp(&[v(2)]), 5, "EXEC");
            // An SDWA instruction is no DPP operation.
            let mut sdwa = valu(Op::VMovB32, g, Some(v(3)), None, &[v(1)]);
            sdwa.sdwa = Some(Sdwa::default());
            sdwa.select_encoding(g).unwrap();
            assert_eq!(first_broken(g, &[write, sdwa]), None);
        }
    }

    #[test]
    fn valu_sgpr_then_global_saddr() {
        // The SGPR base of GLOBAL is a VMEM read of SGPRs (Vega ISA 4.5).
        let write = valu(Op::VReadfirstlaneB32, Gfx9, Some(s(5)), None, &[v(0)]);
        let mut load = McInst::new(Op::GlobalLoadDword, Enc::Global);
        (load.dst, load.src[0], load.src[1]) = (Some(v(1)), Some(v(2)), Some(s(4)));
        check_rule(Gfx9, write.clone(), load.clone(), 5, "vector-memory");
        let mut store = McInst::new(Op::GlobalStoreDword, Enc::Global);
        store.src = [Some(v(2)), Some(v(1)), Some(s(4))];
        check_rule(Gfx9, write.clone(), store, 5, "vector-memory");
        load.src[1] = Some(s(6));
        assert_eq!(first_broken(Gfx9, &[write, load]), None);
    }

    #[test]
    fn valu_sgpr_then_smrd_on_gfx6() {
        let write = valu(Op::VReadfirstlaneB32, Gfx6, Some(s(5)), None, &[v(0)]);
        let mut load = McInst::new(Op::SLoadDword, Enc::Smem);
        (load.dst, load.src[0]) = (Some(s(8)), Some(s(4)));
        check_rule(Gfx6, write.clone(), load.clone(), 4, "SMRD");
        for g in [Gfx7, Gfx8, Gfx9] {
            assert_eq!(
                first_broken(g, &[write.clone(), load.clone()]),
                None,
                "{g:?}"
            );
        }
    }

    #[test]
    fn salu_descriptor_then_s_buffer_load_on_gfx6() {
        let mov = salu(
            Op::SMovB32,
            Enc::Sop1,
            Some(s(6)),
            &[Operand::inline_int(0).unwrap()],
        );
        let mut load = McInst::new(Op::SBufferLoadDword, Enc::Smem);
        (load.dst, load.src[0]) = (Some(s(8)), Some(s(4)));
        check_rule(Gfx6, mov.clone(), load.clone(), 4, "s_buffer_load");
        assert_eq!(first_broken(Gfx8, &[mov, load]), None);
    }

    #[test]
    fn setreg_then_getreg_and_setreg() {
        for g in [Gfx6, Gfx7, Gfx8, Gfx9] {
            check_rule(g, setreg(1, 0, 4, 0), getreg(0, 1), 2, "s_getreg");
            // Another hardware register is no hazard.
            assert_eq!(first_broken(g, &[setreg(1, 0, 4, 0), getreg(0, 3)]), None);
            let twice = if g >= Gfx8 { 2 } else { 1 };
            check_rule(
                g,
                setreg(1, 0, 4, 0),
                setreg(1, 4, 4, 0),
                twice,
                "s_setreg of the same",
            );
        }
    }

    #[test]
    fn setreg_vskip_then_vector_op() {
        for g in [Gfx6, Gfx7, Gfx8, Gfx9] {
            let read = valu(Op::VReadfirstlaneB32, g, Some(s(5)), None, &[v(0)]);
            check_rule(g, setreg(1, 28, 1, 0), read.clone(), 2, "VSKIP");
            // A MODE write that leaves VSKIP alone is no hazard.
            assert_eq!(first_broken(g, &[setreg(1, 0, 8, 0), read]), None);
        }
    }

    #[test]
    fn valu_vcc_exec_then_vccz_execz_as_data() {
        for g in [Gfx6, Gfx7, Gfx8, Gfx9] {
            let cmp = valu(Op::VCmpLtU32, g, None, Some(Operand::VCC), &[v(1), v(2)]);
            let read = valu(Op::VMovB32, g, Some(v(0)), None, &[Operand::VCCZ]);
            check_rule(g, cmp.clone(), read, 5, "VCCZ or EXECZ");
            let read = valu(Op::VMovB32, g, Some(v(0)), None, &[Operand::EXECZ]);
            assert_eq!(
                first_broken(g, &[cmp.clone(), read]),
                None,
                "VCC write, EXECZ read"
            );
            // s_cbranch_vccz needs no wait states.
            let branch = McInst::new(Op::SCbranchVccz, Enc::Sopp);
            assert_eq!(first_broken(g, &[cmp, branch]), None);
        }
    }

    #[test]
    fn wide_store_then_data_overwrite() {
        for g in [Gfx7, Gfx8, Gfx9] {
            let mut store = McInst::new(Op::FlatStoreDwordx4, Enc::Flat);
            (store.src[0], store.src[1]) = (Some(v(0)), Some(v(4)));
            let write = valu(Op::VMovB32, g, Some(v(6)), None, &[v(1)]);
            check_rule(g, store.clone(), write, 1, "more than 64 bits");
            // A 64-bit store is no hazard.
            let mut store2 = McInst::new(Op::FlatStoreDwordx2, Enc::Flat);
            (store2.src[0], store2.src[1]) = (Some(v(0)), Some(v(4)));
            let write = valu(Op::VMovB32, g, Some(v(4)), None, &[v(1)]);
            assert_eq!(first_broken(g, &[store2, write.clone()]), None);
            // Nor is writing other VGPRs.
            let other = valu(Op::VMovB32, g, Some(v(8)), None, &[v(1)]);
            assert_eq!(first_broken(g, &[store, other]), None);
        }
    }

    #[test]
    fn nop_counts_its_wait_states() {
        let g = Gfx8;
        let scale = valu(
            Op::VDivScaleF32,
            g,
            Some(v(0)),
            Some(Operand::VCC),
            &[v(1), v(2), v(1)],
        );
        let fmas = valu(Op::VDivFmasF32, g, Some(v(3)), None, &[v(0), v(1), v(2)]);
        let other = valu(Op::VMovB32, g, Some(v(9)), None, &[v(1)]);
        // s_nop 1 (2 wait states) + two instructions: 4.
        let seq = [
            scale.clone(),
            nop(1),
            other.clone(),
            other.clone(),
            fmas.clone(),
        ];
        assert_eq!(first_broken(g, &seq), None);
        let seq = [scale, nop(1), other, fmas];
        assert!(first_broken(g, &seq).is_some());
    }

    #[test]
    fn every_rule_has_a_source_and_sane_generations() {
        for rule in RULES {
            assert!(rule.gens.0 <= rule.gens.1, "{}", rule.name);
            assert!(
                (1..=DEPTH as u8).contains(&rule.wait_states),
                "{}",
                rule.name
            );
            assert!(
                rule.source.contains("4.5") || rule.source.contains("LLVM"),
                "{}",
                rule.name
            );
        }
    }
}
