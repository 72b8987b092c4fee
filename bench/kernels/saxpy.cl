#include "gid.h"
kernel void saxpy(global const float *x, global float *y, float a) {
  uint i = GID();
  y[i] = fma(a, x[i], y[i]);
}
