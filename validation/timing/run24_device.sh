#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run24_device.sh
# The twenty-fourth microbenchmark batch: barrier or long_scoreboard after reads from HBM.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench24.cubin microbench24.cu && cp microbench24.cubin "$OUT/"
timeout 200 python3 run_microbench24.py --collect "$OUT" > "$OUT/microbench24.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in barrier long_scoreboard short_scoreboard wait not_selected lg_throttle drain selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb24 --metrics "$METRICS" \
    --log-file "$OUT/microbench24_ncu.csv" python3 run_microbench24.py --once >> "$OUT/microbench24.log" 2>&1
echo "ncu rc=$?"
cat "$OUT/microbench24.log"
