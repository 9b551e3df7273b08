"""Host memory that kernels address: torch CPU tensors and NumPy arrays passed to a launch.

A Triton script on warpsim hands its kernels CPU tensors (the backend's torch
device is the CPU), and kernels must read and write those tensors' bytes. The
interface is what the final design needs:

    with HostRanges(memory).launch([(base, nbytes), ...]) as device_address:
        pointer = device_address(host_address)    # for each pointer argument
        ... launch with the pointers ...

Each (base, nbytes) is a whole host block a pointer lies in (a tensor's
storage, an array's owner), so views of one storage share one range (blocks
that overlap are joined) and accesses are bounds-checked against the block,
as allocations are.

INTERIM (a stepping stone, not the final state): each range is mirrored by a
heap allocation for the launch; the host bytes are copied in before it and
back after it (views of one block share one mirror, so aliasing is kept
within a launch). The final design resolves device addresses inside a
registered range to the host bytes themselves in every executor tier (the
NumPy tier's access.resolve, the compiled round loop's find_allocation, the
SASS executor and replay, atomics, bulk copies) with no copies; that is the
"device memory that can address host memory" managed memory needs too, and
this module's interface is meant to stay while its inside changes.
"""

from __future__ import annotations

import contextlib
import ctypes

import numpy as np


def host_bytes(address: int, nbytes: int) -> np.ndarray:
    """A writable uint8 NumPy view of `nbytes` of this process's memory at `address` (no copy)."""
    if nbytes == 0:
        return np.zeros(0, dtype=np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(address))


class HostRanges:
    """The host blocks one launch addresses, each given a device address (see the module doc)."""

    def __init__(self, memory):
        self.memory = memory

    @contextlib.contextmanager
    def launch(self, blocks):
        """For host blocks [(base, nbytes), ...]: yields device_address(host_address), valid for
        one launch. Overlapping blocks (two views of one storage) become one range."""
        mirrors = []                                     # (base, nbytes, device address)
        try:
            for base, nbytes in merged(blocks):
                device = self.memory.allocate(nbytes, initialized=True)     # INTERIM: copy in
                mirrors.append((base, nbytes, device))
                if nbytes:
                    self.memory.write_bytes(device, host_bytes(base, nbytes))

            def device_address(host_address: int) -> int:
                for base, nbytes, device in mirrors:
                    if base <= host_address <= base + nbytes:
                        return device + (host_address - base)
                raise ValueError(f"host pointer 0x{host_address:x} lies in no block given to the launch")

            yield device_address
            for base, nbytes, device in mirrors:                            # INTERIM: copy back
                if nbytes:
                    host_bytes(base, nbytes)[:] = self.memory.read_bytes(device, nbytes)
        finally:
            for _, _, device in mirrors:
                self.memory.free(device)


def merged(blocks) -> list:
    """(base, nbytes) blocks with overlapping ones joined, sorted by base."""
    out = []
    for base, nbytes in sorted((int(b), int(n)) for b, n in blocks):
        if out and base < out[-1][0] + out[-1][1] or out and nbytes == 0 and base == out[-1][0]:
            start, size = out[-1]
            out[-1] = (start, max(start + size, base + nbytes) - start)
        else:
            out.append((base, nbytes))
    return out
