"""Device arrays follow NumPy's memory semantics: the same operations on warpsim and NumPy arrays
leave the same state.

A random program (hypothesis) starts from a few arrays and applies steps: views (basic
slicing, transpose, reshape, ravel, squeeze, swapaxes, split, real, flip, expand_dims),
broadcasting binary operators and ufuncs, in-place operators on views, slice, mask and fancy
assignment, ufuncs with `out=` (a view included), `ufunc.at`, reductions with axis, keepdims
and out=, astype, joins. Each step runs on the NumPy arrays and on the warpsim arrays; after
each step every array of both (bases and views) must hold the same values, dtype and shape,
an in-place operator and `out=` must return the very array given, and where NumPy raises,
warpsim raises the same exception type.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import warpsim as cp

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.bool_]
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.and_, operator.or_, operator.xor, operator.lt, operator.eq,
          operator.ge]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
           operator.imod, operator.iand, operator.ior, operator.ixor, operator.ilshift,
           operator.irshift, operator.ipow]
UFUNCS = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide", "bitwise_or",
          "logical_and", "negative", "sqrt"]
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "any", "all", "cumsum", "argmax"]
MAX_ARRAYS = 12


class Pair:
    """One array on both sides: NumPy's and warpsim's, and how it was made (for failure notes)."""

    def __init__(self, host, device, how: str):
        self.host, self.device, self.how = host, device, how
        self.writable = host.flags.writeable       # NumPy makes some views read-only; CuPy does not

    def __repr__(self) -> str:
        return f"{self.how} {self.host.shape} {self.host.dtype}"


def elements(dtype):
    if np.dtype(dtype).kind == "b":
        return st.booleans()
    if np.dtype(dtype).kind == "i":
        return st.integers(-9, 9)
    return st.floats(-9, 9, width=np.dtype(dtype).itemsize * 8)


@st.composite
def start_arrays(draw):
    count = draw(st.integers(1, 3))
    pairs = []
    for number in range(count):
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
        dtype = draw(st.sampled_from(DTYPES))
        host = draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
        pairs.append(Pair(host, cp.asarray(host), f"base{number}"))
    return pairs


def basic_index(draw, shape) -> tuple:
    """A basic index for `shape`: ints, slices with steps, None and one Ellipsis."""
    key = []
    for size in shape[:draw(st.integers(0, len(shape)))]:
        if size and draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            key.append(slice(draw(st.none() | st.integers(-size - 1, size + 1)),
                             draw(st.none() | st.integers(-size - 1, size + 1)),
                             draw(st.sampled_from([None, 1, 2, -1, -2]))))
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), None)
    if draw(st.booleans()):
        key.append(Ellipsis)        # after the drawn items, so each still meets the axis drawn for
    return tuple(key)


def broadcasts_to(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def broadcastable_to(pairs, shape):
    return [p for p in pairs if broadcasts_to(p.host.shape, shape)]


def operand(draw, pairs, shape):
    """A scalar or an array (NumPy's, warpsim's) that broadcasts to `shape`."""
    candidates = broadcastable_to(pairs, shape)
    if candidates and draw(st.booleans()):
        chosen = draw(st.sampled_from(candidates))
        return chosen.host, chosen.device, chosen.how
    value = draw(st.sampled_from([2, -3, 0, 1.5, True]))
    return value, value, repr(value)


def run_both(host_step, device_step):
    """Both steps' results, or the exception types when NumPy raises (warpsim must raise it too)."""
    with np.errstate(all="ignore"):
        try:
            expected = host_step()
        except Exception as error:          # noqa: BLE001 (whatever NumPy raises, warpsim must)
            with pytest.raises(type(error)):
                device_step()
            return None, None
        return expected, device_step()


# --- the steps: each draws its operands and returns a new Pair or None --------------------

