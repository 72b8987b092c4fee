//! Fragment programs' ABI on NV50 (`docs/ir.md`, "Fragment-program ABI (NV50)"): where
//! each input is in `v[]`, where the results go, and what the driver must be told, laid
//! out as nouveau's `nv50_fragprog_assign_slots` does (`docs/nv50.md`, "Graphics stages").

use crate::intrinsics::{Interpolation, Intrinsic, iconst_value};
use crate::ir;

/// The `v[]` byte offset of the front-facing flag (`interp flat`: all ones for a front
/// face, 0 for a back face).
pub const FRONT_FACE: u32 = 0x3fc;

/// How a `v[]` slot's plane varies: it holds `a/w` (read times the fragment's `w`), `a`,
/// or the provoking vertex's word (read `flat`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotKind {
    Perspective,
    Linear,
    Flat,
}

/// One `v[]` slot after the position: the vertex output it comes from (the fragment
/// input's location and component) and its plane.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputSlot {
    pub location: u8,
    pub component: u8,
    pub kind: SlotKind,
}

/// What a fragment program reads and writes, for its code and for the driver's
/// `FP_INTERPOLANT_CTRL`, `VP_RESULT_MAP`/`NOPERSPECTIVE_BITMAP`, `FP_RESULT_COUNT` and
/// `FP_CONTROL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentInfo {
    /// The window-position components in `v[]` (`FP_INTERPOLANT_CTRL.UMASK`: x, y, z in
    /// bits 0–2 when read, w in bit 3 always): the first slots, in that order.
    pub position_mask: u8,
    /// The slots after the position, the non-flat ones first (each in location, component,
    /// perspective-before-linear order), then the flat ones. The driver maps slot k to
    /// the vertex output of `inputs[k]` and sets its `NOPERSPECTIVE_BITMAP` bit when
    /// `Linear`; `COUNT` is `inputs.len()`, `COUNT_NONFLAT` [`FragmentInfo::nonflat`].
    pub inputs: Vec<InputSlot>,
    /// Whether the program reads the facing flag (`v[0x3fc]`).
    pub front_facing: bool,
    /// The colour targets written, a bit each: target n in `$r(4n)`…`$r(4n+3)`.
    pub colors: u8,
    /// Whether the depth is written: in the register after the highest colour target's
    /// (`$r0` without one); `FP_CONTROL.EXPORTS_Z`.
    pub depth: bool,
    /// Whether the program may `discard` (`FP_CONTROL.USES_KIL`).
    pub discards: bool,
    /// Words of user data in `c0[]` from 0x0: the parameters one word each (an i64 two, low
    /// first), in order, as GCN's user-data SGPRs.
    pub user_data: u32,
}

