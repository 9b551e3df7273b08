#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run14_device.sh
# The fourteenth microbenchmark batch: the SM clock by tensor-core duty and data, from the kernels' own
# clocks, then each configuration once under ncu (its sm__cycles_elapsed.avg.per_second, as set 3 has it).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90a -cubin -o microbench14.cubin microbench14.cu
timeout 200 python3 run_microbench14.py --collect "$OUT" > "$OUT/microbench14.log" 2>&1
echo "clocks rc=$?"
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb14_ --metrics \
gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,\
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed \
    python3 run_microbench14.py --once > "$OUT/microbench14_ncu.csv" 2>> "$OUT/microbench14.log"
echo "ncu rc=$?"; cat "$OUT/microbench14.log" | tail -15
