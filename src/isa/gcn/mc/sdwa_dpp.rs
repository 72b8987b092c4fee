//! The operand modifiers of the two gfx8/gfx9 extension dwords of VOP1/VOP2/VOPC: SDWA's
//! sub-dword selects and DPP's cross-lane controls. Each type holds one field's values, its
//! code in the instruction word, the name llvm-mc-14 prints for it, and what the field
//! means, so the encoder, the decoder, the printer and the simulator read one definition.
//!
//! Sources: the "VOP_SDWA" and "VOP_DPP" microcode formats and the "DPP_CTRL Enumeration"
//! table of the GCN3 ISA manual (12.7) and the Vega ISA manual (12.7), whose field
//! layouts and DPP_CTRL table AMD's later manuals repeat unchanged (CDNA4 ISA 13.3.7–13.3.9);
//! LLVM's AMDGPUModifierSyntax for the assembly names and the meaning of `dst_unused`.
//! `docs/isa-notes.md` lists where the seed document disagrees.

use std::fmt;

/// A part of a dword selected by SDWA's `dst_sel`, `src0_sel` and `src1_sel` fields
/// (3 bits; 7 is reserved).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SdwaSel {
    Byte0,
    Byte1,
    Byte2,
    Byte3,
    Word0,
    Word1,
    Dword,
}

impl SdwaSel {
    /// Every select, in field-code order.
    pub const ALL: [SdwaSel; 7] = [
        SdwaSel::Byte0,
        SdwaSel::Byte1,
        SdwaSel::Byte2,
        SdwaSel::Byte3,
        SdwaSel::Word0,
        SdwaSel::Word1,
        SdwaSel::Dword,
    ];

    /// The select with field code `code`, if it is not the reserved 7.
    pub fn from_code(code: u32) -> Option<SdwaSel> {
        SdwaSel::ALL.get(code as usize).copied()
    }

    /// The field code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The name llvm-mc prints (`src0_sel:BYTE_1`).
    pub fn name(self) -> &'static str {
        [
            "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
        ][self as usize]
    }

    /// The selected bits as (lowest bit, width).
    pub fn bits(self) -> (u32, u32) {
        match self {
            SdwaSel::Byte0 => (0, 8),
            SdwaSel::Byte1 => (8, 8),
            SdwaSel::Byte2 => (16, 8),
            SdwaSel::Byte3 => (24, 8),
            SdwaSel::Word0 => (0, 16),
            SdwaSel::Word1 => (16, 16),
            SdwaSel::Dword => (0, 32),
        }
    }

    /// A source operand as the operation sees it: the selected part moved to bit 0 and
    /// extended to 32 bits, with its sign when `sext` is set (SRC*_SEXT).
    pub fn extract(self, value: u32, sext: bool) -> u32 {
        let (low, width) = self.bits();
        let part = value >> low;
        let unused = 32 - width;
        if sext {
            ((part << unused) as i32 >> unused) as u32
        } else {
            part << unused >> unused
        }
    }

    /// The destination written from the operation's `result`: its low part placed at the
    /// selected bits, the other bits of `old` (the destination before the instruction)
    /// treated as `unused` says.
    pub fn insert(self, result: u32, old: u32, unused: DstUnused) -> u32 {
        let (low, width) = self.bits();
        if width == 32 {
            return result;
        }
        let field = ((1u32 << width) - 1) << low;
        let placed = result << low & field;
        match unused {
            DstUnused::Pad => placed,
            // Sign-extend above the part, zeros below it.
            DstUnused::Sext => {
                let top = low + width;
                let negative = result >> (width - 1) & 1 != 0;
                // A part ending at bit 31 has nothing above it.
                let above = if negative && top < 32 {
                    !0u32 << top
                } else {
                    0
                };
                placed | above
            }
            DstUnused::Preserve => placed | (old & !field),
        }
    }
}

/// What SDWA's `dst_unused` field does with the destination bits outside `dst_sel`
/// (2 bits; 3 is reserved).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DstUnused {
    /// Zeros.
    Pad,
    /// The selected part's sign above it, zeros below it.
    Sext,
    /// The destination's previous bits.
    Preserve,
}

impl DstUnused {
    /// Every value, in field-code order.
    pub const ALL: [DstUnused; 3] = [DstUnused::Pad, DstUnused::Sext, DstUnused::Preserve];

    /// The value with field code `code`, if it is not the reserved 3.
    pub fn from_code(code: u32) -> Option<DstUnused> {
        DstUnused::ALL.get(code as usize).copied()
    }

    /// The field code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The name llvm-mc prints (`dst_unused:UNUSED_PAD`).
    pub fn name(self) -> &'static str {
        ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"][self as usize]
    }
}

/// The SDWA selects of an instruction (its other SDWA modifiers, abs/neg, clamp and omod,
/// are [`super::McInst`]'s own fields, shared with VOP3).
///
/// VOPC has no destination selects (its result is a lane mask) and VOP1 no `src1_sel`: there
/// they stay at their defaults and encode as zero bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sdwa {
    pub dst_sel: SdwaSel,
    pub dst_unused: DstUnused,
    /// `src0_sel`, `src1_sel`.
    pub src_sel: [SdwaSel; 2],
    /// Sign-extend the selected part of source n (bit n; integer sources only).
    pub sext: u8,
}

