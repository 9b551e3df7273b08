"""Warp-aggregated atomics: one atomic per warp instead of one per thread."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "atomics"
TITLE = "Warp-aggregated atomics"
CLAIM = """
In stream compaction each kept element needs a slot in the output. With one
atomicAdd per kept element every thread hits the counter. With a ballot the
warp counts its keepers (__popc), one lane performs a single atomic for all of
them, and each lane derives its slot from the bits below its own: contention on
the counter drops by up to 32x.
"""
KERNELS = "atomics.cu"
N, THREADS = 4096, 256


class AtomicCount:
    """Atomic operations on memory: per warp request and per lane (the counter's contention)."""

    def __init__(self):
        self.requests = 0          # warp-level atomic instructions that touched memory
        self.operations = 0        # lane-level read-modify-writes

    def batch_started(self, ctx):
        pass

    def block_executed(self, ctx, block, idx, warps):
        pass

    def batch_finished(self, ctx):
        pass

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if kind == "atomic" and len(idx):
            self.requests += len(np.unique(idx >> 5))
            self.operations += len(idx)


def run(console=None) -> common.DemoResult:
    from .. import api
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(3)
    inputs = {"all kept": rng.integers(1, 1000, N).astype(np.int32),
              "half kept": (rng.integers(1, 1000, N) * rng.choice([-1, 1], N)).astype(np.int32)}
    table_rows, launches = [], {}
    for case, x in inputs.items():
        expected = np.sort(x[x > 0])
        counts = {}
        for kernel in ("compact_per_thread", "compact_aggregated"):
            out, count = api.zeros(N, dtype=np.int32), api.zeros(1, dtype=np.int32)
            atomics = AtomicCount()
            r = common.launch(KERNELS, kernel, N // THREADS, THREADS,
                              (api.asarray(x), np.int32(N), out, count), observers=[atomics],
                              label=f"{kernel}, {case}")
            kept = int(count.get()[0])
            correct = kept == len(expected) and np.array_equal(np.sort(out.get()[:kept]), expected)
            counts[kernel] = atomics
            launches[kernel, case] = r
            table_rows.append((case, kernel, kept, correct, atomics.operations, atomics.requests))
            if case == "all kept":
                result.runs.append(r)
            result.figures[f"{kernel}|{case}"] = dict(kept=kept, correct=correct, operations=atomics.operations,
                                                      requests=atomics.requests)
        per_thread, aggregated = counts["compact_per_thread"], counts["compact_aggregated"]
        ratio = per_thread.operations / max(aggregated.operations, 1)
        result.figures[f"ratio|{case}"] = ratio
        claim = "32x fewer" if case == "all kept" else "fewer (up to 32x)"
        ok = ratio == 32 if case == "all kept" else 1 < ratio <= 32
        result.add(f"atomics on the counter, {case}: per thread / aggregated",
                   f"{per_thread.operations} / {aggregated.operations} = {ratio:.1f}x", claim, ok)
    correct = all(v["correct"] for k, v in result.figures.items() if "|" in k and isinstance(v, dict))
    result.add("both compactions keep the same elements", "yes" if correct else "no", "(same result)", correct)
    common.add_predicted(result, "per thread vs aggregated, all kept", launches["compact_per_thread", "all kept"],
                         launches["compact_aggregated", "all kept"], "contention drops: faster",
                         lambda r: r > 1, figure="predicted_aggregation_speedup")
    if console is not None:
        from ..report.terminal import table as make_table
        common.header(console, result, CLAIM)
        table = make_table(f"Stream compaction of {N} ints, blocks of {THREADS}", [
            (title, dict(justify=justify)) for title, justify in (
                ("input", "left"), ("kernel", "left"), ("kept", "right"), ("correct", "center"),
                ("atomic operations", "right"), ("warp atomic instructions", "right"))])
        for case, kernel, kept, ok, ops, requests in table_rows:
            table.add_row(case, kernel, str(kept), common.mark(ok), str(ops), str(requests))
        table.caption = ("Counts are PTX atom instructions as warpsim executes them; ptxas on recent "
                         "toolkits may aggregate same-address atomics in SASS by itself.")
        console.print(table)
        console.print(common.figures_table(result))
    return result
