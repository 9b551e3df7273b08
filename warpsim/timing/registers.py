"""Registers per thread from the cubin ptxas made: what occupancy is computed from."""

from __future__ import annotations

import struct


def _sections(cubin: bytes) -> tuple:
    section_offset = struct.unpack_from("<Q", cubin, 0x28)[0]
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, section_offset + k * entry_size) for k in range(count)]
    names_at = headers[names_index][4]
    names = []
    for h in headers:
        start = names_at + h[0]
        names.append(cubin[start:cubin.index(b"\0", start)].decode(errors="replace"))
    return headers, names


def cubin_registers(cubin: bytes, kernel: str) -> int:
    """Registers per thread of `kernel` in a cubin: the EIATTR_REGCOUNT (0x2f) entry of `.nv.info`
    for the kernel's symbol; 0 when not found."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return 0
    headers, names = _sections(cubin)
    symtab = next((h for h, n in zip(headers, names) if n == ".symtab"), None)
    info = next((h for h, n in zip(headers, names) if n == ".nv.info"), None)
    if symtab is None or info is None:
        return 0
    strtab = headers[symtab[6]]
    wanted = None
    for k in range(symtab[5] // 24):
        st_name = struct.unpack_from("<I", cubin, symtab[4] + 24 * k)[0]
        start = strtab[4] + st_name
        if cubin[start:cubin.index(b"\0", start)].decode(errors="replace") == kernel:
            wanted = k
    at, stop = info[4], info[4] + info[5]
    while at + 4 <= stop:
        fmt, attr, size = struct.unpack_from("<BBH", cubin, at)
        if fmt != 0x04:                  # only EIFMT_SVAL entries carry a size; the others are 4 bytes
            at += 4
            continue
        if attr == 0x2F and size >= 8:
            sym, value = struct.unpack_from("<II", cubin, at + 4)
            if sym == wanted:
                return value
        at += 4 + size
    return 0


def kernel_registers(loaded_module, kernel: str) -> int:
    """Registers per thread ptxas gave the kernel (32 when the cubin does not say)."""
    from ..sass import sass_of
    return cubin_registers(sass_of(loaded_module).cubin, kernel) or 32
