#include "ids.h"
// A loop with a data-dependent trip count (Collatz steps, capped) and a nested loop.
kernel void loops(global const uint *in, global uint *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  uint v = in[i];
  uint steps = 0;
  while (v != 1 && steps < 500) {
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    steps++;
  }
  uint acc = 0;
  for (uint j = 0; j < (i & 7); j++)
    for (uint k = 0; k <= j; k++)
      acc += j * k + steps;
  out[i] = steps | acc << 16;
}
