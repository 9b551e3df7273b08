#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run60_device.sh
# The sixtieth microbenchmark batch: atomic counters placed 0-768 bytes past a 1 KB boundary.
. "$(dirname "$0")/device_batch.sh"
device_batch 60 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,lts__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum,lts__t_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    "long_scoreboard lg_throttle drain wait selected"
