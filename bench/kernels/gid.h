// The global id as wavelift's kernels compute it (docs/ir.md): work-group id times the
// work-group size (a u16 at byte 4 of the HSA dispatch packet) plus the work-item id.
#define LOCAL_ID() __builtin_amdgcn_workitem_id_x()
#define GROUP_ID() __builtin_amdgcn_workgroup_id_x()
#define GROUP_SIZE() (((__constant unsigned short *)__builtin_amdgcn_dispatch_ptr())[2])
#define GID() (GROUP_ID() * GROUP_SIZE() + LOCAL_ID())
