"""Host memory that kernels address: torch CPU tensors and NumPy arrays passed to a launch.

A Triton script on warpsim hands its kernels CPU tensors (the backend's torch
device is the CPU), and kernels read and write those tensors' bytes where
they lie:

    with HostRanges(memory).launch([(base, nbytes), ...]) as device_address:
        pointer = device_address(host_address)    # for each pointer argument
        ... launch with the pointers ...

Each (base, nbytes) is a whole host block a pointer lies in (a tensor's
storage, an array's owner), so views of one storage share one range (blocks
that overlap are joined) and accesses are bounds-checked against the block,
as allocations are. For the launch, each block is registered with the
device's memory (GlobalMemory.register_host, machine/host_memory.py): its
device address is its host address, so device_address is the identity and
nothing is copied. A block already registered (by the caller, for longer)
is used as it is.

The one exception: a block lying over the device heap's own addresses
cannot keep its address there, so it is mirrored by a heap allocation for the
launch (copied in before and back after). That cannot happen under
`warpsim run`, whose heap is mapped at its addresses (runtime/heap.py).
"""

from __future__ import annotations

import contextlib

from .host_memory import host_bytes  # noqa: F401  (re-exported: the view host ranges are made of)


class HostRanges:
    """The host blocks one launch addresses, registered for it (see the module doc)."""

    def __init__(self, memory):
        self.memory = memory

    @contextlib.contextmanager
    def launch(self, blocks, label: str = ""):
        """For host blocks [(base, nbytes), ...]: yields device_address(host_address), valid for
        one launch. Overlapping blocks (two views of one storage) become one range."""
        registered, mirrors = [], []            # bases registered here; (base, nbytes, heap address)
        try:
            for base, nbytes in merged(blocks):
                if self._already(base, nbytes):
                    continue
                try:
                    self.memory.register_host(base, nbytes, label)
                    registered.append(base)
                except ValueError:              # over the heap's addresses: mirrored instead
                    device = self.memory.allocate(nbytes, initialized=True)
                    mirrors.append((base, nbytes, device))
                    if nbytes:
                        self.memory.write_bytes(device, host_bytes(base, nbytes))

            def device_address(host_address: int) -> int:
                for base, nbytes, device in mirrors:
                    if base <= host_address <= base + nbytes:
                        return device + (host_address - base)
                if self.memory.host.find(host_address) is None:
                    raise ValueError(f"host pointer 0x{host_address:x} lies in no block given to the launch")
                return host_address

            yield device_address
            for base, nbytes, device in mirrors:
                if nbytes:
                    host_bytes(base, nbytes)[:] = self.memory.read_bytes(device, nbytes)
        finally:
            for base in registered:
                self.memory.unregister_host(base)
            for _, _, device in mirrors:
                self.memory.free(device)

    def _already(self, base: int, nbytes: int) -> bool:
        """Whether [base, base + nbytes) lies in one range registered before this launch."""
        found = self.memory.host.find(base) if self.memory.host else None
        return found is not None and base + nbytes <= found.base + found.nbytes


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
