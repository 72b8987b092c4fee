//! GPU intrinsics: operations CLIF has no opcode for, written as calls to external
//! functions with reserved names. This module owns the list: each intrinsic's name, CLIF
//! signature and semantics; the targets lower the calls. `docs/ir.md` documents them.
//!
//! In `.clif` text an intrinsic is declared by its name, for example
//! `fn0 = %wavelift_workitem_id_x() -> i32`, and called with `call fn0()`. Front ends
//! building CLIF in Rust use [`declare`].

use crate::ir::{self, AbiParam, ExternalName, FuncRef, Signature, types};
use cranelift_codegen::isa::CallConv;

/// Every intrinsic. More will come (memory spaces, barriers), so matches need a wildcard.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Intrinsic {
    /// The work-item's id within its work-group along a dimension (0, 1, 2).
    WorkitemId(u8),
    /// The work-group's id within the grid along a dimension.
    WorkgroupId(u8),
    /// The number of work-items in a work-group along a dimension.
    WorkgroupSize(u8),
    /// The lane's index within its wave (0..64 on GCN).
    LaneId,
}

const DIMS: [char; 3] = ['x', 'y', 'z'];

impl Intrinsic {
    /// All intrinsics, in documentation order.
    pub fn all() -> Vec<Intrinsic> {
        let mut all = Vec::new();
        for d in 0..3 {
            all.push(Intrinsic::WorkitemId(d));
        }
        for d in 0..3 {
            all.push(Intrinsic::WorkgroupId(d));
        }
        for d in 0..3 {
            all.push(Intrinsic::WorkgroupSize(d));
        }
        all.push(Intrinsic::LaneId);
        all
    }

    /// The reserved external name (a CLIF test-case name, `%name` in text).
    pub fn name(self) -> String {
        let dim = |d: u8| DIMS[d as usize];
        match self {
            Intrinsic::WorkitemId(d) => format!("wavelift_workitem_id_{}", dim(d)),
            Intrinsic::WorkgroupId(d) => format!("wavelift_workgroup_id_{}", dim(d)),
            Intrinsic::WorkgroupSize(d) => format!("wavelift_workgroup_size_{}", dim(d)),
            Intrinsic::LaneId => "wavelift_lane_id".to_string(),
        }
    }

    /// The intrinsic with the reserved name `name` (without the `%`), if there is one.
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        Intrinsic::all().into_iter().find(|i| i.name() == name)
    }

    /// The intrinsic a call's callee names, if it is one.
    pub fn from_func_ref(func: &ir::Function, func_ref: FuncRef) -> Option<Intrinsic> {
        match &func.dfg.ext_funcs[func_ref].name {
            ExternalName::TestCase(name) => std::str::from_utf8(name.raw())
                .ok()
                .and_then(Intrinsic::from_name),
            _ => None,
        }
    }

    /// The CLIF signature calls must use.
    pub fn signature(self) -> Signature {
        let mut sig = Signature::new(CallConv::Fast);
        sig.returns.push(AbiParam::new(types::I32));
        sig
    }

    /// Whether the result is the same in every lane of a wave (given uniform arguments).
    pub fn is_uniform(self) -> bool {
        matches!(
            self,
            Intrinsic::WorkgroupId(_) | Intrinsic::WorkgroupSize(_)
        )
    }
}

/// Declares `intrinsic` in `func` and returns the reference to call it with.
pub fn declare(func: &mut ir::Function, intrinsic: Intrinsic) -> FuncRef {
    let signature = func.import_signature(intrinsic.signature());
    func.import_function(ir::ExtFuncData {
        name: ExternalName::testcase(intrinsic.name()),
        signature,
        colocated: true,
        patchable: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for i in Intrinsic::all() {
            assert_eq!(Intrinsic::from_name(&i.name()), Some(i));
        }
        assert_eq!(Intrinsic::from_name("wavelift_nothing"), None);
    }

    #[test]
    fn declared_intrinsics_are_recognised() {
        let mut func = ir::Function::new();
        let f = declare(&mut func, Intrinsic::WorkgroupId(1));
        assert_eq!(
            Intrinsic::from_func_ref(&func, f),
            Some(Intrinsic::WorkgroupId(1))
        );
    }
}
