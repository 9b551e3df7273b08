"""How far back a CTA read a sector it reads again, and what share of such re-reads an SM's L1 keeps.

An L1 keeps a line a CTA reads again only while the lines the SM touched in between fit it. The
distance of a re-read is the number of distinct 128-byte lines its CTA read since its last read of
that sector (the LRU stack distance, counted in the CTA's own order of loads); the SM's CTAs
together touch about resident CTAs x that many (model.l1_misses).

The share kept (`kept_share`) is the nineteenth batch's (validation/timing/microbench19.cu): warps
sweeping regions of their own with dependent loads, the SM's regions from 16 KB to 512 KB,
re-read sectors that hit L1 by ncu (lookup hits over re-reads):

    regions / L1        <= 0.95   1.03   1.10   1.17   1.45   1.47   2.35   2.9
    kept                  1.00    0.93   0.92   0.86   0.32   0.42   0.00   0.00
    kept_share            1.00    0.99   0.93   0.84   0.35   0.31   0.00   0.00

with L1 the unified 256 KB less the carve-out ncu reports (32 KB without shared memory, 228 KB with
100-200 KB of it) less L1_RESERVED_BYTES: the same curve holds for the 224 KB L1 and the 28 KB one
only with 6 KB of either unavailable to loads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

L1_RESERVED_BYTES = 6 * 1024
OVERFLOW_SPAN = 0.6     # kept share falls from 1 to 0 as the lines between reach (1 + this) x L1
OVERFLOW_POWER = 1.5
# distances are kept rounded to the nearest of 8 steps per power of two (within 4.4%)
BUCKETS_PER_OCTAVE = 8


def kept_share(ratio) -> np.ndarray:
    """Share of re-reads the L1 still holds when the SM touched `ratio` x its L1's lines in between."""
    over = np.clip((np.asarray(ratio, dtype=float) - 1.0) / OVERFLOW_SPAN, 0.0, 1.0)
    return 1.0 - over ** OVERFLOW_POWER


@njit(cache=True, nogil=True)
def _stack_distances(line: np.ndarray, previous: np.ndarray, n_lines: int) -> np.ndarray:
    """For each access t with an earlier access previous[t] >= 0 of its sector: the distinct lines of
    the accesses strictly between them (a Fenwick tree over positions marks each line's latest
    access); -1 for the rest."""
    n = len(line)
    tree = np.zeros(n + 1, dtype=np.int64)
    last = np.full(n_lines, -1, dtype=np.int64)
    out = np.full(n, -1, dtype=np.int64)
    for t in range(n):
        p = previous[t]
        if p >= 0:
            # marks in (p, t): prefix(t - 1) - prefix(p)
            total = 0
            i = t
            while i > 0:
                total += tree[i]
                i -= i & -i
            i = p + 1
            while i > 0:
                total -= tree[i]
                i -= i & -i
            out[t] = total
        lp = last[line[t]]
        if lp >= 0:
            i = lp + 1
            while i <= n:
                tree[i] -= 1
                i += i & -i
        i = t + 1
        while i <= n:
            tree[i] += 1
            i += i & -i
        last[line[t]] = t
    return out


def stack_distances(sectors: np.ndarray) -> tuple:
    """Per access of `sectors` (keys in access order, whose bits above the lowest two name the line):
    (distinct lines touched since the last access of the same sector, that access's index), both -1
    at a sector's first access."""
    sectors = np.asarray(sectors, dtype=np.int64)
    if len(sectors) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # one stable sort gives both each access's predecessor on its sector and dense line ids
    order = np.argsort(sectors, kind="stable")
    ordered = sectors[order]
    same = ordered[1:] == ordered[:-1]
    previous = np.full(len(sectors), -1, dtype=np.int64)
    previous[order[1:][same]] = order[:-1][same]
    line = np.empty(len(sectors), dtype=np.int64)
    line[order] = np.cumsum(np.concatenate(([0], (ordered[1:] >> 2) != (ordered[:-1] >> 2))))
    return _stack_distances(line, previous, int(line[order[-1]]) + 1), previous


def bucket_steps(distances: np.ndarray) -> np.ndarray:
    """Each distance (lines, >= 0) as the nearest whole number of steps of BUCKETS_PER_OCTAVE a power
    of two, from 1 line (float): bucket's value, as a whole number a key can hold."""
    d = np.maximum(np.asarray(distances, dtype=float), 1.0)
    return np.round(np.log2(d) * BUCKETS_PER_OCTAVE)


def bucket(distances: np.ndarray) -> np.ndarray:
    """Each distance (lines, >= 0) rounded to the nearest step of BUCKETS_PER_OCTAVE a power of two."""
    return np.exp2(bucket_steps(distances) / BUCKETS_PER_OCTAVE)


# Lines every SM reads at random sit in both halves of a partitioned L2 (an SM's requests go through
# its near partition, which keeps its own copy of far lines), so such data has about half the L2's
# bytes. The forty-first batch on an H100 (50 MB of L2; validation/timing/h100/microbench41_ncu.csv):
# 8M random reads of one float over 32 and 64 MB moved 130.3 and 363.3 MB from HBM, 25.4 and 25.0 MB
# of L2 by random_reread_misses below; at 4-16 MB each 64-byte block came from HBM once.
L2_RANDOM_SHARE = 0.5
HBM_BLOCK_BYTES = 64       # what a read that misses the L2 fetches from HBM (execution.chunk_keys)
GAP_HORIZON = 40.0         # gaps beyond 40 means: a share e^-40 of the re-reads, none


def random_blocks(region: float, requested: float) -> float:
    """Bytes of the distinct blocks among `requested` bytes of blocks read at random over `region`."""
    return region * -np.expm1(-requested / region) if region > 0 else 0.0


def random_reread_misses(region: float, requested: float, streamed: float, capacity: float) -> float:
    """The share of re-reads an LRU cache of `capacity` bytes misses, of `requested` bytes of blocks
    read at random over `region` bytes while `streamed` more bytes pass through it over the same
    time (the launch's other lines, spread evenly over it).

    A block is read again after a gap whose length is exponential with mean `region` bytes of
    requests; over a gap of x means the cache takes in region * (1 - e^-x) bytes of this region's
    blocks and x * streamed * region / requested of the others. The re-read hits when that stays
    under `capacity`, up to the gap x* where it reaches it: a share 1 - e^-x* of the re-reads hits
    (with nothing streamed, capacity / region: the characteristic-time approximation of LRU)."""
    if region <= 0 or requested <= 0:
        return 0.0
    per_gap = streamed * region / requested

    def taken(x):
        return region * -np.expm1(-x) + per_gap * x

    if taken(GAP_HORIZON) <= capacity:
        return 0.0
    low, high = 0.0, GAP_HORIZON
    for _ in range(50):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if taken(mid) < capacity else (low, mid)
    return float(np.exp(-low))
