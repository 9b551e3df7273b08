"""cupy.fuse on warpsim: the traced function runs as one simulated kernel and agrees with NumPy.

The reference is the same Python function called with NumPy arrays (a fused function called
without device arrays runs as plain Python, as CuPy's does), so every operator and dtype rule is
checked against NumPy's own."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.fusion import FusionError

pytestmark = pytest.mark.nvrtc

RNG = np.random.default_rng(2024)


def _random(shape, dtype, scale=20.0, nonzero=False):
    values = (RNG.standard_normal(shape) * scale).astype(dtype)
    if nonzero:
        values[values == 0] = 3
    return values


def _compare(got, ref, rtol=1e-6):
    got, ref = (got if isinstance(got, tuple) else (got,)), (ref if isinstance(ref, tuple) else (ref,))
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        r = np.asarray(r)
        assert isinstance(g, cp.ndarray) and g.dtype == r.dtype and g.shape == r.shape
        tolerance = 2e-3 if r.dtype == np.float16 else rtol
        np.testing.assert_allclose(g.get(), r, rtol=tolerance, atol=tolerance if r.dtype.kind == "f" else 0)


@cp.fuse()
def arithmetic(x, y):
    return (x + y, x - y, x * y, x / y, x // y, x % y, x ** 2, np.maximum(x, y), np.minimum(x, y),
            x < y, x >= y, x == y, -x, abs(x))


@pytest.mark.parametrize("x_type, y_type", [
    (np.float32, np.float32), (np.float64, np.float32), (np.int32, np.int64), (np.uint8, np.int16),
    (np.float16, np.float32), (np.int16, np.float32), (np.int8, np.bool_)])
def test_operators_follow_numpys_values_and_promotion(x_type, y_type):
    x = _random((3, 5), x_type)
    y = _random((5,), y_type, 10, nonzero=True)               # broadcast along the rows
    _compare(arithmetic(cp.asarray(x), cp.asarray(y)), arithmetic(x, y))


@pytest.mark.parametrize("x_type, scalar", [(np.float32, 2.5), (np.int8, 7), (np.int32, 1.5),
                                            (np.float16, 3), (np.uint16, 5)])
def test_python_scalars_are_weak_as_in_cupy(x_type, scalar):
    x = _random((17,), x_type, 10, nonzero=True)
    if x_type == np.uint16:
        x = np.abs(x.astype(np.int64)).astype(np.uint16) + 1
    _compare(arithmetic(cp.asarray(x), scalar), arithmetic(x, scalar))


@cp.fuse
def elementary(x):
    return (np.exp(x / 8), np.log(np.abs(x) + 1), np.sqrt(np.abs(x)), np.sin(x), np.cos(x),
            np.tanh(x / 4), np.floor(x), np.ceil(x), np.arctan2(x, 3.0), np.isnan(x), np.sign(x),
            np.square(x), np.expm1(x / 16), np.log1p(np.abs(x)))


@pytest.mark.parametrize("dtype, rtol", [(np.float32, 2e-6), (np.float64, 1e-13)])
def test_math_functions_on_the_simulated_gpu_match_numpy(dtype, rtol):
    x = _random((40,), dtype, 5)
    x[3] = np.nan
    _compare(elementary(cp.asarray(x)), elementary(x), rtol)


@cp.fuse
def bitwise(x, y):
    return x & y, x | y, x ^ y, ~x, x << 3, y >> 2


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_bitwise_operators(dtype):
    x, y = RNG.integers(0, 100, (2, 32)).astype(dtype)
    if dtype == np.bool_:
        _compare(bitwise(cp.asarray(x), cp.asarray(y))[:4], bitwise(x, y)[:4])
    else:
        _compare(bitwise(cp.asarray(x), cp.asarray(y)), bitwise(x, y))


def test_where_clip_astype_and_a_numpy_scalar_argument():
    @cp.fuse(kernel_name="select_and_cast")
    def select(x, y, limit):
        chosen = np.where(x > y, x * limit, y - 1)
        return np.clip(chosen, -limit, limit).astype(np.int16), (x > 0).astype(np.float32)

    x, y = _random((6, 7), np.float64), _random((6, 1), np.float64)
    _compare(select(cp.asarray(x), cp.asarray(y), np.float32(4.5)), select(x, y, np.float32(4.5)))


def test_the_kernel_is_simulated_and_profiled_under_its_name():
    @cp.fuse(kernel_name="fused_axpy")
    def axpy(a, x, y):
        return a * x + y

    x, y = _random((300,), np.float32), _random((300,), np.float32)
    with cp.profile() as prof:
        z = axpy(np.float32(3), cp.asarray(x), cp.asarray(y))
    assert [launch.kernel_name for launch in prof.launches] == ["fused_axpy"]
    assert prof.launches[0].grid == (3, 1, 1) and prof.launches[0].block == (128, 1, 1)
    # NVRTC contracts a * x + y into one fma, as on the GPU: the exact value rounded once
    fma = (3 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(z.get(), fma)


def test_an_in_place_operator_writes_the_argument_and_its_base():
    @cp.fuse
    def accumulate(total, x):
        total += x * 2
        alias = total
        alias -= 1

    base = cp.asarray(np.zeros((4, 6), np.float32))
    x = _random((6,), np.float32)
    assert accumulate(base[1:3], cp.asarray(x)) is None
    expected = np.zeros((4, 6), np.float32)
    expected[1:3] += x * 2 - 1
    np.testing.assert_allclose(base.get(), expected, rtol=1e-6)
    with pytest.raises(TypeError, match="same_kind"):
        accumulate(cp.asarray(np.zeros(6, np.int32)), cp.asarray(x))


@pytest.mark.parametrize("kind, axis, keepdims, dtype", [
    ("sum", None, False, np.float32), ("sum", 1, True, np.float64), ("sum", 0, False, np.int32),
    ("prod", 1, False, np.int16), ("max", 0, False, np.float32), ("min", None, False, np.int64),
    ("sum", None, False, np.bool_)])
def test_a_reduction_at_the_end_is_one_reduction_kernel(kind, axis, keepdims, dtype):
    reducer = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]

    def body(x, y):
        return reducer(x * y + 1, axis=axis, keepdims=keepdims)
    fused = cp.fuse(body)
    x = _random((5, 9), dtype, 3) if dtype != np.bool_ else RNG.integers(0, 2, (5, 9)).astype(bool)
    y = _random((9,), dtype, 2) if dtype != np.bool_ else RNG.integers(0, 2, 9).astype(bool)
    with cp.profile() as prof:
        got = fused(cp.asarray(x), cp.asarray(y))
    assert [launch.kernel_name for launch in prof.launches] == ["body"]
    _compare(got, body(x, y), rtol=1e-5)


def test_a_reduction_as_a_method_propagates_nan_like_numpy():
    @cp.fuse
    def peak(x):
        return (x * 2).max(axis=1)

    x = _random((3, 8), np.float32)
    x[1, 4] = np.nan
    _compare(peak(cp.asarray(x)), peak(x))


def test_what_cannot_be_fused_is_refused_by_name():
    @cp.fuse
    def branch(x):
        return x if x > 0 else -x

    with pytest.raises(FusionError, match="cupy.where"):
        branch(cp.asarray(np.ones(3)))

    @cp.fuse
    def after_reduction(x):
        return np.sum(x) * 2

    with pytest.raises(FusionError, match="reduction only as the value"):
        after_reduction(cp.asarray(np.ones(3)))
    with pytest.raises(TypeError, match="not numpy.ndarray"):
        arithmetic(cp.asarray(np.ones(3)), np.ones(3))
    assert arithmetic(2.0, 4.0)[0] == 6.0                  # no device array: plain Python


def test_warpsim_profile_lists_a_fused_programs_kernels(tmp_path, capsys):
    from warpsim import cli
    script = tmp_path / "fused.py"
    script.write_text("import numpy as np\nimport cupy as cp\n\n"
                      "@cp.fuse()\ndef scaled_error(x, y, beta):\n"
                      "    return cp.where(x > y, x - y, y - x) * beta\n\n"
                      "@cp.fuse()\ndef dot_rows(a, b):\n    return cp.sum(a * b, axis=1)\n\n"
                      "x = cp.asarray(np.linspace(-1, 1, 256, dtype=np.float32))\n"
                      "scaled_error(x, x[::-1], 2.0)\n"
                      "dot_rows(x.reshape(16, 16), x.reshape(16, 16))\n")
    assert cli.main(["profile", "python", str(script)]) == 0
    out = capsys.readouterr().out
    assert "[0] scaled_error" in out and "[1] dot_rows" in out
