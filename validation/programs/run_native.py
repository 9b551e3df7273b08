"""On the H200: build tests/runtime/programs/*.cu with the machine's nvcc as a user would and run them.

    python3 validation/programs/run_native.py            # from the repository root; results under $OUT
    python3 validation/programs/run_native.py --dry-run  # print the commands, write the inputs, run nothing

Each program is built with `nvcc -arch=sm_90` (where its test names no architecture of
its own) plus the options its test gives (-rdc=true, -lcudadevrt, the SASS-only
-gencode), with nvcc's default static runtime, and run with the test's arguments on the
inputs the test writes (cases.py). The runs the tests make under `warpsim check` run
under compute-sanitizer, one tool a process. Results: $OUT/native.json (program ->
status, exit code, stdout, stderr, output files) and $OUT/programs_native.tar.gz (that
JSON, the log native_log.txt, the work folder's inputs and outputs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES, SANITIZER_TOOLS, Case, compile_arguments  # noqa: E402
from harness import Side, execute, run_all  # noqa: E402

ARCH_OPTIONS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")


def find_tool(name: str) -> str:
    """A CUDA tool on PATH, else in the usual toolkit folders (the name alone when none is found:
    the build or run then fails with a recorded error instead of stopping the batch)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in ("/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin", "/opt/cuda/bin"):
        if Path(folder, name).exists():
            return str(Path(folder, name))
    return name


def native_side(nvcc: str, sanitizer: str) -> Side:
    def build(case: Case, binary: Path) -> list:
        has_arch = any(o.split("=")[0] in ARCH_OPTIONS for o in case.options)
        # -lineinfo changes no code; it lets compute-sanitizer name source lines as warpsim check does
        work = binary.parent.parent                   # binaries are WORK/bin/NAME
        return [nvcc, *([] if has_arch else ["-arch=sm_90"]), "-lineinfo", *compile_arguments(case, work),
                "-o", binary]

    def run(case: Case, binary: Path) -> dict:
        if not case.sanitizer:
            return {"run": [binary, *case.args]}
        # --error-exitcode 1: exit status 1 when errors were found (the program's own when it failed),
        # the convention `warpsim check` documents (docs/sanitizer.md)
        return {tool: [sanitizer, "--tool", tool, "--error-exitcode", "1", binary, *case.args]
                for tool in SANITIZER_TOOLS.get(case.sanitizer, (case.sanitizer,))}

    return Side("native", build, run, build_timeout=150,
                run_timeout=lambda case: 60.0 if case.sanitizer else 30.0)


def environment(nvcc: str, sanitizer: str, work: Path) -> dict:
    facts = {}
    for label, argv in (("nvidia-smi", ["nvidia-smi"]), ("nvidia-smi -L", ["nvidia-smi", "-L"]),
                        ("nvcc --version", [nvcc, "--version"]),
                        ("compute-sanitizer --version", [sanitizer, "--version"]),
                        ("g++ --version", ["g++", "--version"]), ("uname -a", ["uname", "-a"])):
        result = execute(argv, work, 30)
        facts[label] = (result["stdout"] + result["stderr"]).strip()
    return facts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT", "out"),
                   help="folder of the JSON and the tar.gz (default $OUT)")
    p.add_argument("--work", default="/tmp/programs_native", help="build and run folder")
    p.add_argument("--budget", type=float, default=240, help="seconds after which remaining cases are skipped")
    p.add_argument("--jobs", type=int, default=min(12, os.cpu_count() or 1), help="parallel builds")
    p.add_argument("--nvcc", default=None, help="nvcc to use (default: PATH, then /usr/local/cuda/bin)")
    p.add_argument("--only", default="", help="comma-separated case names (default: all)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, write the inputs; build and run nothing")
    args = p.parse_args(argv)

    out, work = Path(args.out).resolve(), Path(args.work).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sys.stdout = Tee(sys.stdout, open(out / "native_log.txt", "w"))
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    nvcc, sanitizer = args.nvcc or find_tool("nvcc"), find_tool("compute-sanitizer")
    cases = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    meta = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "nvcc": nvcc, "compute-sanitizer": sanitizer,
            "environment": {} if args.dry_run else environment(nvcc, sanitizer, work)}
    for label, text in meta["environment"].items():
        print(f"--- {label}\n{text}", flush=True)
    results_path = out / "native.json"
    try:
        run_all(native_side(nvcc, sanitizer), cases, work, results_path, meta, args.jobs, args.budget, args.dry_run)
    finally:
        pack(out, work, results_path)
    return 0


class Tee:
    """Progress on the console and in OUT/native_log.txt (packed with the results)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for stream in self.streams:
            stream.write(text)
            stream.flush()

    def flush(self):
        for stream in self.streams:
            stream.flush()


def pack(out: Path, work: Path, results_path: Path):
    """One tar.gz of the JSON and the work folder's inputs and outputs (binaries left out: large, rebuildable)."""
    archive = out / "programs_native.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for path in (results_path, out / "native_log.txt"):
            if path.exists():
                tar.add(path, arcname=f"programs_native/{path.name}")
        cases = work / "cases"
        if cases.exists():
            tar.add(cases, arcname="programs_native/cases")
    print(f"packed {archive} ({archive.stat().st_size} bytes)", flush=True)
    subprocess.run(["ls", "-l", str(out)])


if __name__ == "__main__":
    sys.exit(main())
