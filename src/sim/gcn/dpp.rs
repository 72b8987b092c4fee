//! DPP's lane fetch: the value each lane's src0 takes and which lanes write, from the
//! "VOP_DPP" format and "DPP_CTRL Enumeration" table of the GCN3 and Vega ISA manuals
//! (12.7; the same fields in CDNA4 ISA 13.3.9) and LLVM's AMDGPUModifierSyntax:
//! - `dpp_ctrl` names the lane each lane reads src0 from ([`DppCtrl::source_lane`]);
//! - that source is *invalid* when it is out of range or its lane is inactive (EXEC clear:
//!   gfx8/gfx9 have no DPP "fetch inactive" bit, and LLVM's `fi:0`, their behaviour, leaves
//!   inactive lanes to `bound_ctrl`); with `bound_ctrl` set an invalid source reads 0, with
//!   it clear the lane does not write;
//! - `row_mask` and `bank_mask` apply to the write only: a masked lane does not write, but
//!   other lanes still read its src0.
//!
//! Input modifiers (abs, neg) apply to the fetched value, 0 included.

use crate::isa::gcn::mc::Dpp;

/// What one active lane of a DPP instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fetch {
    /// Executes with src0 from this lane.
    Lane(usize),
    /// Executes with src0 = 0 (an invalid source with `bound_ctrl`).
    Zero,
    /// Does not write its destination (masked, or an invalid source without `bound_ctrl`).
    NoWrite,
}

