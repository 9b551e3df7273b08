#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run16_device.sh
# The sixteenth microbenchmark batch under ncu: MUFU beside FFMAs, time and stall reasons.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench16.cubin microbench16.cu
S=smsp__average_warps_issue_stalled_
STALLS=$(for r in dispatch_stall mio_throttle math_pipe_throttle short_scoreboard wait not_selected selected no_instruction; do
    printf '%s%s_per_issue_active.ratio,' "$S" "$r"; done)
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:^mb16_ --metrics \
${STALLS}gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum,\
smsp__issue_active.avg.pct_of_peak_sustained_active \
    python3 run_microbench16.py --once > "$OUT/microbench16_ncu.csv" 2> "$OUT/microbench16.log"
echo "mb16 ncu rc=$?"; tail -3 "$OUT/microbench16.log"
