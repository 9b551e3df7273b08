#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run28_device.sh
# The twenty-eighth microbenchmark batch: how wgmmas queue at the tensor core, and what ncu calls the
# wait; then where two Triton matmuls of set 3 stall, instruction by instruction.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench28.cubin microbench28.cu && cp microbench28.cubin "$OUT/"
timeout 200 python3 run_microbench28.py --collect "$OUT" > "$OUT/microbench28.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in wait gmma barrier dispatch_stall selected not_selected math_pipe_throttle long_scoreboard short_scoreboard mio_throttle misc no_instruction branch_resolving; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb28 --metrics "$METRICS" \
    --log-file "$OUT/microbench28_ncu.csv" python3 run_microbench28.py --once >> "$OUT/microbench28.log" 2>&1
echo "ncu rc=$?"
# where the stalls fall: n8 p0 at 1 and 2 CTAs an SM, n8 p1 at 2, n256 n4 p1 at 2 (CONFIGS 9, 10, 22, 33)
for k in 9 10 22 33; do
    timeout 100 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
        --print-source sass --kernel-name regex:mb28 --launch-skip $k --launch-count 1 \
        python3 run_microbench28.py --once > "/tmp/microbench28_source_$k.csv" 2>&1
done
echo "source rc=$?"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
    --print-source sass --kernel-name regex:^s3_ python3 validation/timing/set3/run3.py --mode once \
    --only '^(mm_f16_128x256x64_w8_s3|mm_f16_128x128x64_w4_s3|mmp_f16_128x128x64_w4_s3)$' \
    > /tmp/set3_source_three_matmuls.csv 2>&1
echo "set3 source rc=$?"
tar czf "$OUT/microbench28_source.tar.gz" -C /tmp $(cd /tmp && ls microbench28_source_*.csv) set3_source_three_matmuls.csv
cat "$OUT/microbench28.log" | tail -40
