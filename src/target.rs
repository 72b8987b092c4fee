//! Targets: a triple plus a CPU name with optional target-ID features (LLVM's AMDGPU
//! syntax), or a bare CPU name as shorthand. `docs/targets.md` lists the forms.
//!
//! This file parses the triple and the `Target` forms; which CPU names exist, what each
//! selects and what its features mean is each family's own table (`isa/gcn/cpus.rs`,
//! `isa/nv50/cpus.rs`); the triple's architecture (`amdgcn`, `nvptx64`) says which.

use crate::isa::gcn::cpus;
use crate::isa::gcn::mc::Gen;
use crate::isa::nv50::cpus as nv50_cpus;
use crate::isa::nv50::cpus::Chip;
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use std::fmt;
use target_lexicon::PointerWidth;

/// The instruction set a target compiles to.
///
/// More architectures may come, so a `match` on it needs a wildcard arm, and
/// `let Arch::Gcn(generation) = target.arch else { … }` an `else`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Arch {
    /// AMD GCN, of one generation.
    Gcn(Gen),
    /// NVIDIA Tesla (NV50), one chip.
    Nv50(Chip),
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
    /// `cuda`, the OS of `nvptx64-nvidia-cuda`: NV50 code follows nouveau's compute ABI
    /// whatever launches it (`docs/targets.md`).
    Cuda,
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
    /// How much Cranelift's mid-end runs before selection: [`OptLevel::Speed`] (what
    /// [`Target::parse`] gives) or [`OptLevel::None`], CLIF's `opt_level` setting.
    pub opt_level: OptLevel,
    /// The AMDGPU code object version `compile_module` writes for an `amdhsa` GCN target
    /// (llc's `--amdhsa-code-object-version`): [`CodeObjectVersion::V5`] unless set.
    pub code_object: CodeObjectVersion,
}

/// The version of the AMDGPU HSA code objects written (AMDGPUUsage, "Code Object V4
/// Metadata" and "V5"). Both hold the same kernel descriptor; they differ in the ELF
/// header's ABI version and the metadata's `amdhsa.version`, and V5 adds
/// `.uses_dynamic_stack` and the hidden arguments wavelift's kernels do not use.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CodeObjectVersion {
    /// llc's `--amdhsa-code-object-version=4`.
    V4,
    /// What llc-19 writes by default.
    #[default]
    V5,
}

/// CLIF's `opt_level` setting as wavelift reads it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    /// The function is selected as written: no mid-end rewrites (`opt_level=none`).
    None,
    /// Cranelift's egraph mid-end first (`opt_level=speed`, and `speed_and_size`, which
    /// adds nothing Cranelift's mid-end does differently).
    #[default]
    Speed,
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
/// The architecture name and the triple of NVIDIA Tesla (NV50) targets.
const NVPTX64: &str = "nvptx64";
const NVPTX64_TRIPLE: &str = "nvptx64-nvidia-cuda";

