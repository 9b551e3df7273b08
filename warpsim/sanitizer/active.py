"""Which sanitizer sessions are on: the one place a launch asks whether to check.

`with warpsim.check():` pushes its Checker here for the code inside the block
(a context variable, as warpsim.profiler does for profilers).
`checking_observers` is registered with warpsim.sessions, which a launch asks
for the observers of the enabled tools. With no session on, a launch pays for
one context-variable read.
"""

from __future__ import annotations

from ..sessions import SessionStack, fault_sink, observer_source

CHECKERS = SessionStack("warpsim_checkers")
active_checkers, push, pop = CHECKERS.active, CHECKERS.push, CHECKERS.pop


@observer_source
def checking_observers(launch) -> tuple:
    """One observer per enabled tool of every active session (none when no session is on)."""
    checkers = active_checkers()
    if not checkers:
        return ()
    return tuple(obs for checker in checkers for obs in checker.launch_observers(launch))


@fault_sink
def checking_faults(exc) -> None:
    """A fault of a launch no tool watched (a SASS-only kernel): every active session counts it."""
    for checker in active_checkers():
        checker.unwatched_fault(exc)
