"""Loads and stores: LDG STG LDS STS LDL STL LD ST (generic), LDC ULDC (constant banks).

Widths come from the modifiers (.U8 .S8 .U16 .S16, none = 32 bits, .64, .128:
consecutive registers); .E (64-bit addresses), cache and ordering modifiers
(.STRONG.GPU, .CONSTANT, .EF, .LU, ...) change nothing a single launch can
observe. Observers see every access (space, kind, lanes, addresses, bytes per
lane) for the counters.
"""

from __future__ import annotations

import numpy as np

from .access import access_width, address_reader, bytes_to_words, resolve, words_to_bytes
from .operands import U32, const_reader, dest, source
from .table import Step, Unsupported, semantics

CACHE_MODS = ("E", "STRONG", "GPU", "SYS", "SM", "CTA", "CONSTANT", "EF", "EL", "LU", "EN", "NA", "ZD",
              "WEAK", "MMIO", "PRIVATE", "LTC64B", "LTC128B", "LTC256B", "BYPASS", "64", "128", "U8",
              "S8", "U16", "S16", "8", "16", "32", "VOLATILE", "RELEASE", "ACQUIRE")
SPACE_OF = {"LDG": "global", "STG": "global", "LDS": "shared", "STS": "shared", "LDL": "local",
            "STL": "local", "LD": "generic", "ST": "generic"}


def notify(st, ins, space, kind, idx, addrs, size):
    for observer in st.memory_observers:
        observer.memory_access(st, ins, space, kind, idx, addrs, size)


def _wide(space: str) -> bool:
    return space in ("global", "generic")


@semantics("LDG", "LDS", "LDL", "LD", family="memory", mods=CACHE_MODS + ("U",),
           doc="load 1, 2, 4, 8 or 16 bytes per lane (sign- or zero-extended to 32 bits)")
def load(ins):
    if "U" in ins.mods and ins.opcode == "LDS":
        pass                                    # LDS.U: a uniform address, same result
    space = SPACE_OF[ins.opcode]
    size, signed = access_width(ins)
    dst, address = ins.operands[0], ins.operands[-1]
    if address.kind != "mem":
        raise Unsupported("operand form")
    read_address = address_reader(address, _wide(space))
    write = dest(dst, 128 if size == 16 else 64 if size == 8 else 32)

    def run(st, g):
        addrs = read_address(st, g)
        values = None
        for mask, target, name in resolve(st, ins, g, space, addrs, size):
            raw = target.gather(size)
            if mask is None:
                values = bytes_to_words(raw, size, signed)
            else:
                part = bytes_to_words(raw, size, signed)
                if values is None:
                    values = [np.zeros(g.n, dtype=U32) for _ in range(4)] if size == 16 else \
                        np.zeros(g.n, dtype=part.dtype)
                if size == 16:
                    for k in range(4):
                        values[k][mask] = part[k]
                else:
                    values[mask] = part
            if st.memory_observers:
                sub_idx = g.idx if mask is None else g.idx[mask]
                sub_addrs = addrs if mask is None else addrs[mask]
                notify(st, ins, name, "ld", sub_idx, sub_addrs, size)
        write(st, g, values)
    return Step(ins, run, memory=(space, "ld", size))


def store_data_readers(op, size: int):
    """Readers of the 32-bit words a store writes: one per register of the width."""
    if op.kind != "reg":
        raise Unsupported(f"store data {op.text}")
    words = max(1, size // 4)
    if op.number is None:
        return [source(op)] * words
    rows = [op.number + k for k in range(words)]
    return [(lambda st, g, row=row: st.R[row][g.sel]) for row in rows]


@semantics("STG", "STS", "STL", "ST", family="memory", mods=CACHE_MODS,
           doc="store 1, 2, 4, 8 or 16 bytes per lane")
def store(ins):
    space = SPACE_OF[ins.opcode]
    size, _ = access_width(ins)
    address, data = ins.operands[0], ins.operands[-1]
    if address.kind != "mem":
        raise Unsupported("operand form")
    read_address = address_reader(address, _wide(space))
    readers = store_data_readers(data, size)

    def run(st, g):
        addrs = read_address(st, g)
        raw = words_to_bytes([r(st, g) for r in readers], size, g.n)
        for mask, target, name in resolve(st, ins, g, space, addrs, size):
            target.scatter(raw if mask is None else raw[mask])
            if st.memory_observers:
                notify(st, ins, name, "st", g.idx if mask is None else g.idx[mask],
                       addrs if mask is None else addrs[mask], size)
        st.writes += 1
    return Step(ins, run, memory=(space, "st", size))


@semantics("LDC", "ULDC", family="memory", mods=("U8", "S8", "U16", "S16", "64", "IL"),
           doc="load from a constant bank (c[0x0] the driver's: dimensions, stack top, parameters)")
def ldc(ins):
    size, signed = access_width(ins)
    dst, const = ins.operands[:2]
    if const.kind != "const":
        raise Unsupported("operand form")
    read = const_reader(const, size)

    def value(st, g):
        v = read(st, g)
        if size < 4:
            v = np.asarray(v, dtype=np.uint64)
            if signed:
                bits = 8 * size
                v = np.where(v >> np.uint64(bits - 1), v | (np.uint64(0xFFFFFFFF) << np.uint64(bits)), v)
            return (v & np.uint64(0xFFFFFFFF)).astype(U32)
        return v
    write = dest(dst, 64 if size == 8 else 32)
    return Step(ins, lambda st, g: write(st, g, value(st, g)))
