#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run34_device.sh
# The thirty-fourth microbenchmark batch: a warpgroup's wgmmas beside another warpgroup's
# instructions in the same sub-partitions.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench34.cubin microbench34.cu && cp microbench34.cubin "$OUT/"
timeout 200 python3 run_microbench34.py --collect "$OUT" > "$OUT/microbench34.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in wait gmma barrier dispatch_stall selected not_selected math_pipe_throttle long_scoreboard short_scoreboard mio_throttle misc no_instruction branch_resolving; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb34 --metrics "$METRICS" \
    --log-file "$OUT/microbench34_ncu.csv" python3 run_microbench34.py --once >> "$OUT/microbench34.log" 2>&1
echo "ncu rc=$?"
tail -40 "$OUT/microbench34.log"
