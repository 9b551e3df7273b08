#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run15_device.sh
# The fifteenth microbenchmark batch under ncu (the pipe of each conversion), and the fourteenth
# again (its runner now counts both warpgroups' tensor-core time).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench15.cubin microbench15.cu
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb15_ --metrics \
gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum,\
sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fmaheavy.sum,\
sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_fp16.sum,sm__inst_executed_pipe_fp64.sum,\
sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed,\
smsp__issue_active.avg.pct_of_peak_sustained_active \
    python3 run_microbench15.py --once > "$OUT/microbench15_ncu.csv" 2> "$OUT/microbench15.log"
echo "mb15 ncu rc=$?"
nvcc -arch=sm_90a -cubin -o microbench14.cubin microbench14.cu 2>/dev/null
timeout 100 python3 run_microbench14.py --collect "$OUT" > "$OUT/microbench14.log" 2>&1
echo "mb14 rc=$?"; tail -4 "$OUT/microbench15.log"; tail -10 "$OUT/microbench14.log"
