"""Shuffles in the compiled round loop against the NumPy tier.

The loop runs a shfl.sync block for a warp whose 32 lanes all arrived and all name
every lane; any other warp (lanes exited, a divergent group, a partial mask) is
handed back to the engine's meeting on the NumPy tier. Both give the same bytes,
counters, diagnostics and profiler counts; the values are checked against a NumPy
reference of CUDA's __shfl*_sync on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import IllegalInstruction
from warpsim.machine.compiled import report

SHUFFLES = r"""
extern "C" __global__ void shuffles(const unsigned* x, unsigned* out, unsigned mask, int width,
                                    int live) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x >= live) return;
    unsigned v = x[i];
    unsigned s = 0;
    for (int k = 0; k < 3; ++k) {
        unsigned down = __shfl_down_sync(mask, v, (v >> 4) & 7, width);
        unsigned up = __shfl_up_sync(mask, v, 3, width);
        unsigned flip = __shfl_xor_sync(mask, v, (v >> 8) & 31, width);
        unsigned pick = __shfl_sync(mask, v, v >> 27, width);
        s = s * 31u + (down ^ (up << 1) ^ (flip << 2) ^ (pick << 3));
        v = v * 2654435761u + s;
    }
    out[i] = s;
}
"""


def shuffled(values: np.ndarray, mode: str, operand: np.ndarray, width: int) -> np.ndarray:
    """CUDA's __shfl*_sync with every lane present: per warp of 32, segments of `width` lanes."""
    lane = np.arange(len(values)) % 32
    start = lane - lane % width
    if mode == "down":
        j = lane + operand
        j = np.where(j < start + width, j, lane)
    elif mode == "up":
        j = lane - operand
        j = np.where(j >= start, j, lane)
    elif mode == "xor":
        j = lane ^ operand
        j = np.where(j < start + width, j, lane)
    else:
        j = start + operand % width
    return values[np.arange(len(values)) - lane + j]


def shuffles_reference(x: np.ndarray, width: int) -> np.ndarray:
    v, s = x.copy(), np.zeros_like(x)
    for _ in range(3):
        down = shuffled(v, "down", ((v >> 4) & 7).astype(np.int64), width)
        up = shuffled(v, "up", np.full(len(v), 3), width)
        flip = shuffled(v, "xor", ((v >> 8) & 31).astype(np.int64), width)
        pick = shuffled(v, "idx", (v >> 27).astype(np.int64), width)
        s = s * np.uint32(31) + (down ^ (up << 1) ^ (flip << 2) ^ (pick << 3))
        v = v * np.uint32(2654435761) + s
    return s


@pytest.fixture(scope="module")
def shuffles():
    return cp.RawModule(code=SHUFFLES).get_function("shuffles")


def run(engine, scheduling, function, x, mask, width, live, block=256):
    out = cp.full(len(x), 0xDEADBEEF, dtype=cp.uint32)
    with cp.settings(engine=engine, scheduling=scheduling):
        function((len(x) // block,), (block,), (cp.asarray(x), out, np.uint32(mask), np.int32(width),
                                                np.int32(live)))
    last = function.last_launch
    return out.get(), (last.warp_instructions, last.thread_instructions, last.rounds,
                       [d["message"] for d in last.diagnostics])


def loop_ran_shuffles(function) -> bool:
    program = function.loaded_module.program
    return any(r["in_round_loop"] and program.blocks[r["block"]].instructions[0].opcode == "shfl"
               for r in report(program))


@pytest.mark.parametrize("scheduling", ["its", "lowest-pc"])
@pytest.mark.parametrize("width", [32, 8])
def test_converged_shuffles_in_the_loop_give_cudas_values_and_the_numpy_tiers_counters(
        shuffles, scheduling, width):
    x = np.random.default_rng(width).integers(0, 2**32, 2048, dtype=np.uint32)
    expected = shuffles_reference(x, width)
    out = {engine: run(engine, scheduling, shuffles, x, 0xFFFFFFFF, width, 256)
           for engine in ("numpy", "compiled")}
    for values, _ in out.values():
        np.testing.assert_array_equal(values, expected)
    assert out["numpy"][1] == out["compiled"][1]
    assert loop_ran_shuffles(shuffles)


