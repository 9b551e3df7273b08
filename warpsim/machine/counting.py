"""Counting distinct keys of a warp-level access, the way the counters and the timing model both need.

A memory instruction's requests, sectors and lines are distinct (warp, address >> k) keys.
Lanes of a warp usually touch rising addresses, so the keys come sorted and counting
them is one pass over their differences; only scattered accesses pay for a sort.
"""

from __future__ import annotations

import numpy as np


def run_starts(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal values of `keys` begins (of ascending keys: where each distinct one first
    occurs)."""
    new = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    return np.flatnonzero(new)


def unique_ascending(keys: np.ndarray, return_index: bool = False, return_inverse: bool = False,
                     return_counts: bool = False):
    """np.unique(keys, ...) of integer keys, the same arrays, from their runs where the keys already
    ascend (a warp-level access's usually do): one pass instead of a sort or a hash, which cost
    the timing model more than anything else of a small launch's sampled memory accesses."""
    keys = np.asarray(keys)
    if len(keys) < 2 or not (keys[1:] >= keys[:-1]).all():
        return np.unique(keys, return_index=return_index, return_inverse=return_inverse,
                         return_counts=return_counts)
    starts = run_starts(keys)
    out = [keys[starts]]
    if return_index:
        out.append(starts)
    if return_inverse:
        inverse = np.zeros(len(keys), dtype=np.intp)
        inverse[starts[1:]] = 1
        out.append(np.cumsum(inverse))
    if return_counts:
        out.append(np.diff(np.append(starts, len(keys))))
    return out[0] if len(out) == 1 else tuple(out)


def distinct_count(keys: np.ndarray) -> int:
    """How many distinct values `keys` holds (one pass when they are already sorted)."""
    if len(keys) > 1:
        step = np.diff(keys)
        if (step >= 0).all():
            return 1 + int(np.count_nonzero(step))
        return len(np.unique(keys))
    return len(keys)


def conflict_free_wavefronts(warps: np.ndarray, lanes: np.ndarray, addrs: np.ndarray, nbytes: int):
    """Wavefronts of a shared access of 8 or 16 aligned bytes a lane by whole warps (lanes 0-31 in
    order, one warp each) where no phase has a bank conflict, else None (count it the long way).

    Such an access runs in nbytes // 4 phases of 32 // (nbytes // 4) lanes, each lane asking for
    2 or 4 consecutive banks; a phase whose lanes ask for every group of banks once (a swizzled
    tile: a matmul's cp.async copies into shared memory) takes one wavefront. So the access takes
    one wavefront per phase, and only the groups' bits of each address need looking at."""
    n = len(lanes)
    if nbytes not in (8, 16) or n == 0 or n % 32:
        return None
    if not (lanes.reshape(-1, 32) == np.arange(32)).all():
        return None
    warp_rows = warps.reshape(-1, 32)
    if not (warp_rows == warp_rows[:, :1]).all():
        return None
    offsets = addrs.astype(np.int64)
    if (offsets & (nbytes - 1)).any():
        return None
    lanes_per_phase = 128 // nbytes                      # = groups of banks a phase can ask for
    groups = (offsets >> (nbytes.bit_length() - 1)) & (lanes_per_phase - 1)
    asked = np.bitwise_or.reduce(np.left_shift(1, groups).reshape(-1, lanes_per_phase), axis=1)
    if not (asked == (1 << lanes_per_phase) - 1).all():
        return None
    return len(asked)


def _quads_pair_up(warps: np.ndarray, lanes: np.ndarray, element: np.ndarray) -> np.ndarray:
    """Per record: whether every lane quad of its warp reads (a, a, b, b) or (a, b, a, b) elements
    (one element throughout included; a lane that is not there matches any)."""
    ids, inverse = np.unique(warps, return_inverse=True)
    grid = np.full((len(ids), 32), -1, dtype=np.int64)
    grid[inverse, lanes] = element
    q = grid.reshape(len(ids), 8, 4)

    def same(i, j):
        a, b = q[:, :, i], q[:, :, j]
        return (a == b) | (a < 0) | (b < 0)
    paired = (same(0, 1) & same(2, 3)) | (same(0, 2) & same(1, 3))
    return paired.all(axis=1)[inverse]


def shared_bank_wavefronts(warps: np.ndarray, lanes: np.ndarray, offsets: np.ndarray, nbytes: int,
                           load: bool = True) -> tuple:
    """(wavefronts, ideal wavefronts) of one shared access by the given lanes of the given warps,
    each lane reading or writing nbytes at its byte offset in shared memory.

    The access runs in phases: the whole warp for up to 4 bytes a lane, half-warps for 8, quarter-
    warps for 16. A phase takes as many wavefronts as the most distinct 4-byte words one of the 32
    banks is asked for. A load of 8 or 16 bytes whose every lane quad reads (a, a, b, b) or
    (a, b, a, b) runs in phases of twice the lanes (the whole warp, half-warps): the H200 counts 1
    wavefront where the warp reads one 8-byte element and 2 where it reads one 16-byte element,
    and a quad of (a, a, a, b) keeps the narrow phases (309 lane patterns of 4, 8 and 16 bytes,
    validation/shared_wavefronts, all equal to ncu's). Stores keep the narrow phases (not
    measured)."""
    warps = np.asarray(warps, dtype=np.int64)
    lanes = np.asarray(lanes, dtype=np.int64)
    free = conflict_free_wavefronts(warps, lanes, offsets, nbytes)
    if free is not None:                            # swizzled 8/16-byte accesses: a wavefront a phase
        return free, free
    word = np.asarray(offsets, dtype=np.int64) >> 2
    phases = np.full(len(word), 1 if nbytes <= 4 else min(32, nbytes // 4), dtype=np.int64)
    if load and nbytes in (8, 16):
        phases[_quads_pair_up(warps, lanes, word)] //= 2
    row = warps * 8 + lanes // (32 // phases)
    words_per_lane = max(1, nbytes // 4)
    if words_per_lane > 1:
        word = (word[:, None] + np.arange(words_per_lane)).ravel()
        row = np.repeat(row, words_per_lane)
    key = (row - row.min()) << 32 | word
    step = np.diff(key)
    if len(key) > 1 and not (step >= 0).all():
        key = np.sort(key)                     # distinct words per row (NumPy 2's hashing unique is slower)
        step = np.diff(key)
    if len(key) > 1:
        key = key[np.concatenate(([True], step != 0))]
    rows, bank = key >> 32, key & 31
    _, inverse = np.unique(rows, return_inverse=True)
    per_bank = np.bincount(inverse * 32 + bank, minlength=(int(inverse.max()) + 1) * 32).reshape(-1, 32)
    per_row = per_bank.max(axis=1)
    return int(per_row.sum()), int(np.count_nonzero(per_row))
