; ps_interp with a discard where the first input is below one half, in a divergent
; branch (ps_discard.clif): llvm.amdgcn.kill(false) in the branch kills its lanes.
define amdgpu_ps void @ps_discard(i32 inreg %prim, <2 x float> %persp_sample, <2 x float> %persp_center) {
entry:
  %i = extractelement <2 x float> %persp_center, i32 0
  %j = extractelement <2 x float> %persp_center, i32 1
  %a1 = call float @llvm.amdgcn.interp.p1(float %i, i32 0, i32 0, i32 %prim)
  %a = call float @llvm.amdgcn.interp.p2(float %a1, float %j, i32 0, i32 0, i32 %prim)
  %b1 = call float @llvm.amdgcn.interp.p1(float %i, i32 1, i32 1, i32 %prim)
  %b = call float @llvm.amdgcn.interp.p2(float %b1, float %j, i32 1, i32 1, i32 %prim)
  %f = call float @llvm.amdgcn.interp.mov(i32 2, i32 0, i32 1, i32 %prim)
  %c = fcmp olt float %a, 0.5
  br i1 %c, label %kill, label %join
kill:
  call void @llvm.amdgcn.kill(i1 false)
  br label %join
join:
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %a, float %b, float %f, float 1.0, i1 true, i1 true)
  ret void
}

declare float @llvm.amdgcn.interp.p1(float, i32, i32, i32)
declare float @llvm.amdgcn.interp.p2(float, float, i32, i32, i32)
declare float @llvm.amdgcn.interp.mov(i32, i32, i32, i32)
declare void @llvm.amdgcn.kill(i1)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