impl Default for Sdwa {
    /// The values llvm-mc assumes when the assembly omits them: whole dwords, the unused
    /// destination bits preserved.
    fn default() -> Sdwa {
        Sdwa {
            dst_sel: SdwaSel::Dword,
            dst_unused: DstUnused::Preserve,
            src_sel: [SdwaSel::Dword; 2],
            sext: 0,
        }
    }
}

/// The lane pattern of DPP's 9-bit `dpp_ctrl` field: which lane each lane reads its src0
/// from. A wave's 64 lanes form four rows of 16; a row, four banks of 4.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DppCtrl {
    /// Lane 4q+i reads lane 4q+`p[i]` (codes 0x000–0x0ff, two bits per lane).
    QuadPerm([u8; 4]),
    /// Lane n reads lane n+k of its row; the last k lanes of a row read out of range
    /// (0x101–0x10f, k = 1–15).
    RowShl(u8),
    /// Lane n reads lane n−k of its row; the first k lanes read out of range (0x111–0x11f).
    RowShr(u8),
    /// Lane n reads lane n−k of its row, wrapping around the row (0x121–0x12f).
    RowRor(u8),
    /// Lane n reads lane n+1; lane 63 reads out of range (0x130).
    WaveShl1,
    /// Lane n reads lane n+1, lane 63 lane 0 (0x134).
    WaveRol1,
    /// Lane n reads lane n−1; lane 0 reads out of range (0x138).
    WaveShr1,
    /// Lane n reads lane n−1, lane 0 lane 63 (0x13c).
    WaveRor1,
    /// Lane n reads lane 15−n of its row (0x140).
    RowMirror,
    /// Lane n reads lane 7−n of its half row (0x141).
    RowHalfMirror,
    /// Rows 1–3 read the last lane of the row before; row 0 reads its own lanes (0x142).
    RowBcast15,
    /// Rows 2 and 3 read lane 31; rows 0 and 1 read their own lanes (0x143).
    RowBcast31,
}

impl DppCtrl {
    /// The pattern with field code `code`; `None` for the reserved codes (0x100, 0x110,
    /// 0x120, 0x131–0x133, 0x135–0x137, 0x139–0x13b, 0x13d–0x13f, 0x144 and above).
    pub fn from_code(code: u32) -> Option<DppCtrl> {
        let k = (code & 0xf) as u8;
        Some(match code {
            0x000..=0x0ff => DppCtrl::QuadPerm([0, 2, 4, 6].map(|s| (code >> s & 3) as u8)),
            0x101..=0x10f => DppCtrl::RowShl(k),
            0x111..=0x11f => DppCtrl::RowShr(k),
            0x121..=0x12f => DppCtrl::RowRor(k),
            0x130 => DppCtrl::WaveShl1,
            0x134 => DppCtrl::WaveRol1,
            0x138 => DppCtrl::WaveShr1,
            0x13c => DppCtrl::WaveRor1,
            0x140 => DppCtrl::RowMirror,
            0x141 => DppCtrl::RowHalfMirror,
            0x142 => DppCtrl::RowBcast15,
            0x143 => DppCtrl::RowBcast31,
            _ => return None,
        })
    }

    /// The field code; `None` when a lane number or shift is out of its range (quad lanes
    /// 0–3, shifts 1–15).
    pub fn code(self) -> Option<u32> {
        let shift = |base: u32, k: u8| (1..=15).contains(&k).then_some(base | k as u32);
        match self {
            DppCtrl::QuadPerm(p) => p.iter().all(|&l| l < 4).then(|| {
                p.iter()
                    .enumerate()
                    .map(|(i, &l)| (l as u32) << (2 * i))
                    .sum()
            }),
            DppCtrl::RowShl(k) => shift(0x100, k),
            DppCtrl::RowShr(k) => shift(0x110, k),
            DppCtrl::RowRor(k) => shift(0x120, k),
            DppCtrl::WaveShl1 => Some(0x130),
            DppCtrl::WaveRol1 => Some(0x134),
            DppCtrl::WaveShr1 => Some(0x138),
            DppCtrl::WaveRor1 => Some(0x13c),
            DppCtrl::RowMirror => Some(0x140),
            DppCtrl::RowHalfMirror => Some(0x141),
            DppCtrl::RowBcast15 => Some(0x142),
            DppCtrl::RowBcast31 => Some(0x143),
        }
    }

