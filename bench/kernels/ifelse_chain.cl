#include "gid.h"
kernel void ifelse_chain(global const int *in, global int *out) {
  uint i = GID();
  int x = in[i], r;
  if (x < 0)
    r = x * -2;
  else if (x < 10)
    r = x + 100;
  else if (x < 100)
    r = x * 3;
  else
    r = x - 7;
  out[i] = r;
}
