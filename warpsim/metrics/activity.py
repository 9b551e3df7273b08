"""Lane activity of a launch, warp by warp: what its picture is drawn from.

`ActivityTrace` is a launch observer (machine.events). For the first
`max_warps` warps of the grid it records every issued warp instruction, up to
`max_issues` per warp: how many lanes were active, its PTX line and its source
line. Recording is vectorized over the warps that ran a basic block, and bounded
(max_warps x max_issues bytes of lane counts), so a trace can stay attached to a
launch of millions of threads; warps past the cap are counted, not recorded.
warpsim.report.activity draws it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..machine.events import LaunchObserver

__all__ = ["ActivityTrace"]


class ActivityTrace(LaunchObserver):
    """Observer: per warp, the active-lane count of each issued instruction (bounded)."""

    def __init__(self, max_warps: int = 64, max_issues: int = 4096, label: str = ""):
        self.max_warps, self.max_issues = int(max_warps), int(max_issues)
        self.label = label
        self.kernel, self.grid, self.block = "", (1, 1, 1), (1, 1, 1)
        self.warps_per_cta = 0
        self.total_warps = 0                                     # warps in the whole grid
        self._planes = None                                      # (active, ptx_line, source_line): _plane()
        self.issued = np.zeros(self.max_warps, dtype=np.int64)   # per recorded warp, uncapped
        self.live_lanes = np.zeros(self.max_warps, dtype=np.int64)
        self.seen = np.zeros(self.max_warps, dtype=bool)
        self._row = np.zeros(0, dtype=np.int64)                  # batch warp -> row (-1: not recorded)
        self._batch_recorded = False                             # some warp of this batch has a row
        self._lines: dict[int, tuple] = {}                       # block gid -> (ptx lines, source lines)

    # The three (max_warps, max_issues) planes, 2.4 MB in all, are made at their first use: a profiled
    # launch makes a trace for the PTX run and one for the SASS run, and only one of them records (zeroing
    # the other's was a twentieth of a small kernel's profiled SASS run).
    def _plane(self, k: int) -> np.ndarray:
        if self._planes is None:
            shape = (self.max_warps, self.max_issues)
            self._planes = [np.zeros(shape, dtype=np.uint8), np.zeros(shape, dtype=np.int32),
                            np.zeros(shape, dtype=np.int32)]
        return self._planes[k]

    def _set_plane(self, k: int, value: np.ndarray) -> None:
        self._plane(k)
        self._planes[k] = value

    active = property(lambda self: self._plane(0), lambda self, value: self._set_plane(0, value),
                      doc="per recorded warp and issue, the active lanes (uint8)")
    ptx_line = property(lambda self: self._plane(1), lambda self, value: self._set_plane(1, value),
                        doc="per recorded warp and issue, the PTX line")
    source_line = property(lambda self: self._plane(2), lambda self, value: self._set_plane(2, value),
                           doc="per recorded warp and issue, the source line")

    # ------------------------------------------------------------ observer interface

    def batch_started(self, ctx):
        self.kernel, self.grid, self.block = ctx.kernel, tuple(ctx.grid), tuple(ctx.block)
        self.warps_per_cta = ctx.warps_per_cta
        self.total_warps = int(np.prod(self.grid)) * ctx.warps_per_cta
        warp = np.arange(ctx.n_warps, dtype=np.int64)
        cta_slot, warp_in_cta = warp // ctx.warps_per_cta, warp % ctx.warps_per_cta
        row = np.asarray(ctx.cta_ids, dtype=np.int64)[cta_slot] * ctx.warps_per_cta + warp_in_cta
        self._row = np.where(row < self.max_warps, row, -1)
        recorded = self._row >= 0
        self._batch_recorded = bool(recorded.any())
        live = ctx.exists.reshape(-1, 32).sum(axis=1)
        self.live_lanes[self._row[recorded]] = live[recorded]
        self.seen[self._row[recorded]] = True

    def block_executed(self, ctx, block, idx, warps, counts=None):
        if not len(warps) or not self._batch_recorded:
            return
        rows = self._row[warps]
        keep = rows >= 0
        if not keep.any():
            return
        if counts is None:                      # each warp's lanes in idx
            starts = np.searchsorted(idx >> 5, warps)
            counts = np.diff(np.append(starts, len(idx)))
        rows, counts = rows[keep], counts[keep]
        ptx_lines, source_lines = self._block_lines(block)
        k = len(ptx_lines)
        issued = self.issued[rows]
        column = issued[:, None] + np.arange(k)
        if issued.max() + k <= self.max_issues:     # every issue fits: indices broadcast, no masks
            at = (rows[:, None], column)
            self.active[at], self.ptx_line[at], self.source_line[at] = counts[:, None], ptx_lines, source_lines
            self.issued[rows] += k
            return
        inside = column < self.max_issues
        if inside.any():
            r = np.broadcast_to(rows[:, None], column.shape)[inside]
            c = column[inside]
            self.active[r, c] = np.broadcast_to(counts[:, None], column.shape)[inside]
            self.ptx_line[r, c] = np.broadcast_to(ptx_lines, column.shape)[inside]
            self.source_line[r, c] = np.broadcast_to(source_lines, column.shape)[inside]
        self.issued[rows] += k

    def logged_warps(self, ctx):
        """For the compiled round loop: the batch's warps whose issues are recorded (their rows)."""
        return self._row

    def compiled_rounds(self, ctx, record):
        """What the compiled round loop ran: its log of the recorded warps' issues, in order."""
        ptx, src, starts = self._program_lines(ctx.program)
        n_ins = np.diff(starts)
        for row in np.flatnonzero(record.log_len):
            gids = record.log_gid[row, :record.log_len[row]]
            k = n_ins[gids]
            total = int(k.sum())
            within = np.arange(total) - np.repeat(np.cumsum(k) - k, k)
            line = np.repeat(starts[gids], k) + within
            column = self.issued[row] + np.arange(total)
            inside = column < self.max_issues
            c = column[inside]
            self.active[row, c] = np.repeat(record.log_lanes[row, :record.log_len[row]], k)[inside]
            self.ptx_line[row, c] = ptx[line[inside]]
            self.source_line[row, c] = src[line[inside]]
            self.issued[row] += total

    def _program_lines(self, program):
        """Every block's PTX and source lines end to end, and where each block's start."""
        cached = getattr(self, "_flat_lines", None)
        if cached is None or cached[0] is not program:
            lines = [self._block_lines(block) for block in program.blocks]
            starts = np.concatenate([[0], np.cumsum([len(p) for p, _ in lines])]).astype(np.int64)
            cached = self._flat_lines = (program, np.concatenate([p for p, _ in lines]),
                                         np.concatenate([q for _, q in lines]), starts)
        return cached[1:]

    def batch_finished(self, ctx):
        pass

    def launch_finished(self, result):
        """Called by LoadedModule.launch for profiling observers; nothing left to do."""

    def trim(self) -> None:
        """Keep only the rows and columns the launch filled, once it is over: the arrays are made
        for the bound (2.3 MB), and a profile keeps each launch's trace."""
        rows = int(np.flatnonzero(self.seen)[-1]) + 1 if self.seen.any() else 0
        columns = int(min(self.issued[:rows].max(initial=0), self.max_issues))
        if self._planes is None:                # nothing recorded: the trimmed planes are zeros
            self._planes = [np.zeros((rows, columns), dtype=dtype) for dtype in (np.uint8, np.int32, np.int32)]
        else:
            self.active = self.active[:rows, :columns].copy()
            self.ptx_line = self.ptx_line[:rows, :columns].copy()
            self.source_line = self.source_line[:rows, :columns].copy()
        self._row = self._row[:0]

    def _block_lines(self, block):
        lines = self._lines.get(block.gid)
        if lines is None:
            ptx = np.array([ins.line for ins in block.instructions], dtype=np.int32)
            src = np.array([ins.loc.line if ins.loc else 0 for ins in block.instructions], dtype=np.int32)
            lines = self._lines[block.gid] = (ptx, src)
        return lines

    # ------------------------------------------------------------ questions

    @property
    def warps(self) -> int:
        """Warps recorded (the first ones of the grid)."""
        return int(self.seen.sum())

    def recorded(self, warp: int) -> np.ndarray:
        """Active lanes of each recorded instruction of one warp."""
        return self.active[warp, :min(int(self.issued[warp]), self.max_issues)]

    def matrix(self) -> np.ma.MaskedArray:
        """(warps, columns) of active lanes; masked where a warp issued nothing."""
        width = int(min(self.issued[:self.warps].max(initial=0), self.max_issues))
        data = self.active[:self.warps, :max(width, 1)]
        filled = np.arange(data.shape[1])[None, :] < self.issued[:self.warps, None]
        return np.ma.masked_array(data, mask=~filled)

    def lanes_per_instruction(self, source_lines=None) -> float:
        """Mean active lanes per recorded warp instruction, optionally on some source lines only."""
        m = self.matrix()
        values = m.compressed() if source_lines is None else \
            m.data[~m.mask & np.isin(self.source_line[:m.shape[0], :m.shape[1]], list(source_lines))]
        return float(values.mean()) if len(values) else 0.0

    @property
    def truncated(self) -> bool:
        return self.total_warps > self.max_warps or bool((self.issued > self.max_issues).any())

    def describe(self) -> str:
        name = self.label or self.kernel
        grid = "x".join(str(v) for v in self.grid)
        block = "x".join(str(v) for v in self.block)
        note = f", first {self.warps} of {self.total_warps} warps" if self.total_warps > self.warps else ""
        return f"{name}  grid {grid}, block {block}{note}"


