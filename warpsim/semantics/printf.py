"""Device printf: the C formatting of the arguments NVVM packs for vprintf, as both executors run it.

vprintf(format, args) gets two generic addresses: the format string and a buffer where the
arguments lie in order, each aligned to its own size (8 bytes for doubles, 64-bit integers and
pointers; floats arrive promoted to double). Each executor reads memory its own way, so the
functions here take `read(address, nbytes) -> bytes` for the calling thread; the PTX machine's
builtins (machine/isa/builtins.py) and the SASS executor's CALL.ABS to vprintf
(sass/executor/device_calls.py) format the same text. The return value is the number of
arguments read, which is what a device printf returns.
"""

from __future__ import annotations

import re

import numpy as np

# printf conversions: (flags, width, precision, length, conversion)
_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXcsfFeEgGaAp%])")
STRING_LIMIT = 4096                     # bytes read for a %s or format string


def read_string(read, address: int, limit: int = STRING_LIMIT) -> str:
    """The NUL-terminated string at `address` ("(null)" for NULL, as a GPU prints it)."""
    if address == 0:
        return "(null)"
    raw = read(address, limit)
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def format_printf(read, fmt: str, args_address: int) -> tuple[str, int]:
    """(the text printf writes, the number of arguments read)."""
    out, pos, offset, count = [], 0, 0, 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, precision, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if conv in "feEgGaA":
            size = 8
        elif conv in "sp" or length in ("ll", "l", "z", "j", "t"):
            size = 8
        else:
            size = 4
        offset = (offset + size - 1) // size * size
        raw = read(args_address + offset, size)
        offset += size
        count += 1
        spec = "%" + (flags or "") + (width or "") + (f".{precision}" if precision else "")
        if conv in "feEgGaA":
            value = np.frombuffer(raw, dtype=np.float64)[0]
            out.append((spec + conv) % float(value) if conv not in "aA" else float(value).hex())
        elif conv == "s":
            out.append((spec + "s") % read_string(read, int.from_bytes(raw, "little")))
        elif conv == "p":
            out.append("0x%x" % int.from_bytes(raw, "little"))
        elif conv == "c":
            out.append((spec + "c") % chr(raw[0]))
        else:
            signed = conv in "di"
            value = int.from_bytes(raw, "little", signed=signed)
            if length == "hh":
                value = np.int8(value) if signed else value & 0xFF
            elif length == "h":
                value = np.int16(value) if signed else value & 0xFFFF
            out.append((spec + ("d" if conv in "diu" else conv)) % int(value))
    out.append(fmt[pos:])
    return "".join(out), count
