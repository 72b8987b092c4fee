//! NV50's CPU table: the Tesla chips wavelift compiles for (`docs/targets.md`, "CPUs"),
//! their aliases and the encoding variant of each. `target.rs` parses the triple
//! (`nvptx64-nvidia-cuda`) and asks this table about the CPU. There are no target-ID
//! features.

use super::mc::Variant;
use crate::{Arch, TargetError};

/// A Tesla chip wavelift compiles for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Chip {
    /// G80 (chipset 0x50, sm_10).
    G80,
    /// G84 (0x84, sm_11).
    G84,
    /// G86 (0x86, sm_11).
    G86,
    /// G92 (0x92, sm_11).
    G92,
    /// G94 (0x94, sm_11).
    G94,
    /// G96 (0x96, sm_11).
    G96,
    /// G98 (0x98, sm_11).
    G98,
    /// GT200 (0xa0, sm_13).
    G200,
}

impl Chip {
    /// The encoding variant (envydis's `-V`) of the chip: what it can execute.
    pub fn variant(self) -> Variant {
        match self {
            Chip::G80 => Variant::G80,
            Chip::G84 | Chip::G86 | Chip::G92 | Chip::G94 | Chip::G96 | Chip::G98 => Variant::G84,
            Chip::G200 => Variant::G200,
        }
    }

    /// The CUDA compute capability of the chip as `10 * major + minor` (`sm_10` for G80),
    /// what the `EF_CUDA_SM` bits of an ELF's `e_flags` hold.
    pub fn sm(self) -> u32 {
        match self {
            Chip::G80 => 10,
            Chip::G200 => 13,
            _ => 11,
        }
    }

    /// The chipset number nouveau and envytools name the chip by (`0x50` for G80).
    pub fn chipset(self) -> u32 {
        match self {
            Chip::G80 => 0x50,
            Chip::G84 => 0x84,
            Chip::G86 => 0x86,
            Chip::G92 => 0x92,
            Chip::G94 => 0x94,
            Chip::G96 => 0x96,
            Chip::G98 => 0x98,
            Chip::G200 => 0xa0,
        }
    }
}

/// The CPU names, the canonical one (what `Target::target_id` gives) first in each row.
const NV50_CPUS: &[(&[&str], Chip)] = &[
    (&["nv50", "g80"], Chip::G80),
    (&["g84"], Chip::G84),
    (&["g86"], Chip::G86),
    (&["g92"], Chip::G92),
    (&["g94"], Chip::G94),
    (&["g96"], Chip::G96),
    (&["g98"], Chip::G98),
    (&["gt200", "g200", "nva0"], Chip::G200),
];

/// Tesla chips wavelift does not compile for, with the reason (`docs/targets.md`).
const UNSUPPORTED_CPUS: &[(&[&str], &str)] = &[(
    &[
        "mcp77", "mcp79", "gt215", "gt216", "gt218", "mcp89", "nvaa", "nvac", "nva3", "nva5",
        "nva8", "nvaf",
    ],
    "an sm_12 part (GT200's instructions without f64, GT21x with the Direct3D 10.1 ones), \
     not supported yet",
)];

/// Whether `name` names a Tesla chip (supported or not).
pub(crate) fn is_cpu_name(name: &str) -> bool {
    NV50_CPUS.iter().any(|(names, _)| names.contains(&name))
        || UNSUPPORTED_CPUS
            .iter()
            .any(|(names, _)| names.contains(&name))
}

/// The CPU names accepted, for error messages.
pub(crate) fn supported_list() -> String {
    names().collect::<Vec<_>>().join(", ")
}

/// Looks up `name`; `features` must be empty (Tesla has no target-ID features).
pub(crate) fn select(name: &str, features: &[&str]) -> Result<Arch, TargetError> {
    let Some(&(_, chip)) = NV50_CPUS.iter().find(|(names, _)| names.contains(&name)) else {
        let known = UNSUPPORTED_CPUS
            .iter()
            .find(|(names, _)| names.contains(&name));
        return Err(TargetError(match known {
            Some((_, why)) => format!(
                "unsupported CPU `{name}`: {why} (supported by nvptx64: {})",
                supported_list()
            ),
            None => format!(
                "unsupported CPU `{name}` for nvptx64 (supported: {})",
                supported_list()
            ),
        }));
    };
    if let Some(feature) = features.first() {
        return Err(TargetError(format!(
            "target-ID feature `{feature}` does not exist for `{name}`: NV50 CPUs have none"
        )));
    }
    Ok(Arch::Nv50(chip))
}

/// Every CPU name accepted, aliases included.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    NV50_CPUS
        .iter()
        .flat_map(|(names, _)| names.iter().copied())
}

/// The canonical name of the CPU `name` (in the table): `g80` gives `nv50`.
pub(crate) fn target_id(name: &str) -> String {
    NV50_CPUS
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(names, _)| names[0].to_string())
        .expect("a Target's CPU is in the table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_select_their_chip_and_variant() {
        for (name, chip, variant, chipset) in [
            ("nv50", Chip::G80, Variant::G80, 0x50),
            ("g80", Chip::G80, Variant::G80, 0x50),
            ("g92", Chip::G92, Variant::G84, 0x92),
            ("nva0", Chip::G200, Variant::G200, 0xa0),
            ("g200", Chip::G200, Variant::G200, 0xa0),
        ] {
            assert_eq!(select(name, &[]).unwrap(), Arch::Nv50(chip), "{name}");
            assert_eq!(chip.variant(), variant);
            assert_eq!(chip.chipset(), chipset);
        }
        assert_eq!(target_id("nva0"), "gt200");
        assert!(select("gt215", &[]).unwrap_err().0.contains("sm_12"));
        assert!(select("g84", &["xnack-"]).is_err());
    }
}
