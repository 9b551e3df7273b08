#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run30_device.sh
# The thirtieth microbenchmark batch: the L2's merges of TMA box reads many SMs ask for at once.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench30.cubin microbench30.cu && cp microbench30.cubin "$OUT/"
timeout 200 python3 run_microbench30.py --collect "$OUT" > "$OUT/microbench30.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_requests.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb30 --metrics "$METRICS" \
    --log-file "$OUT/microbench30_ncu.csv" python3 run_microbench30.py --once >> "$OUT/microbench30.log" 2>&1
echo "ncu rc=$?"
cp "$OUT/microbench30_ncu.csv" h200/ 2>/dev/null
python3 run_microbench30.py --model >> "$OUT/microbench30.log" 2>&1
tail -20 "$OUT/microbench30.log"
