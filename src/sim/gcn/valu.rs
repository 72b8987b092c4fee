//! Per-lane semantics of the GCN vector-ALU operations.

use crate::isa::gcn::mc::{Gen, McInst};

/// One lane's inputs to a VALU operation, as the wave core reads them.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct LaneInputs {
    /// Source values as raw bits (64-bit operands use all 64 bits, 32-bit ones the low
    /// 32), before input modifiers. Absent sources are 0.
    pub src: [u64; 3],
    /// The destination VGPR(s) before the instruction (`v_mac_f32` accumulates into it).
    pub dst_old: u64,
    /// This lane's bit of the lane-mask operand: the carry-in of `v_addc_u32`/`v_subb*`,
    /// the selector of `v_cndmask_b32` (VCC in VOP2, the SGPR pair in src2 in VOP3), and
    /// VCC for `v_div_fmas_f32`.
    pub mask_in: bool,
    /// The lane's index in the wave (0–63), for `v_mbcnt_*`.
    pub lane: u32,
}

/// One lane's results.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneOutputs {
    /// The VGPR result (low 32 bits for 32-bit results).
    pub dst: u64,
    /// This lane's bit of the scalar result: a compare result, a carry/borrow-out, the VCC
    /// result of `v_div_scale_f32`.
    pub sdst: bool,
}

/// Executes the lane-local VALU operation `inst` for one lane, applying its VOP3 input
/// modifiers (abs, neg), clamp and output modifier. Operations that read other lanes
/// (`v_readlane_b32`, `v_readfirstlane_b32`, `v_writelane_b32`) belong to the wave core and
/// are an error here.
pub(crate) fn exec(
    inst: &McInst,
    generation: Gen,
    input: &LaneInputs,
) -> Result<LaneOutputs, String> {
    let _ = (inst, generation, input);
    Err("not implemented".into())
}
