"""What a launch needs from the cubin beyond the instructions: constant banks, stack, shared size.

ptxas records per kernel, in `.nv.info.<kernel>`, attributes the driver reads
at launch (format byte, attribute byte, then a value or a sized payload):
the parameters' offsets and sizes (KPARAM_INFO), the size of the parameter
area in constant bank 0 (CBANK_PARAM_SIZE), and the stack the kernel needs
(FRAME_SIZE, MIN/MAX_STACK_SIZE). `.nv.constant0.<kernel>` is bank 0's
image (the driver fills in dimensions at 0x0/0xc, the stack top at 0x28 and
the parameters at 0x210); `.nv.constant3` holds the module's __constant__
variables, found by symbol; other `.nv.constant<N>` sections are banks ptxas
fills itself. `.nv.shared.<kernel>` is the static shared window, its first
0x400 bytes reserved.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4
EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_MAX_STACK_SIZE = 0x23
PARAM_BASE = 0x210


@dataclass
class KernelImage:
    name: str
    params: list = field(default_factory=list)   # (ordinal, offset, size)
    param_bytes: int = 0
    stack_bytes: int = 0
    static_shared: int = 0                       # bytes past the reserved 0x400
    bank0: bytes = b""
    banks: dict = field(default_factory=dict)    # bank number -> bytes (compiler constants)
    constant_symbols: dict = field(default_factory=dict)   # __constant__ name -> (bank, offset, size)


def _sections(data: bytes) -> list:
    """[(name, offset, size)] of a 64-bit little-endian ELF, in header order."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
    section_offset = struct.unpack_from("<Q", data, 0x28)[0]
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + k * entry_size) for k in range(count)]
    names_at = headers[names_index][4]
    out = []
    for header in headers:
        start = names_at + header[0]
        out.append((data[start:data.index(b"\0", start)].decode(errors="replace"), header[4], header[5]))
    return out


def _symbols(data: bytes, sections: list) -> list:
    """[(name, section index, value, size)] from .symtab."""
    by_name = {name: (offset, size) for name, offset, size in sections}
    if ".symtab" not in by_name or ".strtab" not in by_name:
        return []
    offset, size = by_name[".symtab"]
    strings, _ = by_name[".strtab"]
    out = []
    for k in range(size // 24):
        name_at, info, other, shndx, value, length = struct.unpack_from("<IBBHQQ", data, offset + 24 * k)
        start = strings + name_at
        name = data[start:data.index(b"\0", start)].decode(errors="replace")
        out.append((name, shndx, value, length))
    return out


def _attributes(payload: bytes):
    """(attribute, value bytes) entries of an .nv.info section."""
    k = 0
    while k + 2 <= len(payload):
        fmt, attr = payload[k], payload[k + 1]
        k += 2
        if fmt == EIFMT_NVAL:
            yield attr, b""
        elif fmt == EIFMT_BVAL:
            yield attr, payload[k:k + 1]
            k += 1
        elif fmt == EIFMT_HVAL:
            yield attr, payload[k:k + 2]
            k += 2
        elif fmt == EIFMT_SVAL:
            (length,) = struct.unpack_from("<H", payload, k)
            yield attr, payload[k + 2:k + 2 + length]
            k += 2 + length
        else:
            return


def kernel_image(cubin: bytes, kernel: str) -> KernelImage:
    sections = _sections(cubin)
    image = KernelImage(kernel)
    stack = 0
    for name, offset, size in sections:
        body = cubin[offset:offset + size]
        if name == f".nv.info.{kernel}":
            for attr, value in _attributes(body):
                if attr == EIATTR_KPARAM_INFO and len(value) >= 12:
                    _, ordinal, param_offset, flags = struct.unpack_from("<IHHI", value)
                    image.params.append((ordinal, param_offset, (flags >> 18) & 0x3FFF))
                elif attr == EIATTR_CBANK_PARAM_SIZE and len(value) == 2:
                    image.param_bytes = struct.unpack("<H", value)[0]
                elif attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE) and len(value) >= 8:
                    stack = max(stack, struct.unpack_from("<I", value, 4)[0])
        elif name == ".nv.info":
            for attr, value in _attributes(body):
                if attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE) and len(value) >= 8:
                    stack = max(stack, struct.unpack_from("<I", value, 4)[0])
        elif name == f".nv.constant0.{kernel}":
            image.bank0 = body
        elif name.startswith(".nv.constant") and not name.startswith(".nv.constant0"):
            bank_part = name[len(".nv.constant"):].split(".", 1)
            owner = bank_part[1] if len(bank_part) > 1 else None
            if bank_part[0].isdigit() and owner in (None, kernel):
                image.banks[int(bank_part[0])] = body
        elif name == f".nv.shared.{kernel}":
            image.static_shared = max(0, size - 0x400)
    image.stack_bytes = stack
    index_of = {k: name for k, (name, _, _) in enumerate(sections)}
    for name, shndx, value, length in _symbols(cubin, sections):
        section = index_of.get(shndx, "")
        if section.startswith(".nv.constant") and not section.startswith(".nv.constant0") and name:
            bank = section[len(".nv.constant"):].split(".", 1)[0]
            if bank.isdigit():
                image.constant_symbols[name] = (int(bank), value, length)
    image.params.sort()
    return image
