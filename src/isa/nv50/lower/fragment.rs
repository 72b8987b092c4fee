//! Fragment programs on NV50 (`docs/ir.md`, "Fragment-program ABI (NV50)"): the entry (the
//! user data from `c0[]`, the fragment's `w` for the perspective inputs), the stage
//! intrinsics as `interp` of the `v[]` slots `isa::nv50::fragment` lays out, `discard`, and
//! the results in their registers at the `exit`.

use super::isle::generated::Context;
use super::{IsleContext, Nv50Lower};
use crate::CompileError;
use crate::intrinsics::{Interpolation, Intrinsic, SamplePoint, iconst_value};
use crate::ir::{InstructionData, Opcode, Value};
use crate::isa::nv50::fragment::{FRONT_FACE, FragmentInfo, InputSlot, SlotKind};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Mods, Op, Ty};
use crate::isa::nv50::regs::{GPR, gpr};
use crate::machinst::lower::Lower;
use crate::machinst::{Reg, RegClass};

impl Nv50Lower<'_> {
    /// A fragment program's entry: its user data ([`Nv50Lower::user_data_entry`]), and,
    /// when a perspective input is read, the fragment's `w`: the `rcp` of the linearly
    /// interpolated 1/w, which every perspective `interp` multiplies by (nouveau's
    /// prologue).
    pub(super) fn fragment_entry(
        &self,
        ctx: &mut Lower<'_, Inst>,
        info: &FragmentInfo,
        params: &[Value],
    ) -> Result<(), CompileError> {
        self.user_data_entry(ctx, params)?;
        if info.inputs.iter().any(|s| s.kind == SlotKind::Perspective) {
            let inverse = ctx.new_vreg(GPR, RegClass::Int);
            let w_offset = info.position_offset(3).expect("w is always in v[]");
            ctx.emit(Inst::Alu(Alu::new(
                Op::Interp,
                None,
                Some(inverse),
                &[Src::Varying(w_offset)],
            )));
            let w = ctx.new_vreg(GPR, RegClass::Int);
            ctx.emit(Inst::Alu(Alu::new(
                Op::Rcp,
                Some(Ty::F32),
                Some(w),
                &[Src::Reg(inverse)],
            )));
            self.frame.w.set(Some(w));
        }
        Ok(())
    }

    /// A graphics program's parameters: each word loaded from `c0[]`, in order from
    /// `c0[0x0]` (`docs/ir.md`, "Fragment-program ABI (NV50)").
    pub(super) fn user_data_entry(
        &self,
        ctx: &mut Lower<'_, Inst>,
        params: &[Value],
    ) -> Result<(), CompileError> {
        let mut offset = 0;
        for &param in params {
            let words = ctx.func.dfg.value_type(param).bytes().div_ceil(4);
            let parts: Vec<Reg> = (0..words)
                .map(|k| {
                    let dst = ctx.new_vreg(GPR, RegClass::Int);
                    ctx.emit(Inst::Alu(Alu::new(
                        Op::Ld,
                        Some(Ty::B32),
                        Some(dst),
                        &[Src::Const(offset + 4 * k)],
                    )));
                    dst
                })
                .collect();
            offset += 4 * words;
            let reg = match parts.as_slice() {
                [one] => *one,
                [lo, hi] => {
                    let dst = ctx.new_vreg(GPR, RegClass::Float);
                    ctx.emit(Inst::Combine {
                        dst,
                        lo: *lo,
                        hi: *hi,
                    });
                    dst
                }
                _ => {
                    let ty = ctx.func.dfg.value_type(param);
                    return Err(ctx.error(format!(
                        "a graphics program's user data of type {ty} is not supported"
                    )));
                }
            };
            ctx.set_value_reg(param, reg);
        }
        Ok(())
    }
}

