//! The printer: [`McInst`] to the text `llvm-mc-14 -disassemble` prints (LLVM's
//! AMDGPUInstPrinter), so our disassembly can be compared with LLVM's line by line.

use std::fmt::Write;

use super::table::{Enc, Form, OpInfo, VOP2_GFX67};
use super::{Gen, McInst, MubufAddr, Operand};

/// A MUBUF instruction's address operands as llvm-mc prints them: VADDR (`off` when
/// there is none), the resource, SOFFSET, and the addressing mode's keyword.
fn mubuf_address(
    inst: &McInst,
    rsrc: Option<Operand>,
    op: &dyn Fn(Option<Operand>, u8) -> String,
) -> [String; 3] {
    let vaddr = match inst.mubuf {
        MubufAddr::Off => "off".to_string(),
        _ => op(inst.src[0], inst.src_widths()[0]),
    };
    let soffset = op(Some(inst.soffset), 1);
    let mode = match inst.mubuf {
        MubufAddr::Addr64 => " addr64",
        MubufAddr::Offen => " offen",
        MubufAddr::Off => "",
    };
    [vaddr, op(rsrc, 4), format!("{soffset}{mode}")]
}

/// The assembly text of `inst`, exactly as `llvm-mc-14 -disassemble` prints it.
pub fn print(inst: &McInst, generation: Gen) -> String {
    let info = inst.op.info();
    let mut s = String::from(info.mnemonic(generation));
    let op = |o: Option<Operand>, width: u8| operand(o, width, inst.literal, generation);
    let widths = inst.src_widths();
    let mut args: Vec<String> = Vec::new();
    match info.form {
        Form::Sop1 | Form::Sop1Dst | Form::Sop1Src | Form::Sop2 | Form::Sopc => {
            if info.dst != 0 {
                args.push(op(inst.dst, info.dst));
            }
            for i in 0..info.num_srcs() {
                args.push(op(inst.src[i], info.src[i]));
            }
        }
        Form::SopkDst => args.extend([op(inst.dst, 1), format!("{:#x}", inst.imm as u16)]),
        Form::SopkSrc => args.extend([op(inst.src[0], 1), format!("{:#x}", inst.imm as u16)]),
        Form::SopkGetreg => args.extend([op(inst.dst, 1), hwreg(inst.imm as u16, generation)]),
        Form::SopkSetreg | Form::SopkSetregImm32 => {
            args.extend([hwreg(inst.imm as u16, generation), op(inst.src[0], 1)])
        }
        Form::Sopp | Form::SmemNone => {}
        Form::SoppImm => args.push(inst.imm.to_string()),
        // llvm-mc -disassemble prints the branch offset as an unsigned 16-bit number.
        Form::SoppBranch => args.push((inst.imm as u16).to_string()),
        Form::SoppWaitcnt => args.push(waitcnt(inst.imm as u16, generation)),
        Form::SmemLoad => args.extend([
            op(inst.dst, info.dst),
            op(inst.src[0], info.src[0]),
            match inst.src[1] {
                Some(soffset) => op(Some(soffset), 1),
                None => format!("{:#x}", inst.imm),
            },
        ]),
        Form::FlatLoad => args.extend([op(inst.dst, info.dst), op(inst.src[0], widths[0])]),
        Form::FlatStore => args.extend([op(inst.src[0], widths[0]), op(inst.src[1], widths[1])]),
        Form::MubufLoad => {
            args.push(op(inst.dst, info.dst));
            args.extend(mubuf_address(inst, inst.src[1], &op));
        }
        Form::MubufStore | Form::MubufAtomic => {
            args.push(op(inst.src[1], info.src[1]));
            args.extend(mubuf_address(inst, inst.src[2], &op));
        }
        Form::FlatAtomic => {
            if inst.dst.is_some() {
                args.push(op(inst.dst, info.dst));
            }
            args.extend([op(inst.src[0], widths[0]), op(inst.src[1], widths[1])]);
        }
        Form::MubufNone => {}
        Form::DsSwizzle => args.extend([op(inst.dst, 1), op(inst.src[0], 1)]),
        Form::DsPermute => args.extend([op(inst.dst, 1), op(inst.src[0], 1), op(inst.src[1], 1)]),
        Form::DsRead | Form::DsRead2 => args.extend([op(inst.dst, info.dst), op(inst.src[0], 1)]),
        Form::DsWrite => args.extend([op(inst.src[0], 1), op(inst.src[1], info.src[1])]),
        Form::DsWrite2 => args.extend([
            op(inst.src[0], 1),
            op(inst.src[1], info.src[1]),
            op(inst.src[2], info.src[2]),
        ]),
        Form::DsAtomic => {
            if info.dst != 0 {
                args.push(op(inst.dst, info.dst));
            }
            args.extend([op(inst.src[0], 1), op(inst.src[1], info.src[1])]);
            if info.src[2] != 0 {
                args.push(op(inst.src[2], info.src[2]));
            }
        }
        Form::Vintrp | Form::VintrpMov => {
            // gfx8/gfx9 also have a VOP3 form, so llvm-mc names this one `_e32`.
            if generation >= Gen::Gfx8 {
                s.push_str("_e32");
            }
            args.push(op(inst.dst, 1));
            if let Some(interp) = inst.interp {
                args.push(match interp.param {
                    Some(param) => param.name().to_string(),
                    None => op(inst.src[0], 1),
                });
                let chan = ["x", "y", "z", "w"][interp.chan as usize & 3];
                args.push(format!("attr{}.{chan}", interp.attr));
            }
        }
        Form::Exp => {
            if let Some(exp) = inst.export {
                s.push(' ');
                s.push_str(&exp.target.name());
                let channels: Vec<String> = exp
                    .src
                    .iter()
                    .map(|&src| src.map_or("off".to_string(), |v| op(Some(v), 1)))
                    .collect();
                args.push(channels.join(", "));
                for (flag, name) in [(exp.done, "done"), (exp.compr, "compr"), (exp.vm, "vm")] {
                    if flag {
                        args.last_mut()
                            .expect("the channels")
                            .push_str(&format!(" {name}"));
                    }
                }
            }
        }
        Form::Valu => {
            s.push_str(valu_suffix(inst, info, generation));
            if info.dst != 0 {
                args.push(op(inst.dst, info.dst));
            }
            if info.sdst != 0 {
                args.push(op(inst.sdst, 2));
            }
            let sext = inst.sdwa.map_or(0, |sel| sel.sext);
            for i in 0..info.num_srcs() {
                let text = op(inst.src[i], info.src[i]);
                let (abs, neg) = (inst.abs >> i & 1 != 0, inst.neg >> i & 1 != 0);
                let text = if abs { format!("|{text}|") } else { text };
                let text = if sext >> i & 1 != 0 {
                    format!("sext({text})")
                } else {
                    text
                };
                // A negated constant without abs prints as `neg(…)`: `-1.0` is another
                // inline constant (AMDGPUInstPrinter::printOperandAndFPInputMods).
                let constant =
                    inst.src[i].is_some_and(|o| o.is_inline_constant() || o.is_literal());
                args.push(match (neg, constant && !abs) {
                    (false, _) => text,
                    (true, false) => format!("-{text}"),
                    (true, true) => format!("neg({text})"),
                });
            }
        }
    }
    if !args.is_empty() {
        s.push(' ');
        s.push_str(&args.join(", "));
    }
    if inst.enc == Enc::Global {
        // The SGPR base, or `off` when the address is VADDR alone.
        match inst.saddr() {
            Some(base) => {
                s.push_str(", ");
                s.push_str(&op(Some(base), 2));
            }
            None => s.push_str(", off"),
        }
    }
    if matches!(
        info.form,
        Form::FlatLoad
            | Form::FlatStore
            | Form::FlatAtomic
            | Form::MubufLoad
            | Form::MubufStore
            | Form::MubufAtomic
            | Form::DsPermute
            | Form::DsRead
            | Form::DsWrite
            | Form::DsAtomic
    ) && inst.imm != 0
    {
        let _ = write!(s, " offset:{}", inst.imm);
    }
    // Each of read2/write2's offsets is printed when it is not 0.
    if matches!(info.form, Form::DsRead2 | Form::DsWrite2) {
        for (k, offset) in [inst.imm & 0xff, inst.imm >> 8 & 0xff]
            .into_iter()
            .enumerate()
        {
            if offset != 0 {
                let _ = write!(s, " offset{k}:{offset}");
            }
        }
    }
    if info.form == Form::DsSwizzle && inst.imm != 0 {
        let _ = write!(s, " offset:{}", swizzle(inst.imm as u16));
    }
    if inst.glc {
        s.push_str(" glc");
    }
    if inst.slc {
        s.push_str(" slc");
    }
    if inst.clamp {
        s.push_str(" clamp");
    }
    s.push_str(match inst.omod {
        1 => " mul:2",
        2 => " mul:4",
        3 => " div:2",
        _ => "",
    });
    if let Some(sel) = inst.sdwa {
        if info.enc != Enc::Vopc {
            let _ = write!(
                s,
                " dst_sel:{} dst_unused:{}",
                sel.dst_sel.name(),
                sel.dst_unused.name()
            );
        }
        let _ = write!(s, " src0_sel:{}", sel.src_sel[0].name());
        if info.src[1] != 0 {
            let _ = write!(s, " src1_sel:{}", sel.src_sel[1].name());
        }
    }
    if let Some(dpp) = inst.dpp {
        let _ = write!(
            s,
            " {} row_mask:{:#x} bank_mask:{:#x}",
            dpp.ctrl, dpp.row_mask, dpp.bank_mask
        );
        if dpp.bound_ctrl {
            s.push_str(" bound_ctrl:1");
        }
    }
    s
}

