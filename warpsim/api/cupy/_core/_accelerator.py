"""`cupy._core._accelerator`: which accelerated libraries CuPy's reductions and routines use.

warpsim has none (no CUB or cuTENSOR behind its reductions): the lists can be
set, for CuPy programs and tests that save and restore them, and are ignored.
"""

from __future__ import annotations

from .._missing import missing_attribute

ACCELERATOR_CUB, ACCELERATOR_CUTENSOR, ACCELERATOR_CUTENSORNET = 1, 2, 3
_NAMES = {"cub": ACCELERATOR_CUB, "cutensor": ACCELERATOR_CUTENSOR, "cutensornet": ACCELERATOR_CUTENSORNET}
_reduction: list = []
_routine: list = []


def _ids(accelerators) -> list:
    ids = []
    for accelerator in accelerators:
        if isinstance(accelerator, str):
            if accelerator not in _NAMES:
                raise ValueError(f"Unknown accelerator: {accelerator}")
            accelerator = _NAMES[accelerator]
        ids.append(int(accelerator))
    return ids


def set_reduction_accelerators(accelerators) -> None:
    _reduction[:] = _ids(accelerators)


def get_reduction_accelerators() -> list:
    return list(_reduction)


def set_routine_accelerators(accelerators) -> None:
    _routine[:] = _ids(accelerators)


def get_routine_accelerators() -> list:
    return list(_routine)


def __getattr__(name):
    raise missing_attribute("cupy._core._accelerator", name)
