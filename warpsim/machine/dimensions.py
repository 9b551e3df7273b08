"""Grid and block dimensions of a launch, checked against CUDA's limits.

Host launches (machine.device, the CuPy and Numba APIs) and device-side launches
(machine.device_launch) check their shapes here, with one set of limits.
"""

from __future__ import annotations

import operator

from ..errors import InvalidConfiguration

MAX_BLOCK_THREADS = 1024


DIMENSION_LIMITS = {"block": (1024, 1024, 64), "grid": ((1 << 31) - 1, 65535, 65535)}


_CHECKED_DIMENSIONS: dict = {}     # (value, 'grid'/'block') -> (x, y, z), for values of plain ints
_PLAIN_TUPLES = {(int,) * k for k in range(1, 4)}     # the types of a tuple of 1-3 plain ints


def launch_dimensions(value, what: str, kernel: str = "") -> tuple[int, int, int]:
    """grid or block given as an int or a tuple/list of 1-3 ints -> (x, y, z), checked against
    CUDA's limits (each axis, and at most 1024 threads a block). A value of plain ints is
    checked once: a launch loop gives the same grid and block every time."""
    kind = type(value)
    plain = kind is int or (kind is tuple and tuple(map(type, value)) in _PLAIN_TUPLES)
    dims = _CHECKED_DIMENSIONS.get((value, what)) if plain else None
    if dims is None:
        dims = _checked_dimensions(value, what, kernel)
        if plain and len(_CHECKED_DIMENSIONS) < 4096:
            _CHECKED_DIMENSIONS[(value, what)] = dims
    return dims


def _checked_dimensions(value, what: str, kernel: str) -> tuple[int, int, int]:
    try:
        dims = (operator.index(value),) if not isinstance(value, (tuple, list)) else \
            tuple(operator.index(v) for v in value)
    except TypeError:
        raise InvalidConfiguration(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}",
                                   kernel=kernel) from None
    if not 1 <= len(dims) <= 3:
        raise InvalidConfiguration(f"{what} must have 1 to 3 dimensions, got {value!r}", kernel=kernel)
    dims = dims + (1,) * (3 - len(dims))
    for axis, (dim, limit) in enumerate(zip(dims, DIMENSION_LIMITS[what])):
        if not 1 <= dim <= limit:
            raise InvalidConfiguration(f"{what} dimension {'xyz'[axis]} = {dim} is outside 1..{limit}",
                                       kernel=kernel)
    if what == "block" and dims[0] * dims[1] * dims[2] > MAX_BLOCK_THREADS:
        raise InvalidConfiguration(f"block {dims} has {dims[0] * dims[1] * dims[2]} threads; at "
                                   f"most {MAX_BLOCK_THREADS}", kernel=kernel)
    return dims
