#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/timing/run19_device.sh
# The nineteenth microbenchmark batch: L1 capacity under dependent sweeps, local-memory histograms;
# event times and clock64 spans, then under ncu with L1 hit counts and the carve-out.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT/validation/timing"
nvcc -arch=sm_90 -cubin -o microbench19.cubin microbench19.cu && cp microbench19.cubin "$OUT/"
timeout 200 python3 run_microbench19.py --collect "$OUT" > "$OUT/microbench19.log" 2>&1
echo "events rc=$?"
T=l1tex__t_sectors_pipe_lsu_mem_
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,launch__shared_mem_config_size,\
${T}global_op_ld.sum,${T}global_op_ld_lookup_hit.sum,${T}global_op_st.sum,\
${T}local_op_ld.sum,${T}local_op_ld_lookup_hit.sum,${T}local_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed.sum,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
timeout 300 ncu --clock-control none --csv --page raw --kernel-name regex:^mb19_ --metrics "$METRICS" \
    python3 run_microbench19.py --once > "$OUT/microbench19_ncu.csv" 2>> "$OUT/microbench19.log"
echo "ncu rc=$?"
echo "$METRICS" > "$OUT/metrics19.txt"
tail -45 "$OUT/microbench19.log"
