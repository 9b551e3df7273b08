"""Kernel arguments -> the bytes of a kernel's parameter buffer, as CuPy passes them.

CuPy hands the driver a pointer to each argument's bytes and the driver copies
as many bytes as the kernel's parameter declares. So CuPy never checks sizes:
a Python float passed to a `float` parameter silently becomes the low half of
a double. warpsim knows each parameter's size from the PTX and refuses
anything a real GPU would read as garbage, naming the kernel and parameter.

Conversions (those of CuPy):
  device array / __cuda_array_interface__  -> its 64-bit address
  MemoryPointer (memory.alloc)             -> its address
  None                                     -> null pointer
  Python bool / int / float / complex      -> bool / int64 / float64 / complex128
  NumPy scalar (incl. structured np.void)  -> its own bytes
  bytes, bytearray, memoryview, ctypes     -> raw bytes (structs by value)

Integers (Python or NumPy) may go into a narrower slot when the value fits
its range: CuPy sends int64 and the GPU reads the low, little-endian bytes,
which is the right value exactly then.
"""

from __future__ import annotations

import ctypes
import operator
import struct

import numpy as np

from ..errors import WarpsimError
from .memory import MemoryPointer

__all__ = ["KernelArgumentError", "pack_arguments", "encode_argument", "device_pointer"]


class KernelArgumentError(WarpsimError, TypeError, ValueError):
    """An argument that does not fit the kernel's parameter (wrong count, type or size)."""


def device_pointer(value) -> int | None:
    """The device address of a device array (ours or any __cuda_array_interface__) or of a
    MemoryPointer (`cupy.cuda.memory.alloc`'s result), else None."""
    if isinstance(value, MemoryPointer):
        return value.ptr
    data = getattr(value, "data", None)
    if hasattr(data, "ptr") and _has_array_interface(value):
        return int(data.ptr)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        return None
    try:
        address = operator.index(interface["data"][0])
    except (TypeError, KeyError, IndexError):
        raise KernelArgumentError("its __cuda_array_interface__ has no integer data pointer "
                                  "(data = (address, read_only))") from None
    if not 0 <= address < 1 << 64:
        raise KernelArgumentError(f"its __cuda_array_interface__ data pointer {address} is not a "
                                  "64-bit address")
    return address


def _has_array_interface(value) -> bool:
    """Whether value has __cuda_array_interface__, asked of its class first: the property builds a
    dict each time it is read, and a launch loop reads it for every array argument."""
    return hasattr(type(value), "__cuda_array_interface__") or hasattr(value, "__cuda_array_interface__")


