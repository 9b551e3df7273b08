"""What torch says about the GPU while the warpsim backend is active.

Scripts written for a GPU ask torch about the device beside Triton: Triton's
tutorials test `torch.cuda.get_device_capability()[0] >= 9` before using TMA
and size persistent grids by
`torch.cuda.get_device_properties("cuda").multi_processor_count`, and set a
stream on `getattr(torch, DEVICE.type)`. With the CPU build of torch (the one
that installs without a GPU) the first two raise "Torch not compiled with CUDA
enabled" and `torch.cpu` has no `set_stream`. While the backend is active those
queries answer for the simulated GPU (the chosen preset), and `torch.cpu.set_stream`
accepts the stream (the backend runs one stream). Nothing else changes:
`torch.cuda.is_available()` stays False and tensors stay CPU tensors, so a
script that creates tensors on device="cuda" still fails as torch says.
"""

from __future__ import annotations

from dataclasses import dataclass

_ORIGINAL: dict = {}


@dataclass(frozen=True)
class DeviceProperties:
    """torch.cuda.get_device_properties' fields a script reads, for the simulated GPU."""

    name: str
    major: int
    minor: int
    multi_processor_count: int
    total_memory: int
    L2_cache_size: int
    warp_size: int
    max_threads_per_multi_processor: int
    regs_per_multiprocessor: int
    shared_memory_per_block_optin: int


def device_properties(gpu) -> DeviceProperties:
    p = gpu.preset
    major, minor = p.compute_capability
    return DeviceProperties(name=f"{p.full_name} (warpsim)", major=major, minor=minor,
                            multi_processor_count=p.sms, total_memory=p.hbm_bytes, L2_cache_size=p.l2_bytes,
                            warp_size=p.warp_size, max_threads_per_multi_processor=p.max_warps_per_sm * p.warp_size,
                            regs_per_multiprocessor=p.registers_per_sm,
                            shared_memory_per_block_optin=p.max_shared_per_block)


def install(gpu) -> None:
    """Answer torch's device queries for gpu (a PredictedGPU) until uninstall()."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None or _ORIGINAL:
        return                      # a script that never imported torch asks torch nothing
    cuda = torch.cuda
    for name in ("get_device_capability", "get_device_properties", "get_device_name"):
        _ORIGINAL[("cuda", name)] = getattr(cuda, name)
    cuda.get_device_capability = lambda device=None: tuple(gpu.preset.compute_capability)
    cuda.get_device_properties = lambda device=None: device_properties(gpu)
    cuda.get_device_name = lambda device=None: device_properties(gpu).name
    if not hasattr(torch.cpu, "set_stream"):
        _ORIGINAL[("cpu", "set_stream")] = None
        torch.cpu.set_stream = lambda stream: None


def uninstall() -> None:
    import sys
    torch = sys.modules.get("torch")
    if torch is None:
        _ORIGINAL.clear()
        return
    for (module, name), original in list(_ORIGINAL.items()):
        target = getattr(torch, module)
        if original is None:
            delattr(target, name)
        else:
            setattr(target, name, original)
    _ORIGINAL.clear()
