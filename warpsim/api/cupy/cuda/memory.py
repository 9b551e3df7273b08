"""`cupy.cuda.memory`: allocations, pointers, the allocator and the pools (see warpsim.api.memory)."""

from __future__ import annotations

from .._missing import missing_attribute
from ...memory import *  # noqa: F401,F403
from ...memory import __all__  # noqa: F401


def __getattr__(name):
    raise missing_attribute("cupy.cuda.memory", name)
