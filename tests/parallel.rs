//! Compiling on several threads gives what compiling one function after the other gives:
//! every function of the filetests and the benchmark suite, for each kind of target, byte
//! for byte and error for error; and a module's error is its first failing function's.

mod filetest_text;
use std::path::{Path, PathBuf};
use wavelift::{CompileError, CompiledCode, Target, ir};

fn clif_files(path: &Path, out: &mut Vec<PathBuf>) {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return;
    }
    for entry in std::fs::read_dir(path).expect("read directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            clif_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "clif") {
            out.push(path);
        }
    }
}

/// Every function of the `.clif` files at or under `paths`, in a fixed order.
fn functions(paths: &[&str]) -> Vec<ir::Function> {
    let mut files = Vec::new();
    for path in paths {
        clif_files(Path::new(path), &mut files);
    }
    files.sort();
    let mut funcs = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let clif = filetest_text::clif_of(&text);
        let parsed = cranelift_reader::parse_functions(&clif)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        funcs.extend(parsed);
    }
    funcs
}

fn one_after_the_other(
    funcs: &[ir::Function],
    target: &Target,
) -> Vec<Result<CompiledCode, CompileError>> {
    funcs
        .iter()
        .map(|func| wavelift::compile_function(func, target))
        .collect()
}

#[test]
fn threads_compile_every_filetest_as_one_thread_does() {
    let funcs = functions(&["filetests", "bench"]);
    assert!(funcs.len() > 1000, "only {} functions found", funcs.len());
    // Functions written for one target fail on another: the errors are compared too.
    for cpu in ["gfx600", "gfx900", "gt200"] {
        let target = Target::parse(cpu).unwrap();
        let expected = one_after_the_other(&funcs, &target);
        // More threads than this machine may have cores: they interleave all the same.
        let parallel = wavelift::compile_many_with_threads(&funcs, &target, 4);
        assert_eq!(parallel.len(), funcs.len());
        let mut errors = 0;
        for ((func, ours), theirs) in funcs.iter().zip(&parallel).zip(&expected) {
            assert_eq!(ours, theirs, "{cpu}: function {}", func.name);
            if let Err(e) = ours {
                assert_eq!(e.function, func.name.to_string(), "{cpu}");
                errors += 1;
            }
        }
        assert!(
            errors > 0 && errors < funcs.len() / 2,
            "{cpu}: {errors} errors"
        );
    }
}

/// The benchmark suite's kernels with two functions no target compiles inserted, and
/// their positions.
fn module_with_errors() -> (Vec<ir::Function>, [usize; 2]) {
    let mut funcs = functions(&["bench/kernels"]);
    let mut unsupported = functions(&["filetests/errors/unsupported.clif"]);
    let positions = [3, 9];
    for &position in &positions {
        funcs.insert(position, unsupported.remove(0));
    }
    (funcs, positions)
}

#[test]
fn each_error_belongs_to_its_function() {
    let (funcs, positions) = module_with_errors();
    let target = Target::parse("gfx803").unwrap();
    for threads in [1, 2, 4] {
        let results = wavelift::compile_many_with_threads(&funcs, &target, threads);
        for (i, (func, result)) in funcs.iter().zip(&results).enumerate() {
            match result {
                Err(e) => {
                    assert!(positions.contains(&i), "{}: {e}", func.name);
                    assert_eq!(e.function, func.name.to_string());
                }
                Ok(_) => assert!(!positions.contains(&i), "{} compiled", func.name),
            }
        }
    }
}

#[test]
fn a_module_fails_with_its_first_failing_function() {
    let (funcs, [first, _]) = module_with_errors();
    let target = Target::parse("gfx803").unwrap();
    let error = wavelift::compile_module(&funcs, &target).unwrap_err();
    assert_eq!(error.function, funcs[first].name.to_string());
    assert_eq!(
        Err(error),
        wavelift::compile_function(&funcs[first], &target)
    );
}

#[test]
fn a_module_compiled_in_parallel_is_the_object_of_its_functions_compiled_in_turn() {
    let funcs = functions(&["bench/kernels"]);
    let target = Target::parse("gfx900").unwrap();
    let functions: Vec<_> = funcs
        .iter()
        .map(|func| wavelift::isa::ObjectFunction {
            args: wavelift::analysis::kernel_args::infer(func),
            name: func.name.to_string().trim_start_matches('%').to_string(),
            signature: func.signature.clone(),
            compiled: wavelift::compile_function(func, &target).unwrap(),
        })
        .collect();
    let expected = wavelift::isa::backend(target.arch)
        .write_object(&target, &functions)
        .unwrap();
    assert_eq!(wavelift::compile_module(&funcs, &target).unwrap(), expected);
}
