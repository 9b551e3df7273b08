#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run39_device.sh
# The thirty-ninth microbenchmark batch: the packed 16-bit pipes, shared loads by width and pattern.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench39.cubin microbench39.cu && cp microbench39.cubin "$OUT/"
timeout 120 python3 run_microbench39.py --collect "$OUT" > "$OUT/microbench39.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum
for s in wait math_pipe_throttle mio_throttle short_scoreboard not_selected dispatch_stall selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb39 --metrics "$METRICS" \
    --log-file "$OUT/microbench39_ncu.csv" python3 run_microbench39.py --once >> "$OUT/microbench39.log" 2>&1
echo "ncu rc=$?"
# the pipes each instruction went to, where this ncu names them (a failure here leaves the rows above)
timeout 120 ncu --clock-control none --csv --page raw --kernel-name regex:mb39 \
    --metrics smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_fp16.sum,smsp__inst_executed_pipe_alu.sum \
    --log-file "$OUT/microbench39_pipes_ncu.csv" python3 run_microbench39.py --once >> "$OUT/microbench39.log" 2>&1
echo "ncu pipes rc=$?"
tail -12 "$OUT/microbench39.log"
