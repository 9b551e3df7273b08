"""Coalescing and bank-conflict arithmetic on hand-made addresses (no compiler)."""

import numpy as np
import pytest

from warpsim.machine.memory import SHARED_WINDOW
from warpsim.metrics.counters import global_sectors, local_sectors, request_count, shared_wavefronts

BASE = 0x7F00_0000_1000          # a 4 KB-aligned global address
LANES = np.arange(32, dtype=np.int64)


def warp(n_warps=1, lanes=LANES):
    return (np.arange(n_warps)[:, None] * 32 + lanes).ravel().astype(np.int64)


@pytest.mark.parametrize("stride, sectors, lines", [(1, 4, 1), (2, 8, 2), (4, 16, 4), (8, 32, 8),
                                                    (32, 32, 32)])
def test_strided_float_loads(stride, sectors, lines):
    addrs = (BASE + 4 * stride * LANES).astype(np.uint64)
    assert global_sectors(warp(), addrs, 4) == (1, sectors, lines)


def test_requests_are_warps_with_an_active_lane():
    idx = np.array([0, 5, 64, 65, 127], dtype=np.int64)     # warps 0, 2, 3
    assert request_count(idx) == 3
    assert request_count(np.zeros(0, dtype=np.int64)) == 0


def test_sectors_are_counted_per_request():
    idx = warp(2)                                          # two warps read the same 128 bytes
    addrs = np.tile(BASE + 4 * LANES, 2).astype(np.uint64)
    assert global_sectors(idx, addrs, 4) == (2, 8, 2)


def test_unordered_addresses_and_repeats():
    rng = np.random.default_rng(1)
    addrs = (BASE + 4 * rng.permutation(32)).astype(np.uint64)
    assert global_sectors(warp(), addrs, 4)[1] == 4
    same = np.full(32, BASE + 64, dtype=np.uint64)           # every lane one word
    assert global_sectors(warp(), same, 4) == (1, 1, 1)


@pytest.mark.parametrize("nbytes, sectors", [(1, 1), (2, 2), (8, 8), (16, 16)])
def test_widths(nbytes, sectors):
    addrs = (BASE + nbytes * LANES).astype(np.uint64)
    assert global_sectors(warp(), addrs, nbytes)[1] == sectors


def test_partial_warp():
    lanes = np.arange(4)                                     # the 4 lanes of a block of 100's last warp
    addrs = (BASE + 4 * lanes).astype(np.uint64)
    assert global_sectors(warp(1, lanes), addrs, 4) == (1, 1, 1)


def shared(offsets):
    return np.asarray(offsets, dtype=np.int64).astype(np.uint64)


@pytest.mark.parametrize("stride, wavefronts", [(1, 1), (2, 2), (4, 4), (8, 8), (32, 32), (33, 1)])
def test_shared_32bit_strides(stride, wavefronts):
    assert shared_wavefronts(warp(), shared(4 * stride * LANES), 4) == (1, wavefronts, 1)


def test_shared_broadcast_and_generic_addresses():
    assert shared_wavefronts(warp(), shared(np.full(32, 20)), 4) == (1, 1, 1)
    generic = (np.uint64(SHARED_WINDOW) + shared(4 * 32 * LANES))   # column of a 32x32 tile
    assert shared_wavefronts(warp(), generic, 4) == (1, 32, 1)


@pytest.mark.parametrize("stride, wavefronts", [(1, 2), (2, 4), (4, 8)])
def test_shared_64bit_half_warps(stride, wavefronts):
    """As counted on an H200: two half-warp phases, conflicts inside each."""
    assert shared_wavefronts(warp(), shared(8 * stride * LANES), 8) == (1, wavefronts, 2)


@pytest.mark.parametrize("stride, wavefronts", [(1, 4), (2, 8)])
def test_shared_128bit_quarter_warps(stride, wavefronts):
    assert shared_wavefronts(warp(), shared(16 * stride * LANES), 16) == (1, wavefronts, 4)


def test_shared_inactive_phase_is_not_ideal():
    lanes = np.arange(16)                                    # only the first half-warp
    assert shared_wavefronts(warp(1, lanes), shared(8 * lanes), 8) == (1, 1, 1)


def test_shared_several_warps_add_up():
    idx = warp(3)
    offsets = np.tile(4 * 32 * LANES, 3)
    assert shared_wavefronts(idx, shared(offsets), 4) == (3, 96, 3)


def test_local_memory_is_interleaved_by_lane():
    """Every lane at the same local offset: consecutive words on the hardware (coalesced)."""
    assert local_sectors(warp(), np.full(32, 16, dtype=np.uint64), 4)[1] == 4
    assert local_sectors(warp(), np.full(32, 16, dtype=np.uint64), 8)[1] == 8


def _reference_counts(idx, addrs, nbytes):
    """Per warp, the distinct sectors/lines/bank-words its lanes touch, by set arithmetic."""
    sectors, lines = 0, 0
    waves, ideal = 0, 0
    phases = 1 if nbytes <= 4 else min(32, nbytes // 4)
    for w in np.unique(idx >> 5):
        lanes = np.flatnonzero((idx >> 5) == w)
        touched = {int(a) + k for a in addrs[lanes] for k in range(nbytes)}
        sectors += len({b >> 5 for b in touched})
        lines += len({b >> 7 for b in touched})
        for phase in range(phases):
            members = [k for k in lanes if (int(idx[k]) & 31) // (32 // phases) == phase]
            words = {(int(addrs[k] - np.uint64(SHARED_WINDOW)) >> 2) + j for k in members
                     for j in range(max(1, nbytes // 4))}
            if members:
                per_bank = np.bincount([wd & 31 for wd in words], minlength=32)
                waves += int(per_bank.max())
                ideal += 1
    return sectors, lines, waves, ideal


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8, 16])
def test_whole_warps_of_consecutive_elements_against_sets(nbytes):
    """Whole warps reading consecutive elements (counted from one address per warp) give what
    the distinct sectors, lines and bank words of every lane give; one element out of step, too."""
    rng = np.random.default_rng(nbytes)
    for trial in range(20):
        warps = np.sort(rng.choice(40, int(rng.integers(1, 5)), replace=False))
        idx = (warps[:, None] * 32 + np.arange(32)).ravel()
        starts = rng.integers(0, 4096, len(warps)) * nbytes + (int(rng.integers(0, 64)) if trial % 2 else 0)
        offsets = (starts[:, None] + nbytes * np.arange(32)).ravel()
        if trial % 5 == 4:
            offsets[int(rng.integers(len(offsets)))] += nbytes * 3
        addrs = (offsets + SHARED_WINDOW).astype(np.uint64)
        sectors, lines, waves, ideal = _reference_counts(idx, addrs, nbytes)
        assert global_sectors(idx, addrs, nbytes) == (len(warps), sectors, lines)
        assert shared_wavefronts(idx, addrs, nbytes) == (len(warps), waves, ideal)
