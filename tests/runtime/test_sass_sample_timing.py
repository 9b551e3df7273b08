"""A program launch's predicted time comes from its SASS, sampled on a copy of device memory
(runtime/calls.py, _sass_sample): what the model times is what ptxas made, and the launch's own
memory is the real run's alone."""

import numpy as np

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.runtime.calls import UNEVEN_SAMPLE, _sass_sample
from warpsim.runtime.context import RuntimeContext
from warpsim.timing import predict

SOURCE = r"""
extern "C" __global__ void horner(float* out, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
    #pragma unroll 8
    for (int k = 0; k < 64; ++k) acc = acc * v + (float)k;
    out[i] = acc;
}
"""


def test_the_sample_runs_the_sass_on_a_copy_and_times_as_the_sass_prediction():
    rng = np.random.default_rng(5)
    n = 1 << 15
    x = ws.asarray(rng.random(n, dtype=np.float32))
    out = ws.asarray(np.full(n, np.nan, dtype=np.float32))
    kernel = ws.RawModule(code=SOURCE).get_function("horner")
    params = pack_arguments(kernel.kernel_name, kernel.params, (out, x, np.int32(n)))
    grid, block = (n // 256, 1, 1), (256, 1, 1)
    context = RuntimeContext()
    context.timeline_on = True                      # the clock runs, as under `warpsim profile --gpu`
    sample = _sass_sample(context, kernel.loaded_module, kernel.kernel_name, grid, block, params, 0, False, None)
    assert sample is not None and sample.execution.source == "sass"
    assert np.isnan(out.get()).all(), "the sampled CTAs wrote the copy, not the device's memory"
    expected = predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, 0,
                       gpu=context.preset.name, prefer="sass")
    assert sample.timing().time_s == expected.time_s
    ptx = predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, 0,
                  gpu=context.preset.name, prefer="ptx")
    assert ptx.details != expected.details          # the PTX run's counts, mapped by line, are another sample


def test_no_sample_while_the_clock_stands_or_for_cooperative_launches():
    kernel = ws.RawModule(code=SOURCE).get_function("horner")
    context = RuntimeContext()
    args = (kernel.loaded_module, kernel.kernel_name, (1, 1, 1), (32, 1, 1), bytes(20), 0)
    assert _sass_sample(context, *args, False, None) is None          # no events, no timeline
    context.timeline_on = True
    assert _sass_sample(context, *args, True, None) is None


CHAIN = r"""
extern "C" __global__ void chained(volatile int* flags, float* out) {
    int b = blockIdx.x;
    if (threadIdx.x == 0) {
        if (b > 0) while (flags[b - 1] == 0) { }      // waits on the CTA before it, as a look-back scan does
        flags[b] = 1;
    }
    __syncthreads();
    out[b * blockDim.x + threadIdx.x] = (float)b;
}
"""


def test_a_sample_whose_ctas_wait_on_ctas_outside_it_is_left_to_the_ptx_run():
    kernel = ws.RawModule(code=CHAIN).get_function("chained")
    flags, out = ws.zeros(64, dtype=np.int32), ws.asarray(np.full(64 * 32, np.nan, dtype=np.float32))
    params = pack_arguments(kernel.kernel_name, kernel.params, (flags, out))
    context = RuntimeContext()
    context.timeline_on = True
    args = (context, kernel.loaded_module, kernel.kernel_name, (64, 1, 1), (32, 1, 1), params, 0, False, None)
    assert _sass_sample(*args) is None          # the sampled CTAs spin: no SASS sample, and no hang
    assert (id(kernel.loaded_module), kernel.kernel_name) in context._no_sass_sample
    assert _sass_sample(*args) is None          # not tried again
    assert not flags.get().any() and np.isnan(out.get()).all()


UNEVEN = r"""
extern "C" __global__ void uneven(float* out, int heavy) {
    int rounds = blockIdx.x % 7 == 0 ? heavy : 100;       // CTAs 0, 1638, 3276 of the six sampled are heavy
    float v = threadIdx.x;
    for (int k = 0; k < rounds; ++k) v = v * 0.999f + 1.0f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
"""


def test_a_sample_whose_ctas_work_differs_grows():
    """Half the six first sampled CTAs are heavy, a seventh of the grid's are: the sample grows to
    UNEVEN_SAMPLE CTAs spread over the grid, and its prediction falls toward the grid's mean CTA."""
    kernel = ws.RawModule(code=UNEVEN).get_function("uneven")
    out = ws.zeros(8192 * 64, dtype=np.float32)
    params = pack_arguments(kernel.kernel_name, kernel.params, (out, np.int32(4000)))
    grid, block = (8192, 1, 1), (64, 1, 1)
    context = RuntimeContext()
    context.timeline_on = True
    sample = _sass_sample(context, kernel.loaded_module, kernel.kernel_name, grid, block, params, 0, False, None)
    assert len(sample.execution.sampled_ctas) >= UNEVEN_SAMPLE
    assert not out.get().any(), "the sample ran on a copy"
    six = predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, 0, gpu=context.preset.name)
    assert sample.timing().time_s < 0.7 * six.time_s, (sample.timing().time_s, six.time_s)
    even = ws.RawModule(code=SOURCE).get_function("horner")
    x = ws.asarray(np.random.default_rng(1).random(1 << 15, dtype=np.float32))
    params = pack_arguments(even.kernel_name, even.params, (out, x, np.int32(1 << 15)))
    sample = _sass_sample(context, even.loaded_module, even.kernel_name, (128, 1, 1), (256, 1, 1), params, 0, False, None)
    assert len(sample.execution.sampled_ctas) == 6                    # even work: the sample stays
