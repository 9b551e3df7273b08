#!/usr/bin/env bash
# On the GPU machine: OUT=... bash validation/programs/fault_space.sh -> $OUT/fault_space.txt
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" -arch=sm_90 -o /tmp/fault_space "$(dirname "$0")/fault_space.cu" || exit 1
for o in 0 4096 1048576 2097152 16777216 268435456 1073741824 4294967296 17179869184 68719476736 \
         1099511627776 -4096 -1048576 -268435456 -4294967296; do
  timeout 20 /tmp/fault_space $o
done > "$OUT/fault_space.txt" 2>&1
cat "$OUT/fault_space.txt"
