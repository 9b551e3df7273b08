#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run22_device.sh
# The twenty-second microbenchmark batch: dependent line walks in step or spread.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench22.cubin microbench22.cu && cp microbench22.cubin "$OUT/"
timeout 300 python3 run_microbench22.py --collect "$OUT" > "$OUT/microbench22.log" 2>&1
echo "events rc=$?"
cat "$OUT/microbench22.log"