impl IsleContext<'_, '_> {
    /// A fragment-shader intrinsic's result (`None`: it has none, or it failed).
    pub(super) fn lower_fragment_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        args: &[Value],
    ) -> Option<Reg> {
        let info = self.backend.fragment.expect("a fragment shader's ABI");
        match intrinsic {
            Intrinsic::Interp(mode) => {
                let (kind, times) = match mode.interpolation {
                    Interpolation::Perspective => {
                        (SlotKind::Perspective, self.backend.frame.w.get())
                    }
                    Interpolation::Linear => (SlotKind::Linear, None),
                };
                // `cent` serves the sample too: nouveau sets it for per-sample
                // interpolation (`docs/nv50.md`, "Fragment programs: `interp`").
                let mods = match mode.at {
                    SamplePoint::Center => Mods::NONE,
                    SamplePoint::Centroid | SamplePoint::Sample => Mods::CENT,
                };
                let offset = self.input_offset(info, args, kind)?;
                Some(self.interp(offset, mods, times))
            }
            Intrinsic::InterpFlat => {
                let offset = self.input_offset(info, args, SlotKind::Flat)?;
                Some(self.interp(offset, Mods::FLAT, None))
            }
            // The plane of w holds 1/w, which is `FragCoord.w` itself.
            Intrinsic::FragCoord(c) => {
                let offset = info.position_offset(c).expect("laid out for every read");
                Some(self.interp(offset, Mods::NONE, None))
            }
            // All ones for a front face, 0 for a back face.
            Intrinsic::FrontFacing => {
                let face = self.interp(FRONT_FACE, Mods::FLAT, None);
                let dst = self.vreg(RegClass::Int);
                self.emit(Inst::Alu(Alu::new(
                    Op::And,
                    Some(Ty::B32),
                    Some(dst),
                    &[Src::Reg(face), Src::Imm(1)],
                )));
                Some(dst)
            }
            Intrinsic::Discard => {
                self.emit(Inst::Kill);
                None
            }
            // The outputs go to their registers at the `return` (`fragment_results`).
            Intrinsic::OutputColor | Intrinsic::OutputDepth => None,
            // A fragment program's results are 32-bit registers whatever the render target;
            // the ROP converts them by its format (`docs/ir.md`, "Fragment-program ABI").
            Intrinsic::OutputColorF16 => {
                self.fail(
                    "`wavelift_output_color_f16` is not supported on NV50: a fragment \
                     program's colour results are 32-bit registers, and the conversion to a \
                     16-bit render target is the ROP's, by the target's format, not the \
                     program's",
                );
                None
            }
            // `v[]` holds one plane per word, evaluated only at the fragment by `interp`:
            // neither the barycentrics nor the vertex values behind a plane are readable.
            Intrinsic::InterpAt | Intrinsic::Barycentric(_) => {
                self.fail(format!(
                    "`{}` is not supported on NV50: its `interp` evaluates an input's plane at \
                     the fragment only, and no instruction reads the barycentrics or the \
                     vertex values behind a plane",
                    intrinsic.name()
                ));
                None
            }
            _ => {
                self.fail(format!(
                    "`{}` is not supported by the NV50 backend",
                    intrinsic.name()
                ));
                None
            }
        }
    }

    /// The results of a fragment program at its `return`: each output written by the
    /// returning block's output calls (`intrinsics::check_stage` allows them nowhere else),
    /// in its register.
    pub(super) fn fragment_results(&mut self) -> Vec<(Reg, Reg)> {
        let info = self.backend.fragment.expect("a fragment shader's ABI");
        let func = self.lower.func;
        let returning = func.layout.blocks().find(|&b| {
            func.layout
                .last_inst(b)
                .is_some_and(|t| func.dfg.insts[t].opcode() == Opcode::Return)
        });
        let insts: Vec<crate::ir::Inst> = returning
            .map(|b| func.layout.block_insts(b).collect())
            .unwrap_or_default();
        let mut results = Vec::new();
        for inst in insts {
            let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let args = func.dfg.inst_args(inst).to_vec();
            match Intrinsic::from_func_ref(func, func_ref) {
                Some(Intrinsic::OutputColor) => {
                    let Some(n) = iconst_value(func, args[0]) else {
                        continue;
                    };
                    for (c, &value) in args[1..5].iter().enumerate() {
                        let r = self.result_reg(value);
                        results.push((r, gpr(4 * n as u16 + c as u16)));
                    }
                }
                Some(Intrinsic::OutputDepth) => {
                    let r = self.result_reg(args[0]);
                    results.push((r, gpr(info.depth_register())));
                }
                _ => {}
            }
        }
        results
    }

    /// A result's own register: the allocator places each result in a fixed register, so
    /// a value written to two results is copied for the second.
    fn result_reg(&mut self, value: Value) -> Reg {
        let r = self.put_in_reg(value);
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Copy { dst, src: r });
        dst
    }

    fn interp(&mut self, offset: u32, mods: Mods, times: Option<Reg>) -> Reg {
        let dst = self.vreg(RegClass::Int);
        let mut srcs = vec![Src::Varying(offset)];
        srcs.extend(times.map(Src::Reg));
        let mut alu = Alu::new(Op::Interp, None, Some(dst), &srcs);
        alu.mods = mods;
        self.emit(Inst::Alu(alu));
        dst
    }

    /// The `v[]` offset of the input in `args[0..2]` read as `kind`.
    fn input_offset(&mut self, info: &FragmentInfo, args: &[Value], kind: SlotKind) -> Option<u32> {
        let func = self.lower.func;
        let slot = match (iconst_value(func, args[0]), iconst_value(func, args[1])) {
            (Some(location), Some(component)) => InputSlot {
                location: location as u8,
                component: component as u8,
                kind,
            },
            _ => {
                self.fail("a constant argument of a stage intrinsic is not an `iconst`");
                return None;
            }
        };
        let offset = info.input_offset(slot);
        if offset.is_none() {
            self.fail("internal error: an input without a `v[]` slot");
        }
        offset
    }
}
