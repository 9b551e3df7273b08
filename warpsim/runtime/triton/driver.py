"""The warpsim backend's driver: what Triton's runtime asks of the active GPU driver.

Active only when enabled (WARPSIM_TRITON=1; `warpsim run` sets it), so Triton's
NVIDIA driver stays the one on a machine with a GPU. The current target is
"cuda" at the chosen GPU's arch (compiler.py says why); the active torch device is the CPU
(tensors made on "cuda" are CPU tensors and torch.cuda answers for the simulated GPU:
cuda_tensors.py, torch_device.py); NumPy arrays are tensors too (host_arrays.py), and
tensors whose data_ptr() was taken stay addressable (taken_addresses.py);
load_binary loads the PTX on warpsim's device (registers and spills from
ptxas, as the GPU's driver reports them); launcher_cls is WarpsimLauncher;
the device interface and benchmarker read the predicted clock (device.py,
bench.py).
"""

from __future__ import annotations

import os

from ...errors import import_optional
from . import BACKEND_NAME, TARGET_BACKEND, enabled
from .device import DeviceInterface, PredictedGPU, made
from .bench import L2Flush, do_bench, install
from .launcher import LoadedKernel, WarpsimLauncher
from . import host_arrays, torch_device

DriverBase = import_optional("triton.backends.driver", extra="triton",
                             needed_for="warpsim's Triton backend").DriverBase

CPP_TYPES = {"i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
             "u1": "bool", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
             "fp16": "double", "bf16": "double", "fp32": "double", "f32": "double", "fp64": "double"}

if enabled():               # WARPSIM_TRITON=1 on a machine with a GPU: warpsim's, not the NVIDIA one
    os.environ.setdefault("TRITON_DEFAULT_BACKEND", BACKEND_NAME)
    torch_device.install_on_import()        # `import triton` got here: torch on "cuda" from now on


class WarpsimUtils:
    """driver.utils: loading kernels and the device's properties."""

    def __init__(self, gpu: PredictedGPU):
        self.gpu = gpu

    def load_binary(self, name: str, ptx, shared: int, device: int):
        """(module, function, registers, spills, max threads), as the NVIDIA driver returns them."""
        module = self.gpu.device.load_module(ptx if isinstance(ptx, str) else ptx.decode(), name=name)
        registers, spills = 0, 0
        try:
            from ...timing.registers import kernel_registers
            registers = kernel_registers(module, name)
        except Exception:  # noqa: BLE001  (no ptxas here: Triton only reports the count)
            pass
        return module, LoadedKernel(module, name), registers, spills, self.gpu.preset.max_threads_per_block

    def unload_module(self, module) -> None:
        pass

    def get_device_properties(self, device=0) -> dict:
        return self.gpu.properties()


class WarpsimDriver(DriverBase):
    """Triton's driver for kernels run on warpsim (see the module doc)."""

    def __init__(self):
        self.gpu = PredictedGPU()
        self.utils = WarpsimUtils(self.gpu)
        self.launcher_cls = WarpsimLauncher
        self.interface = DeviceInterface(self.gpu)
        made(self.gpu)
        install()
        host_arrays.install()
        torch_device.install()

    @staticmethod
    def is_active() -> bool:
        return enabled()

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device) -> None:
        if int(getattr(device, "index", device) or 0) != 0:
            raise RuntimeError(f"warpsim simulates one GPU (device 0); device {device} was asked for")

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_device_capability(self, device=None) -> tuple:
        return tuple(self.gpu.preset.compute_capability)

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget(TARGET_BACKEND, self.gpu.arch, 32)

    def get_active_torch_device(self):
        import torch
        torch_device.install()
        return torch.device("cpu")

    def get_device_interface(self):
        return self.interface

    def map_python_to_cpp_type(self, ty: str) -> str:
        return "void*" if ty.startswith("*") else CPP_TYPES.get(ty, ty)

    def get_benchmarker(self):
        return do_bench

    def get_empty_cache_for_benchmark(self):
        return L2Flush()

    def clear_cache(self, cache) -> None:
        cache.zero_()

    def allocate_default_profile_scratch(self, size: int, alignment: int, stream):
        return None            # the launcher allocates Triton's scratch buffers on warpsim's heap

    def __repr__(self) -> str:
        return f"<warpsim Triton driver: {self.gpu.preset.name}, sm_{self.gpu.arch}, pid {os.getpid()}>"
