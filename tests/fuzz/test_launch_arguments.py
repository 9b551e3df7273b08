"""Launch arguments, fuzzed (hypothesis) and by hand: every launch API ends in a correct run or
a clear warpsim error, and the device still computes right afterwards.

The hypothesis test draws WARPSIM_FUZZ_EXAMPLES cases (default 300, a few seconds) through
CuPy's RawKernel and RawModule functions, Numba's kernel[grid, block, stream, shared] and
LoadedModule.launch (tests/fuzz/launch_cases.py says what a case is and what counts as an
escape). `python tests/fuzz/launch_cases.py N SEED` runs a longer campaign, Numba's
compile-per-types dispatcher included. Each escape class a campaign found is a test below.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.args import KernelArgumentError
from warpsim.api.arrays import use_device
from warpsim.errors import LaunchError, WarpsimError

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("numba.cuda")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import launch_cases  # noqa: E402
from launch_cases import APIS, N, HypothesisChooser, Targets, make_case, run_case  # noqa: E402

pytestmark = [pytest.mark.numba, pytest.mark.nvrtc,
              pytest.mark.filterwarnings("ignore:Grid size:Warning"),
              pytest.mark.filterwarnings("ignore:Host array used:Warning")]
EXAMPLES = int(os.environ.get("WARPSIM_FUZZ_EXAMPLES", "300"))


@pytest.fixture(scope="module")
def targets():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Targets()


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_launches_end_in_a_run_or_a_warpsim_error(targets, data):
    case = make_case(HypothesisChooser(data), targets, APIS)
    escape = run_case(case, targets)
    assert escape is None, f"{escape}: {case!r}"


def test_good_arguments_give_the_right_result_through_every_api(targets):
    for api in APIS + ("numba_lazy",):
        assert targets.check_still_works(api) is None, api


# --- one test per escape class the campaigns found ----------------------------------------------

def _fails_clearly(call, error=WarpsimError, *words):
    with pytest.raises(error) as caught:
        call()
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))
    return caught.value


def _still_works(targets, api):
    assert targets.check_still_works(api) is None


@pytest.mark.parametrize("griddim, blockdim", [([[1]], 32), (1, 2.5), (np.array([2, 1]), 32),
                                               ((1, 1, 1, 1), 32), (1, "32"), (1, {"x": 1})])
def test_numba_launch_configuration_numba_refuses_names_the_kernel(targets, griddim, blockdim):
    """Was Numba's bare TypeError/ValueError (or NumPy's 'truth value of an array is ambiguous')."""
    error = _fails_clearly(lambda: targets.numba[griddim, blockdim], LaunchError, "axpy", "griddim=")
    assert isinstance(error, (TypeError, ValueError))        # what Numba raises, for its programs
    _still_works(targets, "numba")


@pytest.mark.parametrize("griddim, blockdim, words", [
    (10**30, 32, "grid dimension x"), (1, 2**64, "block of 18446744073709551616 threads"), (0, 32, "grid dimension x = 0"),
    (1, (1, 1, 65), "block dimension z"), (4, 2048, "2048 threads")])
def test_numba_dimensions_out_of_range_are_launch_errors(targets, griddim, blockdim, words):
    """Was an InternalError from an OverflowError deep in the machine."""
    x, y = np.ones(N, np.float32), np.zeros(N, np.float32)
    _fails_clearly(lambda: targets.numba[griddim, blockdim](x, y, np.float32(1), N), LaunchError, words, "axpy")
    assert (y == 0).all()
    _still_works(targets, "numba")


def test_numba_wrong_argument_count_names_kernel_and_parameters(targets):
    """Was a bare TypeError without the kernel's parameters."""
    x = np.ones(N, np.float32)
    error = _fails_clearly(lambda: targets.numba[1, 32](x, x), KernelArgumentError,
                           "axpy", "takes 4 argument(s) (x, y, a, n), 2 given")
    assert isinstance(error, TypeError)
    _still_works(targets, "numba")


@pytest.mark.parametrize("index, value, expected", [(3, cp.zeros(1, np.float32), "int32"),
                                                     (2, "text", "float32"), (3, "7", "int32")])
def test_numba_argument_that_does_not_convert_names_index_and_type(targets, index, value, expected):
    """Was a raw TypeError/ValueError from NumPy or warpsim's array conversions. (An int out of
    int32's range is wrapped, as Numba's ctypes conversion does, and runs.)"""
    args = [np.ones(N, np.float32), np.zeros(N, np.float32), np.float32(2), N]
    args[index] = value
    error = _fails_clearly(lambda: targets.numba[4, 64](*args), KernelArgumentError, "axpy")
    assert f"argument {index}" in str(error) and expected in str(error)
    _still_works(targets, "numba")


def test_numba_argument_of_a_type_numba_cannot_type(targets):
    """Was Numba's NumbaValueError from typeof (PEP 3118 buffers of ctypes scalars)."""
    import ctypes
    x = np.ones(N, np.float32)
    _fails_clearly(lambda: targets.numba_lazy[4, 64](x, x, ctypes.c_float(1.5), N), KernelArgumentError,
                   "axpy", "c_float")
    _still_works(targets, "numba_lazy")


