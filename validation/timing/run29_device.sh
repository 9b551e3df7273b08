#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run29_device.sh
# The twenty-ninth microbenchmark batch: a warp's instructions beside its warpgroup's wgmmas, and FMA
# chains after a CTA's only barrier.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench29.cubin microbench29.cu && cp microbench29.cubin "$OUT/"
timeout 200 python3 run_microbench29.py --collect "$OUT" > "$OUT/microbench29.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in wait gmma barrier dispatch_stall selected not_selected math_pipe_throttle long_scoreboard short_scoreboard mio_throttle misc no_instruction branch_resolving; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb29 --metrics "$METRICS" \
    --log-file "$OUT/microbench29_ncu.csv" python3 run_microbench29.py --once >> "$OUT/microbench29.log" 2>&1
echo "ncu rc=$?"
# where the stalls fall: add, ffma and sel x128 at one CTA an SM, ffma x128 at two (CONFIGS 4, 20, 28, 21)
for k in 4 20 28 21; do
    timeout 100 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
        --print-source sass --kernel-name regex:mb29 --launch-skip $k --launch-count 1 \
        python3 run_microbench29.py --once > "/tmp/microbench29_source_$k.csv" 2>&1
done
echo "source rc=$?"
tar czf "$OUT/microbench29_source.tar.gz" -C /tmp $(cd /tmp && ls microbench29_source_*.csv)
tail -40 "$OUT/microbench29.log"
