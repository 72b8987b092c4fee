; ModuleID = 'lanes.cl'
source_filename = "lanes.cl"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_ABI_version = weak_odr hidden local_unnamed_addr addrspace(4) constant i32 500

; Function Attrs: convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @lanes(ptr addrspace(1) nocapture noundef readonly align 4 %0, ptr addrspace(1) nocapture noundef readonly align 4 %1, ptr addrspace(1) nocapture noundef writeonly align 4 %2, i32 noundef %3) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
  %5 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %6 = tail call align 4 dereferenceable(64) ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %7 = getelementptr inbounds i8, ptr addrspace(4) %6, i64 4
  %8 = load i16, ptr addrspace(4) %7, align 4, !tbaa !9
  %9 = zext i16 %8 to i32
  %10 = mul i32 %5, %9
  %11 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %12 = add i32 %10, %11
  %13 = zext i32 %12 to i64
  %14 = getelementptr inbounds float, ptr addrspace(1) %0, i64 %13
  %15 = load float, ptr addrspace(1) %14, align 4, !tbaa !13, !amdgpu.noclobber !15
  %16 = getelementptr inbounds float, ptr addrspace(1) %1, i64 %13
  %17 = load float, ptr addrspace(1) %16, align 4, !tbaa !13, !amdgpu.noclobber !15
  %18 = fcmp ogt float %15, %17
  %19 = select i1 %18, float %15, float %17
  %20 = fcmp olt float %15, %17
  %21 = select i1 %20, float %15, float %17
  %22 = bitcast float %19 to i32
  %23 = bitcast float %21 to i32
  %24 = mul i32 %23, 3
  %25 = xor i32 %24, %22
  %26 = tail call i32 @llvm.amdgcn.readfirstlane.i32(i32 %25)
  %27 = tail call i32 @llvm.amdgcn.readlane.i32(i32 %25, i32 5)
  %28 = tail call i32 @llvm.amdgcn.ds.swizzle(i32 %25, i32 1055)
  %29 = icmp ult i32 %12, %3
  br i1 %29, label %30, label %59

30:                                               ; preds = %4
  %31 = lshr i32 %25, 16
  %32 = lshr i32 %28, 8
  %33 = add nuw nsw i32 %31, %32
  %34 = and i32 %33, 65535
  %35 = lshr i32 %25, 8
  %36 = lshr i32 %28, 24
  %37 = add nuw nsw i32 %35, %36
  %38 = shl i32 %37, 16
  %39 = and i32 %38, 16711680
  %40 = shl i32 %12, 2
  %41 = zext i32 %40 to i64
  %42 = getelementptr inbounds i32, ptr addrspace(1) %2, i64 %41
  store float %19, ptr addrspace(1) %42, align 4, !tbaa !16
  %43 = or disjoint i32 %40, 1
  %44 = zext i32 %43 to i64
  %45 = getelementptr inbounds i32, ptr addrspace(1) %2, i64 %44
  store float %21, ptr addrspace(1) %45, align 4, !tbaa !16
  %46 = mul i32 %27, 5
  %47 = add i32 %46, %26
  %48 = add i32 %47, %28
  %49 = or disjoint i32 %40, 2
  %50 = zext i32 %49 to i64
  %51 = getelementptr inbounds i32, ptr addrspace(1) %2, i64 %50
  store i32 %48, ptr addrspace(1) %51, align 4, !tbaa !16
  %52 = shl i32 %25, 5
  %53 = and i32 %52, -16777216
  %54 = or disjoint i32 %34, %53
  %55 = or disjoint i32 %54, %39
  %56 = or disjoint i32 %40, 3
  %57 = zext i32 %56 to i64
  %58 = getelementptr inbounds i32, ptr addrspace(1) %2, i64 %57
  store i32 %55, ptr addrspace(1) %58, align 4, !tbaa !16
  br label %59

59:                                               ; preds = %30, %4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32) #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg) #2

attributes #0 = { convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent mustprogress nocallback nofree nounwind willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!opencl.ocl.version = !{!3}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 2, i32 0}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{i32 1, i32 1, i32 1, i32 0}
!6 = !{!"none", !"none", !"none", !"none"}
!7 = !{!"float*", !"float*", !"uint*", !"uint"}
!8 = !{!"const", !"const", !"", !""}
!9 = !{!10, !10, i64 0}
!10 = !{!"short", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"float", !11, i64 0}
!15 = !{}
!16 = !{!17, !17, i64 0}
!17 = !{!"int", !11, i64 0}