def describe_argument(value) -> str:
    """What a kernel argument is, for error messages: its type, and its value if a number."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, np.generic):
        return f"{type(value).__name__}(shape={tuple(value.shape)}, dtype={value.dtype})"
    if isinstance(value, np.generic):
        return f"numpy.{type(value).__name__} ({value.dtype.itemsize} bytes)"
    return f"{type(value).__name__} {value!r}" if isinstance(value, (bool, int, float, complex)) \
        else type(value).__name__


def _fail(where: str, value, problem: str) -> KernelArgumentError:
    return KernelArgumentError(f"{where}: {problem} (got {describe_argument(value)})")


def _integer_bytes(number: int, size: int, where: str, value) -> bytes:
    """Little-endian bytes of an integer in a `size`-byte slot, if it fits (signed or unsigned)."""
    bits = size * 8
    if size not in (1, 2, 4, 8):
        raise _fail(where, value, f"an integer cannot fill a {size}-byte parameter")
    if not -(1 << (bits - 1)) <= number < (1 << bits):
        raise _fail(where, value, f"the value does not fit the {size}-byte integer parameter")
    return (number & ((1 << bits) - 1)).to_bytes(size, "little")


def _exact(raw: bytes, size: int, where: str, value) -> bytes:
    if len(raw) < size:
        raise _fail(where, value, f"{len(raw)} bytes given for a {size}-byte parameter; "
                                  "the GPU would read garbage in the rest")
    if len(raw) > size:
        raise _fail(where, value, f"{len(raw)} bytes given for a {size}-byte parameter; "
                                  "the GPU would read only part of it")
    return raw


def encode_argument(value, size: int, where: str = "kernel argument") -> bytes:
    """The `size` bytes one argument puts into its parameter slot; `where` names the slot in errors."""
    if isinstance(value, np.ndarray):
        raise KernelArgumentError(
            f"{where}: Unsupported type {type(value)}: a host NumPy array cannot be passed to a "
            "kernel; copy it to the device first with warpsim.asarray(x) (cupy.asarray on a GPU)")
    try:
        pointer = device_pointer(value)
    except KernelArgumentError as error:
        raise _fail(where, value, str(error)) from None
    if pointer is not None or value is None:
        if size != 8:
            raise _fail(where, value, f"a device pointer is 8 bytes but the parameter is {size} bytes")
        return struct.pack("<Q", pointer or 0)
    if isinstance(value, (np.datetime64, np.timedelta64)):  # NumPy integers, but not numbers CuPy passes
        raise KernelArgumentError(f"{where}: Unsupported type {type(value)}; pass value.astype('int64')")
    if isinstance(value, np.generic):  # before float: numpy.float64 is a float subclass
        if isinstance(value, np.integer) and value.dtype.itemsize > size:
            return _integer_bytes(int(value), size, where, value)
        if isinstance(value, np.inexact) and value.dtype.itemsize > size:
            kind = "complex" if isinstance(value, np.complexfloating) else "float"
            raise _fail(where, value, f"the parameter is {size} bytes; cast the value, "
                                      f"e.g. numpy.{kind}{size * 8}(x)")
        return _exact(value.tobytes(), size, where, value)
    if isinstance(value, bool):  # before int: bool is an int subclass
        return _exact(struct.pack("<?", value), size, where, value)
    if isinstance(value, int):
        return _integer_bytes(value, size, where, value)
    if isinstance(value, float):
        if size != 8:
            raise _fail(where, value, f"CuPy passes a Python float as a double (8 bytes) but the "
                                      f"parameter is {size} bytes; pass numpy.float32(x) "
                                      "(or numpy.float16) instead")
        return struct.pack("<d", value)
    if isinstance(value, complex):
        return _exact(struct.pack("<dd", value.real, value.imag), size, where, value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _exact(bytes(value), size, where, value)
    if isinstance(value, (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)):
        return _exact(bytes(memoryview(value).cast("B")), size, where, value)
    raise KernelArgumentError(f"{where}: Unsupported type {type(value)}")


def _slot(param) -> tuple[str, int, int, str]:
    """(name, offset, size, PTX type or '') of a parameter given as (name, offset, size, align
    [, ptx_type]) or as an object with those attributes."""
    if isinstance(param, tuple):
        ptx_type = str(param[4]) if len(param) > 4 and param[4] else ""
        return str(param[0]), int(param[1]), int(param[2]), ptx_type.lstrip(".")
    ptx_type = getattr(param, "ptx_type", None) or getattr(param, "type", None) or ""
    ptx_type = str(getattr(ptx_type, "name", ptx_type)).lstrip(".")
    return str(param.name), int(param.offset), int(param.size), ptx_type


def _check_kind(value, ptx_type: str, where: str) -> None:
    """When the PTX type is known, refuse an integer for a float parameter and the reverse:
    the GPU would read the bits of one as the other."""
    if not ptx_type[1:].isdigit():
        return
    is_integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    is_float = isinstance(value, (float, np.floating))
    if ptx_type[:1] == "f" and is_integer:
        raise _fail(where, value, f"an integer for a .{ptx_type} parameter; the GPU would read its "
                                  f"bits as a float: pass numpy.float{ptx_type[1:]}(x)")
    if ptx_type[:1] in ("u", "s") and is_float:
        raise _fail(where, value, f"a float for a .{ptx_type} parameter; the GPU would read its "
                                  "bits as an integer: pass an int")


def pack_arguments(kernel_name: str, params, args) -> bytes:
    """The parameter buffer for one launch: each argument written at its parameter's offset."""
    if not isinstance(args, (tuple, list)):
        raise KernelArgumentError(
            f"kernel '{kernel_name}': the arguments must be a tuple or list, got "
            f"{type(args).__name__}; write kernel(grid, block, (x, y, n)) even for one argument")
    return pack_slots(kernel_name, [_slot(param) for param in params], args)


def parameter_slots(params) -> list:
    """(name, offset, size, PTX type or '') of each parameter: what pack_slots takes, worked out
    once per kernel by a caller that launches it many times."""
    return [_slot(param) for param in params]


def pack_slots(kernel_name: str, slots: list, args) -> bytes:
    """pack_arguments with the parameters given as parameter_slots made them."""
    if len(args) != len(slots):
        raise KernelArgumentError(
            f"kernel '{kernel_name}' takes {len(slots)} argument(s), {len(args)} given")
    buffer = bytearray(max((offset + size for _, offset, size, _ in slots), default=0))
    for index, (value, (name, offset, size, ptx_type)) in enumerate(zip(args, slots)):
        value = getattr(value, "__warpsim_handle__", value)     # texture/surface objects: their handle
        raw = _plain_argument_bytes(value, size, ptx_type)
        if raw is not None:
            buffer[offset:offset + size] = raw
            continue
        scalar = ptx_type[1:].isdigit() and int(ptx_type[1:]) == size * 8  # not a .b8[] struct
        kind = f", .{ptx_type}" if scalar else ", a struct or array (.b8[])" if ptx_type else ""
        where = f"kernel '{kernel_name}' argument {index} ({name}, {size} bytes{kind})"
        if scalar:
            _check_kind(value, ptx_type, where)
        buffer[offset:offset + size] = encode_argument(value, size, where)
    return bytes(buffer)


