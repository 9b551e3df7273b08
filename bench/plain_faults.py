"""Page faults and CPU time of plain launches, in a process that makes nothing but plain launches.

    taskset -c 0 python bench/plain_faults.py [repeat]

The kernels of bench/sass_profiling.py (65,536 threads each) launch the way a
user launches them, on the compiled tier (the default) and on the NumPy tier
(settings engine='numpy'); each runs twice to compile and warm, then `repeat`
times (default 10), and the minor page faults (getrusage's ru_minflt) and CPU
milliseconds (time.process_time) per launch are printed, their median over the
launches. A fault costs about 4 us (a 4 KB page mapped at its first write): a
launch whose temporaries come from fresh mappings pays it on every page.
"""

from __future__ import annotations

import os
import resource
import sys
import time

import numpy as np

import warpsim as cp
from sass_profiling import launches


def per_launch(launch, repeat: int) -> tuple:
    """(median faults, median CPU ms) of `repeat` launches, after two that compile and warm."""
    launch()
    launch()
    faults, cpu = [], []
    for _ in range(repeat):
        before_faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        before_cpu = time.process_time()
        launch()
        cpu.append(time.process_time() - before_cpu)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before_faults)
    return float(np.median(faults)), float(np.median(cpu)) * 1e3


def main(repeat: int = 10) -> None:
    n = 65536
    cases = launches(n)
    print(f"{n} threads a launch; median of {repeat} launches; load average {os.getloadavg()[0]:.1f}")
    print(f"{'kernel':<16}{'compiled: faults':>17}{'CPU ms':>8}{'numpy: faults':>15}{'CPU ms':>8}")
    for name, launch in cases.items():
        compiled = per_launch(launch, repeat)
        with cp.settings(engine="numpy"):
            numpy_tier = per_launch(launch, repeat)
        print(f"{name:<16}{compiled[0]:>17.0f}{compiled[1]:>8.1f}{numpy_tier[0]:>15.0f}{numpy_tier[1]:>8.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
