//! Targets: a triple plus a CPU name with optional target-ID features (LLVM's AMDGPU
//! syntax), or a bare CPU name as shorthand. `docs/targets.md` lists the forms.

use crate::isa::gcn::mc::Gen;
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use std::fmt;
use target_lexicon::PointerWidth;

/// The instruction set a target compiles to.
///
/// More architectures will come (NVIDIA Tesla), so a `match` on it needs a wildcard arm,
/// and `let Arch::Gcn(generation) = target.arch else { … }` an `else`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Arch {
    /// AMD GCN, of one generation.
    Gcn(Gen),
}

/// Who loads and launches the code: the OS of an AMDGPU triple (LLVM's AMDGPUUsage,
/// "Target Triples"). wavelift emits the same code for each; `docs/targets.md` says what
/// a loader must set up.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Os {
    /// `amdhsa`: HSA runtimes such as ROCm (the kernel descriptor's ABI).
    Amdhsa,
    /// `mesa3d`: Mesa's drivers (radeonsi, RADV, rusticl).
    Mesa3d,
    /// `amdpal`: AMD's PAL runtime.
    Amdpal,
}

const OSES: [(&str, Os); 3] = [
    ("amdhsa", Os::Amdhsa),
    ("mesa3d", Os::Mesa3d),
    ("amdpal", Os::Amdpal),
];

/// The setting of a target-ID feature (`:xnack+`, `:xnack-`, or none: either).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum FeatureSetting {
    /// Not given: the code may run with the feature on or off.
    #[default]
    Any,
    /// `+`: only with the feature on.
    On,
    /// `-`: only with the feature off.
    Off,
}

/// A compilation target: the triple, the CPU and what they select.
///
/// Made by [`Target::parse`] or [`Target::new`]; its fields say what was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Target {
    /// The triple as given (`amdgcn-amd-amdhsa`; `amdgcn` alone stands for that one).
    pub triple: String,
    /// The triple's OS.
    pub os: Os,
    /// The CPU name as given, without target-ID features (`gfx803`, `tonga`).
    pub cpu: String,
    /// The instruction set the CPU name selects.
    pub arch: Arch,
    /// The `xnack` target-ID feature as given (XNACK replay of faulting memory accesses).
    /// wavelift's code is never made safe for replay, so `xnack+` is rejected and the code
    /// of an XNACK-capable CPU needs replay off whatever this says (see
    /// [`Target::target_id`]).
    pub xnack: FeatureSetting,
    /// The `sramecc` target-ID feature as given (ECC-protected SRAM). It does not change
    /// wavelift's code (it uses no D16 loads, the only instructions it affects).
    pub sramecc: FeatureSetting,
}

/// Why a target was not accepted: a message naming what was wrong and what is supported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetError {}

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

/// The `gfxNNN` names first (the first of a generation is the one [`Target::per_generation`]
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
fn is_cpu_name(name: &str) -> bool {
    name.starts_with("gfx")
        || GCN_CPUS.iter().any(|c| c.name == name)
        || UNSUPPORTED_CPUS
            .iter()
            .any(|(names, _)| names.contains(&name))
}

