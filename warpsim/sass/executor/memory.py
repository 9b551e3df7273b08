"""Loads and stores: LDG STG LDS STS LDL STL LD ST (generic), LDC ULDC (constant banks), LDGSTS
(cp.async), LDSM (ldmatrix), STSM (stmatrix); QSPC (which space a generic address is in).

Widths come from the modifiers (.U8 .S8 .U16 .S16, none = 32 bits, .64, .128:
consecutive registers); .E (64-bit addresses), cache and ordering modifiers
(.STRONG.GPU, .CONSTANT, .EF, .LU, ...) change nothing a single launch can
observe. Observers see every access (space, kind, lanes, addresses, bytes per
lane) for the counters.

`LDGSTS [shared], [global], P` is cp.async: lanes where P holds copy 4, 8 or
16 bytes from global to shared memory, the others write zeros there (PTX's
src-size 0) and read nothing. The executor completes the copy at once: a
program that waits for it (LDGDEPBAR's group, `DEPBAR.LE SB0, n`, a barrier)
before reading the shared bytes sees the same values, and one that does not
has a race. `LDSM.16.M88[.2|.4]` / `.MT88` is ldmatrix with the PTX machine's
lane-to-element map (machine.isa.tensor.matrix_element_addresses), and
`STSM.16.M88[.2|.4]` / `.MT88` its inverse, stmatrix, with the same map.
"""

from __future__ import annotations

import numpy as np

from ...machine.isa.tensor import matrix_element_addresses
from .access import access_width, address_reader, bytes_to_words, resolve, words_to_bytes
from ...semantics.addresses import generic_space
from ..compiled.global_access import GlobalAccess
from .operands import U32, const_reader, dest, pred_dest, predicate, source
from .table import Step, Unsupported, semantics

CACHE_MODS = ("E", "STRONG", "GPU", "SYS", "SM", "CTA", "CONSTANT", "EF", "EL", "LU", "EN", "NA", "ZD",
              "WEAK", "MMIO", "PRIVATE", "LTC64B", "LTC128B", "LTC256B", "BYPASS", "64", "128", "U8",
              "S8", "U16", "S16", "8", "16", "32", "VOLATILE", "RELEASE", "ACQUIRE")
SPACE_OF = {"LDG": "global", "STG": "global", "LDS": "shared", "STS": "shared", "LDL": "local",
            "STL": "local", "LD": "generic", "ST": "generic"}


def notify(st, ins, space, kind, idx, addrs, size):
    for observer in st.memory_observers:
        observer.sass_memory_access(st, ins, space, kind, idx, addrs, size)


def _wide(space: str) -> bool:
    return space in ("global", "generic")


