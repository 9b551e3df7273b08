"""Scale-out on Dask: parameter sweeps, and single launches split by CTA ranges.

- `warpsim.sweep(...)` (warpsim.distributed.sweep) runs a kernel or a Python
  callable over a grid of parameters, one Dask task per point, and returns a
  pandas table; `warpsim sweep` is its command line.
- `with warpsim.settings(workers=N):` (or `scheduler=` a Client or an address)
  splits a RawKernel/RawModule launch into CTA ranges run on the workers and
  merges their writes, when its cost model expects a gain; otherwise the launch
  runs in one process and `result.sharding` says why (warpsim.distributed.launch).

Dask is imported on first use, so `import warpsim` stays fast. docs/scaleout.md
says when to use which, what goes over the wire, and how both scale.
"""

from __future__ import annotations

from ..api import raw as _raw
from ..machine.device import LoadedModule as _LoadedModule
from ..settings import current as _current_settings
from .sweep import sweep


def _launch(loaded, kernel, grid, block, params, shared_mem, cooperative):
    """Every RawKernel call: in this process unless settings ask for workers (then launch.py)."""
    chosen = _current_settings()
    if (chosen.workers <= 1 and chosen.scheduler is None) or cooperative:
        if type(loaded) is _LoadedModule:     # (the PTX machine's: it runs under the settings read here)
            return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem, cooperative=cooperative,
                                 settings=chosen)
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem, cooperative=cooperative)
    from .launch import launch
    return launch(loaded, kernel, grid, block, params, shared_mem, cooperative)


_raw.launch_through(_launch)


def __getattr__(name):
    """The warnings of sharded launches, from launch.py on first use (it imports the machine)."""
    if name in ("ShardingWarning", "ShardRaceWarning"):
        from . import launch
        return getattr(launch, name)
    raise AttributeError(f"module 'warpsim.distributed' has no attribute '{name}'")


__all__ = ["sweep", "ShardingWarning", "ShardRaceWarning"]
