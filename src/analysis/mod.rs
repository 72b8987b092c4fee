//! Analyses of the CLIF function that instruction selection consults.

pub mod cfg;
pub mod linearize;
pub mod uniformity;
