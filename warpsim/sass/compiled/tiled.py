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

from typing import NamedTuple

import numpy as np
from numba import njit

from . import compare, floating, integer, moves
from ...machine.compiled.borrowed import borrowed
from .lanes import HIGH32, M32, ZERO64, modified
from ..executor.state import PT_ROW
from .layout import ABS, DESTS, FAMILY, GUARD_KIND, GUARD_INVERT, GUARD_ROW, INV, N_DESTS, N_SOURCES, NEG, \
    ON_ROWS, PAIR, PRED, REG, SOURCES, UNIFORM, UPRED, UREG, VALUE, WIDE, ZERO

TILE_CHUNK = 2048       # lanes a tile holds (more lanes, fewer passes over the code: its rows stay in the second-level cache)
CONSTANT, FIXED = -1, -2  # while planning: a source read from a constant row, a constant predicate row


class Plan(NamedTuple):
    """How a segment runs on a tile (see `plan`); run_tiled takes its fields after `local` in order."""
    local: np.ndarray           # the code, each register and predicate operand renumbered as its tile row
    r_rows: np.ndarray          # the registers the tile holds first: R's rows, or UR's where r_uniform
    r_uniform: np.ndarray
    r_read: np.ndarray          # copied in: read before every lane writes it, or written under a guard
    r_written: np.ndarray       # copied out
    p_rows: np.ndarray          # the predicates likewise
    p_uniform: np.ndarray
    p_read: np.ndarray
    p_written: np.ndarray
    constants: np.ndarray       # per tile row after the registers: (row, kind, entry, modifiers) of a value source
    fixed: np.ndarray           # per predicate row after the predicates: (row, value) of PT or !PT


def plan(code: np.ndarray):
    """The Plan of a segment, or None where a row does not run per lane on rows (a uniform
    instruction, a uniform destination, a family's per-lane form, a register pair whose halves the
    tile would hold apart): those keep run_segment. Constants (immediates, constant-bank words, RZ)
    get rows filled once per call, PT and !PT predicate rows likewise."""
    registers: dict = {}
    predicates: dict = {}
    constants: dict = {}            # (kind, a, mods) -> its tile row, after the registers
    fixed: dict = {}                # a constant predicate's value -> its tile row, after the predicates
    written_r, written_p = set(), set()
    covered = set()                 # registers and predicates every lane has written (no guard) so far
    read = set()                    # ... read before that, or written under a guard: the chunk copies them in
    local = code.copy()
    for c, out in zip(code, local):
        if not c[ON_ROWS] or c[UNIFORM]:
            return None
        guarded = c[GUARD_KIND] != 0
        if guarded:
            key = (int(c[GUARD_KIND]), int(c[GUARD_ROW]))
            out[GUARD_ROW] = predicates.setdefault(key, len(predicates))
            if key not in covered:
                read.add(key)
        for k in range(c[N_SOURCES]):
            at = SOURCES + 3 * k
            kind, a, mods = (int(x) for x in c[at:at + 3])
            if kind in (ZERO, VALUE):
                out[at:at + 3] = CONSTANT, constants.setdefault((kind, a, mods), len(constants)), 0
            elif kind == PRED and a == PT_ROW:
                out[at:at + 3] = FIXED, fixed.setdefault(not mods & INV, len(fixed)), 0
            elif kind in (REG, UREG):
                out[at:at + 2] = REG, registers.setdefault((kind, a), len(registers))
                if mods & PAIR and registers.setdefault((kind, a + 1), len(registers)) != out[at + 1] + 1:
                    return None
                read.update(key for key in ((kind, a), (kind, a + 1))[:2 if mods & PAIR else 1] if key not in covered)
            elif kind in (PRED, UPRED):
                out[at:at + 2] = PRED, predicates.setdefault((kind, a), len(predicates))
                if (kind, a) not in covered:
                    read.add((kind, a))
        for d in range(c[N_DESTS]):
            at = DESTS + 2 * d
            kind, row = int(c[at]), int(c[at + 1])
            if kind & ~WIDE in (UREG, UPRED):
                return None
            if kind & ~WIDE == REG:
                out[at + 1] = registers.setdefault((REG, row), len(registers))
                if kind & WIDE and registers.setdefault((REG, row + 1), len(registers)) != out[at + 1] + 1:
                    return None
                keys = ((REG, row), (REG, row + 1))[:2 if kind & WIDE else 1]
                written_r.update(keys)
            elif kind == PRED:
                out[at + 1] = predicates.setdefault((PRED, row), len(predicates))
                keys = ((PRED, row),)
                written_p.update(keys)
            else:
                continue
            for key in keys:
                if key not in covered:
                    (read if guarded else covered).add(key)
    for c, out in zip(code, local):                 # constants after the registers, fixed after the predicates
        for k in range(c[N_SOURCES]):
            at = SOURCES + 3 * k
            if out[at] == CONSTANT:
                out[at:at + 3] = REG, len(registers) + out[at + 1], 0
            elif out[at] == FIXED:
                out[at:at + 3] = PRED, len(predicates) + out[at + 1], 0
    return Plan(local, np.array([row for _, row in registers], dtype=np.int64),
            np.array([kind == UREG for kind, _ in registers], dtype=np.bool_),
            np.array([r in read for r in registers], dtype=np.bool_),
            np.array([r in written_r for r in registers], dtype=np.bool_),
            np.array([row for _, row in predicates], dtype=np.int64),
            np.array([kind == UPRED for kind, _ in predicates], dtype=np.bool_),
            np.array([p in read for p in predicates], dtype=np.bool_),
            np.array([p in written_p for p in predicates], dtype=np.bool_),
            np.array([[len(registers) + row, *key] for key, row in constants.items()], dtype=np.int64).reshape(-1, 4),
            np.array([[len(predicates) + row, value] for value, row in fixed.items()], dtype=np.int64).reshape(-1, 2))


