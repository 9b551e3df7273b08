"""CUDA fatbinaries -> their PTX (and cubins): what `__cudaRegisterFatBinary` hands the runtime.

nvcc embeds the device code of a program as a fatbinary: a 16-byte header
(magic 0xBA55ED50, version, header size, size of the entries that follow),
then entries, each with a header of its own (kind 1 = PTX text, 2 = ELF
cubin; the architecture; payload size; flags) and a payload. Several
fatbinaries may follow one another. nvcc 12.x/13 compresses PTX (and, with
`-compress-mode=size`, cubins too): flag 0x2000 marks an LZ4 block, flag
0x8000 a Zstandard frame; the header then holds the uncompressed size. The
host code passes a wrapper struct (magic 0x466243B1, version, pointer to the
fatbinary; version 2 adds a list of prelinked fatbinaries, for -rdc builds).

warpsim runs PTX, so `best_ptx` picks the PTX entry of the highest
architecture not above the simulated GPU's (any PTX at all otherwise); a
fatbinary with no PTX at all gives `best_sass`'s cubin, which runs on the
SASS executor (warpsim.sass.loaded).
The layout was read from fatbinaries nvcc makes (tests/frontends/test_fatbin.py
builds them); only the fields named here are relied on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import struct
from dataclasses import dataclass

from ..errors import WarpsimError

FATBIN_MAGIC = 0xBA55ED50
WRAPPER_MAGIC = 0x466243B1
KIND_PTX, KIND_ELF = 1, 2
FLAG_LZ4, FLAG_ZSTD = 0x2000, 0x8000

_HEADER = struct.Struct("<IHHQ")                  # magic, version, header size, entries size
# kind, version, header size, payload size, compressed size, (options offset), format version,
# architecture, (name offset, name size), flags, (reserved), uncompressed size
_ENTRY = struct.Struct("<HHIQIIIIIIQQQ")


class FatbinError(WarpsimError):
    """A fatbinary warpsim cannot read (bad magic, truncated, or an unknown compression)."""


@dataclass(frozen=True)
class FatbinEntry:
    kind: int             # KIND_PTX or KIND_ELF
    arch: int             # 90 for sm_90 / compute_90
    flags: int
    payload: bytes        # decompressed

    @property
    def is_ptx(self) -> bool:
        return self.kind == KIND_PTX

    @property
    def text(self) -> str:
        """A PTX entry's text (without the NUL padding nvcc adds)."""
        return self.payload.split(b"\0", 1)[0].decode("utf-8", "replace")


def parse_fatbin(data: bytes, offset: int = 0) -> list[FatbinEntry]:
    """Every entry of the fatbinary (or back-to-back fatbinaries) at `offset` of `data`."""
    entries = []
    while offset + _HEADER.size <= len(data):
        magic, _version, header_size, size = _HEADER.unpack_from(data, offset)
        if magic != FATBIN_MAGIC:
            if entries:
                break                  # padding after the last fatbinary
            raise FatbinError(f"not a fatbinary: magic 0x{magic:08x} at offset {offset} "
                              f"(expected 0x{FATBIN_MAGIC:08x})")
        position, end = offset + header_size, offset + header_size + size
        if end > len(data):
            raise FatbinError(f"fatbinary at offset {offset} says {size} bytes follow its header; "
                              f"only {len(data) - position} do")
        while position + _ENTRY.size <= end:
            entry, position = _read_entry(data, position)
            entries.append(entry)
        offset = end
    return entries


def _read_entry(data: bytes, position: int) -> tuple[FatbinEntry, int]:
    (kind, _version, header_size, payload_size, compressed_size, _options, _format, arch,
     _name_offset, _name_size, flags, _reserved, uncompressed_size) = _ENTRY.unpack_from(data, position)
    start = position + header_size
    payload = bytes(data[start:start + payload_size])
    if flags & (FLAG_LZ4 | FLAG_ZSTD):
        stored = payload[:compressed_size] if compressed_size else payload
        payload = decompress(stored, flags, uncompressed_size)
    return FatbinEntry(kind, arch, flags, payload), start + payload_size


def decompress(stored: bytes, flags: int, size: int) -> bytes:
    if flags & FLAG_ZSTD:
        return zstd_decompress(stored, size)
    return lz4_block_decompress(stored, size)


def _extended_length(source: bytes, i: int, length: int) -> tuple:
    """An LZ4 token's 4-bit length, extended by the bytes that follow while it is 15 (each 255 says
    another byte follows); (length, index past them)."""
    if length == 15:
        while True:
            extra = source[i]
            i += 1
            length += extra
            if extra != 255:
                break
    return length, i


