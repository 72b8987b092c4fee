#include "ids.h"
// A relaxed atomic add of every work-item's value to one word. llc-19 combines the wave's
// values first (its atomic optimizer): with `-amdgpu-atomic-optimizer-strategy=DPP`, a DPP
// reduction (row_shr, row_bcast) on gfx8/gfx9. gfx6/gfx7 use MUBUF without addr64, which
// the simulator does not decode yet, so the test runs this kernel on gfx8/gfx9 only.
kernel void atomics(global const uint *in, global uint *sums, uint n) {
  uint i = GID_X();
  if (i < n)
    __opencl_atomic_fetch_add((volatile global atomic_uint *)&sums[0], in[i],
                              memory_order_relaxed, memory_scope_device);
}
