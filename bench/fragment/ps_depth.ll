; A linear input scaled by user data to depth and colour target 0 (ps_depth.clif): the
; user data and the primitive mask are the inreg arguments; LINEAR_CENTER is input slot 5.
define amdgpu_ps void @ps_depth(float inreg %scale, i32 inreg %prim, <2 x float> %persp_sample, <2 x float> %persp_center, <2 x float> %persp_centroid, <3 x i32> %pull, <2 x float> %linear_sample, <2 x float> %linear_center) {
  %i = extractelement <2 x float> %linear_center, i32 0
  %j = extractelement <2 x float> %linear_center, i32 1
  %a1 = call float @llvm.amdgcn.interp.p1(float %i, i32 2, i32 2, i32 %prim)
  %a = call float @llvm.amdgcn.interp.p2(float %a1, float %j, i32 2, i32 2, i32 %prim)
  %z = fmul float %a, %scale
  call void @llvm.amdgcn.exp.f32(i32 8, i32 1, float %z, float undef, float undef, float undef, i1 false, i1 true)
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %a, float %z, float %a, float %z, i1 true, i1 true)
  ret void
}

declare float @llvm.amdgcn.interp.p1(float, i32, i32, i32)
declare float @llvm.amdgcn.interp.p2(float, float, i32, i32, i32)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
