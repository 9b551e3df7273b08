#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run26_device.sh
# The twenty-sixth microbenchmark batch: where a warp waits for its warpgroup's other warps at a wgmma.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench26.cubin microbench26.cu && cp microbench26.cubin "$OUT/"
timeout 200 python3 run_microbench26.py --collect "$OUT" > "$OUT/microbench26.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in wait gmma barrier dispatch_stall selected not_selected math_pipe_throttle long_scoreboard short_scoreboard membar misc no_instruction branch_resolving; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb26 --metrics "$METRICS" \
    --log-file "$OUT/microbench26_ncu.csv" python3 run_microbench26.py --once >> "$OUT/microbench26.log" 2>&1
echo "ncu rc=$?"
# where the stalls fall, instruction by instruction, for skew 64 without and with the barrier after
timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
    --print-source sass --kernel-name regex:mb26 --launch-skip 3 --launch-count 1 \
    python3 run_microbench26.py --once > "$OUT/microbench26_source_skew64.csv" 2>&1
timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
    --print-source sass --kernel-name regex:mb26 --launch-skip 7 --launch-count 1 \
    python3 run_microbench26.py --once > "$OUT/microbench26_source_skew64_sync.csv" 2>&1
echo "source rc=$?"
cat "$OUT/microbench26.log"
