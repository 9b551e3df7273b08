"""What warpsim reads from a cubin's ELF itself: its sections and symbols, the `.nv.info`
attributes ptxas records, its sm_XX and the PTX inside.

ptxas -lineinfo stores the PTX it read in `.nv_debug_ptx_txt`, one line per
NUL-terminated string, so a cubin given on its own still has PTX lines to show
next to its SASS. The arch is in the ELF header's e_flags: bits 8-15 in the
CUDA ELF ABI version 8 that current ptxas writes (sm_90: 0x5a00), the low byte
before it.
"""

from __future__ import annotations

import struct

PTX_SECTION = ".nv_debug_ptx_txt"


def sections(data: bytes) -> list:
    """[(name, file offset, size)] of a 64-bit little-endian ELF's sections, in header order."""
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


def symbols(data: bytes, section_list: list) -> list:
    """[(name, section index, value, size)] from .symtab, in symbol-index order."""
    by_name = {name: (offset, size) for name, offset, size in section_list}
    if ".symtab" not in by_name or ".strtab" not in by_name:
        return []
    offset, size = by_name[".symtab"]
    strings, _ = by_name[".strtab"]
    out = []
    for k in range(size // 24):
        name_at, _info, _other, shndx, value, length = struct.unpack_from("<IBBHQQ", data, offset + 24 * k)
        start = strings + name_at
        out.append((data[start:data.index(b"\0", start)].decode(errors="replace"), shndx, value, length))
    return out


EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4


def info_attributes(payload: bytes):
    """(attribute, value bytes) entries of an .nv.info section (format byte, attribute byte, value)."""
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


def ptx_text_in_cubin(data: bytes) -> str:
    """The PTX text ptxas read, line numbers preserved ('' when the cubin has none)."""
    try:
        where = {name: (offset, size) for name, offset, size in sections(data)}.get(PTX_SECTION)
    except (struct.error, ValueError, IndexError):
        return ""
    if where is None:
        return ""
    offset, size = where
    body = data[offset:offset + size].decode(errors="replace")
    return "\n".join(body.split("\0")).rstrip("\n") + "\n"


def cubin_arch(data: bytes) -> str:
    """'sm_90' from e_flags, '' when it is not a cubin warpsim understands."""
    if data[:4] != b"\x7fELF" or len(data) < 0x34:
        return ""
    flags = struct.unpack_from("<I", data, 0x30)[0]
    sm = flags >> 8 & 0xFF if data[8] >= 8 else flags & 0xFF
    return f"sm_{sm}" if sm else ""
