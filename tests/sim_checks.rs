//! The simulator's wait-count and hazard checks through the public API: hand-built
//! sequences that break a rule must fail with the violation that names it, and the same
//! sequences with the `s_waitcnt` or `s_nop` the rule asks for must run.

use wavelift::isa::gcn::mc::waitcnt_imm;
use wavelift::isa::gcn::mc::{Enc, Gen, McInst, Op, Operand, encode};
use wavelift::sim::gcn::call_device;
use wavelift::sim::{Memory, Options, SimError, Violation};

const ALL: [Gen; 4] = [Gen::Gfx6, Gen::Gfx7, Gen::Gfx8, Gen::Gfx9];
const FLAT_GENS: [Gen; 3] = [Gen::Gfx7, Gen::Gfx8, Gen::Gfx9];

fn s(n: u8) -> Operand {
    Operand::sgpr(n)
}
fn v(n: u8) -> Operand {
    Operand::vgpr(n)
}

/// A device function: `insts`, then `s_setpc_b64 s[0:1]`.
fn device(generation: Gen, insts: &[McInst]) -> Vec<u8> {
    let mut ret = McInst::new(Op::SSetpcB64, Enc::Sop1);
    ret.src[0] = Some(s(0));
    let mut code = Vec::new();
    for i in insts.iter().chain([&ret]) {
        encode(i, generation, &mut code).unwrap_or_else(|e| panic!("{i:?}: {e}"));
    }
    code
}

fn smov(dst: u8, value: u32) -> McInst {
    let mut m = McInst::new(Op::SMovB32, Enc::Sop1);
    m.dst = Some(s(dst));
    m.src[0] = Some(Operand::LITERAL);
    m.literal = Some(value);
    m
}

/// `s[dst:dst+1] = address`.
fn spointer(dst: u8, address: u64) -> [McInst; 2] {
    [
        smov(dst, address as u32),
        smov(dst + 1, (address >> 32) as u32),
    ]
}

fn sop2(op: Op, dst: u8, a: Operand, b: Operand) -> McInst {
    let mut m = McInst::new(op, Enc::Sop2);
    (m.dst, m.src[0], m.src[1]) = (Some(s(dst)), Some(a), Some(b));
    m
}

fn sload(op: Op, dst: u8, base: u8, offset: i32) -> McInst {
    let mut m = McInst::new(op, Enc::Smem);
    (m.dst, m.src[0], m.imm) = (Some(s(dst)), Some(s(base)), offset);
    m
}

fn flat_load(op: Op, dst: u8, addr: u8) -> McInst {
    let mut m = McInst::new(op, Enc::Flat);
    (m.dst, m.src[0]) = (Some(v(dst)), Some(v(addr)));
    m
}

fn flat_store(op: Op, addr: u8, data: u8) -> McInst {
    let mut m = McInst::new(op, Enc::Flat);
    (m.src[0], m.src[1]) = (Some(v(addr)), Some(v(data)));
    m
}

fn waitcnt(generation: Gen, vm: Option<u8>, lgkm: Option<u8>) -> McInst {
    let mut m = McInst::new(Op::SWaitcnt, Enc::Sopp);
    m.imm = waitcnt_imm(generation, vm, None, lgkm) as i32;
    m
}

fn nop(n: i32) -> McInst {
    let mut m = McInst::new(Op::SNop, Enc::Sopp);
    m.imm = n;
    m
}

/// `v_readfirstlane_b32 s[dst], v[src]`: a VALU write of an SGPR whose lane loop is the
/// wave core's own.
fn readfirstlane(dst: u8, src: u8) -> McInst {
    let mut m = McInst::new(Op::VReadfirstlaneB32, Enc::Vop1);
    (m.dst, m.src[0]) = (Some(s(dst)), Some(v(src)));
    m
}

fn run(
    generation: Gen,
    insts: &[McInst],
    args: &[Vec<u32>],
    results: usize,
    memory: &mut Memory,
) -> Result<Vec<Vec<u32>>, SimError> {
    let code = device(generation, insts);
    call_device(
        &code,
        generation,
        args,
        results,
        memory,
        &Options::default(),
    )
    .map(|r| r.0)
}

