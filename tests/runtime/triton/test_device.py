"""The predicted GPU of the Triton backend (warpsim/runtime/triton/device.py): what its L2 holds.

A launch that ran before finds its data in L2 if the launches since and its own footprint fit;
do_bench's flush empties it, do_bench_cudagraph does not (bench.py). The end-to-end test runs a
vector add in process: do_bench's kernel time (its clock less the events' launch overhead) is
the cold prediction, do_bench_cudagraph's the warm one.
"""

import numpy as np
import pytest

from warpsim.runtime.triton.device import PredictedGPU

MB = 1 << 20


def test_l2_holds_recent_launches_until_a_flush_or_until_they_exceed_it():
    gpu = PredictedGPU("h200")
    l2 = gpu.preset.l2_bytes
    assert gpu.l2_since("a") is None                  # never ran: cold
    gpu.l2_ran("a", 8 * MB)
    assert gpu.l2_since("a") == 0.0                   # follows itself
    gpu.l2_ran("b", 20 * MB)
    gpu.l2_ran("c", 10 * MB)
    assert gpu.l2_since("a") == 30 * MB
    gpu.l2_ran("a", 8 * MB)                           # ran again: the most recent, counted once
    assert gpu.l2_since("b") == 18 * MB and gpu.l2_since("a") == 0.0
    gpu.l2_ran("d", l2)                               # a launch as large as the L2 pushes out the rest
    assert gpu.l2_since("b") is None and gpu.l2_since("d") == 0.0
    gpu.flush_l2()
    assert gpu.l2_since("d") is None


triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")


@pytest.mark.triton
def test_do_bench_flushes_the_l2_and_do_bench_cudagraph_does_not():
    import triton.language as tl

    from warpsim.runtime.triton.activation import triton_on_warpsim

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    with triton_on_warpsim():
        from triton.testing import do_bench, do_bench_cudagraph

        from warpsim.runtime.triton.device import active_gpu
        n = 1 << 20                                   # 12 MB of data: the L2 holds it
        rng = np.random.default_rng(3)
        x, y = (torch.from_numpy(rng.random(n, dtype=np.float32)) for _ in range(2))
        out = torch.empty_like(x)

        def run():
            add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

        cold = do_bench(run, return_mode="median") - active_gpu().preset.launch_overhead_us * 1e-3
        warm = do_bench_cudagraph(run, return_mode="median")
        np.testing.assert_array_equal(out.numpy(), x.numpy() + y.numpy())
    assert 0 < warm < 0.95 * cold
