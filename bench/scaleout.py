"""Scale-out on Dask, measured: a 16M-thread launch and a 64-point sweep on 1 and 2 local workers.

    python bench/scaleout.py [--size 4096] [--iters 32] [--points-n 65536]

Prints one table of figures from this run: wall times, speed-ups, overhead
per shard and per task, bytes moved, and the machine's load average before
and after (other processes on the machine slow the workers down; the
figures are only as good as the machine was quiet). docs/scaleout.md holds
the model these figures check.

- launch: Mandelbrot on a size x size image (4096 x 4096 = 16.7M threads, one
  byte each), in one process, then sharded on a 1-worker cluster (the cost of
  sharding without any parallelism) and on a 2-worker cluster, with
  settings(sharding='always') (on one worker the cost model would run it in
  one process). bench/scaleout_histogram.py measures a launch that moves
  arrays and uses atomics, with the cost model deciding.
- sweep: 64 points (2 kernel variants x 4 block sizes x 4 sizes x 2
  scheduling models) on a 1-worker and a 2-worker LocalCluster.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import warpsim as cp
from warpsim.distributed import cluster

MANDELBROT = r"""
extern "C" __global__ void mandelbrot(unsigned char* out, int width, int height, int iters) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width) return;
    float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height, zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < iters && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
    }
    out[y * width + x] = (unsigned char)k;
}
"""

SWEEP_VARIANTS = {
    "branchy": (r"""
extern "C" __global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (i & 1) { for (int k = 0; k < 8; ++k) v = v * 0.5f + 1.0f; }
    else       { for (int k = 0; k < 4; ++k) v = v * v - 0.25f; }
    y[i] = v;
}""", "poly"),
    "uniform": (r"""
extern "C" __global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < 8; ++k) v = v * 0.5f + 1.0f;
    y[i] = v;
}""", "poly"),
}


def sweep_args(point):
    n = point["n"]
    return (np.linspace(0, 1, n, dtype=np.float32), np.zeros(n, np.float32), np.int32(n))


def load() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def run_launch(size: int, iters: int, settings: dict):
    kernel = cp.RawKernel(MANDELBROT, "mandelbrot")
    kernel.compile()
    out = cp.zeros(size * size, np.uint8)
    args = (out, np.int32(size), np.int32(size), np.int32(iters))
    with cp.settings(**settings):
        # a first, untimed launch of a few batches: every process loads the module's machine code
        kernel(((size + 255) // 256, max(8, size // 16)), (256,), args)
        started = time.perf_counter()
        kernel(((size + 255) // 256, size), (256,), args)
        seconds = time.perf_counter() - started
    return seconds, out.get(), getattr(kernel.kernel.last_launch, "sharding", None)


def run_sweep(client, n_base: int):
    params = {"block": [64, 128, 256, 512], "n": [n_base, 2 * n_base, 3 * n_base, 4 * n_base],
              "scheduling": ["its", "stack"]}
    cp.sweep(SWEEP_VARIANTS, {"block": [64], "n": [256]}, args=sweep_args, scheduler=client,
             progress=False)                                  # warm: NVRTC and imports on every worker
    started = time.perf_counter()
    table = cp.sweep(SWEEP_VARIANTS, params, args=sweep_args, scheduler=client, progress=False)
    return time.perf_counter() - started, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="image side (threads = size^2)")
    parser.add_argument("--iters", type=int, default=32)
    parser.add_argument("--points-n", type=int, default=1 << 18, help="smallest n of the sweep")
    ns = parser.parse_args()
    load_before = load()
    rows = []

    one_seconds, reference, _ = run_launch(ns.size, ns.iters, {})
    clients = {workers: cluster.client_for_launches(None, workers) if workers > 1 else
               _one_worker_client() for workers in (1, 2)}
    launch = {}
    for workers, client in clients.items():
        seconds, image, report = run_launch(ns.size, ns.iters, {"scheduler": client, "sharding": "always"})
        assert image.tobytes() == reference.tobytes(), "sharded launch differs from one process"
        launch[workers] = (seconds, report)
    sweep = {workers: run_sweep(client, ns.points_n) for workers, client in clients.items()}
    load_after = load()

    threads = ns.size * ns.size
    s1, r1 = launch[1]
    s2, r2 = launch[2]
    rows += [
        ("launch: threads", f"{threads:,}", "", ""),
        ("launch: one process, s", f"{one_seconds:.2f}", "", ""),
        ("launch: sharded, s", f"{s1:.2f}", f"{s2:.2f}", f"x{one_seconds / s2:.2f} vs one process"),
        ("launch: shards", str(r1.shards), str(r2.shards), ""),
        ("launch: overhead per shard, s", f"{(s1 - one_seconds) / r1.shards:.3f}", "", "1 worker vs one process"),
        ("launch: merge on the driver, s", f"{r1.merge_seconds:.3f}", f"{r2.merge_seconds:.3f}", ""),
        ("launch: bytes sent (heap image)", f"{r1.bytes_sent:,}", f"{r2.bytes_sent:,}", ""),
        ("launch: bytes returned", f"{r1.bytes_returned:,}", f"{r2.bytes_returned:,}", ""),
    ]
    (w1, t1), (w2, t2) = sweep[1], sweep[2]
    busy = t1.seconds.sum()
    rows += [
        ("sweep: points (failed)", f"{len(t1)} ({(~t1.ok).sum()})", f"{len(t2)} ({(~t2.ok).sum()})", ""),
        ("sweep: wall, s", f"{w1:.2f}", f"{w2:.2f}", f"x{w1 / w2:.2f}"),
        ("sweep: sum of point times, s", f"{busy:.2f}", f"{t2.seconds.sum():.2f}", ""),
        ("sweep: overhead per task, s", f"{(w1 - busy) / len(t1):.4f}", "", "1 worker: wall - work"),
        ("sweep: metrics equal", "", str(t1.drop(columns="seconds").equals(t2.drop(columns="seconds"))), ""),
        ("load average before / after", load_before, load_after, f"{os.cpu_count()} cores"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'1 worker':>14}  {'2 workers':>14}  ratio / note")
    for name, one, two, note in rows:
        print(f"{name:<{width}}  {one:>14}  {two:>14}  {note}")


def _one_worker_client():
    from dask.distributed import Client
    return Client(cluster.local_cluster(1))


if __name__ == "__main__":
    main()