/// One lane whose v[0:1] holds `address`.
fn address_arg(address: u64) -> Vec<Vec<u32>> {
    vec![vec![address as u32, (address >> 32) as u32]]
}

#[test]
fn smem_result_needs_lgkmcnt_zero() {
    for g in ALL {
        let mut memory = Memory::new();
        let buf = memory.alloc(&[42, 0, 0, 0, 7, 0, 0, 0]);
        let [lo, hi] = spointer(4, buf);
        let load = sload(Op::SLoadDword, 6, 4, 0);
        let use_it = sop2(Op::SAddU32, 7, s(6), Operand::inline_int(1).unwrap());
        let to_v0 = readfirstlane(8, 0); // any VALU: checks that the call works end to end

        // Without a wait: the SALU read of s6 fails, naming s6 and the load.
        let seq = [lo.clone(), hi.clone(), load.clone(), use_it.clone()];
        let err = run(g, &seq, &[vec![0]], 1, &mut memory).unwrap_err();
        let load_len = if g >= Gen::Gfx8 { 8 } else { 4 };
        assert_eq!(err.pc, 16 + load_len, "{g:?}: {err}");
        let Violation::Waitcnt {
            register,
            issued_at,
            issued,
        } = &err.violation
        else {
            panic!("{g:?}: {err}");
        };
        assert_eq!((register.as_str(), *issued_at), ("s6", 16), "{g:?}: {err}");
        assert!(issued.starts_with("s_load_dword s6, s[4:5]"), "{issued}");

        // Overwriting the destination before the wait fails too.
        let seq = [lo.clone(), hi.clone(), load.clone(), smov(6, 1)];
        let err = run(g, &seq, &[vec![0]], 1, &mut memory).unwrap_err();
        assert!(
            matches!(err.violation, Violation::Waitcnt { .. }),
            "{g:?}: {err}"
        );

        // lgkmcnt(1) does not say which of two scalar loads returned.
        let second = sload(Op::SLoadDword, 9, 4, if g >= Gen::Gfx8 { 4 } else { 1 });
        let seq = [
            lo.clone(),
            hi.clone(),
            load.clone(),
            second,
            waitcnt(g, None, Some(1)),
            use_it.clone(),
        ];
        let err = run(g, &seq, &[vec![0]], 1, &mut memory).unwrap_err();
        assert!(
            matches!(err.violation, Violation::Waitcnt { .. }),
            "{g:?}: {err}"
        );

        // With lgkmcnt(0): the value arrives.
        let seq = [lo, hi, load, waitcnt(g, None, Some(0)), use_it, to_v0];
        let mut m2 = memory.clone();
        run(g, &seq, &[vec![0]], 1, &mut m2).unwrap();
    }
}

#[test]
fn smem_loads_values_and_offsets() {
    for g in ALL {
        let mut memory = Memory::new();
        let words: Vec<u8> = (0u32..16).flat_map(|w| (100 + w).to_le_bytes()).collect();
        let buf = memory.alloc(&words);
        // Byte offsets on gfx8/gfx9, dword offsets on gfx6/gfx7.
        let unit = if g >= Gen::Gfx8 { 4 } else { 1 };
        let [lo, hi] = spointer(4, buf);
        let mut seq = vec![
            lo,
            hi,
            sload(Op::SLoadDwordx4, 8, 4, 2 * unit),
            sload(Op::SLoadDwordx2, 12, 4, 14 * unit),
            waitcnt(g, None, Some(0)),
        ];
        seq.extend((0..6).map(|k| valu(Op::VMovB32, g, Some(v(k)), None, &[s(8 + k)])));
        let r = run(g, &seq, &[vec![0]], 6, &mut memory).unwrap();
        assert_eq!(r, vec![vec![102, 103, 104, 105, 114, 115]], "{g:?}");
        // Past the end of the buffer: a memory violation.
        let [lo, hi] = spointer(4, buf);
        let seq = [lo, hi, sload(Op::SLoadDwordx4, 8, 4, 14 * unit)];
        let err = run(g, &seq, &[vec![0]], 1, &mut memory).unwrap_err();
        assert!(
            matches!(err.violation, Violation::Memory { lane: None, .. }),
            "{g:?}: {err}"
        );
    }
}

