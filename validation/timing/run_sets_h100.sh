#!/usr/bin/env bash
# On an H100 (one `run` call): the three validation sets' cases under CUDA events and ncu, no
# microbenchmarks, to compare with warpsim's h100 preset (compare.py --card h100).
#   bash validation/timing/run_sets_h100.sh      -> $OUT/sets_h100.tar.gz
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
for s in 1 2 4; do
    WORK=/tmp/h100_set$s
    mkdir -p "$WORK"
    timeout 200 python3 run_on_device.py --collect "$WORK" --deadline 170 --set "$s" --skip-microbench \
        > "$WORK/device_log.txt" 2>&1
    cp "$WORK/device_log.txt" "$WORK/timing_results/" 2>/dev/null
    tail -3 "$WORK/device_log.txt"
done
tar czf "$OUT/sets_h100.tar.gz" -C /tmp h100_set1/timing_results h100_set2/timing_results h100_set4/timing_results
ls -l "$OUT"