/// Checks an `nvptx64` triple (`nvptx64-nvidia-cuda`, or `nvptx64` alone for it) or an
/// `amdgcn` triple (`amdgcn-<vendor>-<os>`, or `amdgcn` alone for
/// `amdgcn-amd-amdhsa`) and returns it with its OS.
fn parse_triple(triple: &str) -> Result<(String, Os), TargetError> {
    let parts: Vec<&str> = triple.split('-').collect();
    if parts[0] == NVPTX64 {
        return match parts.as_slice() {
            [_] | [_, "nvidia", "cuda"] => Ok((NVPTX64_TRIPLE.to_string(), Os::Cuda)),
            _ => Err(TargetError(format!(
                "unsupported triple `{triple}`: the NV50 triple is `{NVPTX64_TRIPLE}`"
            ))),
        };
    }
    if parts[0] != "amdgcn" {
        return Err(TargetError(format!(
            "unsupported architecture `{}` in `{triple}` (supported: amdgcn, nvptx64)",
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
                cpus::supported_list()
            )));
        }
        let features: Vec<&str> = pieces.collect();
        if os == Os::Cuda {
            if cpus::is_cpu_name(name) {
                return Err(TargetError(format!(
                    "unsupported CPU `{name}` for `{triple}`: it is a GCN CPU (NV50 CPUs: {})",
                    nv50_cpus::supported_list()
                )));
            }
            return Ok(Target {
                arch: nv50_cpus::select(name, &features)?,
                triple,
                os,
                cpu: name.to_string(),
                xnack: FeatureSetting::Any,
                sramecc: FeatureSetting::Any,
                opt_level: OptLevel::Speed,
                code_object: CodeObjectVersion::V5,
            });
        }
        if nv50_cpus::is_cpu_name(name) {
            return Err(TargetError(format!(
                "unsupported CPU `{name}` for `{triple}`: it is an NV50 CPU (GCN CPUs: {})",
                cpus::supported_list()
            )));
        }
        let selection = cpus::select(name, &features)?;
        Ok(Target {
            triple,
            os,
            cpu: name.to_string(),
            arch: selection.arch,
            xnack: selection.xnack,
            sramecc: selection.sramecc,
            opt_level: OptLevel::Speed,
            code_object: CodeObjectVersion::V5,
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
                if nv50_cpus::is_cpu_name(head) {
                    return Target::new(NVPTX64_TRIPLE, word);
                }
                if cpus::is_cpu_name(head)
                    || !(head.contains('-') || head == "amdgcn" || head == NVPTX64)
                {
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

    /// The CPU names accepted: GCN's, `gfxNNN` names first, then LLVM's code names
    /// (`tonga`); then NV50's (`nv50`, `g80`, …).
    pub fn cpu_names() -> impl Iterator<Item = &'static str> {
        cpus::names().chain(nv50_cpus::names())
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
    /// For NV50 it is the chip's canonical name (`g80` gives `nv50`, `nva0` gives `gt200`).
    pub fn target_id(&self) -> String {
        match self.arch {
            Arch::Nv50(_) => nv50_cpus::target_id(&self.cpu),
            Arch::Gcn(_) => cpus::target_id(&self.cpu, self.sramecc),
        }
    }

    /// One target for each GCN generation the backend supports (the first CPU name listed
    /// for it), in generation order: what tests that must cover every generation loop over.
    pub fn per_generation() -> Vec<Target> {
        cpus::per_generation()
            .into_iter()
            .map(|cpu| Target::new("amdgcn-amd-amdhsa", cpu).expect("a listed CPU"))
            .collect()
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
    fn nv50_forms() {
        let t = Target::parse("g80").unwrap();
        assert_eq!(t.arch, Arch::Nv50(Chip::G80));
        assert_eq!((t.triple.as_str(), t.os), ("nvptx64-nvidia-cuda", Os::Cuda));
        assert_eq!(t.target_id(), "nv50");
        assert_eq!(
            Target::parse("nvptx64 g92").unwrap().arch,
            Arch::Nv50(Chip::G92)
        );
        let t = Target::parse("nvptx64-nvidia-cuda:nva0").unwrap();
        assert_eq!(
            (t.arch, t.target_id()),
            (Arch::Nv50(Chip::G200), "gt200".into())
        );
        assert_eq!(Target::parse(&t.to_string()).unwrap(), t);
        assert!(Target::parse("nvptx64-nvidia-cuda gfx803").is_err());
        assert!(Target::parse("amdgcn-amd-amdhsa g84").is_err());
        assert!(Target::parse("nvptx64").is_err());
    }

    #[test]
    fn unknown_cpus_and_arches_are_errors() {
        assert!(Target::parse("gfx9999").is_err());
        assert!(Target::new("x86_64-unknown-linux-gnu", "gfx803").is_err());
        assert!(Target::new("amdgcn-amd-amdhsa", "sm_10").is_err());
    }
}
