#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run17_device.sh
# The seventeenth microbenchmark batch: wgmma (A from shared memory or registers) beside FFMA or
# MUFU work in the same sub-partitions, by clock64, then under ncu (stall reasons).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench17.cubin microbench17.cu
timeout 120 python3 run_microbench17.py --collect "$OUT" > "$OUT/microbench17.log" 2>&1
echo "mb17 rc=$?"
S=smsp__average_warps_issue_stalled_
STALLS=$(for r in dispatch_stall mio_throttle math_pipe_throttle short_scoreboard wait not_selected selected gmma barrier; do
    printf '%s%s_per_issue_active.ratio,' "$S" "$r"; done)
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb17_ --metrics \
${STALLS}gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,\
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active \
    python3 run_microbench17.py --once > "$OUT/microbench17_ncu.csv" 2>> "$OUT/microbench17.log"
echo "mb17 ncu rc=$?"; cat "$OUT/microbench17.log" | tail -12
