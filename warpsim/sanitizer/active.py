"""Which sanitizer sessions are on: the one place a launch asks whether to check.

`with warpsim.check():` pushes its Checker here for the code inside the block
(a context variable, as warpsim.metrics.active does for profilers);
LoadedModule.launch asks `checking_observers(...)` for the observers of the
enabled tools and tells them when the launch finishes or fails. With no
session on, a launch pays for one context-variable read.
"""

from __future__ import annotations

from ..sessions import SessionStack

CHECKERS = SessionStack("warpsim_checkers")
active_checkers, push, pop = CHECKERS.active, CHECKERS.push, CHECKERS.pop


def checking_observers(loaded_module, kernel: str, grid: tuple, block: tuple) -> tuple:
    """One observer per enabled tool of every active session (none when no session is on)."""
    checkers = active_checkers()
    if not checkers:
        return ()
    return tuple(obs for checker in checkers
                 for obs in checker.launch_observers(loaded_module, kernel, grid, block))
