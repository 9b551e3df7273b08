"""The Python side of libcudart's stubs: every API group's functions, gathered.

The runtime's functions live in modules by API group (calls: the core;
device_limits; graphs; memory3d; memory_pools; stream_queries), each registering its functions in
calls.IMPLEMENTED when imported. The library's C stubs import this module,
so every group is registered before the first stub looks a name up, and no
group module has to import the others back.
"""

from __future__ import annotations

from . import device_limits, graphs, memory3d, memory_pools, stream_queries  # noqa: F401  (they register their functions)
from .calls import at_exit, handler

__all__ = ["at_exit", "handler"]