/// `_e32` / `_e64` when the operation has both a 32-bit and a VOP3 form on `generation`;
/// `_sdwa`, `_dpp`. llvm-mc-14 prints gfx8's VOPC SDWA without a suffix
/// (`v_cmp_eq_f32 vcc, v1, v2 src0_sel:BYTE_0 src1_sel:DWORD`), and accepts it back.
fn valu_suffix(inst: &McInst, info: &OpInfo, generation: Gen) -> &'static str {
    let g = generation as usize;
    match inst.enc {
        Enc::Sdwa if info.enc == Enc::Vopc && generation == Gen::Gfx8 => "",
        Enc::Sdwa => "_sdwa",
        Enc::Dpp => "_dpp",
        Enc::Vop1 | Enc::Vop2 | Enc::Vopc if info.vop3[g].is_some() => "_e32",
        Enc::Vop2 if info.flags & VOP2_GFX67 != 0 => "_e32",
        Enc::Vop3 if info.enc != Enc::Vop3 && info.opcode[g].is_some() => "_e64",
        Enc::Vop3 if info.flags & VOP2_GFX67 != 0 && generation <= Gen::Gfx7 => "_e64",
        _ => "",
    }
}

/// A register range `prefix[first:last]`, or `prefix{first}` for a single register.
fn range(prefix: &str, first: u16, width: u8) -> String {
    if width <= 1 {
        format!("{prefix}{first}")
    } else {
        format!("{prefix}[{first}:{}]", first + width as u16 - 1)
    }
}

