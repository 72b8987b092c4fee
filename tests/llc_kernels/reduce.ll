; ModuleID = 'reduce.cl'
source_filename = "reduce.cl"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@reduce.part = internal unnamed_addr addrspace(3) global [256 x i32] undef, align 4
@__oclc_ABI_version = weak_odr hidden local_unnamed_addr addrspace(4) constant i32 500

; Function Attrs: convergent mustprogress nofree norecurse nounwind willreturn
define protected amdgpu_kernel void @reduce(ptr addrspace(1) nocapture noundef readonly align 4 %0, ptr addrspace(1) nocapture noundef writeonly align 4 %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
  %4 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %5 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %6 = tail call align 4 dereferenceable(64) ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %7 = getelementptr inbounds i8, ptr addrspace(4) %6, i64 4
  %8 = load i16, ptr addrspace(4) %7, align 4, !tbaa !9
  %9 = zext i16 %8 to i32
  %10 = mul i32 %5, %9
  %11 = add i32 %10, %4
  %12 = icmp ult i32 %11, %2
  br i1 %12, label %13, label %17

13:                                               ; preds = %3
  %14 = zext i32 %11 to i64
  %15 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %14
  %16 = load i32, ptr addrspace(1) %15, align 4, !tbaa !13, !amdgpu.noclobber !15
  br label %17

17:                                               ; preds = %3, %13
  %18 = phi i32 [ %16, %13 ], [ 0, %3 ]
  %19 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %4
  store i32 %18, ptr addrspace(3) %19, align 4, !tbaa !13
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %20 = icmp ult i32 %4, 128
  br i1 %20, label %21, label %27

21:                                               ; preds = %17
  %22 = or disjoint i32 %4, 128
  %23 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %22
  %24 = load i32, ptr addrspace(3) %23, align 4, !tbaa !13
  %25 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %26 = add i32 %25, %24
  store i32 %26, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %27

27:                                               ; preds = %17, %21
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %28 = icmp ult i32 %4, 64
  br i1 %28, label %29, label %35

29:                                               ; preds = %27
  %30 = or disjoint i32 %4, 64
  %31 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %30
  %32 = load i32, ptr addrspace(3) %31, align 4, !tbaa !13
  %33 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %34 = add i32 %33, %32
  store i32 %34, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %35

35:                                               ; preds = %29, %27
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %36 = icmp ult i32 %4, 32
  br i1 %36, label %37, label %43

37:                                               ; preds = %35
  %38 = or disjoint i32 %4, 32
  %39 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %38
  %40 = load i32, ptr addrspace(3) %39, align 4, !tbaa !13
  %41 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %42 = add i32 %41, %40
  store i32 %42, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %43

43:                                               ; preds = %37, %35
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %44 = icmp ult i32 %4, 16
  br i1 %44, label %45, label %51

45:                                               ; preds = %43
  %46 = or disjoint i32 %4, 16
  %47 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %46
  %48 = load i32, ptr addrspace(3) %47, align 4, !tbaa !13
  %49 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %50 = add i32 %49, %48
  store i32 %50, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %51

51:                                               ; preds = %45, %43
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %52 = icmp ult i32 %4, 8
  br i1 %52, label %53, label %59

53:                                               ; preds = %51
  %54 = or disjoint i32 %4, 8
  %55 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %54
  %56 = load i32, ptr addrspace(3) %55, align 4, !tbaa !13
  %57 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %58 = add i32 %57, %56
  store i32 %58, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %59

59:                                               ; preds = %53, %51
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %60 = icmp ult i32 %4, 4
  br i1 %60, label %61, label %67

61:                                               ; preds = %59
  %62 = or disjoint i32 %4, 4
  %63 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %62
  %64 = load i32, ptr addrspace(3) %63, align 4, !tbaa !13
  %65 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %66 = add i32 %65, %64
  store i32 %66, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %67

67:                                               ; preds = %61, %59
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %68 = icmp ult i32 %4, 2
  br i1 %68, label %69, label %75

69:                                               ; preds = %67
  %70 = or disjoint i32 %4, 2
  %71 = getelementptr inbounds [256 x i32], ptr addrspace(3) @reduce.part, i32 0, i32 %70
  %72 = load i32, ptr addrspace(3) %71, align 4, !tbaa !13
  %73 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %74 = add i32 %73, %72
  store i32 %74, ptr addrspace(3) %19, align 4, !tbaa !13
  br label %75

75:                                               ; preds = %69, %67
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %76 = icmp eq i32 %4, 0
  br i1 %76, label %77, label %84

77:                                               ; preds = %75
  %78 = load i32, ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @reduce.part, i32 4), align 4, !tbaa !13
  %79 = load i32, ptr addrspace(3) %19, align 4, !tbaa !13
  %80 = add i32 %79, %78
  store i32 %80, ptr addrspace(3) %19, align 4, !tbaa !13
  %81 = zext i32 %5 to i64
  %82 = getelementptr inbounds i32, ptr addrspace(1) %1, i64 %81
  %83 = load i32, ptr addrspace(3) @reduce.part, align 4, !tbaa !13
  store i32 %83, ptr addrspace(1) %82, align 4, !tbaa !13
  br label %84

84:                                               ; preds = %75, %77
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #2

attributes #0 = { convergent mustprogress nofree norecurse nounwind willreturn "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent mustprogress nocallback nofree nounwind willreturn }

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
