"""Build and run every case of cases.py, one at a time, writing the results JSON after each.

The two sides differ only in their commands (a `Side`): run_native.py gives nvcc,
the binary itself and compute-sanitizer; run_warpsim.py gives `warpsim nvcc`,
`warpsim run` and `warpsim check`. Everything else (inputs, folders, timeouts, what is
recorded) is here once, so the two JSONs have the same shape and compare.py reads
both. Nothing a case does can stop the batch: each build and run has its own
timeout and its own try, and a case past the deadline is recorded as skipped.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cases import CASES, Case, binary_name

# A program's stdout into a pipe is block-buffered: a crash (a CUDA call that faults on a wild
# host pointer, as fuzz.cu and launch_ex.cu invite on a GPU) would lose every line printed
# before it. stdbuf makes it line-buffered, as on a terminal, on both sides.
LINE_BUFFERED = ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []
LAST_RUN_GRACE = 60.0                # a run started before the deadline ends at most this long after it
OUTPUT_LIMIT = 1 << 20               # bytes of an output file kept in the JSON (all of them are far smaller)
TEXT_LIMIT = 200_000                 # characters of stdout/stderr kept


@dataclass
class Side:
    name: str                                        # "native" or "warpsim"
    build: Callable[[Case, Path], list]              # (case, WORK/bin/NAME) -> argv
    run: Callable[[Case, Path], dict]                # (case, binary path) -> {label: argv}, one or more runs
    build_timeout: float
    run_timeout: Callable[[Case], float]
    env: dict | None = None


def _text(data) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n[... {len(text) - TEXT_LIMIT} characters cut]"


def execute(argv: list, cwd: Path, timeout: float, env=None) -> dict:
    """One process: its status, output and time; a timeout or a missing program is a result, not an exception.
    It runs in a session of its own, so a timeout ends its children too (compute-sanitizer's target)."""
    start = time.monotonic()
    try:
        process = subprocess.Popen([str(a) for a in argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    except OSError as error:
        return {"status": "error", "rc": None, "stdout": "", "stderr": f"{type(error).__name__}: {error}",
                "seconds": 0.0}
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        return {"status": "ran", "rc": process.returncode, "stdout": _text(stdout), "stderr": _text(stderr),
                "seconds": round(time.monotonic() - start, 3)}
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = process.communicate()
        return {"status": "timeout", "rc": None, "stdout": _text(stdout), "stderr": _text(stderr),
                "seconds": round(time.monotonic() - start, 3), "note": f"killed after {timeout:.0f} s"}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _outputs(case: Case, folder: Path) -> dict:
    found = {}
    for name in case.outputs:
        path = folder / name
        if not path.exists():
            found[name] = None
            continue
        data = path.read_bytes()
        found[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                       "base64": base64.b64encode(data[:OUTPUT_LIMIT]).decode("ascii")}
    return found


def _merge(runs: dict) -> dict:
    """Several runs of one case (compute-sanitizer, a tool a process): stdout and stderr in order,
    the status of the first run that was not a plain success, the first non-zero exit status."""
    if len(runs) == 1:
        return dict(next(iter(runs.values())))
    results = list(runs.values())
    odd = [r for r in results if r["status"] != "ran"]
    rcs = [r["rc"] for r in results if r["rc"]]
    return {"status": odd[0]["status"] if odd else "ran", "rc": None if odd else (rcs[0] if rcs else 0),
            "stdout": "".join(r["stdout"] for r in results), "stderr": "".join(r["stderr"] for r in results),
            "seconds": round(sum(r["seconds"] for r in results), 3),
            "tools": {label: {k: r[k] for k in ("status", "rc", "stdout", "seconds")} for label, r in runs.items()}}


class Results:
    """The results JSON, rewritten after every step so a cut-short batch leaves what it did."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.data = {"meta": meta, "builds": {}, "cases": {}}
        self.save()

    def save(self):
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.data, indent=1))
        os.replace(temporary, self.path)


def build_all(side: Side, cases: list, work: Path, results: Results, jobs: int, deadline: float,
              dry_run: bool) -> dict:
    """Every binary the cases need, built in parallel (builds are independent): name -> path or None."""
    wanted = {binary_name(case): case for case in cases if not case.build}
    for case in cases:                                # a case reusing another's binary still needs it built
        if case.build and case.build not in wanted:
            wanted[case.build] = next(c for c in CASES if c.name == case.build)
    binaries = work / "bin"
    binaries.mkdir(parents=True, exist_ok=True)

    def build(name: str):
        case, binary = wanted[name], binaries / name
        try:
            argv = side.build(case, binary)
        except Exception as error:             # a patch that no longer applies: this build only
            return name, {"status": "error", "rc": None, "stdout": "", "stderr": f"{type(error).__name__}: {error}"}
        if dry_run:
            print(f"[dry-run] build {name}: {' '.join(map(str, argv))}", flush=True)
            return name, {"status": "dry-run", "argv": list(map(str, argv))}
        if time.monotonic() > deadline:
            return name, {"status": "skipped", "rc": None, "stdout": "", "stderr": "", "note": "past the deadline"}
        binary.unlink(missing_ok=True)         # an earlier run's binary must not pass for this build's
        result = execute(argv, binaries, side.build_timeout, side.env)
        result["argv"] = list(map(str, argv))
        if result["status"] == "ran" and result["rc"] == 0 and not binary.exists():
            result["status"], result["note"] = "error", "nvcc returned 0 but wrote no binary"
        print(f"build {name}: {result['status']} rc={result['rc']} {result['seconds']} s", flush=True)
        return name, result

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for name, result in pool.map(build, sorted(wanted, key=_slow_builds_first)):
            results.data["builds"][name] = result
            results.save()
    return {name: binaries / name for name, result in results.data["builds"].items()
            if result.get("status") in ("ran", "dry-run") and result.get("rc", 0) == 0}


def _slow_builds_first(name: str) -> int:
    """Thrust and cooperative_groups take the longest to compile: start them first."""
    slow = ("thrust_sort", "launch_ex", "launch_ex_cuda130", "grid_sync", "grid_sync_sass", "dynamic_parallelism")
    return 0 if name in slow else 1


def run_case(side: Side, case: Case, binary: Path | None, work: Path, dry_run: bool, hard_deadline: float) -> dict:
    folder = work / "cases" / case.name
    if folder.exists():
        shutil.rmtree(folder)                  # an earlier run's outputs would count as inputs
    folder.mkdir(parents=True)
    if case.inputs:
        case.inputs(folder)
    inputs = {path.name: _sha256(path) for path in sorted(folder.iterdir()) if path.is_file()}
    if binary is None:
        return {"status": "build failed", "rc": None, "stdout": "", "stderr": "", "inputs": inputs,
                "build": binary_name(case)}
    runs = {label: [*LINE_BUFFERED, *argv] for label, argv in side.run(case, binary).items()}
    if dry_run:
        for label, argv in runs.items():
            print(f"[dry-run] run {case.name} ({label}) in {folder}: {' '.join(map(str, argv))}", flush=True)
        return {"status": "dry-run", "inputs": inputs, "argv": {k: list(map(str, v)) for k, v in runs.items()}}
    def timeout() -> float:
        return min(side.run_timeout(case), max(5.0, hard_deadline - time.monotonic()))
    result = _merge({label: execute(argv, folder, timeout(), side.env) for label, argv in runs.items()})
    result["inputs"] = inputs
    result["outputs"] = _outputs(case, folder)
    result["argv"] = {label: list(map(str, argv)) for label, argv in runs.items()}
    return result


def run_all(side: Side, cases: list, work: Path, results_path: Path, meta: dict, jobs: int,
            budget_s: float, dry_run: bool = False) -> dict:
    """Build everything, then run the cases in order, saving after each; returns the results.
    No case starts after budget_s, and none runs past budget_s + LAST_RUN_GRACE."""
    start = time.monotonic()
    deadline = start + budget_s
    results = Results(results_path, {**meta, "side": side.name, "budget_s": budget_s})
    print(f"{side.name}: {len(cases)} cases, work folder {work}, results {results_path}", flush=True)
    binaries = build_all(side, cases, work, results, jobs, deadline, dry_run)
    for number, case in enumerate(cases, 1):
        if time.monotonic() > deadline:
            result = {"status": "skipped", "rc": None, "stdout": "", "stderr": "", "note": "past the deadline"}
        else:
            try:
                result = run_case(side, case, binaries.get(binary_name(case)), work, dry_run,
                                  deadline + LAST_RUN_GRACE)
            except Exception as error:         # an input generator or the file system: this case only
                result = {"status": "error", "rc": None, "stdout": "", "stderr": f"{type(error).__name__}: {error}"}
        results.data["cases"][case.name] = result
        results.save()
        print(f"[{number}/{len(cases)}] {case.name}: {result['status']} rc={result.get('rc')} "
              f"{result.get('seconds', 0)} s (total {time.monotonic() - start:.0f} s)", flush=True)
    results.data["meta"]["seconds"] = round(time.monotonic() - start, 1)
    results.save()
    return results.data
