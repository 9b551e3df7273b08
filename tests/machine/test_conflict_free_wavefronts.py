"""machine.counting.conflict_free_wavefronts: the shortcut the counters and the timing model take for
swizzled 8- and 16-byte shared accesses gives what counting every lane's bank words gives.

Whole warps whose phases ask for every group of banks once (XOR-swizzled tiles, as Triton's
cp.async copies write them), the same with one lane moved onto another's group (a conflict:
the shortcut must decline), misaligned and partial warps: metrics.counters.shared_wavefronts
and timing.execution.shared_request_wavefronts equal a per-phase count of distinct words by
bank, done lane by lane.
"""

import numpy as np
import pytest

from warpsim.machine.counting import conflict_free_wavefronts
from warpsim.machine.memory import SHARED_WINDOW
from warpsim.metrics.counters import shared_wavefronts
from warpsim.timing.execution import shared_request_wavefronts


def wavefronts_by_lane(idx, offsets, nbytes):
    """Sum over warps and phases of the largest count of distinct words one bank is asked for."""
    phases, words = nbytes // 4, nbytes // 4
    total = 0
    for warp in np.unique(idx >> 5):
        for phase in range(phases):
            asked = {(int(offsets[k]) >> 2) + j for k in np.flatnonzero(idx >> 5 == warp)
                     if (int(idx[k]) & 31) // (32 // phases) == phase for j in range(words)}
            if asked:
                total += int(np.bincount([word & 31 for word in asked], minlength=32).max())
    return total


def swizzled_offsets(rng, warps, nbytes):
    """Each phase's lanes on every group of banks once: row-major 128-byte rows, chunks XOR row."""
    per_phase = 128 // nbytes
    lanes = np.arange(32)
    row = rng.integers(0, 64, (warps, 1)) * (32 // per_phase) + lanes // per_phase
    chunk = (lanes % per_phase) ^ (row % per_phase) if rng.random() < 0.5 else rng.permuted(
        np.broadcast_to(np.arange(per_phase), (warps, 32 // per_phase, per_phase)), axis=2).reshape(warps, 32)
    return (row * 128 + chunk * nbytes).ravel()


@pytest.mark.parametrize("nbytes", [8, 16])
@pytest.mark.parametrize("case", ["swizzled", "one_conflict", "misaligned", "partial"])
def test_shortcut_equals_counting_every_lane(nbytes, case):
    rng = np.random.default_rng([nbytes, len(case)])
    for _ in range(10):
        warps = int(rng.integers(1, 5))
        slots = np.sort(rng.choice(16, warps, replace=False))
        idx = (slots[:, None] * 32 + np.arange(32)).ravel()
        offsets = swizzled_offsets(rng, warps, nbytes)
        if case == "one_conflict":
            lane = int(rng.integers(len(offsets)))
            offsets[lane] = offsets[lane ^ 1] + 128 * int(rng.integers(1, 4))
        elif case == "misaligned":
            offsets = offsets + 4
        elif case == "partial":
            keep = rng.random(len(idx)) < 0.8
            idx, offsets = idx[keep], offsets[keep]
        addrs = (offsets + SHARED_WINDOW).astype(np.uint64)
        want = wavefronts_by_lane(idx, offsets, nbytes)
        shortcut = conflict_free_wavefronts(idx >> 5, idx & 31, addrs, nbytes)
        assert (shortcut is not None) == (case == "swizzled")
        assert shortcut is None or shortcut == want
        assert shared_wavefronts(idx, addrs, nbytes)[1] == want
        assert shared_request_wavefronts(idx >> 5, addrs, idx & 31, nbytes) == want
