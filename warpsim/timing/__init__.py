"""The timing model: GPU presets (presets.py) and, later, the model that uses them."""

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

__all__ = ["A100", "H100", "H200", "L4", "PRESETS", "GPUPreset", "UnknownGPU", "gpu_names", "gpu_preset"]
