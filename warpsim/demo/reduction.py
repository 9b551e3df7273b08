"""warp_sum and block_sum: five shuffles sum a warp, one more warp sums the block."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "reduction"
TITLE = "warp_sum and block_sum"
CLAIM = """
Five shuffle steps with offsets 16, 8, 4, 2 and 1 sum 32 values into lane 0,
entirely in registers. The mask names all 32 lanes and every lane reaches the
shuffle, so each runs at full width. A block sum does this once per warp, parks
the partials in shared memory and reduces them with one more warp.
"""
KERNELS = "reduction.cu"
N, THREADS = 10_000, 256


def run(console=None) -> common.DemoResult:
    from .. import api
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(5)
    x = rng.integers(-100, 101, N).astype(np.float32)    # integer values: every order sums exactly
    out = api.zeros(1, dtype=np.float32)
    blocks = (N + THREADS - 1) // THREADS
    block_sum = common.launch(KERNELS, "block_sum", blocks, THREADS, (api.asarray(x), out, np.int32(N)))
    got, expected = float(out.get()[0]), float(x.sum(dtype=np.float64))

    lanes = np.arange(32, dtype=np.float32) + 1          # 1..32: the total is 528
    steps = api.zeros(6 * 32, dtype=np.float32)
    tree = common.launch(KERNELS, "warp_sum_steps", 1, 32, (api.asarray(lanes), steps))
    values = steps.get().reshape(6, 32)
    result.runs += [block_sum, tree]

    shuffles = common.by_opcode(block_sum, {"shfl"})
    tree_shuffles = common.by_opcode(tree, {"shfl"})
    warps = blocks * (THREADS // 32)
    result.figures.update(sum=got, expected=expected, shuffle_lanes=shuffles, tree=values,
                          shuffles_per_warp_sum=len(tree_shuffles), total=float(values[-1, 0]),
                          recorded_shuffles=len(shuffles))
    result.add(f"block_sum of {N} values ({blocks} blocks of {THREADS})", f"{got:.0f}",
               f"{expected:.0f} (NumPy)", got == expected)
    result.add("warp_sum of 1..32: lane 0 after the fifth shuffle", f"{values[-1, 0]:.0f}", "528",
               values[-1, 0] == 528)
    result.add("shuffle steps per warp_sum", str(len(tree_shuffles)), "5 (16, 8, 4, 2, 1)",
               len(tree_shuffles) == 5)
    full = bool(len(shuffles)) and bool((shuffles == 32).all())
    result.add(f"active lanes of every shuffle issued (first {block_sum.trace.warps} of {warps} warps)",
               f"{shuffles.min() if len(shuffles) else 0}..{shuffles.max() if len(shuffles) else 0}",
               "32 (full width)", full)
    if block_sum.timing is not None:
        result.figures["block_sum_time_s"] = block_sum.timing.time_s
        result.add(f"predicted on {common.GPU.upper()}: block_sum of {N} values", common.predicted(block_sum),
                   "(one pass, registers and 32 partials)", True)
    if console is not None:
        from ..report.terminal import box, table as make_table
        common.header(console, result, CLAIM)
        table = make_table("The reduction tree: lane values after each __shfl_down_sync (lanes hold 1..32)",
                           [("step \\ lane", dict(no_wrap=True))], box=box.SIMPLE_HEAD)
        shown = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31]
        for lane in shown:
            table.add_column(str(lane), justify="right", no_wrap=True)
        for step in range(6):
            label = "start" if step == 0 else f"+{16 >> (step - 1)}"
            cells = [f"{values[step, lane]:.0f}" for lane in shown]
            if step:
                cells[0] = (cells[0], "bold")
            table.add_row(label, *cells)
        table.caption = ("Lane 0 gathers 16 -> 8 -> 4 -> 2 -> 1 partial sums: after step k it holds "
                         "the sum of 2^k values. Upper lanes read past lane 31 (their own value "
                         "comes back) and are ignored.")
        console.print(table)
        console.print(common.figures_table(result))
    return result
