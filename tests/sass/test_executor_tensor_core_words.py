"""mma.sync, wmma and wgmma on both executors against the words an H200 computed.

The kernels and inputs are validation/hopper/mma_rounding.py's (h200_mma_rounding.npz): a
warp (wgmma: a warpgroup) per case, inputs built to tell accumulation rules apart. The PTX
machine's result must equal the H200's word for word, and under the profiler the SASS run
(HMMA, HGMMA, QGMMA; fp8 mma.sync as ptxas lowers it: F2FP.UNPACK_B, two HMMAs, FADD) must
write the same bytes (level 'sass').
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import warpsim as cp

pytestmark = [pytest.mark.sass]

HOPPER = os.path.join(os.path.dirname(__file__), "..", "..", "validation", "hopper")
sys.path.insert(0, HOPPER)

import mma_rounding  # noqa: E402

RECORDED = np.load(os.path.join(HOPPER, "h200_mma_rounding.npz"))


def run(form: str) -> np.ndarray:
    """The form's recorded cases on warpsim: the result words, as the recording holds them."""
    inputs = [RECORDED[f"{form}_{part}"] for part in "abc"]
    runner = mma_rounding.RUNNERS[mma_rounding.FORMS[form][0]]
    return runner(cp, lambda ptx: cp.RawModule(ptx=ptx), form, *inputs)


@pytest.mark.parametrize("form", [form for form in mma_rounding.FORMS if f"{form}_d" in RECORDED.files])
def test_ptx_and_sass_runs_equal_the_h200(form):
    words = RECORDED[f"{form}_d"]
    np.testing.assert_array_equal(run(form), words)
    with cp.profile() as prof:
        got = run(form)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    np.testing.assert_array_equal(got, words)
