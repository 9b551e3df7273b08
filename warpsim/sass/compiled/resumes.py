"""Which splits of a warp make the hardware resume a waiting half slowly: each warp's open splits.

A warp a branch splits runs one half first, the half with fewer lanes (on a tie, the lanes that
fall through), and keeps the other; when the half it runs blocks at a BSYNC it resumes the half it
kept. That resume is quick when no other split came in between, and about 35 cycles slower when the
half that ran first split again before blocking (the kept half is then no longer the last split's
other half). Measured on an H100 (validation/timing/microbench63.cu, 64): a loop splitting the lanes of
`if (lane & 1)` costs 34-40 cycles a round beyond the split and BSYNC costs, whichever lanes leave or
go on and whichever is the lowest; inside `if (lane != 0)`, whose lone lane 0 runs first and blocks
before the loop splits, 5-8; two nested branches that each split, twice as much; two branches one
after the other that each split the whole warp, nothing more.

`note_split` keeps, per warp, a stack of its open splits (the half that ran first, the half kept,
whether a split inside the first half was seen), and is called for every split of a warp in issue
order, by the SASS round loop (round_loop.py) and the Python rounds' timing recorder alike, on one
array per batch (`open_splits`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .machine_code import forget_if_stale

DEPTH = 8                       # open splits kept per warp (deeper ones are not followed)
FIRST, KEPT, SEEN = 0, 1, 2     # a stack entry: lane bits of the half run first, of the half kept; 1 once slow


@njit(inline="always")
def _lanes(bits):
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def note_split(opened, count, w, group, jumped):
    """Warp w's lanes `group` (bits) split at a branch, `jumped` of them to its label. Returns 1 where
    this split is the first inside the half an open split ran first (that split's kept half will be
    resumed slowly), else 0; the split is then open. Open splits this group is not inside are closed
    (their halves rejoined, or the kept half runs now)."""
    n = count[w]
    slow = 0
    while n > 0:
        k = n - 1
        if group & ~opened[w, k, FIRST] == 0:
            if opened[w, k, SEEN] == 0:
                opened[w, k, SEEN] = 1
                slow = 1
            break
        n -= 1
    fell = group & ~jumped
    first = fell if _lanes(fell) <= _lanes(jumped) else jumped
    if n < DEPTH:
        opened[w, n, FIRST] = first
        opened[w, n, KEPT] = group & ~first
        opened[w, n, SEEN] = 0
        n += 1
    count[w] = n
    return slow


forget_if_stale(note_split)


def open_splits(st) -> tuple:
    """The batch's (stack entries per warp, open splits per warp), made on first use."""
    stacks = st.__dict__.get("_open_splits")
    if stacks is None:
        stacks = st._open_splits = (np.zeros((st.n_warps, DEPTH, 3), dtype=np.int64),
                                    np.zeros(st.n_warps, dtype=np.int64))
    return stacks


def note_splits(st, g, jumped: np.ndarray) -> int:
    """note_split for each warp of an issued group (the Python rounds) that a branch split, `jumped`
    per lane whether it went to the branch's label; returns how many splits make a slow resume."""
    warps, starts, _ = g.warp_runs()
    bits = np.left_shift(np.int64(1), g.idx & 31)
    group = np.bitwise_or.reduceat(bits, starts)
    jump = np.bitwise_or.reduceat(np.where(jumped, bits, np.int64(0)), starts)
    split = (jump != 0) & (jump != group)
    return _note_each(*open_splits(st), warps[split].astype(np.int64), group[split], jump[split])


@njit(cache=True, nogil=True)
def _note_each(opened, count, warps, group, jump):
    slow = 0
    for k in range(warps.shape[0]):
        slow += note_split(opened, count, warps[k], group[k], jump[k])
    return slow


forget_if_stale(_note_each)
