#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run18_device.sh
# The eighteenth microbenchmark batch (TMA boxes issued with a few instructions each): event times
# and clock64 spans, then under ncu with the L2's sector counts and its request coalescer's; then
# the set 3 TMA matmuls under the same metrics.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench18.cubin microbench18.cu
timeout 150 python3 run_microbench18.py --collect "$OUT" > "$OUT/microbench18.log" 2>&1
echo "events rc=$?"
LRC=$(ncu --query-metrics --chip gh100 | grep -oE '^lrc__[a-z0-9_]+' | grep -E 'sectors|requests' | sed 's/$/.sum/' | paste -sd, -)
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,\
lts__t_requests.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,\
lts__throughput.avg.pct_of_peak_sustained_elapsed${LRC:+,$LRC}
echo "$METRICS" > "$OUT/metrics18.txt"
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb18_ --metrics "$METRICS" \
    python3 run_microbench18.py --once > "$OUT/microbench18_ncu.csv" 2>> "$OUT/microbench18.log"
echo "ncu rc=$?"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
timeout 150 ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$METRICS" \
    python3 validation/timing/set3/run3.py --mode once --only 'mmtma_' > "$OUT/set3_tma_ncu.csv" 2> "$OUT/set3_tma.log"
echo "set3 rc=$?"; tail -3 "$OUT/set3_tma.log"; tail -50 "$OUT/microbench18.log"
