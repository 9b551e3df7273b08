#!/usr/bin/env bash
# On the H200 (one `run` call, timeout_s 200):  bash validation/device/microbench8_second.sh
# The eighth batch's second run: TMA with the tensor map in constant memory, ldmatrix/stmatrix with
# every load kept, and the lean cp.async kernels, into $OUT/microbench8_second.json and its log.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
MB8_SECTIONS=matrix_moves,cp_async_lean,tma MB8_OUTPUT=microbench8_second.json \
    timeout 170 python3 run_microbench8.py --collect "$OUT" > "$OUT/microbench8_second.log" 2>&1
echo "collect rc=$?" >> "$OUT/microbench8_second.log"
tail -3 "$OUT/microbench8_second.log"
