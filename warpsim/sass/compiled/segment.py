"""Segments: runs of encoded value instructions of a block, run by one machine-code call per group.

`segments_of(program)` finds, per block, the runs of consecutive steps the
families encode (a control instruction ends a block and is never in one);
`Segment.run(st, g, pred_on)` runs one for a group's lanes and fills the
guard counts the observers read, as the NumPy steps do. `run_segment` is the
machine code: per instruction, the group's lanes whose guard holds, then the
family's function for them (for a uniform instruction, the first of them in each
warp, whose results then go to all 32 lanes of the warp), as the NumPy steps run
an instruction for all the group's lanes before the next.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...machine.compiled.tier import machine_code_ready
from . import compare, floating, integer, moves
from .fused import run_fused
from .machine_code import COMPILE_FROM, forget_if_stale
from .lanes import gather, scatter
from .tiled import TILE_CHUNK, plan, run_rows, run_tiled
from .layout import DESTS, FAMILY, FAMILY_NAMES, GUARD_INVERT, GUARD_KIND, GUARD_ROW, MAX_DESTS, MAX_SOURCES, \
    N_DESTS, N_SOURCES, ON_ROWS, PRED, UNIFORM, UPRED, UREG, WIDE, Unencodable, encode, value_table

FAMILY_MODULES = (moves, integer, compare, floating)
MIN_SEGMENT = 1         # steps a segment must have to be worth one call
CHUNK = 2048            # lanes a segment runs at a time (rows of them stay in the caches)


@njit(cache=True, nogil=True)
def run_segment(code, R, P, UR, UP, values, idx, counts, lanes, scratch, scratch_p, T, TB, O, OB):
    """lanes: room for CHUNK + 32 lanes; scratch, scratch_p: a row of R and of P that dropped
    destinations (RZ, PT) of per-lane families write; T, TB: a row per source, O, OB: a row per
    destination, of CHUNK + 32 lanes, for rows computed on rows.

    The group runs a chunk of whole warps at a time, every instruction for the chunk before the
    next chunk: a value instruction reads and writes its own lane's registers (a uniform one its
    own warp's), so the bits are those of each instruction for the whole group in turn, and the
    rows a chunk moves through stay in the processor's caches."""
    n = idx.shape[0]
    start = 0
    while start < n:
        stop = min(n, start + CHUNK)
        while stop < n and (idx[stop] >> 5) == (idx[stop - 1] >> 5):
            stop += 1                       # whole warps
        for k in range(code.shape[0]):
            c = code[k]
            kind = c[GUARD_KIND]
            m = 0
            if kind == 0:
                for j in range(start, stop):
                    lanes[m] = idx[j]
                    m += 1
            else:
                guard = P[c[GUARD_ROW]] if kind == PRED else UP[c[GUARD_ROW]]
                invert = c[GUARD_INVERT] != 0
                for j in range(start, stop):    # without a branch: guards vary from lane to lane
                    lane = idx[j]
                    lanes[m] = lane
                    m += guard[lane] != invert
            counts[k] += m
            if m == 0:
                continue
            uniform = c[UNIFORM] != 0
            if uniform:                     # the first lane of each warp runs it
                kept = 0
                for j in range(m):
                    if j == 0 or (lanes[j] >> 5) != (lanes[kept - 1] >> 5):
                        lanes[kept] = lanes[j]
                        kept += 1
                m = kept
            family = c[FAMILY]
            if c[ON_ROWS]:
                for s in range(c[N_SOURCES]):
                    gather(c, s, R, UR, P, UP, values, lanes, m, T[s], TB[s])
                run_rows(c, T, TB, O, OB, m)
                for d in range(c[N_DESTS]):
                    scatter(c, d, R, UR, P, UP, lanes, m, O[d], OB[d])
            elif family == 0:
                moves.run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p)
            elif family == 1:
                integer.run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p)
            elif family == 2:
                compare.run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p)
            else:
                floating.run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p)
            if uniform:
                for j in range(m):
                    _spread_uniform(c, R, P, UR, UP, lanes[j])
        start = stop


@njit(inline="always")
def _spread_uniform(c, R, P, UR, UP, lane):
    """A uniform instruction ran for one lane: its uniform results go to all 32 lanes of the warp.
    The register after each destination is copied too (a pair's high word): a uniform register
    holds one value across its warp's lanes, so where the instruction did not write it the copy
    changes nothing."""
    first = lane & ~31
    for d in range(MAX_DESTS):
        kind, row = c[DESTS + 2 * d] & ~WIDE, c[DESTS + 2 * d + 1]
        if kind == UREG:
            for k in range(32):
                UR[row, first + k] = UR[row, lane]
            if row + 1 < UR.shape[0]:
                for k in range(32):
                    UR[row + 1, first + k] = UR[row + 1, lane]
        elif kind == UPRED:
            for k in range(32):
                UP[row, first + k] = UP[row, lane]


forget_if_stale(run_segment)
forget_if_stale(run_tiled)


def _check_dispatch():
    """run_segment's if-chain follows FAMILY_MODULES' order, which is layout.FAMILY_NAMES'."""
    for number, module in enumerate(FAMILY_MODULES):
        if module.FAMILY != number or len(FAMILY_MODULES) != len(FAMILY_NAMES):
            raise ImportError(f"compiled SASS family {module.__name__} has number {module.FAMILY}, "
                              f"but run_segment dispatches it as {number}")


_check_dispatch()


