"""Run CuPy's own kernel test files, unchanged, on warpsim, and count what passes.

    python bench/external/cupy_tests.py [--cupy DIR] [--files test_raw.py ...] [--slow]

DIR is a CuPy source tree or its git directory (default: $CUPY_SRC). The
files are read from it (tests/cupy_tests/core_tests/), written to a temporary
folder (nothing of CuPy's is kept), and each is run with
`warpsim run python -m pytest` in its own process, so `import cupy` gives
warpsim. Reported per file: passed, failed, errors, skipped (CuPy's own
skips: several GPUs, HIP, ...), and failures outside warpsim's scope, told
apart by the reason warpsim gives (a name warpsim does not provide, texture
memory, dynamic parallelism, ...). The pass rate is passed over the tests
that are neither skipped nor outside the scope. Slow-marked tests (CuPy's
8 GB allocations, Jitify) are deselected unless --slow.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TEST_DIR = "tests/cupy_tests/core_tests"
FILES = ("test_raw.py", "test_userkernel.py", "test_elementwise.py", "test_reduction.py",
         "test_carray.py", "test_ndarray_cuda_array_interface.py", "test_include.py")

# Failure reasons outside what warpsim simulates: (pattern in the failure text, reason shown).
NOT_PROVIDED = r"warpsim does not provide"
OUT_OF_SCOPE = (
    (NOT_PROVIDED, "a CuPy name warpsim does not provide"),
    (r"cudaLaunchDevice|dynamic parallelism", "dynamic parallelism (device-side launches)"),
    (r"this cubin carries no PTX", "a cubin without PTX (warpsim runs a cubin's PTX)"),
)


# Tests of CuPy's own machinery rather than of kernels: (test id pattern, reason shown).
OUT_OF_SCOPE_TESTS = (
    (r"^TestCachePayload::", "CuPy's on-disk kernel cache format"),
    (r"^TestRawNameExpressionCache::", "CuPy's on-disk kernel cache (its hit counts)"),
    (r"^TestRawJitify::.*\[jitify\]", "Jitify's header preprocessing (deprecated in CuPy; not in warpsim)"),
)


def read_file(cupy: str, name: str) -> str:
    """One test file's text from a CuPy checkout or git directory."""
    path = os.path.join(cupy, TEST_DIR, name)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    done = subprocess.run(["git", f"--git-dir={cupy}", "show", f"HEAD:{TEST_DIR}/{name}"],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"cannot read {TEST_DIR}/{name} from {cupy}: {done.stderr.strip()}")
    return done.stdout


def cupy_commit(cupy: str) -> str:
    """The commit the tests come from ('' when DIR is not a git checkout or directory)."""
    for flag in (f"--git-dir={cupy}", f"--git-dir={os.path.join(cupy, '.git')}"):
        done = subprocess.run(["git", flag, "rev-parse", "HEAD"], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.strip()
    return "(no git commit)"


def run_file(path: str, report: str, slow: bool, timeout: int) -> str:
    command = [sys.executable, "-m", "warpsim.cli.run", "-m", "pytest", path, "-q",
               "-p", "no:cacheprovider", f"--junitxml={report}", "-o", "junit_family=xunit1",
               "-W", "ignore::pytest.PytestUnknownMarkWarning", "--rootdir", os.path.dirname(path)]
    if not slow:
        command += ["-m", "not slow"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          cwd=os.path.dirname(path))
    return done.stdout + done.stderr


def scope_reason(test: str, text: str) -> str:
    """Why a failure of `test` ('Class::name') is outside warpsim's scope ('' when it is not)."""
    for pattern, why in OUT_OF_SCOPE_TESTS:
        if re.search(pattern, test):
            return why
    for pattern, why in OUT_OF_SCOPE:
        found = re.search(pattern, text)
        if found and pattern == NOT_PROVIDED:      # say which name, and why, as warpsim said it
            line = text[text.rfind("\n", 0, found.start()) + 1:].split("\n", 1)[0]
            return line.split(": ", 1)[-1][:160] if ": " in line else why
        if found:
            return why
    return ""


def classify(report: str) -> list:
    """(test id, outcome, reason) for each test case in a JUnit XML report."""
    cases = []
    for case in ET.parse(report).getroot().iter("testcase"):
        test = f"{case.get('classname', '').rpartition('.')[2]}::{case.get('name')}"
        outcome, reason = "passed", ""
        for child in case:
            if child.tag not in ("failure", "error", "skipped"):
                continue
            message = (child.get("message") or "").strip()
            outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
            reason = message.splitlines()[0][:160] if message else ""
            if outcome != "skipped":
                why = scope_reason(test, message + "\n" + (child.text or ""))
                if why:
                    outcome, reason = "out of scope", why
            break
        cases.append((test, outcome, reason))
    return cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cupy", default=os.environ.get("CUPY_SRC"),
                        help="CuPy source tree or git directory (default: $CUPY_SRC)")
    parser.add_argument("--files", nargs="*", default=list(FILES))
    parser.add_argument("--slow", action="store_true", help="also run CuPy's slow-marked tests")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per file")
    parser.add_argument("--details", action="store_true", help="list every test that did not pass")
    args = parser.parse_args(argv)
    if not args.cupy:
        parser.error("name a CuPy checkout or git directory with --cupy or $CUPY_SRC")
    print(f"CuPy's tests from {args.cupy} at {cupy_commit(args.cupy)}")
    totals = collections.Counter()
    reasons = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="cupy_tests_") as folder:
        print(f"{'file':42} {'tests':>5} {'pass':>5} {'fail':>5} {'error':>5} {'skip':>5} {'scope':>5} "
              f"{'slow':>5}")
        for name in args.files:
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(read_file(args.cupy, name))
            report = path + ".xml"
            output = run_file(path, report, args.slow, args.timeout)
            if not os.path.exists(report):
                print(f"{name:42} no report; pytest said:\n{output[-3000:]}")
                continue
            cases = classify(report)
            counts = collections.Counter(outcome for _, outcome, _ in cases)
            deselected = re.search(r"(\d+) deselected", output)
            counts["slow"] = int(deselected.group(1)) if deselected else 0
            totals.update(counts)
            totals["tests"] += len(cases)
            print(f"{name:42} {len(cases):5} {counts['passed']:5} {counts['failed']:5} "
                  f"{counts['error']:5} {counts['skipped']:5} {counts['out of scope']:5} "
                  f"{counts['slow']:5}", flush=True)
            for test, outcome, reason in cases:
                if outcome != "passed":
                    reasons[(outcome, reason)] += 1
                    if args.details:
                        print(f"    {outcome:12} {test}  {reason}", flush=True)
    applicable = totals["tests"] - totals["skipped"] - totals["out of scope"]
    rate = totals["passed"] / applicable if applicable else 0.0
    print(f"{'total':42} {totals['tests']:5} {totals['passed']:5} {totals['failed']:5} "
          f"{totals['error']:5} {totals['skipped']:5} {totals['out of scope']:5} {totals['slow']:5}")
    print(f"\npassed {totals['passed']} of {applicable} applicable tests ({rate:.1%}); "
          f"{totals['skipped']} skipped by CuPy's own conditions, "
          f"{totals['out of scope']} outside warpsim's scope; {totals['slow']} slow-marked tests "
          "not run (--slow runs them)")
    print("\nwhy the others did not pass (count, outcome, reason):")
    for (outcome, reason), count in reasons.most_common():
        print(f"  {count:5}  {outcome:12} {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
