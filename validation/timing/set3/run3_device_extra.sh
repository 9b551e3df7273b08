#!/usr/bin/env bash
# On the H200, after run3_device.sh (one `run` call, timeout_s 300):  bash validation/timing/set3/run3_device_extra.sh
# 1. the ncu pass of run3_device.sh again (same metrics): the H200's own run-to-run spread;
# 2. one more ncu pass with what says where a launch's time goes: tensor pipe (HGMMA / HMMA), shared
#    pipe, XU (MUFU), DRAM and L2 throughput, L2 hit rate, instructions by pipe.
# Packed into $OUT/set3_h200_extra.tar.gz (unpacked here into validation/timing/set3/h200/).
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-out}
W=/tmp/set3_h200_extra
mkdir -p "$OUT" "$W"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
METRICS=$(grep -v '^#' validation/timing/h200/ncu_metrics.txt | paste -sd, -)
T0=$(date +%s)
timeout 150 ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$METRICS" \
    --log-file "$W/ncu_raw_repeat.csv" python3 validation/timing/set3/run3.py --mode once > "$W/once_repeat.json" 2> "$W/ncu_repeat.log"
echo "ncu repeat rc=$? in $(( $(date +%s) - T0 )) s, $(grep -c '"s3_' "$W/ncu_raw_repeat.csv") rows" | tee -a "$W/status.txt"
EXTRA=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_lsu.sum,sm__inst_executed_pipe_tma.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes_read.sum,dram__bytes_write.sum
T1=$(date +%s)
timeout 150 ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$EXTRA" \
    --log-file "$W/ncu_where.csv" python3 validation/timing/set3/run3.py --mode once > "$W/once_where.json" 2> "$W/ncu_where.log"
echo "ncu where rc=$? in $(( $(date +%s) - T1 )) s, $(grep -c '"s3_' "$W/ncu_where.csv") rows" | tee -a "$W/status.txt"
tar czf "$OUT/set3_h200_extra.tar.gz" -C /tmp set3_h200_extra
tail -3 "$W/ncu_where.log"
