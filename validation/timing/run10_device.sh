#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run10_device.sh
# 1. the tenth microbenchmark batch (microbench10.cu, built here with the machine's nvcc): CTAs chasing
#    one pointer chain at once, after an L2 flush and with the chain in L2;
# 2. ncu's per-SASS-instruction stall samples of set 3 launches (RUN10_NCU_ONLY, a regular expression).
# Outputs land in $OUT/run10.tar.gz, the status beside it.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
W=/tmp/run10
mkdir -p "$OUT" "$W"
cd "$ROOT"
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/run10_triton_cache
(cd validation/timing && nvcc -arch=sm_90 -cubin -o microbench10.cubin microbench10.cu \
    && timeout 120 python3 run_microbench10.py --collect "$W") > "$W/microbench10.log" 2>&1
echo "microbench10 rc=$?" | tee -a "$W/status.txt"
timeout 300 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
    --print-source sass --kernel-name regex:^s3_ python3 validation/timing/set3/run3.py --mode once \
    --only "${RUN10_NCU_ONLY:-attn_d64_64x64_w4_s3|attn_d128_64x32_w4_s2|layernorm_f16_w4|mm_f16_64x64x64_w4_s4}" \
    > "$W/ncu_source.csv" 2> "$W/ncu_source.log"
echo "ncu source rc=$?" | tee -a "$W/status.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> "$W/status.txt" 2>&1
tar czf "$OUT/run10.tar.gz" -C /tmp run10
cp "$W/status.txt" "$W/microbench10.log" "$OUT/" 2>/dev/null
cat "$W/status.txt"; tail -30 "$W/microbench10.log"
