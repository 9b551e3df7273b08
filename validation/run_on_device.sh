#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, CuPy and Nsight Compute: profile the
# validation kernels and write what compare_metrics.py reads.
#   OUT=somewhere bash validation/run_on_device.sh
# Writes $OUT/ncu_metrics.csv (ncu --csv), the SASS and ptxas -v of the kernels,
# and the tool versions. Metrics the installed ncu does not know are dropped
# (ncu refuses a whole run over one unknown name).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-validation/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

{ nvidia-smi; ncu --version; nvcc --version; python3 -c "import cupy; print('cupy', cupy.__version__)"; } \
    > "$OUT/environment.txt" 2>&1

ncu --query-metrics > "$OUT/ncu_query.txt" 2>&1
awk '{print $1}' "$OUT/ncu_query.txt" > /tmp/known_base.txt

metrics_all=$(python3 validation/ncu_metrics.py --metrics)
profile() {   # $1: metric list; writes the raw ncu output to $OUT/ncu_raw.txt
    ncu --clock-control none --kernel-name regex:^ws_ --metrics "$1" --csv \
        python3 validation/ncu_metrics.py > "$OUT/ncu_raw.txt" 2> "$OUT/ncu_stderr.txt"
}
profile "$metrics_all"
if ! grep -q '"ws_' "$OUT/ncu_raw.txt"; then
    echo "full metric list refused; retrying with the ones ncu lists (plus launch__*)" >> "$OUT/environment.txt"
    cp "$OUT/ncu_raw.txt" "$OUT/ncu_raw_first.txt"
    kept=$(python3 - <<'EOF'
import sys; sys.path.insert(0, "validation")
from ncu_metrics import METRICS
known = set(open("/tmp/known_base.txt").read().split())
print(",".join(m for m in METRICS if m.startswith("launch__") or m.split(".")[0] in known))
EOF
)
    profile "$kept"
fi
grep '^"' "$OUT/ncu_raw.txt" > "$OUT/ncu_metrics.csv"

nvcc -arch=sm_90 -cubin -Xptxas -v -o /tmp/kernels.cubin validation/kernels.cu > "$OUT/ptxas_v.txt" 2>&1
cuobjdump -sass /tmp/kernels.cubin > "$OUT/sass.txt" 2>&1
wc -l "$OUT"/*
