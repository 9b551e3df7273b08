"""`cupy._core.core`: where CuPy's headers are, for programs that compile against them."""

from __future__ import annotations

from .._missing import missing_attribute
from ...arrays import ndarray  # noqa: F401
from ...headers import include_dir
from ....frontends.nvrtc import include_dirs


def _get_header_dir_path() -> str:
    """The folder holding warpsim's cupy/*.cuh headers (put on every kernel's include path)."""
    return include_dir()


def _get_cccl_include_options() -> list:
    return [f"-I{directory}" for directory in include_dirs()]


def __getattr__(name):
    raise missing_attribute("cupy._core.core", name)
