; A kernel calling a noinline device function that calls another (issue 14, item 5):
; written by hand in the form clang-19 gives OpenCL C's `__attribute__((noinline))`
; functions (internal linkage, `fastcc`); the global id as in bench/kernels/gid.h.
; `clif-util bench --compare-llc bench/calls` compiles it with llc-19 -O2.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

define internal fastcc i32 @leaf(i32 %x, i32 %k) #0 {
  %m = mul i32 %x, %k
  %r = add i32 %m, 3
  ret i32 %r
}

define internal fastcc i32 @middle(i32 %x, i32 %k) #0 {
  %a = tail call fastcc i32 @leaf(i32 %x, i32 %k)
  %b = tail call fastcc i32 @leaf(i32 %a, i32 %k)
  %r = sub i32 %b, %k
  ret i32 %r
}

define amdgpu_kernel void @call_chain(ptr addrspace(1) nocapture noundef writeonly %out, i32 noundef %k) #1 {
entry:
  %id = tail call i32 @llvm.amdgcn.workitem.id.x()
  %r = tail call fastcc i32 @middle(i32 %id, i32 %k)
  %v = add i32 %r, %k
  %idx = zext i32 %id to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %idx
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x() #2

attributes #0 = { noinline nounwind "denormal-fp-math-f32"="ieee,ieee" "uniform-work-group-size"="true" }
attributes #1 = { nounwind "amdgpu-flat-work-group-size"="1,256" "denormal-fp-math-f32"="ieee,ieee" "uniform-work-group-size"="true" }
attributes #2 = { nounwind readnone speculatable }