def test_numba_compilation_for_impossible_types_is_an_argument_error(targets):
    """Was Numba's TypingError (or a KeyError from inside Numba) with no word of the launch."""
    from numba.core.errors import TypingError
    x = np.ones(N, np.float32)
    error = _fails_clearly(lambda: targets.numba_lazy[4, 64](x, x, np.float32(1), "n"), KernelArgumentError,
                           "axpy", "cannot be compiled for the argument types", "unicode_type")
    assert isinstance(error, TypingError) and isinstance(error, TypeError)
    _still_works(targets, "numba_lazy")


def test_numba_array_of_another_device_is_refused(targets):
    """Was run with the other device's address read as this device's: it wrote this device's
    memory (another array's elements changed)."""
    from warpsim import cuda
    keep = cp.arange(N, dtype=np.float32)
    with use_device(targets.other_device):
        foreign = cuda.to_device(np.zeros(N, np.float32))
    x = cp.arange(N, dtype=np.float32)
    _fails_clearly(lambda: targets.numba[4, 64](x, foreign, np.float32(1), N), KernelArgumentError,
                   "argument 1", "another device")
    assert (keep.get() == np.arange(N)).all() and (x.get() == np.arange(N)).all()
    assert targets.check_still_works("numba") is None


@pytest.mark.parametrize("params, words", [(None, "parameter buffer must be bytes"),
                                           ("params", "parameter buffer must be bytes"),
                                           (np.zeros(4, np.float32), "has 16 bytes"),
                                           (b"", "has 0 bytes")])
def test_loaded_module_parameter_buffer_is_checked(targets, params, words):
    """Was an InternalError from a TypeError (not bytes) or an IndexError (too short)."""
    _fails_clearly(lambda: targets.loaded.launch(targets.function.kernel_name, (1,), (32,), params),
                   LaunchError, "mix", words)
    _still_works(targets, "loaded")


@pytest.mark.parametrize("grid, block, shared, words", [
    ((1,), (32,), None, "int number of bytes"), ((1,), (32,), "16", "int number of bytes"),
    (np.float32(1), 32, 0, "grid must be an int"), ("1", 32, 0, "grid must be an int"),
    (10**30, 32, 0, "grid dimension x"), ((1,), (32,), 1.5, "int number of bytes")])
def test_loaded_module_dimensions_and_shared_memory_are_checked(targets, grid, block, shared, words):
    """Were InternalErrors from TypeError, ValueError and OverflowError in device.py/state.py."""
    x, y, scalars = targets.fresh()
    params = targets.pack(targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars))
    _fails_clearly(lambda: targets.loaded.launch(targets.function.kernel_name, grid, block, params,
                                                 shared_mem=shared), LaunchError, "mix", words)
    _still_works(targets, "loaded")


@pytest.mark.parametrize("api", ["rawkernel", "function"])
def test_cupy_shared_memory_of_a_wrong_type(targets, api):
    """Was a bare TypeError from operator.index."""
    kernel = targets.raw_kernel if api == "rawkernel" else targets.function
    x, y, scalars = targets.fresh()
    args = targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars)
    _fails_clearly(lambda: kernel((4,), (64,), args, shared_mem="16"), LaunchError, "mix", "shared_mem")
    _still_works(targets, api)


@pytest.mark.parametrize("value", [np.timedelta64(3, "ms"), np.datetime64(1, "s")])
def test_cupy_datetime_scalars_are_refused(targets, value):
    """Was a bare TypeError: NumPy calls them integers, int() of them fails."""
    x, y, scalars = targets.fresh()
    args = targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars)
    args[4] = value
    _fails_clearly(lambda: targets.raw_kernel((4,), (64,), args), KernelArgumentError,
                   "mix", "argument 4", ".u16", "Unsupported type")
    _still_works(targets, "rawkernel")


@pytest.mark.parametrize("pointer", ["x", None, -1, 2**64])
def test_cupy_foreign_array_with_a_bad_data_pointer(targets, pointer):
    """Was a bare TypeError (int() of the pointer) or struct.error (out of 64 bits)."""
    x, y, scalars = targets.fresh()
    args = targets.cupy_args(launch_cases._foreign(pointer), cp.asarray(y), scalars)
    _fails_clearly(lambda: targets.function((4,), (64,), args), KernelArgumentError,
                   "mix", "argument 0", "data pointer")
    _still_works(targets, "function")


def test_cupy_argument_errors_name_the_parameter_type(targets):
    x, y, scalars = targets.fresh()
    args = targets.cupy_args(cp.asarray(x), cp.asarray(y), scalars)
    args[2] = 3                                             # an int for the float a
    _fails_clearly(lambda: targets.raw_kernel((4,), (64,), args), KernelArgumentError,
                   "mix", "argument 2", ".f32", "numpy.float32")
    args[2], args[9] = scalars["a"], b"\x00" * 4            # 4 bytes for the 8-byte struct
    _fails_clearly(lambda: targets.raw_kernel((4,), (64,), args), KernelArgumentError,
                   "mix", "argument 9", "struct", "8-byte")
    _still_works(targets, "rawkernel")
