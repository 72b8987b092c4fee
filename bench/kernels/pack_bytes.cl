#include "gid.h"
kernel void pack_bytes(global const uint *in, global uint *out) {
  uint i = GID();
  global const uint *p = in + 4 * (ulong)i;
  out[i] = (p[0] & 255) | (p[1] & 255) << 8 | (p[2] & 255) << 16 | p[3] << 24;
}
