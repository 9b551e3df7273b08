"""CuPy compiles every kernel with -ftz=true; warpsim's RawKernel and RawModule do too.

Without it f32 subnormals survive, and a CuPy script run on warpsim would give
other answers than on a GPU (on an H200 under CuPy, __float2int_ru of the
smallest subnormal is 0, not 1).
"""

import io

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void subnormal_ops(const float* x, int* rounded_up, float* saturated,
                                         float* ceiling, float* product, float one, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    rounded_up[i] = __float2int_ru(x[i]);
    saturated[i] = __saturatef(x[i]);
    ceiling[i] = ceilf(x[i]);
    product[i] = x[i] * one;                // a real mul.ftz: NVRTC folds * 1.0f away
}
"""

SUBNORMALS = np.array([1e-45, 1e-40, 5e-39, -1e-42, 1.1754942e-38, 0.5, 1.5, -2.5], np.float32)


def run(kernel):
    x = cp.asarray(SUBNORMALS)
    n = x.size
    rounded_up, saturated = cp.zeros(n, np.int32), cp.zeros(n, np.float32)
    ceiling, product = cp.zeros(n, np.float32), cp.zeros(n, np.float32)
    kernel((1,), (32,), (x, rounded_up, saturated, ceiling, product, np.float32(1), np.int32(n)))
    return rounded_up.get(), saturated.get(), ceiling.get(), product.get()


def flushed(values):
    """What the GPU reads for each f32 under .ftz: subnormals become zero of the same sign."""
    return np.where(np.abs(values) < np.finfo(np.float32).tiny, np.copysign(0, values), values).astype(np.float32)


@pytest.mark.parametrize("make", [
    lambda: cp.RawKernel(SOURCE, "subnormal_ops"),
    lambda: cp.RawModule(code=SOURCE).get_function("subnormal_ops"),
], ids=["RawKernel", "RawModule"])
def test_subnormal_inputs_are_flushed_as_on_cupy(make):
    rounded_up, saturated, ceiling, product = run(make())
    x = flushed(SUBNORMALS)
    np.testing.assert_array_equal(rounded_up, np.ceil(x).astype(np.int32))
    assert rounded_up[0] == 0                          # 1 without -ftz
    np.testing.assert_array_equal(saturated, np.clip(x, 0, 1))
    np.testing.assert_array_equal(ceiling, np.ceil(x))
    np.testing.assert_array_equal(product, x)
    assert np.signbit(product[3])                      # flushed to -0


def test_ptx_carries_ftz_and_user_ftz_false_is_overridden_as_in_cupy():
    assert "cvt.rpi.ftz.s32.f32" in cp.RawKernel(SOURCE, "subnormal_ops").ptx
    module = cp.RawModule(code=SOURCE, options=("-ftz=false",))
    assert "cvt.rpi.ftz.s32.f32" in module.ptx        # CuPy's -ftz=true comes last and wins
    log = io.StringIO()
    module.compile(log_stream=log)
    assert "ftz" in log.getvalue()                     # NVRTC's warning about the two options


def test_ptx_modules_are_not_recompiled():
    ptx = cp.RawKernel(SOURCE, "subnormal_ops").ptx.replace(".ftz", "")
    rounded_up, *_ = run(cp.RawModule(ptx=ptx).get_function("subnormal_ops"))
    assert rounded_up[0] == 1                          # the PTX given is run as it is
