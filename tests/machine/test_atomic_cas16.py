"""16-bit compare-and-swap (atom.cas.b16), the building block of half-precision atomics."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void claim(unsigned short* slots, unsigned short* seen) {
    int i = threadIdx.x;
    seen[i] = atomicCAS(&slots[i / 4], 0, 100 + i);     // four lanes race for each slot
}
"""


def test_first_lane_in_thread_order_wins_each_slot():
    slots = cp.zeros(8, dtype=cp.uint16)
    seen = cp.full(32, 0xFFFF, dtype=cp.uint16)
    cp.RawModule(code=SOURCE).get_function("claim")((1,), (32,), (slots, seen))
    winners = 100 + 4 * np.arange(8)
    assert np.array_equal(slots.get(), winners)
    expect = np.repeat(winners, 4)
    expect[::4] = 0                                     # the winner saw the empty slot
    assert np.array_equal(seen.get(), expect)
