"""Sessions that watch launches: which profilers and sanitizer checks are on.

`with warpsim.profile():` and `with warpsim.check():` push themselves on a
stack held in a context variable (so threads and async tasks each see their
own) for the code inside the block; with all_threads=True (what `warpsim
profile` and `warpsim check` open, as Nsight Compute and compute-sanitizer
watch a whole process) on a part of the stack every thread sees. Each kind of session registers, once, an
observer source: a function that, given the launch (machine.events.Launch),
returns the observers its active sessions want. LoadedModule.launch asks
`launch_observers(launch)`, so the machine never imports the layers that
watch it. Sources take their sessions from a SessionStack; while no stack holds
a session in any thread (`sessions_on()`, a count kept by push and pop), a
launch asks no source and makes no Launch record for them.
"""

from __future__ import annotations

import contextvars
import threading

_SOURCES: list = []
_FAULT_SINKS: list = []
_STACKS: list = []
_PUSHED = [0]                   # sessions pushed and not yet popped, in every thread and task
_PUSHED_LOCK = threading.Lock()


class SessionStack:
    def __init__(self, name: str, listed: bool = True):
        """listed: whether watching_sessions() names the stack's sessions (a session that only
        notes failed launches watches no execution a SASS-only run would leave out)."""
        self.name = name
        self._active: contextvars.ContextVar = contextvars.ContextVar(name, default=())
        self._everywhere: tuple = ()        # sessions pushed for every thread (all_threads)
        if listed:
            _STACKS.append(self)

    def active(self) -> tuple:
        here = self._active.get()
        return self._everywhere + here if self._everywhere else here

    def push(self, session, all_threads: bool = False):
        """Put `session` on the stack for this thread and task (or for every thread); returns the
        token pop takes."""
        with _PUSHED_LOCK:
            _PUSHED[0] += 1
            if all_threads:
                self._everywhere += (session,)
                return _EverywhereToken(session)
        return self._active.set(self._active.get() + (session,))

    def pop(self, token) -> None:
        with _PUSHED_LOCK:
            if isinstance(token, _EverywhereToken):
                self._everywhere = tuple(s for s in self._everywhere if s is not token.session)
            else:
                self._active.reset(token)
            _PUSHED[0] -= 1


class _EverywhereToken:
    """What push gives for a session every thread sees: pop takes it off that part of the stack."""

    def __init__(self, session):
        self.session = session


def sessions_on() -> bool:
    """Whether some SessionStack holds a session in some thread or task: when not, no observer
    source has anything to give (a launch then skips asking them)."""
    return _PUSHED[0] > 0


def observer_source(function):
    """Register `function(launch) -> tuple of observers` (a decorator; once per source). It gives
    observers only while a session of a SessionStack is on (launches ask no source otherwise)."""
    if function not in _SOURCES:
        _SOURCES.append(function)
    return function


def launch_observers(launch) -> tuple:
    """The observers every registered source gives this launch (empty when no session is on)."""
    found = ()
    for source in _SOURCES:
        given = source(launch)
        if given:
            found += tuple(given)
    return found


def watching_sessions() -> list:
    """Names of the session stacks with a session on (e.g. 'warpsim_profilers'): what a launch that
    cannot give PTX events (a SASS-only kernel) tells the user it leaves unwatched."""
    return [stack.name for stack in _STACKS if stack.active()]


def fault_sink(function):
    """Register `function(exc)`, told of a launch that stopped with `exc` where no observer watched
    it (a SASS-only kernel runs without the PTX events the sessions' observers need)."""
    if function not in _FAULT_SINKS:
        _FAULT_SINKS.append(function)
    return function


def report_unwatched_fault(exc) -> None:
    """Tell every active session of a fault it had no observer to see, so a checker still counts it."""
    for sink in _FAULT_SINKS:
        sink(exc)