def test_shuffles_of_warps_the_loop_does_not_take_are_the_numpy_tiers(shuffles):
    """Lanes named but exited (warp 6 of each block is partly gone: its diagnostics): the same
    bytes, counters and diagnostics on both tiers, and the full warps' values still CUDA's."""
    x = np.random.default_rng(4).integers(0, 2**32, 1024, dtype=np.uint32)
    out = {engine: run(engine, "its", shuffles, x, 0xFFFFFFFF, 32, 200) for engine in ("numpy", "compiled")}
    np.testing.assert_array_equal(out["numpy"][0], out["compiled"][0])
    assert out["numpy"][1] == out["compiled"][1]
    assert out["numpy"][1][3]
    np.testing.assert_array_equal(out["compiled"][0].reshape(4, 256)[:, :192],
                                  shuffles_reference(x, 32).reshape(4, 256)[:, :192])
    assert loop_ran_shuffles(shuffles)


def test_a_mask_that_leaves_out_the_lane_itself_stops_both_tiers_alike(shuffles):
    """Undefined in PTX; a GPU stops at the WARPSYNC ptxas puts on a mask read at run time (here a
    parameter), with an illegal instruction: both tiers stop at the same thread."""
    x = np.random.default_rng(5).integers(0, 2**32, 512, dtype=np.uint32)
    stops = {}
    for engine in ("numpy", "compiled"):
        with pytest.raises(IllegalInstruction, match="does not name the lane itself") as info:
            run(engine, "its", shuffles, x, 0x0000FFFF, 32, 256)
        stops[engine] = (info.value.block, info.value.thread, str(info.value))
    assert stops["numpy"] == stops["compiled"]


def test_profiled_shuffles_count_the_same_in_the_loop(shuffles):
    x = cp.asarray(np.random.default_rng(9).integers(0, 2**32, 4096, dtype=np.uint32))
    launches = {}
    for engine in ("numpy", "compiled"):
        with cp.settings(engine=engine), cp.profile(level="ptx") as prof:
            shuffles((16,), (256,), (x, cp.zeros(4096, cp.uint32), np.uint32(0xFFFFFFFF), np.int32(16),
                                     np.int32(256)))
        launches[engine] = prof.launches[0]
    a, b = launches["numpy"], launches["compiled"]
    assert a.metrics == b.metrics
    assert str(a.lines) == str(b.lines)
    np.testing.assert_array_equal(a.histogram, b.histogram)
    assert loop_ran_shuffles(shuffles)


def test_the_compiled_source_lane_is_the_semantics_layers():
    """runtime.shuffle_source on scalars against semantics/warp.shuffle_sources, every lane, mode
    and offset, with random clamp and segment words."""
    from numba import njit

    from warpsim.machine.compiled.runtime import shuffle_source
    from warpsim.semantics.warp import SHUFFLE_MODES, shuffle_sources

    @njit
    def sources(lanes, mode, b, c):
        j = np.empty(len(lanes), dtype=np.int64)
        ok = np.empty(len(lanes), dtype=np.bool_)
        for k in range(len(lanes)):
            j[k], ok[k] = shuffle_source(lanes[k], mode, b[k], c[k])
        return j, ok

    rng = np.random.default_rng(2)
    lanes = np.tile(np.arange(32, dtype=np.uint32), 64)
    b = rng.integers(0, 2**32, len(lanes), dtype=np.uint32)
    c = rng.integers(0, 2**13, len(lanes), dtype=np.uint32)
    c[:32 * 8] = np.repeat([0x1F, 0x181F, 0x1C1F, 0x1E1F, 0x0, 0x1800, 0x7, 0x1F1F], 32)
    for code, mode in enumerate(SHUFFLE_MODES):
        j, ok = sources(lanes, code, b, c)
        want_j, want_ok = shuffle_sources(lanes, mode, b, c)
        np.testing.assert_array_equal(j, want_j, err_msg=mode)
        np.testing.assert_array_equal(ok, want_ok, err_msg=mode)
