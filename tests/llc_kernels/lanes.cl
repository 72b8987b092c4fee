#include "ids.h"
// Cross-lane reads and float selects: readfirstlane, readlane, ds_swizzle (swap neighbours),
// max/min written as compares and selects (gfx6/gfx7: v_max_legacy_f32/v_min_legacy_f32),
// and 16-bit lane arithmetic (gfx8/gfx9: SDWA).
kernel void lanes(global const float *a, global const float *b, global uint *out, uint n) {
  uint i = GID_X();
  float x = a[i], y = b[i];
  float hi = x > y ? x : y;
  float lo = x < y ? x : y;
  uint v = as_uint(hi) ^ as_uint(lo) * 3u;
  uint first = __builtin_amdgcn_readfirstlane(v);
  uint fifth = __builtin_amdgcn_readlane(v, 5);
  uint swapped = __builtin_amdgcn_ds_swizzle(v, 0x041f);
  ushort hx = v >> 16, gx = swapped >> 8;
  uint m = (uint)(ushort)(hx + gx) | (uint)(uchar)((v >> 8) + (swapped >> 24)) << 16;
  if (i < n) {
    out[4 * i] = as_uint(hi);
    out[4 * i + 1] = as_uint(lo);
    out[4 * i + 2] = first + fifth * 5u + swapped;
    out[4 * i + 3] = m ^ (uint)(ushort)(hx >> 3) << 24;
  }
}
