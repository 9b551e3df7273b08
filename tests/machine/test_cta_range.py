"""A launch limited to a range of its CTAs runs exactly those CTAs."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.args import pack_arguments
from warpsim.errors import LaunchError

pytestmark = pytest.mark.nvrtc

SOURCE = r'''extern "C" __global__ void mark(int* out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x + 1;
}'''


def test_only_the_ctas_of_the_range_run():
    kernel = cp.RawModule(code=SOURCE).get_function("mark")
    out = cp.full(8 * 32, -1, dtype=cp.int32)
    params = pack_arguments("mark", kernel.loaded_module.params("mark"), (out,))
    kernel.loaded_module.launch("mark", (8,), (32,), params, cta_range=(2, 5))
    expected = np.full((8, 32), -1, dtype=np.int32)
    expected[2:5] = np.arange(3, 6)[:, None]
    np.testing.assert_array_equal(out.get().reshape(8, 32), expected)


@pytest.mark.parametrize("bad", [(3, 3), (-1, 2), (0, 9)])
def test_a_range_outside_the_grid_is_refused(bad):
    kernel = cp.RawModule(code=SOURCE).get_function("mark")
    out = cp.zeros(8 * 32, dtype=cp.int32)
    params = pack_arguments("mark", kernel.loaded_module.params("mark"), (out,))
    with pytest.raises(LaunchError, match="CTA range"):
        kernel.loaded_module.launch("mark", (8,), (32,), params, cta_range=bad)
