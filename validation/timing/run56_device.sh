#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run56_device.sh
# The fifty-fifth microbenchmark batch: atomic requests to one line by lanes a line, on one chunk or a few.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench56.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench56.cubin microbench56.cu
timeout 150 python3 run_microbench56.py --collect "$OUT" >> "$OUT/microbench56.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,lts__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum,lts__t_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum
for s in long_scoreboard lg_throttle drain wait selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 400 ncu --clock-control none --csv --page raw --kernel-name regex:mb56 --metrics "$METRICS" \
    --log-file "$OUT/microbench56_ncu.csv" python3 run_microbench56.py --once >> "$OUT/microbench56.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench56.log"
