"""Warps of a CTA that load the same sectors at the same instruction, in step, each wait on the one
miss in flight (execution.SiteMemory.in_step_sectors): those loads are not L1 hits."""

import numpy as np

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import predict, record_execution

SOURCE = r"""
extern "C" __global__ void column_sums(const float* a, float* y, const float* w, int rows, int cols) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;      // threadIdx.y does not enter: 8 warps, one column set
    if (j < cols) for (int i = 0; i < rows; i++) y[j] += a[i * cols + j] * w[i];
}
"""


def test_warps_reading_the_same_lines_in_step_wait_as_long_as_one_warp_per_column():
    rng = np.random.default_rng(11)
    n = 1024
    a = ws.asarray(rng.random(n * n, dtype=np.float32))
    w = ws.asarray(rng.random(n, dtype=np.float32))
    y = ws.asarray(rng.random(n, dtype=np.float32))
    kernel = ws.RawModule(code=SOURCE).get_function("column_sums")
    params = pack_arguments(kernel.kernel_name, kernel.params, (a, y, w, np.int32(n), np.int32(n)))
    one = predict(kernel.loaded_module, kernel.kernel_name, (n // 256, 1, 1), (256, 1, 1), params, 0, gpu="h200")
    eight = predict(kernel.loaded_module, kernel.kernel_name, (n // 32, 1, 1), (32, 8, 1), params, 0, gpu="h200")
    # the same column loop's latency either way: the 8 warps add no L1 hits, and are not 4x faster
    assert 0.7 < eight.time_s / one.time_s < 1.3, (eight.time_s, one.time_s)
    ex = record_execution(kernel.loaded_module, kernel.kernel_name, (n // 32, 1, 1), (32, 8, 1), params, 0,
                          max_ctas=2)
    site = max((m for m in ex.memory.values() if m.space == "global" and m.kind == "load"),
               key=lambda m: m.in_step_sectors)
    assert site.in_step_sectors == 7 * site.cta_unique_sectors       # 7 of a CTA's 8 warps follow the first
