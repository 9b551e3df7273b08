#!/usr/bin/env bash
# On the GPU (one `run` call):  OUT=$OUT bash validation/timing/set3/run3_heads_source_device.sh
# ncu's per-SASS-instruction stall samples (SourceCounters, WarpStateStats) of four attention launches at 4
# heads, where no SM holds more than one CTA and the model's cycles are already 15-34% short (h100/heads/),
# and at the set's 16: which instructions of one warp's loop wait longer than the model's walk says.
# Packed into $OUT/set3_heads_source.tar.gz.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-out}
W=/tmp/set3_heads_source
mkdir -p "$OUT" "$W"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/set3_triton_cache PYTHONUNBUFFERED=1
ONLY="attn_d64_64x64_w4_s3|attn_d64_128x32_w4_s2|attn_d128_64x32_w4_s2|attn_d128_128x64_w8_s3"
for H in 4 16; do
    timeout 240 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
        --print-source sass --kernel-name regex:^s3_ python3 validation/timing/set3/run3.py --mode once \
        --only "$ONLY" --heads $H > "$W/ncu_source_heads$H.csv" 2> "$W/ncu_source_heads$H.log"
    echo "heads $H ncu source rc=$?, $(wc -l < "$W/ncu_source_heads$H.csv") lines" | tee -a "$W/status.txt"
done
tar czf "$OUT/set3_heads_source.tar.gz" -C /tmp set3_heads_source
cat "$W/status.txt"
