#!/usr/bin/env bash
# On the H200, from the repository root: OUT=somewhere bash validation/shared_wavefronts/run_device.sh
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT/shared_wavefronts"
python3 run.py check > "$OUT/shared_wavefronts/check.txt" 2>&1
ncu --clock-control none --csv --page raw \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum \
    python3 run.py launch > "$OUT/shared_wavefronts/ncu.csv" 2> "$OUT/shared_wavefronts/ncu.log"
nvidia-smi > "$OUT/shared_wavefronts/environment.txt" 2>&1
tar czf "$OUT/shared_wavefronts.tar.gz" -C "$OUT" shared_wavefronts
ls -l "$OUT"
