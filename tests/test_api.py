"""The CuPy-compatible surface: arrays, argument marshalling, RawModule/RawKernel.

Most tests run against a small fake device (the real global-memory heap, a
fake module that only reads kernel signatures from PTX and records launches),
so they check the API without the simulator. The tests at the end run real
kernels and need warpsim.machine.device.
"""

import ctypes
import gc
import re
import struct

import numpy as np
import pytest

import warpsim
from warpsim.api import KernelNotFoundError, use_device
from warpsim.api.args import (ArgumentPacker, KernelArgumentError, encode_argument, pack_arguments,
                              pack_slots)
from warpsim.errors import CompileError, LaunchError, WarpsimError

try:
    from warpsim.machine.memory import GlobalMemory
except ImportError:  # pragma: no cover - the machine is built alongside
    GlobalMemory = None


class FakeMemory:
    """A byte heap with the GlobalMemory interface, for when the real one is absent."""

    BASE = 0x7F00_0000_0000

    def __init__(self):
        self.heap, self.live, self.top = bytearray(1 << 20), {}, 256

    def allocate(self, nbytes, align=256):
        offset = (self.top + align - 1) // align * align
        self.top = offset + max(nbytes, 1) + 256
        self.heap.extend(bytes(max(0, self.top - len(self.heap))))
        self.live[offset] = nbytes
        return self.BASE + offset

    def free(self, address):
        del self.live[address - self.BASE]

    def write_bytes(self, address, data):
        raw = bytes(np.ascontiguousarray(data).view(np.uint8)) if isinstance(data, np.ndarray) else bytes(data)
        self.heap[address - self.BASE:address - self.BASE + len(raw)] = raw

    def read_bytes(self, address, nbytes):
        return np.frombuffer(bytes(self.heap[address - self.BASE:address - self.BASE + nbytes]), np.uint8).copy()

    def memset(self, address, value, nbytes):
        self.heap[address - self.BASE:address - self.BASE + nbytes] = bytes([value & 0xFF]) * nbytes


_PARAM_SIZES = {"8": 1, "16": 2, "32": 4, "64": 8}


class FakeModule:
    """Reads `.entry name(.param ...)` signatures from PTX and records launches."""

    def __init__(self, ptx):
        self.signatures, self.launches = {}, []
        for name, body in re.findall(r"\.entry\s+([\w$]+)\s*\((.*?)\)", ptx, re.S):
            params, offset = [], 0
            for declaration in filter(None, (d.strip() for d in body.split(","))):
                tokens = declaration.split()
                size = _PARAM_SIZES[re.search(r"\.[a-z]+(\d+)", " ".join(tokens[1:])).group(1)]
                count = re.search(r"\[(\d+)\]$", tokens[-1])
                explicit = re.search(r"\.align\s+(\d+)", declaration)
                align = int(explicit.group(1)) if explicit and ".ptr" not in tokens else size
                size *= int(count.group(1)) if count else 1
                offset = (offset + align - 1) // align * align
                params.append((re.sub(r"\[\d+\]$", "", tokens[-1]), offset, size, align))
                offset += size
            self.signatures[name] = params

    @property
    def kernel_names(self):
        return list(self.signatures)

    def params(self, kernel_name):
        return self.signatures[kernel_name]

    def launch(self, kernel_name, grid, block, params, shared_mem=0, cooperative=False):
        self.launches.append((kernel_name, grid, block, params, shared_mem))
        assert not cooperative


class FakeDevice:
    def __init__(self):
        self.memory = GlobalMemory() if GlobalMemory is not None else FakeMemory()
        self.modules = []

    def load_module(self, ptx, name="<ptx>"):
        self.modules.append(FakeModule(ptx))
        return self.modules[-1]


@pytest.fixture
def device():
    with use_device(FakeDevice()) as fake:
        yield fake


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path / "cache"))


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 3, 4), (4, 0, 2)]


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    values = rng.standard_normal(shape) * 100
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values).astype(dtype)


# --- arrays ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip(device, dtype, shape):
    host = random_array(np.random.default_rng(42), shape, dtype)
    array = warpsim.asarray(host)
    assert isinstance(array, warpsim.ndarray)
    assert array.shape == host.shape and array.dtype == host.dtype
    assert array.nbytes == host.nbytes
    if host.size:  # NumPy 2 gives empty arrays zero strides; CuPy does not
        assert array.strides == host.strides
    assert array.size == host.size and array.ndim == host.ndim and array.itemsize == host.itemsize
    back = array.get()
    assert isinstance(back, np.ndarray) and back.dtype == host.dtype
    np.testing.assert_array_equal(back, host)
    np.testing.assert_array_equal(warpsim.asnumpy(array), host)


