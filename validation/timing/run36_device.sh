#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run36_device.sh
# The thirty-sixth microbenchmark batch: one word of each of 32 lines at a spacing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench36.cubin microbench36.cu && cp microbench36.cubin "$OUT/"
timeout 200 python3 run_microbench36.py --collect "$OUT" > "$OUT/microbench36.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
timeout 200 ncu --clock-control none --cache-control none --csv --page raw --kernel-name regex:mb36 --metrics "$METRICS" \
    --log-file "$OUT/microbench36_ncu.csv" python3 run_microbench36.py --once >> "$OUT/microbench36.log" 2>&1
echo "ncu rc=$?"
tail -25 "$OUT/microbench36.log"
