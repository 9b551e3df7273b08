#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run54_device.sh
# The fifty-fourth microbenchmark batch: full-occupancy streams by size and by reads and writes.
. "$(dirname "$0")/device_batch.sh"
device_batch 54 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    "long_scoreboard lg_throttle wait not_selected selected"