def test_set_and_copy(device):
    rng = np.random.default_rng(1)
    host = rng.standard_normal((6, 5)).astype(np.float32)
    array = warpsim.empty((6, 5), np.float32)
    array.set(host)
    duplicate = array.copy()
    assert duplicate.data.ptr != array.data.ptr
    array.fill(0)
    np.testing.assert_array_equal(duplicate.get(), host)
    np.testing.assert_array_equal(array.get(), 0)
    with pytest.raises(TypeError, match="float64 array cannot be set to float32"):
        array.set(host.astype(np.float64))
    with pytest.raises(ValueError, match="Shape mismatch"):
        array.set(host[:3])


def test_creation_functions(device):
    np.testing.assert_array_equal(warpsim.zeros((2, 3)).get(), np.zeros((2, 3)))
    assert warpsim.zeros(4).dtype == np.float64  # CuPy's default, as NumPy's
    np.testing.assert_array_equal(warpsim.ones(5, dtype=warpsim.int32).get(), np.ones(5, np.int32))
    full = warpsim.full((3, 2), 7)
    assert full.dtype == np.array(7).dtype
    np.testing.assert_array_equal(full.get(), np.full((3, 2), 7))
    np.testing.assert_array_equal(warpsim.full(4, 2.5, np.float16).get(), np.full(4, 2.5, np.float16))
    np.testing.assert_array_equal(warpsim.full(3, -1, np.int32).get(), [-1, -1, -1])
    np.testing.assert_array_equal(warpsim.arange(10).get(), np.arange(10))
    np.testing.assert_array_equal(warpsim.arange(2, 11, 3, dtype=np.float32).get(),
                                  np.arange(2, 11, 3, dtype=np.float32))
    np.testing.assert_allclose(warpsim.linspace(0, 1, 5).get(), np.linspace(0, 1, 5))
    assert warpsim.empty((2, 2), np.uint8).shape == (2, 2)
    np.testing.assert_array_equal(warpsim.array([[1, 2], [3, 4]], dtype=np.int16).get(),
                                  np.array([[1, 2], [3, 4]], np.int16))
    assert warpsim.array([1, 2], ndmin=3).shape == (1, 1, 2)


def test_like_functions(device):
    base = warpsim.arange(6, dtype=np.int16).reshape(2, 3)
    for like, expected in [(warpsim.zeros_like(base), 0), (warpsim.ones_like(base), 1),
                           (warpsim.full_like(base, 9), 9)]:
        assert like.shape == (2, 3) and like.dtype == np.int16
        np.testing.assert_array_equal(like.get(), np.full((2, 3), expected, np.int16))
    assert warpsim.empty_like(base, dtype=np.float32).dtype == np.float32
    assert warpsim.zeros_like(np.ones(3), shape=(4,)).shape == (4,)


def test_asarray_reuses_device_arrays(device):
    array = warpsim.arange(4)
    assert warpsim.asarray(array) is array
    assert warpsim.asarray(array, dtype=np.float32).dtype == np.float32
    copied = warpsim.array(array)
    assert copied.data.ptr != array.data.ptr
    assert warpsim.array(array, copy=False) is array


BASIC_KEYS = [  # (shape of the base array, key)
    ((20,), np.s_[2:15:3]), ((20,), np.s_[::-1]), ((20,), np.s_[-3:]), ((20,), np.s_[5]),
    ((20,), np.s_[-1]), ((20,), np.s_[...]), ((20,), np.s_[None, 3:8]), ((20,), np.s_[10:2:-3]),
    ((20,), np.s_[7:3]), ((20,), np.s_[np.int64(2)]), ((20,), np.s_[..., None]),
    ((4, 6), np.s_[1:, ::2]), ((4, 6), np.s_[:, 1]), ((4, 6), np.s_[1]), ((4, 6), np.s_[2, 3]),
    ((4, 6), np.s_[::-2, 1:4]), ((4, 6), np.s_[..., 1]), ((4, 6), np.s_[:, None, ::-1]),
    ((2, 3, 4), np.s_[1, ..., ::3]), ((2, 3, 4), np.s_[:, -1]), ((2, 3, 4), np.s_[::-1, None, 1:, 2]),
]


