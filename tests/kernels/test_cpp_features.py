"""C++ at the kernel boundary: a struct argument passed by value (as a NumPy
structured scalar, laid out like the C++ struct), and template kernels
instantiated through name_expressions."""

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, exact_fma, kernel, load, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "cpp_features.cu"

PARAMS = np.dtype({"names": ["n", "scale", "offset", "source", "tag", "pair", "big"],
                   "formats": [np.int32, np.float32, np.float64, np.uint64, np.int8, (np.int16, 2), np.int64],
                   "offsets": [0, 4, 8, 16, 24, 26, 32], "itemsize": 40})


def test_struct_by_value():
    n = 777
    src = rng(1).integers(-10_000, 10_000, n).astype(np.int32)
    d_src = cp.asarray(src)
    params = np.zeros((), PARAMS)
    params["n"], params["scale"], params["offset"] = n, np.float32(0.75), 1e-3
    params["source"] = d_src.data.ptr
    params["tag"], params["pair"], params["big"] = -7, (300, -2), 1 << 40
    out, extra = sentinel(n + 5, np.float64), sentinel(n + 5, np.int64)
    kernel(SOURCE, "struct_by_value")(((n + 127) // 128,), (128,), (params[()], out, extra))
    got = out.get()
    assert_all_written(got[:n])
    assert not (extra.get()[n:] != extra.get()[n]).any(), "wrote past n"
    np.testing.assert_array_equal(got[:n], src * np.float64(np.float32(0.75)) + 1e-3)
    np.testing.assert_array_equal(extra.get()[:n], (1 << 40) - 7000 + 3000 - 2 + np.arange(n))


NAMES = ("scale_add<float, 3>", "scale_add<int, -2>", "scale_add<double, 5>",
         "clamp_all<int>", "clamp_all<unsigned short>", "corpus::sum_rows<7>")


def templates():
    return load(SOURCE, (), NAMES)


@pytest.mark.parametrize("dtype,factor", [(np.float32, 3), (np.int32, -2), (np.float64, 5)])
def test_template_scale_add(dtype, factor):
    n = 1000
    x = (rng(2).standard_normal(n) * 100).astype(dtype)
    y = sentinel(n, dtype)
    cname = {np.float32: "float", np.int32: "int", np.float64: "double"}[dtype]
    f = templates().get_function(f"scale_add<{cname}, {factor}>")
    bias = dtype(1.5 if dtype != np.int32 else 7)
    f(((n + 255) // 256,), (256,), (cp.asarray(x), y, bias, np.int32(n)))
    got = y.get()
    assert_all_written(got)
    if dtype == np.int32:
        np.testing.assert_array_equal(got, x * dtype(factor) + bias)
    else:                                   # NVRTC contracts x * F + bias into one fma
        np.testing.assert_array_equal(got, exact_fma(x, np.full(n, factor, dtype), np.full(n, bias), dtype))


@pytest.mark.parametrize("dtype,cname", [(np.int32, "int"), (np.uint16, "unsigned short")])
def test_template_clamp(dtype, cname):
    n = 5000
    info = np.iinfo(dtype)
    x = rng(3).integers(info.min, info.max, n, endpoint=True).astype(dtype)
    data = cp.asarray(x)
    lo, hi = dtype(info.min // 2 + 3), dtype(info.max // 3)
    templates().get_function(f"clamp_all<{cname}>")((4,), (128,), (data, lo, hi, np.int32(n)))
    np.testing.assert_array_equal(data.get(), np.clip(x, lo, hi))


def test_template_in_namespace():
    rows = 300
    m = rng(4).integers(-100, 100, (rows, 7)).astype(np.int32)
    out = sentinel(rows, np.int32)
    templates().get_function("corpus::sum_rows<7>")(((rows + 63) // 64,), (64,), (cp.asarray(m), out, np.int32(rows)))
    np.testing.assert_array_equal(out.get(), m.sum(axis=1))