/// A FLAT load of global memory is complete at `vmcnt` alone, as LLVM's code assumes (it
/// waits for `lgkmcnt` after FLAT only when the access may reach LDS): `lgkmcnt(0)` alone
/// or no wait leaves the result pending.
#[test]
fn flat_global_result_needs_vmcnt_only() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let buf = memory.alloc(&42u32.to_le_bytes());
        let load = flat_load(Op::FlatLoadDword, 2, 0);
        let read = readfirstlane(4, 2);
        for (vm, lgkm, ok) in [
            (None, None, false),
            (Some(0), None, true),
            (None, Some(0), false),
            (Some(0), Some(0), true),
        ] {
            let mut seq = vec![load.clone()];
            if vm.is_some() || lgkm.is_some() {
                seq.push(waitcnt(g, vm, lgkm));
            }
            seq.push(read.clone());
            let r = run(g, &seq, &address_arg(buf), 1, &mut memory);
            match r {
                Ok(_) => assert!(ok, "{g:?} vmcnt {vm:?} lgkmcnt {lgkm:?} should fail"),
                Err(e) => {
                    assert!(!ok, "{g:?}: {e}");
                    let Violation::Waitcnt {
                        register,
                        issued_at,
                        ..
                    } = &e.violation
                    else {
                        panic!("{g:?}: {e}");
                    };
                    assert_eq!((register.as_str(), *issued_at), ("v2", 0));
                }
            }
        }
    }
}

/// The shape of llc-19's gfx700/gfx803 code for `c[i] = 2 a[i] + b[i]`: the pointers come
/// from a scalar load waited for with `lgkmcnt(0)`, two FLAT loads, one `s_waitcnt
/// vmcnt(0)` before their use and a FLAT store (then, this being a device function, a
/// `vmcnt(0)` before the return). It runs; without the first `vmcnt(0)` it fails on the
/// older load's register, with `vmcnt(1)` (which retires only the older load) on the
/// newer one's.
#[test]
fn llvm_style_flat_sequence_runs() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let a = memory.alloc(&3f32.to_bits().to_le_bytes());
        let b = memory.alloc(&0.5f32.to_bits().to_le_bytes());
        let c = memory.alloc(&[0; 4]);
        let args = memory.alloc(
            &[a, b, c]
                .iter()
                .flat_map(|p| p.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let vmov = |dst: u8, src: u8| valu(Op::VMovB32, g, Some(v(dst)), None, &[s(src)]);
        let two = Operand::inline_f32(2f32.to_bits(), g).unwrap();
        let mac = valu(Op::VMacF32, g, Some(v(5)), None, &[two, v(4)]);
        let body = |wait: Option<McInst>| {
            let [lo, hi] = spointer(4, args);
            let mut seq = vec![
                lo,
                hi,
                sload(Op::SLoadDwordx4, 8, 4, 0),
                // Byte offsets on gfx8/gfx9, dword offsets on gfx7.
                sload(Op::SLoadDwordx2, 12, 4, if g >= Gen::Gfx8 { 16 } else { 4 }),
                waitcnt(g, None, Some(0)),
                vmov(2, 8),
                vmov(3, 9),
                flat_load(Op::FlatLoadDword, 4, 2),
                vmov(2, 10),
                vmov(3, 11),
                flat_load(Op::FlatLoadDword, 5, 2),
                vmov(2, 12),
                vmov(3, 13),
            ];
            seq.extend(wait);
            seq.extend([
                mac.clone(),
                flat_store(Op::FlatStoreDword, 2, 5),
                waitcnt(g, Some(0), None),
            ]);
            seq
        };
        let seq = body(Some(waitcnt(g, Some(0), None)));
        run(g, &seq, &[vec![0]], 0, &mut memory).unwrap_or_else(|e| panic!("{g:?}: {e}"));
        let expected = 6.5f32.to_bits().to_le_bytes();
        assert_eq!(memory.read(c, 4), Some(&expected[..]), "{g:?}");
        for (wait, pending) in [(None, "v4"), (Some(waitcnt(g, Some(1), None)), "v5")] {
            let err = run(g, &body(wait), &[vec![0]], 0, &mut memory).unwrap_err();
            assert!(
                matches!(&err.violation, Violation::Waitcnt { register, .. } if register == pending),
                "{g:?}: {err}"
            );
        }
    }
}