class Segment:
    """Steps [start, stop) of a block as encoded rows; `tiled`, where every row runs per lane on rows,
    the plan that runs it on a tile of registers (tiled.py) instead of run_segment."""

    __slots__ = ("start", "stop", "code", "guarded", "specs", "tiled", "number", "texts")

    def __init__(self, start: int, rows: list, guarded: list, specs: list, number: int = 0, texts: tuple = ()):
        self.start, self.stop = start, start + len(rows)
        self.number = number            # its place among the program's segments (fused.py's functions take it)
        self.texts = texts              # its instructions' SASS text
        self.code = np.array(rows, dtype=np.int64)
        self.guarded = guarded
        self.specs = specs
        self.tiled = plan(self.code)

    def run(self, st, g, pred_on: list) -> None:
        """Runs the segment for group g: as the program's generated code (st.fused, fused.py) where that
        covers it, else on a tile, else through run_segment; fills pred_on of its guarded steps."""
        buffers = segment_buffers(st, self.specs)
        counts = np.zeros(len(self.code), dtype=np.int64)
        fused = st.fused
        if self.tiled is not None and fused is not None and run_fused(fused, self.number, st.R, st.P, st.UR, st.UP,
                                                                     buffers[0], g.idx.view(np.uint64), counts):
            pass                                # the program's generated code (fused.py) ran it
        elif self.tiled is not None:
            plan = self.tiled
            run_tiled(self.code, plan.local, st.R, st.P, st.UR, st.UP, buffers[0], g.idx.view(np.uint64), counts,
                      *plan[1:], _tile(st, "_tile", len(plan.r_rows) + len(plan.constants), np.uint64),
                      _tile(st, "_tile_p", len(plan.p_rows) + len(plan.fixed), np.bool_), buffers[3], *buffers[4:])
        else:
            run_segment(self.code, st.R, st.P, st.UR, st.UP, buffers[0], g.idx, counts, *buffers[1:])
        for k, guarded in enumerate(self.guarded):
            if guarded:
                pred_on[self.start + k] = int(counts[k])


def segment_buffers(st, specs: list) -> tuple:
    """The batch's value table (of the program's value specs) and run_segment's and run_tiled's rows,
    made once per batch: (values, lanes, scratch, scratch_p, T, TB, O, OB)."""
    buffers = st.__dict__.get("_segment_buffers")
    if buffers is None or len(buffers[0]) != len(specs):
        n, rows = st.n, min(st.n, max(CHUNK + 32, TILE_CHUNK))
        buffers = st._segment_buffers = (
            value_table(specs, st), np.empty(rows, dtype=np.int64), np.empty(n, dtype=np.uint32),
            np.empty(n, dtype=np.bool_), np.empty((MAX_SOURCES, rows), dtype=np.uint64),
            np.empty((MAX_SOURCES, rows), dtype=np.bool_), np.empty((MAX_DESTS, rows), dtype=np.uint64),
            np.empty((MAX_DESTS, rows), dtype=np.bool_))
    return buffers


def _tile(st, name: str, rows: int, dtype) -> np.ndarray:
    """The batch's tile of `rows` rows of TILE_CHUNK lanes (kept for the largest segment yet)."""
    tile = st.__dict__.get(name)
    if tile is None or len(tile) < rows:
        tile = np.empty((max(rows, 1), TILE_CHUNK), dtype=dtype)
        setattr(st, name, tile)
    return tile


def segments_of(program) -> tuple:
    """({block index: {first position: Segment}}, {instruction index: why it stays a NumPy step})."""
    specs: list = []
    found, why = {}, {}
    number = 0
    for block in program.blocks:
        steps = block.steps if block.control is None else block.steps[:-1]
        runs, rows, guarded, texts, first = {}, [], [], [], 0
        for position, step in enumerate(steps + [None]):
            row = None
            if step is not None and (step.reads_guard or step.wait is not None):
                why[block.start + position] = "reads its own guard or waits for other lanes"
            elif step is not None:
                try:
                    row = encode(step.ins, specs)
                except Unencodable as reason:
                    why[block.start + position] = str(reason)
            if row is not None:
                if not rows:
                    first = position
                rows.append(row)
                guarded.append(block.guards[position] is not None)
                texts.append(step.ins.text)
                continue
            if len(rows) >= MIN_SEGMENT:
                runs[first] = Segment(first, rows, guarded, specs, number, tuple(texts))
                number += 1
            rows, guarded, texts = [], [], []
        if runs:
            found[block.index] = runs
    return found, why


def machine_code_allowed(engine: str, slots: int, dispatcher) -> bool:
    """Whether a batch of `slots` thread slots runs `dispatcher` (a Numba function of this tier)
    under `engine` (settings): never under 'numpy'; under 'auto' once its machine code is compiled
    or in Numba's disk cache, or in a batch of COMPILE_FROM slots (a first compile takes seconds,
    once per machine)."""
    if engine == "numpy":
        return False
    return engine == "compiled" or slots >= COMPILE_FROM or machine_code_ready(dispatcher)


def segments_for(program, engine: str, slots: int) -> dict:
    """The segments a batch runs as machine code (none where machine code is not allowed)."""
    if not program.segments or not all(machine_code_allowed(engine, slots, f) for f in (run_segment, run_tiled)):
        return {}
    return program.segments


def tier_report(program) -> dict:
    """{'compiled': instructions in segments, 'numpy': {full opcode: why}} for a loaded program."""
    segments, why = program.segments, program.segment_why
    compiled = sum(s.stop - s.start for runs in segments.values() for s in runs.values())
    numpy = {}
    for index, reason in why.items():
        numpy.setdefault(program.instructions[index].full_opcode, reason)
    return {"compiled": compiled, "numpy": numpy}
