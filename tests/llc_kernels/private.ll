; ModuleID = 'private.cl'
source_filename = "private.cl"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_ABI_version = weak_odr hidden local_unnamed_addr addrspace(4) constant i32 500

; Function Attrs: nofree norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite)
define protected amdgpu_kernel void @private_array(ptr addrspace(1) nocapture noundef readonly align 4 %0, ptr addrspace(1) nocapture noundef writeonly align 4 %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
  %4 = alloca [16 x i32], align 4, addrspace(5)
  %5 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %6 = tail call align 4 dereferenceable(64) ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %7 = getelementptr inbounds i8, ptr addrspace(4) %6, i64 4
  %8 = load i16, ptr addrspace(4) %7, align 4, !tbaa !9
  %9 = zext i16 %8 to i32
  %10 = mul i32 %5, %9
  %11 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %12 = add i32 %10, %11
  %13 = icmp ult i32 %12, %2
  br i1 %13, label %14, label %57

14:                                               ; preds = %3
  call void @llvm.lifetime.start.p5(i64 64, ptr addrspace(5) %4) #3
  store volatile i32 %12, ptr addrspace(5) %4, align 4, !tbaa !13
  %15 = add nuw i32 %12, 1
  %16 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 4
  store volatile i32 %15, ptr addrspace(5) %16, align 4, !tbaa !13
  %17 = add i32 %12, 4
  %18 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 8
  store volatile i32 %17, ptr addrspace(5) %18, align 4, !tbaa !13
  %19 = add i32 %12, 9
  %20 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 12
  store volatile i32 %19, ptr addrspace(5) %20, align 4, !tbaa !13
  %21 = add i32 %12, 16
  %22 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 16
  store volatile i32 %21, ptr addrspace(5) %22, align 4, !tbaa !13
  %23 = add i32 %12, 25
  %24 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 20
  store volatile i32 %23, ptr addrspace(5) %24, align 4, !tbaa !13
  %25 = add i32 %12, 36
  %26 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 24
  store volatile i32 %25, ptr addrspace(5) %26, align 4, !tbaa !13
  %27 = add i32 %12, 49
  %28 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 28
  store volatile i32 %27, ptr addrspace(5) %28, align 4, !tbaa !13
  %29 = add i32 %12, 64
  %30 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 32
  store volatile i32 %29, ptr addrspace(5) %30, align 4, !tbaa !13
  %31 = add i32 %12, 81
  %32 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 36
  store volatile i32 %31, ptr addrspace(5) %32, align 4, !tbaa !13
  %33 = add i32 %12, 100
  %34 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 40
  store volatile i32 %33, ptr addrspace(5) %34, align 4, !tbaa !13
  %35 = add i32 %12, 121
  %36 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 44
  store volatile i32 %35, ptr addrspace(5) %36, align 4, !tbaa !13
  %37 = add i32 %12, 144
  %38 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 48
  store volatile i32 %37, ptr addrspace(5) %38, align 4, !tbaa !13
  %39 = add i32 %12, 169
  %40 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 52
  store volatile i32 %39, ptr addrspace(5) %40, align 4, !tbaa !13
  %41 = add i32 %12, 196
  %42 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 56
  store volatile i32 %41, ptr addrspace(5) %42, align 4, !tbaa !13
  %43 = add i32 %12, 225
  %44 = getelementptr inbounds i8, ptr addrspace(5) %4, i32 60
  store volatile i32 %43, ptr addrspace(5) %44, align 4, !tbaa !13
  %45 = zext i32 %12 to i64
  %46 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %45
  %47 = load i32, ptr addrspace(1) %46, align 4, !tbaa !13, !amdgpu.noclobber !15
  %48 = and i32 %47, 15
  %49 = getelementptr inbounds [16 x i32], ptr addrspace(5) %4, i32 0, i32 %48
  %50 = load volatile i32, ptr addrspace(5) %49, align 4, !tbaa !13
  %51 = lshr i32 %47, 4
  %52 = and i32 %51, 15
  %53 = getelementptr inbounds [16 x i32], ptr addrspace(5) %4, i32 0, i32 %52
  %54 = load volatile i32, ptr addrspace(5) %53, align 4, !tbaa !13
  %55 = add i32 %54, %50
  %56 = getelementptr inbounds i32, ptr addrspace(1) %1, i64 %45
  store i32 %55, ptr addrspace(1) %56, align 4, !tbaa !13
  call void @llvm.lifetime.end.p5(i64 64, ptr addrspace(5) %4) #3
  br label %57

57:                                               ; preds = %3, %14
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p5(i64 immarg, ptr addrspace(5) nocapture) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p5(i64 immarg, ptr addrspace(5) nocapture) #1

attributes #0 = { nofree norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite) "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind }

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
