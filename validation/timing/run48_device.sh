#!/usr/bin/env bash
# On a GPU (one `run` call): OUT=... bash validation/timing/run48_device.sh
# The forty-eighth batch: run_on_device.py's first microbenchmarks (clock, ALU and memory latency,
# throughput, HBM copy and L2 read bandwidth, launch overhead), which measured the H200's preset, on
# the lent card: its figures for the presets that took the H200's or derived them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$OUT/microbench48.log" 2>&1
timeout 400 python3 -c "
import time, sys, cupy as cp
import run_on_device as r
mods = r.load_modules(cp)
res, _ = r.run_microbench(cp, mods, sys.argv[1], time.time() + 360)
import os; os.replace(os.path.join(sys.argv[1], 'microbench.json'), os.path.join(sys.argv[1], 'microbench48.json'))
" "$OUT" >> "$OUT/microbench48.log" 2>&1
echo "rc=$?"
tail -30 "$OUT/microbench48.log"
