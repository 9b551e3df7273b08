#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run13_device.sh
# The thirteenth microbenchmark batch (same sectors read by many SMs at once), event-timed and under
# ncu with the L2's sector and request counts (and the L2 request coalescer's, where ncu has them),
# then two set 3 matmuls under the same metrics.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench13.cubin microbench13.cu
timeout 120 python3 run_microbench13.py --collect "$OUT" > "$OUT/microbench13.log" 2>&1
echo "events rc=$?"
ncu --query-metrics --chip gh100 > "$OUT/gh100_metrics.txt" 2>&1
LRC=$(grep -oE '^lrc__[a-z0-9_]+' "$OUT/gh100_metrics.txt" | grep -E 'sectors|requests' | sed 's/$/.sum/' | paste -sd, -)
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,lts__t_sectors.sum,lts__t_requests.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors.avg.pct_of_peak_sustained_elapsed${LRC:+,$LRC}
echo "$METRICS" > "$OUT/metrics13.txt"
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb13_ --metrics "$METRICS" \
    python3 run_microbench13.py --once > "$OUT/microbench13_ncu.csv" 2>> "$OUT/microbench13.log"
echo "ncu rc=$?"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$METRICS" \
    python3 validation/timing/set3/run3.py --mode once --only 'mm_f16_(128x64x64_w4_s4|128x256x64_w8_s3|64x64x64_w4_s4)|mmtma_f16_128x128x64_w4_s3' \
    > "$OUT/set3_mm_ncu.csv" 2> "$OUT/set3_mm.log"
echo "set3 rc=$?"; tail -3 "$OUT/set3_mm.log"; cat "$OUT/microbench13.log" | tail -25
