// The hidden arguments of code object version 5, which the runtime (here the simulator's
// launch) fills in after the explicit ones: clang reads the work-group size from
// hidden_group_size_x; the size of this work-group, partial or not, is the group size for
// the first hidden_block_count_x work-groups and hidden_remainder_x for the last (as the
// device libraries' get_local_size computes it).
kernel void implicit(global uint *out, uint n) {
  const __constant uint *args = (const __constant uint *)__builtin_amdgcn_implicitarg_ptr();
  const __constant ushort *halves = (const __constant ushort *)args;
  uint size = __builtin_amdgcn_workgroup_size_x();
  uint group = __builtin_amdgcn_workgroup_id_x();
  uint items = group < args[0] ? size : halves[9];
  uint i = group * size + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    out[i] = items | (uint)halves[32] << 16;
}
