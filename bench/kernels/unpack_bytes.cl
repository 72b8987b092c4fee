#include "gid.h"
kernel void unpack_bytes(global const uint *in, global float *out) {
  uint i = GID();
  uint w = in[i];
  const float scale = 0x1.0p-8f, one = 1.0f;
  out[4 * (ulong)i + 0] = fma((float)(w & 255), scale, one);
  out[4 * (ulong)i + 1] = fma((float)((w >> 8) & 255), scale, one);
  out[4 * (ulong)i + 2] = fma((float)((w >> 16) & 255), scale, one);
  out[4 * (ulong)i + 3] = fma((float)(w >> 24), scale, one);
}
