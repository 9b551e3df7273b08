"""Which pipe each SASS instance issues to, and what it costs there (the forty-second batch)."""

import numpy as np

import warpsim as ws
from warpsim.timing import gpu_preset, predict
from warpsim.timing.pipes import pipe_cycles, pipe_of, pipe_passes

SOURCE = r"""
#include <cuda_fp16.h>
extern "C" __global__ void chains(void* out, int steps, int half) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (half) {
        __half2 a[8];
        for (int k = 0; k < 8; ++k) a[k] = __float2half2_rn(0.25f * k + 1e-3f * (threadIdx.x & 31));
#pragma unroll 4
        for (int s = 0; s < steps; ++s)
            for (int k = 0; k < 8; ++k) a[k] = __hfma2(a[k], __float2half2_rn(0.99f), __float2half2_rn(0.01f));
        __half2 sum = a[0];
        for (int k = 1; k < 8; ++k) sum = __hadd2(sum, a[k]);
        ((__half2*)out)[t] = sum;
    } else {
        float a[8];
        for (int k = 0; k < 8; ++k) a[k] = 0.25f * k + 1e-3f * (threadIdx.x & 31);
#pragma unroll 4
        for (int s = 0; s < steps; ++s)
            for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 0.99f, 0.01f);
        float sum = 0.f;
        for (int k = 0; k < 8; ++k) sum += a[k];
        ((float*)out)[t] = sum;
    }
}
"""


def test_packed_halves_issue_on_their_own_pipe_at_half_the_fp32_rate():
    hold = pipe_cycles(gpu_preset("h200"))
    assert pipe_of("HFMA2", ()) == pipe_of("HADD2", ("F32",)) == "fp16" and hold["fp16"] == 2 * hold["fp32"]
    assert pipe_of("HFMA2", ("MMA",)) == "fp32"           # ptxas's other half of a thread's packed chains
    assert pipe_of("FLO", ("U32",)) == pipe_of("BREV", ()) == pipe_of("POPC", ()) == "mufu"
    assert pipe_of("VIADD", ()) == "fma" and pipe_of("FMNMX", ()) == "alu"
    assert pipe_passes("IMAD", ("HI", "U32")) == pipe_passes("IMAD", ("WIDE", "U32")) == 2 and pipe_passes("IMAD", ("IADD",)) == 1


def test_a_kernel_of_packed_half_chains_takes_about_twice_an_fp32_ones_time():
    """The forty-second batch (an H100): eight HFMA2 chains a thread at 64 warps an SM, 139.1 us; the
    same of FFMA 76.3 us (1.82x)."""
    from warpsim.api.raw import pack_arguments
    f = ws.RawModule(code=SOURCE).get_function("chains")
    grid, block = 132 * 16, 128
    out = ws.zeros(grid * block, dtype=np.float32)
    times = {}
    for half in (0, 1):
        args = pack_arguments(f.kernel_name, f.params, (out, np.int32(256), np.int32(half)))
        times[half] = predict(f.loaded_module, f.kernel_name, (grid,), (block,), args, 0, gpu="h200",
                              max_ctas=4).time_s
        expected = 0.99 ** 256 * (0.25 * np.arange(8) + 1e-3 * 5) + 0.01 * (1 - 0.99 ** 256) / 0.01
        value = out.get()[5] if not half else out.get().view(np.float16)[10:12].astype(np.float32)
        assert np.allclose(value, expected.sum(), rtol=0.05)          # thread 5 of CTA 0, which ran
    assert 1.5 < times[1] / times[0] < 2.3
