"""Lane activity of a launch, warp by warp, and its picture.

`ActivityTrace` is a launch observer (see LoadedModule.launch). For the first
`max_warps` warps of the grid it records every issued warp instruction, up to
`max_issues` per warp: how many lanes were active, its PTX line and its source
line. Recording is vectorized over the warps that ran a basic block, and bounded
(max_warps x max_issues bytes of lane counts), so a trace can stay attached to a
launch of millions of threads; warps past the cap are counted, not recorded.

`lane_activity_figure` draws the trace: one row per warp, one column per issued
instruction in that warp's own order, colour = active lanes. Divergent regions
show as runs of a lower colour (16 lanes for an even/odd branch), a partly
empty warp as a row that is never full. `chart_png` / `chart_data_uri` render it
with matplotlib's Agg backend (no display needed) for files and HTML.
"""

from __future__ import annotations

import base64
import io

import numpy as np

__all__ = ["ActivityTrace", "lane_activity_figure", "save_chart", "chart_png", "chart_data_uri"]


class ActivityTrace:
    """Observer: per warp, the active-lane count of each issued instruction (bounded)."""

    def __init__(self, max_warps: int = 64, max_issues: int = 4096, label: str = ""):
        self.max_warps, self.max_issues = int(max_warps), int(max_issues)
        self.label = label
        self.kernel, self.grid, self.block = "", (1, 1, 1), (1, 1, 1)
        self.warps_per_cta = 0
        self.total_warps = 0                                     # warps in the whole grid
        self.active = np.zeros((self.max_warps, self.max_issues), dtype=np.uint8)
        self.ptx_line = np.zeros((self.max_warps, self.max_issues), dtype=np.int32)
        self.source_line = np.zeros((self.max_warps, self.max_issues), dtype=np.int32)
        self.issued = np.zeros(self.max_warps, dtype=np.int64)   # per recorded warp, uncapped
        self.live_lanes = np.zeros(self.max_warps, dtype=np.int64)
        self.seen = np.zeros(self.max_warps, dtype=bool)
        self._row = np.zeros(0, dtype=np.int64)                  # batch warp -> row (-1: not recorded)
        self._lines: dict[int, tuple] = {}                       # block gid -> (ptx lines, source lines)

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
        live = ctx.exists.reshape(-1, 32).sum(axis=1)
        self.live_lanes[self._row[recorded]] = live[recorded]
        self.seen[self._row[recorded]] = True

    def block_executed(self, ctx, block, idx, warps):
        if not len(warps):
            return
        rows = self._row[warps]
        keep = rows >= 0
        if not keep.any():
            return
        warp_of_lane = idx >> 5
        starts = np.searchsorted(warp_of_lane, warps)
        counts = np.diff(np.append(starts, len(idx)))
        rows, counts = rows[keep], counts[keep]
        ptx_lines, source_lines = self._block_lines(block)
        k = len(ptx_lines)
        column = self.issued[rows][:, None] + np.arange(k)
        inside = column < self.max_issues
        if inside.any():
            r = np.broadcast_to(rows[:, None], column.shape)[inside]
            c = column[inside]
            self.active[r, c] = np.broadcast_to(counts[:, None], column.shape)[inside]
            self.ptx_line[r, c] = np.broadcast_to(ptx_lines, column.shape)[inside]
            self.source_line[r, c] = np.broadcast_to(source_lines, column.shape)[inside]
        self.issued[rows] += k

    def batch_finished(self, ctx):
        pass

    def launch_finished(self, result):
        """Called by LoadedModule.launch for profiling observers; nothing left to do."""

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


# ------------------------------------------------------------ pictures

def _pyplot():
    import matplotlib
    matplotlib.use("Agg", force=False)   # no display: files and HTML only
    import matplotlib.pyplot as plt
    return plt


