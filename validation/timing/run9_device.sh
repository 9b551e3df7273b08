#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run9_device.sh
# 1. validation/tensor_maps: the driver's cuTensorMapEncodeTiled bytes for cases.txt;
# 2. the ninth microbenchmark batch (microbench9.cu, built here with the machine's nvcc);
# 3. validation/sass_counters with CuPy compiling kernels.cu on the H200 (SC_FROM_SOURCE=1);
# 4. ncu's per-SASS-instruction stall samples of two set 3 launches (an attention and a TMA matmul).
# Everything lands in $OUT/run9.tar.gz, the logs beside it. RUN9_STEPS names the steps to run
# (default: tensor_maps microbench9 sass_counters ncu_source); RUN9_NCU_ONLY the set 3 launches (a
# regular expression) whose per-instruction stall samples ncu takes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
W=/tmp/run9
mkdir -p "$OUT" "$W"
cd "$ROOT"
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/run9_triton_cache
STEPS=" ${RUN9_STEPS:-tensor_maps microbench9 sass_counters ncu_source} "
step() { [[ "$STEPS" == *" $1 "* ]]; }
step tensor_maps && (OUT=$W bash validation/tensor_maps/run_on_device.sh) > "$W/tensor_maps.log" 2>&1
echo "tensor maps rc=$?" | tee -a "$W/status.txt"
step microbench9 && (cd validation/timing && nvcc -arch=sm_90a -cubin -o "$W/microbench9.cubin" microbench9.cu && cp "$W/microbench9.cubin" . \
    && timeout 240 python3 run_microbench9.py --collect "$W") > "$W/microbench9.log" 2>&1
echo "microbench9 rc=$?" | tee -a "$W/status.txt"
step sass_counters && SC_FROM_SOURCE=1 OUT=$W/sass_counters timeout 200 bash validation/sass_counters/run_on_device.sh > "$W/sass_counters.log" 2>&1
echo "sass_counters rc=$?" | tee -a "$W/status.txt"
step ncu_source && timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --csv \
    --print-source sass --kernel-name regex:^s3_ python3 validation/timing/set3/run3.py --mode once \
    --only "${RUN9_NCU_ONLY:-attn_d64_128x64_w4_s3|mmtma_f16_128x256x64_w8_s3}" > "$W/ncu_source.csv" 2> "$W/ncu_source.log"
echo "ncu source rc=$?" | tee -a "$W/status.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> "$W/status.txt" 2>&1
tar czf "$OUT/run9.tar.gz" -C /tmp run9
cp "$W/status.txt" "$W/microbench9.log" "$OUT/" 2>/dev/null
cat "$W/status.txt"; tail -5 "$W/microbench9.log"
