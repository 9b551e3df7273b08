"""The walk of one warp through the SASS (timing/walk.py): which scoreboards a block starts with."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import predict

SOURCE = r"""
extern "C" __global__ void tiles(float* out, const float* in, int tiles, int loads, int write) {
    #pragma unroll 1
    for (int t = 0; t < tiles; ++t) {
        long long i = ((long long)blockIdx.x * tiles + t) * blockDim.x * 4 + threadIdx.x;
        float v[4];
        #pragma unroll
        for (int j = 0; j < 4; ++j)
            if (j < loads) v[j] = in[i + j * blockDim.x];
        __syncthreads();
        if (write) {               // the loads' only use: without the write nothing waits for them here
            float s = 0.f;
            #pragma unroll
            for (int j = 0; j < 4; ++j)
                if (j < loads) s += v[j];
            out[i] = s;
        }
    }
}
"""
TILES, BLOCK, CTAS = 16, 256, 1024


@pytest.fixture(scope="module")
def launch():
    k = ws.RawModule(code=SOURCE).get_function("tiles")
    n = TILES * BLOCK * CTAS * 4
    x = ws.asarray(np.random.default_rng(8).random(n, dtype=np.float32))
    out = ws.zeros(n, dtype=np.float32)

    def run(write):
        params = pack_arguments(k.kernel_name, k.params, (out, x, np.int32(TILES), np.int32(1), np.int32(write)))
        return predict(k.loaded_module, k.kernel_name, (CTAS,), (BLOCK,), params, 0, gpu="h200", max_ctas=4)
    return run, out, x


def test_a_load_waited_for_only_at_the_next_iteration_counts(launch):
    """Without the write nothing waits for the load in its iteration: the next load into its register
    waits at the loop's head, which the taken path reaches from the loads' block, not from the write
    before it in the code (the twenty-fourth batch's reads: the H200 counts long_scoreboard there,
    8.2 an issue)."""
    run, out, x = launch
    reads = run(0)
    assert reads.stalls["long_scoreboard"] > 10.0
    copies = run(1)
    assert reads.time_s > 0.8 * copies.time_s       # the same loads, one store a thread fewer
    np.testing.assert_allclose(out.get()[:BLOCK], x.get()[:BLOCK])


MB27 = __import__("pathlib").Path(__file__).parents[2] / "validation" / "timing" / "microbench27.cubin"


@pytest.mark.parametrize("warps, h200_us", [(2, 61.9), (8, 82.6), (32, 182.2)])
def test_a_warp_issues_on_past_a_deferred_barrier(warps, h200_us):
    """BAR.SYNC.DEFER_BLOCKING lets a warp issue its FFMA and ISETP (stall counts 4 and 13) while the
    barrier resolves; only the branch waits for it. The twenty-seventh batch (one CTA an SM, 4,096 rounds of
    one FFMA and a __syncthreads) took 61.9, 82.6 and 182.2 us at 2, 8 and 32 warps, and Nsight Compute
    counted 1.8 `barrier` and 1.8 `wait` an issue at 2 warps where the stall counts alone are 3.8 `wait`:
    the warp's fixed waits behind the barrier are `barrier` to it. Charging the barrier at the BAR made the
    rounds 21-29% too long."""
    k = ws.RawModule(path=str(MB27)).get_function("mb27_bar")
    out = ws.zeros(32 * 132 * 32, dtype=np.float32)
    params = pack_arguments(k.kernel_name, k.params, (out, np.int32(4096)))
    t = predict(k.loaded_module, k.kernel_name, (132,), (32 * warps,), params, 0, gpu="h200", max_ctas=2)
    assert t.time_s * 1e6 == pytest.approx(h200_us, rel=0.06)
    if warps == 2:
        assert 0.3 < t.stalls["barrier"] and t.stalls["wait"] < 3.0


MB59 = MB27.parent / "microbench59.cubin"


@pytest.mark.parametrize("kernel, trips, h100_us", [("mb59_inner", [0] * 32, 135.1), ("mb59_inner", [1] * 32, 199.3),
                                                    ("mb59_inner", [k & 1 for k in range(32)], 232.3),
                                                    ("mb59_switch", [0] * 32, 186.8),
                                                    ("mb59_switch", [k & 3 for k in range(32)], 370.9)])
def test_a_bsync_costs_a_few_cycles_a_group_of_lanes_arriving(kernel, trips, h100_us):
    """The fifty-ninth batch (an H100, one warp an SM, 4,096 rounds of an FFMA beside an inner loop or a
    four-way switch of compares and branches, each bracketed by BSSY / BSYNC): whether the lanes arrive
    together or in two or four groups, a BSYNC costs about 6 cycles a group. The 40 a group set 2's switch
    loops showed belong to their BRX, the indirect branch a jump table compiles to; charged at the BSYNC,
    these rounds came out 27-64% too long."""
    k = ws.RawModule(path=str(MB59)).get_function(kernel)
    out, cycles = ws.zeros(132 * 32, dtype=np.float32), ws.zeros(132, dtype=np.int64)
    trip = ws.asarray(np.array(trips, dtype=np.int32))
    params = pack_arguments(k.kernel_name, k.params, (out, cycles, trip, np.int32(4096)))
    t = predict(k.loaded_module, k.kernel_name, (132,), (32,), params, 0, gpu="h100", max_ctas=2)
    assert t.time_s * 1e6 == pytest.approx(h100_us, rel=0.15)


MB61 = MB27.parent / "microbench61.cubin"


@pytest.mark.parametrize("kernel, trips, h100_us", [("mb61_chain8", [k & 7 for k in range(32)], 436.2),
                                                    ("mb61_exits", [k & 7 for k in range(32)], 394.8),
                                                    ("mb61_chain8", [0] * 32, 139.5)])
def test_a_branch_that_splits_its_warp_costs_more_to_resolve(kernel, trips, h100_us):
    """The sixty-first batch (an H100, one warp an SM, 2,048 rounds): an eight-way chain of compares and
    branches on lane & 7, and a loop the lanes leave one by one, split the warp seven times a round, and
    Nsight Compute's branch_resolving grew by more than their BSYNCs' groups and taken branches explain.
    Without a cost for each warp a BRA splits both came out 12-13% short; the same chain taken by every
    lane alike splits nothing and keeps its time."""
    k = ws.RawModule(path=str(MB61)).get_function(kernel)
    out = ws.zeros(132 * 32, dtype=np.float32)
    trip = ws.asarray(np.array(trips, dtype=np.int32))
    params = pack_arguments(k.kernel_name, k.params, (out, trip, np.int32(2048)))
    t = predict(k.loaded_module, k.kernel_name, (132,), (32,), params, 0, gpu="h100", max_ctas=2)
    assert t.time_s * 1e6 == pytest.approx(h100_us, rel=0.07)


MB64 = MB61.parent / "microbench64.cubin"
ODD = [k & 1 for k in range(32)]


@pytest.mark.parametrize("kernel, sel, trips, h100_us", [
    ("mb64_one", ODD, [3 if k & 2 else 1 for k in range(32)], 226.6),
    ("mb64_one", [1] * 31 + [0], [3] + [1] * 31, 197.7),
    ("mb64_two", [k & 3 for k in range(32)], [2] * 32, 231.0)])
def test_a_split_inside_the_half_an_earlier_split_ran_first_waits_to_resume(kernel, sel, trips, h100_us):
    """The sixty-fourth batch (an H100, one warp an SM, 2,048 rounds): a loop splitting the lanes of
    `if (lane & 1)` took 36 cycles a round more than its splits and BSYNC groups cost, a branch splitting
    them as much (two nested branches); inside `if (lane != 31)`, whose lone lane runs first and blocks
    before the loop splits, 5-8. Without the slow resume the first and last came out 15-19% short."""
    k = ws.RawModule(path=str(MB64)).get_function(kernel)
    out = ws.zeros(132 * 32, dtype=np.float32)
    args = (out, ws.asarray(np.array(sel, dtype=np.int32)), ws.asarray(np.array(trips, dtype=np.int32)),
            np.int32(2048))
    params = pack_arguments(k.kernel_name, k.params, args)
    t = predict(k.loaded_module, k.kernel_name, (132,), (32,), params, 0, gpu="h100", max_ctas=2)
    assert t.time_s * 1e6 == pytest.approx(h100_us, rel=0.05)
