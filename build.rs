//! Generates CLIF's ISLE extractors with `cranelift-codegen-meta`, then compiles our prelude
//! and each target's `.isle` files with `cranelift-isle` into `OUT_DIR`.

use std::path::{Path, PathBuf};

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let isle_out = out_dir.join("isle");
    std::fs::create_dir_all(&isle_out).expect("create OUT_DIR/isle");
    cranelift_codegen_meta::generate_isle(&isle_out).expect("generate CLIF ISLE definitions");

    println!("cargo:rerun-if-changed=build.rs");
    let prelude = crate_dir.join("isle/prelude.isle");
    println!("cargo:rerun-if-changed={}", prelude.display());
    // One ISLE compilation per target: `isle/<target>/*.isle` into `isle_<target>.rs`.
    for target in TARGETS {
        let mut inputs = vec![prelude.clone(), isle_out.join("clif_lower.isle")];
        inputs.extend(isle_files(&crate_dir.join("isle").join(target)));
        compile_isle(
            &inputs,
            &out_dir.join(format!("isle_{target}.rs")),
            &out_dir,
        );
    }
}

/// The targets, each with its folder under `isle/` (and `src/isa/`, `src/sim/`).
const TARGETS: &[&str] = &["gcn", "nv50"];

fn isle_files(dir: &Path) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "isle"))
        .collect();
    files.sort();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    files
}

fn compile_isle(inputs: &[PathBuf], output: &Path, out_dir: &Path) {
    let options = cranelift_isle::codegen::CodegenOptions {
        // The generated code is include!()d, so it cannot carry crate-level attributes.
        exclude_global_allow_pragmas: true,
        prefixes: vec![cranelift_isle::codegen::Prefix {
            prefix: out_dir.display().to_string(),
            name: "<OUT_DIR>".to_string(),
        }],
        ..Default::default()
    };
    match cranelift_isle::compile::from_files(inputs, &options) {
        Ok(code) => std::fs::write(output, code).expect("write ISLE output"),
        Err(errors) => {
            eprintln!("ISLE compilation failed:\n{errors}");
            std::process::exit(1);
        }
    }
}
