//! Models of the multi-instruction expansions checked without a GPU: the integer division
//! sequences (`div`, `div64`), the f32/f64 division and square root (`fdiv`, `fdiv64`),
//! and the gfx6 f64 roundings (`round64`). The expansions' MC instructions run one lane at
//! a time through the simulator's semantics of each opcode, or are followed step by step,
//! and are compared bit for bit with Rust's arithmetic over edge values and random inputs.
//! They live here, on the simulator's side, so that the backend does not import the
//! simulator (which is built only with the `test-support` feature).

mod div;
mod div64;
mod fdiv;
mod fdiv64;
mod round64;
