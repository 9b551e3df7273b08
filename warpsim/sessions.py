"""Sessions that watch launches: which profilers and sanitizer checks are on.

`with warpsim.profile():` and `with warpsim.check():` push themselves on a
stack held in a context variable (so threads and async tasks each see their
own) for the code inside the block; LoadedModule.launch asks the stack for
observers. With no session on, a launch pays for one context-variable read.
"""

from __future__ import annotations

import contextvars


class SessionStack:
    def __init__(self, name: str):
        self._active: contextvars.ContextVar = contextvars.ContextVar(name, default=())

    def active(self) -> tuple:
        return self._active.get()

    def push(self, session):
        return self._active.set(self._active.get() + (session,))

    def pop(self, token) -> None:
        self._active.reset(token)
