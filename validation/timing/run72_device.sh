#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run72_device.sh
# The seventy-second microbenchmark batch: two warpgroups of an attention step, the second started later.
. "$(dirname "$0")/device_batch.sh"
MICROBENCH_ARCH=sm_90a device_batch 72 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
    "wait barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle dispatch_stall not_selected gmma selected"
