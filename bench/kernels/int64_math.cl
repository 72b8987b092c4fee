#include "gid.h"
kernel void int64_math(global const ulong *in, global ulong *out) {
  uint i = GID();
  ulong v = in[i];
  out[i] = ((v * 0x9e3779b97f4a7c15ul) ^ (v >> 29)) + (v << 7);
}
