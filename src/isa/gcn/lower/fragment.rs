//! Fragment shaders on GCN (`docs/ir.md`, "Fragment-shader ABI"): the entry (user data in
//! place, the enabled inputs from v0 on, the primitive mask copied into M0), the stage
//! intrinsics (VINTRP for the interpolated inputs, the input VGPRs for barycentrics,
//! position and facing) and the exports at the `return`.

use super::isle::generated::Context;
use super::linear::mov64;
use super::{GcnLower, IsleContext};
use crate::CompileError;
use crate::intrinsics::{Intrinsic, iconst_value};
use crate::ir::{InstructionData, Opcode, Value};
use crate::isa::gcn::fragment::{FRONT_FACE, POS_X, PixelInputs, barycentric_bit};
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::{ExpTarget, Gen, Op};
use crate::isa::gcn::regs::{EXEC, SGPR, VGPR, sgpr, vgpr};
use crate::machinst::lower::Lower;
use crate::machinst::{Reg, RegClass};
use smallvec::smallvec;

impl GcnLower<'_> {
    /// A fragment shader's entry: each parameter is its user-data SGPR(s), used in place
    /// (an i64 copied into an aligned pair); the enabled inputs are defined from v0 on.
    pub(super) fn fragment_entry(
        &self,
        ctx: &mut Lower<'_, Inst>,
        params: &[Value],
    ) -> Result<(), CompileError> {
        let pixel = self.pixel();
        shader_user_data(ctx, params);
        let defs = (0..pixel.input_vgpr_count())
            .map(|k| (ctx.new_vreg(VGPR, RegClass::Int), vgpr(k)))
            .collect();
        ctx.emit(Inst::Args { defs });
        if let Some(live) = pixel.live_lanes() {
            ctx.emit(mov64(live, Src::Reg(EXEC)));
        }
        if pixel.interpolates {
            ctx.emit(Inst::SetM0 {
                src: pixel.prim_mask(),
            });
        }
        self.define_buffer_rsrc(ctx);
        Ok(())
    }

    pub(super) fn pixel(&self) -> PixelInputs {
        self.frame.inputs.pixel.expect("a fragment shader's frame")
    }
}

/// A graphics shader's user data: each parameter is its SGPR(s) from s0, used in place (an
/// i64 copied into an aligned pair).
pub(super) fn shader_user_data(ctx: &mut Lower<'_, Inst>, params: &[Value]) {
    let mut next = 0;
    for &param in params {
        if ctx.func.dfg.value_type(param).bytes() <= 4 {
            ctx.set_value_reg(param, sgpr(next));
            next += 1;
            continue;
        }
        let dst = ctx.new_vreg(SGPR, RegClass::Float);
        ctx.emit(Inst::Combine {
            dst,
            parts: smallvec![sgpr(next), sgpr(next + 1)],
        });
        ctx.set_value_reg(param, dst);
        next += 2;
    }
}

