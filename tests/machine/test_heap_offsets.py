"""GlobalMemory.heap_offsets, the one-OR check a global access takes first, against resolve(),
the lane-by-lane check: it may decline an access resolve() accepts, never accept one it refuses,
and where it accepts, the offsets are resolve()'s."""

import numpy as np

from warpsim.machine.device import Device
from warpsim.machine.memory import GLOBAL_BASE


def test_heap_offsets_accepts_only_what_resolve_accepts_with_its_offsets():
    rng = np.random.default_rng(25)
    memory = Device().memory
    sizes = rng.integers(1, 3000, 8)
    starts = [memory.allocate(int(n)) - GLOBAL_BASE for n in sizes]     # heap offsets
    memory.free(GLOBAL_BASE + starts[3])          # a freed allocation between live ones
    live = [(s, int(n)) for k, (s, n) in enumerate(zip(starts, sizes)) if k != 3]
    accepted = declined = 0
    for _ in range(3000):
        size = int(rng.choice([1, 2, 4, 8, 16]))
        start, length = live[rng.integers(len(live))] if rng.random() < 0.9 else (starts[3], int(sizes[3]))
        lanes = int(rng.integers(1, 65))
        if rng.random() < 0.5:                   # a strided access from the allocation's start
            offsets = start + rng.integers(0, 4) * size + np.arange(lanes) * size
        else:                                    # any bytes near the allocation
            offsets = start + rng.integers(-32, length + 32, lanes)
        addresses = (np.asarray(offsets, dtype=np.int64) + GLOBAL_BASE).astype(np.uint64)
        ok, buffer, expected = memory.resolve(addresses, size)
        ok &= addresses % np.uint64(size) == 0
        fast = memory.heap_offsets(addresses, size)
        if fast is None:
            declined += 1
            continue
        accepted += 1
        assert ok.all() and buffer is memory.buffer, (start, length, size, offsets)
        np.testing.assert_array_equal(fast, expected)
    assert accepted > 1000 and declined > 300          # both outcomes were exercised


def test_heap_offsets_follows_the_allocation_of_each_access():
    memory = Device().memory
    x, y = memory.allocate(4000) - GLOBAL_BASE, memory.allocate(4000) - GLOBAL_BASE
    lanes = np.arange(1000, dtype=np.uint64) * np.uint64(4)
    for start in (x, y, x, y):                  # saxpy's loads alternate between its arrays
        addresses = lanes + np.uint64(GLOBAL_BASE + start)
        np.testing.assert_array_equal(memory.heap_offsets(addresses, 4), lanes.astype(np.int64) + start)
    assert memory.heap_offsets(lanes + np.uint64(GLOBAL_BASE + x + 4), 4) is None      # one lane past x's end
    assert memory.heap_offsets(lanes[:10] + np.uint64(GLOBAL_BASE + x + 2), 4) is None  # misaligned


def test_in_one_allocation_accepts_only_ranges_that_one_live_allocation_holds():
    """GlobalMemory.in_one_allocation, the test the SASS executor's compiled LDG and STG make
    (sass/compiled/global_access.py), against the live table, allocation by allocation."""
    rng = np.random.default_rng(26)
    memory = Device().memory
    sizes = rng.integers(1, 3000, 8)
    starts = [memory.allocate(int(n)) - GLOBAL_BASE for n in sizes]
    memory.free(GLOBAL_BASE + starts[3])
    live = [(s, int(n)) for k, (s, n) in enumerate(zip(starts, sizes)) if k != 3]
    found = {True: 0, False: 0}
    for _ in range(3000):
        start, length = live[rng.integers(len(live))] if rng.random() < 0.9 else (starts[3], int(sizes[3]))
        lowest = start + int(rng.integers(-64, length + 64))
        end = lowest + int(rng.integers(1, 2 * length + 64))
        expected = any(s <= lowest and end <= s + n for s, n in live)
        assert memory.in_one_allocation(lowest + GLOBAL_BASE, end + GLOBAL_BASE) == expected, (lowest, end)
        found[expected] += 1
    assert memory.in_one_allocation(GLOBAL_BASE - 16, GLOBAL_BASE) is False      # below the heap
    assert found[True] > 500 and found[False] > 500
