#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run69_device.sh
# The sixty-ninth microbenchmark batch: an attention loop's softmax issue alone.
. "$(dirname "$0")/device_batch.sh"
device_batch 69 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
    "wait short_scoreboard dispatch_stall math_pipe_throttle mio_throttle not_selected selected no_instruction"