impl IsleContext<'_, '_> {
    /// A fragment-shader intrinsic's result (`None`: it has none, or it failed).
    pub(super) fn lower_fragment_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        args: &[Value],
    ) -> Option<Reg> {
        match intrinsic {
            Intrinsic::Interp(mode) => {
                let bit = barycentric_bit(mode);
                let (i, j) = (self.pixel_input(bit, 0)?, self.pixel_input(bit, 1)?);
                self.interp(args, i, j)
            }
            Intrinsic::InterpAt => {
                let i = self.value_reg(args[2]);
                let i = self.vgpr_copy(i);
                let j = self.value_reg(args[3]);
                let j = self.vgpr_copy(j);
                self.interp(args, i, j)
            }
            Intrinsic::InterpFlat => {
                let (attr, chan) = self.attribute(args)?;
                let dst = self.vreg(VGPR, RegClass::Int);
                self.emit(Inst::InterpMov { dst, attr, chan });
                Some(dst)
            }
            Intrinsic::Barycentric(mode) => {
                let which = self.constant(args[0])?;
                self.pixel_input(barycentric_bit(mode), which as u16)
            }
            // SPIR-V's FragCoord.w is 1/w; the hardware gives w.
            Intrinsic::FragCoord(3) => {
                let w = self.pixel_input(POS_X + 3, 0)?;
                Some(self.valu(Op::VRcpF32, &[Src::Reg(w)], RegClass::Int))
            }
            Intrinsic::FragCoord(c) => self.pixel_input(POS_X + c as u32, 0),
            // Front-facing when the input is not 0 (ACO's `v_cmp_lg_u32 0, front_face`).
            Intrinsic::FrontFacing => {
                let face = self.pixel_input(FRONT_FACE, 0)?;
                let front = self.vcmp(&Op::VCmpNeU32, Src::Imm(0), Src::Reg(face));
                Some(self.cndmask(Src::Imm(0), Src::Imm(1), front))
            }
            // The lanes calling it are EXEC: the block's lanes in linearized code, the
            // wave's in uniform code. Out of EXEC, they are out of every edge leaving the
            // block, so no lane mask brings them back; the exports' `vm` leaves their
            // pixels unwritten (`docs/ir.md`, "Fragment-shader ABI").
            Intrinsic::Discard => {
                let live = self
                    .backend
                    .pixel()
                    .live_lanes()
                    .expect("a discarding shader");
                self.emit(Inst::Discard { live });
                None
            }
            // The outputs are exported at the `return` (`fragment_exports`).
            Intrinsic::OutputColor | Intrinsic::OutputColorF16 | Intrinsic::OutputDepth => None,
            _ => {
                self.fail(format!(
                    "`{}` is not supported yet on GCN",
                    intrinsic.name()
                ));
                None
            }
        }
    }

    /// The end of a fragment shader: its outputs, read from the output calls of the
    /// returning block (`intrinsics::check_stage` allows them nowhere else), exported
    /// depth first, then the colour targets; the last export `done`, every one `vm`,
    /// under the lanes not discarded.
    pub(super) fn fragment_exports(&mut self) {
        let pixel = self.backend.pixel();
        if let Some(live) = pixel.live_lanes() {
            self.emit(mov64(EXEC, Src::Reg(live)));
        }
        let func = self.lower.func;
        // A shader with outputs has one `return` (`intrinsics::check_stage`); without,
        // each `return` makes the null export.
        let returning = func.layout.blocks().find(|&b| {
            func.layout
                .last_inst(b)
                .is_some_and(|t| func.dfg.insts[t].opcode() == Opcode::Return)
        });
        let block_insts: Vec<crate::ir::Inst> = returning
            .map(|b| func.layout.block_insts(b).collect())
            .unwrap_or_default();
        let mut channels: Vec<(ExpTarget, Vec<Value>)> = Vec::new();
        for inst in block_insts {
            let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let args = func.dfg.inst_args(inst);
            match Intrinsic::from_func_ref(func, func_ref) {
                Some(Intrinsic::OutputColor | Intrinsic::OutputColorF16) => {
                    let Some(n) = iconst_value(func, args[0]) else {
                        continue;
                    };
                    channels.push((ExpTarget::Mrt(n as u8), args[1..5].to_vec()));
                }
                Some(Intrinsic::OutputDepth) => {
                    channels.push((ExpTarget::MrtZ, vec![args[0]]));
                }
                _ => {}
            }
        }
        let targets = pixel.export_targets();
        let last = targets.len() - 1;
        let exports = targets
            .into_iter()
            .enumerate()
            .map(|(k, target)| {
                let values = channels
                    .iter()
                    .find(|(t, _)| *t == target)
                    .map_or(Vec::new(), |(_, values)| {
                        values.iter().copied().map(Some).collect()
                    });
                (target, values, k == last)
            })
            .collect();
        self.export_all(exports, pixel.fp16_targets);
    }

    /// `exp target` of each `(target, values, done)` (channels from x; `None` and the
    /// channels past the values are `off`); colour target n compressed when bit n of
    /// `fp16_targets` is set, its channels packed in pairs by `v_cvt_pkrtz_f16_f32` (`exp
    /// mrtN v0, v0, v1, v1 compr`). Every source VGPR is written before the first export:
    /// the hardware reads them after issue, until EXP_CNT drops, and nothing after the
    /// exports waits for it.
    pub(super) fn export_all(
        &mut self,
        exports: Vec<(ExpTarget, Vec<Option<Value>>, bool)>,
        fp16_targets: u8,
    ) {
        let compressed =
            |target: ExpTarget| matches!(target, ExpTarget::Mrt(n) if fp16_targets >> n & 1 != 0);
        let mut vgprs: Vec<(Value, Reg)> = Vec::new();
        let mut constants: Vec<(u32, Reg)> = Vec::new();
        let mut sources = Vec::new();
        for (target, values, _) in &exports {
            if compressed(*target) {
                let mut packed = [Src::Imm(0); 4];
                // A colour writes all four channels.
                for (slot, &value) in packed.iter_mut().zip(values.iter().flatten()) {
                    *slot = match self.const32(value) {
                        Some(bits) => Src::Imm(bits),
                        None => Src::Reg(self.value_reg(value)),
                    };
                }
                let low = self.valu(Op::VCvtPkrtzF16F32, &packed[0..2], RegClass::Int);
                let high = self.valu(Op::VCvtPkrtzF16F32, &packed[2..4], RegClass::Int);
                sources.push([Some(low), Some(low), Some(high), Some(high)]);
                continue;
            }
            let mut src = [None; 4];
            for (slot, &value) in src.iter_mut().zip(values) {
                let Some(value) = value else {
                    continue;
                };
                // A constant goes straight into a VGPR, not through an SGPR; each value
                // and each constant takes one VGPR however many channels it fills.
                let reg = match self.const32(value) {
                    Some(bits) => match constants.iter().find(|(b, _)| *b == bits) {
                        Some(&(_, r)) => r,
                        None => {
                            let r = self.valu(Op::VMovB32, &[Src::Imm(bits)], RegClass::Int);
                            constants.push((bits, r));
                            r
                        }
                    },
                    None => match vgprs.iter().find(|(v, _)| *v == value) {
                        Some(&(_, r)) => r,
                        None => {
                            let r = self.value_reg(value);
                            let r = self.vgpr_copy(r);
                            vgprs.push((value, r));
                            r
                        }
                    },
                };
                *slot = Some(reg);
            }
            sources.push(src);
        }
        for ((target, _, done), src) in exports.into_iter().zip(sources) {
            self.emit(Inst::Export {
                target,
                src,
                done,
                compr: compressed(target),
            });
        }
    }

    /// `P0 + i·P10 + j·P20` of the attribute and channel in `args[0..2]`.
    fn interp(&mut self, args: &[Value], i: Reg, j: Reg) -> Option<Reg> {
        let (attr, chan) = self.attribute(args)?;
        let dst = self.vreg(VGPR, RegClass::Int);
        self.emit(Inst::Interp {
            dst,
            i,
            j,
            attr,
            chan,
            reuse_i: interp_may_reuse_i(self.backend.generation),
        });
        Some(dst)
    }

    /// The location and component arguments (checked `iconst`s) as VINTRP's attribute
    /// and channel.
    fn attribute(&mut self, args: &[Value]) -> Option<(u8, u8)> {
        Some((self.constant(args[0])? as u8, self.constant(args[1])? as u8))
    }

    fn constant(&mut self, arg: Value) -> Option<u32> {
        let value = iconst_value(self.lower.func, arg);
        if value.is_none() {
            self.fail("a constant argument of a stage intrinsic is not an `iconst`");
        }
        value
    }

    /// The `k`th VGPR of input `bit`, as the entry's `Args` defined it.
    fn pixel_input(&mut self, bit: u32, k: u16) -> Option<Reg> {
        let pixel = self.backend.frame.inputs.pixel.expect("a fragment shader");
        let at = pixel.input_vgpr(bit).expect("every input read is enabled") + k;
        self.lower.vcode.insts.iter().find_map(|i| match i {
            Inst::Args { defs } => defs.get(at as usize).map(|d| d.0),
            _ => None,
        })
    }
}

/// Whether `v_interp_p1_f32` may write the register of its I input on every CPU of
/// `generation`. Parts with 16 LDS banks forbid it (the VINTRP seed; LLVM's
/// `FeatureLDSBankCount16`): gfx810 and the gfx702, gfx703 and gfx705 Sea Islands parts,
/// where llc-19 keeps them apart and reuses the register on every other CPU. wavelift
/// compiles per generation, so GFX7 and GFX8 keep them apart on every CPU.
fn interp_may_reuse_i(generation: Gen) -> bool {
    matches!(generation, Gen::Gfx6 | Gen::Gfx9)
}
