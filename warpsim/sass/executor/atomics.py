"""Atomics: ATOMG ATOMS ATOM (with a result) and RED/REDG (without), every operation exact.

Lanes of one instruction that name the same address are applied one after
another in lane order (warp by warp, as the group lists them), so each
returned old value is what that lane saw; lanes at different addresses are
applied together. What each operation computes and how conflicts are served
is semantics/atomics.py, which PTX's atom/red call too: .CAS compares and
swaps (operands: compare value, then new value); .INC/.DEC wrap at the
operand as atom.inc/dec do; .F32 adds round each step to f32 (the final value
depends on the order lanes are served, as on the hardware, unless the sums
are exact); .F16x2/.BF16x2 adds round each half as atom.add.noftz.f16x2 does.

`ATOM.E.ADD.F16x2 P, Rd, [a], Rb` (and .BF16x2) is ptxas's atomicAdd on a __half2
through a generic pointer: the unit adds only at global addresses, and P says
where it did. Where P is false ptxas's code asks the space (QSPC.E.S) and adds
with a CAS loop in shared memory (ATOMS.CAST.SPIN), or with a load and a store
in local memory; the executor leaves memory and Rd alone on those lanes.
"""

from __future__ import annotations

import numpy as np

from ...semantics.addresses import generic_space
from ...semantics.atomics import update
from .access import address_reader, resolve
from .memory import CACHE_MODS, notify
from .operands import U32, U64, dest, pred_dest, source
from .table import Step, Unsupported, semantics

OPS = ("ADD", "MIN", "MAX", "EXCH", "CAS", "AND", "OR", "XOR", "INC", "DEC")
TYPES = {"U32": (np.uint32, 4), "S32": (np.int32, 4), "U64": (np.uint64, 8), "S64": (np.int64, 8),
         "64": (np.uint64, 8), "F32": (np.float32, 4), "F64": (np.float64, 8),
         "F16x2": (np.uint32, 4), "BF16x2": (np.uint32, 4)}
