"""Launch-argument fuzzing: what careless users pass to a launch, through every API.

A case is one launch of a real kernel through one of warpsim's launch APIs:

    rawkernel  CuPy's RawKernel:             kernel(grid, block, args, shared_mem=...)
    function   CuPy's RawModule function:    f(grid, block, args, shared_mem=...)
    numba      Numba, explicit signature:    kernel[grid, block, stream, shared](*args)
    numba_lazy Numba, compiled per types:    the same, typed by the arguments (campaign only:
               every new type combination is a Numba compilation)
    loaded     the machine:                  LoadedModule.launch(kernel, grid, block, params, shared_mem)

with grid, block, shared memory and arguments drawn from good values and from what goes wrong
(wrong counts, floats for pointers, NumPy scalars of every dtype, ints out of range, None,
strings, nested tuples, 0/negative/huge dimensions, wrong dtypes, views, freed arrays, arrays
of another device, host arrays). `run_case` says how it ended: a correct run, or a warpsim
error that names the kernel (and, for an argument, its index) is fine; anything else is an
escape, and so is a device that no longer computes right after the case.

`python tests/fuzz/launch_cases.py N SEED` runs a campaign of N random cases without
hypothesis and prints the escapes grouped by class; tests/fuzz/test_launch_arguments.py runs
a few seconds of it under hypothesis and keeps a regression test per class found.
"""

from __future__ import annotations

import ctypes
import random
import signal
import traceback
import warnings

import numpy as np

import warpsim as cp
from warpsim.api.args import KernelArgumentError, pack_arguments
from warpsim.api.arrays import use_device
from warpsim.errors import InternalError, LaunchError, WarpsimError
from warpsim.machine.device import Device

N = 200                      # elements the kernels touch
APIS = ("rawkernel", "function", "numba", "loaded")
CASE_SECONDS = 20            # a case running longer than this is a hang

SOURCE = r"""
struct Pair { int first; float second; };
extern "C" __global__ void mix(const float* x, float* y, float a, int n, short s, signed char c,
                               unsigned long long u, double d, bool flag, Pair pair) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + s + c + (float)(u & 7) + (float)d + (flag ? 1.0f : 0.0f)
               + pair.first + pair.second;
}
"""
PAIR = np.dtype([("first", "<i4"), ("second", "<f4")])


def reference(x, y, a, n, s, c, u, d, flag, pair) -> tuple:
    """What mix may compute, in float32 and in the kernel's order (d rounded to float first):
    the results with a * x + y fused and not (compilers fuse it by default)."""
    results = []
    for first in multiply_add(a, x[:n], y[:n]):
        out = y.copy()
        out[:n] = first
        for term in (s, c, int(u) & 7, np.float32(d), flag, pair["first"], pair["second"]):
            out[:n] = out[:n] + np.float32(term)
        results.append(out)
    return tuple(results)


def multiply_add(a, x, y) -> tuple:
    """a * x + y rounded twice, and fused into one fma (the exact product plus y, rounded once;
    the f64 sum is exact well past f32's precision)."""
    return ((np.float32(a) * x + y).astype(np.float32),
            (np.float64(a) * x.astype(np.float64) + y).astype(np.float32))


def matches(got, candidates) -> bool:
    """Every element equals one of the candidate results."""
    return bool(np.logical_or.reduce([got == c for c in candidates]).all())


