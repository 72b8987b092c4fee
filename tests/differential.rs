//! Differential testing in CI: random functions compiled for every supported GCN generation
//! and for NV50 (`nv50`, `gt200`), run on the simulator with different random inputs in each
//! lane (and as kernels with uniform arguments), compared with cranelift-interpreter (see
//! `docs/testing.md`). The generator makes only what each backend lowers
//! (`difftest::Profile`).
//!
//! Runs `WAVELIFT_DIFFTEST_COUNT` functions (default 10,000 per GCN generation, 4,000 per
//! NV50 target) with a fixed
//! seed, and as many again with `WAVELIFT_DIFFTEST_SEED` when it is set. On a mismatch
//! the failure message is a reproduction ending in a filetest.

use wavelift::Target;
use wavelift::difftest::{self, CampaignOptions, GenConfig, Profile};

const FIXED_SEED: u64 = 0x5eed_0001;
const DEFAULT_COUNT: u64 = 10_000;
/// NV50's functions run longer on its simulator (its division and float expansions are
/// long sequences): fewer of them keep the suite's time.
const NV50_DEFAULT_COUNT: u64 = 4_000;

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|e| panic!("{name}={text}: {e}")))
}

fn run(target: &Target, seed: u64, count: u64) {
    let options = CampaignOptions {
        threads: 2,
        generator: GenConfig {
            profile: Profile::of(target),
            ..GenConfig::default()
        },
        ..CampaignOptions::default()
    };
    match difftest::campaign(target, seed, count, &options, &mut |_| {}) {
        Ok(summary) => {
            print!("seed {seed}: {summary}");
            assert!(summary.lanes_compared > 0, "nothing was compared");
        }
        Err(mismatch) => panic!(
            "differential test failed on {} with seed {seed} (set WAVELIFT_DIFFTEST_SEED to \
             try another):\n{mismatch}",
            target.cpu
        ),
    }
}

#[test]
fn random_functions_match_the_interpreter_on_every_generation() {
    let count = env_u64("WAVELIFT_DIFFTEST_COUNT").unwrap_or(DEFAULT_COUNT);
    let targets = Target::per_generation();
    assert!(!targets.is_empty());
    for target in &targets {
        run(target, FIXED_SEED, count);
        if let Some(seed) = env_u64("WAVELIFT_DIFFTEST_SEED") {
            run(target, seed, count);
        }
    }
}

/// NV50: G80 (`nv50`, no f64) and GT200 (`gt200`). The compile errors that remain are
/// counted and printed (gaps the generator cannot avoid: operations the mid-end creates,
/// control flow the backend rejects), never counted as compared.
#[test]
fn random_functions_match_the_interpreter_on_nv50() {
    let count = env_u64("WAVELIFT_DIFFTEST_COUNT").unwrap_or(NV50_DEFAULT_COUNT);
    for cpu in ["nv50", "gt200"] {
        let target = Target::parse(cpu).expect("an NV50 CPU");
        run(&target, FIXED_SEED, count);
        if let Some(seed) = env_u64("WAVELIFT_DIFFTEST_SEED") {
            run(&target, seed, count);
        }
    }
}

/// The generator and the interpreter alone (no simulator): every function verifies and
/// the interpreter runs it. Cheap, and it keeps working whatever the backend does.
#[test]
fn generated_functions_verify_and_interpret() {
    let options = CampaignOptions::default();
    let settings = cranelift_codegen::settings::Flags::new(cranelift_codegen::settings::builder());
    for index in 0..500 {
        let (func, callees, lanes) = difftest::case(FIXED_SEED, index, &options);
        for f in callees.iter().chain([&func]) {
            if let Err(e) = cranelift_codegen::verify_function(f, &settings) {
                panic!("case {index}: {e}\n{}", f.display());
            }
        }
        for lane in &lanes[..4] {
            if let difftest::Reference::Unavailable(e) =
                difftest::interpret_in(&func, &callees, &lane.args)
            {
                panic!("case {index}: {e}\n{}", func.display());
            }
        }
    }
}
