"""Launch arguments as Numba types them and packs them, launch after launch: a loop of launches
types each scalar by what its type depends on (an int's bit length and sign), so a later value
of another width still gets the type numba.cuda's typeof gives it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from numba.cuda.typing.typeof import Purpose, typeof  # noqa: E402

from warpsim import cuda  # noqa: E402
from warpsim.cuda.abi import argument_type  # noqa: E402

pytestmark = pytest.mark.numba

SCALARS = [7, -7, 1 << 31, -(1 << 31) - 1, (1 << 40) + 3, (1 << 63) - 1, -(1 << 63), (1 << 63) + 5,
           (1 << 64) - 1, 2.5, True, 3 + 4j, np.int8(-3), np.uint16(9), np.float32(1.25), np.float16(2.0),
           np.bool_(False), np.complex64(1 - 2j), np.int64(-5)]


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_scalar_types_equal_numbas_whatever_came_before(order):
    values = SCALARS if order == "forward" else SCALARS[::-1]
    for value in values:
        assert argument_type(value) == typeof(value, Purpose.argument), value


@cuda.jit
def store(out, v):
    out[cuda.threadIdx.x] = v


def test_each_integer_width_reaches_the_kernel_with_its_bits():
    rng = np.random.default_rng(5)
    out = cuda.device_array(32, dtype=np.uint64)
    wide = int(rng.integers(1 << 62)) + (1 << 63)           # a uint64 argument (Numba's type for it)
    for value in (int(rng.integers(1, 1000)), -int(rng.integers(1, 1000)), (1 << 40) + 3, wide):
        store[1, 32](out, value)
        assert (out.copy_to_host() == np.uint64(value % (1 << 64))).all(), value
    assert {str(sig[1]) for sig in store.overloads} == {"int64", "uint64"}


@pytest.mark.parametrize("interface", [
    {"shape": (4,), "typestr": "<f4", "data": (2 ** 64, False), "version": 3},       # past 64 bits
    {"shape": (4,), "typestr": "<f4", "data": (-1, False), "version": 3},
    {"shape": "abc", "typestr": "<f4", "data": (16, False), "version": 3},
    {"shape": (4,), "typestr": "junk", "data": (16, False), "version": 3},
    {"shape": (4,), "typestr": "<f4", "version": 3},                                  # no data
])
def test_a_foreign_array_interface_that_cannot_be_a_device_array_is_named(interface):
    """A __cuda_array_interface__ whose words do not fit a device array's gives a KernelArgumentError
    naming the kernel (a data pointer of 2**64 raised struct.error from the packing)."""
    from warpsim.api.args import KernelArgumentError

    @cuda.jit
    def store(a):
        a[0] = 1.0

    foreign = type("Foreign", (), {"__cuda_array_interface__": interface})()
    with pytest.raises(KernelArgumentError, match="kernel .*store"):
        store[1, 1](foreign)
