"""`cupy.cuda.stream` (and `cupy_backends.cuda.stream`): streams and events (see warpsim.api.streams)."""

from __future__ import annotations

from .._missing import missing_attribute
from ...streams import *  # noqa: F401,F403
from ...streams import __all__  # noqa: F401


def __getattr__(name):
    raise missing_attribute("cupy.cuda.stream", name)
