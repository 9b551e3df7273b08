"""Reading and writing operands in machine code, from a row of layout.py: lane by lane, or as rows.

A row marked ON_ROWS is computed on rows: segment.py gathers each source over
the issuing lanes into a row (`gather`: raw bits as uint64, the low 32 bits of
a 32-bit operand, its modifiers applied; a predicate as bool, its ! applied),
the family computes its result rows with loops free of any choice of register
file, operand kind or modifier, and `scatter` writes them to the destinations.
That is three to four times faster per lane than reading through the per-lane
readers below, whose choices the compiler cannot take out of the loop.

R and UR are (rows, thread slots) uint32, P and UP (8, thread slots) bool,
`values` the launch's value table (uint64). A family reads each operand's
descriptor out of its row once per instruction (`source(c, k)`: kind, index,
modifiers; `dest(c, d)`: kind, row), before its loop over lanes: loads from the
row inside that loop cannot be kept in registers past a store to R (the compiler
cannot tell the arrays apart), and cost some twenty times the lane's arithmetic.
Every reader returns raw bits as uint64 (the low 32 bits for a 32-bit operand),
so a family computes in 64 bits and masks. Destinations are taken the same way,
as the row they write (`out32`, `out_pair`, `out_pred`; a dropped one writes a
scratch row) before the loop, whose stores are then plain element stores: a
store through a helper that chooses the file per lane made the loops five to
seven times slower. Writes set the lane's own element; segment.py copies a
uniform instruction's results to its warp's 32 lanes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import ABS, DESTS, FLOAT, INV, NEG, PAIR, PRED, REG, SOURCES, UPRED, UREG, VALUE, WIDE

M32 = np.uint64(0xFFFFFFFF)
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
SIGN32 = np.uint64(0x80000000)
SIGN64 = np.uint64(1 << 63)
ZERO64 = np.uint64(0)
HIGH32 = np.uint64(32)


@njit
def source(c, k):
    """The descriptor (kind, index, modifiers) of source k of row c."""
    at = SOURCES + 3 * k
    return c[at], c[at + 1], c[at + 2]


@njit
def dest(c, d):
    """The descriptor (kind, row) of destination d of row c."""
    at = DESTS + 2 * d
    return c[at], c[at + 1]


@njit
def modified(value, mods, wide):
    """A source's value with its modifiers, the one rule every reader applies: a float's |x| and -x on
    its sign bit, an integer's ~x and -x in two's complement, over 32 bits or a pair's 64."""
    mask = M64 if wide else M32
    sign = SIGN64 if wide else SIGN32
    if mods & FLOAT:
        if mods & ABS:
            value &= mask ^ sign
        if mods & NEG:
            value ^= sign
    else:
        if mods & INV:
            value ^= mask
        if mods & NEG:
            value = (ZERO64 - value) & mask
    return value


@njit
def read32(o, R, UR, values, lane):
    """A 32-bit source (descriptor o) of one lane, its modifiers applied."""
    kind, a, mods = o
    if kind == REG:
        x = np.uint64(R[a, lane])
    elif kind == UREG:
        x = np.uint64(UR[a, lane])
    elif kind == VALUE:
        x = values[a] & M32
    else:
        x = ZERO64
    return modified(x, mods, False) if mods else x


@njit
def read64(o, R, UR, values, lane):
    """A 64-bit source: a register pair {a+1:a}, or a 64-bit value entry."""
    kind, a, mods = o
    if kind == REG:
        x = np.uint64(R[a, lane]) | (np.uint64(R[a + 1, lane]) << np.uint64(32))
    elif kind == UREG:
        x = np.uint64(UR[a, lane]) | (np.uint64(UR[a + 1, lane]) << np.uint64(32))
    elif kind == VALUE:
        x = values[a]
    else:
        x = ZERO64
    return modified(x, mods, True) if mods else x


@njit
def in_pred(o, P, UP):
    """A predicate source as (the row it reads, whether ! inverts it): lane's value is
    row[lane] != invert. (Reading through a helper per lane that chooses the file made the loops
    ten times slower.)"""
    kind, row, mods = o
    return (P[row] if kind == PRED else UP[row]), (mods & INV) != 0


@njit
def out32(c, d, R, UR, scratch):
    """The row destination d of row c writes (one element per thread slot): R's, UR's, or scratch
    for RZ (dropped)."""
    kind, row = dest(c, d)
    if kind == REG:
        return R[row]
    if kind == UREG:
        return UR[row]
    return scratch


@njit
def out_pair(c, d, R, UR, scratch):
    """The two rows a 64-bit destination d writes: (low word, high word)."""
    kind, row = dest(c, d)
    if kind == REG:
        return R[row], R[row + 1]
    if kind == UREG:
        return UR[row], UR[row + 1]
    return scratch, scratch


@njit
def out_pred(c, d, P, UP, scratch):
    """The row predicate destination d writes: P's, UP's, or scratch for PT (dropped)."""
    kind, row = dest(c, d)
    if kind == PRED:
        return P[row]
    if kind == UPRED:
        return UP[row]
    return scratch


@njit
def put32(out, lane, value):
    out[lane] = np.uint32(value & M32)


@njit
def put64(low, high, lane, value):
    low[lane] = np.uint32(value & M32)
    high[lane] = np.uint32(value >> np.uint64(32))


@njit(inline="always")
def gather(c, k, R, UR, P, UP, values, lanes, m, t, tb):
    """Source k of row c over lanes[:m]: a value into t, a predicate into tb."""
    at = SOURCES + 3 * k
    kind, a, mods = c[at], c[at + 1], c[at + 2]
    if kind == PRED or kind == UPRED:
        rows = P if kind == PRED else UP
        invert = (mods & INV) != 0
        for j in range(m):
            tb[j] = rows[a, lanes[j]] != invert
        return
    wide = (mods & PAIR) != 0
    if kind == REG or kind == UREG:
        rows = R if kind == REG else UR
        low = rows[a]
        if wide:
            high = rows[a + 1]
            for j in range(m):
                lane = lanes[j]
                t[j] = np.uint64(low[lane]) | (np.uint64(high[lane]) << HIGH32)
        else:
            for j in range(m):
                t[j] = np.uint64(low[lanes[j]])
    else:
        value = ZERO64
        if kind == VALUE:
            value = values[a] if wide else values[a] & M32
        for j in range(m):
            t[j] = value
    if mods & (NEG | INV | ABS):
        for j in range(m):
            t[j] = modified(t[j], mods, wide)


@njit(inline="always")
def scatter(c, d, R, UR, P, UP, lanes, m, o, ob):
    """Destination d of row c from lanes[:m]: a register (pair, under WIDE) from o, a predicate from ob;
    RZ and PT drop it."""
    at = DESTS + 2 * d
    kind, row = c[at], c[at + 1]
    wide = (kind & WIDE) != 0
    kind &= ~WIDE
    if kind == PRED or kind == UPRED:
        rows = P if kind == PRED else UP
        out = rows[row]
        for j in range(m):
            out[lanes[j]] = ob[j]
    elif kind == REG or kind == UREG:
        rows = R if kind == REG else UR
        low = rows[row]
        for j in range(m):
            low[lanes[j]] = np.uint32(o[j] & M32)
        if wide:
            high = rows[row + 1]
            for j in range(m):
                high[lanes[j]] = np.uint32(o[j] >> HIGH32)