fn supported_list() -> String {
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

/// Checks an `amdgcn` triple (`amdgcn-<vendor>-<os>`, or `amdgcn` alone for
/// `amdgcn-amd-amdhsa`) and returns it with its OS.
fn parse_triple(triple: &str) -> Result<(String, Os), TargetError> {
    let parts: Vec<&str> = triple.split('-').collect();
    if parts[0] != "amdgcn" {
        return Err(TargetError(format!(
            "unsupported architecture `{}` in `{triple}` (supported: amdgcn)",
            parts[0]
        )));
    }
    let os = match parts.as_slice() {
        ["amdgcn"] => return Ok(("amdgcn-amd-amdhsa".to_string(), Os::Amdhsa)),
        [_, _vendor, os] => os,
        [_, _, _, environment] => {
            return Err(TargetError(format!(
                "unsupported environment `{environment}` in `{triple}`: an AMDGPU triple is \
                 `amdgcn-<vendor>-<os>`"
            )));
        }
        _ => {
            return Err(TargetError(format!(
                "invalid triple `{triple}`: expected `amdgcn-<vendor>-<os>` such as \
                 `amdgcn-amd-amdhsa`"
            )));
        }
    };
    let supported = "supported: amdhsa, mesa3d, amdpal";
    match OSES.iter().find(|(name, _)| name == os) {
        Some(&(_, os)) => Ok((triple.to_string(), os)),
        None if os.is_empty() => Err(TargetError(format!(
            "triple `{triple}` names no OS ({supported})"
        ))),
        None => Err(TargetError(format!(
            "unsupported OS `{os}` in `{triple}` ({supported})"
        ))),
    }
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

impl Target {
    /// A target from a triple and a CPU name or LLVM target ID:
    /// `Target::new("amdgcn-amd-amdhsa", "gfx803")`,
    /// `Target::new("amdgcn-mesa-mesa3d", "gfx906:sramecc+:xnack-")`.
    ///
    /// ```
    /// use wavelift::{Arch, Os, Target, gcn::Gen};
    ///
    /// let target = Target::new("amdgcn-amd-amdpal", "gfx906:xnack-")?;
    /// assert_eq!(target.arch, Arch::Gcn(Gen::Gfx9));
    /// assert_eq!(target.os, Os::Amdpal);
    /// assert_eq!(target.target_id(), "gfx906:xnack-");
    ///
    /// let err = Target::new("amdgcn-amd-amdhsa", "gfx1030").unwrap_err();
    /// assert!(err.to_string().starts_with("unsupported CPU `gfx1030`"));
    /// # Ok::<(), wavelift::TargetError>(())
    /// ```
    pub fn new(triple: &str, cpu: &str) -> Result<Target, TargetError> {
        let (triple, os) = parse_triple(triple)?;
        let mut pieces = cpu.split(':');
        let name = pieces.next().unwrap_or_default();
        if name.is_empty() {
            return Err(TargetError(format!(
                "target `{triple} {cpu}` names no CPU (supported: {})",
                supported_list()
            )));
        }
        let features: Vec<&str> = pieces.collect();
        let found = GCN_CPUS
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| cpu_error(name))?;
        let (xnack, sramecc) = parse_features(found, &features)?;
        Ok(Target {
            triple,
            os,
            cpu: name.to_string(),
            arch: Arch::Gcn(found.generation),
            xnack,
            sramecc,
        })
    }

    /// Parses the forms users write (`docs/targets.md`): a CPU name or target ID alone
    /// (`gfx803`, `gfx906:sramecc+:xnack-`; shorthand for `amdgcn-amd-amdhsa`), or a triple
    /// and a CPU name or target ID separated by a space or a colon (`amdgcn gfx803`,
    /// `amdgcn-mesa-mesa3d gfx803`, `amdgcn-amd-amdhsa:gfx906:xnack-`), or LLVM's full
    /// target ID (`amdgcn-amd-amdhsa--gfx906:xnack-`).
    ///
    /// ```
    /// use wavelift::Target;
    ///
    /// let target = Target::parse("gfx803")?;
    /// assert_eq!(target, Target::parse("amdgcn-amd-amdhsa gfx803")?);
    /// assert_eq!(target.to_string(), "amdgcn-amd-amdhsa gfx803");
    /// assert!(Target::parse("amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-").is_ok());
    /// # Ok::<(), wavelift::TargetError>(())
    /// ```
    pub fn parse(spec: &str) -> Result<Target, TargetError> {
        let words: Vec<&str> = spec.split_whitespace().collect();
        match words.as_slice() {
            [word] => {
                // LLVM's full target ID, `<triple>--<target ID>` (not the `--` of a
                // triple with no vendor, `amdgcn--amdhsa`).
                if let Some((triple, id)) = word.rsplit_once("--")
                    && !OSES.iter().any(|(os, _)| id.split(':').next() == Some(os))
                {
                    return Target::new(triple, id);
                }
                let (head, id) = match word.split_once(':') {
                    Some((head, id)) => (head, Some(id)),
                    None => (*word, None),
                };
                if is_cpu_name(head) || !(head.contains('-') || head == "amdgcn") {
                    return Target::new("amdgcn-amd-amdhsa", word);
                }
                match id {
                    Some(id) => Target::new(head, id),
                    None => {
                        parse_triple(head)?;
                        Err(TargetError(format!(
                            "target `{word}` names no CPU: add one, as in `{word} gfx803`"
                        )))
                    }
                }
            }
            [triple, id] => Target::new(triple.trim_end_matches(':'), id),
            _ => Err(TargetError(format!(
                "cannot parse target `{spec}`: expected a CPU name such as `gfx803` or a \
                 triple and a CPU name such as `amdgcn-amd-amdhsa gfx803`"
            ))),
        }
    }

    /// The CPU names accepted, `gfxNNN` names first, then LLVM's code names (`tonga`).
    pub fn cpu_names() -> impl Iterator<Item = &'static str> {
        GCN_CPUS.iter().map(|c| c.name)
    }

    /// LLVM's target ID of the code compiled for this target: the processor (the
    /// `gfxNNN` name of a code name) and the target-ID features the code needs, in LLVM's
    /// order. `sramecc` appears as given; `xnack-` appears for every XNACK-capable
    /// processor, since the code is not safe for XNACK replay (LLVM's default, "any",
    /// would be). A loader compares `<triple>--<target ID>` with the agent's ISA name.
    ///
    /// ```
    /// use wavelift::Target;
    ///
    /// assert_eq!(Target::parse("tonga")?.target_id(), "gfx802");
    /// assert_eq!(Target::parse("gfx900")?.target_id(), "gfx900:xnack-");
    /// assert_eq!(Target::parse("gfx906:sramecc+")?.target_id(), "gfx906:sramecc+:xnack-");
    /// # Ok::<(), wavelift::TargetError>(())
    /// ```
    pub fn target_id(&self) -> String {
        let cpu = GCN_CPUS
            .iter()
            .find(|c| c.name == self.cpu)
            .expect("a Target's CPU is in the table");
        let mut id = cpu.processor.to_string();
        if cpu.sramecc {
            match self.sramecc {
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

    /// One target for each GCN generation the backend supports (the first CPU name listed
    /// for it), in generation order: what tests that must cover every generation loop over.
    pub fn per_generation() -> Vec<Target> {
        let mut targets: Vec<Target> = Vec::new();
        for cpu in GCN_CPUS {
            if !targets.iter().any(|t| t.arch == Arch::Gcn(cpu.generation)) {
                targets.push(Target::new("amdgcn-amd-amdhsa", cpu.name).expect("a listed CPU"));
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

/// The form [`Target::parse`] reads back: the triple, a space, the CPU name and the
/// target-ID features given.
impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.triple, self.cpu)?;
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            match setting {
                FeatureSetting::On => write!(f, ":{name}+")?,
                FeatureSetting::Off => write!(f, ":{name}-")?,
                FeatureSetting::Any => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_cpu_name_is_shorthand_for_amdhsa() {
        let t = Target::parse("gfx803").unwrap();
        assert_eq!(t.arch, Arch::Gcn(Gen::Gfx8));
        assert_eq!(t.triple, "amdgcn-amd-amdhsa");
        assert_eq!(t.os, Os::Amdhsa);
        assert_eq!(Target::parse("amdgcn-amd-amdhsa gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn-amd-amdhsa:gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn:gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn-amd-amdhsa--gfx803").unwrap(), t);
    }

    #[test]
    fn a_triple_without_vendor_is_not_a_target_id() {
        let t = Target::parse("amdgcn--amdhsa gfx803").unwrap();
        assert_eq!((t.os, t.cpu.as_str()), (Os::Amdhsa, "gfx803"));
        assert_eq!(Target::parse("amdgcn--amdhsa:gfx803").unwrap(), t);
        assert_eq!(Target::parse("amdgcn--amdhsa--gfx803").unwrap(), t);
        let err = Target::parse("amdgcn--amdhsa").unwrap_err().to_string();
        assert!(err.contains("names no CPU"), "{err}");
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

    #[test]
    fn display_reads_back() {
        for spec in [
            "gfx803",
            "amdgcn-mesa-mesa3d tonga",
            "gfx906:sramecc+:xnack-",
            "amdgcn-amd-amdpal:gfx906:xnack-:sramecc-",
        ] {
            let target = Target::parse(spec).unwrap();
            assert_eq!(
                Target::parse(&target.to_string()).unwrap(),
                target,
                "{spec}"
            );
        }
    }

    #[test]
    fn odd_input_is_an_error_not_a_panic() {
        for spec in [
            "",
            " ",
            ":",
            "::",
            "--",
            "gfx906:",
            "gfx906:€",
            "gfx906:+",
            "amdgcn-",
            "-",
            "€",
            "amdgcn:",
            "a b c",
        ] {
            assert!(Target::parse(spec).is_err(), "{spec:?}");
        }
    }

    #[test]
    fn unknown_cpus_and_arches_are_errors() {
        assert!(Target::parse("gfx9999").is_err());
        assert!(Target::new("x86_64-unknown-linux-gnu", "gfx803").is_err());
        assert!(Target::new("amdgcn-amd-amdhsa", "sm_10").is_err());
    }
}
