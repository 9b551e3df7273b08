#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run43_device.sh
# The forty-third microbenchmark batch: the issue cost of address and select arithmetic.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench43.cubin microbench43.cu && cp microbench43.cubin "$OUT/"
timeout 120 python3 run_microbench43.py --collect "$OUT" > "$OUT/microbench43.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
for s in math_pipe_throttle wait not_selected short_scoreboard selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb43 --section InstructionStats --section ComputeWorkloadAnalysis --metrics "$METRICS" \
    --log-file "$OUT/microbench43_ncu.csv" python3 run_microbench43.py --once >> "$OUT/microbench43.log" 2>&1
echo "ncu rc=$?"
tail -30 "$OUT/microbench43.log"
