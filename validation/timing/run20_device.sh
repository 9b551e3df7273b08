#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run20_device.sh
# The twentieth microbenchmark batch: stores writing parts of the same sectors one after another;
# event times, then under ncu the L2's write sectors and requests and HBM's bytes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench20.cubin microbench20.cu && cp microbench20.cubin "$OUT/"
timeout 120 python3 run_microbench20.py --collect "$OUT" > "$OUT/microbench20.log" 2>&1
echo "events rc=$?"
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,\
lts__t_sectors.sum,dram__bytes_write.sum,dram__bytes_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 200 ncu --clock-control none --csv --page raw --kernel-name regex:^mb20_ --metrics "$METRICS" \
    python3 run_microbench20.py --once > "$OUT/microbench20_ncu.csv" 2>> "$OUT/microbench20.log"
echo "ncu rc=$?"; cat "$OUT/microbench20.log"
