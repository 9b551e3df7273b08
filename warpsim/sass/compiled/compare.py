"""Compare SASS in the compiled tier."""

from __future__ import annotations

from numba import njit

from .layout import family

FAMILY = family("compare")


@njit(cache=True, nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    pass
