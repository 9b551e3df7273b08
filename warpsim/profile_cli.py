"""`warpsim profile`: run a Python program and report every kernel launch, like ncu.

    warpsim profile python script.py args...
    warpsim profile --metrics smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum python script.py
    warpsim profile --csv python script.py > metrics.csv      # Nsight Compute's --csv layout
    warpsim profile --source python script.py                 # the kernel source with per-line numbers
    warpsim profile --list-metrics

The program runs in this process (runpy) with its CuPy-style calls on
warpsim (`import warpsim as cp`) and, where numba-cuda is installed, its
Numba kernels too (as `warpsim run` does). The report goes to standard output
after the program's own output; the exit status is the program's.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import sys
import traceback

from .metrics.names import METRICS, SASS_NOTES, unknown_metrics
from .profiler import profile


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim profile", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Counts are of PTX instructions; memory requests, sectors, "
                                       "wavefronts and bank conflicts follow from the addresses.")
    p.add_argument("--metrics", help="comma-separated metric names to report (default: all)")
    p.add_argument("--csv", action="store_true", help="print Nsight Compute's --csv layout")
    p.add_argument("--source", action="store_true",
                   help="also print each kernel's source lines with their numbers")
    p.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
    p.add_argument("--kernel", metavar="NAME", help="report only launches of kernels whose name "
                                                    "contains NAME")
    p.add_argument("--width", type=int, default=None, help="report width in characters")
    p.add_argument("--list-metrics", action="store_true", help="list the metrics and exit")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="python script.py args... (or -m module args..., -c code)")
    return p


def _strip_interpreter(argv: list) -> list:
    if argv and os.path.basename(argv[0]).startswith("python") and not argv[0].endswith(".py"):
        return argv[1:]
    return argv


def run_program(argv: list) -> int:
    """Run `script.py args` / `-m module args` / `-c code` here; its exit status."""
    if importlib.util.find_spec("numba") is not None:
        from .frontends.numba_runner import run_script   # Numba kernels on warpsim as well
        return run_script(argv)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        if argv[0] == "-m" and len(argv) > 1:
            sys.argv = [argv[1]] + argv[2:]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        elif argv[0] == "-c" and len(argv) > 1:
            sys.argv = ["-c"] + argv[2:]
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            if not os.path.exists(argv[0]):
                print(f"warpsim profile: can't open file '{argv[0]}'", file=sys.stderr)
                return 2
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
        return 0
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def list_metrics() -> str:
    width = max(len(m.name) for m in METRICS)
    lines = []
    for m in METRICS:
        lines.append(f"{m.name:<{width}}  {m.unit or '-':<16} {m.description}")
        if m.name in SASS_NOTES:
            lines.append(f"{'':<{width}}  {'':<16} ({SASS_NOTES[m.name]})")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.list_metrics:
        print(list_metrics())
        return 0
    program = _strip_interpreter(args.program)
    if not program:
        print("usage: warpsim profile [--metrics a,b] [--csv] [--source] [--html FILE] "
              "python script.py [args...]", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.metrics.split(",") if n.strip()] if args.metrics else None
    if names:
        unknown = unknown_metrics(names)
        if unknown:
            print(f"warpsim profile: unknown metric(s): {', '.join(unknown)} "
                  "(warpsim profile --list-metrics lists them)", file=sys.stderr)
            return 2
    with profile(names) as prof:
        status = run_program(program)
    if args.kernel:
        prof.launches = [launch for launch in prof.launches if args.kernel in launch.kernel_name]
    sys.stdout.flush()
    if args.csv:
        sys.stdout.write(prof.to_csv(names))
    else:
        _print_report(prof, args)
    if args.html:
        try:
            prof.write_html(args.html)
        except NotImplementedError as exc:
            print(f"warpsim profile: --html: {exc}", file=sys.stderr)
            return status or 2
    return status


def _print_report(prof, args) -> None:
    from .report.console import make_console
    console = make_console(width=args.width)
    if not prof.launches:
        console.print("warpsim profile: no kernel launches were profiled")
        return
    for launch in prof.launches:
        console.print(launch)
        if args.source:
            console.print(launch.source_view())
