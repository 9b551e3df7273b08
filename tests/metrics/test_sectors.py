"""A global access's requests, sectors and lines (counters.global_sectors, and metrics/sectors.py's
pass for accesses that are not whole warps of consecutive elements) are the distinct warps, (warp,
32-byte sector) and (warp, 128-byte line) pairs its lanes touch, on random accesses of every shape."""

from __future__ import annotations

import numpy as np

from warpsim.metrics.counters import global_sectors
from warpsim.metrics.sectors import global_counts, whole_warp_starts


def _accesses(rng):
    base = 0x7F00_0000_0000 + int(rng.integers(0, 1 << 20)) * 4
    for _ in range(300):
        warps = int(rng.integers(1, 12))
        idx = np.arange(warps * 32, dtype=np.int64) + 32 * int(rng.integers(0, 100))
        if rng.random() < 0.5:                           # scattered lanes: a divergent group
            idx = np.sort(rng.choice(idx, int(rng.integers(1, len(idx) + 1)), replace=False))
        if rng.random() < 0.2:                           # a lane once per element (a bulk copy's chunks)
            idx = np.repeat(idx, int(rng.integers(2, 9)))
        nbytes = int(rng.choice([1, 2, 4, 8, 16]))
        lane = idx.astype(np.int64)
        shape = rng.integers(0, 5)
        if shape == 0:                                   # consecutive elements
            addrs = base + lane * nbytes
        elif shape == 1:                                 # strided, wrapping from warp to warp (rows)
            addrs = base + ((lane * 37) % 1024) * 128 + int(rng.integers(0, 4)) * nbytes
        elif shape == 2:                                 # anywhere, unaligned: lanes straddle sectors
            addrs = base + rng.integers(0, 1 << 14, len(idx))
        elif shape == 3:                                 # one address for all lanes
            addrs = np.full(len(idx), base + int(rng.integers(0, 512)))
        else:                                            # a few hot places, descending
            addrs = base + (rng.integers(0, 6, len(idx)) * 96)[::-1]
        yield idx, np.asarray(addrs).astype(np.uint64), nbytes


def _touched(idx, addrs, nbytes, shift) -> int:
    return len({(int(i) >> 5, unit) for i, a in zip(idx, addrs)
                for unit in range(int(a) >> shift, ((int(a) + nbytes - 1) >> shift) + 1)})


def test_requests_sectors_and_lines_are_the_distinct_warps_and_units_touched():
    rng = np.random.default_rng(11)
    for idx, addrs, nbytes in _accesses(rng):
        expected = (len(set((idx >> 5).tolist())), _touched(idx, addrs, nbytes, 5), _touched(idx, addrs, nbytes, 7))
        assert global_sectors(idx, addrs, nbytes) == expected, (nbytes, addrs)
        assert global_counts(idx, addrs, nbytes) == expected, (nbytes, addrs)
    assert global_counts(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64), 4) == (0, 0, 0)


def test_whole_warp_starts_in_machine_code_and_in_numpy_agree():
    """sectors.whole_warp_starts' pass (int64 lanes, 64-bit addresses) and its NumPy passes (other
    types) find the same warps; a run of 32 lanes that is no warp (40..71 after warp 0: parts of warps 1
    and 2) makes none, and the access is three requests."""
    rng = np.random.default_rng(12)
    found = 0
    for idx, addrs, nbytes in _accesses(rng):
        fast = whole_warp_starts(idx, addrs, nbytes)
        slow = whole_warp_starts(idx.astype(np.int32), addrs, nbytes)
        signed = whole_warp_starts(idx, addrs.astype(np.int64), nbytes)
        assert (fast is None) == (slow is None) == (signed is None)
        if fast is not None:
            found += 1
            np.testing.assert_array_equal(fast, slow)
            np.testing.assert_array_equal(fast, signed)
            np.testing.assert_array_equal(fast, addrs[::32].astype(np.int64))
    assert found > 20
    lanes = np.concatenate((np.arange(32), np.arange(40, 72))).astype(np.int64)
    addrs = (0x7F00_0000_0000 + lanes * 4).astype(np.uint64)
    assert whole_warp_starts(lanes, addrs, 4) is None and whole_warp_starts(lanes.astype(np.int32), addrs, 4) is None
    assert global_sectors(lanes, addrs, 4) == (3, _touched(lanes, addrs, 4, 5), _touched(lanes, addrs, 4, 7))
