#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run65_device.sh
# The sixty-third microbenchmark batch: what the cost of a split inside a split grows with (the outer branch taking 2 to 31 lanes).
. "$(dirname "$0")/device_batch.sh"
device_batch 65 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    "branch_resolving wait no_instruction selected not_selected short_scoreboard"
