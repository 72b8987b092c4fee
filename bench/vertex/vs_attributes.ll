; The position from a vertex buffer indexed by the vertex id, x scaled by a push
; constant, and a colour from an instance buffer indexed by the instance id to param0
; (vs_attributes.clif): the buffer addresses and the constant are inreg arguments (user
; data from s0), the vertex and instance ids the first two VGPR arguments (v0, v1).
define amdgpu_vs void @vs_attributes(ptr addrspace(1) inreg %positions, ptr addrspace(1) inreg %colors, float inreg %scale, i32 %vertex, i32 %instance) {
  %vi = zext i32 %vertex to i64
  %p = getelementptr [3 x float], ptr addrspace(1) %positions, i64 %vi
  %x = load float, ptr addrspace(1) %p
  %py = getelementptr float, ptr addrspace(1) %p, i64 1
  %y = load float, ptr addrspace(1) %py
  %pz = getelementptr float, ptr addrspace(1) %p, i64 2
  %z = load float, ptr addrspace(1) %pz
  %sx = fmul float %x, %scale
  %ii = zext i32 %instance to i64
  %c = getelementptr <4 x float>, ptr addrspace(1) %colors, i64 %ii
  %col = load <4 x float>, ptr addrspace(1) %c
  %r = extractelement <4 x float> %col, i32 0
  %g = extractelement <4 x float> %col, i32 1
  %b = extractelement <4 x float> %col, i32 2
  %a = extractelement <4 x float> %col, i32 3
  call void @llvm.amdgcn.exp.f32(i32 12, i32 15, float %sx, float %y, float %z, float 1.0, i1 true, i1 false)
  call void @llvm.amdgcn.exp.f32(i32 32, i32 15, float %r, float %g, float %b, float %a, i1 false, i1 false)
  ret void
}

declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
