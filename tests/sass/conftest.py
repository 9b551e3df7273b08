"""Shared SASS of tests/sass/kernels.cu: NVRTC, ptxas and nvdisasm run once (and are cached on disk)."""

from __future__ import annotations

import pathlib

import pytest

KERNELS = pathlib.Path(__file__).with_name("kernels.cu")


@pytest.fixture(scope="session")
def kernels_ptx() -> str:
    from warpsim.frontends.nvrtc import compile_cuda
    return compile_cuda(KERNELS.read_text(), name=str(KERNELS)).ptx


@pytest.fixture(scope="session")
def kernels_sass(kernels_ptx):
    from warpsim.sass import sass_for_ptx
    return sass_for_ptx(kernels_ptx)

