// Work-item indexing from what the dispatcher provides: the work-group size is a u16 in the
// HSA dispatch packet (bytes 4, 6, 8 for x, y, z), read through the dispatch pointer, so
// the kernels need no hidden kernel arguments.
#define PACKET() ((__constant unsigned short *)__builtin_amdgcn_dispatch_ptr())
#define GID_X() (__builtin_amdgcn_workgroup_id_x() * PACKET()[2] + __builtin_amdgcn_workitem_id_x())
#define GID_Y() (__builtin_amdgcn_workgroup_id_y() * PACKET()[3] + __builtin_amdgcn_workitem_id_y())
