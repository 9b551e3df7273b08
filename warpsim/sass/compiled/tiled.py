"""Segments whose registers a chunk of lanes holds in a tile, across all the segment's instructions.

segment.run_segment gathers every source of every instruction from R and P
through the group's index of lanes, and scatters every result back: three to
six passes through the index per instruction, about 3 ns per lane and
instruction. A segment of instructions that each run per lane (no uniform one,
no uniform register or predicate, every family computing on rows) reads and
writes only its lanes' own registers, so a chunk of lanes can copy the
registers and predicates the segment touches into a dense tile once
(`plan`: the rows touched, and the code with each operand's row renumbered as
its row of the tile), run every instruction on the tile's contiguous rows,
and write the rows the segment writes back once. A guarded instruction
computes for all the chunk's lanes and keeps the results of those whose guard
holds; a source with modifiers, a value and a pair are copied into the
family's source rows, a plain register or predicate too (a copy of a
contiguous row costs a fraction of a gather).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compare, floating, integer, moves
from .lanes import HIGH32, M32, M64, SIGN32, SIGN64, ZERO64
from .layout import ABS, DESTS, FAMILY, FLOAT, GUARD_KIND, GUARD_INVERT, GUARD_ROW, INV, MAX_DESTS, MAX_SOURCES, \
    N_DESTS, N_SOURCES, NEG, ON_ROWS, PAIR, PRED, REG, SOURCES, UNIFORM, UPRED, UREG, VALUE, WIDE, ZERO

TILE_CHUNK = 512        # lanes a tile holds (its rows stay in the first-level cache)


def plan(code: np.ndarray):
    """(code with REG and PRED rows renumbered as the tile's, the registers it touches, which of them it
    writes, the predicates it touches, which it writes), or None where a row does not run per lane on
    rows (a uniform instruction, a uniform operand, a family's per-lane form): those keep run_segment."""
    registers: dict = {}
    predicates: dict = {}
    written_r, written_p = set(), set()

    def register(row):
        return registers.setdefault(int(row), len(registers))

    def predicate(row):
        return predicates.setdefault(int(row), len(predicates))

    local = code.copy()
    for c, out in zip(code, local):
        if not c[ON_ROWS] or c[UNIFORM] or c[GUARD_KIND] == UPRED:
            return None
        if c[GUARD_KIND] == PRED:
            out[GUARD_ROW] = predicate(c[GUARD_ROW])
        for k in range(c[N_SOURCES]):
            kind, a, mods = c[SOURCES + 3 * k:SOURCES + 3 * k + 3]
            if kind in (UREG, UPRED):
                return None
            if kind == REG:
                out[SOURCES + 3 * k + 1] = register(a)
                if mods & PAIR and register(a + 1) != out[SOURCES + 3 * k + 1] + 1:
                    out[SOURCES + 3 * k + 1] = -1       # a pair whose halves are not adjacent in the tile
            elif kind == PRED:
                out[SOURCES + 3 * k + 1] = predicate(a)
        for d in range(c[N_DESTS]):
            kind, row = c[DESTS + 2 * d], c[DESTS + 2 * d + 1]
            wide, kind = kind & WIDE, kind & ~WIDE
            if kind in (UREG, UPRED):
                return None
            if kind == REG:
                out[DESTS + 2 * d + 1] = register(row)
                written_r.add(int(row))
                if wide:
                    written_r.add(int(row) + 1)
                    if register(row + 1) != out[DESTS + 2 * d + 1] + 1:
                        out[DESTS + 2 * d + 1] = -1
            elif kind == PRED:
                out[DESTS + 2 * d + 1] = predicate(row)
                written_p.add(int(row))
    if (local[:, SOURCES + 1::3] == -1).any() or (local[:, DESTS + 1:SOURCES:2] == -1).any():
        return None                                     # rare: a pair's halves met apart; keep run_segment
    r_rows = np.array(list(registers), dtype=np.int64)
    p_rows = np.array(list(predicates), dtype=np.int64)
    return (local, r_rows, np.array([r in written_r for r in registers], dtype=np.bool_),
            p_rows, np.array([p in written_p for p in predicates], dtype=np.bool_))


@njit(cache=True, nogil=True)
def run_tiled(code, local, R, P, values, idx, counts, r_rows, r_written, p_rows, p_written,
              tile, tile_p, on, T, TB, O, OB):
    """code: the segment's rows (run_rows reads their operation and flags); local: the same with the
    tile's rows; idx: the group's lanes as uint64 (an unsigned index needs no test for a negative one:
    the copies in and out take half the time). tile, tile_p: a row per register and predicate touched,
    of TILE_CHUNK lanes; on: a row for a guard; T, TB: rows for sources that are no plain tile row;
    O, OB: the families' result rows, as run_segment's."""
    n = idx.shape[0]
    start = 0
    while start < n:
        m = min(n, start + TILE_CHUNK) - start
        lanes = idx[start:start + m]
        for r in range(r_rows.shape[0]):                # 1. the chunk's registers and predicates in
            source_row, row = R[r_rows[r]], tile[r]
            for j in range(m):
                row[j] = np.uint64(source_row[lanes[j]])
        for r in range(p_rows.shape[0]):
            source_row, row_b = P[p_rows[r]], tile_p[r]
            for j in range(m):
                row_b[j] = source_row[lanes[j]]
        for k in range(code.shape[0]):                  # 2. each instruction on the tile
            c, t = code[k], local[k]
            guarded = t[GUARD_KIND] != 0
            if guarded:
                guard, invert = tile_p[t[GUARD_ROW]], t[GUARD_INVERT] != 0
                held = 0
                for j in range(m):
                    on[j] = guard[j] != invert
                    held += on[j]
                counts[k] += held
                if held == 0:
                    continue
            else:
                counts[k] += m
            sources = (_source(t, 0, tile, values, m, T[0]), _source(t, 1, tile, values, m, T[1]),
                       _source(t, 2, tile, values, m, T[2]), _source(t, 3, tile, values, m, T[3]),
                       _source(t, 4, tile, values, m, T[4]), _source(t, 5, tile, values, m, T[5]),
                       _source(t, 6, tile, values, m, T[6]))
            predicates = (_predicate(t, 0, tile_p, m, TB[0]), _predicate(t, 1, tile_p, m, TB[1]),
                          _predicate(t, 2, tile_p, m, TB[2]), _predicate(t, 3, tile_p, m, TB[3]),
                          _predicate(t, 4, tile_p, m, TB[4]), _predicate(t, 5, tile_p, m, TB[5]),
                          _predicate(t, 6, tile_p, m, TB[6]))
            family = c[FAMILY]
            if family == 0:
                moves.run_rows(c, sources, predicates, O, OB, m)
            elif family == 1:
                integer.run_rows(c, sources, predicates, O, OB, m)
            elif family == 2:
                compare.run_rows(c, sources, predicates, O, OB, m)
            else:
                floating.run_rows(c, sources, predicates, O, OB, m)
            for d in range(t[N_DESTS]):
                _result(t, d, tile, tile_p, guarded, on, m, O[d], OB[d])
        for r in range(r_rows.shape[0]):                # 3. the rows the segment writes back out
            if r_written[r]:
                out_row, row = R[r_rows[r]], tile[r]
                for j in range(m):
                    out_row[lanes[j]] = np.uint32(row[j])
        for r in range(p_rows.shape[0]):
            if p_written[r]:
                out_row_b, row_b = P[p_rows[r]], tile_p[r]
                for j in range(m):
                    out_row_b[lanes[j]] = row_b[j]
        start += m


@njit(inline="always")
def _source(t, k, tile, values, m, out):
    """The row of source k (tile rows) over a chunk of m lanes: a plain register's tile row itself, or
    `out` filled as lanes.gather reads a value, a pair or a modified register (untouched for a
    predicate source, or no source k)."""
    at = SOURCES + 3 * k
    kind, a, mods = t[at], t[at + 1], t[at + 2]
    if k >= t[N_SOURCES] or kind == PRED:
        return out
    wide = (mods & PAIR) != 0
    if kind == REG and not wide and not mods & (NEG | INV | ABS):
        return tile[a]
    if kind == REG:
        low = tile[a]
        if wide:
            high = tile[a + 1]
            for j in range(m):
                out[j] = low[j] | (high[j] << HIGH32)
        else:
            for j in range(m):
                out[j] = low[j]
    else:
        value = ZERO64
        if kind == VALUE:
            value = values[a] if wide else values[a] & M32
        for j in range(m):
            out[j] = value
    if mods & (NEG | INV | ABS):
        mask = M64 if wide else M32
        sign = SIGN64 if wide else SIGN32
        if mods & FLOAT:
            if mods & ABS:
                for j in range(m):
                    out[j] &= mask ^ sign
            if mods & NEG:
                for j in range(m):
                    out[j] ^= sign
        else:
            if mods & INV:
                for j in range(m):
                    out[j] ^= mask
            if mods & NEG:
                for j in range(m):
                    out[j] = (ZERO64 - out[j]) & mask
    return out


@njit(inline="always")
def _predicate(t, k, tile_p, m, out_b):
    """The row of predicate source k: its tile row, or `out_b` holding it inverted (untouched for a
    value source, or no source k)."""
    at = SOURCES + 3 * k
    kind, a, mods = t[at], t[at + 1], t[at + 2]
    if k >= t[N_SOURCES] or kind != PRED:
        return out_b
    row_b = tile_p[a]
    if not mods & INV:
        return row_b
    for j in range(m):
        out_b[j] = not row_b[j]
    return out_b


@njit(inline="always")
def _result(t, d, tile, tile_p, guarded, on, m, o, ob):
    """Destination d (a tile row) from the family's result rows, for the lanes whose guard holds; RZ
    and PT drop it."""
    at = DESTS + 2 * d
    kind, row = t[at], t[at + 1]
    wide = (kind & WIDE) != 0
    kind &= ~WIDE
    if kind == PRED:
        out_b = tile_p[row]
        if guarded:
            for j in range(m):
                out_b[j] = ob[j] if on[j] else out_b[j]
        else:
            for j in range(m):
                out_b[j] = ob[j]
    elif kind == REG:
        low = tile[row]
        if guarded:
            for j in range(m):
                low[j] = o[j] & M32 if on[j] else low[j]
        else:
            for j in range(m):
                low[j] = o[j] & M32
        if wide:
            high = tile[row + 1]
            if guarded:
                for j in range(m):
                    high[j] = o[j] >> HIGH32 if on[j] else high[j]
            else:
                for j in range(m):
                    high[j] = o[j] >> HIGH32
