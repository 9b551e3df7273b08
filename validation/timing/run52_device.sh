#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run52_device.sh
# The fifty-second microbenchmark batch: achieved occupancy and stall reasons of pipe chains, atomics and streams.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench52.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench52.cubin microbench52.cu
timeout 150 python3 run_microbench52.py --collect "$OUT" >> "$OUT/microbench52.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,launch__registers_per_thread,launch__occupancy_limit_registers
for s in long_scoreboard drain lg_throttle wait not_selected selected math_pipe_throttle mio_throttle short_scoreboard barrier dispatch_stall no_instruction branch_resolving membar; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 400 ncu --clock-control none --csv --page raw --kernel-name regex:mb52 --metrics "$METRICS" \
    --log-file "$OUT/microbench52_ncu.csv" python3 run_microbench52.py --once >> "$OUT/microbench52.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench52.log"
