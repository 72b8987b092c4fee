//! The wavelift intrinsics (`crate::intrinsics`) on GCN: work-item and work-group ids and
//! sizes from the kernel's hardware inputs.

use super::IsleContext;
use crate::isa::gcn::inst::{Inst, Src};
use crate::isa::gcn::mc::Op;
use crate::isa::gcn::regs::SGPR;

use crate::FunctionKind;
use crate::intrinsics::Intrinsic;
use crate::machinst::{Reg, RegClass};

impl IsleContext<'_, '_> {
    pub(super) fn lower_intrinsic(&mut self, intrinsic: Intrinsic) -> Option<Reg> {
        let frame = self.backend.frame;
        match intrinsic {
            Intrinsic::WorkitemId(d) => {
                if self.backend.kind != FunctionKind::Kernel {
                    self.fail("work-item ids are only available in kernels");
                    return None;
                }
                // The entry's `Args` defines v0..v2 first, in order.
                let args = self.lower.vcode.insts.iter().find_map(|i| match i {
                    Inst::Args { defs } => Some(defs.clone()),
                    _ => None,
                })?;
                Some(args[d as usize].0)
            }
            Intrinsic::WorkgroupId(d) => {
                let Some(r) = frame.workgroup_id[d as usize] else {
                    self.fail("work-group ids are only available in kernels");
                    return None;
                };
                // The hardware-initialised SGPR is never allocated: use it in place.
                Some(r)
            }
            Intrinsic::WorkgroupSize(d) => {
                let Some(base) = frame.dispatch_ptr else {
                    self.fail("work-group sizes are only available in kernels");
                    return None;
                };
                // hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z are u16 at byte 4, 6, 8.
                let dword = self.vreg(SGPR, RegClass::Int);
                let offset = 4 + 2 * d as u32;
                self.emit(Inst::SLoad {
                    op: Op::SLoadDword,
                    dst: dword,
                    base,
                    offset: offset & !3,
                    soffset: None,
                });
                let field = (16 << 16) | ((offset & 3) * 8);
                Some(self.salu(
                    Op::SBfeU32,
                    &[Src::Reg(dword), Src::Imm(field)],
                    RegClass::Int,
                ))
            }
            Intrinsic::LaneId => {
                // mbcnt over an all-ones mask counts the lanes below this one.
                let lo = self.valu(
                    Op::VMbcntLoU32B32,
                    &[Src::Imm(u32::MAX), Src::Imm(0)],
                    RegClass::Int,
                );
                Some(self.valu(
                    Op::VMbcntHiU32B32,
                    &[Src::Imm(u32::MAX), Src::Reg(lo)],
                    RegClass::Int,
                ))
            }
        }
    }
}
