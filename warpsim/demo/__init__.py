"""`warpsim demo`: the worked examples of the SIMT document, reproduced on warpsim.

    warpsim demo               every demo, about 18 s of CPU (bench/everyday.py)
    warpsim demo NAME [NAME]   some of them (warpsim demo --list names them)
    warpsim demo --charts DIR  also write each demo's lane-activity chart as DIR/NAME.png
    warpsim demo --html FILE   also write one HTML report of every launch the demos made

Each demo prints what it shows and its measured figures beside the document's
claims; the exit status is 1 when a figure disagrees with the document.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

DEMOS = ["simd", "divergence", "loops", "predication", "reduction", "atomics", "partial_warp",
         "scheduling", "masks", "coalescing", "occupancy", "waves", "cooperative", "profile"]


def load(name: str):
    """The module of one demo, by name ('-' or '_' alike)."""
    key = name.replace("-", "_")
    if key not in DEMOS:
        raise KeyError(f"no demo named '{name}' (demos: {', '.join(DEMOS)})")
    return importlib.import_module(f"{__name__}.{key}")


def run_demo(name: str, console=None, **options):
    """Run one demo and return its DemoResult (printing on `console` when given); options go to
    the demo's run() (e.g. cooperative's lengths)."""
    module = load(name)
    result = module.run(console, **options)
    result.claim = " ".join(getattr(module, "CLAIM", "").split())
    return result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim demo", description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="demos to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the demos and exit")
    p.add_argument("--charts", metavar="DIR", help="write each demo's lane-activity chart to DIR/NAME.png")
    p.add_argument("--html", metavar="FILE", help="write an HTML report of every demo launch")
    return p


def main(argv=None) -> int:
    from ..report.console import make_console
    from .common import say
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    console = make_console(highlight=False)
    if args.list:
        for name in DEMOS:
            module = load(name)
            say(console, "  ", (f"{name:<13}", "bold"), f" {module.TITLE}")
        return 0
    try:
        names = [load(n).NAME for n in args.names] or DEMOS
    except KeyError as exc:
        say(console, (f"warpsim demo: {exc.args[0]}", "red"))
        return 2
    start = time.perf_counter()
    results = []
    for name in names:
        results.append(run_demo(name, console))
    summary(console, results, time.perf_counter() - start)
    if args.charts:
        write_charts(console, results, args.charts)
    if args.html:
        from ..report.html import write_demo_report
        add_sass_views(results)
        write_demo_report(results, args.html)
        say(console, f"HTML report: {args.html}")
    return 0 if all(r.ok for r in results) else 1


def summary(console, results, seconds: float):
    from ..report.terminal import table as make_table
    if len(results) < 2:
        return
    table = make_table(f"warpsim demo: {len(results)} demos in {seconds:.1f} s",
                       ["demo", "what it shows", ("figures as the document says", dict(justify="center"))])
    for r in results:
        good = sum(row.ok for row in r.rows)
        table.add_row(r.name, r.title, (f"{good}/{len(r.rows)}", "green" if r.ok else "red"))
    console.print()
    console.print(table)


def add_sass_views(results):
    """Give every charted launch its source/PTX/SASS view (launches profiled at PTX level have none
    yet; their SASS comes from ptxas, without execution counts). Triton launches keep none."""
    from ..metrics.code_view import code_view
    for r in results:
        for run in r.runs:
            if run.profile is not None and run.profile.code is None and run.fn is not None:
                run.profile.code = code_view(run.fn.loaded_module, run.fn.kernel_name)


def write_charts(console, results, folder: str):
    import os
    from .common import say
    from ..report.activity import save_chart
    os.makedirs(folder, exist_ok=True)
    for r in results:
        traces = [run.trace for run in r.runs if run.trace.warps]
        if traces:
            path = save_chart(traces, os.path.join(folder, f"{r.name}.png"), title=r.title)
            say(console, f"chart: {path}")
