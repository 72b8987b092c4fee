#include "gid.h"
kernel void gid64(global const uint *in, global uint *out) {
  ulong gid = (ulong)GROUP_ID() * (ulong)GROUP_SIZE() + (ulong)LOCAL_ID();
  out[gid] = in[gid] + (uint)((gid * 0x9e3779b97f4a7c15ul) >> 40);
}
