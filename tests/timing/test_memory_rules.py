"""The model's rules for partly written sectors, atomics over L2 slices, and tensor-core shapes."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.timing import gpu_preset, predict, record_execution
from warpsim.timing.pipes import tensor_cycles

SOURCE = r"""
extern "C" __global__ void scatter(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(long long)i * stride] = in[i] * 3.0f;
}
extern "C" __global__ void add_at(int* acc, const int* in, int n, int per_warp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[per_warp ? (i >> 5) : i], in[i]);
}
"""


@pytest.fixture(scope="module")
def mod():
    return ws.RawModule(code=SOURCE)


def _run(mod, name, grid, block, args, record=False):
    from warpsim.api.raw import pack_arguments
    k = mod.get_function(name)
    params = pack_arguments(k.kernel_name, k.params, args)
    if record:
        return record_execution(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0)
    return predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0, gpu="h200")


def test_partly_written_sectors_are_counted_and_cost_hbm_time(mod):
    rng = np.random.default_rng(1)
    n = 1 << 14
    x = ws.asarray(rng.random(n, dtype=np.float32) + 0.5)
    partial = {}
    times = {}
    for stride in (1, 2, 8):
        out = ws.zeros(n * stride, dtype=np.float32)
        ex = _run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(stride)), record=True)
        partial[stride] = sum(m.partial_lines for m in ex.memory.values())
        np.testing.assert_allclose(out.get()[::stride][:256], 3 * x.get()[:256])   # CTA 0 is sampled
        times[stride] = _run(mod, "scatter", n // 256, 256, (out, x, np.int32(n), np.int32(stride))).time_s
    assert partial[1] == 0                       # whole sectors: no fill from HBM
    assert partial[2] > 0 and partial[8] > partial[2]
    assert times[8] > times[2] > times[1]


def test_atomics_on_one_address_per_warp_are_bound_by_the_slices_a_wave_reaches(mod):
    n = 1 << 18
    vals = ws.asarray(np.random.default_rng(2).integers(1, 8, size=n).astype(np.int32))
    per_warp = _run(mod, "add_at", n // 256, 256, (ws.zeros(n // 32, dtype=np.int32), vals, np.int32(n), np.int32(1)))
    distinct = _run(mod, "add_at", n // 256, 256, (ws.zeros(n, dtype=np.int32), vals, np.int32(n), np.int32(0)))
    assert per_warp.details["bounds"]["atomics"] > per_warp.details["bounds"]["execution"] * 0.5
    assert per_warp.time_s > 2 * distinct.time_s   # 32 lanes on one address serialise at its slice


def test_tensor_core_time_follows_the_instruction_shape():
    h200 = gpu_preset("h200")
    wide = tensor_cycles("HGMMA", ("64x256x16", "F32"), h200)
    narrow = tensor_cycles("HGMMA", ("64x16x16", "F32"), h200)
    assert wide == pytest.approx(16 * narrow, rel=0.01)     # the H200's measured intervals, about N / 2
    # the same m64nNk shape takes as long in TF32 (k 8) and FP8 (k 32) as in 16-bit inputs (k 16)
    assert tensor_cycles("HGMMA", ("64x64x8", "F32", "TF32"), h200) == pytest.approx(
        tensor_cycles("HGMMA", ("64x64x16", "F32"), h200))
    assert tensor_cycles("HGMMA", ("64x64x32", "F32", "E4M3", "E4M3"), h200) == pytest.approx(
        tensor_cycles("HGMMA", ("64x64x16", "F32"), h200))
    # mma.sync runs at its measured rate: m16n8k8 is half of m16n8k16
    assert tensor_cycles("HMMA", ("1688", "F32"), h200) == pytest.approx(
        tensor_cycles("HMMA", ("16816", "F32"), h200) / 2)


LANES_SOURCE = r"""
extern "C" __global__ void add_from_lanes(int* line, int active) {
    int lane = threadIdx.x & 31;
    if (lane < active) atomicAdd(&line[lane], 1);
}
"""


def test_a_line_pass_of_atomics_costs_in_proportion_to_the_lanes_it_carries():
    from warpsim.api.raw import pack_arguments
    kernel = ws.RawModule(code=LANES_SOURCE).get_function("add_from_lanes")
    line = ws.zeros(32, dtype=np.int32)
    bounds, passes = {}, {}
    for active in (32, 16, 8):
        params = pack_arguments(kernel.kernel_name, kernel.params, (line, np.int32(active)))
        ex = record_execution(kernel.loaded_module, kernel.kernel_name, (1024, 1, 1), (256, 1, 1), params, 0)
        (site,) = [m for m in ex.memory.values() if m.kind == "atomic"]
        requests = 8 * len(ex.sampled_ctas)               # a request per warp, every lane on its own word
        passes[active] = site.atomic_multi_requests / requests
        bounds[active] = predict(kernel.loaded_module, kernel.kernel_name, (1024, 1, 1), (256, 1, 1), params, 0,
                                 gpu="h200").details["bounds"]["atomics"]
    assert passes == {32: 1.0, 16: 0.5, 8: 0.25}
    # the H200 (microbench12.json): 5.0, 2.42 and 1.23 cycles a request; 8 lanes cost one lane's 1.47 here
    assert bounds[32] / bounds[16] == pytest.approx(2.0, rel=0.05)
    assert bounds[16] / bounds[8] == pytest.approx(2.45 / 1.47, rel=0.05)