#[test]
fn vmcnt_retires_in_issue_order() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let buf = memory.alloc(&[1, 0, 0, 0, 2, 0, 0, 0]);
        let first = flat_load(Op::FlatLoadDword, 2, 0);
        let second = flat_load(Op::FlatLoadDword, 3, 0);
        let seq = [
            first.clone(),
            second.clone(),
            waitcnt(g, Some(1), None),
            readfirstlane(4, 2),
            waitcnt(g, Some(0), None),
        ];
        run(g, &seq, &address_arg(buf), 1, &mut memory).unwrap();
        let seq = [
            first,
            second,
            waitcnt(g, Some(1), None),
            readfirstlane(4, 3),
        ];
        let err = run(g, &seq, &address_arg(buf), 1, &mut memory).unwrap_err();
        let Violation::Waitcnt {
            register,
            issued_at,
            ..
        } = &err.violation
        else {
            panic!("{g:?}: {err}");
        };
        assert_eq!((register.as_str(), *issued_at), ("v3", 8));
    }
}

#[test]
fn pending_result_at_return_fails() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let buf = memory.alloc(&[5, 0, 0, 0, 6, 0, 0, 0]);
        let seq = [flat_load(Op::FlatLoadDwordx2, 0, 0)];
        let err = run(g, &seq, &address_arg(buf), 2, &mut memory).unwrap_err();
        assert_eq!(err.pc, 8, "the s_setpc_b64: {err}");
        assert!(
            err.inst
                .as_deref()
                .is_some_and(|t| t.starts_with("s_setpc_b64"))
        );
        assert!(matches!(err.violation, Violation::Waitcnt { .. }), "{err}");
        // With the wait, the result is there.
        let seq = [
            flat_load(Op::FlatLoadDwordx2, 0, 0),
            waitcnt(g, Some(0), Some(0)),
        ];
        let r = run(g, &seq, &address_arg(buf), 2, &mut memory).unwrap();
        assert_eq!(r, vec![vec![5, 6]]);
        // No memory operation may be outstanding at the return (docs/ir.md), even one
        // whose register is not a result, or a store.
        let seq = [flat_load(Op::FlatLoadDword, 5, 0)];
        let err = run(g, &seq, &address_arg(buf), 2, &mut memory).unwrap_err();
        assert!(
            matches!(&err.violation, Violation::Waitcnt { register, .. } if register.contains("return")),
            "{err}"
        );
    }
}

#[test]
fn flat_loads_extend_and_stores_are_exec_masked() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let src = memory.alloc(&[0x80, 0xff, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc]);
        let dst = memory.alloc_zeroed(64 * 4);
        let w = waitcnt(g, Some(0), Some(0));
        let seq = [
            flat_load(Op::FlatLoadUbyte, 2, 0),
            flat_load(Op::FlatLoadSbyte, 3, 0),
            flat_load(Op::FlatLoadUshort, 4, 0),
            flat_load(Op::FlatLoadSshort, 5, 0),
            // Misaligned dword: allowed, as for global memory on the hardware.
            flat_load(Op::FlatLoadDword, 6, 0),
            w.clone(),
        ];
        // Lane 0 reads at src, lane 1 at src + 1.
        let args: Vec<Vec<u32>> = (0..2u64)
            .map(|i| vec![(src + i) as u32, ((src + i) >> 32) as u32])
            .collect();
        let res = run(g, &seq, &args, 7, &mut memory).unwrap();
        assert_eq!(
            res[0][2..],
            [0x80, 0xffff_ff80, 0xff80, 0xffff_ff80, 0x127f_ff80]
        );
        assert_eq!(
            res[1][2..],
            [0xff, 0xffff_ffff, 0x7fff, 0x7fff, 0x3412_7fff]
        );

        // Stores: 3 active lanes of a dword store, lane i to dst + 4i.
        let args: Vec<Vec<u32>> = (0..3u64)
            .map(|i| {
                let a = dst + 4 * i;
                vec![a as u32, (a >> 32) as u32, 0x100 + i as u32]
            })
            .collect();
        let seq = [flat_store(Op::FlatStoreDword, 0, 2), w.clone()];
        run(g, &seq, &args, 0, &mut memory).unwrap();
        let bytes = memory.read(dst, 16).unwrap();
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            words,
            [0x100, 0x101, 0x102, 0],
            "{g:?}: inactive lanes store nothing"
        );

        // Outside every region: the violation names the lane and the address.
        let mut args = args;
        args[1][0] = args[1][0].wrapping_add(0x10_0000);
        let err = run(g, &seq, &args, 0, &mut memory).unwrap_err();
        let Violation::Memory { lane, address, .. } = err.violation else {
            panic!("{g:?}: {err}");
        };
        assert_eq!(lane, Some(1));
        assert_eq!(address as u32, args[1][0]);
    }
}

