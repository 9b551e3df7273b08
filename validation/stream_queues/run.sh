#!/usr/bin/env bash
# On the GPU machine: OUT=... bash validation/stream_queues/run.sh -> $OUT/stream_queues.txt
# Here: NVCC="warpsim nvcc" RUN="warpsim run" OUT=... bash validation/stream_queues/run.sh
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
$NVCC -arch=sm_90 -o /tmp/stream_queues "$(dirname "$0")/stream_queues.cu" || exit 1
for connections in default 1 4 8 16 32; do
  echo "== CUDA_DEVICE_MAX_CONNECTIONS=$connections"
  if [ "$connections" = default ]; then timeout 120 ${RUN:-} /tmp/stream_queues ${CYCLES:-2000000}
  else CUDA_DEVICE_MAX_CONNECTIONS=$connections timeout 120 ${RUN:-} /tmp/stream_queues ${CYCLES:-2000000}; fi
done > "$OUT/stream_queues.txt" 2>&1
cat "$OUT/stream_queues.txt"
