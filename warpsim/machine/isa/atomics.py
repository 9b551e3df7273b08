"""Atomics: atom and red, scalar and vector (.v2/.v4), exact under conflicts.

The table entry, load-time check, emitter and runtime of atom/red. RMW below
is the one list of atomic operations: the check accepts its keys, the emitter
picks the instruction's operation from it, and the runtime applies it.

Each is an exact read-modify-write of the launch's memory. Lanes that hit the same address are serialized in thread order, so every lane
gets the old value some sequential order would have given it and the memory
ends with that order's final value. No-conflict accesses are one gather and
one scatter; integer adds use a segmented scan; other conflicts run in rounds
(one lane per address per round) or per address group, whichever is fewer.
"""

from __future__ import annotations

import numpy as np

from ...errors import MemoryFault
from ...ptx.ir import Sink
from ...ptx.types import TYPES
from .. import access
from .table import MEMORY, emitted


def _f16x2_add(old, b):
    pairs = old.view(np.float16) + np.asarray(b, dtype=old.dtype).view(np.float16)
    return pairs.view(old.dtype)


def _bf16x2_add(old, b):
    def unpack(w):
        w = np.asarray(w, dtype=np.uint32)
        return ((w & 0xFFFF) << 16).view(np.float32), (w & 0xFFFF0000).view(np.float32)
    lo_a, hi_a = unpack(old)
    lo_b, hi_b = unpack(b)
    return (_to_bf16(lo_a + lo_b) | (_to_bf16(hi_a + hi_b) << 16)).astype(old.dtype)


def _to_bf16(x):
    """f32 -> bf16 bits, round to nearest even; NaN -> canonical 0x7fff."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(x), np.uint32(0x7FFF), rounded).astype(np.uint32)


def _add(old, b, c):
    return old + b


def _inc(old, b, c):
    # atom.inc: ((old >= b) ? 0 : old + 1), unsigned compare
    return np.where(old >= b, np.zeros_like(old), old + old.dtype.type(1))


def _dec(old, b, c):
    # atom.dec: ((old == 0) || (old > b)) ? b : old - 1
    return np.where((old == 0) | (old > b), b.astype(old.dtype, copy=False), old - old.dtype.type(1))


def _cas(old, b, c):
    return np.where(old == b, c, old)


def _float_min(old, b, c):
    return np.fmin(old, b)


def _float_max(old, b, c):
    return np.fmax(old, b)


# The atomic operations: op -> (function of (old, b, c), ufunc whose accumulate
# serializes a group or None). atom/red accept exactly these.
RMW = {
    "add": (_add, np.add),
    "min": (lambda old, b, c: np.minimum(old, b), np.minimum),
    "max": (lambda old, b, c: np.maximum(old, b), np.maximum),
    "inc": (_inc, None),
    "dec": (_dec, None),
    "cas": (_cas, None),
    "exch": (lambda old, b, c: np.broadcast_to(b, old.shape).astype(old.dtype), None),
    "and": (lambda old, b, c: old & b, np.bitwise_and),
    "or": (lambda old, b, c: old | b, np.bitwise_or),
    "xor": (lambda old, b, c: old ^ b, np.bitwise_xor),
}


ATOMIC_OPS = tuple(RMW)


def _bf16_add(old, b):
    f32 = lambda h: (np.asarray(h, dtype=np.uint32) << 16).view(np.float32)
    return _to_bf16(f32(old) + f32(b)).astype(np.uint16)


def rmw_function(op: str, type_name: str):
    """(function, accumulate ufunc or None) for atom.<op>.<type>."""
    if type_name == "f16" and op == "add":          # float16 adds round each step: sequential RN
        return (lambda old, b, c: old + b), np.add
    if type_name == "bf16" and op == "add":
        return (lambda old, b, c: _bf16_add(old, b)), None
    if type_name == "f16x2" and op == "add":
        return (lambda old, b, c: _f16x2_add(old, b)), None
    if type_name == "bf16x2" and op == "add":
        return (lambda old, b, c: _bf16x2_add(old, b)), None
    if type_name in ("f32", "f64") and op in ("min", "max"):
        return (_float_min, np.fmin) if op == "min" else (_float_max, np.fmax)
    return RMW[op]


def atomic_apply(view: np.ndarray, slots: np.ndarray, op, b, c, integer_add: bool,
                 accumulate=None):
    """Apply op at view[slots] lane by lane; returns each lane's old value."""
    n = len(slots)
    b = np.broadcast_to(b, (n,)) if b is not None else None
    c = np.broadcast_to(c, (n,)) if c is not None else None
    order = np.argsort(slots, kind="stable")
    s = slots[order]
    first = np.ones(n, dtype=bool)
    first[1:] = s[1:] != s[:-1]
    old = np.empty(n, dtype=view.dtype)
    if first.all():
        o = view[s]
        old[order] = o
        view[s] = op(o, b[order] if b is not None else None, c[order] if c is not None else None)
        return old
    bs = b[order] if b is not None else None
    cs = c[order] if c is not None else None
    starts = np.flatnonzero(first)
    if integer_add:
        # Segmented exclusive scan with wrap-around arithmetic.
        incl = np.cumsum(bs, dtype=view.dtype)
        group = np.cumsum(first) - 1
        before = np.concatenate([[view.dtype.type(0)], incl])[starts][group]
        base = view[s[starts]][group]
        excl = incl - bs - before
        old[order] = base + excl
        ends = np.append(starts[1:], n) - 1
        view[s[starts]] = base[starts] + (incl[ends] - before[starts])
        return old
    rank = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    rounds = int(rank.max()) + 1
    result = np.empty(n, dtype=view.dtype)
    if rounds <= len(starts):
        for r in range(rounds):
            sel = np.flatnonzero(rank == r)
            o = view[s[sel]]
            result[sel] = o
            view[s[sel]] = op(o, bs[sel] if bs is not None else None, cs[sel] if cs is not None else None)
    else:
        bounds = np.append(starts, n)
        for g in range(len(starts)):
            lo, hi = bounds[g], bounds[g + 1]
            cur = view[s[lo]]
            if accumulate is not None:
                # Sequential in thread order: accumulate never reassociates.
                chain = accumulate.accumulate(np.concatenate([[cur], bs[lo:hi]]).astype(view.dtype))
                result[lo:hi] = chain[:-1]
                view[s[lo]] = chain[-1]
                continue
            for k in range(lo, hi):
                result[k] = cur
                cur = op(np.array([cur]), bs[k:k + 1] if bs is not None else None,
                         cs[k:k + 1] if cs is not None else None)[0]
            view[s[lo]] = cur
    old[order] = result
    return old


