"""Reading and writing the program's C structs in host memory, at the offsets the library was built with."""

from __future__ import annotations

import ctypes
import struct


def write(address: int, fmt: str, *values) -> None:
    data = struct.pack("<" + fmt, *values)
    ctypes.memmove(address, data, len(data))


def read(address: int, fmt: str):
    return struct.unpack("<" + fmt, ctypes.string_at(address, struct.calcsize("<" + fmt)))


def layout(symbol: str, count: int):
    """Sizes and offsets of a CUDA struct as the library was compiled with them (native.py)."""
    from .native import LIBRARY
    return (ctypes.c_uint64 * (count + 1)).in_dll(ctypes.CDLL(LIBRARY), symbol)


def offsets(symbol: str, fields: tuple) -> dict:
    """field -> offset of a struct native.LAYOUTS reports under symbol."""
    return dict(zip(fields, layout(symbol, len(fields))[1:]))
