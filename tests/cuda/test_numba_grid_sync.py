"""Numba's cg.this_grid().sync(): the kernel launches cooperatively (the whole grid together) and
cudadevrt's cooperative-groups functions are warpsim's own PTX (frontends/device_runtime.py), so
blocks read what other blocks wrote before the sync; a grid too large to be co-resident is
refused as the driver refuses it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from numba import cuda as numba_cuda  # noqa: E402

from warpsim import cuda  # noqa: E402
from warpsim.errors import CooperativeLaunchTooLarge  # noqa: E402

pytestmark = pytest.mark.numba


@cuda.jit
def reversed_after_sync(x, y, out):
    grid = numba_cuda.cg.this_grid()
    i = cuda.grid(1)
    n = x.size
    if i < n:
        y[i] = x[i] * 2
    grid.sync()
    if i < n:
        out[i] = y[n - 1 - i]        # written by another block, before the sync
    grid.sync()
    if i < n:
        y[i] = out[i] + 1            # every block has read y by now


def test_grid_sync_orders_the_blocks_of_a_numba_kernel():
    rng = np.random.default_rng(9)
    n = 7 * 64 - int(rng.integers(1, 64))
    x = rng.integers(-10_000, 10_000, n).astype(np.int64)
    y, out = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    reversed_after_sync[7, 64](x, y, out)
    np.testing.assert_array_equal(out, (x * 2)[::-1])
    np.testing.assert_array_equal(y, (x * 2)[::-1] + 1)


def test_too_many_blocks_for_a_cooperative_launch_are_refused():
    x = np.zeros(4, dtype=np.int64)
    kernel = reversed_after_sync.specialize(x, x, x)
    limit = kernel.overloads[kernel.signatures[0]].max_cooperative_grid_blocks(1024)
    assert limit == 2 * 132                # two blocks of 1024 threads per SM, 132 SMs
    with pytest.raises(CooperativeLaunchTooLarge):
        reversed_after_sync[limit + 1, 1024](x, x, x)
