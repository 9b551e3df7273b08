"""The issue-12 speed targets, NumPy tier against compiled tier, measured in one run.

    python bench/engine_tiers.py                   # prints the table
    python bench/engine_tiers.py --json out.json   # and keeps the figures
    python bench/engine_tiers.py --quick           # skip Numba's simulator and the 16M launch

Seconds are CPU seconds of this process (time.process_time), so other work on
a loaded machine inflates them less than wall-clock time would; the load
average is printed with the table. Every case runs once to compile (and to
fill the disk cache of compiled blocks), then is timed; ratios between rows
of one run are what to compare (profiling rows: the best of three). Numba's
CUDA simulator and the 16M-thread launch run in their own processes (peak
memory belongs to one launch).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

import warpsim as cp
import warpsim.demo

KERNELS = pathlib.Path(warpsim.demo.__file__).parent / "kernels"
HERE = pathlib.Path(__file__).parent
FMA_LOOP = r"""
extern "C" __global__ void fma_loop(float* out, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i;
    for (int k = 0; k < n; ++k) x = fmaf(x, a, b);
    out[i] = x;
}
"""
HISTOGRAM = r"""
extern "C" __global__ void histogram(const unsigned* x, unsigned* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i] & 255u], 1u);
}
"""
TRIVIAL = r"""
extern "C" __global__ void trivial(int* out) { out[threadIdx.x] = threadIdx.x; }
"""
CUDASIM = r"""
import sys, time
import numpy as np
from numba import cuda, float32
@cuda.jit(device=True)
def heavy(x, n):
    for _ in range(n):
        x = x * float32(1.000001) + float32(0.5)
    return x
