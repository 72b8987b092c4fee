; wave_scan_i32: an inclusive i32 sum scan per wave, out[i] = the sum of in over the lanes of i's wave up to i.
; Written by hand in the form LLVM 19's AMDGPUAtomicOptimizer gives a wave's values
; (`llc-19 -amdgpu-atomic-optimizer-strategy=DPP -stop-after=amdgpu-atomic-optimizer` on an
; atomicrmw of a divergent value shows it): inactive lanes set to the identity
; (`llvm.amdgcn.set.inactive`), the DPP steps with the identity as the old value,
; and the result taken out of the whole-wave region with `llvm.amdgcn.strict.wwm`.
; The kernel prologue (global id, loads, store) is clang-19's for the same OpenCL C as
; bench/kernels (gid.h). wavelift's side: the .clif of the same name.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_ABI_version = weak_odr hidden local_unnamed_addr addrspace(4) constant i32 500

; Function Attrs: convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @wave_scan_i32(ptr addrspace(1) nocapture noundef readonly align 4 %0, ptr addrspace(1) nocapture noundef writeonly align 4 %1) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
  %3 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %4 = tail call align 4 dereferenceable(64) ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %5 = getelementptr inbounds i8, ptr addrspace(4) %4, i64 4
  %6 = load i16, ptr addrspace(4) %5, align 4, !tbaa !9
  %7 = zext i16 %6 to i32
  %8 = mul i32 %3, %7
  %9 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %10 = add i32 %8, %9
  %11 = zext i32 %10 to i64
  %12 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %11
  %13 = load i32, ptr addrspace(1) %12, align 4, !tbaa !13, !amdgpu.noclobber !15
  %14 = call i32 @llvm.amdgcn.set.inactive.i32(i32 %13, i32 0)
  %15 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %14, i32 273, i32 15, i32 15, i1 false)
  %16 = add i32 %14, %15
  %17 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %16, i32 274, i32 15, i32 15, i1 false)
  %18 = add i32 %16, %17
  %19 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %18, i32 276, i32 15, i32 15, i1 false)
  %20 = add i32 %18, %19
  %21 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %20, i32 280, i32 15, i32 15, i1 false)
  %22 = add i32 %20, %21
  %23 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %22, i32 322, i32 10, i32 15, i1 false)
  %24 = add i32 %22, %23
  %25 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %24, i32 323, i32 12, i32 15, i1 false)
  %26 = add i32 %24, %25
  %27 = call i32 @llvm.amdgcn.strict.wwm.i32(i32 %26)
  %28 = getelementptr inbounds i32, ptr addrspace(1) %1, i64 %11
  store i32 %27, ptr addrspace(1) %28, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.set.inactive.i32(i32, i32) #2

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg) #2

; Function Attrs: convergent nocallback nofree nounwind speculatable willreturn memory(none)
declare i32 @llvm.amdgcn.strict.wwm.i32(i32) #2

attributes #0 = { convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+dpp" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent mustprogress nocallback nofree nounwind willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!opencl.ocl.version = !{!3}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 2, i32 0}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{i32 1, i32 1}
!6 = !{!"none", !"none"}
!7 = !{!"int*", !"int*"}
!8 = !{!"const", !""}
!9 = !{!10, !10, i64 0}
!10 = !{!"short", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
!15 = !{}
