//! The targets.

pub mod gcn;
// Nothing in the compiler uses the NV50 machine-code layer until its backend lands; only
// the tests (with `test-support`) reach it meanwhile.
#[cfg_attr(not(feature = "test-support"), allow(dead_code, unused_imports))]
pub mod nv50;
