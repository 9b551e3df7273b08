#!/usr/bin/env bash
# On a GPU (one `run` call): the fifth validation set's cases under CUDA events and ncu, no
# microbenchmarks; the card's results go to h100/set5 (compare.py --set 5 --card h100).
#   bash validation/timing/run5_device.sh      -> $OUT/set5.tar.gz
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
WORK=/tmp/set5
mkdir -p "$WORK"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$WORK/gpu.txt" 2>&1
timeout 450 python3 run_on_device.py --collect "$WORK" --deadline 420 --set 5 --skip-microbench \
    > "$WORK/device_log.txt" 2>&1
cp "$WORK/device_log.txt" "$WORK/gpu.txt" "$WORK/timing_results/" 2>/dev/null
tail -5 "$WORK/device_log.txt"
tar czf "$OUT/set5.tar.gz" -C "$WORK" timing_results
ls -l "$OUT"
