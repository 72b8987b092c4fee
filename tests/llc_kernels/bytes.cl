#include "ids.h"
// Byte packing and unpacking: four bytes of a word to floats and back, reversed.
kernel void bytes(global const uint *in, global uint *out, global float *sums, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  uint v = in[i];
  uchar b0 = v, b1 = v >> 8, b2 = v >> 16, b3 = v >> 24;
  sums[i] = (float)b0 + 2.0f * (float)b1 + 4.0f * (float)b2 + 8.0f * (float)b3;
  out[i] = (uint)b3 | (uint)b2 << 8 | (uint)b1 << 16 | (uint)(uchar)(b0 + 1) << 24;
}
