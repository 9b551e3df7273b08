#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/atomics_order/run.sh
set -u
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/cas_order cas_order.cu && /tmp/cas_order | tee "${OUT:-.}/cas_order_native.txt"
