"""Device limits, configurations and occupancy helpers in a whole program (tests/runtime/programs/limits.cu),
and the event clock switch. The stack-size limit is acted on: a recursion past the default 1 KB stack
runs once the program raises it, and its sums match NumPy. Occupancy answers are an H200's by the
occupancy calculator's rules (cuda_runtime.h's cudaOccupancyMaxPotentialBlockSize template runs in
the program over warpsim's attribute and occupancy calls)."""

import os
import re

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


def test_limits_are_stored_and_unknown_ones_refused(limits):
    out = limits[0]
    for line in ("limit 0 cudaSuccess 1024", "limit 1 cudaSuccess 1048576", "limit 2 cudaSuccess 8388608",
                 "limit 3 cudaSuccess 2", "limit 4 cudaSuccess 2048", "limit 7 cudaErrorUnsupportedLimit 0",
                 "set stack cudaSuccess get cudaSuccess 5000", "set printf cudaSuccess get cudaSuccess 3145728",
                 "set heap cudaSuccess get cudaSuccess 3145728", "set l2fetch cudaSuccess get cudaSuccess 32",
                 "set l2fetch200 cudaErrorInvalidValue get cudaSuccess 32",
                 "set pending cudaSuccess get cudaSuccess 4096",
                 "set limit7 cudaErrorUnsupportedLimit get cudaErrorUnsupportedLimit 0",
                 "set limit99 cudaErrorUnsupportedLimit get cudaErrorUnsupportedLimit 0"):
        assert line in out.splitlines(), line


def test_cache_and_bank_configurations(limits):
    lines = limits[0].splitlines()
    for line in ("cache default 0", "cache set shared cudaSuccess", "cache now 1", "cache set 7 cudaErrorInvalidValue",
                 "func cache cudaSuccess", "func cache 9 cudaErrorInvalidValue", "bank default 1",
                 "bank set eight cudaSuccess", "bank now 2", "bank set 5 cudaErrorInvalidValue", "func bank cudaSuccess"):
        assert line in lines, line


def test_occupancy_helpers_give_the_h200s_answers(limits):
    out = limits[0]
    potential = {m[0]: (int(m[1]), int(m[2]), int(m[3])) for m in
                 re.findall(r"potential (\w+) cudaSuccess .* max threads (\d+) grid (\d+) block (\d+)", out)}
    active = {(m[0], int(m[1])): int(m[2]) for m in re.findall(r"active (\w+) (\d+) cudaSuccess (\d+)", out)}
    for name, (threads, grid, block) in potential.items():   # the largest block at the best occupancy, x 132 SMs
        assert block <= threads and grid == active[name, block] * 132, name
    assert {name: threads for name, (threads, _, _) in potential.items()} == {
        "small": 1024, "with_shared": 1024, "many_registers": 1024, "bounded": 192}   # __launch_bounds__(192)
    # 1024 threads fill an SM with 2 blocks; under __launch_bounds__(192), 128 (16 blocks, 64 warps) beat 192 (10, 60)
    assert {name: block for name, (_, _, block) in potential.items()} == {
        "small": 1024, "with_shared": 1024, "many_registers": 1024, "bounded": 128}
    assert active["small", 64] == 32 and active["small", 256] == 8 and active["small", 1024] == 2
    assert active["with_shared", 64] == 11                   # 228 KB / (20000 + 1 KB reserved) per block
    available = {(m[0], int(m[1])): (m[2], int(m[3])) for m in
                 re.findall(r"available (\S+) (\d+) (\w+) (\d+)", out)}
    sm, reserved, unit = 233472, 1024, 128                  # H200: shared bytes an SM, reserved a block, unit
    static = {"small": 0, "with_shared": 20000, "many_registers": 0, "bounded": 0}
    for (name, blocks), (code, got) in available.items():   # cuda_occupancy.h's cudaOccAvailableDynamicSMemPerBlock
        limit = 200000 if name == "opted-in" else 48 * 1024 - static[name]     # maxDynamicSharedSizeBytes
        if name != "opted-in" and active[name, 128] < blocks:
            assert code == "cudaErrorInvalidValue", (name, blocks)     # other limits hold fewer blocks
            continue
        share = sm // blocks // unit * unit
        assert (code, got) == ("cudaSuccess", min(share - static.get(name, 0) - reserved, limit)), (name, blocks)
    assert available["small", 1] == ("cudaSuccess", 49152) and available["opted-in", 1] == ("cudaSuccess", 200000)
    assert available["opted-in", 2] == ("cudaSuccess", 115712) and available["small", 7] == ("cudaSuccess", 32256)
    assert "potential small limit 96 grid 4224 block 64" in out    # block sizes up to 96: 64 at 32 a SM
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
