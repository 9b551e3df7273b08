#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run51_device.sh
# The fifty-first microbenchmark batch: a shared-memory tiled matmul in four forms (loads, barriers, shared reads), 16 and 32 tiles.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench51.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench51.cubin microbench51.cu
timeout 150 python3 run_microbench51.py --collect "$OUT" >> "$OUT/microbench51.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.sum,lts__t_sectors.sum,dram__bytes_read.sum,smsp__inst_executed.sum
for s in mio_throttle short_scoreboard long_scoreboard barrier wait not_selected selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb51 --metrics "$METRICS" \
    --log-file "$OUT/microbench51_ncu.csv" python3 run_microbench51.py --once >> "$OUT/microbench51.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench51.log"
