"""Launches per second of a trivial kernel, launched the way a user launches it.

    python bench/launch_rate.py                  # the table (wall clock and CPU time)
    python bench/launch_rate.py --count 5000     # more launches per pass
    python bench/launch_rate.py --repeat 1       # one pass a row (default: the median of 5)
    python bench/launch_rate.py --profile raw    # cProfile of one row's loop (raw, numba, elementwise)
    python bench/launch_rate.py --json out.json  # and keep the figures

Each row is one kernel of one store (`out[i] = v`) launched N times in a Python
loop with the default settings, warm: after HOT_BATCHES launches (20,000), by
which the default engine has compiled the kernel's blocks into machine code, as
in any loop that long and in every later process (Numba's disk cache keeps it).
The `first pass` column is the first N launches after 20, before that: the
blocks on the NumPy tier unless an earlier process compiled them. The rows: a
CuPy-API RawKernel (1 block of 32 and of 256 threads), the same
kernel through `warpsim.cuda.jit` on a device array (Numba's API), and an
ElementwiseKernel (`y = v` over 256 elements). Launches/s is by the wall clock,
what a user waits for, of the median of 5 passes; CPU µs per launch is this
process's CPU time (time.process_time) in that pass, which other work on a
shared machine inflates less: compare rows of one run.

The `runtime` row is a whole CUDA program (bench/launch_loop.cu, built once with
`warpsim nvcc` into a temporary folder; it needs g++) that launches the same
kernel with <<<1, 32>>> in a loop under `warpsim run` and times its own loop, so
the figures are those of warpsim's CUDA runtime (cudaLaunchKernel), not of this
process. It is left out with a note where the program cannot be built.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import warpsim as cp
from warpsim.machine.compiled.tier import HOT_BATCHES

STORE = r"""
extern "C" __global__ void store(int* out, int v) { out[threadIdx.x] = v; }
"""


def raw_case(threads: int):
    kernel = cp.RawKernel(STORE, "store")
    out = cp.zeros(threads, cp.int32)
    value = np.int32(7)

    def launch():
        kernel((1,), (threads,), (out, value))

    def check():
        assert (out.get() == 7).all()
    return launch, check


def numba_case(threads: int):
    from warpsim import cuda

    @cuda.jit
    def store(out, v):
        out[cuda.threadIdx.x] = v

    out = cuda.device_array(threads, dtype=np.int32)

    def launch():
        store[1, threads](out, 7)

    def check():
        assert (out.copy_to_host() == 7).all()
    return launch, check


def elementwise_case(threads: int):
    kernel = cp.ElementwiseKernel("int32 v", "int32 y", "y = v", "store_value")
    out = cp.zeros(threads, cp.int32)

    def launch():
        kernel(np.int32(7), out)

    def check():
        assert (out.get() == 7).all()
    return launch, check


def runtime_row(count: int) -> dict | None:
    """The runtime row: bench/launch_loop.cu built with `warpsim nvcc` and run under `warpsim run`
    (the program times its loop itself); None, with a note, where it cannot be built or run."""
    source = Path(__file__).with_name("launch_loop.cu")
    warpsim_cli = [sys.executable, "-m", "warpsim"]
    with tempfile.TemporaryDirectory() as folder:
        binary = Path(folder) / "launch_loop"
        built = subprocess.run([*warpsim_cli, "nvcc", str(source), "-o", str(binary)],
                               capture_output=True, text=True)
        if built.returncode or not binary.exists():
            print(f"runtime row left out: warpsim nvcc failed ({built.stderr.strip()[-300:]})")
            return None
        ran = subprocess.run([*warpsim_cli, "run", str(binary), str(count)], capture_output=True, text=True)
    fields = ran.stdout.split()
    if ran.returncode or len(fields) < 6 or fields[0] != "launches":
        print(f"runtime row left out: the program failed ({(ran.stdout + ran.stderr).strip()[-300:]})")
        return None
    wall, cpu = float(fields[3]), float(fields[5])
    return {"case": "CUDA runtime (warpsim run), <<<1, 32>>>", "key": "runtime", "launches": count,
            "launches_per_s": count / wall, "cpu_us_per_launch": cpu / count * 1e6,
            "cpu_launches_per_s": count / cpu}


CASES = {
    "raw": ("RawKernel, 1 block of 32 threads", raw_case, 32),
    "raw256": ("RawKernel, 1 block of 256 threads", raw_case, 256),
    "numba": ("warpsim.cuda.jit, 1 block of 32 threads", numba_case, 32),
    "elementwise": ("ElementwiseKernel, 256 elements", elementwise_case, 256),
}


def measure(name: str, count: int, repeat: int = 1) -> dict:
    """Launches/s by the wall clock and CPU µs per launch of `count` launches after warm-up ones;
    with repeat > 1, of the median of that many passes by the wall clock (on a shared machine a
    pass that another job's burst slowed is the outlier, not the figure)."""
    label, make, threads = CASES[name]
    launch, check = make(threads)
    for _ in range(20):
        launch()
    check()
    first = time.perf_counter()
    for _ in range(count):
        launch()
    first = time.perf_counter() - first
    for _ in range(HOT_BATCHES - count):      # warm: the blocks as a longer loop runs them (compiled)
        launch()
    passes = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            launch()
        passes.append((time.perf_counter() - wall, time.process_time() - cpu))
    check()
    wall, cpu = sorted(passes)[len(passes) // 2]
    return {"case": label, "key": name, "launches": count, "passes": repeat, "launches_per_s": count / wall,
            "cpu_us_per_launch": cpu / count * 1e6, "cpu_launches_per_s": count / cpu,
            "first_pass_launches_per_s": count / first}


def profile(name: str, count: int, rows: int) -> None:
    label, make, threads = CASES[name]
    launch, _ = make(threads)
    for _ in range(20):
        launch()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(count):
        launch()
    profiler.disable()
    print(f"cProfile of {count} launches: {label}")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="launches per pass")
    parser.add_argument("--repeat", type=int, default=5, help="passes per row (the median pass is shown)")
    parser.add_argument("--cases", default=",".join([*CASES, "runtime"]),
                        help="rows to run, comma-separated (runtime: a whole program under warpsim run)")
    parser.add_argument("--profile", choices=sorted(CASES), help="cProfile one row instead")
    parser.add_argument("--rows", type=int, default=40, help="functions the profile lists")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="Grid size")   # Numba's low-occupancy note
    if args.profile:
        profile(args.profile, args.count, args.rows)
        return 0
    load = os.getloadavg()[0]
    results = [measure(name, args.count, args.repeat) for name in args.cases.split(",") if name != "runtime"]
    if "runtime" in args.cases.split(","):
        row = runtime_row(args.count)
        results += [row] if row else []
    print(f"{args.count} launches a pass, the median of {args.repeat} passes a row "
          f"(runtime: one pass), load average {load:.1f} before the run")
    print(f"{'case':<42} {'launches/s (wall)':>18} {'CPU us/launch':>14} {'launches/s (CPU)':>17} "
          f"{'first pass (wall)':>18}")
    for row in results:
        first = f"{row['first_pass_launches_per_s']:,.0f}" if "first_pass_launches_per_s" in row else ""
        print(f"{row['case']:<42} {row['launches_per_s']:>18,.0f} {row['cpu_us_per_launch']:>14.1f} "
              f"{row['cpu_launches_per_s']:>17,.0f} {first:>18}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"load_average": load, "rows": results}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
