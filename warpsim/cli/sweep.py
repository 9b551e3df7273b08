"""`warpsim sweep`: a kernel or script over a grid of parameters on Dask, to a table and a plot.

    warpsim sweep kernel.cu --name saxpy -p block=64,128,256 -p n=65536,1048576 \\
        --csv out.csv --parquet out.parquet --plot out.png --metric simt_efficiency_pct --against block
    warpsim sweep tune.py -p block=64,128 -p variant=naive,tiled        (a script gets --block 64 ...)
    warpsim sweep kernel.cu --name k -p block=128 --variant tiled=tiled.cu --scheduler tcp://host:8786
    warpsim sweep kernel.cu --name k -p block=64,128 -p gpu=h200,a100     (or --gpu h200)

Without --args, a CUDA kernel's arguments come from `n` (warpsim.distributed.points.default_args);
--args file.py:function names a function(point) -> arguments. Without --scheduler a LocalCluster
of --workers processes (every core) starts and stops around the sweep. With a GPU chosen
(-p gpu=..., --gpu or WARPSIM_GPU) each row has the predicted time of its last launch on that
GPU, predicted_time_us. The exit status is 1 when any point failed.
"""

from __future__ import annotations

import argparse
import ast
import runpy
import sys


def _value(text: str):
    """'128' -> 128, '1.5' -> 1.5, '(16,16)' -> (16, 16), anything else stays text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _parameter(text: str) -> tuple:
    name, sep, values = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=V1,V2,..., got {text!r}")
    items, depth, current = [], 0, ""
    for char in values:                      # commas inside (16,16) do not split
        depth += char in "([" 
        depth -= char in ")]"
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    items.append(current)
    return name, [_value(item.strip()) for item in items if item.strip()]


def _function(spec: str):
    path, _, name = spec.rpartition(":")
    if not path:
        raise SystemExit(f"warpsim sweep: --args wants FILE.py:FUNCTION, got {spec!r}")
    return runpy.run_path(path)[name]


def _summary(table, metric: str):
    """The terminal's view: parameters, ok, the predicted time (when a GPU was chosen), the plotted
    metric, seconds, the error's first line."""
    from ..distributed.points import KEY_METRICS, PREDICTED
    fixed = {"ok", "error", "launches", "seconds", PREDICTED, *KEY_METRICS}
    columns = [c for c in table.columns if c not in fixed] + ["ok"]
    columns += [PREDICTED] if PREDICTED in table.columns else []
    columns += [metric] if metric in table.columns and metric != PREDICTED else []
    view = table[columns + ["seconds"]].copy()
    view["error"] = table["error"].fillna("").map(lambda text: text.split("\n")[0][:70])
    return view


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim sweep", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernel", help="a .cu file (with --name) or a .py script")
    p.add_argument("--name", help="the kernel's name in the .cu file")
    p.add_argument("-p", "--param", action="append", type=_parameter, default=[],
                   metavar="NAME=V1,V2", help="a parameter and its values (repeat; every combination runs)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=FILE.cu",
                   help="another kernel variant (same --name); the first file is variant 'default'")
    p.add_argument("--args", help="FILE.py:FUNCTION, function(point) -> the kernel's arguments")
    p.add_argument("--option", action="append", default=[], help="an NVRTC option (repeat)")
    p.add_argument("--gpu", help="predict each point's time on this GPU (h200, h100, a100, l4): -p gpu=NAME")
    p.add_argument("--scheduler", help="a running Dask scheduler, tcp://host:port")
    p.add_argument("--workers", type=int, help="LocalCluster worker processes (default: every core)")
    p.add_argument("--csv", help="write the table as CSV")
    p.add_argument("--parquet", help="write the table as Parquet")
    p.add_argument("--plot", help="draw --metric against --against, one line per variant (PNG, SVG, PDF)")
    p.add_argument("--metric", default="simt_efficiency_pct")
    p.add_argument("--against", default="block")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv) -> int:
    ns = parser().parse_args(argv)
    from ..distributed import sweep
    from ..distributed.plot import plot_sweep
    kernel = ns.kernel
    if ns.variant:
        kernel = {"default": ns.kernel}
        for item in ns.variant:
            name, _, path = item.partition("=")
            kernel[name] = path
    params = dict(ns.param) or {"n": [1]}
    if ns.gpu and "gpu" not in params:
        params["gpu"] = [ns.gpu]
    table = sweep(kernel, params, name=ns.name, options=tuple(ns.option),
                  args=_function(ns.args) if ns.args else None, scheduler=ns.scheduler,
                  workers=ns.workers, progress=False if ns.no_progress else None,
                  csv=ns.csv, parquet=ns.parquet)
    print(_summary(table, ns.metric).to_string(index=False))
    if ns.plot:
        plot_sweep(table, ns.metric, ns.against, path=ns.plot)
        print(f"plot: {ns.plot}")
    failed = int((~table["ok"]).sum())
    if failed:
        print(f"{failed} of {len(table)} points failed (see the error column)", file=sys.stderr)
    return 1 if failed else 0
