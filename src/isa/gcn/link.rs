//! Linking the functions of a module that call one another (`docs/ir.md`, "Calls"): each
//! call site ([`CallSite`], in [`GcnInfo::calls`]) is `s_getpc_b64 s[0:1]`, `s_add_u32 s0,
//! s0, lo`, `s_addc_u32 s1, s1, hi`, `s_swappc_b64`, and each function address taken
//! (`func_addr`) the same three instructions into another pair; linking writes the
//! callee's offset from the end of the `s_getpc_b64` into the two literals, as the
//! `R_AMDGPU_REL32_LO`/`_HI` relocations of LLVM's calls do. A function's needs grow by
//! its callees': private memory by the deepest chain of frames, registers to the most any
//! callee uses. A function that calls through addresses (`call_indirect`) may call any
//! function whose address the module takes.

use super::GcnInfo;
use crate::{CompiledCode, FunctionKind, TargetInfo};

/// A call or a function address in compiled code: where its `s_getpc_b64` is, and the
/// callee's symbol (its CLIF name without `%`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The byte offset of the site's `s_getpc_b64` in the function's code.
    pub offset: u32,
    /// The function called, or whose address is taken.
    pub callee: String,
    pub kind: SiteKind,
}

/// What a [`CallSite`] does with its callee's address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// Calls it (`call`).
    Call,
    /// Gives it as a value (`func_addr`) to a function of `signature`
    /// ([`signature_key`]).
    Address { signature: String },
}

/// Which functions a call through an address (`call_indirect`) may call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndirectCall {
    /// One of these, by symbol: the address is one of their `func_addr`s (through
    /// `select`s).
    To(Vec<String>),
    /// Any function whose address the module takes, of this signature
    /// ([`signature_key`]): the address comes from elsewhere (memory, a block parameter).
    Signature(String),
}

