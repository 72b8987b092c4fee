//! Vertex programs on NV50 (`docs/ir.md`, "Vertex-program ABI (NV50)"): the entry (the user
//! data from `c0[]`), the inputs and ids as `a[]` reads at the offsets
//! `isa::nv50::vertex` lays out, and the outputs as `o[]` writes before the `exit`.

use super::IsleContext;
use super::isle::generated::Context;
use crate::intrinsics::{Intrinsic, iconst_value};
use crate::ir::{InstructionData, Opcode, Value};
use crate::isa::nv50::inst::{Alu, Inst, Src};
use crate::isa::nv50::mc::{Op, Ty};
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    /// A vertex-shader intrinsic's result (`None`: it has none, or it failed).
    pub(super) fn lower_vertex_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        args: &[Value],
    ) -> Option<Reg> {
        let info = self.backend.vertex.expect("a vertex shader's ABI");
        let offset = match intrinsic {
            Intrinsic::VertexInput => {
                let func = self.lower.func;
                let (Some(l), Some(c)) = (iconst_value(func, args[0]), iconst_value(func, args[1]))
                else {
                    self.fail("a constant argument of a stage intrinsic is not an `iconst`");
                    return None;
                };
                info.input_offset(l as u8, c as u8)
                    .expect("laid out for every read")
            }
            Intrinsic::VertexId => info.vertex_id_offset(),
            Intrinsic::InstanceId => info.instance_id_offset(),
            // The outputs are written at the `return` (`vertex_outputs`).
            Intrinsic::OutputPosition | Intrinsic::OutputParam => return None,
            // Nouveau places these in `o[]` words the driver's clip and point-size
            // registers point at; that layout is not researched yet (`docs/ir.md`,
            // "Vertex-program ABI (NV50)").
            Intrinsic::OutputPointSize | Intrinsic::OutputClipDistance => {
                self.fail(format!(
                    "`{}` is not supported on NV50 yet: the vertex program's `o[]` layout has \
                     no point size or clip distances",
                    intrinsic.name()
                ));
                return None;
            }
            _ => {
                self.fail(format!(
                    "`{}` is not supported by the NV50 backend",
                    intrinsic.name()
                ));
                return None;
            }
        };
        let dst = self.vreg(RegClass::Int);
        self.emit(Inst::Alu(Alu::new(
            Op::Mov,
            Some(Ty::B32),
            Some(dst),
            &[Src::Attr(offset)],
        )));
        Some(dst)
    }

    /// The outputs of a vertex program at its `return`, written by the returning block's
    /// output calls (`intrinsics::check_stage` allows them nowhere else): the position in
    /// `o[0x0]`…, each parameter in its four words.
    pub(super) fn vertex_outputs(&mut self) {
        let info = self.backend.vertex.expect("a vertex shader's ABI");
        let func = self.lower.func;
        let returning = func.layout.blocks().find(|&b| {
            func.layout
                .last_inst(b)
                .is_some_and(|t| func.dfg.insts[t].opcode() == Opcode::Return)
        });
        let insts: Vec<crate::ir::Inst> = returning
            .map(|b| func.layout.block_insts(b).collect())
            .unwrap_or_default();
        for inst in insts {
            let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let args = func.dfg.inst_args(inst).to_vec();
            let (base, values) = match Intrinsic::from_func_ref(func, func_ref) {
                Some(Intrinsic::OutputPosition) => (0, &args[..4]),
                Some(Intrinsic::OutputParam) => {
                    let offset = iconst_value(func, args[0])
                        .and_then(|l| info.param_offset(l as u8))
                        .expect("laid out for every write");
                    (offset, &args[1..5])
                }
                _ => continue,
            };
            for (k, &value) in values.iter().enumerate() {
                let src = self.put_in_reg(value);
                self.emit(Inst::Output {
                    offset: base + 4 * k as u32,
                    src,
                });
            }
        }
    }
}
