"""What an atomic read-modify-write computes, and how conflicting lanes are served.

PTX's atom/red and SASS's ATOM/ATOMG/ATOMS/RED/REDG name the same operations
(add, min, max, inc, dec, cas, exch, and, or, xor) on the same types; each
decoder reads its own modifiers, names the operation and PTX's type name, and
calls `update`. Lanes of one instruction that hit the same word are served one
after another in lane order, so every lane gets the old value some sequential
order would have given it and memory ends with that order's final value (as
on the GPU; float adds round each step, so their sum depends on the order).
Integer arithmetic wraps around; inc and dec wrap at the operand (unsigned
compare); float min and max return the other operand when one is NaN.
"""

from __future__ import annotations

import re

import numpy as np


def _to_bf16(x):
    """f32 -> bf16 bits, round to nearest even; NaN -> canonical 0x7fff."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(x), np.uint32(0x7FFF), rounded).astype(np.uint32)


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


def _bf16_add(old, b):
    f32 = lambda h: (np.asarray(h, dtype=np.uint32) << 16).view(np.float32)
    return _to_bf16(f32(old) + f32(b)).astype(np.uint16)


def _add(old, b, c):
    return old + b


def _inc(old, b, c):
    # inc: ((old >= b) ? 0 : old + 1), unsigned compare
    return np.where(old >= b, np.zeros_like(old), old + old.dtype.type(1))


def _dec(old, b, c):
    # dec: ((old == 0) || (old > b)) ? b : old - 1
    return np.where((old == 0) | (old > b), b.astype(old.dtype, copy=False), old - old.dtype.type(1))


def _cas(old, b, c):
    return np.where(old == b, c, old)


def _exch(old, b, c):
    return np.broadcast_to(b, old.shape).astype(old.dtype)


def _float_min(old, b, c):
    return np.fmin(old, b)


def _float_max(old, b, c):
    return np.fmax(old, b)


# The atomic operations: op -> (function of (old, b, c), ufunc whose accumulate
# serializes a group or None). b is the operand (cas: the compare value), c
# cas's new value. atom/red and ATOM*/RED* accept exactly these.
RMW = {
    "add": (_add, np.add),
    "min": (lambda old, b, c: np.minimum(old, b), np.minimum),
    "max": (lambda old, b, c: np.maximum(old, b), np.maximum),
    "inc": (_inc, None),
    "dec": (_dec, None),
    "cas": (_cas, None),
    "exch": (_exch, None),
    "and": (lambda old, b, c: old & b, np.bitwise_and),
    "or": (lambda old, b, c: old | b, np.bitwise_or),
    "xor": (lambda old, b, c: old ^ b, np.bitwise_xor),
}

ATOMIC_OPS = tuple(RMW)
# the operations whose updates combine in any order (those with an accumulating ufunc), and those whose
# result is one update's value (which one depends on the order the updates came in)
ORDER_FREE_OPS = tuple(op for op, (_, accumulate) in RMW.items() if accumulate is not None)
ONE_VALUE_OPS = ("cas", "exch")

# PTX type names whose add is a wrap-around integer sum (a segmented scan serves it).
_INTEGER_ADD_TYPE = re.compile(r"[usb](32|64|128)")


def rmw_function(op: str, type_name: str):
    """(function, accumulate ufunc or None) for <op> on PTX type <type_name>."""
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


def update(view: np.ndarray, slots: np.ndarray, op: str, type_name: str, b, c=None) -> np.ndarray:
    """Apply <op> (PTX type <type_name>) at view[slots] lane by lane; each lane's old value.

    `view` is memory as the type's words (changed in place), `b` the operand
    (cas: the compare value), `c` cas's new value.
    """
    fn, accumulate = rmw_function(op, type_name)
    integer_add = op == "add" and _INTEGER_ADD_TYPE.fullmatch(type_name) is not None
    return serialize(view, slots, fn, b, c, integer_add, accumulate)


def serialize(view: np.ndarray, slots: np.ndarray, op, b, c, integer_add: bool, accumulate=None):
    """Apply op at view[slots] lane by lane, conflicts in lane order; each lane's old value.

    No-conflict accesses are one gather and one scatter; integer adds use a
    segmented scan; other conflicts run in rounds (one lane per address per
    round) or per address group, whichever is fewer.
    """
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
    sizes = np.diff(np.append(starts, n))
    rounds = int(sizes.max())                       # lanes on the busiest address
    result = np.empty(n, dtype=view.dtype)
    if op is _exch:                                 # each lane gets the operand of the lane before it
        result[1:] = bs[:-1]
        result[starts] = view[s[starts]]
        view[s[starts]] = bs[starts + sizes - 1]
    elif op is _cas:
        _serial_cas(view, s, starts, sizes, bs, cs, result)
    elif rounds <= len(starts) or (accumulate is None and rounds <= n // LANE_STEPS_PER_PASS):
        # one lane per address a pass: `rounds` NumPy passes
        rank = np.arange(n) - np.repeat(starts, sizes)
        by_rank = np.argsort(rank, kind="stable")
        bounds = np.searchsorted(rank[by_rank], np.arange(rounds + 1))
        for r in range(rounds):
            sel = by_rank[bounds[r]:bounds[r + 1]]
            o = view[s[sel]]
            result[sel] = o
            view[s[sel]] = op(o, bs[sel] if bs is not None else None, cs[sel] if cs is not None else None)
    else:
        _serial_groups(view, s, np.append(starts, n), op, accumulate, bs, cs, result)
    old[order] = result
    return old


LANE_STEPS_PER_PASS = 4   # a NumPy pass over one lane per address costs about four steps of one lane in Python
CAS_PASSES = 32           # passes of the CAS chains before their remaining groups go lane by lane


def _serial_groups(view, s, bounds, op, accumulate, bs, cs, result) -> None:
    """Each address group's lanes in order, one group at a time: an accumulating ufunc's chain
    in one call, any other operation one lane at a time."""
    for g in range(len(bounds) - 1):
        lo, hi = bounds[g], bounds[g + 1]
        cur = view[s[lo]]
        if accumulate is not None:          # sequential in thread order: accumulate never reassociates
            chain = accumulate.accumulate(np.concatenate([[cur], bs[lo:hi]]).astype(view.dtype))
            result[lo:hi] = chain[:-1]
            view[s[lo]] = chain[-1]
            continue
        for k in range(lo, hi):
            result[k] = cur
            cur = op(np.array([cur]), bs[k:k + 1] if bs is not None else None,
                     cs[k:k + 1] if cs is not None else None)[0]
        view[s[lo]] = cur


def _serial_cas(view, s, starts, sizes, bs, cs, result) -> None:
    """Compare-and-swap lanes of each address in lane order, a pass per change of value.

    A lane's CAS changes the word only where its compare value is the word now and its new
    value differs; every lane until the next such lane reads the same word. So each pass finds,
    in every group not yet done, the first lane after the last change that changes the word
    (a contended CAS loop has one or two a group: a lock taken, a maximum raised). Groups that
    change more than CAS_PASSES times go on lane by lane."""
    group = np.repeat(np.arange(len(starts)), sizes)
    lane = np.arange(len(s))
    cur = view[s[starts]].copy()
    pos, end = starts.copy(), starts + sizes
    for _ in range(CAS_PASSES):
        at = lane[lane >= pos[group]]               # the lanes after each group's last change
        at_group = group[at]
        word = cur[at_group]
        changes = (bs[at] == word) & (cs[at] != word)
        change_group, change_lane = at_group[changes], at[changes]
        firsts = np.flatnonzero(np.r_[True, change_group[1:] != change_group[:-1]]) if len(change_group) else []
        first = end - 1                              # a group that changes no more reads to its end
        changed = np.zeros(len(starts), dtype=bool)
        first[change_group[firsts]] = change_lane[firsts]
        changed[change_group[firsts]] = True
        fill = at <= first[at_group]
        result[at[fill]] = word[fill]
        cur[changed] = cs[first[changed]]
        pos = np.where(changed, first + 1, end)
        if not changed.any():
            break
    view[s[starts]] = cur
    for g in np.flatnonzero(pos < end):             # past CAS_PASSES changes: lane by lane
        _serial_groups(view, s, np.array([pos[g], end[g]]), _cas, None, bs, cs, result)
