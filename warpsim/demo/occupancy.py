"""Occupancy and latency hiding: registers and shared memory decide resident warps."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "occupancy"
TITLE = "Occupancy and latency hiding"
CLAIM = """
A global load takes hundreds of cycles; an SM hides that by switching to another
resident warp whose operands are ready. Each SM keeps up to 64 warps resident
(H100/H200), with their registers loaded, so switching is free. Registers are
divided among resident threads, so heavier threads mean fewer warps to hide
latency; shared memory per block limits resident blocks the same way.
"""
KERNELS = "occupancy.cu"
THREADS, N = 256, 1 << 14
BIG_N = 1 << 22                   # the launch whose time is predicted: 16 MB per array, every SM busy
# (kernel, loads per thread, dynamic shared memory per block)
CONFIGS = [
    ("triad_1", 1, 0),
    ("triad_8", 8, 0),
    ("triad_32", 32, 0),
    ("triad_32_bounded", 32, 0),
    ("triad_1", 1, 24 * 1024),
    ("triad_1", 1, 48 * 1024),
    ("triad_1", 1, 100 * 1024),
    ("triad_1", 1, 160 * 1024),
]


def predicted_time(kernel: str, loads: int, shared: int, big):
    """The timing model's prediction for this configuration on BIG_N elements (a sample of its
    blocks runs here): seconds, or None without a timing model."""
    a, b, c = big
    timing = common.predict(KERNELS, kernel, -(-BIG_N // (THREADS * loads)), THREADS,
                            (a, b, c, np.float32(2), np.int32(BIG_N)), shared_mem=shared)
    return None if timing is None else timing.time_s


def run(console=None) -> common.DemoResult:
    from .. import api
    from ..metrics.occupancy import get_arch, occupancy
    from ..metrics.registers import ptxas_arch, registers_per_thread
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    expected = a + np.float32(2) * b
    rows = []
    big = tuple(api.asarray(np.ones(BIG_N, dtype=np.float32)) for _ in range(3))
    for kernel, loads, shared in CONFIGS:
        c = api.zeros(N, dtype=np.float32)
        blocks = -(-N // (THREADS * loads))
        r = common.launch(KERNELS, kernel, blocks, THREADS,
                          (api.asarray(a), api.asarray(b), c, np.float32(2), np.int32(N)),
                          shared_mem=shared, label=f"{kernel}, {shared // 1024} KB shared")
        correct = bool(np.allclose(c.get(), expected, rtol=1e-6))
        module = r.fn.loaded_module.module
        regs = registers_per_thread(module, r.fn.kernel_name)
        arch = get_arch(ptxas_arch(module))
        occ = occupancy(THREADS, regs.registers, shared, arch)
        in_flight = occ.active_warps * 32 * 2 * loads * 4
        rows.append(dict(kernel=kernel, loads=loads, shared=shared, registers=regs.registers,
                         register_source=regs.source, spill=regs.spill_stores, blocks=occ.active_blocks,
                         warps=occ.active_warps, max_warps=occ.max_warps, pct=occ.occupancy_pct,
                         limiters=list(occ.limiters), in_flight=in_flight, correct=correct,
                         predicted=predicted_time(kernel, loads, shared, big), arch=arch.name))
        if shared == 0:
            result.runs.append(r)
    result.figures["rows"] = rows
    base = rows[0]
    heavy = next(r for r in rows if r["kernel"] == "triad_32")
    bounded = next(r for r in rows if r["kernel"] == "triad_32_bounded")
    big_smem = next(r for r in rows if r["shared"] == 100 * 1024)
    result.add("resident warps per SM, light threads (triad_1)", f"{base['warps']} of {base['max_warps']}",
               "up to 64 (H100)", base["warps"] == base["max_warps"] == 64)
    result.add(f"heavier threads: {heavy['registers']} registers (triad_32)",
               f"{heavy['warps']} warps, {heavy['pct']:.0f}%", "fewer warps",
               heavy["warps"] < base["warps"] and "registers" in heavy["limiters"])
    result.add("__launch_bounds__(256, 8): ptxas fits 32 registers",
               f"{bounded['registers']} regs, {bounded['warps']} warps, {bounded['spill']} B spilled",
               "(more warps, spills)", bounded["registers"] <= 32 and bounded["warps"] > heavy["warps"])
    result.add("100 KB shared memory per block", f"{big_smem['warps']} warps, {big_smem['pct']:.0f}%",
               "fewer warps", big_smem["warps"] < base["warps"] and "shared_mem" in big_smem["limiters"])
    add_latency_rows(result, rows)
    result.add("every configuration computes c = a + s*b", "yes" if all(r["correct"] for r in rows) else "no",
               "(same result)", all(r["correct"] for r in rows))
    if console is not None:
        from ..report.terminal import box, table as make_table
        common.header(console, result, CLAIM)
        titles = ("kernel", "regs", "smem", "warps/SM", "occ.", "limit", "in flight", "predicted")
        table = make_table(f"c = a + s*b, blocks of {THREADS}, theoretical occupancy on {base['arch']}",
                           [(title, dict(justify="left" if title in ("kernel", "limit") else "right"))
                            for title in titles], box=box.SIMPLE_HEAD)
        short = {"registers": "regs", "shared_mem": "smem", "warps": "warps", "blocks": "blocks"}
        for r in rows:
            regs = f"{r['registers']}" + ("~" if r["register_source"] != "ptxas" else "") + \
                ("*" if r["spill"] else "")
            table.add_row(r["kernel"], regs, f"{r['shared'] // 1024}K", str(r["warps"]), f"{r['pct']:.0f}%",
                          ",".join(short[x] for x in r["limiters"]), f"{r['in_flight'] // 1024}K",
                          ("-", "dim") if r["predicted"] is None else f"{r['predicted'] * 1e6:.1f} us")
        table.caption = ("triad_K: K elements per thread, loads issued together. regs: ptxas -v "
                         "(~ estimated from the PTX when there is no ptxas; * spills). in flight: bytes of "
                         "loads in flight per SM = resident warps x 32 lanes x 2K loads x 4 B: more warps "
                         "or more loads per warp both hide latency. predicted: warpsim's timing model on "
                         f"{common.GPU.upper()}, c = a + s*b over {BIG_N:,} elements.")
        console.print(table)
        console.print(common.figures_table(result))
    return result


def add_latency_rows(result, rows):
    """Latency hiding in time: triad_1 with fewer resident warps (shared memory), and heavier
    threads whose extra loads in flight make up for fewer warps."""
    if any(r["predicted"] is None for r in rows):
        return
    by_warps = list({r["warps"]: r for r in sorted((r for r in rows if r["kernel"] == "triad_1"),
                                                   key=lambda r: -r["warps"])}.values())
    result.figures["latency_hiding"] = [(r["warps"], r["predicted"]) for r in by_warps]
    full, fewest = by_warps[0], by_warps[-1]
    slower = [b["predicted"] >= a["predicted"] * 0.99 for a, b in zip(by_warps, by_warps[1:])]
    result.add(f"predicted, triad_1 with {', '.join(str(r['warps']) for r in by_warps)} resident warps per SM",
               " / ".join(f"{r['predicted'] * 1e6:.0f}" for r in by_warps) + " us: "
               f"{fewest['predicted'] / full['predicted']:.1f}x at {fewest['warps']} warps",
               "fewer warps to hide latency: slower", all(slower) and fewest["predicted"] > 1.5 * full["predicted"])
    heavy = next(r for r in rows if r["kernel"] == "triad_32")
    same_warps = next((r for r in by_warps if r["warps"] == heavy["warps"]), None)
    if same_warps is not None:
        ratio = same_warps["predicted"] / heavy["predicted"]
        result.figures["loads_in_flight_speedup"] = ratio
        result.add(f"predicted at {heavy['warps']} warps: triad_1 (shared memory) vs triad_32 (registers)",
                   f"{same_warps['predicted'] * 1e6:.0f} vs {heavy['predicted'] * 1e6:.0f} us: {ratio:.1f}x",
                   "(32 loads in flight per thread hide it too)", ratio > 1)
