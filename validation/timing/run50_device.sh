#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run50_device.sh
# The fiftieth microbenchmark batch: shared-pipe passes of ld.shared by width and by distinct elements a warp.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench50.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench50.cubin microbench50.cu
timeout 150 python3 run_microbench50.py --collect "$OUT" >> "$OUT/microbench50.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in mio_throttle short_scoreboard wait not_selected selected math_pipe_throttle; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb50 --metrics "$METRICS" \
    --log-file "$OUT/microbench50_ncu.csv" python3 run_microbench50.py --once >> "$OUT/microbench50.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench50.log"
