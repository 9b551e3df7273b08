#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run41_device.sh
# The forty-first microbenchmark batch: random gathers from a cold L2.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench41.cubin microbench41.cu && cp microbench41.cubin "$OUT/"
timeout 120 python3 run_microbench41.py --collect "$OUT" > "$OUT/microbench41.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct
for s in long_scoreboard lg_throttle wait selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb41 --metrics "$METRICS" \
    --log-file "$OUT/microbench41_ncu.csv" python3 run_microbench41.py --once >> "$OUT/microbench41.log" 2>&1
echo "ncu rc=$?"
tail -16 "$OUT/microbench41.log"
