#include "ids.h"
// Single-precision division: llc-19 emits the IEEE sequence (scale, FMA, fixup) for `fdiv`.
kernel void fdiv32(global const float *a, global const float *b, global float *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  out[i] = a[i] / b[i];
}