@semantics("LDG", "LDS", "LDL", "LD", family="memory", pipe=("global", "shared", "local", "global"),
           mods=CACHE_MODS + ("U",),
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
    compiled = GlobalAccess.of(ins, "ld", size, signed, address, dst) if space == "global" else None

    def run(st, g):
        if compiled is not None and st.compiled_memory and compiled.run(st, g):
            return
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


@semantics("STG", "STS", "STL", "ST", family="memory", pipe=("global", "shared", "local", "global"), mods=CACHE_MODS,
           doc="store 1, 2, 4, 8 or 16 bytes per lane")
def store(ins):
    space = SPACE_OF[ins.opcode]
    size, _ = access_width(ins)
    address, data = ins.operands[0], ins.operands[-1]
    if address.kind != "mem":
        raise Unsupported("operand form")
    read_address = address_reader(address, _wide(space))
    readers = store_data_readers(data, size)
    compiled = GlobalAccess.of(ins, "st", size, False, address, data) if space == "global" else None

    def run(st, g):
        if compiled is not None and st.compiled_memory and compiled.run(st, g):
            return
        addrs = read_address(st, g)
        raw = words_to_bytes([r(st, g) for r in readers], size, g.n)
        for mask, target, name in resolve(st, ins, g, space, addrs, size):
            target.scatter(raw if mask is None else raw[mask])
            if st.memory_observers:
                notify(st, ins, name, "st", g.idx if mask is None else g.idx[mask],
                       addrs if mask is None else addrs[mask], size)
        st.writes += 1
    return Step(ins, run, memory=(space, "st", size))


QSPC_SPACES = {"G": 0, "S": 1, "L": 2}        # semantics.addresses.generic_space's codes


@semantics("QSPC", family="memory", pipe="global", mods=("E",) + tuple(QSPC_SPACES),
           doc="P = the generic address is in the space named (.G global, .S shared, .L local): isspacep, "
               "and ptxas's test after an ATOM.F16x2 that only global addresses take (pipe not measured)")
def qspc(ins):
    space = [QSPC_SPACES[m] for m in ins.mods if m in QSPC_SPACES]
    ops = ins.operands
    if len(space) != 1 or len(ops) != 3 or not ops[1].is_zero_register or ops[2].kind != "mem":
        raise Unsupported("QSPC form")
    write, address = pred_dest(ops[0]), address_reader(ops[2], "E" in ins.mods)

    def run(st, g):
        write(st, g, generic_space(address(st, g)) == space[0])
    return Step(ins, run)


@semantics("LDC", "ULDC", family="memory", pipe="constant", mods=("U8", "S8", "U16", "S16", "64", "IL"),
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


@semantics("LDGSTS", family="memory", pipe="global", mods=CACHE_MODS + ("ZFILL",),
           doc="cp.async: 4, 8 or 16 bytes per lane from global to shared; lanes whose predicate operand is "
               "false write zeros and read nothing; done at once (its waits, LDGDEPBAR and DEPBAR, have nothing left)")
def ldgsts(ins):
    size, _ = access_width(ins)
    ops = list(ins.operands)
    if len(ops) not in (2, 3) or ops[0].kind != "mem" or ops[1].kind != "mem":
        raise Unsupported("operand form")
    read_shared, read_global = address_reader(ops[0], False), address_reader(ops[1], True)
    copies = predicate(ops[2]) if len(ops) == 3 else None

    def run(st, g):
        copy = np.ones(g.n, dtype=bool) if copies is None else \
            np.broadcast_to(np.asarray(copies(st, g), dtype=bool), (g.n,))
        raw = np.zeros((g.n, size), dtype=np.uint8)
        if copy.any():
            sub, src = g.subset(copy), read_global(st, g)[copy]
            for _, target, name in resolve(st, ins, sub, "global", src, size):
                raw[copy] = target.gather(size)
                if st.memory_observers:
                    notify(st, ins, name, "ld", sub.idx, src, size)
        dst = read_shared(st, g)
        for mask, target, name in resolve(st, ins, g, "shared", dst, size):
            target.scatter(raw if mask is None else raw[mask])
            if st.memory_observers:
                notify(st, ins, name, "st", g.idx, dst, size)
        st.writes += 1
    return Step(ins, run, memory=("global", "ld", size))


@semantics("LDGDEPBAR", family="memory", pipe="global",
           mods=(), doc="close a cp.async group (the copies are already done)")
def ldgdepbar(ins):
    return Step(ins, lambda st, g: None)


LDSM_COUNTS = {(): 1, ("2",): 2, ("4",): 4}


def _matrix_form(ins) -> tuple:
    """(matrices, transposed) of an LDSM/STSM: .16, one of .M88/.MT88, an optional .2/.4, two operands."""
    shape = [m for m in ins.mods if m in ("M88", "MT88")]
    count = LDSM_COUNTS.get(tuple(m for m in ins.mods if m in ("2", "4")))
    if "16" not in ins.mods or len(shape) != 1 or count is None or len(ins.operands) != 2:
        raise Unsupported("operand form")
    return count, shape[0] == "MT88"


@semantics("LDSM", family="memory", pipe="shared", mods=("16", "M88", "MT88", "2", "4"), warp_level=True,
           doc="ldmatrix: .M88 / .MT88 (transposed) 8x8 b16 matrices, .2 / .4 of them; lanes 8j..8j+7 give "
               "matrix j's row addresses, lane l gets row l / 4, columns 2 (l % 4) and + 1")
def ldsm(ins):
    count, transpose = _matrix_form(ins)
    dst, address = ins.operands
    read_address = address_reader(address, False)
    write = dest(dst, 32 * count)

    def load_at(st, ins, g, addrs, size):
        target = resolve(st, ins, g, "shared", addrs, size)[0][1]
        if st.memory_observers:
            notify(st, ins, "shared", "ld", g.idx, addrs, size)
        return bytes_to_words(target.gather(size), size, False)

    def run(st, g):
        addrs = read_address(st, g)
        words = []
        for word_at, halves_at in matrix_element_addresses(st, g.idx, addrs, count, transpose):
            if word_at is not None:
                words.append(load_at(st, ins, g, word_at, 4))
            else:
                low, high = (load_at(st, ins, g, at, 2) for at in halves_at)
                words.append(low | (high << U32(16)))
        if count == 1:
            write(st, g, words[0])
        elif count == 2:
            write(st, g, words[0].astype(np.uint64) | (words[1].astype(np.uint64) << np.uint64(32)))
        else:
            write(st, g, words)
    return Step(ins, run, memory=("shared", "ld", 4 * count))


@semantics("STSM", family="memory", pipe="shared", mods=("16", "M88", "MT88", "2", "4"), warp_level=True,
           doc="stmatrix: .M88 / .MT88 (transposed) 8x8 b16 matrices, .2 / .4 of them, from consecutive "
               "registers; lanes 8j..8j+7 give matrix j's row addresses, lane l holds row l / 4, columns "
               "2 (l % 4) and + 1 (LDSM's map)")
def stsm(ins):
    count, transpose = _matrix_form(ins)
    address, data = ins.operands
    if data.kind != "reg":
        raise Unsupported("operand form")
    read_address = address_reader(address, False)
    first = data.number

    def store_at(st, g, addrs, values, size):
        target = resolve(st, ins, g, "shared", addrs, size)[0][1]
        if st.memory_observers:
            notify(st, ins, "shared", "st", g.idx, addrs, size)
        target.scatter(np.ascontiguousarray(values).view(np.uint8).reshape(g.n, size))

    def run(st, g):
        addrs = read_address(st, g)
        for j, (word_at, halves_at) in enumerate(matrix_element_addresses(st, g.idx, addrs, count, transpose)):
            word = np.zeros(g.n, dtype=U32) if first is None else st.R[first + j][g.sel].astype(U32)
            if word_at is not None:
                store_at(st, g, word_at, word, 4)
            else:
                for h, at in enumerate(halves_at):
                    store_at(st, g, at, ((word >> U32(16 * h)) & U32(0xFFFF)).astype(np.uint16), 2)
        st.writes += 1
    return Step(ins, run, memory=("shared", "st", 4 * count))
