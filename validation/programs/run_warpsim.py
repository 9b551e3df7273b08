"""Here: build tests/runtime/programs/*.cu with `warpsim nvcc` and run them with `warpsim run`, as the tests do.

    python validation/programs/run_warpsim.py --out /tmp/programs         # writes /tmp/programs/warpsim.json
    python validation/programs/run_warpsim.py --out DIR --only fault,race_check_all

The same cases as run_native.py (cases.py: options, arguments, inputs); the runs the tests
make under `warpsim check` run under it. By default the options are the tests' own, so
programs without an architecture option are built for nvcc's default target, as in
the tests; --arch sm_90 adds -arch=sm_90 where run_native.py does.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES, Case, compile_arguments  # noqa: E402
from harness import Side, run_all  # noqa: E402
from run_native import ARCH_OPTIONS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def warpsim_side(arch: str | None) -> Side:
    warpsim = [sys.executable, "-m", "warpsim"]

    def build(case: Case, binary: Path) -> list:
        extra = [f"-arch={arch}"] if arch and not any(o.split("=")[0] in ARCH_OPTIONS for o in case.options) else []
        work = binary.parent.parent                   # binaries are WORK/bin/NAME
        return [*warpsim, "nvcc", *extra, *compile_arguments(case, work), "-o", binary]

    def run(case: Case, binary: Path) -> dict:
        if not case.sanitizer:
            return {"run": [*warpsim, "run", binary, *case.args]}
        tools = [] if case.sanitizer == "all" else ["--tool", case.sanitizer]     # all four: its default
        return {case.sanitizer: [*warpsim, "check", *tools, binary, *case.args]}

    return Side("warpsim", build, run, build_timeout=300, run_timeout=lambda case: case.timeout,
                env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="/tmp/programs_warpsim", help="folder of warpsim.json")
    p.add_argument("--work", default=None, help="build and run folder (default OUT/work)")
    p.add_argument("--budget", type=float, default=3600, help="seconds after which remaining cases are skipped")
    p.add_argument("--jobs", type=int, default=2, help="parallel builds")
    p.add_argument("--arch", default=None, help="add -arch=ARCH where the test gives none (run_native.py: sm_90)")
    p.add_argument("--only", default="", help="comma-separated case names (default: all)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, write the inputs; build and run nothing")
    args = p.parse_args(argv)

    out = Path(args.out).resolve()
    work = Path(args.work).resolve() if args.work else out / "work"
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "warpsim"], capture_output=True,
                           text=True).stdout.strip()
    meta = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": commit,
            "warpsim_tree_modified": bool(dirty), "arch": args.arch, "python": sys.version.split()[0]}
    cases = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    run_all(warpsim_side(args.arch), cases, work, out / "warpsim.json", meta, args.jobs, args.budget, args.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
