"""Sweeps: one kernel (or script) over a grid of parameters, one Dask task per point.

    table = warpsim.sweep(SOURCE, {"block": [64, 128, 256], "n": [1 << 16, 1 << 20]},
                          name="saxpy", args=lambda p: (np.float32(2), x(p), y(p), np.int32(p["n"])))

The kernel is CUDA source (with `name=`), a .cu path, a RawKernel, a dict
{variant: one of those} (which adds a `variant` parameter), a Python callable
(called with the point as keyword arguments; it launches what it likes and
may return a dict of extra columns) or a .py script (run with the point as
`--name value` arguments). Points run on the workers (warpsim.distributed.points);
the table has one row per point in the order of the grid, with its error if
it failed. A LocalCluster (every core) starts and stops around the sweep
unless `scheduler=` names a running one.
"""

from __future__ import annotations

import itertools
import os
import sys

from . import cluster


def sweep(kernel, params, *, name: str | None = None, args=None, grid=None, options=(),
          scheduler=None, workers: int | None = None, progress: bool | None = None,
          csv: str | None = None, parquet: str | None = None):
    """Run every point of `params` as a Dask task; a pandas DataFrame, one row per point.

    params: {name: [values]} (every combination) or a list of point dicts.
    args(point) -> the kernel's arguments (NumPy arrays are copied to the
    device); grid(point) -> the grid (default: the point's `grid`, else enough
    blocks for its `n` threads). csv/parquet: also write the table there.
    progress: Dask's progress bar (default: when stderr is a terminal).
    """
    import pandas as pd
    from .points import run_point
    task = _task(kernel, name, args, grid, options)
    points = _points(params)
    if task["kind"] == "cuda" and len(task["kernels"]) > 1 and not any("variant" in p for p in points):
        points = [dict(point, variant=variant) for point in points for variant in task["kernels"]]
    show = sys.stderr.isatty() if progress is None else progress
    with cluster.client_for_sweep(scheduler, workers) as client:
        if show:
            link = cluster.dashboard_link(client)
            print(f"warpsim sweep: {len(points)} points on {cluster.worker_count(client)} workers"
                  + (f", dashboard {link}" if link else ""), file=sys.stderr)
        [task_future] = client.scatter([task], broadcast=True, hash=False)   # a list: a dict would scatter per key
        futures = [client.submit(run_point, task_future, point, pure=False) for point in points]
        if show:
            from dask.distributed import progress as dask_progress
            dask_progress(futures)
            print(file=sys.stderr)
        rows = [_row_of(future, point) for future, point in zip(futures, points)]
    table = pd.DataFrame(rows, columns=_columns(rows))
    if csv:
        table.to_csv(csv, index=False)
    if parquet:
        table.to_parquet(parquet, index=False)
    return table


def _row_of(future, point) -> dict:
    """The point's row; a worker that died under it (out of memory, a crash) makes an error row."""
    try:
        return future.result()
    except Exception as exc:        # noqa: BLE001 -- KilledWorker, CancelledError, ...
        from .points import _cell
        row = {name: _cell(value) for name, value in point.items()}
        row.update(ok=False, error=f"{type(exc).__name__}: {exc}", launches=0, seconds=float("nan"))
        return row


def _columns(rows) -> list:
    """Parameters first, then ok/error, the predicted time (when a GPU was chosen), the key
    metrics, seconds."""
    from .points import KEY_METRICS, PREDICTED
    names = list(dict.fromkeys(name for row in rows for name in row))
    fixed = ["ok", "error", "launches", PREDICTED, *KEY_METRICS, "seconds"]
    params = [n for n in names if n not in fixed]
    return params + [n for n in fixed if n in names]


def _points(params) -> list:
    if isinstance(params, dict):
        names = list(params)
        values = [v if isinstance(v, (list, tuple, range)) and not _is_dim3(v) else [v]
                  for v in params.values()]
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]
    return [dict(point) for point in params]


def _is_dim3(value) -> bool:
    """(256, 1, 1) is one block shape, not three values to sweep: tuples of ints stay whole."""
    return isinstance(value, tuple) and all(isinstance(v, int) for v in value)


def _task(kernel, name, args, grid, options) -> dict:
    """What every point shares, sent to each worker once."""
    if callable(kernel) and not hasattr(kernel, "code"):
        return {"kind": "callable", "function": kernel}
    if isinstance(kernel, (str, os.PathLike)) and str(kernel).endswith(".py") and os.path.exists(kernel):
        return {"kind": "script", "path": os.path.abspath(kernel)}
    variants = kernel if isinstance(kernel, dict) else {"default": kernel}
    kernels = {variant: _kernel_spec(spec, name, options) for variant, spec in variants.items()}
    return {"kind": "cuda", "kernels": kernels, "default_variant": next(iter(kernels)),
            "args": args, "grid": grid}


def _kernel_spec(spec, name, options) -> dict:
    if hasattr(spec, "code") and hasattr(spec, "name"):          # a RawKernel
        return {"source": spec.code, "name": spec.name, "options": tuple(spec.options) + tuple(options)}
    if isinstance(spec, tuple):                                   # (source, name)
        spec, name = spec
    text = str(spec)
    if text.endswith((".cu", ".cuh")) and os.path.exists(text):
        with open(text, encoding="utf-8") as handle:
            text = handle.read()
    if not name:
        raise TypeError("sweep of CUDA source needs name= (the kernel's extern \"C\" name)")
    return {"source": text, "name": name, "options": tuple(options)}
