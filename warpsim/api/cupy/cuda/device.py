"""`cupy.cuda.device`: the one simulated device (id 0, compute capability 9.0)."""

from __future__ import annotations

import operator

from .._missing import missing_attribute, not_provided

__all__ = ["Device", "get_compute_capability", "get_device_id", "get_cublas_handle"]

COMPUTE_CAPABILITY = "90"


class Device:
    """CuPy's Device: `with cupy.cuda.Device(0):`, `.id`, `.synchronize()`, `.attributes`.

    warpsim simulates one GPU, so only device 0 exists; Device(1) raises as
    CuPy does on a one-GPU machine (cudaErrorInvalidDevice).
    """

    def __init__(self, device=None):
        device = 0 if device is None else operator.index(device)
        if device != 0:
            from ...cuda_errors import CUDARuntimeError
            raise CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device} "
                                   "(warpsim simulates one GPU, device 0)")
        self.id = 0

    compute_capability = property(lambda self: COMPUTE_CAPABILITY)
    pci_bus_id = property(lambda self: "0000:00:00.0")

    @property
    def attributes(self) -> dict:
        from .runtime import DEVICE_ATTRIBUTES
        return dict(DEVICE_ATTRIBUTES)

    @property
    def mem_info(self) -> tuple:
        from ...memory import current_device
        memory = current_device().memory
        return memory.limit - memory.allocated, memory.limit

    def synchronize(self) -> None:
        """Launches finish before they return: nothing to wait for."""

    def use(self) -> "Device":
        return self

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return 0

    __index__ = __int__

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<CUDA Device 0 (warpsim)>"

    @property
    def cublas_handle(self):
        raise not_provided("cupy.cuda.Device.cublas_handle", "no cuBLAS on the simulator")

    def __getattr__(self, name):
        raise missing_attribute("cupy.cuda.Device", name)


def get_compute_capability() -> str:
    return COMPUTE_CAPABILITY


def get_device_id() -> int:
    return 0


def get_cublas_handle():
    raise not_provided("cupy.cuda.device.get_cublas_handle", "no cuBLAS on the simulator")


def __getattr__(name):
    raise missing_attribute("cupy.cuda.device", name)
