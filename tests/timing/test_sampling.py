"""A launch whose CTAs' work differs with their place in the grid is costed from CTAs spread over it
(model._spread): more sampled CTAs refine the prediction instead of moving it to the grid's corner."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import predict

SOURCE = r"""
extern "C" __global__ void escape_time(int* out, int w, int h, int limit) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.2f + 2.4f * y / h, zr = 0.0f, zi = 0.0f;
    int i = 0;
    for (; i < limit && zr * zr + zi * zi < 4.0f; ++i) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
    }
    out[y * w + x] = i;
}
"""


def test_more_sampled_ctas_keep_the_prediction_of_an_uneven_grid():
    w, h = 1920, 1080                        # 8160 CTAs of 256: many waves, costed from the sample
    kernel = ws.RawModule(code=SOURCE).get_function("escape_time")
    out = ws.zeros(w * h, dtype=np.int32)
    params = pack_arguments(kernel.kernel_name, kernel.params, (out, np.int32(w), np.int32(h), np.int32(100)))
    grid, block = ((w + 15) // 16, (h + 15) // 16, 1), (16, 16, 1)
    times = {n: predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, 0, gpu="h200",
                        max_ctas=n).time_s for n in (6, 96, 400)}
    assert abs(times[96] / times[400] - 1) < 0.15, times
    assert abs(times[6] / times[400] - 1) < 0.25, times
    rows = out.get().reshape(h, w)
    assert rows.max() == 100 and rows.min() < 5          # the sampled CTAs ran both ways



def test_a_profiled_launch_costs_the_sample_as_the_grids_mean_cta():
    """With 1,000 iterations the six sampled CTAs of the escape-time image issue 1.4x the grid's mean
    CTA (their predicted time 29% above that of 400 sampled CTAs). A profiled launch runs every CTA, and
    its counts of each instruction over the whole grid (Execution.grid_counts) scale the sample's to
    the grid's mean CTA: within 12% of the 400-CTA prediction."""
    w, h = 1920, 1080
    kernel = ws.RawModule(code=SOURCE).get_function("escape_time")
    out = ws.zeros(w * h, dtype=np.int32)
    args = (out, np.int32(w), np.int32(h), np.int32(1000))
    params = pack_arguments(kernel.kernel_name, kernel.params, args)
    grid, block = ((w + 15) // 16, (h + 15) // 16, 1), (16, 16, 1)
    wide = predict(kernel.loaded_module, kernel.kernel_name, grid, block, params, 0, gpu="h200", max_ctas=400)
    with ws.settings(gpu="h200", sass_verify=False), ws.profile(level="sass") as prof:
        kernel(grid, block, args)
    (launch,) = prof.launches
    assert abs(launch.timing.time_s / wide.time_s - 1) < 0.12, (launch.timing.time_s, wide.time_s)
    assert any("sampled CTAs' mean" in note for note in launch.timing.notes), launch.timing.notes
    # the whole run's issues, less the BSYNC and BRX re-issues the counters add (sass/issues.py)
    assert launch.timing.details["instructions"] == pytest.approx(launch.metrics["smsp__inst_executed.sum"], rel=1e-3)


def test_samples_stay_off_the_grids_last_edge():
    """The last CTA of a dimension is where a bounds guard idles threads; a sample stands for a sixth
    of the grid, so the picks on an edge move one CTA in."""
    from warpsim.timing import sampled_cta_ids
    assert sampled_cta_ids(3907) == [0, 781, 1562, 2344, 3125, 3905]
    picks = np.array(sampled_cta_ids((63, 63, 1)))
    assert (picks % 63 < 62).all() and (picks // 63 < 62).all() and picks[0] == 0
    assert sampled_cta_ids((5, 1, 1)) == [0, 1, 2, 3, 4]                    # a small grid runs whole


TAIL = r"""
extern "C" __global__ void fma_tail(float* out, int n, int trips) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = i * 1e-6f;
    for (int k = 0; k < trips; ++k) x = fmaf(x, 1.0001f, 0.5f);
    out[i] = x;
}
"""


@pytest.mark.parametrize("max_ctas", [4, 6])
def test_a_partial_last_cta_does_not_stand_for_a_share_of_the_grid(max_ctas):
    """n = 1,000,000 over CTAs of 256 leaves the last of 3,907 CTAs a quarter full; it ran as fast as
    1,000,192 elements in the same CTAs, where the model had it 6-10% faster."""
    kernel = ws.RawModule(code=TAIL).get_function("fma_tail")
    out = ws.zeros(1 << 20, dtype=np.float32)

    def time_us(n):
        params = pack_arguments(kernel.kernel_name, kernel.params, (out, np.int32(n), np.int32(500)))
        return predict(kernel.loaded_module, kernel.kernel_name, (3907,), (256,), params, gpu="h200",
                       max_ctas=max_ctas).time_s * 1e6

    assert time_us(1_000_000) == pytest.approx(time_us(3907 * 256), rel=0.01)



def test_the_launch_recorder_counts_what_the_compiled_round_loop_ran():
    """A program's launches (`warpsim run`) each carry a LaunchTimingRecorder; the compiled round loop
    runs their rounds too, handing it every CTA's work and the sampled CTAs' logged issues, and the
    prediction is the one the rounds run in Python give."""
    from warpsim.timing.sample import LaunchTimingRecorder
    kernel = ws.RawModule(code=SOURCE).get_function("escape_time")
    w = h = 128
    out = ws.zeros(w * h, dtype=np.int32)
    params = pack_arguments(kernel.kernel_name, kernel.params, (out, np.int32(w), np.int32(h), np.int32(100)))
    loaded = kernel.loaded_module
    predicted = {}
    for engine in ("numpy", "compiled"):
        recorder = LaunchTimingRecorder(loaded, kernel.kernel_name, (8, 8), (16, 16), 0, "h200")
        with ws.settings(engine=engine):
            loaded.launch(kernel.kernel_name, (8, 8), (16, 16), params, observers=(recorder,))
        predicted[engine] = recorder.timing()
    ran = loaded.program.__dict__["_round_loop"].lanes_by_block
    assert sum(ran.values()) > w * h                            # the loop ran most rounds
    numpy_run, compiled_run = predicted["numpy"], predicted["compiled"]
    assert compiled_run.cycles == numpy_run.cycles and compiled_run.stalls == numpy_run.stalls


def test_a_cubin_without_ptx_that_faults_in_the_sample_says_where():
    """A cubin has no PTX to fall back on: the SASS executor's fault is the answer, naming the thread
    and the instruction, not a failure of the fallback."""
    from pathlib import Path

    from warpsim.errors import WarpsimError
    cubin = Path(__file__).parents[2] / "validation" / "timing" / "microbench59.cubin"
    k = ws.RawModule(path=str(cubin)).get_function("mb59_inner")
    out, cycles = ws.zeros(132 * 32, dtype=np.float32), ws.zeros(132, dtype=np.int64)
    trip = ws.zeros(1, dtype=np.int32)                   # the kernel reads trip[lane] for 32 lanes
    params = pack_arguments(k.kernel_name, k.params, (out, cycles, trip, np.int32(8)))
    with pytest.raises(WarpsimError, match=r"out-of-bounds.*thread \(1, 0, 0\)"):
        predict(k.loaded_module, k.kernel_name, (132,), (32,), params, 0, gpu="h100", max_ctas=2)
