#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run49_device.sh
# The forty-ninth microbenchmark batch: REDs, CASes and loads of words picked by a hash, over tables of 4 MB to 1 GB.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench49.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench49.cubin microbench49.cu
timeout 150 python3 run_microbench49.py --collect "$OUT" >> "$OUT/microbench49.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__m_xbar2l1tex_read_sectors.sum
for s in long_scoreboard lg_throttle drain wait selected membar; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:mb49 --metrics "$METRICS" \
    --log-file "$OUT/microbench49_ncu.csv" python3 run_microbench49.py --once >> "$OUT/microbench49.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench49.log"