PTX_TYPE_OF = {np.dtype(np.uint32): "u32", np.dtype(np.int32): "s32", np.dtype(np.uint64): "u64",
               np.dtype(np.int64): "s64", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
PACKED_HALVES = {"F16x2": "f16x2", "BF16x2": "bf16x2"}     # a word of two halves: PTX's type, not the dtype's
FLOAT_ADD_ONLY = ("F32", "F64") + tuple(PACKED_HALVES)
SPACE_OF = {"ATOMG": "global", "REDG": "global", "ATOMS": "shared", "ATOM": "generic", "RED": "generic"}


def apply_atomic(array, offsets, op: str, dtype, a, b=None, type_name: str | None = None) -> np.ndarray:
    """Apply one atomic instruction's lanes in lane order; the old value each lane saw.

    `op` is the SASS operation (ADD ... DEC), `a` its operand (CAS: the
    compare value) and `b` CAS's new value; semantics/atomics.py computes,
    on PTX's `type_name` (default: the one of `dtype`).
    """
    size = np.dtype(dtype).itemsize
    type_name = type_name or PTX_TYPE_OF[np.dtype(dtype)]
    with np.errstate(over="ignore", invalid="ignore"):
        return update(array.view(dtype), offsets // size, op.lower(), type_name,
                      np.asarray(a, dtype=dtype), None if b is None else np.asarray(b, dtype=dtype))


def _parse(ins):
    op = next((m for m in ins.mods if m in OPS), None)
    if op is None:
        raise Unsupported("atomic operation")
    names = [m for m in ins.mods if m in TYPES]
    type_name = names[-1] if names else "U32"
    if type_name in FLOAT_ADD_ONLY and op != "ADD":
        raise Unsupported(f"atomic {op} on {type_name}")
    return op, type_name


ATOMIC_MODS = CACHE_MODS + OPS + tuple(TYPES) + ("FTZ", "RN", "POPC", "32", "CAST", "SPIN")


@semantics("ATOMG", "ATOMS", "ATOM", "REDG", "RED", family="atomics",
           pipe=("global", "shared", "global", "global", "global"), mods=ATOMIC_MODS,
           doc="read-modify-write: ADD MIN MAX EXCH CAS AND OR XOR INC DEC on 32/64-bit integers, F32/F64 "
               "ADD, F16x2/BF16x2 ADD (ATOM: at global addresses, its predicate says which lanes); "
               "ATOM* return the old value, RED* do not")
def atomic(ins):
    if "POPC" in ins.mods:
        return popc_increment(ins)
    if "CAST" in ins.mods:
        return compare_and_store(ins)
    op, type_name = _parse(ins)
    dtype, size = TYPES[type_name]
    space = SPACE_OF[ins.opcode]
    ops = list(ins.operands)
    done = None
    if ops and ops[0].kind == "pred":
        done = ops.pop(0)
    global_only = type_name in PACKED_HALVES and space == "generic"
    done = pred_dest(done) if global_only and done is not None else None
    if global_only and done is None:
        raise Unsupported(f"{ins.opcode}.{type_name} without its predicate")
    ptx_type = PACKED_HALVES.get(type_name)
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
        if global_only:                     # the other lanes are the code after it's (P false)
            at_global = generic_space(addrs) == 0
            done(st, g, at_global)
            if not at_global.all():
                g, addrs, a, old = g.subset(at_global), addrs[at_global], a[at_global], old[at_global]
                if not g.n:
                    return
        for mask, target, name in resolve(st, ins, g, space, addrs, size):
            pick = slice(None) if mask is None else mask
            old[pick] = apply_atomic(target.array, target.offsets, op, dtype, a[pick],
                                     None if b is None else b[pick], ptx_type)
            if st.memory_observers:
                notify(st, ins, name, kind, g.idx[pick], addrs[pick], size)
        st.writes += 1
        if write is not None:
            write(st, g, old.view(U64 if size == 8 else U32))
    return Step(ins, run, memory=(space, kind, size))


def _shared_operands(ins, count: int):
    """(destination, address reader, value operands) of an ATOMS form with `count` value operands."""
    ops = list(ins.operands)
    if ins.opcode != "ATOMS" or len(ops) != 2 + count or ops[0].kind != "reg" or ops[1].kind != "mem":
        raise Unsupported(f"{ins.opcode}.{'.'.join(ins.mods)} form")
    return ops[0], address_reader(ops[1], False), ops[2:]


def popc_increment(ins):
    """ATOMS.POPC.INC.32 [a]: ptxas's atomicAdd(&shared, 1): the word gains one per issuing lane (the
    hardware adds each address's lane count at once); a destination gets the old value each lane saw
    in lane order, as ADD's."""
    if set(ins.mods) != {"POPC", "INC", "32"}:
        raise Unsupported("ATOMS.POPC form")
    dst, address, _ = _shared_operands(ins, 0)
    write = dest(dst)

    def run(st, g):
        addrs = address(st, g)
        (_, target, name), = resolve(st, ins, g, "shared", addrs, 4)
        old = apply_atomic(target.array, target.offsets, "ADD", np.uint32, np.ones(g.n, dtype=np.uint32))
        if st.memory_observers:
            notify(st, ins, name, "atom", g.idx, addrs, 4)
        st.writes += 1
        write(st, g, old)
    return Step(ins, run, memory=("shared", "atom", 4))


def compare_and_store(ins):
    """ATOMS.CAST.SPIN{.64} Rd, [a], Rc, Rn: ptxas's CAS loop on shared memory (a 64-bit atomicAdd):
    the word becomes Rn where it equals Rc, lanes served in lane order; Rd gets 1 where the store
    happened and 0 where it did not (a register pair for .64), which the loop tests to retry."""
    if not set(ins.mods) <= {"CAST", "SPIN", "64"} or "SPIN" not in ins.mods:
        raise Unsupported("ATOMS.CAST form")
    wide = "64" in ins.mods
    dtype, size = (np.uint64, 8) if wide else (np.uint32, 4)
    dst, address, (compare, new) = _shared_operands(ins, 2)
    write, read_compare, read_new = dest(dst, 8 * size), source(compare, 8 * size), source(new, 8 * size)

    def run(st, g):
        addrs = address(st, g)
        expected = np.broadcast_to(np.asarray(read_compare(st, g), dtype=dtype), (g.n,))
        (_, target, name), = resolve(st, ins, g, "shared", addrs, size)
        old = apply_atomic(target.array, target.offsets, "CAS", dtype, expected,
                           np.broadcast_to(np.asarray(read_new(st, g), dtype=dtype), (g.n,)))
        if st.memory_observers:
            notify(st, ins, name, "atom", g.idx, addrs, size)
        st.writes += 1
        write(st, g, (old == expected).astype(dtype))
    return Step(ins, run, memory=("shared", "atom", size))
