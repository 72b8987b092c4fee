//! Fuzz target: arbitrary bytes drive wavelift's random CLIF generator in wide mode (types
//! and opcodes the backend does not support, other calling conventions, calls, memory,
//! branches); the function is verified and compiled for every supported target, which
//! must return `Ok` or a `CompileError`, never panic. See docs/testing.md:
//!
//!     cargo +nightly fuzz run compile
//!
//! With WAVELIFT_FUZZ_STRICT=1, internal compile errors (bugs reported as
//! `CompileError`s) count as crashes too.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wavelift::difftest::fuzz::compile_arbitrary;

fuzz_target!(|data: &[u8]| {
    let outcome = compile_arbitrary(data);
    if std::env::var_os("WAVELIFT_FUZZ_STRICT").is_some() {
        for error in &outcome.errors {
            assert!(
                !error.reason.starts_with("internal error"),
                "internal compiler error: {error}"
            );
        }
    }
});
