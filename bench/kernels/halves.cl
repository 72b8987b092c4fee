#include "gid.h"
kernel void halves(global const uint *in, global ushort *out) {
  uint i = GID();
  uint w = in[i];
  uint lo = w & 0xffff, hi = w >> 16;
  out[2 * (ulong)i] = (ushort)(lo + hi);
  out[2 * (ulong)i + 1] = (ushort)(lo - hi);
}
