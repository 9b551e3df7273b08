"""An array freed by the garbage collector while the heap is allocating does not corrupt it.

A device array's memory is freed by a finalizer, and the garbage collector runs finalizers
wherever Python allocates, inside GlobalMemory.allocate too (the heap's lock is re-entrant).
Here a profile hook drops the last reference to arrays at the moment the heap searches its
holes, as a collection there would; the free must wait until the allocation is done.
"""

from __future__ import annotations

import sys

import warpsim as cp


def heap_is_consistent(memory) -> None:
    holes = {start: size for size, start in memory._holes_by_size}
    assert len(holes) == len(memory._holes_by_size) and holes == memory._hole_at
    assert {start + size: start for start, size in holes.items()} == memory._hole_ending
    starts = sorted(memory.live)
    for start, following in zip(starts, starts[1:]):
        assert start + memory.spans[start] <= following, "two live allocations overlap"
    for start, size in holes.items():
        assert not any(start < s + memory.spans[s] and s < start + size for s in starts), \
            "a hole overlaps a live allocation"


def test_a_free_during_an_allocation_waits_for_it():
    victims = [cp.zeros(n) for n in range(1, 200)]
    survivors = [cp.zeros(n) for n in range(1, 200)]
    memory = survivors[0].device.memory
    del survivors[::2]                      # holes of many sizes for the allocations below

    def drop_a_victim(frame, event, arg):
        if event == "call" and frame.f_code.co_name in ("_remove_hole", "_add_hole") and victims:
            victims.pop()                   # its last reference: the finalizer frees it now
    sys.setprofile(drop_a_victim)
    try:
        made = [cp.full(n, n, dtype=cp.int32) for n in range(1, 150)]
        survivors.clear()
    finally:
        sys.setprofile(None)
    heap_is_consistent(memory)
    for n, array in enumerate(made, start=1):
        assert (array.get() == n).all(), "an allocation was handed out twice"
