; Two perspective inputs and a flat one to colour target 0 (ps_interp.clif): the
; primitive mask is the inreg argument, PERSP_SAMPLE and PERSP_CENTER the first two
; input slots (only the second is read, so only it is enabled).
define amdgpu_ps void @ps_interp(i32 inreg %prim, <2 x float> %persp_sample, <2 x float> %persp_center) {
  %i = extractelement <2 x float> %persp_center, i32 0
  %j = extractelement <2 x float> %persp_center, i32 1
  %a1 = call float @llvm.amdgcn.interp.p1(float %i, i32 0, i32 0, i32 %prim)
  %a = call float @llvm.amdgcn.interp.p2(float %a1, float %j, i32 0, i32 0, i32 %prim)
  %b1 = call float @llvm.amdgcn.interp.p1(float %i, i32 1, i32 1, i32 %prim)
  %b = call float @llvm.amdgcn.interp.p2(float %b1, float %j, i32 1, i32 1, i32 %prim)
  %f = call float @llvm.amdgcn.interp.mov(i32 2, i32 0, i32 1, i32 %prim)
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %a, float %b, float %f, float 1.0, i1 true, i1 true)
  ret void
}

declare float @llvm.amdgcn.interp.p1(float, i32, i32, i32)
declare float @llvm.amdgcn.interp.p2(float, float, i32, i32, i32)
declare float @llvm.amdgcn.interp.mov(i32, i32, i32, i32)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
