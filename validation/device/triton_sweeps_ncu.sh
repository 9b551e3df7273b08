#!/usr/bin/env bash
# On the H200 (one `run` call):  bash validation/device/triton_sweeps_ncu.sh
# The Triton sweeps' kernel times: ncu gpu__time_duration (cold L2, as warpsim predicts) of each
# configuration's second launch (SWEEP_MODE=once), and do_bench_cudagraph medians (warm, no launch
# overhead). Results in $OUT/triton_sweeps_ncu.csv, $OUT/h200_sweeps_cudagraph.json and the logs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT"
export TRITON_CACHE_DIR=/tmp/triton_cache_ncu
SWEEP_MODE=once timeout 120 python3 validation/triton_do_bench/sweeps.py > "$OUT/h200_sweeps_once.json" 2> "$OUT/h200_sweeps_ncu.log"
SWEEP_MODE=once timeout 240 ncu --clock-control none --csv --page raw --kernel-name regex:"softmax|matmul" \
    --metrics ${METRICS:-gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,launch__block_size} \
    --log-file "$OUT/triton_sweeps_ncu.csv" python3 validation/triton_do_bench/sweeps.py >> "$OUT/h200_sweeps_ncu.log" 2>&1
SWEEP_MODE=cudagraph timeout 150 python3 validation/triton_do_bench/sweeps.py > "$OUT/h200_sweeps_cudagraph.json" 2>> "$OUT/h200_sweeps_ncu.log"
tail -5 "$OUT/h200_sweeps_ncu.log"; grep -c '"softmax\|"matmul' "$OUT/triton_sweeps_ncu.csv"
