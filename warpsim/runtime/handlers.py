"""The Python side of libcudart's stubs: every API group's functions, gathered.

The runtime's functions live in modules by API group (calls: the core;
device_limits; graphs; graph_params; memory3d; memory_pools; runtime_queries;
stream_queries; user_objects), each registering its functions in calls.IMPLEMENTED when imported.
The library's C stubs import this module, so every group is registered before
the first stub looks a name up, and no group module has to import the others back.
libcuda.so.1's stubs import it too: the driver API's functions (driver: errors,
contexts, devices, entry points; driver_memory; driver_modules; driver_arrays) register in
driver.DRIVER_IMPLEMENTED, and `driver_handler` looks their names up.
"""

from __future__ import annotations

from . import device_limits, graph_params, graphs, memory3d, memory_pools  # noqa: F401  (they register
from . import runtime_queries, stream_queries, user_objects  # noqa: F401     their functions)
from . import driver_arrays, driver_memory, driver_modules, driver_vmm  # noqa: F401      (the driver API's)
from .calls import at_exit, handler
from .driver import handler as driver_handler

__all__ = ["at_exit", "driver_handler", "handler"]
