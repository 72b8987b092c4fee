; ModuleID = 'loops.cl'
source_filename = "loops.cl"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_ABI_version = weak_odr hidden local_unnamed_addr addrspace(4) constant i32 500

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
define protected amdgpu_kernel void @loops(ptr addrspace(1) nocapture noundef readonly align 4 %0, ptr addrspace(1) nocapture noundef writeonly align 4 %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
  %4 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %5 = tail call align 4 dereferenceable(64) ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %6 = getelementptr inbounds i8, ptr addrspace(4) %5, i64 4
  %7 = load i16, ptr addrspace(4) %6, align 4, !tbaa !9
  %8 = zext i16 %7 to i32
  %9 = mul i32 %4, %8
  %10 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %11 = add i32 %9, %10
  %12 = icmp ult i32 %11, %2
  br i1 %12, label %13, label %66

13:                                               ; preds = %3
  %14 = zext i32 %11 to i64
  %15 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %14
  %16 = load i32, ptr addrspace(1) %15, align 4, !tbaa !13, !amdgpu.noclobber !15
  %17 = icmp eq i32 %16, 1
  br i1 %17, label %18, label %25

18:                                               ; preds = %35, %13
  %19 = phi i32 [ 0, %13 ], [ %37, %35 ]
  %20 = and i32 %11, 7
  %21 = icmp eq i32 %20, 0
  br i1 %21, label %62, label %22

22:                                               ; preds = %18
  %23 = add nuw nsw i32 %19, 1
  %24 = add nsw i32 %20, -2
  br label %41

25:                                               ; preds = %13, %35
  %26 = phi i32 [ %37, %35 ], [ 0, %13 ]
  %27 = phi i32 [ %36, %35 ], [ %16, %13 ]
  %28 = and i32 %27, 1
  %29 = icmp eq i32 %28, 0
  br i1 %29, label %33, label %30

30:                                               ; preds = %25
  %31 = mul i32 %27, 3
  %32 = add i32 %31, 1
  br label %35

33:                                               ; preds = %25
  %34 = lshr exact i32 %27, 1
  br label %35

35:                                               ; preds = %33, %30
  %36 = phi i32 [ %32, %30 ], [ %34, %33 ]
  %37 = add nuw nsw i32 %26, 1
  %38 = icmp ne i32 %36, 1
  %39 = icmp ult i32 %26, 499
  %40 = select i1 %38, i1 %39, i1 false
  br i1 %40, label %25, label %18

41:                                               ; preds = %22, %41
  %42 = phi i32 [ -1, %22 ], [ %58, %41 ]
  %43 = phi i33 [ 0, %22 ], [ %55, %41 ]
  %44 = phi i32 [ %19, %22 ], [ %57, %41 ]
  %45 = phi i32 [ %23, %22 ], [ %56, %41 ]
  %46 = phi i32 [ 0, %22 ], [ %54, %41 ]
  %47 = trunc nuw i33 %43 to i32
  %48 = zext i32 %42 to i33
  %49 = mul i33 %43, %48
  %50 = lshr i33 %49, 1
  %51 = trunc nuw i33 %50 to i32
  %52 = mul i32 %47, %51
  %53 = add i32 %46, %44
  %54 = add i32 %53, %52
  %55 = add nuw nsw i33 %43, 1
  %56 = add nuw nsw i32 %45, 2
  %57 = add i32 %44, %45
  %58 = add nsw i32 %42, 1
  %59 = icmp eq i32 %42, %24
  br i1 %59, label %60, label %41

60:                                               ; preds = %41
  %61 = shl i32 %54, 16
  br label %62

62:                                               ; preds = %60, %18
  %63 = phi i32 [ 0, %18 ], [ %61, %60 ]
  %64 = or i32 %63, %19
  %65 = getelementptr inbounds i32, ptr addrspace(1) %1, i64 %14
  store i32 %64, ptr addrspace(1) %65, align 4, !tbaa !13
  br label %66

66:                                               ; preds = %3, %62
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #1

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!opencl.ocl.version = !{!3}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 2, i32 0}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{i32 1, i32 1, i32 0}
!6 = !{!"none", !"none", !"none"}
!7 = !{!"uint*", !"uint*", !"uint"}
!8 = !{!"const", !"", !""}
!9 = !{!10, !10, i64 0}
!10 = !{!"short", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
!15 = !{}
