#!/usr/bin/env bash
# On the H200: OUT=somewhere bash validation/sass_counters/run_on_device.sh
# Everything lands in $OUT/sass_counters_results.tar.gz (+ $OUT/device_log.txt).
# The cubin it runs is validation/sass_counters/kernels.cubin (build_cubin.py, here).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
timeout 430 python3 run_on_device.py --collect "$OUT"
if [ ! -f "$OUT/sass_counters_results.tar.gz" ]; then   # cut short: pack what is there
    tar czf "$OUT/sass_counters_results.tar.gz" -C "$OUT" sass_counters
fi
ls -l "$OUT"
