"""Launch arguments -> Numba types -> the kernel's parameter buffer (Numba's ABI).

Numba types each argument the way its dispatcher does (numba.cuda's
`typeof(value, Purpose.argument)`), and a kernel compiled for those types
takes each argument as one or more PTX parameters:

    array        meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim]
                 (all 64-bit; strides in bytes, so any view works)
    integer      its own width;  boolean: 1 byte;  float16: its 16 bits
    complex      real, imag
    datetime64   int64
    record       pointer to a device copy of the record
    tuple        its members, flattened in order
    enum member  its value

This mirrors numba-cuda's `_Kernel._prepare_args`. Host NumPy arrays and
records are copied to the device before the launch and back after it, as
Numba does (cuda.In: copied in only; cuda.Out: copied out only). The
flattened pieces are checked against the PTX parameters one by one, so an
ABI change in a future numba-cuda is an error here, not garbage in a kernel.
"""

from __future__ import annotations

import functools
import math
import operator
import struct
import warnings

import numpy as np

from .. import api
from ..api.arrays import contiguous_strides
from ..api.args import KernelArgumentError
from ..errors import user_stacklevel

__all__ = ["argument_type", "argument_types", "flatten_arguments", "ParameterLayout", "unwrap_hint"]

_WORD = struct.Struct("<q")      # one 64-bit word of an array argument


def unwrap_hint(value):
    """(value, copy_in, copy_out) of an argument, honouring cuda.In / cuda.Out / cuda.InOut."""
    kind = type(value).__name__
    if kind in _HINTS and hasattr(value, "value") and \
            type(value).__module__.endswith(("cuda.args", "warpsim.cuda")):
        return value.value, kind != "Out", kind != "In"
    return value, True, True


_HINTS = frozenset(("In", "Out", "InOut"))


def argument_type(value):
    """The Numba type of one launch argument, as numba.cuda's dispatcher computes it."""
    kind = type(value)
    if kind is _OWN_ARRAYS[1]:        # a DeviceNDArray: its _numba_type_, which typeof reads first
        return value._numba_type_
    key = _scalar_type_key(kind, value)
    known = _SCALAR_TYPES.get(key) if key is not None else None
    if known is not None:
        return known
    from numba.cuda.typing.typeof import Purpose, typeof
    value, _, _ = unwrap_hint(value)
    try:
        typed = typeof(value, Purpose.argument)
    except Exception as error:       # noqa: BLE001 (ValueError, and Numba's own NumbaValueError)
        raise KernelArgumentError(f"a kernel argument of type {type(value).__name__} cannot be "
                                  f"passed to a Numba kernel: {error}") from None
    if key is not None:
        _SCALAR_TYPES[key] = typed
    return typed


def _scalar_type_key(kind, value):
    """What Numba's type of a scalar argument depends on (a loop of launches types the same
    scalars every time): a Python int's bit length and sign, else its class (float, bool,
    complex and NumPy's numeric scalars are typed by class alone); None for anything else."""
    if kind is int:
        return kind, value.bit_length(), value < 0
    if kind in _BY_CLASS or (issubclass(kind, np.number) and kind is not np.number):
        return kind
    return None


_BY_CLASS = frozenset((float, bool, complex, np.bool_))
_SCALAR_TYPES: dict = {}     # _scalar_type_key -> the Numba type typeof gave it


def argument_types(args) -> tuple:
    return tuple(argument_type(value) for value in args)


# --- flattening ---------------------------------------------------------------

def _device_view(value, copy_in: bool, copy_out: bool, writebacks: list):
    """(data pointer, shape, strides, itemsize) of an array argument; a host array is copied
    to the device (and back after the launch unless it is read-only or cuda.In)."""
    if type(value) in _OWN_ARRAYS:
        return _own_array_view(value)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        if isinstance(value, api.ndarray) and value.device is not api.current_device():
            # its address means nothing here: a kernel would read and write this device's memory
            raise KernelArgumentError("the array is on another device than the one the kernel runs on")
        try:
            shape = tuple(int(d) for d in interface["shape"])
            itemsize = np.dtype(interface["typestr"]).itemsize
            strides = interface.get("strides")
            if strides is None:
                strides = contiguous_strides(shape, itemsize)
            pointer, strides = int(interface["data"][0]), tuple(int(s) for s in strides)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise KernelArgumentError(f"the argument's __cuda_array_interface__ cannot be read: {error!r}") \
                from None
        if not 0 <= pointer < 1 << 63 or any(abs(n) >= 1 << 63 for n in shape + strides):
            raise KernelArgumentError(f"the argument's __cuda_array_interface__ gives data at {pointer:#x}, shape "
                                      f"{shape} and strides {strides}: not a device array's 64-bit words")
        return pointer, shape, strides, itemsize
    host = np.asarray(value)
    _warn_implicit_copy(value)
    order = "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    device = api.ndarray(host.shape, host.dtype, order=order)
    if copy_in:
        device.set(host)
    if copy_out and host.flags.writeable:
        writebacks.append(lambda: host.__setitem__(Ellipsis, device.get()))
    writebacks.append(lambda: device)  # keeps the copy alive until the launch is over
    return device.data.ptr, device.shape, device.strides, device.itemsize


