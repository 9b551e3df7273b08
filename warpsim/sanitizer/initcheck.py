"""initcheck: global loads of bytes that nothing ever wrote.

The device heap keeps one flag per byte (GlobalMemory.initialized): set by
host copies, memset (zeros), device stores and atomics; clear for new
`empty()` allocations. Every global load checks the flags of the bytes it
reads, all lanes at once; uninitialized reads are folded into one error per
instruction, with the first thread, its address and the allocation it hit.

Not checked: shared and local memory (never flagged), atomics on
uninitialized memory (the atomic writes the bytes before the tool sees it).
"""

from __future__ import annotations

import numpy as np

from ..machine.memory import GLOBAL_BASE
from .report import SanitizerError
from .tool import LaunchTool


class Initcheck(LaunchTool):
    name = "initcheck"

    def __init__(self, checker, launch, kernel):
        super().__init__(checker, launch, kernel)
        self.found: dict = {}         # id(site) -> [count, SanitizerError]

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if space != "global" or kind != "load" or not len(idx):
            return
        memory = ctx.memory
        offsets = addrs.astype(np.uint64, copy=False).astype(np.int64) - GLOBAL_BASE
        nbytes = size * count
        initialized = memory.initialized
        if memory.host:                 # host ranges' bytes count as initialized (the host wrote them)
            heap = (offsets >= 0) & (offsets < len(initialized))
            if not heap.all():
                idx, addrs, offsets = idx[heap], addrs[heap], offsets[heap]
                if not len(idx):
                    return
        if nbytes == 1:
            bad = ~initialized[offsets]
        else:
            bad = ~initialized[offsets[:, None] + np.arange(nbytes)].all(axis=1)
        if not bad.any():
            return
        lanes = np.flatnonzero(bad)
        entry = self.found.get(id(site))
        if entry is None:
            first = int(lanes[0])
            entry = self.found[id(site)] = [0, self.error(ctx, site, int(idx[first]),
                                                          int(addrs[first]), nbytes)]
        entry[0] += len(lanes)

    def error(self, ctx, site, slot: int, address: int, nbytes: int) -> SanitizerError:
        where = allocation_of(ctx.memory, address)
        detail = (f"Address 0x{address:x} is byte {address - where[0]} of the {where[1]}-byte "
                  f"allocation at 0x{where[0]:x}, which was never written (by the host or the device)"
                  if where else f"Address 0x{address:x} was never written")
        return SanitizerError(self.name, "uninitialized read",
                              f"Uninitialized __global__ memory read of size {nbytes} bytes",
                              self.kernel, [self.access(ctx, site, slot)], details=[detail],
                              unit="reads", address=address, space="global")



def allocation_of(memory, address: int):
    """(start address, size) of the live allocation holding address, or None."""
    offset = address - GLOBAL_BASE
    for start, size in memory.live.copy().items():
        if start <= offset < start + size:
            return GLOBAL_BASE + start, size
    return None
