#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run25_device.sh
# The twenty-fifth microbenchmark batch: register-bank conflicts.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench25.cubin microbench25.cu && cp microbench25.cubin "$OUT/"
timeout 200 python3 run_microbench25.py --collect "$OUT" > "$OUT/microbench25.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in dispatch_stall wait not_selected selected long_scoreboard math_pipe_throttle; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb25 --metrics "$METRICS" \
    --log-file "$OUT/microbench25_ncu.csv" python3 run_microbench25.py --once >> "$OUT/microbench25.log" 2>&1
echo "ncu rc=$?"
cat "$OUT/microbench25.log"
