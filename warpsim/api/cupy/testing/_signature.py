"""Decorators that supply an argument (xp, dtype, order) hide it from pytest's fixture lookup."""

from __future__ import annotations

import functools
import inspect


def supplying(func, names):
    """A decorator for a wrapper of `func` that fills in `names` itself: same name and docs,
    and a signature without them (so pytest does not look for fixtures of those names)."""
    names = (names,) if isinstance(names, str) else tuple(names)

    def decorate(wrapper):
        functools.update_wrapper(wrapper, func)
        signature = inspect.signature(func)
        wrapper.__signature__ = signature.replace(
            parameters=[p for p in signature.parameters.values() if p.name not in names])
        del wrapper.__wrapped__      # pytest would read func's full signature through it
        return wrapper
    return decorate
