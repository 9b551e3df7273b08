"""Launch refusals as a Numba program meets them: warpsim's kinds that are also Numba's exception.

numba-cuda launches through cuda.core, so a launch the driver refuses raises
cuda.core's CUDAError ("CUDA_ERROR_INVALID_VALUE: ..."); a program written for a
GPU catches that. Each class here is warpsim's refusal of the same name
(warpsim.errors: catchable as LaunchError, LaunchRefused, the kind, and
CUDADriverError) and CUDAError too. Dimensions numba-cuda checks before the
driver (a grid or block axis below 1) are a ValueError there, and
InvalidConfiguration is one. LaunchConfigurationError is the launch syntax
Numba refuses before anything reaches the driver.
"""

from __future__ import annotations

from .. import errors

try:
    from cuda.core._utils.cuda_utils import CUDAError
except ImportError:             # a cuda.core without it: the refusals are warpsim's alone
    CUDAError = errors.CUDADriverError

__all__ = ["CUDAError", "ClusterSizeMismatch", "InvalidConfiguration", "InvalidValue",
           "LaunchConfigurationError", "LaunchOutOfResources", "as_numba_refusal"]


class LaunchConfigurationError(errors.LaunchError, TypeError, ValueError):
    """`kernel[grid, block, ...]` or `kernel(...)` written in a way Numba refuses (no launch
    configuration, too few or too many items in [], a dimension that is not an int): a
    TypeError or ValueError, as Numba's is, naming the kernel and what was given."""


class InvalidConfiguration(errors.InvalidConfiguration, CUDAError):
    __doc__ = errors.InvalidConfiguration.__doc__


class InvalidValue(errors.InvalidValue, CUDAError):
    __doc__ = errors.InvalidValue.__doc__


class LaunchOutOfResources(errors.LaunchOutOfResources, CUDAError):
    __doc__ = errors.LaunchOutOfResources.__doc__


class ClusterSizeMismatch(errors.ClusterSizeMismatch, CUDAError):
    __doc__ = errors.ClusterSizeMismatch.__doc__


NUMBA_KINDS = {kind.__bases__[0]: kind for kind in
               (InvalidConfiguration, InvalidValue, LaunchOutOfResources, ClusterSizeMismatch)}


def as_numba_refusal(refusal: errors.LaunchRefused, kernel: str = "") -> errors.LaunchRefused:
    """The same refusal as the class a Numba program catches (naming `kernel`, the Python
    kernel's name, rather than its mangled PTX name)."""
    numba_kind = NUMBA_KINDS.get(type(refusal), type(refusal))
    return numba_kind(refusal.reason, kernel=kernel or refusal.kernel)
