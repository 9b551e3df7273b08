#!/usr/bin/env bash
# What every microbenchmark batch's device script does (sourced by runNN_device.sh, on the GPU, one
# `run` call): the card's name and clocks, microbenchN.cu compiled for sm_90, each configuration timed
# by CUDA events (run_microbenchN.py --collect), then launched once under ncu with the batch's metrics
# and the ratio of each stall reason named, into $OUT (microbenchN.log, .json, _ncu.csv).
#
#   device_batch N METRICS "STALL REASONS" [EVENTS_TIMEOUT_S] [NCU_TIMEOUT_S]
# (MICROBENCH_ARCH=sm_90a for a batch whose kernels use wgmma; sm_90 otherwise)
set -u

device_batch() {
    local n=$1 metrics=$2 stalls=$3 events_timeout=${4:-150} ncu_timeout=${5:-400}
    local out=${OUT:-out} log
    mkdir -p "$out"
    log="$out/microbench$n.log"
    cd "$(dirname "${BASH_SOURCE[0]}")" || return 1
    nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$log" 2>&1
    nvcc -arch="${MICROBENCH_ARCH:-sm_90}" -cubin -o "microbench$n.cubin" "microbench$n.cu"
    timeout "$events_timeout" python3 "run_microbench$n.py" --collect "$out" >> "$log" 2>&1
    echo "events rc=$?"
    for s in $stalls; do
        metrics=$metrics,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
    done
    timeout "$ncu_timeout" ncu --clock-control none --csv --page raw --kernel-name "regex:mb$n" --metrics "$metrics" \
        --log-file "$out/microbench${n}_ncu.csv" python3 "run_microbench$n.py" --once >> "$log" 2>&1
    echo "ncu rc=$?"
    tail -8 "$log"
}
