"""Variable-length loops: a warp runs until its longest lane is done."""

from __future__ import annotations

import numpy as np

from ..report.activity import terminal_strips
from . import common

NAME = "loops"
TITLE = "Variable-length loops"
CLAIM = """
Each thread loops over one token sequence. In a warp whose lengths are 10 for
31 lanes and 200 for one lane, the warp runs 200 iterations: useful
lane-iterations are 31 x 10 + 200 = 510 of 32 x 200 = 6,400 available, about
8% SIMT efficiency. Sorting sequences by length before assigning them to
threads puts similar lengths in each warp and raises it close to 100%.
"""
KERNELS = "loops.cu"
WARPS = 32                       # a batch of 32 warps: 1024 sequences
SHORT, LONG = 10, 200
CASE_TITLES = {"document": "31 x 10 + 1 x 200 per warp", "realistic": "lengths 1..200 at random"}


def document_batch(rng) -> np.ndarray:
    """Every warp as in the document: 31 lanes of length 10, one lane of 200 (at a random lane)."""
    lengths = np.full((WARPS, 32), SHORT, dtype=np.int32)
    lengths[np.arange(WARPS), rng.integers(0, 32, WARPS)] = LONG
    return lengths.ravel()


def realistic_batch(rng) -> np.ndarray:
    """Lengths spread evenly from 1 to 200 tokens."""
    return rng.integers(1, LONG + 1, WARPS * 32).astype(np.int32)


def loop_efficiency(lengths: np.ndarray) -> float:
    """What the document computes: useful / available lane-iterations, warp by warp."""
    per_warp = lengths.reshape(-1, 32)
    return float(per_warp.sum() / (32 * per_warp.max(axis=1)).sum())


def run(console=None) -> common.DemoResult:
    from .. import api
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(7)
    loop_lines = [common.source_line_of(KERNELS, "for (int t = 0;"),
                  common.source_line_of(KERNELS, "acc = acc * 0.5f")]
    loop_ptx = common.loop_ptx_lines(common.module(KERNELS).get_function("per_token"))
    n = WARPS * 32
    tokens = api.asarray(rng.standard_normal(LONG * n).astype(np.float32))
    cases = {}
    for case, lengths in (("document", document_batch(rng)), ("realistic", realistic_batch(rng))):
        for order in ("as given", "sorted"):
            values = np.sort(lengths) if order == "sorted" else lengths
            out = api.zeros(n, dtype=np.float32)
            r = common.launch(KERNELS, "per_token", WARPS, 32, (api.asarray(values), tokens, out, np.int32(n)),
                              label=f"per_token, {CASE_TITLES[case]}, {order}")
            cases[case, order] = (r, values)
            result.runs.append(r)
    # the first warp alone is the document's example
    trace = cases["document", "as given"][0].trace
    warp0 = trace.recorded(0)
    warp0_eff = float(warp0[np.isin(trace.ptx_line[0, :len(warp0)], sorted(loop_ptx))].mean()) / 32
    eff = {key: common.lanes_on_ptx_lines(r, loop_ptx) / 32 for key, (r, _) in cases.items()}
    result.figures.update(
        warp0_loop_efficiency=warp0_eff,
        document_unsorted=eff["document", "as given"], document_sorted=eff["document", "sorted"],
        realistic_unsorted=eff["realistic", "as given"], realistic_sorted=eff["realistic", "sorted"],
        issued_unsorted=cases["document", "as given"][0].issued,
        issued_sorted=cases["document", "sorted"][0].issued,
        predicted_realistic_unsorted=loop_efficiency(cases["realistic", "as given"][1]),
        predicted_realistic_sorted=loop_efficiency(cases["realistic", "sorted"][1]))
    result.add("one warp, 31 x 10 + 1 x 200: SIMT efficiency in the loop", f"{100 * warp0_eff:.2f}%",
               "510 / 6,400 = 7.97%", abs(warp0_eff - 510 / 6400) < 0.005)
    result.add(f"{WARPS} such warps, sorted by length", common.pct(eff["document", "sorted"]),
               "close to 100%", eff["document", "sorted"] >= 0.95)
    result.add("issued warp instructions, as given / sorted",
               f"{cases['document', 'as given'][0].issued} / {cases['document', 'sorted'][0].issued}",
               "(warps stop early)", cases["document", "sorted"][0].issued < cases["document", "as given"][0].issued)
    result.add("lengths 1..200 at random: as given -> sorted",
               f"{common.pct(eff['realistic', 'as given'])} -> {common.pct(eff['realistic', 'sorted'])}",
               "close to 100% sorted", eff["realistic", "sorted"] >= 0.95)
    unsorted, ordered = cases["realistic", "as given"][0], cases["realistic", "sorted"][0]
    if unsorted.timing is not None and ordered.timing is not None:
        speedup = unsorted.timing.cycles / ordered.timing.cycles
        result.figures["predicted_sorting_speedup"] = speedup
        result.add(f"predicted on {common.GPU.upper()}, random lengths: as given vs sorted",
                   f"{common.predicted(unsorted)} vs {common.predicted(ordered)}", "sorting is faster",
                   speedup > 1)
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  per_token over {n} sequences ({WARPS} warps); the loop is lines "
                            f"{loop_lines[0]}-{loop_lines[1]} of {KERNELS}, one trip per token (#pragma unroll 1); "
                            f"efficiency is measured on the loop's {len(loop_ptx)} PTX instructions.")
        width = common.strip_width(console)
        for key, rows in ((("document", "as given"), [0, 1, 2]), (("document", "sorted"), [0, 1, WARPS - 1])):
            r = cases[key][0]
            common.say(console, "  ", (r.label, "bold"), f"  (warps {', '.join(map(str, rows))})")
            console.print(terminal_strips(r.trace, warps=rows, width=width), end="")
        console.print(common.figures_table(result))
    return result
