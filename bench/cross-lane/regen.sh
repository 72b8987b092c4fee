#!/usr/bin/env bash
# Regenerates the cross-lane kernels' LLVM IR as bench/kernels/regen.sh does. Their OpenCL C
# uses clang's DPP builtins, which need the `dpp` target feature (gfx8 and later): llc-19
# drops such a function on gfx6/gfx7, so these kernels live outside bench/kernels and are
# compared on gfx803 and gfx900 only (docs/perf.md).
set -euo pipefail
cd "$(dirname "$0")"
for cl in *.cl; do
  clang-19 -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O2 -S -emit-llvm \
    -ffp-contract=off -Xclang -fdenormal-fp-math-f32=ieee "$cl" -o - |
    grep -v '^!llvm.ident\|^!{!"clang version' > "${cl%.cl}.ll"
done