/// A signature's parameter and result types, which a call through an address and the
/// functions it may reach agree on.
pub fn signature_key(sig: &crate::ir::Signature) -> String {
    let types = |params: &[crate::ir::AbiParam]| {
        params
            .iter()
            .map(|p| p.value_type.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("({}) -> ({})", types(&sig.params), types(&sig.returns))
}

/// The byte offsets of the two literals a call site's offset goes into, from the site's
/// `s_getpc_b64`: `s_add_u32`'s (after its 4-byte word) and `s_addc_u32`'s.
pub const LITERAL_LO: usize = 8;
pub const LITERAL_HI: usize = 16;

/// Writes into `code` the offset of the callee (at byte `callee_at` of the same code) of
/// the call whose `s_getpc_b64` is at byte `site_at`.
pub fn patch(code: &mut [u8], site_at: usize, callee_at: usize) {
    let delta = callee_at as i64 - (site_at as i64 + 4);
    code[site_at + LITERAL_LO..site_at + LITERAL_LO + 4]
        .copy_from_slice(&(delta as u32).to_le_bytes());
    code[site_at + LITERAL_HI..site_at + LITERAL_HI + 4]
        .copy_from_slice(&((delta >> 32) as u32).to_le_bytes());
}

/// What a function needs with every function it calls, directly or not.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Bytes of private memory per lane: its frame and the deepest chain of its callees'.
    pub private_segment_size: u32,
    pub vgprs: u32,
    pub sgprs: u32,
    pub uses_vcc: bool,
}

/// The [`Needs`] of function `index` of `functions` (name and information each). A callee
/// missing from them, or recursion (whose depth, and so its private memory, no one knows
/// before it runs), is an error naming it.
pub fn needs(functions: &[(&str, &GcnInfo)], index: usize) -> Result<Needs, String> {
    let mut path = Vec::new();
    needs_on(functions, index, &mut path)
}

fn needs_on(
    functions: &[(&str, &GcnInfo)],
    index: usize,
    path: &mut Vec<usize>,
) -> Result<Needs, String> {
    let (name, info) = functions[index];
    if path.contains(&index) {
        return Err(format!(
            "`{name}` calls itself (through {}): recursion is not supported, since a \
             kernel's private memory must cover its deepest chain of calls",
            path.iter()
                .map(|&i| functions[i].0)
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    }
    let mut own = Needs {
        private_segment_size: info.private_segment_size,
        vgprs: info.vgprs,
        sgprs: info.sgprs,
        uses_vcc: info.uses_vcc,
    };
    path.push(index);
    let mut deepest = 0;
    for callee in callees(functions, index)? {
        let callee = needs_on(functions, callee, path)?;
        deepest = deepest.max(callee.private_segment_size);
        own.vgprs = own.vgprs.max(callee.vgprs);
        own.sgprs = own.sgprs.max(callee.sgprs);
        own.uses_vcc |= callee.uses_vcc;
    }
    path.pop();
    own.private_segment_size += deepest;
    Ok(own)
}

/// The index in `functions` of the function named `callee`, which `caller` calls or whose
/// address it takes.
fn find(functions: &[(&str, &GcnInfo)], caller: &str, callee: &str) -> Result<usize, String> {
    functions
        .iter()
        .position(|(n, _)| *n == callee)
        .ok_or_else(|| {
            format!("`{caller}` calls `{callee}` or takes its address, which the module lacks")
        })
}

/// The functions function `index` may call: its call sites' callees and those of its
/// calls through addresses ([`IndirectCall`]).
fn callees(functions: &[(&str, &GcnInfo)], index: usize) -> Result<Vec<usize>, String> {
    let (name, info) = functions[index];
    let mut out = Vec::new();
    for site in info.calls.iter().filter(|s| s.kind == SiteKind::Call) {
        out.push(find(functions, name, &site.callee)?);
    }
    for call in &info.indirect_calls {
        match call {
            IndirectCall::To(callees) => {
                for callee in callees {
                    out.push(find(functions, name, callee)?);
                }
            }
            IndirectCall::Signature(wanted) => {
                for (caller, other) in functions {
                    for site in &other.calls {
                        if matches!(&site.kind, SiteKind::Address { signature } if signature == wanted)
                        {
                            out.push(find(functions, caller, &site.callee)?);
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Links function `entry` of `functions` (each with its symbol) with every function it
/// calls into one piece of code: the entry at offset 0, the callees after it, every call
/// resolved, and the needs of the whole in its information (no calls left in it). What
/// the simulator runs for a function that calls.
pub fn link(functions: &[(&str, &CompiledCode)], entry: usize) -> Result<CompiledCode, String> {
    let infos: Vec<(&str, &GcnInfo)> = functions
        .iter()
        .map(|&(name, compiled)| {
            compiled
                .gcn()
                .map(|info| (name, info))
                .ok_or_else(|| format!("`{name}` is not compiled for GCN"))
        })
        .collect::<Result<_, _>>()?;
    let needs = needs(&infos, entry)?;
    // The functions reachable from the entry, in the order they are met.
    let mut order = vec![entry];
    let mut next = 0;
    while next < order.len() {
        let (name, info) = infos[order[next]];
        let mut reached = callees(&infos, order[next])?;
        for site in &info.calls {
            reached.push(find(&infos, name, &site.callee)?);
        }
        for callee in reached {
            if !order.contains(&callee) {
                order.push(callee);
            }
        }
        next += 1;
    }
    let mut code = Vec::new();
    let mut starts = vec![0; functions.len()];
    for &f in &order {
        starts[f] = code.len();
        code.extend_from_slice(&functions[f].1.code);
    }
    for &f in &order {
        for site in &infos[f].1.calls {
            let callee = find(&infos, infos[f].0, &site.callee)?;
            patch(&mut code, starts[f] + site.offset as usize, starts[callee]);
        }
    }
    let mut info = infos[entry].1.clone();
    info.private_segment_size = needs.private_segment_size;
    info.vgprs = needs.vgprs;
    info.sgprs = needs.sgprs;
    info.uses_vcc = needs.uses_vcc;
    info.calls.clear();
    info.indirect_calls.clear();
    let kind: FunctionKind = functions[entry].1.kind;
    Ok(CompiledCode::new(code, kind, TargetInfo::Gcn(info)))
}
