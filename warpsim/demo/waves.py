"""Too few threads, small blocks, and the last wave: the launch shape in time."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "waves"
TITLE = "Too few threads and the last wave"
CLAIM = """
Thousands of threads are not there to run simultaneously in the arithmetic sense;
they are there so the schedulers always find some warp ready to issue. This is why
a GPU kernel launched with too few threads is slow even when it does little
arithmetic.
"""
KERNELS = "waves.cu"
N = 1 << 21                       # elements of c = a + s*b (8 MB per array)
CHECKED = 1 << 15                 # elements of the launch that runs whole (16 blocks of 128 stride over them)
STEPS = 1024                      # multiply-adds per thread of block_of_work
THREADS = 256


def launch_shapes(sms: int):
    """(label, blocks, threads per block) from one warp per SM to one thread per element."""
    return [(f"{sms} blocks of 32: one warp per SM", sms, 32),
            (f"{sms} blocks of 128", sms, 128),
            (f"{sms} blocks of 512", sms, 512),
            (f"{2 * sms} blocks of 1024: 64 warps per SM", 2 * sms, 1024),
            (f"{N // THREADS} blocks of {THREADS}: a thread per element", N // THREADS, THREADS),
            (f"{N // 32} blocks of 32: a thread per element", N // 32, 32)]


def wave_size(sms: int) -> tuple[int, object]:
    """(blocks the GPU holds at once, the Occupancy) for block_of_work in blocks of THREADS."""
    from ..metrics.occupancy import occupancy
    from ..metrics.registers import registers_per_thread
    fn = common.module(KERNELS).get_function("block_of_work")
    regs = registers_per_thread(fn.loaded_module.module, fn.kernel_name)
    occ = occupancy(THREADS, regs.registers, 0, "sm_90")
    return sms * occ.active_blocks, occ


def run(console=None) -> common.DemoResult:
    from .. import api
    from ..metrics.occupancy import occupancy
    from ..settings import current
    from ..timing import gpu_preset
    result = common.DemoResult(NAME, TITLE)
    sms = gpu_preset(current().gpu or common.GPU).sms
    rng = np.random.default_rng(21)
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    # the result is right with any grid: a few blocks striding over CHECKED elements run whole
    c = api.full(CHECKED, np.nan, dtype=np.float32)
    small = common.launch(KERNELS, "triad_loop", 16, 128, (api.asarray(a[:CHECKED]), api.asarray(b[:CHECKED]), c,
                                                           np.float32(2), np.int32(CHECKED)),
                          label="triad_loop, 16 blocks of 128")
    correct = bool(np.allclose(c.get(), a[:CHECKED] + np.float32(2) * b[:CHECKED], rtol=1e-6))
    result.runs.append(small)
    args = (api.asarray(a), api.asarray(b), api.zeros(N, dtype=np.float32), np.float32(2), np.int32(N))
    shapes = []
    for label, blocks, threads in launch_shapes(sms):
        t = common.predict(KERNELS, "triad_loop", blocks, threads, args)
        theoretical = occupancy(threads, 16, 0, "sm_90").occupancy_pct
        shapes.append(dict(label=label, blocks=blocks, threads=blocks * threads, timing=t,
                           time_us=None if t is None else t.time_s * 1e6, theoretical=theoretical,
                           achieved=None if t is None else t.achieved_occupancy))
    wave, occ = wave_size(sms)
    out = api.zeros((2 * wave + 1) * THREADS, dtype=np.float32)
    waves = {}
    for blocks in (wave, wave + 1, 2 * wave):
        waves[blocks] = common.predict(KERNELS, "block_of_work", blocks, THREADS, (out, np.int32(STEPS)))
    result.figures.update(correct=correct, wave=wave, blocks_per_sm=occ.active_blocks,
                          shapes=[{k: v for k, v in s.items() if k != "timing"} for s in shapes],
                          wave_times={k: None if v is None else v.time_s for k, v in waves.items()})
    add_rows(result, shapes, waves, wave, correct)
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  triad_loop: c = a + s*b over {N:,} floats in a grid-stride loop, launched in "
                            f"six shapes; block_of_work: {STEPS} multiply-adds per thread, blocks of {THREADS}, "
                            f"{occ.active_blocks} per SM, so a wave is {sms} SMs x {occ.active_blocks} = {wave} "
                            "blocks. Times are predicted for the whole launch from a sample of its blocks run here.")
        console.print(shapes_table(shapes))
        console.print(common.figures_table(result))
    return result


def add_rows(result, shapes, waves, wave, correct):
    result.add("c = a + s*b with a grid-stride loop: right with any grid", "yes" if correct else "no",
               "(a kernel written for one thread is always correct)", correct)
    if any(s["timing"] is None for s in shapes):
        return
    few, per_element = shapes[0], shapes[4]
    common.add_predicted(result, f"{few['threads']:,} threads vs {per_element['threads']:,}",
                         few["timing"], per_element["timing"], "too few threads is slow", lambda r: r > 4,
                         figure="too_few_threads_ratio")
    falling = all(b["time_us"] <= a["time_us"] * 1.01 for a, b in zip(shapes[:4], shapes[1:4]))
    result.add("predicted time as threads grow to 64 warps per SM",
               " > ".join(f"{s['time_us']:.0f}" for s in shapes[:4]) + " us", "more warps hide latency", falling)
    small = shapes[5]
    result.add("blocks of 32 vs 256, a thread per element: theoretical occupancy",
               f"{small['theoretical']:.0f}% vs {per_element['theoretical']:.0f}% (at most 32 blocks per SM)",
               "(each block is one warp)", small["theoretical"] < per_element["theoretical"])
    common.add_predicted(result, "blocks of 32 vs 256, a thread per element", small["timing"],
                         per_element["timing"], figure="small_blocks_ratio")
    one, tail, two = waves[wave], waves[wave + 1], waves[2 * wave]
    if None not in (one, tail, two):
        ratio = common.add_predicted(result, f"{wave + 1} vs {wave} blocks (one block past a full wave)",
                                     tail, one, f"(the last wave: {1 / wave:.2%} more work)",
                                     lambda r: r > 1.1, figure="tail_ratio")
        result.figures["two_waves_ratio"] = two.time_s / one.time_s
        result.add(f"predicted: {2 * wave} blocks (two full waves) vs {wave}",
                   f"{common.us(two)} vs {common.us(one)}: {two.time_s / one.time_s:.2f}x",
                   "(twice the work)", two.time_s > one.time_s and ratio is not None)


def shapes_table(shapes):
    from ..report.terminal import box, table
    titles = ("launch", "threads", "occupancy theoretical / achieved", "predicted", "")
    t = table(f"c = a + s*b over {N:,} elements, by launch shape: predicted on {common.GPU.upper()}",
              [(title, dict(justify="left" if title in ("launch", "") else "right")) for title in titles],
              box=box.SIMPLE_HEAD)
    slowest = max(s["time_us"] or 0 for s in shapes) or 1
    for s in shapes:
        bar = "#" * max(1, round(20 * (s["time_us"] or 0) / slowest))
        t.add_row(s["label"], f"{s['threads']:,}",
                  f"{s['theoretical']:.0f}% / " + ("-" if s["achieved"] is None else f"{s['achieved']:.1f}%"),
                  "-" if s["time_us"] is None else f"{s['time_us']:.2f} us", bar)
    return t