@njit(cache=True, nogil=True)
def run_tiled(code, local, R, P, UR, UP, values, idx, counts, r_rows, r_uniform, r_read, r_written, p_rows,
              p_uniform, p_read, p_written, constants, fixed, tile, tile_p, on, T, TB, O, OB):
    """code: the segment's rows (run_rows reads their operation and flags); local: the same with the
    tile's rows; idx: the group's lanes as uint64 (an unsigned index needs no test for a negative one:
    the copies in and out take half the time). tile, tile_p: a row per register and predicate touched,
    of TILE_CHUNK lanes; on: a row for a guard; T, TB: rows for sources that are no plain tile row;
    O, OB: the families' result rows, as run_segment's. Every array it takes a row or a slice of is
    borrowed (borrowed.py): those views count no references."""
    code, local, R, P, UR, UP, idx = borrowed(code), borrowed(local), borrowed(R), borrowed(P), borrowed(UR), \
        borrowed(UP), borrowed(idx)
    tile, tile_p, T, TB, O, OB = borrowed(tile), borrowed(tile_p), borrowed(T), borrowed(TB), borrowed(O), borrowed(OB)
    n = idx.shape[0]
    for r in range(constants.shape[0]):                 # 0. the constant rows, for every chunk
        row = tile[constants[r, 0]]
        value = _constant(constants[r, 1], constants[r, 2], constants[r, 3], values)
        for j in range(min(n, TILE_CHUNK)):
            row[j] = value
    for r in range(fixed.shape[0]):
        row_b = tile_p[fixed[r, 0]]
        for j in range(min(n, TILE_CHUNK)):
            row_b[j] = fixed[r, 1] != 0
    start = 0
    while start < n:
        m = min(n, start + TILE_CHUNK) - start
        lanes = idx[start:start + m]
        for r in range(r_rows.shape[0]):                # 1. the chunk's registers and predicates in
            if not r_read[r]:
                continue                                # every lane writes it before any reads it
            source_row, row = (UR if r_uniform[r] else R)[r_rows[r]], tile[r]
            for j in range(m):
                row[j] = np.uint64(source_row[lanes[j]])
        for r in range(p_rows.shape[0]):
            if not p_read[r]:
                continue
            source_row_b, row_b = (UP if p_uniform[r] else P)[p_rows[r]], tile_p[r]
            for j in range(m):
                row_b[j] = source_row_b[lanes[j]]
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
            sources = (_source(t, 0, tile, m, T[0]), _source(t, 1, tile, m, T[1]),
                       _source(t, 2, tile, m, T[2]), _source(t, 3, tile, m, T[3]),
                       _source(t, 4, tile, m, T[4]), _source(t, 5, tile, m, T[5]),
                       _source(t, 6, tile, m, T[6]))
            predicates = (_predicate(t, 0, tile_p, m, TB[0]), _predicate(t, 1, tile_p, m, TB[1]),
                          _predicate(t, 2, tile_p, m, TB[2]), _predicate(t, 3, tile_p, m, TB[3]),
                          _predicate(t, 4, tile_p, m, TB[4]), _predicate(t, 5, tile_p, m, TB[5]),
                          _predicate(t, 6, tile_p, m, TB[6]))
            run_rows(c, sources, predicates, O, OB, m)
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
def run_rows(c, sources, predicates, O, OB, m):
    """Row c's family over m lanes of rows: its sources and predicates in, its results in O and OB
    (the tile and segment.run_segment's rows alike)."""
    family = c[FAMILY]
    if family == 0:
        moves.run_rows(c, sources, predicates, O, OB, m)
    elif family == 1:
        integer.run_rows(c, sources, predicates, O, OB, m)
    elif family == 2:
        compare.run_rows(c, sources, predicates, O, OB, m)
    else:
        floating.run_rows(c, sources, predicates, O, OB, m)


@njit(inline="always")
def _constant(kind, a, mods, values):
    """A value source that is the same for every lane (an immediate, a constant-bank word, RZ), its
    modifiers applied, as lanes.gather reads it."""
    wide = (mods & PAIR) != 0
    value = ZERO64
    if kind == VALUE:
        value = values[a] if wide else values[a] & M32
    return modified(value, mods, wide)


@njit(inline="always")
def _source(t, k, tile, m, out):
    """The row of source k (tile rows) over a chunk of m lanes: a plain register's tile row itself (a
    constant's too), or `out` holding a pair or a register with modifiers as lanes.gather reads them
    (untouched for a predicate source, or no source k)."""
    at = SOURCES + 3 * k
    kind, a, mods = t[at], t[at + 1], t[at + 2]
    if k >= t[N_SOURCES] or kind == PRED:
        return out
    wide = (mods & PAIR) != 0
    if not wide and not mods & (NEG | INV | ABS):
        return tile[a]
    low = tile[a]
    if wide:
        high = tile[a + 1]
        for j in range(m):
            out[j] = low[j] | (high[j] << HIGH32)
    else:
        for j in range(m):
            out[j] = low[j]
    if mods & (NEG | INV | ABS):
        for j in range(m):
            out[j] = modified(out[j], mods, wide)
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
