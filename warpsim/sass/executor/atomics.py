"""Atomics: ATOMG ATOMS ATOM (with a result) and RED/REDG (without), every operation exact.

Lanes of one instruction that name the same address are applied one after
another in lane order (warp by warp, as the group lists them), so each
returned old value is what that lane saw; lanes at different addresses are
applied together. Integer ADD with many lanes on one address is a segmented
prefix sum; the other operations take one vectorized step per lane rank at an
address. .CAS compares and swaps (operands: compare value, then new value);
.INC/.DEC wrap at the operand as PTX atom.inc/dec do; .F32 adds round each
step to f32 (the final value depends on the order lanes are served, as on the
hardware, unless the sums are exact).
"""

from __future__ import annotations

import numpy as np

from .access import address_reader, resolve
from .memory import CACHE_MODS, notify
from .operands import U32, U64, dest, source
from .table import Step, Unsupported, semantics

OPS = ("ADD", "MIN", "MAX", "EXCH", "CAS", "AND", "OR", "XOR", "INC", "DEC")
TYPES = {"U32": (np.uint32, 4), "S32": (np.int32, 4), "U64": (np.uint64, 8), "S64": (np.int64, 8),
         "64": (np.uint64, 8), "F32": (np.float32, 4), "F64": (np.float64, 8)}
SPACE_OF = {"ATOMG": "global", "REDG": "global", "ATOMS": "shared", "ATOM": "generic", "RED": "generic"}


def combine(op: str, dtype):
    """new = f(current, a, b) for one step of an atomic."""
    if op == "ADD":
        return lambda cur, a, b: (cur + a).astype(dtype)
    if op == "MIN":
        return lambda cur, a, b: np.minimum(cur, a)
    if op == "MAX":
        return lambda cur, a, b: np.maximum(cur, a)
    if op == "EXCH":
        return lambda cur, a, b: a
    if op == "CAS":
        return lambda cur, a, b: np.where(cur == a, b, cur)
    if op == "AND":
        return lambda cur, a, b: cur & a
    if op == "OR":
        return lambda cur, a, b: cur | a
    if op == "XOR":
        return lambda cur, a, b: cur ^ a
    if op == "INC":
        return lambda cur, a, b: np.where(cur >= a, dtype(0), cur + dtype(1)).astype(dtype)
    if op == "DEC":
        return lambda cur, a, b: np.where((cur == 0) | (cur > a), a, cur - dtype(1)).astype(dtype)
    raise Unsupported(f"atomic {op}")


def apply_atomic(array, offsets, op: str, dtype, a, b=None) -> np.ndarray:
    """Apply one atomic instruction's lanes in order; the old value each lane saw."""
    size = np.dtype(dtype).itemsize
    typed = array.view(dtype)
    position = offsets // size
    unique, inverse = np.unique(position, return_inverse=True)
    inverse = inverse.ravel()
    current = typed[unique].copy()
    a = np.asarray(a, dtype=dtype)
    b = np.asarray(b, dtype=dtype) if b is not None else a
    step = combine(op, dtype)
    counts = np.bincount(inverse)
    with np.errstate(over="ignore", invalid="ignore"):
        if counts.max() == 1:
            old = current[inverse]
            current[inverse] = step(old, a, b)
        elif op == "ADD" and np.dtype(dtype).kind in "iu":
            order = np.argsort(inverse, kind="stable")
            wide = a[order].astype(np.uint64) if np.dtype(dtype).kind == "u" else \
                a[order].astype(np.int64).view(np.uint64)
            running = np.cumsum(wide, dtype=np.uint64)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            before = running - wide - np.where(starts > 0, running[starts - 1], 0)[inverse[order]]
            old = np.empty(len(a), dtype=dtype)
            old[order] = (current[inverse[order]].astype(np.uint64) + before).astype(dtype) \
                if np.dtype(dtype).kind == "u" else \
                (current[inverse[order]].astype(np.int64).view(np.uint64) + before).view(np.int64).astype(dtype)
            totals = np.add.reduceat(wide, starts)
            if np.dtype(dtype).kind == "u":
                current = (current.astype(np.uint64) + totals).astype(dtype)
            else:
                current = (current.astype(np.int64).view(np.uint64) + totals).view(np.int64).astype(dtype)
        else:
            order = np.argsort(inverse, kind="stable")
            rank = np.empty(len(a), dtype=np.int64)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            rank[order] = np.arange(len(a)) - np.repeat(starts, counts)
            old = np.empty(len(a), dtype=dtype)
            for r in range(int(counts.max())):
                lanes = np.flatnonzero(rank == r)
                groups = inverse[lanes]
                old[lanes] = current[groups]
                current[groups] = step(current[groups], a[lanes], b[lanes])
    typed[unique] = current
    return old


def _parse(ins):
    op = next((m for m in ins.mods if m in OPS), None)
    if op is None:
        raise Unsupported("atomic operation")
    names = [m for m in ins.mods if m in TYPES]
    type_name = names[-1] if names else "U32"
    if type_name == "F32" and op != "ADD" or type_name == "F64" and op != "ADD":
        raise Unsupported(f"atomic {op} on {type_name}")
    return op, type_name


ATOMIC_MODS = CACHE_MODS + OPS + tuple(TYPES) + ("FTZ", "RN", "POPC")


@semantics("ATOMG", "ATOMS", "ATOM", "REDG", "RED", family="atomics",
           pipe=("global", "shared", "global", "global", "global"), mods=ATOMIC_MODS,
           doc="read-modify-write: ADD MIN MAX EXCH CAS AND OR XOR INC DEC on 32/64-bit integers, F32/F64 ADD; "
               "ATOM* return the old value, RED* do not")
def atomic(ins):
    op, type_name = _parse(ins)
    if "POPC" in ins.mods:
        raise Unsupported("ATOMS.POPC")
    dtype, size = TYPES[type_name]
    space = SPACE_OF[ins.opcode]
    ops = list(ins.operands)
    if ops and ops[0].kind == "pred":
        ops.pop(0)
    returns = ins.opcode.startswith("ATOM")
    dst = ops.pop(0) if returns else None
    if not ops or ops[0].kind != "mem":
        raise Unsupported("operand form")
    address = address_reader(ops.pop(0), space in ("global", "generic"))
    bits = 64 if size == 8 else 32
    values = [source(op_, bits) for op_ in ops]
    if len(values) != (2 if op == "CAS" else 1):
        raise Unsupported("operand form")
    write = dest(dst, bits) if dst is not None else None
    kind = "atom" if returns else "red"

    def run(st, g):
        addrs = address(st, g)
        a = np.broadcast_to(np.asarray(values[0](st, g)), (g.n,))
        b = np.broadcast_to(np.asarray(values[1](st, g)), (g.n,)) if op == "CAS" else None
        a = a.view(dtype) if a.dtype.itemsize == np.dtype(dtype).itemsize else a.astype(dtype)
        if b is not None:
            b = b.view(dtype) if b.dtype.itemsize == np.dtype(dtype).itemsize else b.astype(dtype)
        old = np.zeros(g.n, dtype=dtype)
        for mask, target, name in resolve(st, ins, g, space, addrs, size):
            pick = slice(None) if mask is None else mask
            old[pick] = apply_atomic(target.array, target.offsets, op, dtype, a[pick],
                                     None if b is None else b[pick])
            if st.memory_observers:
                notify(st, ins, name, kind, g.idx[pick], addrs[pick], size)
        st.writes += 1
        if write is not None:
            write(st, g, old.view(U64 if size == 8 else U32))
    return Step(ins, run, memory=(space, kind, size))
