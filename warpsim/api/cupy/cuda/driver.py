"""`cupy.cuda.driver`: the driver-level names CuPy programs catch or ask, no driver behind them.

warpsim is its own driver: CUDADriverError is what a failed module load or a
missing kernel raises (CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_NOT_FOUND), and the
version is the CUDA the simulator answers for. Driver calls themselves
(cuModuleLoad, cuLaunchKernel, ...) are not provided: each raises
AttributeError naming it.
"""

from __future__ import annotations

from .._missing import missing_attribute
from ...cuda_errors import CUDADriverError  # noqa: F401 (cupy.cuda.driver.CUDADriverError)
from .runtime import CUDA_VERSION

CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_NOT_FOUND = 1, 301, 500


def get_build_version() -> int:
    return CUDA_VERSION


def driverGetVersion() -> int:
    return CUDA_VERSION


def _is_cuda_python() -> bool:
    """CuPy's question whether it runs on NVIDIA's cuda-python bindings: not here."""
    return False


def __getattr__(name):
    raise missing_attribute("cupy.cuda.driver", name)