/// One operand in LLVM's syntax. Operand numbering: GCN3 ISA manual 12.1, table "SSRC0";
/// names as AMDGPUInstPrinter::printRegOperand and printImmediate32/64 print them.
pub(crate) fn operand(
    o: Option<Operand>,
    width: u8,
    literal: Option<u32>,
    generation: Gen,
) -> String {
    let Some(Operand(n)) = o else {
        return "<none>".into();
    };
    let named = |name: &str| -> String {
        match width {
            1 => format!("{name}_lo"),
            _ => name.to_string(),
        }
    };
    let gfx9 = generation >= Gen::Gfx9;
    match n {
        0..=101 => range("s", n, width),
        // gfx6/gfx7 have 104 SGPRs; gfx8 names s102..s105 flat_scratch and xnack_mask.
        102..=103 if generation <= Gen::Gfx7 => range("s", n, width),
        102 if generation >= Gen::Gfx8 => named("flat_scratch"),
        103 if generation >= Gen::Gfx8 && width == 1 => "flat_scratch_hi".into(),
        104 if generation >= Gen::Gfx8 => named("xnack_mask"),
        105 if generation >= Gen::Gfx8 && width == 1 => "xnack_mask_hi".into(),
        106 => named("vcc"),
        107 if width == 1 => "vcc_hi".into(),
        108..=123 if gfx9 => range("ttmp", n - 108, width),
        108 => named("tba"),
        109 if width == 1 => "tba_hi".into(),
        110 => named("tma"),
        111 if width == 1 => "tma_hi".into(),
        112..=123 => range("ttmp", n - 112, width),
        124 => "m0".into(),
        126 => named("exec"),
        127 if width == 1 => "exec_hi".into(),
        128..=192 => (n - 128).to_string(),
        193..=208 => (-(n as i32 - 192)).to_string(),
        240..=247 => {
            ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"][n as usize - 240].into()
        }
        248 if width == 2 => "0.15915494309189532".into(),
        248 => "0.15915494".into(),
        251 => "src_vccz".into(),
        252 => "src_execz".into(),
        253 => "src_scc".into(),
        255 => match literal {
            // A 32-bit literal an inline constant could have given (the literals a call
            // site's offset goes into) prints as that constant, as llvm-mc prints it.
            Some(v) if width == 1 => match inline_look(v, generation) {
                Some(text) => text,
                None => format!("{v:#x}"),
            },
            Some(v) => format!("{v:#x}"),
            None => "<literal?>".into(),
        },
        256..=511 => range("v", n - 256, width),
        _ => format!("<invalid operand {n}>"),
    }
}

