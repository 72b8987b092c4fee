#!/usr/bin/env bash
# Regenerates each kernel's LLVM IR (NAME.ll) from its OpenCL C (NAME.cl) with clang-19, as
# bench/kernels/regen.sh does: no -mcpu (tests/llc_kernels.rs gives llc-19 each
# generation's), IEEE denormals, no FP contraction, and correctly rounded f32 division (without
# it clang allows 2.5 ulp and llc-19 divides with an approximate reciprocal).
set -euo pipefail
cd "$(dirname "$0")"
for cl in *.cl; do
  clang-19 -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O2 -S -emit-llvm \
    -ffp-contract=off -cl-fp32-correctly-rounded-divide-sqrt -Xclang -fdenormal-fp-math-f32=ieee "$cl" -o - |
    grep -v '^!llvm.ident\|^!{!"clang version' > "${cl%.cl}.ll"
done
