#include "ids.h"
// A work-group sum in LDS with barriers (a tree over 256 slots; work-items past n add 0).
kernel void reduce(global const uint *in, global uint *sums, uint n) {
  local uint part[256];
  uint l = __builtin_amdgcn_workitem_id_x();
  uint i = GID_X();
  part[l] = i < n ? in[i] : 0;
  for (uint s = 128; s > 0; s >>= 1) {
    // barrier(CLK_LOCAL_MEM_FENCE) without the OpenCL library: fences around s_barrier.
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (l < s && l + s < 256)
      part[l] += part[l + s];
  }
  if (l == 0)
    sums[__builtin_amdgcn_workgroup_id_x()] = part[0];
}
