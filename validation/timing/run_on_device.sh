#!/usr/bin/env bash
# On the H200 (one `run` call):  OUT=somewhere bash validation/timing/run_on_device.sh
# Results: $OUT/timing_results.tar.gz (raw JSON/CSV, ncu output, environment) and $OUT/device_log.txt.
# The cubins it loads are built here by build.sh (nvcc 13.0); nvcc there rebuilds them if they do not load.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
WORK=${WORK:-/tmp/timing_work}
BUDGET=${BUDGET:-490}
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1
timeout $((BUDGET + 25)) python3 run_on_device.py --collect "$WORK" --deadline "$BUDGET" "$@" 2>&1 | tee "$OUT/device_log.txt"
cp "$OUT/device_log.txt" "$WORK/timing_results/" 2>/dev/null
tar czf "$OUT/timing_results.tar.gz" -C "$WORK" timing_results   # again, with the log (and after a cut-short run)
ls -l "$OUT" "$WORK/timing_results"
