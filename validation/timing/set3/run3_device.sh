#!/usr/bin/env bash
# On the H200 (one `run` call, timeout_s 540):  bash validation/timing/set3/run3_device.sh
# 1. every launch of set 3 compiled by the H200's Triton, checked against torch and timed with CUDA
#    events (warm L2), its cubin, PTX and metadata saved (run3.py --mode check --save-kernels);
# 2. each launch once under ncu (--clock-control none, caches flushed as ncu does by default; the
#    metrics of validation/timing/h200/ncu_metrics.txt: time, occupancy, issue active, stall reasons).
# Everything packed into $OUT/set3_h200.tar.gz (unpacked here into validation/timing/set3/h200/).
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-out}
W=/tmp/set3_h200
mkdir -p "$OUT" "$W"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
{ date -u; nvidia-smi; ncu --version; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$W/environment.txt" 2>&1
T0=$(date +%s)
timeout ${CHECK_S:-300} python3 validation/timing/set3/run3.py --mode check --save-kernels "$W/kernels" > "$W/check.json" 2> "$W/check.log"
echo "check rc=$? in $(( $(date +%s) - T0 )) s" | tee -a "$W/status.txt"
METRICS=$(grep -v '^#' validation/timing/h200/ncu_metrics.txt | paste -sd, -)
T1=$(date +%s)
timeout ${NCU_S:-200} ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$METRICS" \
    --log-file "$W/ncu_raw.csv" python3 validation/timing/set3/run3.py --mode once > "$W/once.json" 2> "$W/ncu.log"
echo "ncu rc=$? in $(( $(date +%s) - T1 )) s, $(grep -c '"s3_' "$W/ncu_raw.csv") rows" | tee -a "$W/status.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$W/status.txt" 2>&1
tar czf "$OUT/set3_h200.tar.gz" -C /tmp set3_h200 set3_triton_cache
cp "$W/status.txt" "$W/check.log" "$OUT/" 2>/dev/null
tail -60 "$W/check.log" | grep -v -i warn
cat "$W/status.txt"
