#!/usr/bin/env bash
# On the GPU (one `run` call):  OUT=$OUT bash validation/timing/set3/run3_heads_device.sh
# Set 3's attention launches with fewer heads (4, 8 and the set's 16), so the same kernels fill
# fewer SMs, 1 to 4 CTAs an SM, each CTA still running its whole loop over the keys: whether the model's
# walk of one CTA's warps alone is right and what the warps sharing a sub-partition add. Each launch
# checked against torch and its cubin saved (heads 16), then each head count once under ncu with set 3's
# metrics (validation/timing/h200/ncu_metrics.txt). Packed into $OUT/set3_heads.tar.gz.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-out}
W=/tmp/set3_heads
mkdir -p "$OUT" "$W"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
{ date -u; nvidia-smi; ncu --version; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$W/environment.txt" 2>&1
timeout 200 python3 validation/timing/set3/run3.py --mode check --only attn --save-kernels "$W/kernels" > "$W/check.json" 2> "$W/check.log"
echo "check rc=$?" | tee -a "$W/status.txt"
METRICS=$(grep -v '^#' validation/timing/h200/ncu_metrics.txt | paste -sd, -)
for H in 4 8 16; do
    timeout 150 ncu --clock-control none --csv --page raw --kernel-name regex:^s3_ --metrics "$METRICS" \
        --log-file "$W/ncu_heads$H.csv" python3 validation/timing/set3/run3.py --mode once --only attn --heads $H \
        > "$W/once_heads$H.json" 2>> "$W/ncu.log"
    echo "heads $H ncu rc=$?, $(grep -c '"s3_' "$W/ncu_heads$H.csv") rows" | tee -a "$W/status.txt"
done
tar czf "$OUT/set3_heads.tar.gz" -C /tmp set3_heads
grep -v -i warn "$W/check.log" | tail -12
cat "$W/status.txt"