def _own_array_view(value):
    """_device_view of warpsim's own device arrays, read from the array rather than from the
    __cuda_array_interface__ dict (which each read builds): the same four values."""
    if value.device is not api.current_device():
        raise KernelArgumentError("the array is on another device than the one the kernel runs on")
    shape, itemsize = value._shape, value._dtype.itemsize
    strides = contiguous_strides(shape, itemsize) if value._c_contiguous else value._strides
    pointer = value.data.ptr
    if pointer and type(value) is not api.ndarray and 0 in shape:     # (no elements)
        pointer = 0                    # Numba's interface gives an empty array a null pointer
    return pointer, shape, strides, itemsize


def _own_arrays() -> tuple:
    from .devicearray import DeviceNDArray
    return (api.ndarray, DeviceNDArray)


def _warn_implicit_copy(value) -> None:
    """Numba's warning for a host array copied around a launch (CUDA_WARN_ON_IMPLICIT_COPY);
    mapped and managed arrays are device-accessible, so they do not warn."""
    from numba.cuda.core import config
    from numba.cuda.core.errors import NumbaPerformanceWarning
    if config.CUDA_WARN_ON_IMPLICIT_COPY and not config.DISABLE_PERFORMANCE_WARNINGS and \
            isinstance(value, np.ndarray) and not getattr(value, "_device_accessible", False):
        warnings.warn(NumbaPerformanceWarning(
            "Host array used in CUDA kernel will incur copy overhead to/from device."),
            stacklevel=user_stacklevel())


def _record_pointer(value, copy_in: bool, copy_out: bool, writebacks: list) -> int:
    raw = np.array(value)  # 0-d structured array holding the record's bytes
    device = api.ndarray((), raw.dtype)
    if copy_in:
        device.set(raw)
    if copy_out and isinstance(value, np.ndarray):
        writebacks.append(lambda: value.__setitem__(Ellipsis, device.get()))
    elif copy_out and isinstance(value, np.void):
        # a record scalar taken from an array (arr[i]) writes through to the array
        writebacks.append(lambda: _store_record(value, device.get()))
    writebacks.append(lambda: device)
    return device.data.ptr


def _store_record(record, result):
    for name in record.dtype.names or ():
        try:
            record[name] = result[name]
        except (TypeError, ValueError):  # a read-only record (np.void made by np.void(...))
            return


def _integer_bytes(bits: int, value) -> bytes:
    """An integer argument's bytes as Numba's ctypes conversion makes them: wrapped as a C cast
    does, but only from an integer (ctypes refuses a float or a string for an int)."""
    return _UNSIGNED_WORDS[bits].pack(operator.index(value) & ((1 << bits) - 1))


_UNSIGNED_WORDS = {8: struct.Struct("<B"), 16: struct.Struct("<H"), 32: struct.Struct("<I"), 64: struct.Struct("<Q")}


