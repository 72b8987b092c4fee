#include "gid.h"
kernel void vadd(global const float *a, global const float *b, global float *c) {
  uint i = GID();
  c[i] = a[i] + b[i];
}
