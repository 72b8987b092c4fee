; No memory: the position from the vertex id and the ids as floats to param0 and param1
; (vs_ids.clif): the spacing is an inreg argument (user data s0), the vertex and instance
; ids the first two VGPR arguments (v0, v1).
define amdgpu_vs void @vs_ids(float inreg %spacing, i32 %vertex, i32 %instance) {
  %v = uitofp i32 %vertex to float
  %x = fmul float %v, %spacing
  %i = uitofp i32 %instance to float
  call void @llvm.amdgcn.exp.f32(i32 12, i32 15, float %x, float %i, float 0.0, float 1.0, i1 true, i1 false)
  call void @llvm.amdgcn.exp.f32(i32 32, i32 15, float %v, float 0.0, float 0.0, float 1.0, i1 false, i1 false)
  call void @llvm.amdgcn.exp.f32(i32 33, i32 15, float %i, float %i, float %i, float 1.0, i1 false, i1 false)
  ret void
}

declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
