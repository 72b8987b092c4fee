//! Vertex and fragment programs built with the MC encoder, run against hand-made `a[]` words
//! and `v[]` planes. The expected values are computed here in f64 from the plane
//! definition (`docs/nv50.md`, "Graphics stages"), with inputs chosen so that every f32
//! step is exact: they check the simulator's operand plumbing and forms, not its rounding.

use super::dispatch::run_stage;
use super::graphics::{Fragments, Plane, Stage, Vertices};
use super::warp::WARP_THREADS;
use crate::isa::nv50::mc::{Form, McInst, Mods, Op, Operand, Ty, Variant, encode};
use crate::sim::Options;
use Operand::R;

fn assemble(insts: &[McInst]) -> Vec<u8> {
    insts
        .iter()
        .flat_map(|i| encode(i, Variant::G80).unwrap_or_else(|e| panic!("{i:?}: {e}")))
        .flat_map(u32::to_le_bytes)
        .collect()
}

fn interp(dst: u8, offset: u32, mods: Mods, times: Option<u8>) -> McInst {
    let mut srcs = vec![Operand::Varying { areg: 0, offset }];
    srcs.extend(times.map(R));
    let mut inst = McInst::with(Op::Interp, Form::Long, None, Some(R(dst)), &srcs);
    inst.mods = mods;
    inst
}

fn exit_nop() -> McInst {
    let mut inst = McInst::new(Op::Nop, Form::Long);
    inst.exit = true;
    inst
}

/// Pixel (x, y) = (t % 8, t / 8): centre at +0.5, the centroid a quarter pixel off.
fn fragments(planes: Vec<Plane>) -> Fragments {
    let mut center = [(0.0, 0.0); WARP_THREADS];
    let mut centroid = [(0.0, 0.0); WARP_THREADS];
    for t in 0..WARP_THREADS {
        let (x, y) = ((t % 8) as f32, (t / 8) as f32);
        center[t] = (x + 0.5, y + 0.5);
        centroid[t] = (x + 0.25, y + 0.75);
    }
    Fragments {
        planes,
        user_data: Vec::new(),
        center,
        centroid,
    }
}

#[test]
fn interp_forms_evaluate_the_planes() {
    // v[0x0]: 1/w, constant 0.5 (w = 2); v[0x4]: an attribute's a/w plane; v[0x8]: a flat
    // integer word.
    let planes = vec![
        Plane {
            base: 0.5f32.to_bits(),
            dx: 0.0,
            dy: 0.0,
        },
        Plane {
            base: 1.0f32.to_bits(),
            dx: 0.25,
            dy: -0.5,
        },
        Plane {
            base: 0xdead_beef,
            dx: 3.0,
            dy: 5.0,
        },
    ];
    let rcp = McInst::with(Op::Rcp, Form::Long, Some(Ty::F32), Some(R(0)), &[R(0)]);
    let neg = interp(5, 0x4, Mods::NEG1, Some(0));
    let mut short = interp(6, 0x4, Mods::CENT, Some(0));
    short.form = Form::Short;
    let mut short_flat = interp(7, 0x8, Mods::FLAT, None);
    short_flat.form = Form::Short;
    let code = assemble(&[
        interp(0, 0x0, Mods::NONE, None),
        rcp,
        interp(1, 0x4, Mods::NONE, Some(0)),
        interp(2, 0x4, Mods::CENT, None),
        interp(3, 0x8, Mods::FLAT, None),
        interp(4, 0x4, Mods::NONE, None),
        neg,
        short,
        short_flat,
        exit_nop(),
    ]);
    let mut stage = Stage::Fragment(Box::new(fragments(planes)));
    let lanes = 0x00ff_ff0f;
    let out = run_stage(
        &code,
        Variant::G80,
        &mut stage,
        lanes,
        8,
        &Options::default(),
    )
    .unwrap()
    .registers;
    let plane = |x: f64, y: f64| 1.0 + 0.25 * x - 0.5 * y;
    for t in (0..WARP_THREADS).filter(|t| lanes >> t & 1 == 1) {
        let (x, y) = ((t % 8) as f64, (t / 8) as f64);
        let f = |k: usize| f32::from_bits(out[t][k]) as f64;
        assert_eq!(f(0), 2.0, "lane {t}: w = 1 / (1/w)");
        assert_eq!(f(1), 2.0 * plane(x + 0.5, y + 0.5), "lane {t}: perspective");
        assert_eq!(f(2), plane(x + 0.25, y + 0.75), "lane {t}: linear centroid");
        assert_eq!(out[t][3], 0xdead_beef, "lane {t}: flat keeps the bits");
        assert_eq!(f(4), plane(x + 0.5, y + 0.5), "lane {t}: linear");
        assert_eq!(
            f(5),
            -2.0 * plane(x + 0.5, y + 0.5),
            "lane {t}: negated source"
        );
        assert_eq!(
            f(6),
            2.0 * plane(x + 0.25, y + 0.75),
            "lane {t}: short centroid"
        );
        assert_eq!(out[t][7], 0xdead_beef, "lane {t}: short flat");
    }
}

