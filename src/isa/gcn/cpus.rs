//! GCN's CPU table: the CPU names wavelift accepts (LLVM's), the generation and target-ID
//! features of each, and LLVM's target-ID syntax (`gfx906:sramecc+:xnack-`). `target.rs`
//! parses the triple and asks this table about the CPU.

use super::mc::Gen;
use crate::{Arch, FeatureSetting, TargetError};

/// What a CPU name with its target-ID features selects.
pub(crate) struct Selection {
    pub arch: Arch,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
}

/// A GCN CPU wavelift compiles for: the names LLVM accepts (`llvm-mc-14 -arch=amdgcn
/// -mcpu=help`), the processor LLVM's AMDGPUUsage processor table gives for each (the
/// `gfxNNN` name of a code name, which target IDs use), its generation and the target-ID
/// features it has. `tests/gcn_target_ids_llvm_mc.rs` checks the processors and features
/// against llvm-mc's `.amdgcn_target`.
struct Cpu {
    name: &'static str,
    processor: &'static str,
    generation: Gen,
    xnack: bool,
    sramecc: bool,
}

const fn cpu(name: &'static str, processor: &'static str, generation: Gen) -> Cpu {
    Cpu {
        name,
        processor,
        generation,
        xnack: false,
        sramecc: false,
    }
}

const fn with_xnack(cpu: Cpu) -> Cpu {
    Cpu { xnack: true, ..cpu }
}

const fn with_sramecc(cpu: Cpu) -> Cpu {
    Cpu {
        sramecc: true,
        ..cpu
    }
}

/// The `gfxNNN` names first (the first of a generation is the one [`per_generation`]
/// picks), then the code names. gfx90a (and later GFX9 parts) are left out: they change
/// register-tuple alignment, cache-policy bits and hazards.
const GCN_CPUS: &[Cpu] = &[
    cpu("gfx600", "gfx600", Gen::Gfx6),
    cpu("gfx601", "gfx601", Gen::Gfx6),
    cpu("gfx602", "gfx602", Gen::Gfx6),
    cpu("tahiti", "gfx600", Gen::Gfx6),
    cpu("pitcairn", "gfx601", Gen::Gfx6),
    cpu("verde", "gfx601", Gen::Gfx6),
    cpu("oland", "gfx602", Gen::Gfx6),
    cpu("hainan", "gfx602", Gen::Gfx6),
    cpu("gfx700", "gfx700", Gen::Gfx7),
    cpu("gfx701", "gfx701", Gen::Gfx7),
    cpu("gfx702", "gfx702", Gen::Gfx7),
    cpu("gfx703", "gfx703", Gen::Gfx7),
    cpu("gfx704", "gfx704", Gen::Gfx7),
    cpu("gfx705", "gfx705", Gen::Gfx7),
    cpu("kaveri", "gfx700", Gen::Gfx7),
    cpu("hawaii", "gfx701", Gen::Gfx7),
    cpu("kabini", "gfx703", Gen::Gfx7),
    cpu("mullins", "gfx703", Gen::Gfx7),
    cpu("bonaire", "gfx704", Gen::Gfx7),
    with_xnack(cpu("gfx801", "gfx801", Gen::Gfx8)),
    cpu("gfx802", "gfx802", Gen::Gfx8),
    cpu("gfx803", "gfx803", Gen::Gfx8),
    cpu("gfx805", "gfx805", Gen::Gfx8),
    with_xnack(cpu("gfx810", "gfx810", Gen::Gfx8)),
    with_xnack(cpu("carrizo", "gfx801", Gen::Gfx8)),
    cpu("tonga", "gfx802", Gen::Gfx8),
    cpu("tongapro", "gfx805", Gen::Gfx8),
    cpu("iceland", "gfx802", Gen::Gfx8),
    cpu("fiji", "gfx803", Gen::Gfx8),
    cpu("polaris10", "gfx803", Gen::Gfx8),
    cpu("polaris11", "gfx803", Gen::Gfx8),
    with_xnack(cpu("stoney", "gfx810", Gen::Gfx8)),
    with_xnack(cpu("gfx900", "gfx900", Gen::Gfx9)),
    with_xnack(cpu("gfx902", "gfx902", Gen::Gfx9)),
    with_xnack(cpu("gfx904", "gfx904", Gen::Gfx9)),
    with_sramecc(with_xnack(cpu("gfx906", "gfx906", Gen::Gfx9))),
    with_sramecc(with_xnack(cpu("gfx908", "gfx908", Gen::Gfx9))),
    with_xnack(cpu("gfx909", "gfx909", Gen::Gfx9)),
    with_xnack(cpu("gfx90c", "gfx90c", Gen::Gfx9)),
];

/// AMD GPU processors LLVM knows that wavelift does not compile for, and why (LLVM's
/// AMDGPUUsage processor table).
const UNSUPPORTED_CPUS: &[(&[&str], &str)] = &[
    (
        &[
            "gfx90a",
            "gfx940",
            "gfx941",
            "gfx942",
            "gfx950",
            "gfx9-4-generic",
        ],
        "a CDNA 2 or later part: register tuples aligned to even registers, other \
         cache-policy bits and hazards",
    ),
    (
        &[
            "gfx1010",
            "gfx1011",
            "gfx1012",
            "gfx1013",
            "gfx1030",
            "gfx1031",
            "gfx1032",
            "gfx1033",
            "gfx1034",
            "gfx1035",
            "gfx1036",
            "gfx1100",
            "gfx1101",
            "gfx1102",
            "gfx1103",
            "gfx1150",
            "gfx1151",
            "gfx1152",
            "gfx1153",
            "gfx1200",
            "gfx1201",
            "gfx10-1-generic",
            "gfx10-3-generic",
            "gfx11-generic",
            "gfx12-generic",
        ],
        "an RDNA part (gfx10 and later): another instruction encoding, wave32",
    ),
    (
        &["generic", "generic-hsa", "gfx9-generic"],
        "a generic target: wavelift compiles for one processor",
    ),
];

