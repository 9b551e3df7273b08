"""Which profilers are on: the one place a launch asks whether to count.

`with warpsim.profile():` pushes its Profiler here for the code inside the
block (a context variable, so threads and async tasks each see their own);
LoadedModule.launch asks `profiling_observers(...)` for observers to add and
calls `launch_finished(result)` on them when the launch is done. With no
profiler on, a launch pays for one context-variable read.
"""

from __future__ import annotations

from ..sessions import SessionStack

PROFILERS = SessionStack("warpsim_profilers")
active_profilers, push, pop = PROFILERS.active, PROFILERS.push, PROFILERS.pop


def profiling_observers(loaded_module, kernel: str, grid: tuple, block: tuple,
                        shared_bytes: int, dynamic_shared: int) -> tuple:
    """Observers for one launch: one counter set shared by every active profiler (or none)."""
    profilers = active_profilers()
    if not profilers:
        return ()
    from ..report.activity import ActivityTrace
    from .counters import LaunchCounters
    counters = LaunchCounters(loaded_module, kernel, grid, block, shared_bytes, dynamic_shared,
                              profilers)
    counters.activity = ActivityTrace()     # bounded lane-activity trace: the reports' chart
    return (counters, counters.activity)
