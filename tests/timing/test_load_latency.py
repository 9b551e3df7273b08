"""The walk of one warp through its SASS, and the latency and L1 misses its global loads are given.

A loop that accumulates into global memory (`s[j] += r[i] * A[i][j]`, possibly aliasing pointers)
makes ptxas keep the sum in a register, store it every iteration and issue the next iteration's
loads after the store: the loads of one iteration share a scoreboard, and the FFMA waits on it.
"""

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import gpu_preset, predict, record_execution
from warpsim.timing.model import KernelCosts

SOURCE = r"""
extern "C" __global__ void column_sums(int rows, int cols, const float* A, const float* r, float* s) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) {
        s[j] = 0.0f;
        for (int i = 0; i < rows; i++) s[j] += r[i] * A[i * cols + j];
    }
}
"""
ROWS = 256


@pytest.fixture(scope="module")
def kernel():
    return ws.RawModule(code=SOURCE).get_function("column_sums")


def _params(kernel, cols):
    """The packed parameters and the arrays they point to (kept alive as long as the parameters)."""
    rng = np.random.default_rng(5)
    arrays = (ws.asarray(rng.random(ROWS * cols, dtype=np.float32)), ws.asarray(rng.random(ROWS, dtype=np.float32)),
              ws.zeros(cols, dtype=np.float32))
    return pack_arguments(kernel.kernel_name, kernel.params, (np.int32(ROWS), np.int32(cols)) + arrays), arrays


def test_a_consumer_of_two_loads_on_one_scoreboard_waits_for_the_slower(kernel):
    cols = 2048
    params, _arrays = _params(kernel, cols)
    ex = record_execution(kernel.loaded_module, kernel.kernel_name, (cols // 256, 1, 1), (256, 1, 1), params, 0)
    costs = KernelCosts(ex, gpu_preset("h200"), cols // 256, 0.0)
    fn = ex.function
    issued = sum(c.sum(axis=0) for c in ex.counts)
    slowest = max(costs.latency.values())
    gaps = costs.walk.gap()
    # every FFMA of the unrolled loop waits on a scoreboard an A load (a new row: an L1 miss) and an
    # r load (mostly an L1 hit) both set: each waits about as long as the A load
    ffma = [i for i, ins in enumerate(fn.instructions) if ins.opcode == "FFMA" and issued[i] > 0
            and ins.control.wait_mask]
    assert len(ffma) >= 4
    assert min(gaps[i] for i in ffma) >= 0.9 * slowest


def test_ctas_of_one_wave_reading_the_same_sectors_wait_on_their_fetch_from_hbm(kernel):
    # r is read by every CTA at the same iterations: with all CTAs resident at once, each waits on
    # the same fetch from HBM rather than hitting in L2
    h200 = gpu_preset("h200")
    one_wave, _arrays = _params(kernel, 2048)
    ex = record_execution(kernel.loaded_module, kernel.kernel_name, (8, 1, 1), (256, 1, 1), one_wave, 0)
    costs = KernelCosts(ex, h200, 8, 0.0, waves=1)
    assert costs.dram_wait_fraction == 1.0
    assert max(costs.latency.values()) == pytest.approx(h200.hbm_latency)
    later_waves = KernelCosts(ex, h200, 8, 0.0, waves=4)
    assert later_waves.dram_wait_fraction < 1.0
    assert max(later_waves.latency.values()) < h200.hbm_latency
    # warm (the launch ran just before): nothing is fetched from HBM, nothing waits on it
    warm = KernelCosts(ex, h200, 8, 0.0, waves=1, l2_since=0.0)
    assert warm.dram_wait_fraction == 0.0
    # the loop's time is then about ROWS chained HBM latencies
    t = predict(kernel.loaded_module, kernel.kernel_name, (8, 1, 1), (256, 1, 1), one_wave, 0, gpu="h200")
    assert t.cycles > 0.9 * ROWS * h200.hbm_latency


TABLE_SOURCE = r"""
extern "C" __global__ void weigh(const float* table, const float* x, float* y, int n, int cached) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float w;
    if (cached) w = table[threadIdx.x];
    else asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(w) : "l"(table + threadIdx.x));
    if (i < n) y[i] = x[i] * w;
}
"""


def test_a_table_every_cta_reads_stays_in_l1_for_the_ctas_after_the_first_on_an_sm():
    kernel = ws.RawModule(code=TABLE_SOURCE).get_function("weigh")
    n = 1 << 20
    rng = np.random.default_rng(6)
    arrays = (ws.asarray(rng.random(256, dtype=np.float32)), ws.asarray(rng.random(n, dtype=np.float32)),
              ws.zeros(n, dtype=np.float32))
    h200 = gpu_preset("h200")
    table_misses = {}
    for cached in (1, 0):
        params = pack_arguments(kernel.kernel_name, kernel.params, arrays + (np.int32(n), np.int32(cached)))
        ex = record_execution(kernel.loaded_module, kernel.kernel_name, (n // 256, 1, 1), (256, 1, 1), params, 0)
        costs = KernelCosts(ex, h200, h200.sms, 0.0, waves=4)
        loads = [i for i, m in ex.memory.items() if m.space == "global" and m.kind == "load"]
        table = min(loads, key=lambda i: ex.memory[i].sectors)      # the 1 KB table against x's 4 MB
        first = ex.memory[table].cta_unique_sectors
        assert first == 32 * len(ex.sampled_ctas)                   # every sampled CTA touches all of it
        table_misses[cached] = costs.misses[table] / first
        np.testing.assert_allclose(arrays[2].get()[:256], arrays[1].get()[:256] * arrays[0].get())   # CTA 0 ran
    # 4096 CTAs over 132 SMs: each SM fetches the table for one of its 31 CTAs
    assert table_misses[1] == pytest.approx(h200.sms / (n // 256), rel=0.01)
    assert table_misses[0] == 1.0                                   # ld.global.cg does not keep it in L1
