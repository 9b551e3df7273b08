#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run38_device.sh
# The thirty-eighth microbenchmark batch: lines in flight an SM.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench38.cubin microbench38.cu && cp microbench38.cubin "$OUT/"
timeout 200 python3 run_microbench38.py --collect "$OUT" > "$OUT/microbench38.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
for s in long_scoreboard lg_throttle wait selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 250 ncu --clock-control none --csv --page raw --kernel-name regex:mb38 --metrics "$METRICS" \
    --log-file "$OUT/microbench38_ncu.csv" python3 run_microbench38.py --once >> "$OUT/microbench38.log" 2>&1
echo "ncu rc=$?"
tail -20 "$OUT/microbench38.log"
