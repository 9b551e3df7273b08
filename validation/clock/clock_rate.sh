#!/usr/bin/env bash
# On the GPU machine: OUT=... bash validation/clock/clock_rate.sh -> $OUT/clock_rate.txt
# Here: NVCC="warpsim nvcc" RUN="warpsim run" OUT=... bash validation/clock/clock_rate.sh
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
$NVCC -arch=sm_90 -o /tmp/clock_rate "$(dirname "$0")/clock_rate.cu" || exit 1
for shape in "1 1" "1 32" "1 128" "1 256" "1 1024" "132 128" "132 1024" "264 256" "1056 256"; do
  for cycles in 100000 1000000; do
    timeout 300 ${RUN:-} /tmp/clock_rate $cycles $shape
  done
done > "$OUT/clock_rate.txt" 2>&1
cat "$OUT/clock_rate.txt"
