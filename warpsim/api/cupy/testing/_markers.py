"""pytest markers CuPy's tests put on themselves: slow, multi_gpu (one GPU here), with_requires."""

from __future__ import annotations

import importlib.metadata

import pytest

DEVICES = 1     # warpsim simulates one GPU

slow = pytest.mark.slow


def multi_gpu(gpu_num: int):
    return pytest.mark.skipif(gpu_num > DEVICES,
                              reason=f"needs {gpu_num} GPUs; warpsim simulates one")


def gpu(func):
    return func


def installed(*specifiers) -> bool:
    """Whether every requirement ('numpy>=1.25') is met by what is installed."""
    from packaging.requirements import Requirement
    for specifier in specifiers:
        requirement = Requirement(specifier)
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            return False
        if not requirement.specifier.contains(version, prereleases=True):
            return False
    return True


def numpy_satisfies(specifier: str) -> bool:
    return installed(f"numpy{specifier}")


def with_requires(*requirements):
    return pytest.mark.skipif(not installed(*requirements),
                              reason=f"requires {', '.join(requirements)}")
