#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run27_device.sh
# The twenty-seventh microbenchmark batch: a CTA barrier's arrivals, the SM's cost or the CTA's.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench27.cubin microbench27.cu && cp microbench27.cubin "$OUT/"
timeout 200 python3 run_microbench27.py --collect "$OUT" > "$OUT/microbench27.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in barrier wait not_selected selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb27 --metrics "$METRICS" \
    --log-file "$OUT/microbench27_ncu.csv" python3 run_microbench27.py --once >> "$OUT/microbench27.log" 2>&1
echo "ncu rc=$?"
cat "$OUT/microbench27.log"
