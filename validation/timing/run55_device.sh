#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run55_device.sh
# The fifty-fifth microbenchmark batch: streams beside reads of a table the L2 holds (does an HBM fill cost the L2?).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench55.log" 2>&1
nvcc -arch=sm_90 -cubin -o microbench55.cubin microbench55.cu
timeout 150 python3 run_microbench55.py --collect "$OUT" >> "$OUT/microbench55.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in long_scoreboard lg_throttle wait not_selected selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 400 ncu --clock-control none --csv --page raw --kernel-name regex:mb55 --metrics "$METRICS" \
    --log-file "$OUT/microbench55_ncu.csv" python3 run_microbench55.py --once >> "$OUT/microbench55.log" 2>&1
echo "ncu rc=$?"
tail -8 "$OUT/microbench55.log"
