#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run47_device.sh
# The forty-seventh microbenchmark batch: global REDs at the L2 (f32 against u32; lanes per line, lines per chunk, spread lanes).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench47.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench47.cubin microbench47.cu
timeout 150 python3 run_microbench47.py --collect "$OUT" >> "$OUT/microbench47.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_red.sum,lts__t_requests_op_red.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__m_xbar2l1tex_read_sectors.sum
for s in long_scoreboard lg_throttle drain wait selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb47 --metrics "$METRICS" \
    --log-file "$OUT/microbench47_ncu.csv" python3 run_microbench47.py --once >> "$OUT/microbench47.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench47.log"