impl FragmentInfo {
    /// The slots `func` (a fragment shader) reads; Err: the reason an input cannot be
    /// placed.
    pub fn of(func: &ir::Function) -> Result<FragmentInfo, String> {
        let mut info = FragmentInfo {
            position_mask: 8,
            inputs: Vec::new(),
            front_facing: false,
            colors: 0,
            depth: false,
            discards: false,
            user_data: super::user_data_words(&func.signature),
        };
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let ir::InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                    continue;
                };
                let Some(intrinsic) = Intrinsic::from_func_ref(func, func_ref) else {
                    continue;
                };
                let args = func.dfg.inst_args(inst);
                let constant = |k: usize| args.get(k).and_then(|&a| iconst_value(func, a));
                let mut input = |kind| {
                    if let (Some(location), Some(component)) = (constant(0), constant(1)) {
                        info.inputs.push(InputSlot {
                            location: location as u8,
                            component: component as u8,
                            kind,
                        });
                    }
                };
                match intrinsic {
                    Intrinsic::Interp(mode) => input(match mode.interpolation {
                        Interpolation::Perspective => SlotKind::Perspective,
                        Interpolation::Linear => SlotKind::Linear,
                    }),
                    Intrinsic::InterpFlat => input(SlotKind::Flat),
                    Intrinsic::FragCoord(c) if c < 3 => info.position_mask |= 1 << c,
                    Intrinsic::FrontFacing => info.front_facing = true,
                    Intrinsic::Discard => info.discards = true,
                    Intrinsic::OutputColor => {
                        if let Some(n) = constant(0) {
                            info.colors |= 1 << n;
                        }
                    }
                    Intrinsic::OutputDepth => info.depth = true,
                    _ => {}
                }
            }
        }
        info.inputs.sort_by_key(|s| (s.kind == SlotKind::Flat, *s));
        info.inputs.dedup();
        let last = info.slot_count() - 1;
        if last >= FRONT_FACE / 4 {
            return Err(format!(
                "the fragment shader reads {} input words: NV50's `v[]` has {} slots below the \
                 facing flag",
                info.inputs.len(),
                FRONT_FACE / 4 - info.position_mask.count_ones()
            ));
        }
        Ok(info)
    }

    /// `COUNT_NONFLAT`: how many of [`FragmentInfo::inputs`] are not flat.
    pub fn nonflat(&self) -> u32 {
        self.inputs
            .iter()
            .filter(|s| s.kind != SlotKind::Flat)
            .count() as u32
    }

    fn slot_count(&self) -> u32 {
        self.position_mask.count_ones() + self.inputs.len() as u32
    }

    /// The `v[]` byte offset of position component `c` (0–3), if in `v[]`.
    pub fn position_offset(&self, c: u8) -> Option<u32> {
        (self.position_mask >> c & 1 == 1)
            .then(|| 4 * (self.position_mask & ((1 << c) - 1)).count_ones())
    }

    /// The `v[]` byte offset of an input.
    pub fn input_offset(&self, slot: InputSlot) -> Option<u32> {
        let k = self.inputs.iter().position(|&s| s == slot)? as u32;
        Some(4 * (self.position_mask.count_ones() + k))
    }

    /// The register the depth goes to, after the colour targets.
    pub fn depth_register(&self) -> u16 {
        4 * (8 - self.colors.leading_zeros() as u16)
    }

    /// `FP_RESULT_COUNT`: the result registers (4 when nothing is written).
    pub fn result_count(&self) -> u32 {
        match self.depth_register() as u32 + self.depth as u32 {
            0 => 4,
            n => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(body: &str) -> FragmentInfo {
        let text = format!(
            "function %fs() system_v {{
    fn0 = %wavelift_stage_fragment()
    fn1 = %wavelift_interp_perspective_center(i32, i32) -> f32
    fn2 = %wavelift_interp_linear_centroid(i32, i32) -> f32
    fn3 = %wavelift_interp_flat(i32, i32) -> f32
    fn4 = %wavelift_frag_coord_y() -> f32
    fn5 = %wavelift_output_color(i32, f32, f32, f32, f32)
    fn6 = %wavelift_output_depth(f32)
block0:
    v0 = iconst.i32 0
    v1 = iconst.i32 1
    v2 = iconst.i32 2
{body}
    return
}}"
        );
        FragmentInfo::of(&cranelift_reader::parse_functions(&text).unwrap()[0]).unwrap()
    }

    /// nouveau's order: the position components read and w, the non-flat inputs, the
    /// flat ones; a location read two ways takes a slot per way.
    #[test]
    fn slots_follow_nouveau_order() {
        let info = info(
            "    v3 = call fn3(v1, v0)
    v4 = call fn2(v2, v1)
    v5 = call fn1(v2, v1)
    v6 = call fn4()
    v7 = call fn1(v0, v0)
    call fn5(v2, v3, v4, v5, v6)
    call fn6(v7)",
        );
        assert_eq!(info.position_mask, 0b1010);
        assert_eq!(info.position_offset(1), Some(0x0));
        assert_eq!(info.position_offset(3), Some(0x4));
        assert_eq!(info.position_offset(0), None);
        let slot = |location, component, kind| InputSlot {
            location,
            component,
            kind,
        };
        assert_eq!(
            info.inputs,
            [
                slot(0, 0, SlotKind::Perspective),
                slot(2, 1, SlotKind::Perspective),
                slot(2, 1, SlotKind::Linear),
                slot(1, 0, SlotKind::Flat),
            ]
        );
        assert_eq!(info.nonflat(), 3);
        assert_eq!(info.input_offset(slot(1, 0, SlotKind::Flat)), Some(0x14));
        // Colour target 2 in $r8..$r11, the depth after it.
        assert_eq!((info.colors, info.depth_register()), (0b100, 12));
        assert_eq!(info.result_count(), 13);
    }

    /// Nothing written: four result registers, as nouveau's minimum; the depth alone in
    /// `$r0`.
    #[test]
    fn result_counts() {
        assert_eq!(info("").result_count(), 4);
        let depth = info("    v3 = call fn4()\n    call fn6(v3)");
        assert_eq!((depth.depth_register(), depth.result_count()), (0, 1));
    }
}
