"""Device limits, configurations and occupancy helpers in a whole program (tests/runtime/programs/limits.cu),
and the event clock switch. The stack-size limit is acted on: a recursion past the default 1 KB stack
runs once the program raises it, and its sums match NumPy. Occupancy answers are an H200's by the
occupancy calculator's rules (cuda_runtime.h's cudaOccupancyMaxPotentialBlockSize template runs in
the program over warpsim's attribute and occupancy calls)."""

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.programs
DEPTH = 40


@pytest.fixture(scope="module")
def limits(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("limits")
    result = cli("run", built("limits"), DEPTH, "sums.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout, np.fromfile(folder / "sums.bin", dtype=np.int32)


def frames(n: int, seed: int) -> int:
    total = 0
    while n:
        total += seed * (n * 7 % 24) + n
        n, seed = n - 1, seed + 1
    return total + seed * (seed % 24)


def test_raised_stack_limit_runs_a_deep_recursion(limits):
    np.testing.assert_array_equal(limits[1], [frames(DEPTH, seed) for seed in range(64)])


NATIVE = Path(__file__).resolve().parents[2] / "validation/programs/h200/native.json"


def native_lines() -> list:
    """What limits.cu printed on an H200 (CUDA 13.0; run_native.py). The program died there after
    'potential small limit' (its wild cudaDeviceGetLimit pointer), so these are the lines before."""
    return json.loads(NATIVE.read_text())["cases"]["limits"]["stdout"].splitlines()


def test_limits_are_stored_and_unknown_ones_refused(limits):
    """Defaults, roundings (stack to 16 bytes, heap to 2 MiB, persisting L2 to sixteenths of L2) and
    the codes of the driver's limits past the runtime's enum, line for line as on the H200."""
    lines = limits[0].splitlines()
    native = native_lines()
    wanted = [line for line in native if line.startswith(("limit ", "set "))]
    assert len(wanted) == 21
    assert [line for line in lines if line.startswith(("limit ", "set "))] == wanted


def test_cache_and_bank_configurations(limits):
    lines = limits[0].splitlines()
    native = native_lines()
    wanted = [line for line in native if line.startswith(("cache ", "func ", "bank "))]
    assert "bank now 1" in wanted                  # an eight-byte bank request is accepted and ignored
    assert [line for line in lines if line.startswith(("cache ", "func ", "bank "))] == wanted


def test_occupancy_helpers_give_the_h200s_answers(limits):
    """Every occupancy line the H200 printed, except many_registers' (its register count is ptxas's
    choice for the target, and the tests build for nvcc's default one): cudaFuncSetCacheConfig(small,
    PreferL1) gives `small` the smallest carveout (8 KB: 8 blocks), and the available shared
    memory per block is the carveout split in whole units with no reservation taken off."""
    out = limits[0]

    def occupancy_lines(text_lines):
        return [re.sub(r" regs \d+ ", " regs R ", line) for line in text_lines
                if line.startswith(("potential ", "active ", "available ")) and "many_registers" not in line]
    wanted = occupancy_lines(native_lines())
    assert occupancy_lines(out.splitlines())[:len(wanted)] == wanted
    assert "active small 64 cudaSuccess 8" in wanted and "potential small limit 96 grid 1056 block 96" in wanted
    for name in ("available block 0", "available blocks 0", "available block 2048", "get limit wild"):
        assert f"{name} cudaErrorInvalidValue" in out


@pytest.mark.slow
@pytest.mark.parametrize("clock", ["gpu", "wall"])
def test_event_time_switch(built, cli, tmp_path, clock):
    """`--event-time wall`: events read the simulation's wall clock, and no kernel time is predicted."""
    result = cli("--event-time", clock, "run", built("device"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    positive, empty = re.search(r"elapsed_positive (\d) empty (\S+)", result.stdout).groups()
    assert positive == "1"
    # two records with nothing between: the same predicted GPU time, or two readings of the wall clock
    assert (float(empty) == 0) == (clock == "gpu")


def test_event_time_switch_refuses_other_values(cli, tmp_path):
    result = cli("--event-time", "cpu", "run", "true", cwd=tmp_path)
    assert result.returncode == 2 and "--event-time" in result.stderr
