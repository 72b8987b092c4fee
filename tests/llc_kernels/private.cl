#include "ids.h"
// A private array indexed by data: llc-19 keeps it in scratch (the private segment).
kernel void private_array(global const uint *in, global uint *out, uint n) {
  uint i = GID_X();
  if (i >= n)
    return;
  volatile uint table[16];
  for (uint k = 0; k < 16; k++)
    table[k] = k * k + i;
  uint v = in[i];
  out[i] = table[v & 15] + table[(v >> 4) & 15];
}