/// How llvm-mc prints a 32-bit literal whose value an inline constant has: the integers
/// -16 to 64 and the float constants (1/(2π) from gfx8 on).
fn inline_look(v: u32, generation: Gen) -> Option<String> {
    if (-16..=64).contains(&(v as i32)) {
        return Some((v as i32).to_string());
    }
    let floats = [
        (0.5f32, "0.5"),
        (-0.5, "-0.5"),
        (1.0, "1.0"),
        (-1.0, "-1.0"),
        (2.0, "2.0"),
        (-2.0, "-2.0"),
        (4.0, "4.0"),
        (-4.0, "-4.0"),
    ];
    if let Some(&(_, text)) = floats.iter().find(|(f, _)| f.to_bits() == v) {
        return Some(text.into());
    }
    (generation >= Gen::Gfx8 && v == 0x3e22_f983).then(|| "0.15915494".into())
}

/// `s_waitcnt`'s counters (the layout in `fields.rs`), printed as llvm-mc does: each
/// counter not at its maximum ("no wait"), or all three if all are.
fn waitcnt(imm: u16, generation: Gen) -> String {
    let (vm, exp, lgkm) = super::decode_waitcnt(imm, generation);
    let (vm_max, exp_max, lgkm_max) = super::waitcnt_max(generation);
    let all = vm == vm_max && exp == exp_max && lgkm == lgkm_max;
    let mut parts = Vec::new();
    if vm != vm_max || all {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != exp_max || all {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != lgkm_max || all {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    parts.join(" ")
}

/// A hardware-register descriptor `hwreg(id, offset, size)` (SOPK s_getreg/s_setreg; GCN3
/// ISA manual 4.8): ID [5:0], OFFSET [10:6], SIZE-1 [15:11]; offset and size are omitted
/// when they are 0 and 32, and known registers print by name.
fn hwreg(imm: u16, generation: Gen) -> String {
    let id = imm & 0x3f;
    let offset = imm >> 6 & 0x1f;
    let size = (imm >> 11 & 0x1f) + 1;
    let name = match id {
        1 => Some("HW_REG_MODE"),
        2 => Some("HW_REG_STATUS"),
        3 => Some("HW_REG_TRAPSTS"),
        4 => Some("HW_REG_HW_ID"),
        5 => Some("HW_REG_GPR_ALLOC"),
        6 => Some("HW_REG_LDS_ALLOC"),
        7 => Some("HW_REG_IB_STS"),
        15 if generation >= Gen::Gfx9 => Some("HW_REG_SH_MEM_BASES"),
        _ => None,
    };
    let id = name.map_or(id.to_string(), str::to_string);
    if offset == 0 && size == 32 {
        format!("hwreg({id})")
    } else {
        format!("hwreg({id}, {offset}, {size})")
    }
}

/// A `ds_swizzle_b32` pattern as llvm-mc prints it (AMDGPUInstPrinter's `printSwizzle`):
/// `swizzle(QUAD_PERM,a,b,c,d)` for the quad mode (offset[15:8] = 0x80; lane i of each
/// quad reads lane offset[2i+1:2i]), and for the 32-lane mode (offset[15] = 0; source
/// lane bit = ((lane & and) | or) ^ xor, bitwise, with and = offset[4:0], or =
/// offset[9:5], xor = offset[14:10]) the named forms `SWAP` (xor one bit), `REVERSE`
/// (xor 2^n − 1), `BROADCAST` (a group of the low bits all read one lane) or the bit
/// string `BITMASK_PERM` (high bit first: `p` keeps the lane's bit, `i` inverts it,
/// `0`/`1` force it). Other patterns (the gfx9 rotate and FFT modes among them) print as
/// the decimal offset.
fn swizzle(offset: u16) -> String {
    if offset & 0xff00 == 0x8000 {
        let lanes: Vec<String> = (0..4)
            .map(|i| (offset >> (2 * i) & 3).to_string())
            .collect();
        return format!("swizzle(QUAD_PERM,{})", lanes.join(","));
    }
    if offset & 0x8000 != 0 {
        return offset.to_string();
    }
    let (and, or, xor) = (offset & 0x1f, offset >> 5 & 0x1f, offset >> 10 & 0x1f);
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return format!("swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor != 0 && (xor + 1).is_power_of_two() {
        return format!("swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return format!("swizzle(BROADCAST,{group},{or})");
    }
    let bits: String = (0..5)
        .rev()
        .map(|b| match (and >> b & 1, or >> b & 1, xor >> b & 1) {
            (1, 0, 0) => 'p',
            (1, 0, _) => 'i',
            (_, o, x) if o ^ x == 1 => '1',
            _ => '0',
        })
        .collect();
    format!("swizzle(BITMASK_PERM,\"{bits}\")")
}
