#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run40_device.sh
# The fortieth microbenchmark batch: where a pipelined wgmma loop's warps wait, per launch and per
# instruction (ncu's source view of four rows).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench40.cubin microbench40.cu && cp microbench40.cubin "$OUT/"
timeout 150 python3 run_microbench40.py --collect "$OUT" > "$OUT/microbench40.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in wait gmma barrier dispatch_stall selected not_selected math_pipe_throttle long_scoreboard short_scoreboard mio_throttle lg_throttle no_instruction branch_resolving; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb40 --metrics "$METRICS" \
    --log-file "$OUT/microbench40_ncu.csv" python3 run_microbench40.py --once >> "$OUT/microbench40.log" 2>&1
echo "ncu rc=$?"
for k in 7 9 11 13; do
    timeout 100 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
        --print-source sass --kernel-name regex:mb40 --launch-skip $k --launch-count 1 \
        python3 run_microbench40.py --once > "/tmp/microbench40_source_$k.csv" 2>&1
    echo "source $k rc=$?"
done
tar czf "$OUT/microbench40_source.tar.gz" -C /tmp $(cd /tmp && ls microbench40_source_*.csv)
tail -16 "$OUT/microbench40.log"
