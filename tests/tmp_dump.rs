use wavelift::difftest::shapes::Shape;
#[test]
fn dump() {
    for n in [200usize, 300, 400, 800, 1600] {
        std::fs::write(
            format!("/tmp/nest{n}.clif"),
            format!(
                "test compile\ntarget amdgcn gfx803\n{}",
                Shape::DivergentNest.device_text(n)
            ),
        )
        .unwrap();
    }
}
