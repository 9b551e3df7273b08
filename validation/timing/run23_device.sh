#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run23_device.sh
# The twenty-third microbenchmark batch: whether an SM's CTAs stay in step.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench23.cubin microbench23.cu && cp microbench23.cubin "$OUT/"
timeout 300 python3 run_microbench23.py --collect "$OUT" > "$OUT/microbench23.log" 2>&1
echo "events rc=$?"
cat "$OUT/microbench23.log"
