"""`cupy.fft` under `warpsim run`: warpsim.api.fft
(cuFFT's transforms computed on the host with NumPy, in CuPy's dtypes)."""

from ..fft import *  # noqa: F401,F403
from ..fft import __all__  # noqa: F401
from ._missing import missing_attribute


def __getattr__(name: str):
    raise missing_attribute("cupy.fft", name)
