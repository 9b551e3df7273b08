#!/usr/bin/env bash
# On the H200 (one `run` call, timeout_s 540):  bash validation/device/set2_and_sweeps.sh
# 1. the second timing validation set (validation/timing/cases2.py): CUDA events and ncu, raw outputs in
#    $OUT/timing_results.tar.gz (validation/timing/h200/set2/ once unpacked here);
# 2. the Triton configuration sweeps (validation/triton_do_bench/sweeps.py) and do_bench_kernels.py twice
#    (the H200's own run-to-run spread), with Triton's cache (the cubins the H200 ran) packed beside them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
export TRITON_CACHE_DIR=/tmp/triton_cache
( cd "$ROOT" && timeout 200 python3 validation/triton_do_bench/sweeps.py > "$OUT/h200_sweeps.json" 2> "$OUT/h200_sweeps.log"
  for k in 1 2; do
      timeout 90 python3 validation/triton_do_bench/do_bench_kernels.py > "$OUT/h200_do_bench_run$k.json" 2>> "$OUT/h200_sweeps.log"
  done
  tar czf "$OUT/triton_cache.tar.gz" -C /tmp triton_cache ) 
OUT="$OUT" WORK=/tmp/set2_work BUDGET=260 bash "$ROOT/validation/timing/run_on_device.sh" --set 2 --skip-microbench > /dev/null
ls -l "$OUT"
