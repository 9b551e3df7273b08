#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run33_device.sh
# The thirty-third microbenchmark batch: warps that wait for memory, and their stores at exit.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench33.cubin microbench33.cu && cp microbench33.cubin "$OUT/"
timeout 200 python3 run_microbench33.py --collect "$OUT" > "$OUT/microbench33.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__bytes_read.sum,dram__bytes_write.sum
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb33 --metrics "$METRICS" \
    --log-file "$OUT/microbench33_ncu.csv" python3 run_microbench33.py --once >> "$OUT/microbench33.log" 2>&1
echo "ncu rc=$?"
tail -25 "$OUT/microbench33.log"
