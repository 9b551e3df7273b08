"""`cupy.random` under `warpsim run`: warpsim.api.random (CuPy's generators, drawn on the host by
NumPy: CuPy's dtypes and interface, not CuPy's streams)."""

from .. import random as _random
from ..random import *  # noqa: F401,F403
from ..random import __all__  # noqa: F401
from ._missing import missing_attribute


def __getattr__(name: str):
    try:
        return getattr(_random, name)       # the other distributions (beta, gamma, poisson, ...)
    except AttributeError:
        raise missing_attribute("cupy.random", name) from None
