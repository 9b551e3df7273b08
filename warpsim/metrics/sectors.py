"""A global access's requests, sectors and lines in one machine-code pass over its warps.

counters.global_sectors counts the distinct (warp, 32-byte sector) and (warp, 128-byte
line) pairs of an access that is not the common one (each warp's 32 lanes reading
consecutive elements) with NumPy: a 64-bit key per lane (per sector, for lanes that
straddle one), and a pass over their differences, or a sort of all of them when the keys
do not rise (a strided access over rows wraps its addresses from warp to warp). A loop of
strided loads (bench/sass_profiling.py's row_dot) spends a third of its SASS run there.
Per warp the units a lane touches are [address >> shift, (address + bytes - 1) >> shift]:
this pass counts them warp by warp, on the units of that warp alone (a pass when they
rise lane by lane, else a sort of at most 32 lanes' units).
"""

from __future__ import annotations

import numpy as np
from numba import njit

SECTOR_SHIFT = 5          # 32-byte sectors
LINE_SHIFT = 7            # 128-byte cache lines


def global_counts(idx: np.ndarray, addrs, nbytes: int) -> tuple:
    """(requests, sectors, lines) of one warp-level access by the sorted lanes idx, nbytes each from
    addrs (one per lane, or one for all), as counters.global_sectors counts them."""
    addrs = np.asarray(addrs)
    if addrs.ndim == 0:
        addrs = np.full(len(idx), addrs, dtype=addrs.dtype)
    out = np.zeros(3, dtype=np.int64)
    _global_counts(idx.astype(np.int64, copy=False), addrs.astype(np.int64, copy=False), int(nbytes), out)
    return int(out[0]), int(out[1]), int(out[2])


@njit(cache=True, nogil=True)
def _global_counts(idx, addrs, nbytes, out):
    n = idx.shape[0]
    units = np.empty(n * (nbytes // 32 + 2), dtype=np.int64)      # the units of one warp's lanes (a bulk
    #                                                               copy lists a lane once per element)
    start = 0
    while start < n:
        warp = idx[start] >> 5
        stop = start + 1
        while stop < n and (idx[stop] >> 5) == warp:
            stop += 1                               # one warp's lanes: one request
        out[0] += 1
        out[1] += _distinct_units(addrs, start, stop, nbytes, SECTOR_SHIFT, units)
        out[2] += _distinct_units(addrs, start, stop, nbytes, LINE_SHIFT, units)
        start = stop


@njit(inline="always")
def _distinct_units(addrs, start, stop, nbytes, shift, units):
    """Distinct units of 2**shift bytes the lanes [start, stop) touch: counted in the pass that lists
    them while they rise lane by lane, else from the sorted list."""
    m = 0
    count = 0
    previous = np.int64(-1) << 62
    rising = True
    for j in range(start, stop):
        unit = addrs[j] >> shift
        last = (addrs[j] + (nbytes - 1)) >> shift
        rising &= unit >= previous
        count += unit != previous
        units[m] = unit
        m += 1
        while unit < last:                          # a lane that straddles units
            unit += 1
            count += 1
            units[m] = unit
            m += 1
        previous = unit
    if rising:
        return count
    ordered = np.sort(units[:m])
    count = 1
    for k in range(1, m):
        count += ordered[k] != ordered[k - 1]
    return count


def whole_warp_starts(idx: np.ndarray, addrs, nbytes: int):
    """Per warp, the first lane's address (int64), when idx is whole warps (all 32 lanes of each, in
    order) and each warp's lanes access consecutive nbytes-wide elements in lane order (the common
    access, whose requests, sectors and lines come from one address per warp); else None. One
    machine-code pass for int64 lanes and 64-bit addresses (the NumPy passes it replaced were a
    tenth of a small kernel's profiled SASS run), the NumPy passes otherwise."""
    n = len(idx)
    if n == 0 or n & 31 or np.ndim(addrs) != 1 or len(addrs) != n:
        return None
    addrs = np.asarray(addrs)
    if idx.dtype == np.int64 and addrs.dtype in (np.int64, np.uint64) and idx.flags.c_contiguous \
            and addrs.flags.c_contiguous:
        starts = np.empty(n >> 5, dtype=np.int64)
        return starts if _whole_warp_starts(idx, addrs, addrs.dtype.type(nbytes), starts) else None
    firsts = idx[::32]
    if (firsts & 31).any() or not ((idx[31::32] - firsts) == 31).all():
        return None
    a = addrs.reshape(-1, 32)
    if not (np.diff(a, axis=1) == nbytes).all():       # a wrapped address is no neighbour either
        return None
    return a[:, 0].astype(np.int64)


@njit(cache=True, nogil=True)
def _whole_warp_starts(idx, addrs, step, starts):
    """whole_warp_starts' test and answer: the differences in the addresses' own type, as np.diff's."""
    for w in range(idx.shape[0] >> 5):
        base = w * 32
        first = idx[base]
        if first & 31 or idx[base + 31] - first != 31:
            return False
        for k in range(base + 1, base + 32):
            if addrs[k] - addrs[k - 1] != step:
                return False
        starts[w] = addrs[base]
    return True
