#!/usr/bin/env bash
# On the GPU (one `run` call): OUT=... bash validation/timing/run70_device.sh
# The seventieth microbenchmark batch: a persistent CTA's later passes over cold and read tiles.
. "$(dirname "$0")/device_batch.sh"
device_batch 70 gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
    "long_scoreboard barrier wait short_scoreboard mio_throttle lg_throttle"
