#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run35_device.sh
# The thirty-fifth microbenchmark batch: loads scattered over random lines.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench35.cubin microbench35.cu && cp microbench35.cubin "$OUT/"
timeout 200 python3 run_microbench35.py --collect "$OUT" > "$OUT/microbench35.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
timeout 200 ncu --clock-control none --cache-control none --csv --page raw --kernel-name regex:mb35 --metrics "$METRICS" \
    --log-file "$OUT/microbench35_ncu.csv" python3 run_microbench35.py --once >> "$OUT/microbench35.log" 2>&1
echo "ncu rc=$?"
tail -25 "$OUT/microbench35.log"
