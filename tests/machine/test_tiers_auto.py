"""The default engine ('auto'): which tier runs a block, launch after launch.

A block runs on the NumPy tier until its machine code is in the disk cache or it has run for
HOT_LANES threads, or in HOT_BATCHES batches (a loop of small launches); then it is compiled.
Compiled code is named by the block's code alone, so kernels of the same code but other names
(a Numba closure's mangled name changes with the order its process compiles in) share it."""

from __future__ import annotations

import numpy as np

import warpsim as cp
from warpsim.machine.compiled import report, tier
from warpsim.machine.compiled.block import BlockSource, source_digest

SCALE = r"""
extern "C" __global__ void NAME(const float* x, float* y, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i];
}
"""


def kernel(name: str):
    return cp.RawModule(code=SCALE.replace("NAME", name)).get_function(name)


def test_a_loop_of_small_launches_compiles_its_blocks(monkeypatch, tmp_path):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))      # nothing compiled yet
    monkeypatch.setattr(tier, "HOT_BATCHES", 4)
    scale = kernel("scale_loop")
    x = np.random.default_rng(3).random(64, dtype=np.float32)
    y = cp.zeros(64, cp.float32)
    tiers = []
    for launch in range(6):
        a = np.float32(launch + 0.5)
        scale((2,), (32,), (cp.asarray(x), y, a))
        np.testing.assert_array_equal(y.get(), a * x)
        tiers.append({row["tier"] for row in report(scale.loaded_module.program)})
    assert tiers[:4] == [{"numpy"}] * 4, tiers                # four batches on NumPy
    assert tiers[-1] == {"compiled"}, tiers                   # then machine code


def test_one_launch_of_many_rounds_is_one_batch(monkeypatch, tmp_path):
    """Batches, not block executions: a long loop inside one small launch is left to the round
    loop's own rule (HOT_LOOP_LANES), not compiled block by block after HOT_BATCHES rounds."""
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tier, "HOT_BATCHES", 4)
    spin = cp.RawModule(code=r"""
    extern "C" __global__ void spin(int* out, int n) {
        int s = 0;
        for (int k = threadIdx.x; k < n; k++) s += k * 3;
        out[threadIdx.x] = s;
    }""").get_function("spin")
    out = cp.zeros(32, cp.int32)
    spin((1,), (32,), (out, np.int32(50)))
    np.testing.assert_array_equal(out.get(), [sum(k * 3 for k in range(t, 50)) for t in range(32)])
    assert {row["tier"] for row in report(spin.loaded_module.program)} == {"numpy"}


def test_kernels_of_the_same_code_share_their_machine_code():
    sources = []
    for name in ("first_name", "a_much_longer_second_name"):
        scale = kernel(name)
        scale((1,), (32,), (cp.zeros(32, cp.float32), cp.zeros(32, cp.float32), np.float32(2)))
        program = scale.loaded_module.program
        sources.append(BlockSource(program, program.blocks[0]).source)
    assert sources[0] != sources[1]                   # their comments quote the PTX, names and all
    assert source_digest(sources[0]) == source_digest(sources[1])
    assert source_digest(sources[0]) != source_digest(sources[0] + "\nx = 1")     # code still counts


def test_a_block_dear_to_compile_waits_until_the_numpy_tier_spent_its_cost(monkeypatch, tmp_path):
    """A block whose compile is estimated dear (a long one: minutes of Numba) is not compiled after
    HOT_BATCHES batches; it is once the NumPy tier has spent that estimate on it (ski rental: never
    more than twice the better of the two tiers)."""
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tier, "HOT_BATCHES", 1)
    monkeypatch.setattr(tier, "compile_seconds", lambda source: 1e9)
    scale = kernel("scale_dear")
    x = np.random.default_rng(5).random(64, dtype=np.float32)
    y = cp.zeros(64, cp.float32)
    for launch in range(3):
        scale((2,), (32,), (cp.asarray(x), y, np.float32(launch)))
        np.testing.assert_array_equal(y.get(), np.float32(launch) * x)
    program = scale.loaded_module.program
    assert {row["tier"] for row in report(program)} == {"numpy"}
    tiers = program.__dict__["_block_tiers"].values()
    assert all(t.numpy_seconds > 0 for t in tiers)
    for t in tiers:                                   # the estimate reached: the next launch compiles
        t.compile_cost = t.numpy_seconds
    scale((2,), (32,), (cp.asarray(x), y, np.float32(7)))
    np.testing.assert_array_equal(y.get(), np.float32(7) * x)
    assert {row["tier"] for row in report(program)} == {"compiled"}


def test_compile_estimate_grows_faster_than_the_source():
    small, large = tier.compile_seconds("x" * 10_000), tier.compile_seconds("x" * 100_000)
    assert 1.0 < small < tier.EAGER_COMPILE_SECONDS < 20 * small < large
