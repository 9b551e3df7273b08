"""A `.sync` member mask that leaves out the executing lane (undefined in PTX), as an H200 runs it
(validation/warp_sync_masks/h200.json): ptxas synchronizes on a mask read at run time (WARPSYNC),
and WARPSYNC stops the launch with cudaErrorIllegalInstruction at a lane its mask leaves out, so
`__ballot_sync(lanemask_lt, p)` faults; a constant mask in converged code has no WARPSYNC and the
collective runs for every lane issuing it; lanes holding different masks that name themselves run
apart. On random predicates against NumPy, on both tiers, the PTX machine and the SASS executor."""

from __future__ import annotations


import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import IllegalInstruction
from warpsim.machine.device import SyncWarning
from warpsim.runtime.errors import code_of, error_name

SOURCE = r"""
__device__ unsigned lt_mask() { unsigned m; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); return m; }
__device__ unsigned le_mask() { unsigned m; asm("mov.u32 %0, %%lanemask_le;" : "=r"(m)); return m; }
extern "C" __global__ void below(const unsigned* x, unsigned* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __ballot_sync(lt_mask(), x[i] & 1);
}
extern "C" __global__ void up_to(const unsigned* x, unsigned* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __ballot_sync(le_mask(), x[i] & 1);
}
extern "C" __global__ void even_lanes(const unsigned* x, unsigned* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __ballot_sync(0x55555555u, x[i] & 1);
}
extern "C" __global__ void even_lanes_diverged(const unsigned* x, unsigned* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (x[i] & 1) ? __ballot_sync(0x55555555u, x[i] & 2) : 7u;
}
"""
N = 512


def predicates():
    return np.random.default_rng(41).integers(0, 2**32, N, dtype=np.uint32)


def warp_ballots(bits):
    """Per thread, the ballot of its warp over bits (0/1 per thread)."""
    words = (bits.astype(np.uint64).reshape(-1, 32) << np.arange(32, dtype=np.uint64))
    return np.repeat(np.bitwise_or.reduce(words, axis=1), 32).astype(np.uint32)


def launch(module, name):
    out = cp.zeros(N, dtype=cp.uint32)
    module.get_function(name)((N // 128,), (128,), (cp.asarray(predicates()), out))
    return out.get()


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("name", ["below", "even_lanes_diverged"])
def test_a_lane_its_mask_leaves_out_stops_the_launch(module, engine, name):
    with cp.settings(engine=engine), pytest.raises(IllegalInstruction, match="does not name the lane") as info:
        launch(module, name)
    assert error_name(code_of(info.value)) == "cudaErrorIllegalInstruction"
    assert info.value.block is not None and info.value.thread is not None


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_constant_mask_in_converged_code_counts_for_nothing(module, engine):
    with cp.settings(engine=engine), pytest.warns(SyncWarning, match="every lane issuing it"):
        got = launch(module, "even_lanes")
    np.testing.assert_array_equal(got, warp_ballots(predicates() & 1))     # the whole warp's ballot


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_lanes_holding_different_masks_run_apart(module, engine):
    with cp.settings(engine=engine):
        got = launch(module, "up_to")
    lane = np.arange(N) % 32
    np.testing.assert_array_equal(got, ((predicates() & 1) << lane).astype(np.uint32))   # its own bit


def test_the_pre_volta_stack_reports_it_and_runs_on(module):
    with cp.settings(scheduling="stack"), pytest.warns(SyncWarning, match="does not name the lane itself"):
        got = launch(module, "below")
    below = ((np.uint64(1) << (np.arange(N) % 32).astype(np.uint64)) - np.uint64(1)).astype(np.uint32)
    np.testing.assert_array_equal(got, warp_ballots(predicates() & 1) & below)


@pytest.fixture(scope="module")
def sass_only(sass_only_cubin):
    """The kernels as a cubin of SASS alone, which the SASS executor runs by itself."""
    return cp.RawModule(path=str(sass_only_cubin(SOURCE)))


@pytest.mark.nvrtc
def test_the_sass_executor_gives_the_same(sass_only):
    with pytest.raises(IllegalInstruction, match="WARPSYNC with mask 0x00000000"):
        launch(sass_only, "below")
    lane = np.arange(N) % 32
    np.testing.assert_array_equal(launch(sass_only, "up_to"), ((predicates() & 1) << lane).astype(np.uint32))
    np.testing.assert_array_equal(launch(sass_only, "even_lanes"), warp_ballots(predicates() & 1))