def _float_bytes(dtype: str, value) -> bytes:
    """A floating-point argument's bytes as Numba's ctypes conversion makes them (no string)."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"must be a real number, not {type(value).__name__}")
    return np.dtype(dtype).type(value).tobytes()


def _flatten(ty, value, copy_in, copy_out, out: list, writebacks: list):
    """Append to `out` the bytes of each PTX parameter `value` of type `ty` becomes."""
    types = _numba_types()
    if isinstance(ty, types.Array):
        pointer, shape, strides, itemsize = _device_view(value, copy_in, copy_out, writebacks)
        if len(shape) != ty.ndim:
            raise KernelArgumentError(f"array argument has {len(shape)} dimensions, "
                                      f"the kernel was compiled for {ty.ndim}")
        words = (0, 0, math.prod(shape), itemsize, pointer, *shape, *strides)
        out.extend(map(_WORD.pack, words))      # meminfo, parent (null), ...: 8 bytes each
    elif isinstance(ty, types.CPointer):
        out.append(np.uint64(int(value)).tobytes())
    elif isinstance(ty, types.Boolean):
        out.append(b"\x01" if value else b"\x00")
    elif isinstance(ty, types.Integer):
        out.append(_integer_bytes(ty.bitwidth, value))
    elif ty == types.float16:
        out.append(np.float16(value).tobytes())
    elif ty in (types.float32, types.float64):
        out.append(_float_bytes(str(ty), value))
    elif ty in (types.complex64, types.complex128):
        part = "float32" if ty == types.complex64 else "float64"
        out += [_float_bytes(part, complex(value).real), _float_bytes(part, complex(value).imag)]
    elif isinstance(ty, (types.NPDatetime, types.NPTimedelta)):
        out.append(np.int64(np.asarray(value).view(np.int64)).tobytes())
    elif isinstance(ty, types.Record):
        out.append(np.uint64(_record_pointer(value, copy_in, copy_out, writebacks)).tobytes())
    elif isinstance(ty, types.BaseTuple):
        for member_type, member in zip(ty, value):
            _flatten(member_type, member, copy_in, copy_out, out, writebacks)
    elif isinstance(ty, types.EnumMember):
        _flatten(ty.dtype, value.value, copy_in, copy_out, out, writebacks)
    else:
        raise KernelArgumentError(f"warpsim cannot pass a {ty} argument to a Numba kernel")


@functools.cache
def _numba_types():
    """numba.cuda.types, imported once (_flatten runs for every argument of every launch)."""
    from numba.cuda import types
    return types


def flatten_arguments(types_, args, writebacks: list, extensions=(), stream=0) -> list:
    """The bytes of each PTX parameter the arguments become, in order.

    `extensions` are Numba's kernel extensions: each may rewrite (type, value)
    first, last one first, as numba-cuda applies them."""
    pieces: list = []
    for index, (ty, value) in enumerate(zip(types_, args)):
        for extension in reversed(list(extensions or ())):
            ty, value = extension.prepare_args(ty, value, stream=stream, retr=writebacks)
        value, copy_in, copy_out = unwrap_hint(value)
        try:
            _flatten(ty, value, copy_in, copy_out, pieces, writebacks)
        except KernelArgumentError as error:
            raise KernelArgumentError(f"argument {index} ({ty}): {error}") from None
        except (TypeError, ValueError, OverflowError) as error:  # the value does not convert to ty
            raise KernelArgumentError(f"argument {index} must be {ty}, got {_describe(value)} "
                                      f"({type(error).__name__}: {error})") from None
    return pieces


def _describe(value) -> str:
    text = repr(value) if isinstance(value, (bool, int, float, complex, str, bytes, type(None))) \
        else type(value).__name__
    return text if len(text) < 80 else text[:77] + "..."


class ParameterLayout:
    """Where flatten_arguments' pieces go in a kernel's parameter buffer: each PTX parameter's
    (name, offset, size, ...) in order, and the sizes checked at every launch, worked out once
    per kernel."""

    def __init__(self, kernel_name: str, params):
        self.kernel_name, self.params = kernel_name, tuple(params)
        self.sizes = [p[2] for p in self.params]
        ends = [0] + [offset + size for _, offset, size, *_ in self.params]
        self.packed = all(p[1] == end for p, end in zip(self.params, ends))  # no padding (Numba's 8-byte words)
        self.total = max(ends)

    def pack(self, pieces) -> bytes:
        """The parameter buffer: each piece at its parameter's offset, sizes checked."""
        if len(pieces) != len(self.params):
            raise KernelArgumentError(
                f"kernel '{self.kernel_name}': the arguments flatten to {len(pieces)} values but the PTX "
                f"declares {len(self.params)} parameters (a Numba ABI warpsim does not know)")
        if list(map(len, pieces)) != self.sizes:
            index = next(k for k, (piece, size) in enumerate(zip(pieces, self.sizes)) if len(piece) != size)
            raise KernelArgumentError(
                f"kernel '{self.kernel_name}' parameter {index} ({self.params[index][0]}) is {self.sizes[index]} "
                f"bytes, but the argument value for it is {len(pieces[index])} bytes")
        if self.packed:
            return b"".join(pieces)
        buffer = bytearray(self.total)
        for piece, (_, offset, size, *_) in zip(pieces, self.params):
            buffer[offset:offset + size] = piece
        return bytes(buffer)


_OWN_ARRAYS = _own_arrays()      # warpsim.ndarray and warpsim.cuda's DeviceNDArray
