#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run37_device.sh
# The thirty-seventh microbenchmark batch (arrays of structs, reductions by type and spread, few CTAs
# streaming with steps that leave the DRAM page), then Nsight Compute's per-instruction stall samples
# of two of set 3's matmuls.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench37.cubin microbench37.cu && cp microbench37.cubin "$OUT/"
timeout 150 python3 run_microbench37.py --collect "$OUT" > "$OUT/microbench37.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_red.sum,lts__t_requests_op_red.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for s in long_scoreboard lg_throttle drain membar wait selected not_selected; do
    METRICS=$METRICS,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:mb37 --metrics "$METRICS" \
    --log-file "$OUT/microbench37_ncu.csv" python3 run_microbench37.py --once >> "$OUT/microbench37.log" 2>&1
echo "ncu rc=$?"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
for label in mm_f16_128x128x64_w4_s3 mm_bf16_128x128x64_w8_s3; do
    timeout 100 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
        --print-source sass --kernel-name regex:^s3_ --launch-count 1 \
        python3 validation/timing/set3/run3.py --mode once --only "^${label}\$" > "/tmp/set3_source_${label}.csv" 2>&1
    echo "source $label rc=$?"
done
tar czf "$OUT/set3_source.tar.gz" -C /tmp $(cd /tmp && ls set3_source_*.csv)
tail -45 "$OUT/microbench37.log"
