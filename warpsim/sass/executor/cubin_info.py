"""What a launch needs from the cubin beyond the instructions: constant banks, stack, shared size.

ptxas records per kernel, in `.nv.info.<kernel>`, attributes the driver reads
at launch (format byte, attribute byte, then a value or a sized payload):
the parameters' offsets and sizes (KPARAM_INFO), the size of the parameter
area in constant bank 0 (CBANK_PARAM_SIZE), and the stack the kernel needs
(FRAME_SIZE, MIN/MAX_STACK_SIZE). `.nv.constant0.<kernel>` is bank 0's
image (the driver fills in dimensions at 0x0/0xc, the stack top at 0x28 and
the parameters at 0x210); `.nv.constant3` holds the module's __constant__
variables, found by symbol; other `.nv.constant<N>` sections are banks ptxas
fills itself, but for the global variables' addresses (bank 4), which the
driver writes from `.rela.nv.constant<N>` relocations (`symbol_slots`). `.nv.shared.<kernel>` is the static shared window, its first
0x400 bytes reserved.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..elf import info_attributes, sections as elf_sections, symbols

EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_MAX_STACK_SIZE = 0x23
EIATTR_REGCOUNT = 0x2F
PARAM_BASE = 0x210


@dataclass
class KernelImage:
    name: str
    params: list = field(default_factory=list)   # (ordinal, offset, size)
    param_bytes: int = 0
    stack_bytes: int = 0
    static_shared: int = 0                       # bytes past the reserved ones
    shared_reserved: int = 0x400                 # where shared byte 0 is (shared_reserved(arch))
    param_base: int = PARAM_BASE                 # where parameters start in bank 0 (param_base(arch))
    bank0: bytes = b""
    banks: dict = field(default_factory=dict)    # bank number -> bytes (compiler constants)
    constant_symbols: dict = field(default_factory=dict)   # __constant__ name -> (bank, offset, size)
    symbol_slots: list = field(default_factory=list)       # (bank, offset, symbol, addend): R_CUDA_64 slots
    called_functions: list = field(default_factory=list)   # slots' symbols the cubin does not define (vprintf)
    registers: int = 0                           # per thread, ptxas's count (0: not recorded)


def _hopper_or_later(arch: str) -> bool:
    digits = "".join(ch for ch in (arch or "sm_90") if ch.isdigit())
    return not digits or int(digits) >= 90


def shared_reserved(arch: str) -> int:
    """Bytes at the start of a CTA's shared window that ptxas keeps for itself: 0x400 from sm_90 on
    (its shared addresses start there), none before."""
    return 0x400 if _hopper_or_later(arch) else 0


def param_base(arch: str) -> int:
    """Where the kernel parameters start in constant bank 0: c[0x0][0x210] from sm_90 on, 0x160 before."""
    return PARAM_BASE if _hopper_or_later(arch) else 0x160


def kernel_image(cubin: bytes, kernel: str, arch: str = "sm_90") -> KernelImage:
    sections = elf_sections(cubin)
    image = KernelImage(kernel)
    image.shared_reserved = shared_reserved(arch)
    image.param_base = param_base(arch)
    stack = 0
    register_counts = {}                         # symbol index -> registers per thread
    stack_of = {}                                # symbol index -> stack bytes (.nv.info: every function's)
    for name, offset, size in sections:
        body = cubin[offset:offset + size]
        if name == f".nv.info.{kernel}":
            for attr, value in info_attributes(body):
                if attr == EIATTR_KPARAM_INFO and len(value) >= 12:
                    _, ordinal, param_offset, flags = struct.unpack_from("<IHHI", value)
                    image.params.append((ordinal, param_offset, (flags >> 18) & 0x3FFF))
                elif attr == EIATTR_CBANK_PARAM_SIZE and len(value) == 2:
                    image.param_bytes = struct.unpack("<H", value)[0]
                elif attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE) and len(value) >= 8:
                    stack = max(stack, struct.unpack_from("<I", value, 4)[0])
        elif name == ".nv.info":
            for attr, value in info_attributes(body):
                if attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE) and len(value) >= 8:
                    symbol, size = struct.unpack_from("<II", value)
                    stack_of[symbol] = max(stack_of.get(symbol, 0), size)
                elif attr == EIATTR_REGCOUNT and len(value) >= 8:
                    symbol, count = struct.unpack_from("<II", value)
                    register_counts[symbol] = count
        elif name == f".nv.constant0.{kernel}":
            image.bank0 = body
        elif name.startswith(".nv.constant") and not name.startswith(".nv.constant0"):
            bank_part = name[len(".nv.constant"):].split(".", 1)
            owner = bank_part[1] if len(bank_part) > 1 else None
            if bank_part[0].isdigit() and owner in (None, kernel):
                image.banks[int(bank_part[0])] = body
        elif name == f".nv.shared.{kernel}":
            image.static_shared = max(0, size - image.shared_reserved)
    index_of = {k: name for k, (name, _, _) in enumerate(sections)}
    for index, (name, shndx, value, length) in enumerate(symbols(cubin, sections)):
        if name == kernel and index in register_counts:
            image.registers = register_counts[index]
        if name == kernel and index in stack_of:
            stack = max(stack, stack_of[index])
        section = index_of.get(shndx, "")
        if section.startswith(".nv.constant") and not section.startswith(".nv.constant0") and name:
            bank = section[len(".nv.constant"):].split(".", 1)[0]
            if bank.isdigit():
                image.constant_symbols[name] = (int(bank), value, length)
    image.symbol_slots = _symbol_slots(cubin, sections, kernel)
    defined = {name for name, section_index, _, _ in symbols(cubin, sections) if section_index}
    image.called_functions = sorted({symbol for _, _, symbol, _ in image.symbol_slots if symbol not in defined})
    # a recursive call chain has no bound (ptxas records 0xffffffff): the driver's default stack then
    image.stack_bytes = DEFAULT_STACK_BYTES if stack >= UNBOUNDED_STACK else stack
    image.params.sort()
    return image


R_CUDA_64 = 2                       # a 64-bit absolute address


def _symbol_slots(cubin: bytes, sections: list, kernel: str) -> list:
    """The constant-bank words the driver relocates: ptxas puts the address of each global
    variable the kernel reaches (libdevice's `__cudart_sin_cos_coeffs` table, ...) in bank 4,
    `.nv.constant4` zero-filled, with one R_CUDA_64 in `.rela.nv.constant4` per 8-byte slot."""
    table = symbols(cubin, sections)
    slots = []
    for name, offset, size in sections:
        if not name.startswith(".rela.nv.constant"):
            continue
        bank, _, owner = name[len(".rela.nv.constant"):].partition(".")
        if not bank.isdigit() or owner not in ("", kernel):
            continue
        for k in range(size // 24):
            where, info, addend = struct.unpack_from("<QQq", cubin, offset + 24 * k)
            if info & 0xFFFFFFFF == R_CUDA_64 and (info >> 32) < len(table):
                slots.append((int(bank), where, table[info >> 32][0], addend))
    return slots


UNBOUNDED_STACK = 0xFFFFFFFF
DEFAULT_STACK_BYTES = 1024          # cudaLimitStackSize's default