/// Whether `name` is a CPU name wavelift or LLVM knows (`gfx9-generic` is one, not a
/// triple).
pub(crate) fn is_cpu_name(name: &str) -> bool {
    name.starts_with("gfx")
        || GCN_CPUS.iter().any(|c| c.name == name)
        || UNSUPPORTED_CPUS
            .iter()
            .any(|(names, _)| names.contains(&name))
}

/// The CPU names accepted, for error messages.
pub(crate) fn supported_list() -> String {
    GCN_CPUS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a CPU name not in [`GCN_CPUS`].
fn cpu_error(name: &str) -> TargetError {
    let known = UNSUPPORTED_CPUS
        .iter()
        .find(|(names, _)| names.contains(&name));
    TargetError(match known {
        Some((_, why)) => format!(
            "unsupported CPU `{name}`: {why} (supported: {})",
            supported_list()
        ),
        None => format!("unknown CPU `{name}` (supported: {})", supported_list()),
    })
}

/// Parses a target ID's features (`sramecc+`, `xnack-`) for `cpu`: whether the CPU has
/// each, and whether wavelift's code can honour the setting.
fn parse_features(
    cpu: &Cpu,
    features: &[&str],
) -> Result<(FeatureSetting, FeatureSetting), TargetError> {
    let mut xnack = None;
    let mut sramecc = None;
    for feature in features {
        let (name, setting) = if let Some(name) = feature.strip_suffix('+') {
            (name, FeatureSetting::On)
        } else if let Some(name) = feature.strip_suffix('-') {
            (name, FeatureSetting::Off)
        } else {
            return Err(TargetError(format!(
                "target-ID feature `{feature}` needs a setting, as in `xnack-` or `sramecc+`"
            )));
        };
        let (slot, has) = match name {
            "xnack" => (&mut xnack, cpu.xnack),
            "sramecc" => (&mut sramecc, cpu.sramecc),
            _ => {
                return Err(TargetError(format!(
                    "unknown target-ID feature `{feature}` (known: sramecc+, sramecc-, \
                     xnack+, xnack-)"
                )));
            }
        };
        if slot.replace(setting).is_some() {
            return Err(TargetError(format!(
                "target-ID feature `{name}` is given twice"
            )));
        }
        // `-` states what is true of a part without the feature; `+` asks for what it
        // lacks.
        if setting == FeatureSetting::On && !has {
            return Err(TargetError(format!(
                "`{}` has no {} (target-ID feature `{feature}`)",
                cpu.name,
                name.to_uppercase()
            )));
        }
    }
    if xnack == Some(FeatureSetting::On) {
        return Err(TargetError(format!(
            "target-ID feature `xnack+` is not supported: wavelift does not keep memory \
             clauses safe for XNACK replay; use `{}:xnack-` and run the code with XNACK \
             replay off",
            cpu.name
        )));
    }
    Ok((xnack.unwrap_or_default(), sramecc.unwrap_or_default()))
}

/// Looks up `name` with its target-ID `features` (the pieces after `:`).
pub(crate) fn select(name: &str, features: &[&str]) -> Result<Selection, TargetError> {
    let found = GCN_CPUS
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| cpu_error(name))?;
    let (xnack, sramecc) = parse_features(found, features)?;
    Ok(Selection {
        arch: Arch::Gcn(found.generation),
        xnack,
        sramecc,
    })
}

/// The CPU names accepted, `gfxNNN` names first, then LLVM's code names (`tonga`).
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    GCN_CPUS.iter().map(|c| c.name)
}

/// The first CPU name listed for each generation, in generation order.
pub(crate) fn per_generation() -> Vec<&'static str> {
    let mut firsts: Vec<&Cpu> = Vec::new();
    for cpu in GCN_CPUS {
        if !firsts.iter().any(|c| c.generation == cpu.generation) {
            firsts.push(cpu);
        }
    }
    firsts.sort_by_key(|c| c.generation);
    firsts.iter().map(|c| c.name).collect()
}

/// LLVM's target ID of code for the CPU `name` (in the table) with `sramecc` as given:
/// the processor, then the features the code needs in LLVM's order (see
/// `Target::target_id`).
pub(crate) fn target_id(name: &str, sramecc: FeatureSetting) -> String {
    let cpu = GCN_CPUS
        .iter()
        .find(|c| c.name == name)
        .expect("a Target's CPU is in the table");
    let mut id = cpu.processor.to_string();
    if cpu.sramecc {
        match sramecc {
            FeatureSetting::On => id += ":sramecc+",
            FeatureSetting::Off => id += ":sramecc-",
            FeatureSetting::Any => {}
        }
    }
    if cpu.xnack {
        id += ":xnack-";
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_entry_is_consistent() {
        for cpu in GCN_CPUS {
            let processor = GCN_CPUS.iter().find(|c| c.name == cpu.processor);
            let processor = processor.expect("the processor is listed under its own name");
            assert_eq!(processor.generation, cpu.generation, "{}", cpu.name);
            assert_eq!(processor.xnack, cpu.xnack, "{}", cpu.name);
            assert_eq!(processor.sramecc, cpu.sramecc, "{}", cpu.name);
            for (names, _) in UNSUPPORTED_CPUS {
                assert!(!names.contains(&cpu.name), "{}", cpu.name);
            }
        }
    }
}
