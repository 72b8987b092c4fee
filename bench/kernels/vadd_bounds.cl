#include "gid.h"
kernel void vadd_bounds(global const float *a, global const float *b, global float *c, uint n) {
  uint i = GID();
  if (i < n)
    c[i] = a[i] + b[i];
}