@pytest.mark.parametrize("shape, key", BASIC_KEYS, ids=repr)
def test_basic_slicing_matches_numpy_and_shares_memory(device, shape, key):
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    array = warpsim.asarray(host)
    expected = host[key]
    view = array[key]
    assert view.shape == expected.shape and view.strides == expected.strides
    np.testing.assert_array_equal(view.get(), expected)
    assert view.data.mem is array.data.mem and view.base is array
    # Writing through the view lands in the base array, as in NumPy.
    view[...] = -7
    host[key] = -7
    np.testing.assert_array_equal(array.get(), host)


def test_views_of_views_and_2d_setitem(device):
    host = np.arange(60, dtype=np.float64).reshape(6, 10)
    array = warpsim.asarray(host)
    inner = array[1:5, ::3][::-1, 1:]
    np.testing.assert_array_equal(inner.get(), host[1:5, ::3][::-1, 1:])
    assert inner.base is array
    inner[...] = np.arange(inner.size).reshape(inner.shape)
    host[1:5, ::3][::-1, 1:] = np.arange(inner.size).reshape(inner.shape)
    np.testing.assert_array_equal(array.get(), host)
    array[0] = 5.5
    array[2:4, 7] = warpsim.asarray([1.0, 2.0])
    host[0] = 5.5
    host[2:4, 7] = [1.0, 2.0]
    np.testing.assert_array_equal(array.get(), host)


def test_integer_index_gives_zero_d_array(device):
    array = warpsim.arange(5, dtype=np.int32)
    element = array[3]
    assert isinstance(element, warpsim.ndarray) and element.shape == ()
    assert int(element) == 3 and float(element) == 3.0 and element.item() == 3
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 5"):
        array[5]  # noqa: B018
    with pytest.raises(IndexError, match="too many indices"):
        array[1, 2]  # noqa: B018


def test_advanced_indexing_copies(device):
    host = np.arange(10, dtype=np.int64) * 3
    array = warpsim.asarray(host)
    picked = array[[0, 2, 9]]
    np.testing.assert_array_equal(picked.get(), host[[0, 2, 9]])
    assert picked.data.mem is not array.data.mem
    mask = warpsim.asarray(host > 10)
    np.testing.assert_array_equal(array[mask].get(), host[host > 10])
    array[mask] = 0
    host[host > 10] = 0
    np.testing.assert_array_equal(array.get(), host)


def test_reshape_ravel_view_transpose(device):
    host = np.arange(24, dtype=np.int32)
    array = warpsim.asarray(host)
    cube = array.reshape(2, 3, 4)
    assert cube.data.mem is array.data.mem and cube.shape == (2, 3, 4)
    np.testing.assert_array_equal(array.reshape((4, -1)).get(), host.reshape(4, -1))
    with pytest.raises(ValueError, match="cannot reshape array of size 24 into shape"):
        array.reshape(5, -1)
    transposed = cube.T
    assert transposed.shape == (4, 3, 2) and not transposed.flags.c_contiguous
    np.testing.assert_array_equal(transposed.get(), host.reshape(2, 3, 4).T)
    np.testing.assert_array_equal(transposed.ravel().get(), host.reshape(2, 3, 4).T.ravel())
    np.testing.assert_array_equal(cube.transpose(1, 0, 2).get(), host.reshape(2, 3, 4).transpose(1, 0, 2))
    np.testing.assert_array_equal(array.view(np.uint8).get(), host.view(np.uint8))
    np.testing.assert_array_equal(array.view(np.int64).get(), host.view(np.int64))
    np.testing.assert_array_equal(array.view(np.float32).get(), host.view(np.float32))
    np.testing.assert_array_equal(array.astype(np.float16).get(), host.astype(np.float16))
    np.testing.assert_array_equal(array[::2].flatten().get(), host[::2])


def test_implicit_numpy_conversion_refused(device):
    array = warpsim.arange(3)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(array)