class Targets:
    """The kernels, once per process: CuPy's two ways, Numba's two, and the machine's."""

    def __init__(self):
        self.raw_kernel = cp.RawKernel(SOURCE, "mix")
        self.raw_kernel.compile()
        self.function = cp.RawModule(code=SOURCE).get_function("mix")
        self.loaded = self.function.loaded_module
        self.other_device = Device(memory_size=16 << 20)
        self.numba, self.numba_lazy = _numba_kernels()
        self.rng = np.random.default_rng(0)
        # Memory no case hands a kernel: it must never change (a stray pointer would write it).
        self.sentinel_host = self.rng.standard_normal(4 * N).astype(np.float32)
        self.sentinel = cp.asarray(self.sentinel_host)
        self.keep_alive = None        # the array a case passes by its raw pointer

    # good arguments --------------------------------------------------------
    def fresh(self):
        """Random inputs of the right kinds: x, y and mix's scalar arguments by name."""
        rng = self.rng
        x = rng.standard_normal(N).astype(np.float32)
        y = rng.standard_normal(N).astype(np.float32)
        scalars = dict(a=np.float32(rng.standard_normal()), n=np.int32(N), s=np.int16(rng.integers(-99, 99)),
                       c=np.int8(rng.integers(-99, 99)), u=np.uint64(rng.integers(0, 2**63)),
                       d=np.float64(rng.standard_normal()), flag=np.bool_(rng.integers(0, 2)),
                       pair=np.array((int(rng.integers(-9, 9)), float(rng.standard_normal())), PAIR)[()])
        return x, y, scalars

    def cupy_args(self, x_dev, y_dev, scalars) -> list:
        s = scalars
        return [x_dev, y_dev, s["a"], s["n"], s["s"], s["c"], s["u"], s["d"], s["flag"], s["pair"]]

    def _plain_launch(self, api, x, y, scalars, want):
        """(result, the results it may be) of a launch with good arguments through `api`."""
        if api in ("numba", "numba_lazy"):
            x_n, y_n = x.copy(), y.copy()
            getattr(self, api)[(N + 63) // 64, 64](x_n, y_n, scalars["a"], N)
            return y_n, multiply_add(scalars["a"], x, y)
        x_dev, y_dev = cp.asarray(x), cp.asarray(y)
        args = self.cupy_args(x_dev, y_dev, scalars)
        if api == "loaded":
            self.loaded.launch(self.function.kernel_name, ((N + 63) // 64,), (64,), self.pack(args))
        else:
            (self.raw_kernel if api == "rawkernel" else self.function)(((N + 63) // 64,), (64,), args)
        return y_dev.get(), want

    def pack(self, args) -> bytes:
        return pack_arguments("mix", self.function.params, args)

    def check_still_works(self, api: str = "rawkernel") -> str | None:
        """None if a plain launch through `api` still gives the right result and memory no
        case was given is unchanged, else what is wrong."""
        if not np.array_equal(self.sentinel.get(), self.sentinel_host):
            self.sentinel.set(self.sentinel_host)
            return "memory no argument pointed to was written"
        x, y, scalars = self.fresh()
        want = reference(x, y, n=N, **{k: v for k, v in scalars.items() if k != "n"})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got, want = self._plain_launch(api, x, y, scalars, want)
        except Exception as exc:      # noqa: BLE001
            return f"a plain launch after the case failed: {type(exc).__name__}: {exc}"
        if not matches(got, want):
            wrong = int((~np.logical_or.reduce([got == c for c in want])).sum())
            return f"a plain launch after the case gave wrong results ({wrong} of {N})"
        return None


def _numba_kernels():
    from warpsim import cuda

    def axpy(x, y, a, n):
        i = cuda.grid(1)
        if i < n:
            y[i] = a * x[i] + y[i]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = cuda.jit("void(float32[::1], float32[::1], float32, int32)")(axpy)
        lazy = cuda.jit(axpy)
    return typed, lazy





# --------------------------------------------------------------------------- choosing

class RandomChooser:
    """Choices from a seeded random.Random (the campaign)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def pick(self, options):
        return options[self.rng.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class HypothesisChooser:
    """Choices drawn through hypothesis's `data` (so failures shrink)."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def pick(self, options):
        return options[self.data.draw(self.st.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(self.st.integers(low, high))


# --------------------------------------------------------------------------- values

SCALAR_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                 np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)
BIG_INTS = (0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
            -2**31 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**30, -10**30)


def _numpy_scalar(choose):
    dtype = np.dtype(choose.pick(SCALAR_DTYPES))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(choose.pick([0, 1, info.min, info.max, 7]))
    if dtype.kind == "b":
        return dtype.type(choose.pick([True, False]))
    return dtype.type(choose.pick([0.0, -0.0, 1.5, float("nan"), float("inf"), -1e4]))


def _foreign(pointer, shape=(N,), typestr="<f4", **extra):
    class Foreign:
        __cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (pointer, False),
                                    "version": 3, **extra}
    return Foreign()


def value(choose, targets: Targets):
    """One argument value, of any kind a user might pass."""
    kind = choose.pick(["python", "numpy", "device", "host", "bytes", "odd", "ctypes"])
    if kind == "python":
        return choose.pick([None, True, False, 1.5, float("nan"), float("inf"), 1e300, complex(1, 2),
                            "text", "", *BIG_INTS])
    if kind == "numpy":
        return choose.pick([_numpy_scalar(choose), np.datetime64(1, "s"), np.timedelta64(3, "ms"),
                            np.str_("x"), np.bytes_(b"ab"), np.array(3, np.int32), np.void(b"\x01\x02"),
                            np.array((1, 2.0), PAIR)[()], np.array((1, 2.0), PAIR)])
    if kind == "device":
        return device_array(choose, targets)
    if kind == "host":
        return choose.pick([np.zeros(N, np.float32), np.zeros(N, np.int32), np.zeros((2, N), np.float32),
                            np.zeros(0, np.float32), np.arange(N, dtype=np.float32)[::2],
                            np.array([object()] * 3), np.zeros(N, np.float64)])
    if kind == "bytes":
        return choose.pick([b"", b"\x01", b"\x01\x02", b"\x01\x02\x03\x04", bytes(8), bytes(16),
                            bytearray(4), memoryview(bytes(8)), memoryview(bytes(16))[::2]])
    if kind == "ctypes":
        return choose.pick([ctypes.c_int(3), ctypes.c_float(1.5), ctypes.c_double(2.5), ctypes.c_int8(1),
                            ctypes.c_uint64(7), ctypes.c_void_p(0), ctypes.c_bool(True), (ctypes.c_int * 2)(1, 2)])
    return choose.pick([(), [], (1, 2), ((1, 2), 3), [[1.5]], {"a": 1}, object(), lambda: 1, type,
                        Ellipsis, NotImplemented, range(3), (targets.fresh()[0],),
                        _foreign(0), _foreign(-1), _foreign(2**64), _foreign("x"), _foreign(16, typestr="junk"),
                        _foreign(16, shape="abc"), _foreign(None)])


def device_array(choose, targets: Targets):
    """A device array: right, of a wrong dtype or shape, a view, freed, or on another device."""
    kind = choose.pick(["good", "dtype", "small", "empty", "2d", "strided", "reversed", "freed",
                        "freed_pointer", "other_device", "pointer", "memptr", "foreign", "numba",
                        "numba_strided", "numba_other_device"])
    if kind == "good":
        return cp.asarray(targets.rng.standard_normal(N).astype(np.float32))
    if kind in ("numba", "numba_strided", "numba_other_device"):
        from warpsim import cuda
        host = targets.rng.standard_normal(2 * N).astype(np.float32)
        if kind == "numba_other_device":
            with use_device(targets.other_device):
                return cuda.to_device(host[:N])
        return cuda.to_device(host[:N]) if kind == "numba" else cuda.to_device(host)[::2]
    if kind == "dtype":
        return cp.zeros(N, dtype=choose.pick([np.int32, np.float64, np.int8, np.complex64, np.bool_,
                                              np.float16, np.uint64]))
    if kind == "small":
        return cp.zeros(choose.pick([1, 7, N - 1]), dtype=np.float32)
    if kind == "empty":
        return cp.zeros(0, dtype=np.float32)
    if kind == "2d":
        return cp.zeros((2, N), dtype=np.float32)
    if kind == "strided":
        return cp.zeros(2 * N, dtype=np.float32)[::2]
    if kind == "reversed":
        return cp.zeros(N, dtype=np.float32)[::-1]
    if kind in ("freed", "freed_pointer"):
        dead = cp.zeros(N, dtype=np.float32)
        pointer = dead.data.ptr
        del dead
        if kind == "freed_pointer":
            return pointer
        return _foreign(pointer)
    if kind == "other_device":
        with use_device(targets.other_device):
            return cp.zeros(N, dtype=np.float32)
    if kind == "pointer":
        keep = cp.zeros(N, dtype=np.float32)
        targets.keep_alive = keep
        return keep.data.ptr
    if kind == "memptr":
        return cp.zeros(N, dtype=np.float32).data
    return _foreign(cp.zeros(N, dtype=np.float32).data.ptr)


# --------------------------------------------------------------------------- dimensions

def dimensions(choose, what: str):
    """grid or block as users write them: ints, NumPy ints, tuples, lists, and what is wrong."""
    good = [1, 2, 3] if what == "grid" else [1, 32, 64, 96]
    one = lambda: choose.pick(good)                         # noqa: E731
    return choose.pick([
        one(), one(), (one(),), [one()], (one(), 1), (one(), 1, 1), [one(), 1, 1], np.int32(one()),
        np.uint8(1), np.int64(one()), np.array([one(), 1]), np.array(one()),
        0, -1, -2**31, 2**31, 2**32 + 1, 2**64, 10**30, 1025, (1, 65536), (1, 1, 65536), (1, 1, 65), (2048,),
        (32, 32, 2), 1.0, 2.5, np.float32(1), "1", None, True, (), (1, 1, 1, 1), [[1]], ((1,),), (1, None),
        (np.int64(2), np.uint16(1)), (1.5, 1), {"x": 1}, range(1, 3), object()])


def shared_memory(choose):
    return choose.pick([0, 0, 0, 16, 4096, np.int32(64), np.uint64(8), -1, -2**31, 48 * 1024, 48 * 1024 + 1,
                        227 * 1024, 228 * 1024, 2**40, 1.5, "16", None, True, (16,)])


# --------------------------------------------------------------------------- cases

class Case:
    """One launch: the API, its grid, block, shared memory and arguments."""

    def __init__(self, api, grid, block, shared, args, note):
        self.api, self.grid, self.block, self.shared, self.args, self.note = api, grid, block, shared, args, note

    def __repr__(self) -> str:
        return (f"Case({self.api}, grid={self.grid!r}, block={self.block!r}, shared={self.shared!r}, "
                f"{self.note})")


def make_case(choose, targets: Targets, apis=APIS) -> Case:
    api = choose.pick(list(apis))
    grid = dimensions(choose, "grid") if choose.integer(0, 2) else (N + 63) // 64
    block = dimensions(choose, "block") if choose.integer(0, 2) else 64
    shared = shared_memory(choose) if choose.integer(0, 2) == 0 else 0
    x, y, scalars = targets.fresh()
    if api == "loaded":
        return Case(api, grid, block, shared, *parameter_buffer(choose, targets, x, y, scalars))
    if api in ("numba", "numba_lazy"):
        args = [x, y, scalars["a"], N]
    else:
        args = targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars)
    notes = []
    for _ in range(choose.integer(0, 3)):
        edit = choose.pick(["replace", "replace", "replace", "drop", "add", "swap"])
        if edit == "replace" and args:
            k = choose.integer(0, len(args) - 1)
            args[k] = value(choose, targets)
            notes.append(f"arg {k} = {_short(args[k])}")
        elif edit == "drop" and args:
            k = choose.integer(0, len(args) - 1)
            del args[k]
            notes.append(f"drop arg {k}")
        elif edit == "add":
            args.append(value(choose, targets))
            notes.append(f"extra arg {_short(args[-1])}")
        elif edit == "swap" and len(args) > 1:
            i, j = choose.integer(0, len(args) - 1), choose.integer(0, len(args) - 1)
            args[i], args[j] = args[j], args[i]
            notes.append(f"swap {i},{j}")
    if api != "loaded" and choose.integer(0, 9) == 0:
        args = choose.pick([lambda: tuple(args), lambda: args[0] if args else None, lambda: {"args": args},
                            lambda: iter(args), lambda: _object_array(args)])()
        notes.append(f"args as {type(args).__name__}")
    return Case(api, grid, block, shared, args, "; ".join(notes) or "good arguments")


def parameter_buffer(choose, targets: Targets, x, y, scalars):
    """(params, note) for LoadedModule.launch: the packed bytes, or something else."""
    good = targets.pack(targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars))
    kind = choose.pick(["good", "good", "short", "long", "empty", "bytearray", "memoryview", "uint8 array",
                        "list", "str", "None", "int", "float32 array"])
    params = {"good": good, "short": good[:choose.integer(0, len(good) - 1)], "long": good + bytes(9),
              "empty": b"", "bytearray": bytearray(good), "memoryview": memoryview(good),
              "uint8 array": np.frombuffer(good, np.uint8), "list": list(good), "str": "params",
              "None": None, "int": 7, "float32 array": np.zeros(4, np.float32)}[kind]
    return params, f"params {kind}"


def _object_array(items) -> np.ndarray:
    array = np.empty(len(items), dtype=object)
    for k, item in enumerate(items):
        array[k] = item
    return array


def _short(v) -> str:
    text = repr(v) if not isinstance(v, (np.ndarray, cp.ndarray)) else \
        f"{type(v).__module__.split('.')[0]} array {v.dtype} {v.shape}"
    return text if len(text) < 60 else text[:57] + "..."


def launch(case: Case, targets: Targets) -> None:
    if case.api in ("numba", "numba_lazy"):
        getattr(targets, case.api)[case.grid, case.block, 0, case.shared](*_as_star_args(case.args))
    elif case.api == "loaded":
        targets.loaded.launch(targets.function.kernel_name, case.grid, case.block, case.args,
                              shared_mem=case.shared)
    else:
        kernel = targets.raw_kernel if case.api == "rawkernel" else targets.function
        kernel(case.grid, case.block, case.args, shared_mem=case.shared)


def _as_star_args(args):
    return args if isinstance(args, (list, tuple)) else (args,)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang(f"the case ran past {CASE_SECONDS} s")


KERNEL_NAMES = ("mix", "axpy")


def verdict(exc: BaseException, case: Case) -> str | None:
    """None if `exc` is a fine way for the case to fail, else the escape's class."""
    if isinstance(exc, _Hang):
        return "hang"
    if isinstance(exc, InternalError):
        cause = exc.__cause__ or exc
        return f"InternalError from {type(cause).__name__} at {_place(cause)}"
    if not isinstance(exc, WarpsimError):
        return f"{type(exc).__name__} at {_place(exc)}"
    message = str(exc)
    if not any(name in message for name in KERNEL_NAMES):
        return f"{type(exc).__name__} not naming the kernel at {_place(exc)}"
    if isinstance(exc, KernelArgumentError) and "argument" not in message:
        return f"KernelArgumentError not naming the argument at {_place(exc)}"
    if not isinstance(exc, (KernelArgumentError, LaunchError, TypeError, ValueError)):
        return f"{type(exc).__name__} (neither a TypeError/ValueError nor a LaunchError) at {_place(exc)}"
    return None


def _place(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/warpsim/" in f.filename
              or "numba" in f.filename]
    frame = frames[-1] if frames else (traceback.extract_tb(exc.__traceback__) or [None])[-1]
    if frame is None:
        return "?"
    return f"{frame.filename.split('site-packages/')[-1].split('/main/')[-1]}:{frame.lineno}"


def run_case(case: Case, targets: Targets) -> str | None:
    """None if the case ended in a correct run or a clear warpsim error, else the escape class."""
    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(CASE_SECONDS)
    escape = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with cp.settings(watchdog_seconds=10.0):
                launch(case, targets)
    except BaseException as exc:      # noqa: BLE001 (the point: anything else is a finding)
        if isinstance(exc, KeyboardInterrupt):
            raise
        escape = verdict(exc, case)
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    broken = targets.check_still_works("numba" if case.api.startswith("numba") else "rawkernel")
    if broken:
        return escape or f"corrupted state: {broken}"
    return escape


def campaign(count: int, seed: int, apis=APIS + ("numba_lazy",)):
    import collections
    targets = Targets()
    rng = random.Random(seed)
    classes, examples = collections.Counter(), {}
    for k in range(count):
        case = make_case(RandomChooser(rng), targets, apis)
        escape = run_case(case, targets)
        if escape:
            classes[escape] += 1
            examples.setdefault(escape, case)
    return classes, examples


if __name__ == "__main__":
    import sys
    import time
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    start = time.perf_counter()
    classes, examples = campaign(count, seed)
    print(f"{count} cases (seed {seed}) in {time.perf_counter() - start:.0f} s: "
          f"{sum(classes.values())} escapes in {len(classes)} classes")
    for escape, n in classes.most_common():
        print(f"  {n:5d}  {escape}\n         e.g. {examples[escape]!r}")
