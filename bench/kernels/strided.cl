#include "gid.h"
kernel void strided(global const float *in, global float *out, uint stride) {
  uint i = GID();
  global const float *p = in + (ulong)(i * stride);
  out[i] = p[0] + p[1];
}