def test_cuda_array_interface(device):
    array = warpsim.zeros((4, 6), np.float32)
    interface = array.__cuda_array_interface__
    assert interface["version"] == 3
    assert interface["data"] == (array.data.ptr, False)
    assert interface["shape"] == (4, 6) and interface["typestr"] == "<f4"
    assert interface["strides"] is None
    column = array[:, 2]
    assert column.__cuda_array_interface__["strides"] == (24,)
    assert column.__cuda_array_interface__["data"][0] == array.data.ptr + 8


class Foreign:
    """Another library's device array, described only by __cuda_array_interface__."""

    def __init__(self, array):
        self.keep = array
        self.__cuda_array_interface__ = dict(array.__cuda_array_interface__)


def test_foreign_device_arrays_are_wrapped_not_copied(device):
    array = warpsim.arange(8, dtype=np.float32)
    wrapped = warpsim.asarray(Foreign(array))
    assert wrapped.data.ptr == array.data.ptr
    np.testing.assert_array_equal(warpsim.asnumpy(Foreign(array)), np.arange(8, dtype=np.float32))


def test_memory_freed_when_array_collected(device):
    live_before = len(device.memory.live)
    array = warpsim.zeros(1000, np.float32)
    view = array[10:20]
    assert len(device.memory.live) == live_before + 1
    del array
    gc.collect()
    assert len(device.memory.live) == live_before + 1  # the view keeps it alive
    np.testing.assert_array_equal(view.get(), 0)
    del view
    gc.collect()
    assert len(device.memory.live) == live_before


def test_small_protocols(device):
    array = warpsim.arange(3)
    assert len(array) == 3
    assert [int(item) for item in array] == [0, 1, 2]
    assert repr(array) == repr(np.arange(3)) and str(array) == str(np.arange(3))
    assert array.tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="unsized"):
        len(array[0])
    assert warpsim.get_array_module(array) is warpsim
    assert warpsim.get_array_module(np.ones(2)) is np
    assert array.flags.c_contiguous and array.flags["C_CONTIGUOUS"]


# --- argument marshalling ------------------------------------------------------

LAYOUT = [("p_ptr", 0, 8, 8), ("p_f32", 8, 4, 4), ("p_i32", 12, 4, 4), ("p_f64", 16, 8, 8),
          ("p_u8", 24, 1, 1), ("p_struct", 28, 12, 4)]


def test_pack_arguments_byte_layout(device):
    array = warpsim.zeros(4, np.float32)
    struct_type = np.dtype([("a", "<i4"), ("b", "<f4"), ("c", "<u4")])
    record = np.array((1, 2.0, 3), dtype=struct_type)[()]
    buffer = pack_arguments("k", LAYOUT, (array, np.float32(2.5), -3, 1.25, True, record))
    assert len(buffer) == 40
    assert struct.unpack_from("<Q", buffer, 0)[0] == array.data.ptr
    assert struct.unpack_from("<f", buffer, 8)[0] == 2.5
    assert struct.unpack_from("<i", buffer, 12)[0] == -3
    assert struct.unpack_from("<d", buffer, 16)[0] == 1.25
    assert buffer[24] == 1
    assert struct.unpack_from("<ifI", buffer, 28) == (1, 2.0, 3)


def test_argument_packer_gives_pack_slots_bytes(device):
    """A Function's ArgumentPacker (a plan per tuple of argument types) packs the bytes
    pack_slots packs, on random arguments of each kind, and sends what it cannot plan to
    pack_slots: the same bytes or the same error."""
    rng = np.random.default_rng(25)
    slots = [("p_u8", 0, 1, "u8"), ("p_ptr", 8, 8, "u64"), ("p_f32", 16, 4, "f32"),
             ("p_i64", 24, 8, "s64"), ("p_u16", 32, 2, "u16"), ("p_f64", 40, 8, "f64"), ("p_i32", 48, 4, "s32")]
    packer = ArgumentPacker("k", slots)
    arrays = [warpsim.zeros(int(n), np.float32) for n in rng.integers(1, 64, 4)]
    for _ in range(200):
        args = (np.uint8(rng.integers(256)), arrays[rng.integers(4)],
                np.float32(rng.standard_normal()) if rng.random() < 0.9 else np.uint32(7).view(np.float32),
                np.int64(rng.integers(-2**63, 2**63 - 1)) if rng.random() < 0.8 else int(rng.integers(-99, 99)),
                np.uint16(rng.integers(2**16)), np.float64(rng.standard_normal()),
                np.int32(rng.integers(-2**31, 2**31 - 1)) if rng.random() < 0.8 else int(rng.integers(-9, 9)))
        assert packer(args) == pack_slots("k", slots, args)
    with pytest.raises(KernelArgumentError, match=r"argument 2 \(p_f32, 4 bytes, .f32\)"):
        packer((np.uint8(1), arrays[0], np.int32(3), np.int64(1), np.uint16(1), np.float64(1), np.int32(1)))
    with pytest.raises(KernelArgumentError, match=r"takes 7 argument\(s\), 2 given"):
        packer((np.uint8(1), arrays[0]))


