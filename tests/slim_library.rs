//! A front end that depends on wavelift with `default-features = false` compiles none of
//! the simulator's, the tests' or the command line's dependencies. A scratch crate with a
//! path dependency on this one is resolved by `cargo tree --offline` (every crate is in the
//! lockfile and the local registry cache already), and its dependency tree must not hold
//! them; with the default features it does, which shows the check can see them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates only `test-support` and `cli` need.
const HEAVY: [&str; 4] = [
    "clap",
    "cranelift-interpreter",
    "cranelift-reader",
    "arbitrary",
];

/// The names of the packages in the dependency tree of a scratch crate depending on
/// wavelift with `dependency` as its `Cargo.toml` dependency table's options.
fn scratch_tree(name: &str, dependency: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nwavelift = {{ path = {:?}{dependency} }}\n\n\
             # Its own workspace, whatever directory it is in.\n[workspace]\n",
            root.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    // The same versions as wavelift's own build, so that nothing needs the network.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "--prefix", "none", "--format", "{p}"])
        .current_dir(&dir)
        .output()
        .expect("run cargo tree");
    assert!(
        output.status.success(),
        "cargo tree failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn without_default_features_the_tree_has_no_test_or_cli_crates() {
    let tree = scratch_tree("slim_front_end", ", default-features = false");
    assert!(tree.iter().any(|p| p == "wavelift"), "{tree:?}");
    assert!(tree.iter().any(|p| p == "cranelift-codegen"), "{tree:?}");
    assert!(tree.iter().any(|p| p == "cranelift-frontend"), "{tree:?}");
    for heavy in HEAVY {
        assert!(
            !tree.iter().any(|p| p == heavy),
            "`{heavy}` is in the tree of a crate depending on wavelift without default \
             features:\n{tree:?}"
        );
    }
}

#[test]
fn with_default_features_the_tree_has_them() {
    let tree = scratch_tree("default_front_end", "");
    for heavy in HEAVY {
        assert!(tree.iter().any(|p| p == heavy), "{heavy} missing: {tree:?}");
    }
}
