#!/usr/bin/env bash
# On the GPU machine (one `run` call, timeout_s 590): OUT=... bash validation/device/session_pending.sh
# The checks still owed to a GPU, each in its own time cap, packed into $OUT/pending.tgz:
#   1. stream_overlap.cu natively (its streams warmed up first): the timeline of streams, events
#      and waits that runtime/gpu_clock.py predicts (tests/runtime/test_program_stream_overlap.py);
#   2. clock_rate.sh: %clock64 iterations a warp by warps an SM (semantics/clock.py);
#   3. on an H200 only: the thirty-eighth and fortieth microbenchmark batches (run on an H100 so far).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}; W=/tmp/pending; mkdir -p "$OUT" "$W"
cd "$ROOT"
step() { n=$1; shift; mkdir -p "$W/$n"; T0=$(date +%s); OUT=$W/$n "$@" > "$W/$n/stdout.txt" 2>&1;
         echo "$n rc=$? in $(( $(date +%s) - T0 )) s" | tee -a "$W/status.txt"; }
{ date -u; nvidia-smi; nvcc --version; } > "$W/environment.txt" 2>&1
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $NAME" | tee -a "$W/status.txt"
export LIBRARY_PATH=/usr/local/cuda/lib64/stubs
nvcc -arch=sm_90 -o /tmp/so tests/runtime/programs/stream_overlap.cu > "$W/so_build.txt" 2>&1
so() { for c in 20000 400000 2000000; do timeout 60 /tmp/so $c; echo "rc=$?"; done; }
step stream_overlap so
step stream_overlap_test env BUDGET=120 bash validation/programs/run_tests_native.sh tests/runtime/test_program_stream_overlap.py
step clock_rate timeout 150 bash validation/clock/clock_rate.sh
case "$NAME" in *H200*)
  step mb38 timeout 150 bash validation/timing/run38_device.sh
  step mb40 timeout 150 bash validation/timing/run40_device.sh ;;
esac
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$W/status.txt" 2>&1
tar czf "$OUT/pending.tgz" -C /tmp pending
cat "$W/status.txt"; tail -5 "$W"/stream_overlap/stdout.txt