/// The fetch of active lane `lane` under `exec`.
pub(crate) fn fetch(dpp: &Dpp, lane: usize, exec: u64) -> Fetch {
    if !dpp.lane_enabled(lane) {
        return Fetch::NoWrite;
    }
    match dpp.ctrl.source_lane(lane) {
        Some(from) if exec >> from & 1 != 0 => Fetch::Lane(from),
        _ if dpp.bound_ctrl => Fetch::Zero,
        _ => Fetch::NoWrite,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::gcn::mc::{DppCtrl, Enc, Gen, McInst, Op, Operand, encode};
    use crate::sim::gcn::program::Program;
    use crate::sim::gcn::wave::{Env, Wave};
    use crate::sim::{Memory, Options};

    const ALL: u64 = !0;

    /// The lanes each lane reads, `None` where it does not write, for `ctrl` with full masks,
    /// all lanes active and `bound_ctrl` clear.
    fn sources(ctrl: DppCtrl) -> Vec<Option<usize>> {
        let dpp = Dpp::new(ctrl);
        (0..64)
            .map(|lane| match fetch(&dpp, lane, ALL) {
                Fetch::Lane(from) => Some(from),
                _ => None,
            })
            .collect()
    }

    /// The manual's "Function" column, written out lane by lane for each kind of control.
    #[test]
    fn lane_patterns_follow_the_dpp_ctrl_table() {
        // quad_perm:[3,2,1,0] reverses every quad.
        let reversed = sources(DppCtrl::QuadPerm([3, 2, 1, 0]));
        assert_eq!(&reversed[..8], &[3, 2, 1, 0, 7, 6, 5, 4].map(Some));
        assert_eq!(reversed[63], Some(60));
        // quad_perm:[1,1,1,1] broadcasts lane 1 of each quad.
        assert_eq!(
            &sources(DppCtrl::QuadPerm([1, 1, 1, 1]))[4..8],
            &[5, 5, 5, 5].map(Some)
        );
        // row_shl:1: lane n reads n+1 inside its row; lanes 15, 31, 47, 63 have no source.
        let shl = sources(DppCtrl::RowShl(1));
        assert_eq!(shl[0], Some(1));
        assert_eq!(shl[14], Some(15));
        assert_eq!(shl[15], None);
        assert_eq!(shl[16], Some(17));
        assert_eq!(shl[63], None);
        // row_shl:15: only the first lane of each row has a source, the last of its row.
        let shl15 = sources(DppCtrl::RowShl(15));
        assert_eq!(shl15[32], Some(47));
        assert!(shl15[33..48].iter().all(Option::is_none));
        // row_shr:3: the first three lanes of each row have no source.
        let shr = sources(DppCtrl::RowShr(3));
        assert_eq!(&shr[16..20], &[None, None, None, Some(16)]);
        assert_eq!(shr[31], Some(28));
        // row_ror:4 wraps inside the row.
        let ror = sources(DppCtrl::RowRor(4));
        assert_eq!(&ror[16..18], &[Some(28), Some(29)]);
        assert_eq!(ror[20], Some(16));
        assert_eq!(ror[31], Some(27));
        // Whole-wave shifts and rotates by one.
        assert_eq!(sources(DppCtrl::WaveShl1)[0], Some(1));
        assert_eq!(sources(DppCtrl::WaveShl1)[15], Some(16));
        assert_eq!(sources(DppCtrl::WaveShl1)[63], None);
        assert_eq!(sources(DppCtrl::WaveRol1)[63], Some(0));
        assert_eq!(sources(DppCtrl::WaveShr1)[0], None);
        assert_eq!(sources(DppCtrl::WaveShr1)[16], Some(15));
        assert_eq!(sources(DppCtrl::WaveRor1)[0], Some(63));
        assert_eq!(sources(DppCtrl::WaveRor1)[32], Some(31));
        // Mirrors.
        assert_eq!(sources(DppCtrl::RowMirror)[16], Some(31));
        assert_eq!(sources(DppCtrl::RowMirror)[20], Some(27));
        assert_eq!(sources(DppCtrl::RowHalfMirror)[8], Some(15));
        assert_eq!(sources(DppCtrl::RowHalfMirror)[50], Some(53));
        // row_bcast:15: rows 1–3 read the last lane of the row before; row 0 its own lanes.
        let bcast15 = sources(DppCtrl::RowBcast15);
        assert_eq!(bcast15[5], Some(5));
        assert_eq!(bcast15[15], Some(15));
        assert!(bcast15[16..32].iter().all(|&s| s == Some(15)));
        assert!(bcast15[48..64].iter().all(|&s| s == Some(47)));
        // row_bcast:31: rows 2 and 3 read lane 31.
        let bcast31 = sources(DppCtrl::RowBcast31);
        assert_eq!(bcast31[31], Some(31));
        assert!(bcast31[32..64].iter().all(|&s| s == Some(31)));
    }

    #[test]
    fn masks_bound_ctrl_and_inactive_sources() {
        let mut dpp = Dpp::new(DppCtrl::RowShr(1));
        // Row mask 0b0101: rows 0 and 2 write; bank mask 0b0010: lanes 4–7 of each row.
        (dpp.row_mask, dpp.bank_mask) = (0b0101, 0b0010);
        let writing: Vec<usize> = (0..64)
            .filter(|&l| fetch(&dpp, l, ALL) != Fetch::NoWrite)
            .collect();
        assert_eq!(writing, vec![4, 5, 6, 7, 36, 37, 38, 39]);
        // A masked lane's value is still read by others: lane 4 reads lane 3 (bank 0, masked).
        assert_eq!(fetch(&dpp, 4, ALL), Fetch::Lane(3));
        // An out-of-range source: no write, or 0 with bound_ctrl.
        let mut dpp = Dpp::new(DppCtrl::RowShr(1));
        assert_eq!(fetch(&dpp, 16, ALL), Fetch::NoWrite);
        dpp.bound_ctrl = true;
        assert_eq!(fetch(&dpp, 16, ALL), Fetch::Zero);
        // An inactive source lane is invalid too.
        let exec = ALL & !(1 << 16);
        assert_eq!(fetch(&dpp, 17, exec), Fetch::Zero);
        dpp.bound_ctrl = false;
        assert_eq!(fetch(&dpp, 17, exec), Fetch::NoWrite);
        assert_eq!(fetch(&dpp, 18, exec), Fetch::Lane(17));
    }

    /// Runs `insts` then `s_endpgm` on gfx8 with `exec`, v2 = 100 + lane, v1 = 7, v4 =
    /// lane; returns v1 of every lane and VCC.
    fn run(insts: &[McInst], exec: u64) -> (Vec<u32>, u64) {
        let mut code = Vec::new();
        for inst in insts.iter().chain([&McInst::new(Op::SEndpgm, Enc::Sopp)]) {
            encode(inst, Gen::Gfx8, &mut code).unwrap();
        }
        let mut program = Program::new(&code, Gen::Gfx8);
        let mut wave = Wave::new();
        for lane in 0..64 {
            wave.vgpr[1][lane] = 7;
            wave.vgpr[2][lane] = 100 + lane as u32;
            wave.vgpr[4][lane] = lane as u32;
        }
        wave.set_exec(exec);
        let mut memory = Memory::new();
        let options = Options::default();
        let mut lds = super::super::lds::Lds::new(0, Gen::Gfx8);
        let mut env = Env {
            memory: &mut memory,
            options: &options,
            return_address: None,
            lds: &mut lds,
            wave: 0,
        };
        wave.run(&mut program, &mut env).unwrap();
        let vcc = wave.sgpr[106] as u64 | (wave.sgpr[107] as u64) << 32;
        (wave.vgpr[1].to_vec(), vcc)
    }

    fn dpp_inst(op: Op, srcs: &[Operand], dpp: Dpp) -> McInst {
        let mut m = McInst::valu(op, Gen::Gfx8, Some(Operand::vgpr(1)), None, srcs).unwrap();
        m.dpp = Some(dpp);
        m.select_encoding(Gen::Gfx8).unwrap();
        m
    }

    #[test]
    fn executes_in_the_wave() {
        let v = Operand::vgpr;
        // v_mov_b32_dpp v1, v2 row_shr:1: the first lane of each row keeps v1 = 7.
        let (v1, _) = run(
            &[dpp_inst(Op::VMovB32, &[v(2)], Dpp::new(DppCtrl::RowShr(1)))],
            ALL,
        );
        assert_eq!(&v1[15..18], &[114, 7, 116]);
        // With bound_ctrl the first lane of each row reads 0.
        let mut bound = Dpp::new(DppCtrl::RowShr(1));
        bound.bound_ctrl = true;
        let (v1, _) = run(&[dpp_inst(Op::VMovB32, &[v(2)], bound)], ALL);
        assert_eq!(&v1[15..18], &[114, 0, 116]);
        // v_add_u32_dpp v1, vcc, v2, v4 wave_ror:1: src0 from the lane below, src1 the own.
        let mut add = McInst::valu(
            Op::VAddU32,
            Gen::Gfx8,
            Some(v(1)),
            Some(Operand::VCC),
            &[v(2), v(4)],
        )
        .unwrap();
        add.dpp = Some(Dpp::new(DppCtrl::WaveRor1));
        add.select_encoding(Gen::Gfx8).unwrap();
        let (v1, vcc) = run(&[add.clone()], ALL);
        assert_eq!(v1[0], 163);
        assert_eq!(v1[10], 109 + 10);
        assert_eq!(vcc, 0);
        // Inactive lanes neither write nor provide: lane 3 is off, lane 4 reads it.
        let exec = ALL & !(1 << 3);
        let (v1, _) = run(&[dpp_inst(Op::VMovB32, &[v(2)], bound)], exec);
        assert_eq!(&v1[2..6], &[101, 7, 0, 104]);
        // A lane that does not write has no carry to report: not modelled, an error.
        let mut code = Vec::new();
        add.dpp = Some(Dpp::new(DppCtrl::WaveShr1));
        encode(&add, Gen::Gfx8, &mut code).unwrap();
        let mut program = Program::new(&code, Gen::Gfx8);
        let mut wave = Wave::new();
        wave.set_exec(ALL);
        let mut memory = Memory::new();
        let options = Options::default();
        let mut lds = super::super::lds::Lds::new(0, Gen::Gfx8);
        let mut env = Env {
            memory: &mut memory,
            options: &options,
            return_address: None,
            lds: &mut lds,
            wave: 0,
        };
        assert!(wave.run(&mut program, &mut env).is_err());
        // v_add_f32_dpp v1, -v2, v2 row_mirror: neg applies to the fetched value.
        let mut mirror = dpp_inst(Op::VAddF32, &[v(2), v(2)], Dpp::new(DppCtrl::RowMirror));
        mirror.neg = 1;
        let float = |lane: usize| (lane as f32).to_bits();
        let mut code = Vec::new();
        for inst in [mirror, McInst::new(Op::SEndpgm, Enc::Sopp)] {
            encode(&inst, Gen::Gfx8, &mut code).unwrap();
        }
        let mut program = Program::new(&code, Gen::Gfx8);
        let mut wave = Wave::new();
        for lane in 0..64 {
            wave.vgpr[2][lane] = float(lane);
        }
        wave.set_exec(ALL);
        wave.run(&mut program, &mut env).unwrap();
        // Lane 1 computes -v2[14] + v2[1] = -14 + 1.
        assert_eq!(f32::from_bits(wave.vgpr[1][1]), -13.0);
    }
}