fn valu(
    op: Op,
    generation: Gen,
    dst: Option<Operand>,
    sdst: Option<Operand>,
    srcs: &[Operand],
) -> McInst {
    McInst::valu(op, generation, dst, sdst, srcs).unwrap()
}

#[test]
fn div_scale_then_div_fmas_needs_four_wait_states() {
    for g in ALL {
        let scale = valu(
            Op::VDivScaleF32,
            g,
            Some(v(3)),
            Some(Operand::VCC),
            &[v(0), v(1), v(0)],
        );
        let fmas = valu(Op::VDivFmasF32, g, Some(v(0)), None, &[v(3), v(1), v(2)]);
        let args = vec![vec![1.0f32.to_bits(), 3.0f32.to_bits(), 0.5f32.to_bits()]];
        let mut memory = Memory::new();
        let err = run(g, &[scale.clone(), fmas.clone()], &args, 1, &mut memory).unwrap_err();
        let Violation::Hazard {
            rule,
            earlier_at,
            earlier,
        } = &err.violation
        else {
            panic!("{g:?}: {err}");
        };
        assert!(rule.contains("v_div_fmas"), "{rule}");
        assert_eq!(*earlier_at, 0);
        assert!(earlier.starts_with("v_div_scale_f32"), "{earlier}");
        assert_eq!(err.pc, 8);
        // Three wait states are not enough.
        let seq = [scale.clone(), nop(2), fmas.clone()];
        assert!(run(g, &seq, &args, 1, &mut memory).is_err(), "{g:?}");
        // s_nop 3, or four s_nop 0, are.
        let seq = [scale.clone(), nop(3), fmas.clone()];
        run(g, &seq, &args, 1, &mut memory).unwrap_or_else(|e| panic!("{g:?}: {e}"));
        let seq = [scale.clone(), nop(0), nop(0), nop(0), nop(0), fmas.clone()];
        run(g, &seq, &args, 1, &mut memory).unwrap_or_else(|e| panic!("{g:?}: {e}"));
        // Without hazard checking the sequence runs.
        let code = device(g, &[scale, fmas]);
        let options = Options {
            check_hazards: false,
            ..Options::default()
        };
        call_device(&code, g, &args, 1, &mut memory, &options).unwrap();
    }
}

#[test]
fn valu_sgpr_write_then_lane_select_needs_four_wait_states() {
    for g in [Gen::Gfx8, Gen::Gfx9] {
        // Lane i has v0 = 10 + i, v1 = 3 - i: lane 0 reads v1 = 3, then v0 of lane 3.
        let args: Vec<Vec<u32>> = (0..4).map(|i| vec![10 + i, 3 - i]).collect();
        let first = readfirstlane(4, 1);
        let mut readlane = McInst::new(Op::VReadlaneB32, Enc::Vop3);
        (readlane.dst, readlane.src[0], readlane.src[1]) = (Some(s(5)), Some(v(0)), Some(s(4)));
        let mut writelane = McInst::new(Op::VWritelaneB32, Enc::Vop3);
        (writelane.dst, writelane.src[0], writelane.src[1]) = (
            Some(v(2)),
            Some(s(5)),
            Some(Operand::inline_int(2).unwrap()),
        );
        let mut memory = Memory::new();
        let seq = [first.clone(), nop(2), readlane.clone()];
        let err = run(g, &seq, &args, 3, &mut memory).unwrap_err();
        assert!(
            matches!(&err.violation, Violation::Hazard { rule, .. } if rule.contains("lane select")),
            "{err}"
        );
        let seq = [first, nop(3), readlane, writelane];
        let r = run(g, &seq, &args, 3, &mut memory).unwrap();
        // v_writelane writes only lane 2 (whatever EXEC says); the others keep v2.
        let v2: Vec<u32> = r.iter().map(|lane| lane[2]).collect();
        assert_eq!(v2, [0, 0, 13, 0]);
    }
}

