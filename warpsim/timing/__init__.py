"""The timing model: GPU presets (presets.py), what ran (execution.py, sample.py), the model (model.py).

    timing = warpsim.timing.predict(kernel, grid, block, args, gpu="h200")   # runs a CTA sample
    timing.time_s, timing.achieved_occupancy, timing.stalls, timing.bottleneck
    compare_timings(timing_a, timing_b, labels=("naive", "tiled")).render()   # which is faster, and why
"""

from warpsim.timing.presets import (
    A100,
    H100,
    H200,
    L4,
    PRESETS,
    GPUPreset,
    UnknownGPU,
    gpu_names,
    gpu_preset,
)
from warpsim.timing.result import Timing
from warpsim.timing.execution import Execution, SiteMemory
from warpsim.timing.model import predict_execution
from warpsim.timing.sample import record_execution, sampled_cta_ids
from warpsim.timing.api import predict, predict_launch
from warpsim.timing.comparison import Comparison, combine, compare_timings

__all__ = ["A100", "H100", "H200", "L4", "PRESETS", "GPUPreset", "UnknownGPU", "gpu_names", "gpu_preset",
           "Timing", "Execution", "SiteMemory", "predict_execution", "record_execution", "sampled_cta_ids",
           "predict", "predict_launch", "Comparison", "combine", "compare_timings"]