def lz4_block_decompress(source: bytes, size: int) -> bytes:
    """An LZ4 block (no frame): sequences of literals then a back-reference."""
    out = bytearray()
    i, n = 0, len(source)
    while i < n:
        token = source[i]
        i += 1
        literals, i = _extended_length(source, i, token >> 4)
        out += source[i:i + literals]
        i += literals
        if i >= n:
            break                      # the last sequence has literals only
        distance = source[i] | (source[i + 1] << 8)
        i += 2
        length, i = _extended_length(source, i, token & 15)
        length += 4
        if distance == 0 or distance > len(out):
            raise FatbinError(f"corrupt LZ4 block: back-reference {distance} bytes into {len(out)}")
        start = len(out) - distance
        for k in range(length):        # may overlap itself (a repeated run)
            out.append(out[start + k])
    return bytes(out[:size]) if size else bytes(out)


def zstd_decompress(source: bytes, size: int) -> bytes:
    """A Zstandard frame: Python 3.14's compression.zstd, the zstandard package, or libzstd."""
    try:
        from compression import zstd          # Python 3.14+
        return zstd.decompress(source)
    except ImportError:
        pass
    try:
        import zstandard
        return zstandard.ZstdDecompressor().decompress(source, max_output_size=size or (1 << 30))
    except ImportError:
        pass
    library = _libzstd()
    out = ctypes.create_string_buffer(max(size, 1))
    written = library.ZSTD_decompress(out, ctypes.c_size_t(size), source, ctypes.c_size_t(len(source)))
    if library.ZSTD_isError(ctypes.c_size_t(written)):
        raise FatbinError(f"corrupt Zstandard entry in the fatbinary: "
                          f"{library.ZSTD_getErrorName(ctypes.c_size_t(written)).decode()}")
    return out.raw[:written]


def _libzstd():
    name = ctypes.util.find_library("zstd") or "libzstd.so.1"
    try:
        library = ctypes.CDLL(name)
    except OSError:
        raise FatbinError("the program's device code is Zstandard-compressed (nvcc's default) and "
                          "no Zstandard decoder was found: install libzstd (apt install libzstd1) or "
                          "`pip install zstandard`, or rebuild with `nvcc -compress-mode=none`") from None
    library.ZSTD_decompress.restype = ctypes.c_size_t
    library.ZSTD_decompress.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
    library.ZSTD_isError.restype = ctypes.c_uint
    library.ZSTD_getErrorName.restype = ctypes.c_char_p
    return library


def best_ptx(entries: list[FatbinEntry], arch: int = 90) -> FatbinEntry | None:
    """The PTX entry of the highest architecture <= arch (else the lowest one), or None."""
    ptx = [e for e in entries if e.is_ptx]
    if not ptx:
        return None
    fitting = [e for e in ptx if e.arch <= arch]
    return max(fitting, key=lambda e: e.arch) if fitting else min(ptx, key=lambda e: e.arch)


SASS_ARCHS = range(80, 91)         # the SASS warpsim's executor runs: sm_80 to sm_90


def best_sass(entries: list[FatbinEntry], arch: int = 90) -> FatbinEntry | None:
    """For a fatbinary without PTX: the cubin (ELF entry) the SASS executor runs, the one of the
    highest architecture in sm_80..sm_90 not above `arch` (else any of sm_80..sm_90, else the
    highest there is, whose opcodes the executor names if it cannot run them), or None."""
    cubins = [e for e in entries if e.kind == KIND_ELF and e.payload[:4] == b"\x7fELF"]
    if not cubins:
        return None
    for group in ([e for e in cubins if e.arch in SASS_ARCHS and e.arch <= arch],
                  [e for e in cubins if e.arch in SASS_ARCHS], cubins):
        if group:
            return max(group, key=lambda e: e.arch)
    return None


def fatbin_from_wrapper(address: int) -> tuple[int, list[int]]:
    """(address of the fatbinary, addresses of prelinked fatbinaries) from the wrapper struct at
    `address` in this process (what __cudaRegisterFatBinary receives)."""
    magic, version = struct.unpack("<II", ctypes.string_at(address, 8))
    if magic != WRAPPER_MAGIC:
        raise FatbinError(f"__cudaRegisterFatBinary: the wrapper at 0x{address:x} has magic "
                          f"0x{magic:08x}, not 0x{WRAPPER_MAGIC:08x}")
    data, prelinked = struct.unpack("<QQ", ctypes.string_at(address + 8, 16))
    linked = []
    if version >= 2 and prelinked:
        k = 0
        while True:
            pointer = ctypes.c_uint64.from_address(prelinked + 8 * k).value
            if not pointer:
                break
            linked.append(pointer)
            k += 1
    return data, linked


def fatbin_bytes_at(address: int) -> bytes:
    """The fatbinary (header and entries) at `address` in this process."""
    magic, _version, header_size, size = _HEADER.unpack(ctypes.string_at(address, _HEADER.size))
    if magic != FATBIN_MAGIC:
        raise FatbinError(f"no fatbinary at 0x{address:x}: magic 0x{magic:08x}")
    return ctypes.string_at(address, header_size + size)
