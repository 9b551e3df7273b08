"""Wrong masks: a full-mask shuffle after an early return."""

from __future__ import annotations

import io
import warnings

import numpy as np

from . import common

NAME = "masks"
TITLE = "Wrong masks: a full-mask shuffle after an early return"
CLAIM = """
The mask argument names the lanes that participate, and every lane named must
reach the same intrinsic. Calling a full-mask shuffle where some lanes have
exited, for example after an early return for out-of-range indices, is
undefined. Keep all lanes alive through the collective and mask the data
instead.
"""
KERNELS = "masks.cu"
N = 1000                          # 31 full warps and one with 8 live lanes
THREADS = 256


def checked_sum(kernel: str, x: np.ndarray):
    """(sum, synccheck errors, run) of one launch under `warpsim check --tool synccheck`."""
    from .. import api
    from ..sanitizer import check
    out = api.zeros(1, dtype=np.float32)
    with warnings.catch_warnings(), check(tools="synccheck", stream=io.StringIO()) as session:
        warnings.simplefilter("ignore")          # the SyncWarning says what synccheck reports
        run = common.launch(KERNELS, kernel, (N + THREADS - 1) // THREADS, THREADS,
                            (api.asarray(x), out, np.int32(N)), label=kernel)
    return float(out.get()[0]), session.errors, run


def run(console=None) -> common.DemoResult:
    result = common.DemoResult(NAME, TITLE)
    x = np.random.default_rng(11).integers(-100, 100, N).astype(np.float32)   # exact float sums
    expected = float(x.sum())
    bad_sum, bad_errors, bad_run = checked_sum("sum_early_return", x)
    good_sum, good_errors, good_run = checked_sum("sum_masked_data", x)
    result.runs += [bad_run, good_run]
    first = bad_errors[0].text() if bad_errors else ""
    kinds = sorted({e.kind for e in bad_errors})
    exited_mask = (0xFFFFFFFF << (N % 32)) & 0xFFFFFFFF          # lanes N % 32 .. 31 of the last warp
    shuffles = len({e.text().splitlines()[1] for e in bad_errors})
    result.figures.update(expected=expected, early_return_sum=bad_sum, masked_sum=good_sum,
                          early_return_errors=len(bad_errors), masked_errors=len(good_errors),
                          error_kinds=kinds, shuffles_reported=shuffles, first_error=first)
    result.add("warpsim check (synccheck): shuffles reported, early-return version",
               f"{shuffles} of 5 ({', '.join(kinds)})", "undefined: named lanes have exited",
               shuffles == 5 and kinds == ["shfl_absent_source", "sync_exited_lanes"])
    result.add("lanes named by the mask that have exited (last warp)", f"0x{exited_mask:08x}",
               "some lanes have exited", f"exited 0x{exited_mask:08x}" in first)
    result.add("early-return sum (the hardware's is undefined)", f"{bad_sum:g}, true sum {expected:g}",
               "undefined", True)
    result.add("fix, mask the data: sum and synccheck errors", f"{good_sum:g}, {len(good_errors)}",
               f"{expected:g}, none", good_sum == expected and not good_errors)
    common.add_predicted(result, "early return vs masked data", bad_run, good_run,
                         "(the fix keeps every lane to the end)")
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  {N} elements, blocks of {THREADS}: the last warp has {N % 32} live lanes; "
                            f"`if (i >= n) return;` then __shfl_down_sync(0xffffffff, ...):")
        for line in first.splitlines()[:6]:
            common.say(console, f"    {line}", highlight=False)
        console.print(common.figures_table(result))
    return result