#[test]
fn setreg_then_getreg_needs_two_wait_states() {
    for g in ALL {
        let mut set = McInst::new(Op::SSetregImm32B32, Enc::Sopk);
        (set.src[0], set.literal, set.imm) = (Some(Operand::LITERAL), Some(1), 1 | 3 << 11);
        let mut get = McInst::new(Op::SGetregB32, Enc::Sopk);
        (get.dst, get.imm) = (Some(s(4)), 1 | 31 << 11);
        let mut memory = Memory::new();
        let err = run(
            g,
            &[set.clone(), nop(0), get.clone()],
            &[vec![0]],
            0,
            &mut memory,
        )
        .unwrap_err();
        assert!(
            matches!(&err.violation, Violation::Hazard { earlier_at: 0, .. }),
            "{err}"
        );
        run(g, &[set, nop(1), get], &[vec![0]], 0, &mut memory).unwrap();
    }
}

#[test]
fn wide_store_then_data_overwrite_needs_a_wait_state() {
    for g in FLAT_GENS {
        let mut memory = Memory::new();
        let dst = memory.alloc_zeroed(16);
        let store = flat_store(Op::FlatStoreDwordx4, 0, 2);
        let overwrite = valu(Op::VMovB32, g, Some(v(4)), None, &[v(0)]);
        let mut args = address_arg(dst);
        args[0].extend([1, 2, 3, 4]);
        let err = run(
            g,
            &[store.clone(), overwrite.clone()],
            &args,
            0,
            &mut memory,
        )
        .unwrap_err();
        assert!(matches!(&err.violation, Violation::Hazard { .. }), "{err}");
        let done = waitcnt(g, Some(0), Some(0));
        run(g, &[store, nop(0), overwrite, done], &args, 0, &mut memory).unwrap();
        assert_eq!(
            memory.read(dst, 16).unwrap()[..],
            [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]
        );
    }
}

#[test]
fn errors_display_the_instruction() {
    let g = Gen::Gfx8;
    let mut memory = Memory::new();
    let seq = [sload(Op::SLoadDword, 6, 4, 0)];
    let err = run(g, &seq, &[vec![0]], 0, &mut memory).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("s_load_dword s6, s[4:5], 0x0"), "{text}");
    assert!(
        matches!(
            err.violation,
            Violation::Memory {
                lane: None,
                address: 0,
                ..
            }
        ),
        "{text}"
    );
}

/// A device function gives back v32–v255 and EXEC as it was called with (docs/ir.md,
/// "Calls"): v31 is its own to overwrite, v32 is not, nor is EXEC.
#[test]
fn device_functions_keep_v32_up_and_exec() {
    let g = Gen::Gfx9;
    let vmov = |dst: u8| {
        let mut m = McInst::new(Op::VMovB32, Enc::Vop1);
        (m.dst, m.src[0]) = (Some(v(dst)), Some(Operand::inline_int(7).unwrap()));
        m
    };
    let mut memory = Memory::new();
    let args = vec![vec![1u32]; 3];
    assert!(run(g, &[vmov(31)], &args, 1, &mut memory).is_ok());
    let err = run(g, &[vmov(32)], &args, 1, &mut memory).unwrap_err();
    assert!(
        matches!(&err.violation, Violation::Other(r) if r.starts_with("v32 changed")),
        "{err}"
    );
    let mut exec = McInst::new(Op::SMovB64, Enc::Sop1);
    (exec.dst, exec.src[0]) = (Some(Operand::EXEC), Some(Operand::inline_int(-1).unwrap()));
    let err = run(g, &[exec], &args, 1, &mut memory).unwrap_err();
    assert!(
        matches!(&err.violation, Violation::Other(r) if r.starts_with("EXEC")),
        "{err}"
    );
}
