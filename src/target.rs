//! Targets: a `target-lexicon` triple plus a CPU name, or a bare CPU name as shorthand.

use crate::isa::gcn::mc::Gen;
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use std::fmt;
use std::str::FromStr;
use target_lexicon::{Architecture, PointerWidth, Triple};

/// The instruction set a target compiles to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arch {
    Gcn(Gen),
}

/// A compilation target: the triple, the CPU name and what they select.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub triple: Triple,
    pub cpu: String,
    pub arch: Arch,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetError {}

/// The GCN CPU names LLVM accepts (`llvm-mc-14 -arch=amdgcn -mcpu=help`) and the generation
/// each belongs to: the `gfxNNN` names first (the first of a generation is the one
/// [`Target::per_generation`] picks), then the marketing code names. LLVM's `AMDGPUUsage`
/// processor table gives the mapping. gfx90a (and later GFX9 parts) are left out: they
/// change register-tuple alignment, cache-policy bits and hazards.
const GCN_CPUS: &[(&str, Gen)] = &[
    ("gfx600", Gen::Gfx6),
    ("gfx601", Gen::Gfx6),
    ("gfx602", Gen::Gfx6),
    ("tahiti", Gen::Gfx6),
    ("pitcairn", Gen::Gfx6),
    ("verde", Gen::Gfx6),
    ("oland", Gen::Gfx6),
    ("hainan", Gen::Gfx6),
    ("gfx700", Gen::Gfx7),
    ("gfx701", Gen::Gfx7),
    ("gfx702", Gen::Gfx7),
    ("gfx703", Gen::Gfx7),
    ("gfx704", Gen::Gfx7),
    ("gfx705", Gen::Gfx7),
    ("kaveri", Gen::Gfx7),
    ("hawaii", Gen::Gfx7),
    ("kabini", Gen::Gfx7),
    ("mullins", Gen::Gfx7),
    ("bonaire", Gen::Gfx7),
    ("gfx801", Gen::Gfx8),
    ("gfx802", Gen::Gfx8),
    ("gfx803", Gen::Gfx8),
    ("gfx805", Gen::Gfx8),
    ("gfx810", Gen::Gfx8),
    ("carrizo", Gen::Gfx8),
    ("tonga", Gen::Gfx8),
    ("tongapro", Gen::Gfx8),
    ("iceland", Gen::Gfx8),
    ("fiji", Gen::Gfx8),
    ("polaris10", Gen::Gfx8),
    ("polaris11", Gen::Gfx8),
    ("stoney", Gen::Gfx8),
    ("gfx900", Gen::Gfx9),
    ("gfx902", Gen::Gfx9),
    ("gfx904", Gen::Gfx9),
    ("gfx906", Gen::Gfx9),
    ("gfx908", Gen::Gfx9),
    ("gfx909", Gen::Gfx9),
    ("gfx90c", Gen::Gfx9),
];

impl Target {
    /// A target from a triple and a CPU name: `Target::new("amdgcn-amd-amdhsa", "gfx803")`.
    pub fn new(triple: &str, cpu: &str) -> Result<Target, TargetError> {
        let triple = Triple::from_str(triple)
            .map_err(|e| TargetError(format!("invalid target triple `{triple}`: {e}")))?;
        let arch = match triple.architecture {
            Architecture::AmdGcn => {
                let (_, generation) =
                    GCN_CPUS
                        .iter()
                        .find(|(name, _)| *name == cpu)
                        .ok_or_else(|| {
                            TargetError(format!(
                                "unknown or unsupported AMD GCN CPU `{cpu}` (supported: {})",
                                GCN_CPUS
                                    .iter()
                                    .map(|(n, _)| *n)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        })?;
                Arch::Gcn(*generation)
            }
            other => {
                return Err(TargetError(format!(
                    "unsupported architecture `{other}` (supported: amdgcn)"
                )));
            }
        };
        Ok(Target {
            triple,
            cpu: cpu.to_string(),
            arch,
        })
    }

    /// Parses the forms users write: `gfx803` (a bare CPU name), `amdgcn gfx803`,
    /// `amdgcn-amd-amdhsa gfx803` or `amdgcn-amd-amdhsa:gfx803`.
    pub fn parse(spec: &str) -> Result<Target, TargetError> {
        let words: Vec<&str> = spec
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [cpu] if GCN_CPUS.iter().any(|(n, _)| n == cpu) => {
                Target::new("amdgcn-amd-amdhsa", cpu)
            }
            ["amdgcn", cpu] => Target::new("amdgcn-amd-amdhsa", cpu),
            [triple, cpu] => Target::new(triple, cpu),
            _ => Err(TargetError(format!(
                "cannot parse target `{spec}`: expected a CPU name such as `gfx803` or \
                 a triple and a CPU name such as `amdgcn-amd-amdhsa gfx803`"
            ))),
        }
    }
}

impl Target {
    /// One target for each GCN generation the backend supports (the first CPU name listed
    /// for it), in generation order: what tests that must cover every generation loop over.
    pub fn per_generation() -> Vec<Target> {
        let mut targets: Vec<Target> = Vec::new();
        for (cpu, generation) in GCN_CPUS {
            if !targets.iter().any(|t| t.arch == Arch::Gcn(*generation)) {
                targets.push(Target::new("amdgcn-amd-amdhsa", cpu).expect("a listed CPU"));
            }
        }
        targets.sort_by_key(|t| match t.arch {
            Arch::Gcn(generation) => generation,
        });
        targets
    }

    /// What `cranelift-frontend` needs to know about the target (`FunctionBuilder::finalize`):
    /// 64-bit global addresses, device functions by default, 4 KiB pages.
    pub fn frontend_config(&self) -> TargetFrontendConfig {
        TargetFrontendConfig {
            default_call_conv: CallConv::Fast,
            pointer_width: PointerWidth::U64,
            page_size_align_log2: 12,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.triple, self.cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_cpu_name_is_shorthand_for_amdhsa() {
        let t = Target::parse("gfx803").unwrap();
        assert_eq!(t.arch, Arch::Gcn(Gen::Gfx8));
        assert_eq!(t.triple.to_string(), "amdgcn-amd-amdhsa");
        assert_eq!(Target::parse("amdgcn-amd-amdhsa gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn gfx803").unwrap(), t);
    }

    #[test]
    fn one_target_per_generation() {
        let targets = Target::per_generation();
        assert!(targets.iter().any(|t| t.arch == Arch::Gcn(Gen::Gfx8)));
        for (i, t) in targets.iter().enumerate() {
            assert!(targets[..i].iter().all(|u| u.arch != t.arch));
        }
    }

    #[test]
    fn llvm_names_map_to_their_generation() {
        for (cpu, generation) in [
            ("gfx600", Gen::Gfx6),
            ("tahiti", Gen::Gfx6),
            ("gfx700", Gen::Gfx7),
            ("bonaire", Gen::Gfx7),
            ("hawaii", Gen::Gfx7),
            ("tonga", Gen::Gfx8),
            ("gfx900", Gen::Gfx9),
            ("gfx906", Gen::Gfx9),
        ] {
            assert_eq!(
                Target::parse(cpu).unwrap().arch,
                Arch::Gcn(generation),
                "{cpu}"
            );
        }
        assert!(Target::parse("gfx90a").is_err(), "not supported");
    }

    #[test]
    fn unknown_cpus_and_arches_are_errors() {
        assert!(Target::parse("gfx9999").is_err());
        assert!(Target::new("x86_64-unknown-linux-gnu", "gfx803").is_err());
        assert!(Target::new("amdgcn-amd-amdhsa", "sm_10").is_err());
    }
}
