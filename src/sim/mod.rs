//! Simulators that execute the machine code wavelift emits, for tests and for users
//! without the hardware. They decode code *bytes* with the same tables as the
//! disassembler, never compiler data structures. [`harness`] runs CLIF functions on them
//! and checks results against `cranelift-interpreter`.

#[cfg(test)]
mod expansions;
pub mod gcn;
pub mod harness;