@cuda.jit
def branch_on_lane(out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    v = float32(i)
    if cuda.threadIdx.x % 2 == 0:
        v = heavy(v, n)
    else:
        v = heavy(v + float32(1.0), n)
    out[i] = v
threads, n = int(sys.argv[1]), int(sys.argv[2])
out = cuda.device_array(threads, dtype=np.float32)
start = time.process_time()
branch_on_lane[threads // 256, 256](out, n)
cuda.synchronize()
print(time.process_time() - start)
"""


def timed(function, grid, block, args, engine: str, repeat: int = 1):
    """(thread instructions, CPU seconds) of the last of `repeat` launches after a warm-up one."""
    with cp.settings(engine=engine):
        function(grid, block, args)
        start = time.process_time()
        for _ in range(repeat):
            function(grid, block, args)
        seconds = (time.process_time() - start) / repeat
    return function.last_launch.thread_instructions, seconds


def throughput_cases(rows):
    n = 1 << 20
    fma = cp.RawModule(code=FMA_LOOP).get_function("fma_loop")
    block_sum = cp.RawModule(path=str(KERNELS / "reduction.cu")).get_function("block_sum")
    divergence = cp.RawModule(path=str(KERNELS / "divergence.cu"))
    branch_on_lane = divergence.get_function("branch_on_lane")
    per_token = cp.RawModule(path=str(KERNELS / "loops.cu")).get_function("per_token")
    rng = np.random.default_rng(0)
    out = cp.zeros(n, cp.float32)
    x = cp.asarray(rng.random(n, dtype=np.float32))
    total = cp.zeros(1, cp.float32)
    lengths = cp.asarray(rng.integers(1, 16, n).astype(np.int32))
    tokens = cp.asarray(rng.random(16 * n, dtype=np.float32))
    histogram = cp.RawModule(code=HISTOGRAM).get_function("histogram")
    words = cp.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
    bins = cp.zeros(256, cp.uint32)
    cases = [
        ("uniform FMA loop n=100", fma, (out, np.float32(1.000001), np.float32(0.5), np.int32(100)),
         1e9),
        ("block_sum", block_sum, (x, total, np.int32(n)), 3e8),
        ("branch_on_lane n=20", branch_on_lane, (out, np.int32(20)), 3e8),
        ("variable-length loop", per_token, (lengths, tokens, out, np.int32(n)), 3e8),
        ("atomicAdd histogram, 256 bins", histogram, (words, bins, np.int32(n)), None),
    ]
    for name, function, args, target in cases:
        figures = {}
        for engine in ("numpy", "compiled"):
            inst, seconds = timed(function, (n // 256,), (256,), args, engine)
            figures[engine] = (inst, seconds)
        inst, seconds = figures["compiled"]
        rows.append({"case": f"{name}, 1M threads", "thread_instructions": inst,
                     "numpy_s": figures["numpy"][1], "compiled_s": seconds,
                     "numpy_rate": inst / figures["numpy"][1], "rate": inst / seconds,
                     "target": f">= {target:.0e} thread-inst/s" if target else "no target (global atomics)",
                     "met": inst / seconds >= target if target else None})
    return branch_on_lane


def against_cudasim(rows, branch_on_lane, quick: bool):
    threads, n = 4096, 100
    out = cp.zeros(threads, cp.float32)
    inst, seconds = timed(branch_on_lane, (threads // 256,), (256,), (out, np.int32(n)), "compiled",
                          repeat=5)
    numpy_inst, numpy_seconds = timed(branch_on_lane, (threads // 256,), (256,), (out, np.int32(n)),
                                      "numpy", repeat=3)
    row = {"case": "branch_on_lane, 4096 threads, n=100", "thread_instructions": inst,
           "numpy_s": numpy_seconds, "compiled_s": seconds, "rate": inst / seconds,
           "numpy_rate": inst / numpy_seconds, "target": ">= 1000x Numba's simulator"}
    if not quick:
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
        done = subprocess.run([sys.executable, "-c", CUDASIM, str(threads), str(n)], env=env,
                              capture_output=True, text=True, timeout=1200)
        sim = float(done.stdout.strip().splitlines()[-1])
        row.update(cudasim_s=sim, ratio=sim / seconds, numpy_ratio=sim / numpy_seconds,
                   met=sim / seconds >= 1000)
    rows.append(row)


def small_launches(rows):
    trivial = cp.RawModule(code=TRIVIAL).get_function("trivial")
    out = cp.zeros(32, cp.int32)
    for engine in ("numpy", "compiled"):
        with cp.settings(engine=engine):
            trivial((1,), (32,), (out,))
            count, start = 2000, time.process_time()
            for _ in range(count):
                trivial((1,), (32,), (out,))
            per_second = count / (time.process_time() - start)
        if engine == "numpy":
            numpy_rate = per_second
    rows.append({"case": "trivial kernel, 1 block of 32 threads", "numpy_rate": numpy_rate,
                 "rate": per_second, "unit": "launches/s", "target": ">= 20,000 launches/s",
                 "met": max(per_second, numpy_rate) >= 20000})
    # A new kernel's first launch: parse, check, generate and compile its blocks (NumPy tier).
    ptx = _ptx_of(cp.RawModule(path=str(KERNELS / "divergence.cu")).get_function("branch_on_lane"))
    out = cp.zeros(20 * 256, cp.float32)
    with cp.settings(engine="numpy"):
        start = time.process_time()
        fresh = cp.RawModule(ptx=ptx + f"\n// {time.time()}\n").get_function("branch_on_lane")
        fresh((20,), (256,), (out, np.int32(20)))
        seconds = time.process_time() - start
    rows.append({"case": "first launch of a new kernel (PTX loaded, NumPy tier), 20 blocks",
                 "seconds": seconds, "target": "<= 50 ms", "met": seconds <= 0.05})


def _ptx_of(function) -> str:
    """The PTX text a loaded kernel came from."""
    from warpsim.ptx.printer import format_module
    return format_module(function.loaded_module.module)


def memory_and_profiling(rows, quick: bool):
    if not quick:
        done = subprocess.run([sys.executable, str(HERE / "memory.py"), "16"], capture_output=True,
                              text=True, timeout=1200)
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
        peak = float(line.split("peak RSS ")[1].split(" MB")[0]) if "peak RSS" in line else None
        rows.append({"case": "16M-thread launch (saxpy)", "peak_mb": peak, "detail": line,
                     "target": "peak memory <= 2 GB", "met": peak is not None and peak <= 2048})
    branch_on_lane = cp.RawModule(path=str(KERNELS / "divergence.cu")).get_function("branch_on_lane")
    out = cp.zeros(1 << 18, cp.float32)
    args = (out, np.int32(20))
    for level in ("ptx", "sass"):
        for engine in ("numpy", "compiled"):
            off = min(timed(branch_on_lane, (1024,), (256,), args, engine)[1] for _ in range(3))
            with cp.profile(level=level):
                on = min(timed(branch_on_lane, (1024,), (256,), args, engine)[1] for _ in range(3))
            what = "PTX counters" if level == "ptx" else "SASS counters, the default: the SASS run alone"
            rows.append({"case": f"profiling on vs off ({what}), branch_on_lane 256K threads ({engine})",
                         "off_s": off, "on_s": on, "ratio": on / off, "target": "<= 1.5x",
                         "met": on / off <= 1.5})


def show(rows, load: str):
    print(f"machine load: {load}")
    for r in rows:
        figures = []
        if "compiled_s" in r:
            figures.append(f"numpy {r['numpy_rate']:.2e}/s ({r['numpy_s']:.3f} s), "
                           f"compiled {r['rate']:.2e}/s ({r['compiled_s']:.3f} s), "
                           f"x{r['numpy_s'] / r['compiled_s']:.1f}")
        if "ratio" in r and "cudasim_s" in r:
            figures.append(f"Numba simulator {r['cudasim_s']:.2f} s: x{r['ratio']:.0f} compiled, "
                           f"x{r['numpy_ratio']:.0f} numpy")
        if r.get("unit") == "launches/s":
            figures.append(f"numpy {r['numpy_rate']:.0f}/s, compiled {r['rate']:.0f}/s")
        if "seconds" in r:
            figures.append(f"{r['seconds'] * 1e3:.0f} ms")
        if "peak_mb" in r:
            figures.append(r["detail"])
        if "off_s" in r:
            figures.append(f"off {r['off_s']:.3f} s, on {r['on_s']:.3f} s, x{r['ratio']:.2f}")
        met = {True: "met", False: "NOT met"}.get(r.get("met"), "")
        print(f"- {r['case']}: {'; '.join(figures)}  [{r['target']}: {met}]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--quick", action="store_true", help="skip Numba's simulator and the 16M launch")
    options = parser.parse_args()
    load = open("/proc/loadavg").read().strip() if os.path.exists("/proc/loadavg") else "?"
    rows = []
    branch_on_lane = throughput_cases(rows)
    against_cudasim(rows, branch_on_lane, options.quick)
    small_launches(rows)
    memory_and_profiling(rows, options.quick)
    show(rows, load)
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps({"load": load, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