def step_view(draw, pairs):
    p = draw(st.sampled_from(pairs))
    kind = draw(st.sampled_from(["basic", "T", "transpose", "reshape", "ravel", "squeeze",
                                 "swapaxes", "split", "real", "flip", "expand_dims"]))
    ndim = p.host.ndim
    if kind == "basic":
        key = basic_index(draw, p.host.shape)
        make = lambda a: a[key]                                 # noqa: E731
    elif kind == "T":
        make = lambda a: a.T                                    # noqa: E731
    elif kind == "transpose":
        axes = draw(st.permutations(range(ndim)))
        make = lambda a: a.transpose(axes)                      # noqa: E731
    elif kind == "reshape":
        shape = draw(st.sampled_from([(-1,), (1, -1), (-1, 1), p.host.shape[::-1]]))
        if int(np.prod(shape)) not in (p.host.size, -p.host.size):
            shape = (-1,)
        make = lambda a: a.reshape(shape)                       # noqa: E731
    elif kind == "ravel":
        make = lambda a: a.ravel()                              # noqa: E731
    elif kind == "squeeze":
        make = lambda a: a.squeeze()                            # noqa: E731
    elif kind == "swapaxes" and ndim >= 2:
        make = lambda a: a.swapaxes(0, -1)                      # noqa: E731
    elif kind == "split" and ndim >= 1:
        pieces, index = draw(st.integers(1, 3)), draw(st.integers(0, 2))
        make = lambda a: (np if isinstance(a, np.ndarray) else cp).array_split(a, pieces)[  # noqa: E731
            index % pieces]
    elif kind == "flip" and ndim >= 1:
        make = lambda a: (np if isinstance(a, np.ndarray) else cp).flip(a, 0)  # noqa: E731
    elif kind == "expand_dims":
        make = lambda a: (np if isinstance(a, np.ndarray) else cp).expand_dims(a, 0)  # noqa: E731
    else:
        make = lambda a: a.real                                 # noqa: E731
    host, device = run_both(lambda: make(p.host), lambda: make(p.device))
    if not isinstance(host, np.ndarray):    # NumPy gives a scalar where CuPy gives a 0-d view
        return None
    return Pair(host, device, f"{kind}({p.how})")


def step_binary(draw, pairs):
    p = draw(st.sampled_from(pairs))
    x_host, x_device, x_how = operand(draw, pairs, p.host.shape)
    op = draw(st.sampled_from(BINARY))
    if draw(st.booleans()):
        host, device = run_both(lambda: op(p.host, x_host), lambda: op(p.device, x_device))
    else:
        host, device = run_both(lambda: op(x_host, p.host), lambda: op(x_device, p.device))
    if not isinstance(host, np.ndarray):
        return None
    return Pair(host, device, f"{op.__name__}({p.how}, {x_how})")


def step_inplace(draw, pairs):
    p = draw(st.sampled_from([q for q in pairs if q.writable] or pairs))
    x_host, x_device, x_how = operand(draw, pairs, p.host.shape)
    op = draw(st.sampled_from(INPLACE))
    note(f"  {op.__name__}({p}, {x_how})")
    host, device = run_both(lambda: op(p.host, x_host), lambda: op(p.device, x_device))
    if host is not None:
        assert device is p.device, f"{op.__name__} did not return the array itself"


def step_setitem(draw, pairs):
    p = draw(st.sampled_from([q for q in pairs if q.writable] or pairs))
    kind = draw(st.sampled_from(["basic", "mask", "fancy", "ellipsis"]))
    if kind == "basic":
        key_host = key_device = basic_index(draw, p.host.shape)
    elif kind == "mask":
        masks = [q for q in pairs if q.host.dtype == bool and q.host.shape == p.host.shape]
        if masks and draw(st.booleans()):
            mask = draw(st.sampled_from(masks))
            key_host, key_device = mask.host, mask.device
        else:
            key_host = p.host > 0 if p.host.dtype != bool else p.host.copy()
            key_device = cp.asarray(key_host) if draw(st.booleans()) else key_host
    elif kind == "fancy" and p.host.ndim >= 1 and p.host.shape[0]:
        rows = draw(st.lists(st.integers(-p.host.shape[0], p.host.shape[0] - 1), min_size=1,
                             max_size=4, unique=True))
        key_host = np.array(rows)
        key_device = cp.asarray(key_host) if draw(st.booleans()) else rows
    else:
        key_host = key_device = Ellipsis
    try:
        selected = p.host[key_host].shape
    except IndexError:
        return
    value_host, value_device, value_how = operand(draw, pairs, selected)
    note(f"  {p}[{kind}] = {value_how}")
    run_both(lambda: p.host.__setitem__(key_host, value_host),
             lambda: p.device.__setitem__(key_device, value_device))


def step_ufunc_out(draw, pairs):
    p = draw(st.sampled_from([q for q in pairs if q.writable] or pairs))
    name = draw(st.sampled_from(UFUNCS))
    host_ufunc, device_ufunc = getattr(np, name), getattr(cp, name)
    operands = [operand(draw, pairs, p.host.shape) for _ in range(host_ufunc.nin)]
    note(f"  {name}({[o[2] for o in operands]}, out={p})")
    host, device = run_both(lambda: host_ufunc(*[o[0] for o in operands], out=p.host),
                            lambda: device_ufunc(*[o[1] for o in operands], out=p.device))
    if host is not None:
        assert device is p.device, f"{name}(out=) did not return the out array"


