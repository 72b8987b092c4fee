//! Simulators that execute the machine code wavelift emits, for tests and for users
//! without the hardware. They decode code *bytes* with the same tables as the
//! disassembler, never compiler data structures.

pub mod gcn;