class SassActivityTrace(ActivityTrace):
    """The same trace, of a launch run on the SASS executor alone (sass/alone.py): per warp, the
    active lanes of each issued SASS instruction, with the PTX and source line ptxas gave it."""

    def sass_batch_started(self, st):
        self.kernel, self.grid, self.block = st.program.name, tuple(st.grid), tuple(st.block)
        self.warps_per_cta = st.warps_per_cta
        self.total_warps = int(np.prod(self.grid)) * st.warps_per_cta
        warp = np.arange(st.n_warps, dtype=np.int64)
        row = np.asarray(st.cta_ids, dtype=np.int64)[warp // st.warps_per_cta] * st.warps_per_cta + \
            warp % st.warps_per_cta
        self._row = np.where(row < self.max_warps, row, -1)
        recorded = self._row >= 0
        self._batch_recorded = bool(recorded.any())
        live = st.exists.reshape(-1, 32).sum(axis=1)
        self.live_lanes[self._row[recorded]] = live[recorded]
        self.seen[self._row[recorded]] = True
        self._lane_end = 32 * (int(np.flatnonzero(recorded)[-1]) + 1) if self._batch_recorded else 0

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        if not self._batch_recorded or not g.n:
            return
        warps, _, counts = g.warp_runs()
        if warps[-1] >= self._lane_end >> 5:    # only the recorded warps (they ascend)
            kept = int(np.searchsorted(warps, self._lane_end >> 5))
            warps, counts = warps[:kept], counts[:kept]
            if not len(warps):
                return
        if st.select is None:                   # no machine code for this batch (settings engine='numpy')
            self.block_executed(st, block, g.idx, warps, counts)
            return
        ptx_lines, source_lines = self._block_lines(block)
        record_issues(self.active, self.ptx_line, self.source_line, self.issued, self._row[warps], counts,
                      ptx_lines, source_lines)

    def sass_logged_warps(self, st):
        return self._row if self._batch_recorded else None

    def sass_compiled_rounds(self, st, record):
        """The issues of the recorded warps in the rounds the compiled loop ran, in order."""
        if not self._batch_recorded or not record.log_len.any():
            return
        lines = self._sass_program_lines(st.program)
        replay_issues(self.active, self.ptx_line, self.source_line, self.issued, record.log_block, record.log_lanes,
                      record.log_len, *lines)

    @staticmethod
    def _sass_program_lines(program):
        """(first line entry of each block, its steps, every block's ptx and source lines) of a program, kept
        on it: they depend on its instructions alone, and every launch's trace asks."""
        lines = program.__dict__.get("_activity_lines")
        if lines is None:
            steps = np.array([len(block.steps) for block in program.blocks], dtype=np.int64)
            starts = np.concatenate(([0], np.cumsum(steps)[:-1])).astype(np.int64)
            every = [step.ins for block in program.blocks for step in block.steps]
            lines = program.__dict__["_activity_lines"] = (
                starts, steps, np.array([ins.ptx_line or 0 for ins in every], dtype=np.int32),
                np.array([ins.source[1] if ins.source else 0 for ins in every], dtype=np.int32))
        return lines

    def _block_lines(self, block):
        lines = self._lines.get(("sass", block.index))
        if lines is None:
            steps = [step.ins for step in block.steps]
            ptx = np.array([ins.ptx_line or 0 for ins in steps], dtype=np.int32)
            src = np.array([ins.source[1] if ins.source else 0 for ins in steps], dtype=np.int32)
            lines = self._lines[("sass", block.index)] = (ptx, src)
        return lines


@njit(cache=True, nogil=True)
def record_issues(active, ptx_line, source_line, issued, rows, counts, ptx_lines, source_lines):
    """block_executed's writes as one machine-code call: for each warp's row (-1: not recorded) the
    block's instructions after its last issue, as many as fit, with the warp's active lanes (counts)
    and each instruction's lines. A SASS round issues a few blocks for up to max_warps warps each, where
    block_executed's dozen NumPy calls cost more than the writes."""
    k = ptx_lines.shape[0]
    for i in range(rows.shape[0]):
        row = rows[i]
        if row < 0:
            continue
        first = issued[row]
        for j in range(min(k, active.shape[1] - first)):
            active[row, first + j] = counts[i]
            ptx_line[row, first + j] = ptx_lines[j]
            source_line[row, first + j] = source_lines[j]
        issued[row] = first + k


@njit(cache=True, nogil=True)
def replay_issues(active, ptx_line, source_line, issued, log_block, log_lanes, log_len, starts, steps, ptx_lines,
                  source_lines):
    """record_issues for every issue the compiled round loop logged (row: the trace's row; log_block,
    log_lanes: per row, each issued block and its active lanes, in order)."""
    for row in range(log_len.shape[0]):
        for e in range(log_len[row]):
            b = log_block[row, e]
            k = steps[b]
            first = issued[row]
            for j in range(min(k, active.shape[1] - first)):
                active[row, first + j] = log_lanes[row, e]
                ptx_line[row, first + j] = ptx_lines[starts[b] + j]
                source_line[row, first + j] = source_lines[starts[b] + j]
            issued[row] = first + k