def lane_activity_figure(traces, title: str = ""):
    """A matplotlib Figure: one panel per trace, warps as rows, issued instructions as columns."""
    plt = _pyplot()
    from matplotlib.colors import BoundaryNorm, ListedColormap
    traces = [traces] if isinstance(traces, ActivityTrace) else list(traces)
    heights = [max(t.warps, 1) for t in traces]
    fig_height = 1.2 + sum(0.6 + min(0.28 * h, 3.5) for h in heights)
    fig, axes = plt.subplots(len(traces), 1, figsize=(10, fig_height), squeeze=False, layout="constrained",
                             gridspec_kw={"height_ratios": [min(h, 12) + 2 for h in heights]})
    base = plt.get_cmap("viridis")
    cmap = ListedColormap([base(i / 31) for i in range(32)]).with_extremes(bad="#f4f4f4")
    norm = BoundaryNorm(np.arange(0.5, 33.5, 1.0), 32)
    image = None
    width = max((t.matrix().shape[1] for t in traces), default=1)
    for ax, trace in zip(axes[:, 0], traces):
        m = trace.matrix()
        image = ax.imshow(m, aspect="auto", interpolation="nearest", cmap=cmap, norm=norm,
                          extent=(0, m.shape[1], m.shape[0], 0))
        ax.set_xlim(0, width)
        ax.set_facecolor("#f4f4f4")
        ax.set_title(f"{trace.describe()}   mean {trace.lanes_per_instruction():.1f} active lanes "
                     f"per instruction", fontsize=9, loc="left")
        step = max(1, int(np.ceil(m.shape[0] / 12)))
        ticks = np.arange(0, m.shape[0], step)
        wpc = max(trace.warps_per_cta, 1)
        ax.set_yticks(ticks + 0.5)
        ax.set_yticklabels([f"b{t // wpc} w{t % wpc}" for t in ticks], fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("issued warp instructions, in each warp's own order", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    if image is not None:
        bar = fig.colorbar(image, ax=axes[:, 0].tolist(), ticks=[1, 4, 8, 16, 24, 32], shrink=min(1.0, 6 / fig_height),
                           aspect=30, pad=0.01)
        bar.set_label("active lanes", fontsize=8)
        bar.ax.tick_params(labelsize=7)
    return fig


def chart_png(traces, title: str = "", dpi: int = 110) -> bytes:
    """The lane-activity chart as PNG bytes."""
    plt = _pyplot()
    fig = lane_activity_figure(traces, title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def save_chart(traces, path, title: str = "", dpi: int = 110) -> str:
    """Write the lane-activity chart to `path` (PNG) and return the path."""
    data = chart_png(traces, title, dpi)
    with open(path, "wb") as handle:
        handle.write(data)
    return str(path)


def chart_data_uri(traces, title: str = "", dpi: int = 96) -> str:
    """The chart as a data: URI, for an <img> in a self-contained HTML page."""
    return "data:image/png;base64," + base64.b64encode(chart_png(traces, title, dpi)).decode("ascii")


# ------------------------------------------------------------ terminal

_BARS = " ▁▂▃▄▅▆▇█"


def terminal_strips(trace: ActivityTrace, warps=4, width: int = 64):
    """A rich Text: per warp (the first `warps`, or those listed), its issued
    instructions squeezed into `width` cells.

    Each cell shows the mean active lanes of the instructions it covers as a bar
    height (a full bar is 32 lanes) and a colour (green full, yellow half, red few).
    """
    from rich.text import Text
    m = trace.matrix()
    text = Text()
    columns = m.shape[1]
    per_cell = max(1, int(np.ceil(columns / width)))
    wpc = max(trace.warps_per_cta, 1)
    rows = range(min(warps, m.shape[0])) if isinstance(warps, int) else [w for w in warps if w < m.shape[0]]
    for w in rows:
        issued = int(trace.issued[w])
        row = m[w, :min(issued, columns)]
        text.append(f"  {f'b{w // wpc} w{w % wpc}':<9}", style="dim")
        for start in range(0, len(row), per_cell):
            cell = row[start:start + per_cell]
            lanes = float(cell.mean())
            level = max(1, int(round(lanes / 32 * 8)))
            style = "green" if lanes > 28 else "yellow" if lanes > 12 else "red"
            text.append(_BARS[level], style=style)
        text.append(f"  {issued} issued, {float(row.mean()) if len(row) else 0:.1f} lanes avg\n",
                    style="dim")
    return text
