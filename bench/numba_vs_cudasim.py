"""Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) vs warpsim on the same Numba kernels.

    python bench/numba_vs_cudasim.py                      # 4K, 64K and 1M threads
    python bench/numba_vs_cudasim.py --sizes 4096,65536 --timeout 120

The kernels are written once, with `from numba import cuda`, and each run is
its own process: Numba's simulator is switched on by its environment
variable; warpsim runs the unchanged code through numba_on_warpsim (what
`warpsim run python script.py` does). Each process makes its device arrays,
launches once on a small grid (warpsim compiles the kernel there), then
times one launch of the full grid, synchronized, and on warpsim a second one:
the first full launch in a process may start Numba's runtime for warpsim's
machine code (about a second; later launches of any kernel do not pay it), so
the table shows both, `first` and `again`; Numba's simulator keeps nothing
between launches. A run that passes
--timeout seconds is reported as such, and the ratio as a lower bound.
Numba's simulator has no warp intrinsics (shuffles, votes), so the kernels
use shared memory and atomics for the reduction.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

THREADS_PER_BLOCK = 256
HEAVY_ITERATIONS = 20
cuda = None  # numba.cuda, imported by the worker (a global: Numba's simulator swaps it)


def define_kernels():
    """The kernels, made with whichever numba.cuda the process has."""
    from numba import float32

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

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

    @cuda.jit
    def block_sum(x, out):
        partial = cuda.shared.array(THREADS_PER_BLOCK, float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        partial[t] = x[i] if i < x.size else float32(0.0)
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 0:
            if t < stride:
                partial[t] += partial[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            cuda.atomic.add(out, 0, partial[0])

    return {"saxpy": saxpy, "branch_on_lane": branch_on_lane, "block_sum": block_sum}


def make_launch(kernels, name: str, n: int):
    """A function that launches `name` over n threads on device arrays made here."""
    blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    rng = np.random.default_rng(0)
    x = cuda.to_device(rng.standard_normal(n).astype(np.float32))
    out = cuda.device_array(n, np.float32)
    kernel = kernels[name]
    if name == "saxpy":
        y = cuda.to_device(rng.standard_normal(n).astype(np.float32))
        return lambda: kernel[blocks, THREADS_PER_BLOCK](np.float32(2.0), x, y, out)
    if name == "branch_on_lane":
        return lambda: kernel[blocks, THREADS_PER_BLOCK](out, HEAVY_ITERATIONS)
    total = cuda.to_device(np.zeros(1, np.float32))
    return lambda: kernel[blocks, THREADS_PER_BLOCK](x, total)


def worker(simulator: str, name: str, n: int) -> None:
    """One timed launch in this process; prints {"seconds": ...} as JSON."""
    import warnings
    warnings.simplefilter("ignore")
    if simulator == "warpsim":
        from warpsim.cli.run import numba_on_warpsim
        context = numba_on_warpsim()
    else:
        import contextlib
        context = contextlib.nullcontext()
    global cuda
    with context:
        from numba import cuda
        kernels = define_kernels()
        make_launch(kernels, name, THREADS_PER_BLOCK)()  # warm-up: compiles on warpsim
        cuda.synchronize()
        launch = make_launch(kernels, name, n)
        times = []
        for _ in range(2 if simulator == "warpsim" else 1):
            start = time.perf_counter()
            launch()
            cuda.synchronize()
            times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": times[0], "again": times[-1]}))


def timed_run(simulator: str, name: str, n: int, timeout: float):
    """(seconds of the first full launch, of the second), or None when it ran past `timeout`."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1" if simulator == "cudasim" else "0")
    command = [sys.executable, os.path.abspath(__file__), "--worker", simulator, name, str(n)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        raise RuntimeError(f"{simulator} {name} {n}: failed\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return out["seconds"], out["again"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,65536,1048576",
                        help="thread counts, comma-separated (default: 4K, 64K, 1M)")
    parser.add_argument("--kernels", default="saxpy,branch_on_lane,block_sum")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds a single run may take (default 300)")
    parser.add_argument("--worker", nargs=3, metavar=("SIMULATOR", "KERNEL", "THREADS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'kernel':<16}{'threads':>10}{'cudasim s':>12}{'warpsim first':>15}{'again':>9}"
          f"{'ratio first':>13}{'again':>9}")
    cudasim_gave_up = set()
    for name in args.kernels.split(","):
        for n in sizes:
            warpsim_s = timed_run("warpsim", name, n, args.timeout)
            cudasim_s = (None if name in cudasim_gave_up
                         else timed_run("cudasim", name, n, args.timeout))
            if cudasim_s is None:
                cudasim_gave_up.add(name)  # bigger grids only take longer
            sim = cudasim_s[0] if cudasim_s is not None else None
            cells = [f"{sim:.3f}" if sim is not None else f">{args.timeout:.0f}"]
            cells += [f"{w:.3f}" if warpsim_s else f">{args.timeout:.0f}" for w in (warpsim_s or (0, 0))]
            for w in (warpsim_s or (0, 0)):
                cells.append(f"{sim / w:.0f}x" if sim is not None and w else
                             f">{args.timeout / w:.0f}x" if w else "-")
            print(f"{name:<16}{n:>10}{cells[0]:>12}{cells[1]:>15}{cells[2]:>9}{cells[3]:>13}{cells[4]:>9}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
