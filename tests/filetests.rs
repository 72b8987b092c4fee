//! Runs every filetest under `filetests/`, and the benchmark kernels of `bench/kernels` and
//! `bench/cross-lane` (each a `test run`), through the built `clif-util test`.

use std::process::Command;

#[test]
fn filetests() {
    let output = Command::new(env!("CARGO_BIN_EXE_clif-util"))
        .args(["test", "filetests", "bench/kernels", "bench/cross-lane"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // Never bless from `cargo test`: a stray WAVELIFT_BLESS=1 would rewrite the
        // expectations instead of checking them.
        .env_remove("WAVELIFT_BLESS")
        .env_remove("CRANELIFT_TEST_BLESS")
        .output()
        .expect("cannot run clif-util");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "`clif-util test filetests` failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        !stderr.contains("panicked"),
        "clif-util panicked:\n{stderr}"
    );
    print!("{stdout}");
}