    /// The lane that `lane` (0–63) reads src0 from, or `None` when that is out of range
    /// (then `bound_ctrl` decides). The manual's "DPP_CTRL Enumeration" table, column
    /// "Function"; for `row_bcast` its pseudo-code assigns only lanes above 15 (31) and
    /// leaves the others reading their own lane.
    pub fn source_lane(self, lane: usize) -> Option<usize> {
        let row = lane & !15;
        let in_row = lane & 15;
        match self {
            DppCtrl::QuadPerm(p) => Some((lane & !3) + p[lane & 3] as usize),
            DppCtrl::RowShl(k) => {
                let from = in_row + k as usize;
                (from < 16).then_some(row + from)
            }
            DppCtrl::RowShr(k) => in_row.checked_sub(k as usize).map(|from| row + from),
            DppCtrl::RowRor(k) => Some(row + (in_row + 16 - k as usize) % 16),
            DppCtrl::WaveShl1 => (lane < 63).then_some(lane + 1),
            DppCtrl::WaveRol1 => Some((lane + 1) % 64),
            DppCtrl::WaveShr1 => lane.checked_sub(1),
            DppCtrl::WaveRor1 => Some((lane + 63) % 64),
            DppCtrl::RowMirror => Some(row + 15 - in_row),
            DppCtrl::RowHalfMirror => Some((lane & !7) + 7 - (lane & 7)),
            DppCtrl::RowBcast15 if lane > 15 => Some(row - 1),
            DppCtrl::RowBcast31 if lane > 31 => Some(31),
            DppCtrl::RowBcast15 | DppCtrl::RowBcast31 => Some(lane),
        }
    }
}

impl fmt::Display for DppCtrl {
    /// llvm-mc's syntax: `quad_perm:[0,1,2,3]`, `row_shl:1`, `wave_ror:1`, `row_mirror`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DppCtrl::QuadPerm([a, b, c, d]) => write!(f, "quad_perm:[{a},{b},{c},{d}]"),
            DppCtrl::RowShl(k) => write!(f, "row_shl:{k}"),
            DppCtrl::RowShr(k) => write!(f, "row_shr:{k}"),
            DppCtrl::RowRor(k) => write!(f, "row_ror:{k}"),
            DppCtrl::WaveShl1 => f.write_str("wave_shl:1"),
            DppCtrl::WaveRol1 => f.write_str("wave_rol:1"),
            DppCtrl::WaveShr1 => f.write_str("wave_shr:1"),
            DppCtrl::WaveRor1 => f.write_str("wave_ror:1"),
            DppCtrl::RowMirror => f.write_str("row_mirror"),
            DppCtrl::RowHalfMirror => f.write_str("row_half_mirror"),
            DppCtrl::RowBcast15 => f.write_str("row_bcast:15"),
            DppCtrl::RowBcast31 => f.write_str("row_bcast:31"),
        }
    }
}

/// The DPP controls of an instruction (its abs/neg are [`super::McInst`]'s own fields).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dpp {
    pub ctrl: DppCtrl,
    /// Rows (bit n: lanes 16n–16n+15) whose lanes write the destination (4 bits). Masks
    /// apply to the write only: a masked lane's src0 is still readable by others.
    pub row_mask: u8,
    /// Banks (bit n: lanes 4n–4n+3 of every row) whose lanes write (4 bits).
    pub bank_mask: u8,
    /// BOUND_CTRL (bit 19): a lane whose source is invalid — out of range, or an inactive
    /// lane — reads 0 when set, and does not write when clear. llvm-mc writes the set bit
    /// as `bound_ctrl:0` or `bound_ctrl:1` and prints `bound_ctrl:1`.
    pub bound_ctrl: bool,
}

impl Dpp {
    /// `ctrl` with every row and bank writing and `bound_ctrl` clear, as llvm-mc assumes
    /// when the assembly omits them.
    pub fn new(ctrl: DppCtrl) -> Dpp {
        Dpp {
            ctrl,
            row_mask: 0xf,
            bank_mask: 0xf,
            bound_ctrl: false,
        }
    }

    /// Whether `lane` writes its destination under the row and bank masks.
    pub fn lane_enabled(&self, lane: usize) -> bool {
        self.row_mask >> (lane / 16) & 1 != 0 && self.bank_mask >> (lane / 4 % 4) & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpp_ctrl_codes_round_trip() {
        let mut valid = 0;
        for code in 0..0x200 {
            if let Some(ctrl) = DppCtrl::from_code(code) {
                assert_eq!(ctrl.code(), Some(code), "{ctrl}");
                valid += 1;
            }
        }
        // 256 quad permutations, 3 × 15 row shifts and rotates, 4 wave shifts, 2 mirrors,
        // 2 broadcasts.
        assert_eq!(valid, 256 + 45 + 4 + 2 + 2);
        assert_eq!(DppCtrl::RowShl(0).code(), None);
        assert_eq!(DppCtrl::RowRor(16).code(), None);
        assert_eq!(DppCtrl::QuadPerm([0, 1, 2, 4]).code(), None);
        assert_eq!(DppCtrl::QuadPerm([3, 2, 1, 0]).code(), Some(0x1b));
    }

    #[test]
    fn sdwa_codes_round_trip() {
        for sel in SdwaSel::ALL {
            assert_eq!(SdwaSel::from_code(sel.code()), Some(sel));
        }
        assert_eq!(SdwaSel::from_code(7), None);
        for unused in DstUnused::ALL {
            assert_eq!(DstUnused::from_code(unused.code()), Some(unused));
        }
        assert_eq!(DstUnused::from_code(3), None);
    }
}
