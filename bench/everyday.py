"""What a new user waits for: `warpsim demo` cold and warm, and the default test run, in CPU seconds.

    python bench/everyday.py            # the demo, cold (empty caches) then warm
    python bench/everyday.py --tests    # also README's test command (minutes)

Each command runs in a subprocess; its CPU time counts the children it starts (ptxas,
nvdisasm, test workers), which is what the wall clock of a quiet 2-core machine follows.
"Cold" points every compile cache (warpsim's, Numba's, Triton's) at an empty folder, as
on a fresh machine; "warm" runs the same command again with the caches it filled.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def run(command: list, env: dict) -> tuple:
    """(CPU seconds of the command and its children, wall seconds, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode:
        print(done.stderr[-2000:], file=sys.stderr)
    return cpu, wall, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", action="store_true", help="also time README's test command")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="warpsim-everyday-") as caches:
        env = dict(os.environ, WARPSIM_CACHE_DIR=os.path.join(caches, "warpsim"),
                   NUMBA_CACHE_DIR=os.path.join(caches, "numba"), TRITON_CACHE_DIR=os.path.join(caches, "triton"))
        rows = [("warpsim demo, cold", [sys.executable, "-m", "warpsim", "demo"]),
                ("warpsim demo, warm", [sys.executable, "-m", "warpsim", "demo"])]
        if args.tests:
            rows.append(("python -m pytest -q -n 2", [sys.executable, "-m", "pytest", "-q", "-n", "2",
                                                      "-p", "no:cacheprovider", os.path.join(root, "tests")]))
        print(f"{'command':<28} {'CPU s':>8} {'wall s':>8}  load before")
        for label, command in rows:
            load = os.getloadavg()[0]
            cpu, wall, status = run(command, env)
            note = "" if status == 0 else f"  (exit status {status})"
            print(f"{label:<28} {cpu:8.1f} {wall:8.1f}  {load:.1f}{note}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