@pytest.mark.parametrize("value, size, expected", [
    (None, 8, bytes(8)),
    (7, 4, struct.pack("<i", 7)),
    (0xFFFF_FFFF, 4, b"\xff" * 4),
    (-1, 8, b"\xff" * 8),
    (2**64 - 1, 8, b"\xff" * 8),
    (np.int64(5), 4, struct.pack("<i", 5)),
    (np.uint16(9), 2, struct.pack("<H", 9)),
    (np.float16(1.5), 2, np.float16(1.5).tobytes()),
    (2.0, 8, struct.pack("<d", 2.0)),
    (1 + 2j, 16, struct.pack("<dd", 1, 2)),
    (np.complex64(1 - 1j), 8, np.complex64(1 - 1j).tobytes()),
    (ctypes.c_int(-2), 4, struct.pack("<i", -2)),
    (b"\x01\x02\x03", 3, b"\x01\x02\x03"),
])
def test_encode_argument_accepts(value, size, expected):
    assert encode_argument(value, size) == expected


@pytest.mark.parametrize("value, size, message", [
    (np.ones(3, np.float32), 8, "Unsupported type <class 'numpy.ndarray'>.*warpsim.asarray"),
    (1.5, 4, "Python float as a double.*numpy.float32"),
    (2**31 * 2, 4, "does not fit"),
    (-(2**31) - 1, 4, "does not fit"),
    (np.float64(1.0), 4, "cast the value.*float32"),
    (np.int16(1), 4, "2 bytes given for a 4-byte parameter.*garbage"),
    (True, 4, "1 bytes given for a 4-byte"),
    (b"\x00" * 8, 12, "8 bytes given for a 12-byte"),
    (b"\x00" * 16, 12, "16 bytes given for a 12-byte"),
    (object(), 8, "Unsupported type <class 'object'>"),
    ("text", 8, "Unsupported type <class 'str'>"),
])
def test_encode_argument_refuses(value, size, message):
    with pytest.raises(KernelArgumentError, match=message):
        encode_argument(value, size, "kernel 'k' argument 0")


def test_device_array_into_narrow_slot_refused(device):
    with pytest.raises(KernelArgumentError, match="device pointer is 8 bytes but the parameter is 4"):
        encode_argument(warpsim.zeros(2), 4)


def test_argument_errors_name_kernel_index_and_count():
    with pytest.raises(KernelArgumentError, match=r"kernel 'saxpy' takes 6 argument\(s\), 2 given"):
        pack_arguments("saxpy", LAYOUT, (1, 2))
    with pytest.raises(KernelArgumentError, match=r"kernel 'saxpy' argument 1 \(p_f32, 4 bytes\)"):
        pack_arguments("saxpy", LAYOUT, (None, 1.0, 1, 1.0, True, b"\0" * 12))
    with pytest.raises(KernelArgumentError, match="must be a tuple or list"):
        pack_arguments("saxpy", LAYOUT[:1], None)
    error = KernelArgumentError("x")
    assert isinstance(error, TypeError) and isinstance(error, ValueError) and isinstance(error, WarpsimError)


def test_known_ptx_types_catch_int_float_mixups():
    layout = [("a", 0, 4, 4, "f32"), ("n", 4, 4, 4, ".u32"), ("raw", 8, 4, 4, "b32")]
    buffer = pack_arguments("k", layout, (np.float32(1), 3, 7))
    assert struct.unpack("<fII", buffer) == (1.0, 3, 7)
    with pytest.raises(KernelArgumentError, match=r"integer for a \.f32 parameter.*numpy.float32"):
        pack_arguments("k", layout, (2, 3, 7))
    with pytest.raises(KernelArgumentError, match=r"float for a \.u32 parameter"):
        pack_arguments("k", layout, (np.float32(1), np.float32(3), 7))


