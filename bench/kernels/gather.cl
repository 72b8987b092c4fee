#include "gid.h"
kernel void gather(global const int *idx, global const float *data, global float *out) {
  uint i = GID();
  out[i] = data[idx[i]];
}
