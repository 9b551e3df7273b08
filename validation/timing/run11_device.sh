#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run11_device.sh
# The eleventh microbenchmark batch under ncu: a table every CTA reads, by table size, private data
# streamed between its two passes and CTAs per SM (run_microbench11.py's CONFIGS, in order).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench11.cubin microbench11.cu
timeout 400 ncu --clock-control none --csv --page raw --kernel-name mb11_table --metrics \
gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,\
launch__shared_mem_config_size \
    python3 run_microbench11.py --once > "$OUT/microbench11_ncu.csv" 2> "$OUT/microbench11.log"
echo "rc=$?"; tail -3 "$OUT/microbench11.log"; grep -c mb11_table "$OUT/microbench11_ncu.csv"
