#include "ids.h"
// Global-id arithmetic in two dimensions: each work-item of a w x h grid writes a value
// mixing its ids; work-items past the edges (partial work-groups) write nothing.
kernel void gid2d(global uint *out, uint w, uint h) {
  uint x = GID_X();
  uint y = GID_Y();
  if (x < w && y < h)
    out[y * w + x] = (x * 7 + y * 1000003u) ^ (x >> 3) ^ (__builtin_amdgcn_workitem_id_y() << 20);
}
