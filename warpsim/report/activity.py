"""Pictures of lane activity: one row per warp, one column per issued instruction.

`lane_activity_figure` draws an ActivityTrace (warpsim.metrics.activity): one
row per warp, one column per issued instruction in that warp's own order,
colour = active lanes. Divergent regions show as runs of a lower colour (16
lanes for an even/odd branch), a partly empty warp as a row that is never
full. `chart_png` / `chart_data_uri` render it with matplotlib's Agg backend
(no display needed) for files and HTML; `terminal_strips` for a terminal.
"""

from __future__ import annotations

import base64
import io

import numpy as np

from ..metrics.activity import ActivityTrace

__all__ = ["ActivityTrace", "lane_activity_figure", "save_chart", "chart_png", "chart_data_uri"]


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
    from .terminal import text as styled_text
    m = trace.matrix()
    text = styled_text()
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
