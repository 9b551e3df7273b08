#!/usr/bin/env bash
# On the H200: build encode_on_gpu.cu with the machine's nvcc, run it over cases.txt, and leave
# the driver's bytes in $OUT/tensor_maps_h200.jsonl (compared by tests/semantics/test_tensor_maps.py).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -o /tmp/encode_on_gpu encode_on_gpu.cu -lcuda
/tmp/encode_on_gpu cases.txt > "$OUT/tensor_maps_h200.jsonl"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/tensor_maps_gpu.txt"