# --- modules and kernels (NVRTC + fake device) ---------------------------------

SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template <typename T> __global__ void scale(T* x, T factor) { x[threadIdx.x] *= factor; }
__global__ void plain_cpp(int* x) { x[0] = 1; }
"""

HAND_PTX = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry touch(.param .u64 touch_param_0)
{
    ret;
}
"""


@pytest.mark.nvrtc
def test_get_function_by_every_kind_of_name(device):
    module = warpsim.RawModule(code=SOURCE, name_expressions=("scale<float>", "scale<int>"))
    assert module.get_function("saxpy").kernel_name == "saxpy"
    assert module.get_function("scale<float>").kernel_name == "_Z5scaleIfEvPT_S0_"
    assert module.get_function("_Z5scaleIiEvPT_S0_").kernel_name == "_Z5scaleIiEvPT_S0_"
    assert ".entry saxpy" in module.ptx
    assert module.get_function("saxpy") is module.get_function("saxpy")
    assert len(device.modules) == 1  # loaded once per device


@pytest.mark.nvrtc
def test_unknown_kernel_lists_what_exists(device):
    module = warpsim.RawModule(code=SOURCE, name_expressions=("scale<float>",))
    with pytest.raises(KernelNotFoundError) as info:
        module.get_function("plain_cpp")
    message = str(info.value)
    assert "no kernel named 'plain_cpp'" in message
    assert "saxpy" in message and "_Z5scaleIfEvPT_S0_" in message and "_Z9plain_cppPi" in message
    assert "name_expressions=('plain_cpp',)" in message and "scale<float>" in message
    assert isinstance(info.value, LookupError) and isinstance(info.value, WarpsimError)
    with pytest.raises(KernelNotFoundError, match=r"did you mean 'scale<float>'\?"):
        module.get_function("scale")


@pytest.mark.nvrtc
def test_launch_marshals_and_normalizes(device):
    kernel = warpsim.RawKernel(SOURCE, "saxpy")
    x = warpsim.arange(10, dtype=np.float32)
    y = warpsim.zeros(10, np.float32)
    kernel((2,), 8, (np.float32(2.0), x, y, np.int32(10)), shared_mem=16)
    (loaded,) = device.modules
    name, grid, block, params, shared_mem = loaded.launches[-1]
    assert (name, grid, block, shared_mem) == ("saxpy", (2, 1, 1), (8, 1, 1), 16)
    assert params == pack_arguments("saxpy", loaded.params("saxpy"), (np.float32(2.0), x, y, 10))
    with pytest.raises(KernelArgumentError, match="Python float as a double"):
        kernel(1, 1, (2.0, x, y, 10))
    with pytest.raises(KernelArgumentError, match="takes 4 argument"):
        kernel(1, 1, (x, y))
    with pytest.raises(KernelArgumentError, match="numpy.ndarray"):
        kernel(1, 1, (np.float32(1), np.zeros(10, np.float32), y, 10))
    with pytest.raises(LaunchError, match="2048 threads"):
        kernel(1, (32, 64), (np.float32(1), x, y, 10))
    with pytest.raises(LaunchError, match="1 to 3 dimensions"):
        kernel((1, 1, 1, 1), 32, (np.float32(1), x, y, 10))
    with pytest.raises(LaunchError, match="grid dimension x = 0"):
        kernel(0, 32, (np.float32(1), x, y, 10))


@pytest.mark.nvrtc
def test_arrays_from_another_device_refused(device):
    other = warpsim.zeros(4, np.float32)
    with use_device(FakeDevice()):
        kernel = warpsim.RawKernel(SOURCE, "saxpy")
        here = warpsim.zeros(4, np.float32)
        with pytest.raises(KernelArgumentError, match="another device"):
            kernel(1, 4, (np.float32(1), other, here, 4))


@pytest.mark.nvrtc
def test_raw_kernel_compiles_lazily(device):
    kernel = warpsim.RawKernel("extern \"C\" __global__ void k() { int x = ; }", "k")
    with pytest.raises(CompileError, match="expected an expression"):
        kernel.compile()


