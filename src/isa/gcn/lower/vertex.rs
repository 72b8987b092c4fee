//! Vertex shaders on GCN (`docs/ir.md`, "Vertex-shader ABI"): the entry (user data in
//! place, the vertex id in v0 and the instance id in v1), the ids' intrinsics, and the
//! exports at the `return`: the position vectors (position, point size, clip distances),
//! then the parameters packed in location order.

use super::fragment::shader_user_data;
use super::{GcnLower, IsleContext};
use crate::CompileError;
use crate::intrinsics::{Intrinsic, iconst_value};
use crate::ir::{InstructionData, Opcode, Value};
use crate::isa::gcn::inst::Inst;
use crate::isa::gcn::mc::ExpTarget;
use crate::isa::gcn::regs::{VGPR, vgpr};
use crate::isa::gcn::vertex::{PositionVector, VertexInputs};
use crate::machinst::lower::Lower;
use crate::machinst::{Reg, RegClass};

impl GcnLower<'_> {
    /// A vertex shader's entry: the user data in place; v0 (and v1 when the instance id is
    /// read) defined by the hardware.
    pub(super) fn vertex_entry(
        &self,
        ctx: &mut Lower<'_, Inst>,
        params: &[Value],
    ) -> Result<(), CompileError> {
        shader_user_data(ctx, params);
        let defs = (0..=self.vertex().vgpr_comp_cnt as u16)
            .map(|k| (ctx.new_vreg(VGPR, RegClass::Int), vgpr(k)))
            .collect();
        ctx.emit(Inst::Args { defs });
        self.define_buffer_rsrc(ctx);
        Ok(())
    }

    pub(super) fn vertex(&self) -> VertexInputs {
        self.frame.inputs.vertex.expect("a vertex shader's frame")
    }
}

impl IsleContext<'_, '_> {
    /// A vertex-shader intrinsic's result (`None`: it has none, or it failed).
    pub(super) fn lower_vertex_intrinsic(&mut self, intrinsic: Intrinsic) -> Option<Reg> {
        match intrinsic {
            Intrinsic::VertexId => self.vertex_input(0),
            Intrinsic::InstanceId => self.vertex_input(1),
            Intrinsic::VertexInput => {
                self.fail(
                    "`wavelift_vertex_input` is not supported on GCN, which has no vertex-fetch \
                     hardware: a GCN vertex shader loads its attributes from the vertex buffers \
                     its user data points to (`docs/ir.md`, \"How front ends map onto this\")",
                );
                None
            }
            // The outputs are exported at the `return` (`vertex_exports`).
            _ => None,
        }
    }

    /// Input VGPR `k` (0 the vertex id, 1 the instance id), as the entry's `Args` defined
    /// it.
    fn vertex_input(&self, k: usize) -> Option<Reg> {
        self.lower.vcode.insts.iter().find_map(|i| match i {
            Inst::Args { defs } => defs.get(k).map(|d| d.0),
            _ => None,
        })
    }

    /// The end of a vertex shader: its outputs, read from the output calls of the
    /// returning block (`intrinsics::check_stage` allows them nowhere else and makes the
    /// position written), exported as the ABI orders them: `pos0`, the misc vector (the
    /// point size in x) and the clip-distance vectors that are written, the last of them
    /// with `done`, then `param0`… for the written locations in increasing order. A
    /// channel not written is `off`, as ACO exports them (the driver enables no clip
    /// distance the shader does not write). No `vm`: a vertex wave's exports write every
    /// lane of EXEC.
    pub(super) fn vertex_exports(&mut self) {
        let vertex = self.backend.vertex();
        let func = self.lower.func;
        let Some(returning) = func.layout.blocks().find(|&b| {
            func.layout
                .last_inst(b)
                .is_some_and(|t| func.dfg.insts[t].opcode() == Opcode::Return)
        }) else {
            return;
        };
        let vectors = vertex.position_vectors();
        let pos = |wanted: PositionVector| {
            let n = vectors.iter().position(|&v| v == wanted);
            ExpTarget::Pos(n.expect("a written output's vector is exported") as u8)
        };
        let mut channels: Vec<(ExpTarget, Vec<Option<Value>>)> = vertex
            .export_targets()
            .into_iter()
            .map(|target| (target, vec![None; 4]))
            .collect();
        let mut set = |target: ExpTarget, from: usize, values: &[Value]| {
            let (_, slots) = channels
                .iter_mut()
                .find(|(t, _)| *t == target)
                .expect("every written output's target is exported");
            for (slot, &value) in slots[from..].iter_mut().zip(values) {
                *slot = Some(value);
            }
        };
        for inst in func.layout.block_insts(returning) {
            let InstructionData::Call { func_ref, .. } = func.dfg.insts[inst] else {
                continue;
            };
            let args = func.dfg.inst_args(inst);
            match Intrinsic::from_func_ref(func, func_ref) {
                Some(Intrinsic::OutputPosition) => set(ExpTarget::Pos(0), 0, args),
                Some(Intrinsic::OutputPointSize) => set(pos(PositionVector::Misc), 0, args),
                Some(Intrinsic::OutputClipDistance) => {
                    let index = iconst_value(func, args[0]).expect("checked index") as u8;
                    let target = pos(PositionVector::ClipDistances(index / 4));
                    set(target, usize::from(index % 4), &args[1..2]);
                }
                Some(Intrinsic::OutputParam) => {
                    let location = iconst_value(func, args[0]).expect("checked location");
                    let index = vertex.param_index(location as u8);
                    set(ExpTarget::Param(index), 0, &args[1..5]);
                }
                _ => {}
            }
        }
        let last = ExpTarget::Pos(vertex.positions - 1);
        let exports = channels
            .into_iter()
            .map(|(target, values)| (target, values, target == last))
            .collect();
        self.export_all(exports, 0);
    }
}
