//! Analyses of the CLIF function that instruction selection consults.

pub mod bounds;
pub mod cfg;
pub mod kernel_args;
pub mod stack_addresses;
pub mod uniformity;
