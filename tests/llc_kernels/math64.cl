#include "ids.h"
// 64-bit integer arithmetic: multiply, shifts, unsigned and signed division, remainder.
kernel void math64(global const ulong *a, global const ulong *b, global ulong *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  ulong x = a[i], y = b[i] | 1;
  ulong p = x * y + (x >> 13) - (y << 7);
  ulong q = x / y;
  long s = (long)x % (long)(y | 0x100);
  out[3 * i] = p;
  out[3 * i + 1] = q;
  out[3 * i + 2] = (ulong)s ^ (x >> (y & 63));
}
