//! The targets.

pub mod gcn;
