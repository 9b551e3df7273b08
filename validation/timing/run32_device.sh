#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run32_device.sh
# The thirty-second microbenchmark batch: CTA slots turning over (chains of FMAs, K CTAs an SM, 16 waves).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench32.cubin microbench32.cu && cp microbench32.cubin "$OUT/"
timeout 200 python3 run_microbench32.py --collect "$OUT" > "$OUT/microbench32.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__occupancy_limit_shared_mem,launch__shared_mem_per_block_dynamic
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb32 --metrics "$METRICS" \
    --log-file "$OUT/microbench32_ncu.csv" python3 run_microbench32.py --once >> "$OUT/microbench32.log" 2>&1
echo "ncu rc=$?"
tail -25 "$OUT/microbench32.log"
