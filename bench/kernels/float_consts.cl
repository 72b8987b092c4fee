#include "gid.h"
// Compiled with -ffp-contract=off so that, like the CLIF, multiplies and adds stay apart.
kernel void float_consts(global const float *x, global float *y) {
  uint i = GID();
  float v = x[i];
  float r = ((v * 0.5f + 1.25f) * v - 3.75f) * v + 0.125f;
  y[i] = fmin(fmax(r, -100.0f), 1000.0f);
}
