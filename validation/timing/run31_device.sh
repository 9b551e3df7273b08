#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run31_device.sh
# The thirty-first microbenchmark batch: one float a lane read or written `stride` floats apart.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench31.cubin microbench31.cu && cp microbench31.cubin "$OUT/"
timeout 200 python3 run_microbench31.py --collect "$OUT" > "$OUT/microbench31.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb31 --metrics "$METRICS" \
    --log-file "$OUT/microbench31_ncu.csv" python3 run_microbench31.py --once >> "$OUT/microbench31.log" 2>&1
echo "ncu rc=$?"
tail -25 "$OUT/microbench31.log"
