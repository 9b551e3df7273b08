"""A whole program's large launches against the same kernel launched from Python.

    python bench/program_speed.py                    # 4M threads, 3 timed launches
    python bench/program_speed.py --threads 16777216 --launches 2

bench/program_loop.cu, built with `warpsim nvcc` into a temporary folder (it needs g++) and run
under `warpsim run`, times its own launches of a kernel that loads, adds and stores in a loop (the
CUDA samples' simpleStreams kernel's shape) and checks its output. The same kernel, compiled by
NVRTC, is launched from Python through RawKernel with the same grid. A program's launch also runs
its timing sample (a few CTAs at SASS level, so that its CUDA events read the predicted time);
the Python launch does not. Thread-instructions are the Python launch's count. Wall-clock seconds,
one run: compare the rows of one run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("program_loop.cu")


def kernel_source() -> str:
    """The program's kernel, as NVRTC compiles it for RawKernel."""
    text = SOURCE.read_text()
    start = text.index("__global__")
    end = text.index("}\n", start) + 2
    return 'extern "C" ' + text[start:end]


def python_row(threads: int, launches: int) -> dict:
    import warpsim as cp
    function = cp.RawModule(code=kernel_source()).get_function("accumulate")
    data, factor = cp.zeros(threads, cp.int32), cp.asarray(np.int32([3]))
    args = (data, factor, np.int32(5))
    function((threads // 256,), (256,), args)
    start = time.perf_counter()
    for _ in range(launches):
        function((threads // 256,), (256,), args)
    wall = time.perf_counter() - start
    assert (data.get() == 15 * (launches + 1)).all()
    return {"case": "RawKernel from Python", "wall_s": wall / launches,
            "thread_instructions": function.last_launch.thread_instructions}


def program_row(threads: int, launches: int) -> dict | None:
    cli = [sys.executable, "-m", "warpsim"]
    with tempfile.TemporaryDirectory() as folder:
        binary = Path(folder) / "program_loop"
        built = subprocess.run([*cli, "nvcc", str(SOURCE), "-o", str(binary)], capture_output=True, text=True)
        if built.returncode or not binary.exists():
            print(f"program row left out: warpsim nvcc failed ({built.stderr.strip()[-300:]})")
            return None
        ran = subprocess.run([*cli, "run", str(binary), str(threads), str(launches)], capture_output=True, text=True)
    fields = ran.stdout.split()
    if ran.returncode or len(fields) < 8 or fields[0] != "threads":
        print(f"program row left out: the program failed ({(ran.stdout + ran.stderr).strip()[-300:]})")
        return None
    return {"case": "the program under warpsim run", "wall_s": float(fields[5]) / launches}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1 << 22)
    parser.add_argument("--launches", type=int, default=3)
    args = parser.parse_args()
    python = python_row(args.threads, args.launches)
    rows = [python, program_row(args.threads, args.launches)]
    count = python["thread_instructions"]
    print(f"{args.threads} threads, {count} thread-instructions a launch, {args.launches} launches timed")
    print(f"{'':<32}{'s a launch':>12}{'thread-inst/s':>16}")
    for row in rows:
        if row is not None:
            print(f"{row['case']:<32}{row['wall_s']:>12.3f}{count / row['wall_s']:>16.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