def step_ufunc_at(draw, pairs):
    targets = [q for q in pairs if q.writable and q.host.ndim >= 1 and q.host.shape[0]]
    if not targets:
        return
    p = draw(st.sampled_from(targets))
    name = draw(st.sampled_from(["add", "subtract", "maximum", "multiply"]))
    rows = draw(st.lists(st.integers(0, p.host.shape[0] - 1), min_size=1, max_size=5))
    value = draw(st.sampled_from([1, 2, -1]))
    note(f"  {name}.at({p}, {rows}, {value})")
    run_both(lambda: getattr(np, name).at(p.host, rows, value),
             lambda: getattr(cp, name).at(p.device, cp.asarray(np.array(rows)), value))


def step_reduce(draw, pairs):
    p = draw(st.sampled_from(pairs))
    name = draw(st.sampled_from(REDUCTIONS))
    axis = draw(st.none() | st.integers(-p.host.ndim, p.host.ndim - 1)) if p.host.ndim else None
    kwargs = {"axis": axis}
    if name not in ("cumsum", "argmax") and draw(st.booleans()):
        kwargs["keepdims"] = True
    with np.errstate(all="ignore"):
        try:
            shape = np.shape(getattr(p.host, name)(**kwargs))
        except Exception:                   # noqa: BLE001 (run_both checks the error below)
            shape = None
    outs = [q for q in pairs if q.writable and q.host.shape == shape] if shape is not None else []
    if outs and draw(st.booleans()):
        out = draw(st.sampled_from(outs))
        note(f"  {p}.{name}({kwargs}, out={out})")
        host, device = run_both(lambda: getattr(p.host, name)(**kwargs, out=out.host),
                                lambda: getattr(p.device, name)(**kwargs, out=out.device))
        if host is not None:
            assert device is out.device
        return None
    host, device = run_both(lambda: getattr(p.host, name)(**kwargs),
                            lambda: getattr(p.device, name)(**kwargs))
    if host is None:
        return None
    assert isinstance(device, cp.ndarray), f"{name} gave {type(device)}, CuPy gives a device array"
    return Pair(np.asarray(host), device, f"{name}({p.how}, {kwargs})")


def step_astype(draw, pairs):
    p = draw(st.sampled_from(pairs))
    dtype = draw(st.sampled_from(DTYPES))
    host, device = run_both(lambda: p.host.astype(dtype), lambda: p.device.astype(dtype))
    return Pair(host, device, f"astype({p.how}, {np.dtype(dtype)})")


def step_join(draw, pairs):
    p = draw(st.sampled_from(pairs))
    same = [q for q in pairs if q.host.shape == p.host.shape]
    chosen = draw(st.lists(st.sampled_from(same), min_size=1, max_size=3))
    name = draw(st.sampled_from(["concatenate", "stack", "vstack", "hstack"]))
    host, device = run_both(lambda: getattr(np, name)([q.host for q in chosen]),
                            lambda: getattr(cp, name)([q.device for q in chosen]))
    return None if host is None else Pair(host, device, f"{name}({[q.how for q in chosen]})")


STEPS = [step_view, step_view, step_binary, step_inplace, step_inplace, step_setitem,
         step_setitem, step_ufunc_out, step_ufunc_at, step_reduce, step_astype, step_join]


def assert_same_state(pairs) -> None:
    for p in pairs:
        got = p.device.get()
        assert got.shape == p.host.shape and got.dtype == p.host.dtype, f"{p}: got {got.shape} {got.dtype}"
        np.testing.assert_array_equal(got, p.host, err_msg=f"{p} differs from NumPy's")


def run_program(data) -> None:
    pairs = data.draw(start_arrays())
    for _ in range(data.draw(st.integers(1, 10), label="steps")):
        step = data.draw(st.sampled_from(STEPS))
        created = step(data.draw, pairs)
        if created is not None:
            note(f"  new: {created}")
            pairs = (pairs + [created])[-MAX_ARRAYS:]
        assert_same_state(pairs)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_programs_leave_numpy_state(data):
    run_program(data)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_programs_leave_numpy_state_long(data):
    run_program(data)
