"""CuPy's array semantics that users rely on, one fact per test: in-place operators and views,
joins and splits, ufuncs with out= and their methods (at, reduce, accumulate, outer, reduceat).

The random programs of test_cupy_semantics.py cover the combinations; these name the cases that
were once wrong (an in-place operator on a view changed a copy; joins refused device arrays).
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.cli.run import cupy_on_warpsim


@pytest.fixture
def host():
    return np.random.default_rng(7).standard_normal((4, 5))


def test_an_inplace_operator_on_a_row_writes_into_its_array(host):
    a = cp.asarray(host)
    row = a[1]
    row += 1
    expected = host.copy()
    expected[1] += 1
    np.testing.assert_array_equal(a.get(), expected)


def test_an_inplace_operator_returns_the_same_array(host):
    a = cp.asarray(host)
    b = a
    b *= 2
    assert b is a
    np.testing.assert_array_equal(a.get(), host * 2)


@pytest.mark.parametrize("op, value", [("__iadd__", 3), ("__isub__", 1), ("__imul__", 2),
                                       ("__ifloordiv__", 2), ("__imod__", 3), ("__ipow__", 2),
                                       ("__iand__", 6), ("__ior__", 8), ("__ixor__", 5),
                                       ("__ilshift__", 1), ("__irshift__", 1)])
def test_every_integer_inplace_operator_writes_through_a_strided_view(op, value):
    host = np.arange(24, dtype=np.int64).reshape(4, 6)
    a = cp.asarray(host)
    view, host_view = a[1::2, ::-2], host[1::2, ::-2]
    assert getattr(view, op)(value) is view
    getattr(host_view, op)(value)
    np.testing.assert_array_equal(a.get(), host)


def test_int_plus_equals_float_raises_numpys_casting_error():
    a = cp.arange(3)
    with pytest.raises(TypeError, match="same_kind") as raised:
        a += 1.5
    with pytest.raises(type(raised.value)):
        host = np.arange(3)
        host += 1.5
    np.testing.assert_array_equal(a.get(), [0, 1, 2])


def test_float32_plus_equals_float64_keeps_float32():
    a = cp.ones(3, dtype=cp.float32)
    a += cp.ones(3) / 3
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a.get(), np.float32(1) + np.float32(1 / 3))


def test_imatmul_and_overlapping_inplace_add_are_numpys(host):
    a = cp.asarray(host[:, :4].copy())
    expected = host[:, :4] @ np.eye(4) * 2
    a @= cp.eye(4) * 2
    np.testing.assert_array_equal(a.get(), expected)
    x, x_host = cp.arange(6), np.arange(6)
    x[1:] += x[:-1]
    x_host[1:] += x_host[:-1]
    np.testing.assert_array_equal(x.get(), x_host)


@pytest.mark.parametrize("key", [slice(1, 3), (slice(None, None, 2), 1), Ellipsis, ([0, 3],),
                                 "mask", "device_mask", "device_fancy"])
def test_assignment_writes_into_memory(host, key):
    a = cp.asarray(host)
    view, host_view = a[:, 1:], host.copy()[:, 1:]
    if key == "mask":
        key = host_view > 0
    elif key == "device_mask":
        key = host_view > 0
        device_key = cp.asarray(key)
    elif key == "device_fancy":
        key = np.array([2, 0])
        device_key = cp.asarray(key)
    device_key = locals().get("device_key", key)
    view[device_key] = -7
    host_view[key] = -7
    np.testing.assert_array_equal(a[:, 1:].get(), host_view)


def test_broadcast_assignment_from_a_device_array(host):
    a = cp.asarray(host)
    a[...] = cp.arange(5)
    np.testing.assert_array_equal(a.get(), np.broadcast_to(np.arange(5.0), (4, 5)))


def test_ufunc_out_fills_a_view_and_returns_it(host):
    a = cp.asarray(host)
    result = cp.add(a[0], 1, out=a[2])
    assert isinstance(result, cp.ndarray)
    expected = host.copy()
    expected[2] = host[0] + 1
    np.testing.assert_array_equal(a.get(), expected)
    out = cp.empty_like(a)
    assert cp.multiply(a, 2, out=out) is out
    assert a.sum(axis=0, out=out[0]) is not None
    np.testing.assert_allclose(out[0].get(), expected.sum(axis=0))


@pytest.mark.parametrize("name", ["concatenate", "stack", "vstack", "hstack", "dstack",
                                  "column_stack"])
def test_joins_take_and_give_device_arrays(host, name):
    parts = [host, host * 2]
    result = getattr(cp, name)([cp.asarray(p) for p in parts])
    assert isinstance(result, cp.ndarray)
    np.testing.assert_array_equal(result.get(), getattr(np, name)(parts))


@pytest.mark.parametrize("name, args", [("split", (2,)), ("array_split", (3,)),
                                        ("vsplit", (2,)), ("hsplit", ([1, 3],))])
def test_splits_are_views_of_their_array(host, name, args):
    a = cp.asarray(host)
    pieces = getattr(cp, name)(a, *args)
    expected = getattr(np, name)(host.copy(), *args)
    assert all(isinstance(p, cp.ndarray) and p.base is a for p in pieces)
    for piece, host_piece in zip(pieces, expected):
        np.testing.assert_array_equal(piece.get(), host_piece)
    pieces[-1][...] = 0
    assert not a.get()[-1, -1]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_ufunc_at_changes_its_argument_in_place(name):
    host = np.arange(12.0).reshape(3, 4)
    a = cp.asarray(host)
    indices, values = np.array([0, 1, 1, 3]), np.array([5.0, 6.0, 7.0, 8.0])
    assert getattr(cp, name).at(a[1], cp.asarray(indices), cp.asarray(values)) is None
    getattr(np, name).at(host[1], indices, values)
    np.testing.assert_array_equal(a.get(), host)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and",
                                  "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("method, args, kwargs", [("reduce", (), {"axis": 1}),
                                                   ("reduce", (), {"axis": None}),
                                                   ("accumulate", (), {"axis": 0}),
                                                   ("reduceat", ([0, 2, 3],), {"axis": 1})])
def test_ufunc_reductions_match_numpy(name, method, args, kwargs):
    host = np.random.default_rng(3).integers(0, 9, (3, 5))
    result = getattr(getattr(cp, name), method)(cp.asarray(host), *args, **kwargs)
    expected = getattr(getattr(np, name), method)(host, *args, **kwargs)
    assert isinstance(result, cp.ndarray)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.get(), expected)


def test_ufunc_outer_and_attributes():
    result = cp.subtract.outer(cp.arange(3), cp.arange(4.0))
    np.testing.assert_array_equal(result.get(), np.subtract.outer(np.arange(3), np.arange(4.0)))
    assert (cp.add.nin, cp.add.nout, cp.add.__name__) == (2, 1, "add")
    assert cp.add is cp.add and isinstance(cp.add, cp.ufunc)
    assert isinstance(cp.integer, type) and issubclass(cp.int32, cp.integer)


def test_reductions_give_zero_dim_device_arrays(host):
    total = cp.asarray(host).sum()
    assert isinstance(total, cp.ndarray) and total.shape == ()
    assert total.item() == pytest.approx(host.sum())
    assert f"{total:.3f}" == f"{host.sum():.3f}"


def test_in_place_sort_and_view_methods(host):
    a = cp.asarray(host)
    a[1].sort()
    expected = host.copy()
    expected[1].sort()
    np.testing.assert_array_equal(a.get(), expected)
    a.swapaxes(0, 1)[0, 0] = 42
    a.diagonal()                  # a view, as CuPy's; NumPy's is read-only
    a.T.flat[1] = -1
    expected[0, 0], expected[1, 0] = 42, -1
    np.testing.assert_array_equal(a.get(), expected)
    z = cp.asarray(np.array([1 + 2j, 3 - 1j]))
    z.real[:] = 0
    np.testing.assert_array_equal(z.get(), [2j, -1j])


def test_implicit_conversion_to_numpy_is_still_refused(host):
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(cp.asarray(host))


def test_numpy_functions_given_device_arrays_compute_as_cupys(host):
    a = cp.asarray(host)
    scaled = np.float64(2) * a                       # a NumPy scalar on the left
    assert isinstance(scaled, cp.ndarray)
    np.testing.assert_array_equal(scaled.get(), 2 * host)
    joined = np.concatenate([a, a])
    assert isinstance(joined, cp.ndarray)
    np.testing.assert_array_equal(joined.get(), np.concatenate([host, host]))
    np.add(a[0], 1, out=a[1])
    np.testing.assert_array_equal(a[1].get(), host[0] + 1)


def test_numbas_device_arrays_still_give_numpy_results():
    from warpsim import cuda
    device = cuda.to_device(np.arange(4.0))
    result = np.add(device, 1)
    assert type(result) is np.ndarray
    np.testing.assert_array_equal(result, np.arange(4.0) + 1)
    assert type(np.concatenate([device, device])) is np.ndarray


def test_the_same_semantics_under_warpsim_run(host):
    with cupy_on_warpsim():
        import cupy
        a = cupy.asarray(host)
        row = a[0]
        row += 1
        joined = cupy.concatenate([a, a])
        cupy.add.at(a, cupy.asarray(np.array([0, 0])), 1)
        assert cupy.get_array_module(a) is cupy
    expected = host.copy()
    expected[0] += 1
    np.testing.assert_array_equal(joined.get()[:4], expected)
    expected[0] += 2
    np.testing.assert_array_equal(a.get(), expected)
