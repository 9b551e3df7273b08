"""`cupy.linalg` under `warpsim run`: warpsim.api.linalg
(cuSOLVER's functions computed on the host with NumPy)."""

from ..linalg import *  # noqa: F401,F403
from ..linalg import __all__  # noqa: F401
from ._missing import missing_attribute


def __getattr__(name: str):
    raise missing_attribute("cupy.linalg", name)
