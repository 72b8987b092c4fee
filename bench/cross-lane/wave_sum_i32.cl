#include "../kernels/gid.h"
// A 64-lane i32 sum per wave: out[i] = the sum of in over i's wave. The DPP steps of
// wavelift_reduce_add_i32 (row_shr 1, 2, 4, 8; row_bcast 15 and 31; lane 63), written with
// clang's DPP builtins; every lane of the launch is active, so no identity is set up.
__attribute__((target("dpp"))) kernel void wave_sum_i32(global const int *in, global int *out) {
  uint i = GID();
  int v = in[i];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x142, 0xa, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x143, 0xc, 0xf, false);
  out[i] = __builtin_amdgcn_readlane(v, 63);
}
