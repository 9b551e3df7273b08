#!/usr/bin/env bash
# On the GPU machine (one `run` call with carry [".whl"], timeout_s 590), CPU only:
#   OUT=... bash validation/device/scaleout_cores.sh
# bench/scaleout_histogram.py where two workers have two cores of their own (the machine has 16):
# the 2-core machine here runs two simulations side by side 10-26% slower each. Dask and what it
# needs that the image lacks travel as wheels (.whl, fetched here by pip download; not committed).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD NUMBA_CACHE_DIR=/tmp/numba_cache
{ nproc; uptime; python3 -c "import warpsim, dask, distributed, numba, numpy; print('dask', dask.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"; } > "$OUT/scaleout_environment.txt" 2>&1
cat "$OUT/scaleout_environment.txt"
for iters in 128 16; do
  echo "== --iters $iters"
  timeout 260 python3 bench/scaleout_histogram.py --iters $iters --repeats 3
  echo "rc=$?"
done 2>&1 | tee "$OUT/scaleout_histogram.txt"
