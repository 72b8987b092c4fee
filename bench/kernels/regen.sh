#!/usr/bin/env bash
# Regenerates each kernel's LLVM IR (NAME.ll) from its OpenCL C (NAME.cl) with clang-19.
# No -mcpu: the IR names no target CPU, so `clif-util bench --compare-llc` can give llc-19
# each generation's. Denormals as wavelift assumes them (IEEE, docs/ir.md); no FP
# contraction, as in the CLIF (which writes `fma` where it means one).
set -euo pipefail
cd "$(dirname "$0")"
for cl in *.cl; do
  clang-19 -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O2 -S -emit-llvm \
    -ffp-contract=off -Xclang -fdenormal-fp-math-f32=ieee "$cl" -o - |
    grep -v '^!llvm.ident\|^!{!"clang version' > "${cl%.cl}.ll"
done
