"""pytest markers CuPy's tests put on themselves: slow, multi_gpu (one GPU here), with_requires.

pytest is imported when a marker is applied, not when this module is: `import cupy` under
`warpsim run` imports cupy.testing, and a plain install has no pytest.
"""

from __future__ import annotations

import importlib.metadata

from ....errors import import_optional

DEVICES = 1     # warpsim simulates one GPU


def _mark():
    """pytest.mark, or MissingDependency naming the extra that installs pytest."""
    return import_optional("pytest", extra="test", needed_for="cupy.testing's markers").mark


def slow(*args, **kwargs):
    """CuPy's `testing.slow`: pytest's `slow` marker, as `@testing.slow` on a test and as
    `testing.slow()` among a parameter's marks (CuPy's test_raw.py uses both)."""
    return _mark().slow(*args, **kwargs)


def multi_gpu(gpu_num: int):
    return _mark().skipif(gpu_num > DEVICES, reason=f"needs {gpu_num} GPUs; warpsim simulates one")


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
    return _mark().skipif(not installed(*requirements),
                              reason=f"requires {', '.join(requirements)}")
