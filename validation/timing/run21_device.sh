#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run21_device.sh
# The twenty-first microbenchmark batch: HBM latency under load (a chase beside streaming warps).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench21.cubin microbench21.cu && cp microbench21.cubin "$OUT/"
timeout 300 python3 run_microbench21.py --collect "$OUT" > "$OUT/microbench21.log" 2>&1
echo "events rc=$?"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/microbench21.log"
cat "$OUT/microbench21.log"
