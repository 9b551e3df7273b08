"""sm_90's mbarrier phases, bulk copies and clusters at SASS level, on kernels NVRTC and ptxas compile.

Each launch runs with a SASS run beside its PTX run: the replay compares the
SASS run's heap with the PTX run's byte for byte (its level must be 'sass'),
the kernel's SASS must hold the instruction under test, and the results are
checked against NumPy on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.profiler import Profiler
from warpsim.sass import sass_for_ptx
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void mbarrier_phases(const int* in, int* out, int rounds) {
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int values[2][128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, n = blockDim.x, acc = 0;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n));
    __syncthreads();
    for (int r = 0; r < rounds; ++r) {
        values[r & 1][t] = in[blockIdx.x * n + t] * (r + 1) + r;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                     :: "r"(b), "r"(r & 1) : "memory");
        acc = acc * 3 + values[r & 1][(t + r + 1) % n];
    }
    out[blockIdx.x * n + t] = acc;
}
"""

RNG = np.random.default_rng(20261202)


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE, options=("-arch=sm_90",))


def opcodes_of(module, kernel) -> set:
    return {".".join((i.opcode,) + i.mods) for i in sass_for_ptx(module.ptx).kernel(kernel).instructions}


def run_beside(module, name, grid, block, args):
    """Launch with a SASS run beside the PTX run, under a SASS-level profile; both must agree."""
    with ReplayRequest() as request, Profiler(level="sass") as profiler:
        module.get_function(name)(grid, block, args)
        (_, replay), = request._replays.values()
    outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    assert profiler[0].level == "sass", profiler[0].level_note


def test_mbarrier_phases_alternate_parity(module):
    """try_wait.parity on phases 0, 1, 0, ...: SYNCS.PHASECHK reads the parity from bit 31 of its
    operand (ptxas shifts it there), so a wait for an odd phase waits until that phase completes."""
    assert {"SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS.ARRIVE.TRANS64.A1T0"} <= opcodes_of(module, "mbarrier_phases")
    blocks, threads, rounds = 2, 96, 5
    x = RNG.integers(-1000, 1000, blocks * threads).astype(np.int32)
    out = cp.asarray(np.full(blocks * threads, 0x5A5A, np.int32))
    run_beside(module, "mbarrier_phases", (blocks,), (threads,), (cp.asarray(x), out, np.int32(rounds)))
    rows = x.reshape(blocks, threads).astype(np.int64)
    acc = np.zeros_like(rows)
    for r in range(rounds):
        acc = acc * 3 + np.roll(rows * (r + 1) + r, -(r + 1), axis=1)
    np.testing.assert_array_equal(out.get(), acc.astype(np.int32).ravel())