class ArgumentPacker:
    """pack_slots for one kernel, for a caller that launches it many times (a Function).

    Per tuple of argument types it works out once whether every argument is one that a parameter
    takes as it is: a NumPy scalar of the parameter's size and kind, or warpsim's own device array
    for an 8-byte parameter (its address). A launch with such arguments packs their bytes with no
    check left to make; any other goes through pack_slots, which converts it or names the argument
    that does not fit."""

    def __init__(self, kernel_name: str, slots: list):
        self.kernel_name, self.slots = kernel_name, slots
        self.size = max((offset + size for _, offset, size, _ in slots), default=0)
        self._plans: dict = {}      # argument types -> (struct.Struct, how each argument is packed) or None

    def __call__(self, args) -> bytes:
        plan = self._plan_of(args)
        if plan is None:
            return pack_slots(self.kernel_name, self.slots, args)
        layout, kinds = plan
        return layout.pack(*[value.data.ptr if kind is _ADDRESS else value.tobytes() if kind is _BYTES else value
                             for value, kind in zip(args, kinds)])

    def plain(self, args, device) -> bytes | None:
        """The buffer when every argument is one a parameter takes as it is and every device array
        is on `device`; None otherwise, and the caller then looks at each argument and packs with
        __call__ (which names an argument that does not fit)."""
        plan = self._plan_of(args)
        if plan is None:
            return None
        layout, kinds = plan
        fields = []
        for value, kind in zip(args, kinds):
            if kind is _ADDRESS:
                data = value.data
                if data.mem.device is not device:
                    return None
                fields.append(data.ptr)
            else:
                fields.append(value.tobytes() if kind is _BYTES else value)
        return layout.pack(*fields)

    def _plan_of(self, args):
        """The plan for the arguments' types (worked out once per tuple of types), or None."""
        types = tuple(map(type, args))
        plan = self._plans.get(types, False)
        if plan is False:
            plan = self._plan(types)
            if len(self._plans) > 64:
                self._plans.clear()
            self._plans[types] = plan
        return plan

    def _plan(self, types: tuple):
        """(struct.Struct of the whole buffer, how each argument is packed) for arguments of these
        types, or None where one of them needs pack_slots. The Struct packs an array's address as
        a little-endian u64, an integer scalar as an integer of its size and signedness (struct
        reads it through __index__: its bits, without tobytes' cost) and a float scalar's own
        bytes, with zeros between and after."""
        from .arrays import ndarray
        if len(types) != len(self.slots):
            return None
        fields, kinds, cursor = ["<"], [], 0
        for kind, (_, offset, size, ptx_type) in zip(types, self.slots):
            if offset < cursor:
                return None                 # (parameters out of order: pack_slots places them)
            fields.append(f"{offset - cursor}x" if offset > cursor else "")
            if kind is ndarray and size == 8:
                fields.append("Q")
                kinds.append(_ADDRESS)
            else:
                scalar = _PLAIN_SCALARS.get(kind)
                if scalar is None or np.dtype(kind).itemsize != size or (ptx_type[1:].isdigit() and (
                        (scalar == "i" and ptx_type[:1] == "f") or (scalar == "f" and ptx_type[:1] in ("u", "s")))):
                    return None
                if scalar == "i":
                    code = _INTEGER_CODES[size]
                    fields.append(code.lower() if np.dtype(kind).kind == "i" else code)
                    kinds.append(_INTEGER)
                else:                           # (floats as bytes: a NaN's payload as it is)
                    fields.append(f"{size}s")
                    kinds.append(_BYTES)
            cursor = offset + size
        fields.append(f"{self.size - cursor}x" if self.size > cursor else "")
        return struct.Struct("".join(fields)), tuple(kinds)


# How ArgumentPacker packs an argument: a device array's address, a scalar's bytes, an integer.
_ADDRESS, _BYTES, _INTEGER = "address", "bytes", "integer"
_INTEGER_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}    # struct's unsigned codes by size (lower case: signed)

# NumPy scalar types a parameter of the same size takes as they are ('i' integer, 'f' float).
_PLAIN_SCALARS = {t: "i" for t in (np.int8, np.int16, np.int32, np.int64,
                                   np.uint8, np.uint16, np.uint32, np.uint64)}
_PLAIN_SCALARS.update({t: "f" for t in (np.float16, np.float32, np.float64)})


def _plain_argument_bytes(value, size: int, ptx_type: str) -> bytes | None:
    """The bytes of the arguments a launch loop passes most, a NumPy scalar of the parameter's size
    and kind or a device array for an 8-byte parameter, without the naming encode_argument does
    for its errors; None for any other argument (encode_argument then takes it, or says why not)."""
    kind = _PLAIN_SCALARS.get(type(value))
    if kind is not None:
        if value.dtype.itemsize != size or (ptx_type[1:].isdigit() and (
                (kind == "i" and ptx_type[:1] == "f") or (kind == "f" and ptx_type[:1] in ("u", "s")))):
            return None
        return value.tobytes()
    if size != 8 or isinstance(value, np.ndarray) or value is None:
        return None
    try:
        pointer = device_pointer(value)
    except KernelArgumentError:
        return None
    return None if pointer is None else struct.pack("<Q", pointer)