def test_ptx_text_and_files(device, tmp_path):
    module = warpsim.RawModule(ptx=HAND_PTX)
    assert module.get_function("touch").params[0][2] == 8
    ptx_file = tmp_path / "touch.ptx"
    ptx_file.write_text(HAND_PTX)
    assert warpsim.RawModule(path=str(ptx_file)).get_function("touch").kernel_name == "touch"
    with pytest.raises(ValueError, match="simulates PTX"):
        warpsim.RawModule(path=str(tmp_path / "kernel.fatbin"))
    with pytest.raises(FileNotFoundError, match="kernel.cubin"):
        warpsim.RawModule(path=str(tmp_path / "kernel.cubin"))
    (tmp_path / "empty.cubin").write_bytes(b"\x7fELF not really")
    with pytest.raises(ValueError, match="not a cubin"):
        warpsim.RawModule(path=str(tmp_path / "empty.cubin"))
    with pytest.raises(FileNotFoundError, match="missing.ptx"):
        warpsim.RawModule(path=str(tmp_path / "missing.ptx"))
    with pytest.raises(TypeError, match="exactly one"):
        warpsim.RawModule()
    with pytest.raises(TypeError, match="exactly one"):
        warpsim.RawModule(code="", ptx=HAND_PTX)
    with pytest.raises(KernelNotFoundError, match="kernels in the module: touch"):
        module.get_function("nope")


@pytest.mark.nvrtc
def test_cu_file_with_relative_include(device, tmp_path):
    (tmp_path / "helper.cuh").write_text("#define FACTOR 3\n")
    (tmp_path / "main.cu").write_text(
        '#include "helper.cuh"\nextern "C" __global__ void k(int* x) { x[0] = FACTOR; }\n')
    module = warpsim.RawModule(path=str(tmp_path / "main.cu"), options=("-DUNUSED",))
    assert module.get_function("k").kernel_name == "k"
    assert "main.cu" in module.ptx


# --- real kernels on the simulated device ----------------------------------------

def _simulator_available() -> bool:
    try:
        from warpsim.machine.device import default_device  # noqa: F401
    except ImportError:
        return False
    return True


simulator = pytest.mark.skipif(not _simulator_available(), reason="warpsim.machine.device not built yet")


@simulator
@pytest.mark.nvrtc
def test_saxpy_runs():
    rng = np.random.default_rng(7)
    n = 1000
    x_host, y_host = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    x, y = warpsim.asarray(x_host), warpsim.asarray(y_host)
    kernel = warpsim.RawKernel(SOURCE, "saxpy")
    kernel(((n + 127) // 128,), (128,), (np.float32(2.0), x, y, np.int32(n)))
    np.testing.assert_allclose(y.get(), np.float32(2.0) * x_host + y_host, rtol=1e-6)


@simulator
@pytest.mark.nvrtc
def test_template_kernel_through_name_expression():
    module = warpsim.RawModule(code=SOURCE, name_expressions=("scale<double>",))
    data = warpsim.arange(64, dtype=np.float64)
    module.get_function("scale<double>")((1,), (64,), (data, np.float64(0.5)))
    np.testing.assert_array_equal(data.get(), np.arange(64) * 0.5)


@simulator
@pytest.mark.nvrtc
def test_2d_launch_on_a_strided_view():
    source = r"""
    extern "C" __global__ void mark(int* out, int pitch) {
        out[(blockIdx.y * blockDim.y + threadIdx.y) * pitch + blockIdx.x * blockDim.x + threadIdx.x]
            = threadIdx.x + 100 * threadIdx.y;
    }"""
    grid = warpsim.zeros((8, 16), np.int32)
    warpsim.RawKernel(source, "mark")((2, 2), (8, 4), (grid, 16))
    expected = (np.arange(16) % 8)[None, :] + 100 * (np.arange(8) % 4)[:, None]
    np.testing.assert_array_equal(grid.get(), expected)


@pytest.mark.nvrtc
def test_a_cubin_runs_from_the_ptx_ptxas_stored_in_it(tmp_path):
    from warpsim.sass import cubin_for
    source = r'''extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }'''
    ptx = warpsim.RawModule(code=source).ptx
    path = tmp_path / "axpy.cubin"
    path.write_bytes(cubin_for(ptx))
    kernel = warpsim.RawModule(path=str(path)).get_function("axpy")
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    out = warpsim.asarray(y)
    kernel((4,), (256,), (np.float32(1.5), warpsim.asarray(x), out, np.int32(1000)))
    fused = (1.5 * x.astype(np.float64) + y).astype(np.float32)        # fma: one rounding
    np.testing.assert_array_equal(out.get(), fused)
