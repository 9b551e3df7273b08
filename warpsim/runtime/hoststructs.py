"""Reading and writing the program's C structs in host memory, at the offsets the library was built with.

A struct pointer the program passes is checked against the process's mappings
first (runtime.hostmemory): a wild one raises HostPointerError, which the
runtime turns into cudaErrorInvalidValue, where dereferencing it would kill
the process as a GPU's runtime does not.
"""

from __future__ import annotations

import ctypes
import struct

from .hostmemory import readable_range


class HostPointerError(ValueError):
    """A struct pointer the program passed that is not mapped (or not writable) host memory."""


_checked_pages: set = set()       # (page, writable) found mapped: structs sit in few pages, checked once


def _check(address: int, count: int, write: bool) -> None:
    page = address >> 12
    if (page, write) in _checked_pages and (address + count - 1) >> 12 == page:
        return
    why = readable_range(address, count, write)
    if why:
        raise HostPointerError(why)
    if len(_checked_pages) > 4096:
        _checked_pages.clear()
    if (address + count - 1) >> 12 == page:
        _checked_pages.add((page, write))


def write(address: int, fmt: str, *values) -> None:
    data = struct.pack("<" + fmt, *values)
    _check(address, len(data), True)
    ctypes.memmove(address, data, len(data))


def read(address: int, fmt: str):
    count = struct.calcsize("<" + fmt)
    _check(address, count, False)
    return struct.unpack("<" + fmt, ctypes.string_at(address, count))


def layout(symbol: str, count: int):
    """Sizes and offsets of a CUDA struct as the library was compiled with them (native.py)."""
    from .native import LIBRARY
    return (ctypes.c_uint64 * (count + 1)).in_dll(ctypes.CDLL(LIBRARY), symbol)


def offsets(symbol: str, fields: tuple) -> dict:
    """field -> offset of a struct native.LAYOUTS reports under symbol."""
    return dict(zip(fields, layout(symbol, len(fields))[1:]))
