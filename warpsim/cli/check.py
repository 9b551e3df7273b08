"""`warpsim check`: run a Python program with the sanitizer on, like compute-sanitizer.

    warpsim check python script.py args...                 # all four tools
    warpsim check --tool racecheck python script.py         # one tool (repeat --tool for more)
    warpsim check --tool memcheck,initcheck --print-limit 10 python script.py

The program runs in this process with its CuPy-style calls on warpsim and its
Numba kernels too (as `warpsim run` does). Each error is printed when its
launch ends, in compute-sanitizer's layout; "ERROR SUMMARY: N errors" comes
last. A program that fails (an uncaught exception, a launch that faulted, a
non-zero exit) is reported as compute-sanitizer reports it, "Target application
returned an error" with the exit status and why; as there, the ERROR SUMMARY counts
the tools' errors only (a failed program with none reads "0 errors", as
compute-sanitizer on an H200 does). The exit status is the program's own when it
failed, else 1 when errors were found, else 0.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .run import run_program, strip_interpreter
from ..sanitizer.report import PREFIX, summary_line
from ..sanitizer.session import DEFAULT_PRINT_LIMIT, TOOLS, check, parse_tools


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim check", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=f"tools: {', '.join(TOOLS)} (default: all); docs/sanitizer.md "
                                       "says what each detects")
    p.add_argument("--tool", action="append", metavar="NAME",
                   help="a tool to run: memcheck, racecheck, initcheck, synccheck or all "
                        "(repeat, or separate with commas; default: all)")
    p.add_argument("--print-limit", type=int, default=DEFAULT_PRINT_LIMIT, metavar="N",
                   help=f"print at most N errors (default {DEFAULT_PRINT_LIMIT}; 0: all); "
                        "the summary counts every error")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="python script.py args... (or -m module args..., -c code)")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        tools = parse_tools(args.tool or TOOLS)
    except ValueError as exc:
        print(f"warpsim check: {exc}", file=sys.stderr)
        return 2
    program = strip_interpreter(args.program)
    if not program:
        print("usage: warpsim check [--tool NAME]... [--print-limit N] python script.py [args...]",
              file=sys.stderr)
        return 2
    out = sys.stdout
    out.write(f"{PREFIX}COMPUTE-SANITIZER (warpsim check: {', '.join(tools)})\n")
    out.flush()
    with warnings.catch_warnings():
        if "synccheck" in tools:         # its errors say the same as the machine's SyncWarnings
            from ..machine.device import SyncWarning
            warnings.simplefilter("ignore", SyncWarning)
        with check(tools, print_limit=args.print_limit, stream=out, all_threads=True) as checker:
            outcome = run_program(program)
    sys.stdout.flush()
    sys.stderr.flush()                   # the program's traceback before the report's last lines
    shown = args.print_limit if args.print_limit else len(checker.errors)
    if len(checker.errors) > shown:
        out.write(f"{PREFIX}... {len(checker.errors) - shown} more error(s) not printed "
                  f"(--print-limit {args.print_limit})\n")
    if outcome.status != 0:
        checker.target_failed(outcome.status, outcome.reason)
    out.write(summary_line(len(checker.errors)))
    out.flush()
    return outcome.status or (1 if checker.errors else 0)


if __name__ == "__main__":
    sys.exit(main())
