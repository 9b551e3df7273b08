#!/usr/bin/env bash
# On the H200 (one `run` call): CUDA-event times, then ncu's gpu__time_duration (cold caches, as
# the timing model predicts it) of every demo launch; results under $OUT.
set -uo pipefail
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
timeout 100 python3 run_on_device.py --out "$OUT" 2>&1 | tee "$OUT/log.txt"
timeout 60 ncu --clock-control none --csv --page raw \
    --kernel-name 'regex:(per_row|score_|softmax_kernel|layer_norm_fwd)' \
    --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size \
    python3 run_on_device.py --once > "$OUT/ncu.csv" 2> "$OUT/ncu_err.txt"
echo "ncu rc=$?"
tail -3 "$OUT/ncu_err.txt"
