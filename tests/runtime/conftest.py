"""CUDA C++ programs built with `warpsim nvcc` (PyPI's nvcc and the system g++) and run with `warpsim run`.

WARPSIM_PROGRAMS_NATIVE=/path/to/nvcc runs the same tests on a machine with a GPU: programs (and the
kernels tests build with `cli("nvcc", ...)`) are built with that nvcc and run as they are, so the
tests' expected lines and NumPy references are checked against the hardware itself
(validation/programs/run_tests_native.sh).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"


NATIVE_NVCC = os.environ.get("WARPSIM_PROGRAMS_NATIVE")


def warpsim(*args, **kwargs) -> subprocess.CompletedProcess:
    if NATIVE_NVCC and args[0] in ("nvcc", "run"):
        command = [NATIVE_NVCC, *args[1:]] if args[0] == "nvcc" else args[1:]
        return subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=600, **kwargs)
    return subprocess.run([sys.executable, "-m", "warpsim", *map(str, args)], capture_output=True,
                          text=True, timeout=600, **kwargs)


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """build(name) -> path of tests/runtime/programs/<name>.cu built with `warpsim nvcc` (once a session)."""
    if not shutil.which("g++"):
        pytest.skip("nvcc needs g++ for host code")
    folder = tmp_path_factory.mktemp("programs")
    done = {}

    def build(name: str, *options) -> Path:
        key = (name, options)
        if key not in done:
            output = folder / (name + "".join(o.strip("-=") for o in options))
            result = warpsim("nvcc", PROGRAMS / f"{name}.cu", "-o", output, *options)
            assert result.returncode == 0, result.stderr
            done[key] = output
        return done[key]
    return build


@pytest.fixture
def run(tmp_path):
    """run(program, *args) -> CompletedProcess of `warpsim run program args` in tmp_path."""
    def run_program(program, *args):
        return warpsim("run", program, *args, cwd=tmp_path)
    return run_program


__all__ = ["warpsim"]


@pytest.fixture(scope="session")
def cli():
    """cli(*args, cwd=...) -> CompletedProcess of `python -m warpsim args...`."""
    return warpsim
