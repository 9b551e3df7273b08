"""Scale-out of a launch that moves data: large arrays in and out, global atomics into a histogram.

    python bench/scaleout_histogram.py [--n 16777216] [--iters 16] [--repeats 3]

One kernel, n threads: each reads x[i], runs a loop, writes y[i] and adds one
to one of 256 bins (atomicAdd on unsigned). 16M threads move 64 MB in and 64 MB
out. Timed by the wall clock, warm: every process (the driver and each worker)
has run the kernel once before, and the cluster is started once, before the
timed launches (its start is printed on its own row). Then the same launch in
one process and with `warpsim.settings(workers=2)`, alternating `--repeats`
times (the cost model learns from each: a kernel timed only sharded is timed
once in one process, then it compares); then once more sharded whatever the
cost model says, for the shards' figures. The bytes of y and the histogram
must be equal. Also a small launch (256K threads) that sharding cannot speed
up: warpsim runs it in one process and says so in `last_launch.sharding`. The load average is printed before and after:
the machine has 2 cores, and others' processes change every figure.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

import warpsim as cp
from warpsim.distributed import cluster

HISTOGRAM = r"""
extern "C" __global__ void scaled_histogram(const float* x, float* y, unsigned* bins, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < iters; ++k) v = v * 0.75f + 0.25f * x[i];
    y[i] = v;
    atomicAdd(&bins[(unsigned)(v * 256.0f) & 255u], 1u);
}
"""


def load() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def timed(kernel, n, iters, arrays, workers, **settings):
    x, y, bins = arrays
    y.set(np.zeros(n, np.float32)) if hasattr(y, "set") else None
    bins.set(np.zeros(256, np.uint32)) if hasattr(bins, "set") else None
    grid, block = ((n + 255) // 256,), (256,)
    global last_cpu
    with cp.settings(workers=workers, **settings):
        started, cpu = time.perf_counter(), time.process_time()
        kernel(grid, block, (x, y, bins, np.int32(n), np.int32(iters)))
        seconds, last_cpu = time.perf_counter() - started, time.process_time() - cpu
    return seconds, y.get(), bins.get(), getattr(kernel.kernel.last_launch, "sharding", None)


last_cpu = 0.0                 # the driver's CPU seconds in the last timed launch


def tier_share(program) -> str:
    """Block executions by thread on the compiled tier and the NumPy tier (rounds' loop included)."""
    from warpsim.machine.compiled.tier import report
    rows = report(program)
    compiled, numpy_ = sum(r["threads_compiled"] for r in rows), sum(r["threads_numpy"] for r in rows)
    return f"{100 * compiled / max(1, compiled + numpy_):.0f}% compiled"


def worker_tiers() -> list:
    from warpsim.distributed import shard
    return [tier_share(loaded.program) for loaded in shard._modules.values()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1 << 24, help="threads (and floats in and out)")
    parser.add_argument("--iters", type=int, default=16, help="loop trips per thread")
    parser.add_argument("--repeats", type=int, default=3, help="alternating timed pairs")
    ns = parser.parse_args()
    warnings.simplefilter("ignore")                  # the table says where each launch ran and why
    load_before = load()
    kernel = cp.RawKernel(HISTOGRAM, "scaled_histogram")
    kernel.compile()
    rng = np.random.default_rng(0)
    n = ns.n
    arrays = (cp.asarray(rng.random(n, dtype=np.float32)), cp.zeros(n, np.float32), cp.zeros(256, np.uint32))

    started = time.perf_counter()
    cluster.client_for_launches(None, 2).wait_for_workers(2)
    cluster_start = time.perf_counter() - started
    # warm-up: every process loads the module and its machine code (Numba's disk cache)
    timed(kernel, n, ns.iters, arrays, 1)
    timed(kernel, n, ns.iters, arrays, 2, sharding="always")

    one, two, paths, always = [], [], [], []
    for _ in range(ns.repeats):
        s1, y1, b1, _ = timed(kernel, n, ns.iters, arrays, 1)
        one_cpu = last_cpu
        s2, y2, b2, report = timed(kernel, n, ns.iters, arrays, 2)
        assert y1.tobytes() == y2.tobytes() and b1.tobytes() == b2.tobytes(), "sharded launch differs"
        one.append(s1)
        two.append(s2)
        paths.append(report.path if report else "one process")
    s3, y3, b3, forced = timed(kernel, n, ns.iters, arrays, 2, sharding="always")
    assert y1.tobytes() == y3.tobytes() and b1.tobytes() == b3.tobytes(), "sharded launch differs"
    small_n = 1 << 18                                  # 2 batches of CTAs: shardable, but too small to gain
    small = (cp.asarray(rng.random(small_n, dtype=np.float32)), cp.zeros(small_n, np.float32),
             cp.zeros(256, np.uint32))
    timed(kernel, small_n, ns.iters, small, 2)
    _, _, _, small_report = timed(kernel, small_n, ns.iters, small, 2)
    load_after = load()
    client = cluster.client_for_launches(None, 2)
    tiers = sorted({share for shares in client.run(worker_tiers).values() for share in shares})

    rows = [
        ("threads", f"{n:,}", f"{n:,}", f"loop of {ns.iters}, 256-bin atomicAdd"),
        ("cluster start (once per process), s", "", f"{cluster_start:.2f}", "not in the launch times"),
        ("launch, s (each run)", " ".join(f"{s:.2f}" for s in one), " ".join(f"{s:.2f}" for s in two),
         "workers=2: " + ", ".join(paths)),
        ("speed-up", "", f"x{one[-1] / two[-1]:.2f}", "one process / workers=2, last pair"),
        ("last decision", "", report.path if report else "one process", report.reason if report else ""),
        ("sharded anyway (sharding='always'), s", "", f"{s3:.2f}", f"x{one[-1] / s3:.2f} vs one process"),
    ]
    report = forced
    if report is not None and report.shards:
        rows += [
            ("shards", "", str(report.shards), ""),
            ("shard times on the workers, s", "", " ".join(f"{s:.2f}" for s in report.shard_seconds), ""),
            ("shards' simulation / one process", "", f"x{sum(report.launch_seconds) / one[-1]:.2f}",
             "k by the wall clock: side by side, and waiting for a core"),
            ("CPU s: one process / shards", f"{one_cpu:.2f}", " ".join(f"{s:.2f}" for s in report.cpu_seconds),
             f"k by CPU time x{sum(report.cpu_seconds) / one_cpu:.2f}"),
            ("bytes sent / returned", "", f"{report.bytes_sent:,} / {report.bytes_returned:,}", ""),
            ("merge on the driver, s", "", f"{report.merge_seconds:.3f}", ""),
            ("estimated gain", "", f"x{report.estimated_gain:.2f}", "cost model, before that launch"),
        ]
    rows.append(("block executions (thread-weighted)", tier_share(kernel.kernel.loaded_module.program),
                 " / ".join(tiers), "the tier each process ran"))
    if small_report is not None:
        rows.append((f"{small_n:,} threads with workers=2", "", small_report.path, small_report.reason))
    rows.append(("load average before / after", load_before, load_after, f"{os.cpu_count()} cores"))
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'one process':>14}  {'2 workers':>14}  note")
    for name, a, b, note in rows:
        print(f"{name:<{width}}  {a:>14}  {b:>14}  {note}")


if __name__ == "__main__":
    main()
