#include "ids.h"
// Divergent if/else chains on the data.
kernel void branches(global const int *in, global int *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  int v = in[i];
  int r;
  if (v < 0) {
    r = -v * 3;
  } else if ((v & 3) == 1) {
    r = v * v;
  } else if (v > 1000) {
    r = v / 7;
  } else {
    r = v - 5 > 2 ? v - 5 : 2;
  }
  out[i] = r;
}
