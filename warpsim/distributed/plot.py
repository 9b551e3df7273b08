"""A sweep's table as a picture: one metric against one parameter, one line per variant."""

from __future__ import annotations


def plot_sweep(table, metric: str, against: str, by: str | None = None, path: str | None = None):
    """Draw `metric` against `against`, one line per value of `by` (default: 'variant' if present).

    Failed points are left out. Returns the matplotlib Figure; writes it to
    `path` (PNG, SVG, PDF by the suffix) when given.
    """
    import matplotlib
    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from pandas.api import types as pd_api

    if by is None and "variant" in table.columns:
        by = "variant"
    ok = table[table["ok"]] if "ok" in table.columns else table
    figure, axes = plt.subplots(figsize=(6.4, 4.0))
    groups = ok.groupby(by, sort=False) if by else [(None, ok)]
    numeric = pd_api.is_numeric_dtype(ok[against])
    for label, rows in groups:
        rows = rows.groupby(against, sort=numeric)[metric].mean()     # mean over the other parameters
        x = rows.index if numeric else [str(value) for value in rows.index]
        axes.plot(x, rows.values, marker="o", label=str(label) if by else None)
    axes.set_xlabel(against)
    axes.set_ylabel(metric)
    if by:
        axes.legend(title=by)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=120)
        plt.close(figure)
    return figure
