#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run12_device.sh
# The twelfth microbenchmark batch: one line's atomics with 1-32 active lanes a request.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT"
nvcc -arch=sm_90 -cubin -o microbench12.cubin microbench12.cu && timeout 200 python3 run_microbench12.py --collect "$OUT" > "$OUT/microbench12.log" 2>&1
echo "rc=$?"; cat "$OUT/microbench12.log"