#[test]
fn interp_of_a_missing_plane_is_an_error() {
    let code = assemble(&[interp(0, 0x10, Mods::NONE, None), exit_nop()]);
    let mut stage = Stage::Fragment(Box::new(fragments(Vec::new())));
    let err = run_stage(&code, Variant::G80, &mut stage, 1, 1, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("v[0x10]"), "{err}");
}

#[test]
fn vertex_programs_read_a_and_write_o() {
    // o[0x0] = a[0x4] (a long `mov` to o[]), o[0x4] = a[0x0] + a[0x4] (a short add from a[]
    // into $r, then `st b32 o[$a1 + 0x0]` with $a1 = 4).
    let mov_out = McInst::with(
        Op::Mov,
        Form::Long,
        Some(Ty::B32),
        Some(Operand::Out { areg: 0, offset: 0 }),
        &[Operand::Attr { offset: 4 }],
    );
    let add = McInst::with(
        Op::Add,
        Form::Short,
        Some(Ty::B32),
        Some(R(1)),
        &[Operand::Attr { offset: 0 }, R(0)],
    );
    let load_r0 = McInst::with(
        Op::Mov,
        Form::Short,
        Some(Ty::B32),
        Some(R(0)),
        &[Operand::Attr { offset: 4 }],
    );
    let set_a1 = McInst::with(
        Op::Add,
        Form::Long,
        None,
        Some(Operand::A(1)),
        &[Operand::A(0), Operand::Imm(4)],
    );
    let mut store = McInst::with(
        Op::St,
        Form::Long,
        Some(Ty::B32),
        Some(Operand::Out { areg: 1, offset: 0 }),
        &[R(1)],
    );
    store.exit = true;
    let code = assemble(&[mov_out, load_r0, add, set_a1, store]);
    let attrs: Vec<Vec<u32>> = (0..WARP_THREADS as u32)
        .map(|t| vec![100 + t, 7 * t])
        .collect();
    let mut stage = Stage::Vertex(Vertices {
        attrs: attrs.clone(),
        user_data: Vec::new(),
        outputs: vec![vec![None; 3]; WARP_THREADS],
    });
    run_stage(&code, Variant::G80, &mut stage, !0, 0, &Options::default()).unwrap();
    let Stage::Vertex(v) = stage else {
        unreachable!()
    };
    for (t, (a, out)) in attrs.iter().zip(&v.outputs).enumerate() {
        assert_eq!(
            *out,
            vec![Some(a[1]), Some(a[0].wrapping_add(a[1])), None],
            "thread {t}"
        );
    }
}

#[test]
fn o_beyond_the_outputs_is_an_error() {
    let mov_out = |offset| {
        let mut i = McInst::with(
            Op::Mov,
            Form::Long,
            Some(Ty::B32),
            Some(Operand::Out { areg: 0, offset }),
            &[R(0)],
        );
        i.exit = true;
        i
    };
    let code = assemble(&[mov_out(0x8)]);
    let mut stage = Stage::Vertex(Vertices {
        attrs: vec![Vec::new(); WARP_THREADS],
        user_data: Vec::new(),
        outputs: vec![vec![None; 2]; WARP_THREADS],
    });
    let err = run_stage(&code, Variant::G80, &mut stage, 1, 0, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("o[0x8]"), "{err}");
}
