import pytest

import warpsim as cp
from sanitizer_kernels import HAZARDS


@pytest.fixture(scope="session")
def hazards():
    """The module of tests/sanitizer/hazards.cu."""
    return cp.RawModule(path=HAZARDS)


@pytest.fixture(scope="session")
def scheduling_kernels():
    """The demo's scheduling kernels: spin_wait, legacy_reduce, syncwarp_reduce."""
    from warpsim.demo.common import kernel_path
    return cp.RawModule(path=kernel_path("scheduling.cu"))
