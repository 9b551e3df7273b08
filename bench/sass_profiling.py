"""How much slower profiling with the SASS executor is than a plain run, and than PTX-level profiling.

    python bench/sass_profiling.py [scale]
    python bench/sass_profiling.py --fused [scale]

Each kernel runs plainly, under warpsim.profile(level='ptx'), under
warpsim.profile(level='sass') with verification (settings sass_verify=True:
its SASS runs beside the PTX run on a copy of device memory, and the two are
compared) and without it (sass_verify=False: the SASS run alone is the
launch); the best of five of each is printed, with the ratios, all measured
in this one run. The seconds are by the wall clock. The last columns are by this
process's CPU time, which other jobs on a shared machine disturb less: nine
plain launches and nine SASS-alone ones, interleaved, their medians (ms) and
ratio; then the SASS-alone run again with the SASS executor's NumPy steps only (settings
engine='numpy', which leaves its compiled tier out), against the same plain run. The load
average is printed first.

--fused: the SASS run alone with the program's generated segments (sass/compiled/fused.py) and
without them (every segment on the tile), 15 launches of each interleaved in this one process, CPU
medians: a shared machine's speed drifts between runs more than the difference.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import warpsim as cp
from timer import best_of as _best_of


def best_of(fn):
    return _best_of(fn, repeat=5)     # a shared machine: five tries each


def cpu_medians(first, second, repeat: int = 9) -> tuple:
    """Median CPU seconds of `repeat` calls of each, interleaved (so a burst of other work
    lands on both alike)."""
    times = ([], [])
    for _ in range(repeat):
        for fn, kept in zip((first, second), times):
            start = time.process_time()
            fn()
            kept.append(time.process_time() - start)
    return float(np.median(times[0])), float(np.median(times[1]))


SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void block_sum(const float* x, float* out) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = tile[0];
}
extern "C" __global__ void divergent_loop(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    for (int k = 0; k < (v & 15); ++k) v = v * 3 + k;
    out[i] = v;
}
extern "C" __global__ void collatz(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = x[i] + 1;
    int steps = 0;
    while (v != 1 && steps < 200) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++steps; }
    out[i] = steps;
}
extern "C" __global__ void row_dot(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float total = 0.0f;
    for (int k = 0; k < n; ++k) total += a[(i & 1023) * n + k] * b[k * 64 + (i & 63)];
    out[i] = total;
}
"""



def launches(n: int) -> dict:
    """Name -> a launch of that kernel over n threads, on random inputs (bench/plain_faults.py too)."""
    module = cp.RawModule(code=SOURCE)
    rng = np.random.default_rng(0)
    x = cp.asarray(rng.random(n, dtype=np.float32))
    y = cp.asarray(rng.random(n, dtype=np.float32))
    keys = cp.asarray(rng.integers(0, 1000, n).astype(np.int32))
    out_i = cp.zeros(n, dtype=np.int32)
    out_f = cp.zeros(n // 256, dtype=np.float32)
    rows = cp.asarray(rng.random(1024 * 32, dtype=np.float32))
    out_f_n = cp.zeros(n, dtype=np.float32)
    cases = {
        "saxpy": lambda: module.get_function("saxpy")((n // 256,), (256,), (np.float32(2), x, y, np.int32(n))),
        "block_sum": lambda: module.get_function("block_sum")((n // 256,), (256,), (x, out_f)),
        "divergent_loop": lambda: module.get_function("divergent_loop")((n // 256,), (256,), (keys, out_i)),
        "collatz": lambda: module.get_function("collatz")((n // 256,), (256,), (keys, out_i)),
        "row_dot": lambda: module.get_function("row_dot")((n // 256,), (256,), (rows, x, out_f_n, np.int32(32))),
    }
    return cases


def main(scale: int = 1) -> None:
    n = 65536 * scale
    cases = launches(n)
    print(f"{n} threads per launch; best of 5 (seconds); load average {os.getloadavg()[0]:.1f}")
    print(f"{'kernel':<16}{'plain':>9}{'ptx prof':>10}{'verified':>10}{'alone':>9}{'verified/plain':>16}"
          f"{'alone/plain':>13}{'CPU ms: plain':>15}{'alone':>7}{'ratio':>7}{'NumPy steps':>13}{'ratio':>7}"
          "  level, execution")
    for name, launch in cases.items():
        launch()                                        # compile, load, warm the block caches
        with cp.profile(level="sass") as prof:
            launch()                                    # decode the SASS once
        with cp.settings(sass_verify=False), cp.profile(level="sass") as alone_prof:
            launch()
        plain = best_of(launch)

        def profiled(level, verify=True):
            def run():
                with cp.settings(sass_verify=verify), cp.profile(level=level):
                    launch()
            return run
        ptx = best_of(profiled("ptx"))
        verified = best_of(profiled("sass"))
        alone = best_of(profiled("sass", verify=False))
        cpu_plain, cpu_alone = cpu_medians(launch, profiled("sass", verify=False))

        def on_numpy_steps():
            with cp.settings(engine="numpy"):
                profiled("sass", verify=False)()
        on_numpy_steps()
        _, cpu_numpy = cpu_medians(launch, on_numpy_steps, repeat=5)
        print(f"{name:<16}{plain:>9.3f}{ptx:>10.3f}{verified:>10.3f}{alone:>9.3f}{verified / plain:>15.2f}x"
              f"{alone / plain:>12.2f}x{cpu_plain * 1e3:>15.1f}{cpu_alone * 1e3:>7.1f}{cpu_alone / cpu_plain:>6.2f}x"
              f"{cpu_numpy * 1e3:>13.1f}{cpu_numpy / cpu_plain:>6.2f}x  {prof[0].level}, {alone_prof[0].execution}")

def fused_against_tile(scale: int = 1, repeat: int = 15) -> None:
    import warpsim.sass.executor.launch as sass_launch
    chosen = sass_launch.fused_for
    use = {"fused": True}
    sass_launch.fused_for = lambda *args, **kwargs: chosen(*args, **kwargs) if use["fused"] else None
    print(f"{65536 * scale} threads per launch; SASS run alone, CPU ms, medians of {repeat} interleaved; "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, launch in launches(65536 * scale).items():
        def alone(fused):
            use["fused"] = fused
            with cp.settings(sass_verify=False), cp.profile(level="sass"):
                launch()
        launch()
        alone(True)                                     # compile (or load) the program's generated code
        tile, fused = cpu_medians(lambda: alone(False), lambda: alone(True), repeat)
        print(f"{name:<16} tile {tile * 1e3:7.1f}  fused {fused * 1e3:7.1f}  {fused / tile:.2f}x")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--fused"]
    scale = int(args[0]) if args else 1
    fused_against_tile(scale) if "--fused" in sys.argv else main(scale)
