"""`cupy._util`: the two helpers CuPy's kernel tests use (clear_memo, PerformanceWarning)."""

from __future__ import annotations

from ._missing import missing_attribute


class PerformanceWarning(RuntimeWarning):
    """CuPy's warning for correct but slow paths (peer copies and the like)."""


def clear_memo() -> None:
    """CuPy forgets its memoized kernels; warpsim memoizes per kernel object, nothing global to clear."""


def __getattr__(name):
    raise missing_attribute("cupy._util", name)