# ------------------------------------------------------------ check and emitter

def check_atomic(ins):
    if not (set(ins.mods) & set(ATOMIC_OPS)):
        return f"atomic operation not supported ({'/'.join(ATOMIC_OPS)} are)"
    if ins.type == "b16":               # atom.cas.b16 (sm_70+): 16-bit compare-and-swap only
        return None if "cas" in ins.mods else "16-bit atomics other than cas are not in PTX"
    if ins.type not in ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16x2", "bf16x2",
                        "f16", "bf16"):
        return f"atomic type .{ins.type} not supported"
    if ins.type in ("f16", "bf16") and "add" not in ins.mods:
        return "scalar f16/bf16 atomics other than add are not supported"
    vector = any(m in ("v2", "v4", "v8") for m in ins.mods)
    if vector and not ({"add", "min", "max"} & set(ins.mods) and ins.type in ("f32", "f16x2", "bf16x2", "f16", "bf16")):
        return "vector atomics are add/min/max on f32, f16 and bf16 (pairs)"
    return None


def operation_of(ins) -> str:
    """The instruction's atomic operation (the check made sure it has one)."""
    return next(m for m in ins.mods if m in ATOMIC_OPS)


@emitted("atom", "red", family="atomics", kind=MEMORY, pipe="lsu", check=check_atomic)
def emit_atomic(c, ins):
    op = operation_of(ins)
    addr = ins.srcs[0]
    expr, space = c.address(addr, access.space_of(ins))
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if access.vector_count(ins) > 1:
        return emit_vector_atomic(c, ins, op, space, a)
    return emit_scalar_atomic(c, ins, op, space, a, ins.srcs[1:],
                              ins.dsts[0] if ins.opcode == "atom" else None)


def emit_vector_atomic(c, ins, op, space, a):
    """atom/red .v2/.v4: one exact atomic per element, at consecutive addresses."""
    values = ins.srcs[1].items
    dsts = ins.dsts[0].items if ins.opcode == "atom" else [None] * len(values)
    size = TYPES[ins.type].nbytes
    for k, (value, dst) in enumerate(zip(values, dsts)):
        element = c.fresh("addr")
        c.emit(f"{element} = {a} + np.uint64({k * size})")
        emit_scalar_atomic(c, ins, op, space, element, (value,), None if isinstance(dst, Sink) else dst)
    return False


def emit_scalar_atomic(c, ins, op, space, a, operands, dst):
    t = ins.type
    site = c.site(ins)
    sel_idx, sel = c.selected()
    args = []
    for item in operands:
        v = f"fit({c.typed(item, t)}, n)"
        args.append(f"{v}[{sel}]" if sel else v)
    while len(args) < 2:
        args.append("None")
    a_sel = f"{a}[{sel}]" if sel else a
    old = c.fresh("old")
    c.emit(f"{old} = atomics.apply(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, "
           f"{c.const(TYPES[t], t)}, {op!r}, {args[0]}, {args[1]})")
    if dst is not None:
        c.write_selected(dst, t, old, sel)
    return False


# ------------------------------------------------------------ runtime

def apply(ctx, site, idx, space, addrs, ptype, op, b, c):
    """atom/red: each lane's old value; conflicting lanes serialized in thread order."""
    size = ptype.nbytes
    if space == "generic":
        old = np.zeros(len(idx), dtype=ptype.dtype)
        for name, sel in access.split_generic(addrs):
            if sel is None:
                return apply(ctx, site, idx, name, addrs, ptype, op, b, c)
            old[sel] = apply(ctx, site, idx[sel], name, addrs[sel], ptype, op,
                             None if b is None else b[sel], None if c is None else c[sel])
        return old
    if space not in ("global", "shared"):
        raise MemoryFault(f"atomic on the {space} state space", kernel=ctx.kernel,
                          ptx_line=site.ins.line, instruction=str(site.ins))
    buf, off = access.resolve(ctx, site, idx, space, addrs, size, True)
    view = buf.view(ptype.dtype)
    fn, accumulate = rmw_function(op, ptype.name)
    integer_add = op == "add" and ptype.kind in ("u", "s", "b") and ptype.bits >= 32 and \
        ptype.name not in ("f16x2", "bf16x2")          # packed float pairs are not integers
    old = atomic_apply(view, off // size, fn, b, c, integer_add, accumulate)
    # Progress only if memory changed: atomicAdd(flag, 0) or a failed CAS in a spin loop is none.
    ctx.writes += not ctx.changes_only or old.tobytes() != view[off // size].tobytes()
    if space == "global":
        if buf is ctx.memory.buffer:
            ctx.memory.initialized[off[:, None] + np.arange(size)] = True
        else:                                       # lanes in host ranges
            ctx.memory.mark_written(addrs, size)
    for obs in ctx.memory_observers:
        obs.memory_access(ctx, site, space, "atomic", idx, addrs, size, 1)
    return old
