#include "ids.h"
// Double-precision division.
kernel void fdiv64(global const double *a, global const double *b, global double *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  out[i] = a[i] / b[i];
}
