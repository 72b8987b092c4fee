#include "gid.h"
kernel void divergent_loop(global const uint *in, global uint *out) {
  uint i = GID();
  uint x = in[i], n = x & 15, s = 0;
  for (uint k = 0; k < n; k++)
    s += k * x;
  out[i] = s;
}
