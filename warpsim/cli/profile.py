"""`warpsim profile`: run a Python program or a CUDA program and report every kernel launch, like ncu.

    warpsim profile python script.py args...
    warpsim profile ./app args...                             # a program built with `warpsim nvcc`
    warpsim profile --gpu h200 ./app                          # predicted times and the program's timeline
    warpsim profile --metrics smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum python script.py
    warpsim profile --csv python script.py > metrics.csv      # Nsight Compute's --csv layout
    warpsim profile --source python script.py                 # the kernel source with per-line numbers
    warpsim profile --level ptx python script.py              # PTX-level counts (default: SASS)
    warpsim profile -k regex:gemm --launch-skip 10 --launch-count 3 ./app   # as ncu -k/-s/-c
    warpsim profile --list-metrics

The program runs in this process (runpy) with its CuPy-style calls on
warpsim (`import warpsim as cp`) and, where numba-cuda is installed, its
Numba kernels too (as `warpsim run` does). A compiled program runs in its own
process, with the same profiler started there (warpsim.cli.program_tools); its
launches come back here, with the timeline of its kernels and copies on the
predicted GPU clock. The report goes to standard output after the program's own
output; the exit status is the program's.
"""

from __future__ import annotations

import argparse
import sys

from .run import run_script, strip_interpreter
from ..metrics.names import METRICS, SASS_NOTES, unknown_metrics
from ..profiler import profile
from ..sessions import SessionStack, observer_source


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim profile", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Counts are of SASS instructions where the SASS executor covers "
                                       "the launch (--level sass), else of PTX instructions; memory "
                                       "requests, sectors, wavefronts and bank conflicts follow from the "
                                       "addresses.")
    p.add_argument("--metrics", help="comma-separated metric names to report (default: all)")
    p.add_argument("--csv", action="store_true", help="print Nsight Compute's --csv layout")
    p.add_argument("--level", choices=("sass", "ptx"), default="sass",
                   help="count SASS instructions (default: the kernel's SASS runs beside the PTX run; "
                        "PTX counts, with a note, where it cannot) or PTX instructions")
    p.add_argument("--source", action="store_true",
                   help="also print each kernel's source lines with their numbers")
    p.add_argument("--sass", action="store_true",
                   help="also print each kernel's SASS with source and PTX lines and the warp-level "
                        "executions of every instruction (at --level sass)")
    p.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
    p.add_argument("--kernel", metavar="TEXT", help="profile only launches of kernels whose name "
                                                    "contains TEXT (the others run unprofiled)")
    p.add_argument("-k", "--kernel-name", metavar="NAME",
                   help="as ncu's: profile only launches of the kernel whose function name is NAME "
                        "(`f`, `ns::f` or the mangled name), or whose name matches regex:EXPR")
    p.add_argument("--launch-skip", metavar="N", type=int, default=0,
                   help="as ncu's -s: skip the first N launches that match the filters")
    p.add_argument("--launch-count", metavar="N", type=int, default=None,
                   help="as ncu's -c: profile at most N launches that match the filters (after the "
                        "skipped ones); the program runs on, its other launches unprofiled")
    p.add_argument("--width", type=int, default=None, help="report width in characters")
    p.add_argument("--list-metrics", action="store_true", help="list the metrics and exit")
    p.add_argument("--gpu", metavar="NAME", default=None,
                   help="predict each launch's time on this GPU (h200, h100, a100, l4; or WARPSIM_GPU)")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="python script.py args... (or -m module args..., -c code)")
    return p


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
    program = strip_interpreter(args.program)
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
    failures = []
    token = _FAILED_LAUNCHES.push(failures, all_threads=True)
    try:
        import contextlib
        from ..settings import settings as _settings
        chosen = _settings(gpu=args.gpu) if args.gpu else contextlib.nullcontext()
        try:
            profiler = profile(names, level=args.level, kernel_name=args.kernel_name, kernel=args.kernel,
                               launch_skip=args.launch_skip, launch_count=args.launch_count, all_threads=True)
        except ValueError as error:
            print(f"warpsim profile: {error}", file=sys.stderr)
            return 2
        with chosen, profiler as prof:
            status = run_script(program)     # Numba kernels on warpsim as well
    finally:
        _FAILED_LAUNCHES.pop(token)
    sys.stdout.flush()
    if not prof.launches and (failures or status):
        print(f"warpsim profile: {_why_nothing_was_profiled(failures, status)}", file=sys.stderr)
    elif args.csv:
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


class _LaunchFailureWatch:
    """Notes each launch that failed, so an empty report can say why it is empty."""

    def __init__(self, failures: list):
        self.failures = failures

    def launch_failed(self, ctx, exc):
        self.failures.append((ctx.kernel, type(exc).__name__))


_FAILED_LAUNCHES = SessionStack("warpsim_profile_failures", listed=False)   # a `warpsim profile` run's list


@observer_source
def _watch_failures(launch) -> tuple:
    active = _FAILED_LAUNCHES.active()
    return (_LaunchFailureWatch(active[-1]),) if active else ()


def _why_nothing_was_profiled(failures: list, status: int) -> str:
    if failures:
        kernel, error = failures[0]
        more = f" ({len(failures)} launches failed)" if len(failures) > 1 else ""
        return (f"the launch of kernel '{kernel}' failed ({error}, shown above){more}, so no "
                f"launch completed and there is nothing to report")
    return (f"the program failed (exit status {status}) before any kernel launch completed, so "
            f"there is nothing to report; its error is shown above")


def _print_report(prof, args) -> None:
    from ..report.console import make_console
    from ..report.terminal import print_report
    console = make_console(width=args.width)
    if not prof.launches:
        console.print("warpsim profile: no kernel launches were profiled")
        return
    for launch in prof.launches:
        print_report(console, launch)
        if getattr(launch, "timing", None) is not None and launch.timing.lines:
            from ..report.stall_lines import stall_lines_table
            print_report(console, stall_lines_table(launch.timing, sources=launch.sources))
        if args.source:
            print_report(console, launch.source_view())
        if args.sass:
            console.print(sass_listing(launch), highlight=False, markup=False)
    if prof.timeline:                   # a compiled program's kernels and copies (warpsim profile ./app)
        from ..report.timeline import timeline_table
        console.print(timeline_table(prof.timeline, gpu=args.gpu or ""))


def sass_listing(launch) -> str:
    """The launch's SASS, each instruction with its executions, under the source and PTX lines it came from."""
    rows = getattr(launch, "code", None)
    if not rows:
        return f"  (no SASS counts: the profile is at PTX level{': ' + launch.level_note if launch.level_note else ''})"
    from ..metrics.lines import read_source
    out, shown, texts = [], None, {}
    for r in rows:
        if (r.source_file, r.source_line) != shown and r.source_line:
            shown = (r.source_file, r.source_line)
            if r.source_file not in texts:
                texts[r.source_file] = read_source(r.source_file, launch.sources) or []
            text = texts[r.source_file]
            code = text[r.source_line - 1].strip() if 0 < r.source_line <= len(text) else ""
            out.append(f"  //## {r.source_file.rsplit('/', 1)[-1]}:{r.source_line}  {code}")
        ptx = f"   // PTX {r.ptx_line}: {r.ptx_text}" if r.ptx_line else ""
        out.append(f"  {r.offset:04x}  {r.executions if r.executions is not None else '':>8}  "
                   f"{r.sass_text:<44}{ptx}")
    return "\n".join(out)
