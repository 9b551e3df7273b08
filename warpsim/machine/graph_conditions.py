"""cudaGraphSetConditional: device code setting the value a conditional graph node reads.

A CUDA graph's conditional node (IF, WHILE, SWITCH: runtime/graphs.py) chooses its body by
the value of its handle when the graph's launch reaches it; kernels of the graph set that value
with cudaGraphSetConditional(handle, value), a function of the device runtime (cudadevrt) that
NVVM declares `.extern .func` and isa/builtins.py runs here, per calling thread in thread order
(racing calls are undefined in CUDA: here the last thread's value stays).

The values live in one table per device, kept with the device's global memory (the object the
runtime and every launch on the device share, as the memory the values live in on a GPU is the
device's): handle -> value. A handle is open while a launch of a graph whose conditional nodes
use it runs (the runtime opens them around the launch). A call naming a handle no running launch
has open (a kernel launched on its own, a stale or made-up handle) is an illegal address, as on an
H100 (CUDA 13.0), where a kernel launched on its own with a live graph's handle failed so.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import MemoryFault

FUNCTIONS = ("cudaGraphSetConditional",)


@dataclass
class Conditions:
    """The device's conditional values (handle -> unsigned 32-bit value) and the open handles."""
    values: dict = field(default_factory=dict)
    open: frozenset = frozenset()

    @contextmanager
    def opened(self, handles):
        """Open `handles` for setting while a graph launch runs (nested launches add theirs)."""
        before = self.open
        self.open = before | frozenset(handles)
        try:
            yield self
        finally:
            self.open = before


def conditions(memory) -> Conditions:
    """The conditional values of the device whose global memory this is (made on first use)."""
    found = memory.__dict__.get("_graph_conditions")
    if found is None:
        found = memory.__dict__["_graph_conditions"] = Conditions()
    return found


def set_conditional(ctx, site, slot: int, handle: int, value: int) -> None:
    """cudaGraphSetConditional(handle, value) of thread `slot` of the launch `ctx`."""
    table = conditions(ctx.memory)
    if handle in table.open:
        table.values[handle] = value & 0xFFFF_FFFF
        return
    where = ctx.where(slot)
    raise MemoryFault(f"cudaGraphSetConditional with handle {handle:#x}, which no running graph launch uses "
                      "(a kernel launched on its own, or a handle of another graph)", kernel=ctx.kernel,
                      block=where["block"], thread=where["thread"], ptx_line=site.ins.line,
                      instruction=str(site.ins), source_line=site.described)
