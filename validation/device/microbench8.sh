#!/usr/bin/env bash
# On the H200 (one `run` call, timeout_s 300):  bash validation/device/microbench8.sh
# The eighth microbenchmark batch (validation/timing/run_microbench8.py): CUDA events and clock64 into
# $OUT/microbench8.json and its log, then ncu of the wgmma f16 (shared A), TMA and cp.async launches
# into $OUT/microbench8_ncu.csv (each configuration launched once, clocks not locked, as ncu ran before).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$OUT/microbench8_gpu.txt" 2>&1
timeout 170 python3 run_microbench8.py --collect "$OUT" > "$OUT/microbench8.log" 2>&1
echo "collect rc=$?" >> "$OUT/microbench8.log"
MB8_SECTIONS=wgmma,tma,cp_async timeout 110 ncu --clock-control none --csv \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_bytes.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
    -k regex:"mb8_(tma_load|cpasync|wgmma_f16_ss)" python3 run_microbench8.py --once > "$OUT/microbench8_ncu.csv" 2> "$OUT/microbench8_ncu.log"
echo "ncu rc=$?" >> "$OUT/microbench8.log"
nvidia-smi --query-gpu=clocks.sm --format=csv >> "$OUT/microbench8_gpu.txt" 2>&1
tail -3 "$OUT/microbench8.log"
ls -l "$OUT"
